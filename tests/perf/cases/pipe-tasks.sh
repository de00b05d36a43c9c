#!/bin/bash
# perf report --tasks, --mmaps and --stats of a pipe: a pipe carries the
# attrs of its events as records, which those modes once dropped ("failed
# to process type: 3"). The workload's name must be in the task list, its
# binary in the mmaps, and --stats must count its samples.
# usage: pipe-tasks.sh WORKLOAD_DIR   (perf taken from PATH; TAP output)
set -u
. "$(dirname "$0")/../tap.sh"
w=$(cd "$1" && pwd) || exit 1
t=$(mktemp -d "${TMPDIR:-/tmp}/pipe-tasks.XXXXXX")
trap 'rm -rf "$t"' EXIT
export HOME=$t
unset DEBUGINFOD_URLS
f=$t/spin-pipe
cp "$w/spin-sha1" "$f" || exit 1
if ! perf record -q -e cpu-clock:u -o - -- "$f" 20000000 2>/dev/null >"$t/pipe.data" ||
	[ ! -s "$t/pipe.data" ]; then
	echo "not ok 1 perf record -o - of $f"
	echo "1..1"
	exit 0
fi
# each mode reads the pipe from standard input, as perf report -i - does
for mode in tasks mmaps stats; do
	perf report -i - --"$mode" <"$t/pipe.data" >"$t/$mode.out" 2>"$t/$mode.err"
	rc=$?
	result "report -i - --$mode: exits 0 ($rc)" [ "$rc" -eq 0 ]
done
result "report -i - --tasks: the workload's task is listed" grep -qw spin-pipe "$t/tasks.out"
result "report -i - --mmaps: the workload's binary is listed" grep -qF "$f" "$t/mmaps.out"
result "report -i - --stats: samples are counted" grep -Eq 'SAMPLE events: *[1-9]' "$t/stats.out"
echo "1..$n"
