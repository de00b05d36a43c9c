#!/bin/bash
# perf report --sort srcline runs addr2line on a DSO's file. For a
# recording without build IDs (perf record -B), once another build is
# renamed over the binary, perf once ran it on the file now at the path
# and gave the samples that build's source lines. They must be those
# shown while the file was the one that ran, or none.
# usage: replaced-srcline.sh WORKLOAD_DIR   (perf taken from PATH; TAP output)
set -u
. "$(dirname "$0")/../tap.sh"
w=$(cd "$1" && pwd) || exit 1
t=$(mktemp -d "${TMPDIR:-/tmp}/replaced-srcline.XXXXXX")
trap 'rm -rf "$t"' EXIT
export HOME=$t
unset DEBUGINFOD_URLS
f=$t/unwind-prog

cp "$w/unwind-v1" "$f" || exit 1
if ! perf record -q -B -e cpu-clock:u -o "$t/rec.data" -- "$f" 100000000 >/dev/null 2>&1; then
	skip "replaced, perf report --sort srcline" "perf record -B does not work here"
	echo "1..$n"
	exit 0
fi
# the binary's source lines, as perf report prints them
srclines() {
	perf report --stdio --sort dso,srcline -i "$t/rec.data" 2>/dev/null |
		awk '$2 == "unwind-prog" { print $3 }' | sort -u
}
srclines >"$t/before"
result "the source lines while the file is the one that ran" grep -q 'unwind-build\.c:[0-9]' "$t/before"
cp "$w/unwind-v2" "$f.new" && mv "$f.new" "$f"
srclines >"$t/after"
# each line after: one of before, or none found (??:0, or an address)
only_right() {
	local l
	while read -r l; do
		grep -qxF "$l" "$t/before" && continue
		[[ $l != *unwind-build.c:* ]] && continue
		echo "$l: not a source line of before" >&2
		return 1
	done <"$t/after"
}
result "replaced: no source line of the other build" only_right
echo "1..$n"
