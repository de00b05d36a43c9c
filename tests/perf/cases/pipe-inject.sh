#!/bin/bash
# perf inject between a pipe and a file, both ways: from a pipe to a file
# it once wrote the file header over the start of the data ("failed to
# process type"), and from a file to a pipe it wrote no pipe header, so
# that no perf could read what it made. What comes out must hold the
# samples that went in (perf script prints the same lines for both), and
# inject -b must name the workload by the build ID readelf reads from it.
# Also a pipe with more events than the room inject keeps for the file
# header (500: the data then moves), tracepoints (their tracing data
# travels too), and a file through a pipe back into a file.
# usage: pipe-inject.sh WORKLOAD_DIR   (perf taken from PATH; TAP output)
set -u
. "$(dirname "$0")/../tap.sh"
w=$(cd "$1" && pwd) || exit 1
t=$(mktemp -d "${TMPDIR:-/tmp}/pipe-inject.XXXXXX")
trap 'rm -rf "$t"' EXIT
export HOME=$t
unset DEBUGINFOD_URLS
f=$t/spin-inject
cp "$w/spin-sha1" "$f" || exit 1
id=$(elf_id "$f")

# samples IN: what perf script prints of IN (a file, or the bytes of a
# pipe kept in a file, which perf reads as a pipe)
samples() { perf script -F comm,tid,ip,sym -i "$1" 2>/dev/null; }
# same_samples NAME A B: A and B have the same samples, and some
same_samples() {
	result "$1: the samples that went in" \
		cmp -s <(samples "$2") <(samples "$3")
	result "$1: some samples" [ -n "$(samples "$3" | head -1)" ]
}
names_id() { perf buildid-list -i "$1" 2>/dev/null | grep -qx "$id $f"; }

if ! perf record -q -e cpu-clock:u -o - -- "$f" 20000000 2>/dev/null >"$t/in.pipe" ||
	! perf record -q -e cpu-clock:u -o "$t/in.data" -- "$f" 20000000 >/dev/null 2>&1; then
	echo "not ok 1 perf record of $f"
	echo "1..1"
	exit 0
fi

# from a pipe to a file
for mode in -b --buildid-all; do
	perf inject "$mode" -o "$t/out$mode.data" <"$t/in.pipe" 2>"$t/err"
	result "pipe to file, inject $mode: exits 0" [ $? -eq 0 ]
	perf report --stdio -i "$t/out$mode.data" >/dev/null 2>"$t/err"
	result "pipe to file, inject $mode: perf report reads the file" [ $? -eq 0 ]
	same_samples "pipe to file, inject $mode" "$t/in.pipe" "$t/out$mode.data"
	result "pipe to file, inject $mode: the build-ID table names readelf's ID" \
		names_id "$t/out$mode.data"
done

# a file header larger than the room kept for it
ev=()
for _ in $(seq 500); do ev+=(-e cpu-clock:u); done
perf record -q "${ev[@]}" -o - -- "$f" 2000000 2>/dev/null >"$t/many.pipe"
perf inject -b -o "$t/many.data" <"$t/many.pipe" 2>"$t/err"
result "pipe of 500 events to file: exits 0" [ $? -eq 0 ]
result "pipe of 500 events to file: the file has the 500 events" \
	[ "$(perf evlist -i "$t/many.data" 2>/dev/null | wc -l)" -eq 500 ]
same_samples "pipe of 500 events to file" "$t/many.pipe" "$t/many.data"

# from a file to a pipe
perf inject -b -i "$t/in.data" -o - >"$t/out.pipe" 2>"$t/err"
result "file to pipe, inject -b: exits 0" [ $? -eq 0 ]
perf report --stdio -i - <"$t/out.pipe" >/dev/null 2>"$t/err"
result "file to pipe, inject -b: perf report -i - reads the pipe" [ $? -eq 0 ]
same_samples "file to pipe, inject -b" "$t/in.data" "$t/out.pipe"
result "file to pipe, inject -b: the pipe names readelf's ID" names_id "$t/out.pipe"
# and back into a file
perf inject -o "$t/back.data" <"$t/out.pipe" 2>"$t/err"
same_samples "file to pipe to file" "$t/in.data" "$t/back.data"

# tracepoints: their formats come through as tracing data
if perf record -q -e sched:sched_switch -a -o "$t/tp.data" -- sleep 0.2 >/dev/null 2>&1; then
	perf inject -i "$t/tp.data" -o - >"$t/tp.pipe" 2>"$t/err"
	result "file of tracepoints to pipe: the fields are decoded" \
		cmp -s <(perf script -i "$t/tp.data" 2>/dev/null) <(perf script -i - <"$t/tp.pipe" 2>/dev/null)
	result "file of tracepoints to pipe: some" grep -q 'prev_comm=' <(perf script -i - <"$t/tp.pipe" 2>/dev/null)
else
	skip "file of tracepoints to pipe" "no sched:sched_switch tracepoint here"
fi
echo "1..$n"
