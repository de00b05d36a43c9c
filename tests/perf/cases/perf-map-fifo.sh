#!/bin/bash
# perf report reads the symbols of JIT code from /tmp/perf-PID.map, a path
# in a directory anyone can write: any local user can put a FIFO there,
# and perf must not wait on it. A recording's MMAP2 records of a binary
# are renamed here to such a path (tests/perf/perfdata-rename.py), a FIFO
# is made at it, and perf report must end on its own; and with a regular
# perf map there, it must read its symbol.
# usage: perf-map-fifo.sh WORKLOAD_DIR   (perf taken from PATH; TAP output)
set -u
. "$(dirname "$0")/../tap.sh"
w=$(cd "$1" && pwd) || exit 1
t=$(mktemp -d "${TMPDIR:-/tmp}/perf-map-fifo.XXXXXX")
trap 'rm -rf "$t" ${map:+"$map"}' EXIT
export HOME=$t
unset DEBUGINFOD_URLS
f=$t/spin-sha1-under-a-long-name-for-the-perf-map-name-to-fit-in-its-place
cp "$w/spin-sha1" "$f" || exit 1
if ! perf record -q --buildid-mmap -o "$t/rec.data" -- "$f" 20000000 >/dev/null 2>&1; then
	echo "ok 1 # SKIP perf record --buildid-mmap does not work here"
	echo "1..1"
	exit 0
fi
# perf reads the map of the recorded process: /tmp/perf-PID.map
pid=$(perf script -i "$t/rec.data" -F pid 2>/dev/null | awk 'NF { print $1; exit }')
map=/tmp/perf-$pid.map
if [ -z "$pid" ] || [ -e "$map" ]; then
	result "the recorded pid has no perf map of its own # $pid" false
	echo "1..$n"
	exit 0
fi
if ! python3 "$(dirname "$0")/../perfdata-rename.py" "$t/rec.data" "$t/map.data" "$f" "$map" \
	"$(elf_id "$f")" 2>"$t/rename.err"; then
	result "the recording renamed to the perf map # $map" false
	sed 's/^/# /' "$t/rename.err"
	echo "1..$n"
	exit 0
fi

rm -f "$map"
mkfifo "$map"
timeout -k 5 30 perf report -i "$t/map.data" --stdio -q --sort dso,sym >"$t/report" 2>&1 </dev/null
rc=$?
result "a FIFO at the perf map: perf report ends on its own # $map, exit $rc" [ "$rc" -ne 124 ] && [ "$rc" -ne 137 ]

# a perf map that is a regular file is read: every sample of the renamed
# map is in the symbol it names, which covers every address
rm -f "$map"
printf '0 7fffffffffff all_of_it\n' >"$map"
perf report -i "$t/map.data" --stdio -q --sort dso,sym 2>/dev/null >"$t/report"
result "a regular file at the perf map: its symbol is read # $map" grep -q 'all_of_it' "$t/report"
echo "1..$n"
