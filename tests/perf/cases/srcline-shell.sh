#!/bin/bash
# perf finds source lines by running addr2line on a DSO's file (built
# without libbfd, as Debian's perf is). It once ran it through a shell,
# the DSO's name from the perf.data pasted in unquoted: a binary whose
# path held a ';' made perf report --sort srcline run the rest of the
# name as a command. The name must reach addr2line as one argument.
# usage: srcline-shell.sh WORKLOAD_DIR   (perf taken from PATH; TAP output)
set -u
. "$(dirname "$0")/../tap.sh"
w=$(cd "$1" && pwd) || exit 1
t=$(mktemp -d "${TMPDIR:-/tmp}/srcline-shell.XXXXXX")
trap 'rm -rf "$t"' EXIT
export HOME=$t
unset DEBUGINFOD_URLS
name='prog;touch shell-ran;x'

cp "$w/unwind-v1" "$t/$name" || exit 1
cd "$t" || exit 1
if ! perf record -q -N -e cpu-clock:u -o rec.data -- "./$name" 100000000 >/dev/null 2>&1; then
	skip "srcline, a ';' in the name" "perf record does not work here"
	echo "1..$n"
	exit 0
fi
perf report --stdio --sort dso,srcline -i rec.data >"$t/report" 2>"$t/report.err"
result "perf report --sort srcline: nothing of the name run as a command" \
	[ ! -e "$t/shell-ran" ]
result "perf report --sort srcline: the binary's source lines" \
	grep -qE "$name +unwind-build\.c:[0-9]+" "$t/report"
echo "1..$n"
