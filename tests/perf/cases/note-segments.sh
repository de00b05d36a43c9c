#!/bin/bash
# Build IDs in perf built without libelf, which reads them with a parser
# of its own: once another build was renamed over a recorded binary,
# perf report gave the DSO the build ID of the file now at its path, over
# the recorded one. The IDs must be those readelf reads from the test's
# own copies. Any perf passes; tier 65 runs it with a perf built without
# libelf, and the perf test of the parser's reading past the first note
# segment (24, buildid_list_note_segments.sh) with it.
# usage: note-segments.sh WORKLOAD_DIR   (perf taken from PATH; TAP output)
set -u
. "$(dirname "$0")/../tap.sh"
w=$(cd "$1" && pwd) || exit 1
t=$(mktemp -d "${TMPDIR:-/tmp}/note-segments.XXXXXX")
trap 'rm -rf "$t"' EXIT
export HOME=$t
unset DEBUGINFOD_URLS
f=$t/unwind-prog

id1=$(readelf -n "$w/unwind-v1" | awk '/Build ID:/ { print $3 }')
id2=$(readelf -n "$w/unwind-v2" | awk '/Build ID:/ { print $3 }')
# dso_ids FILE [OPTION...]: the build IDs perf report gives the program's DSO
dso_ids() {
	perf report --stdio -vvv -i "$1" "${@:2}" 2>/dev/null |
		sed -n "s@^dso: unwind-prog ($f, [^,]*, \\([0-9a-f]*\\))@\\1@p"
}

cp "$w/unwind-v1" "$f" || exit 1
if ! perf record -q -e cpu-clock:u -o "$t/classic.data" -- "$f" 50000000 >/dev/null 2>&1; then
	skip "classic" "perf record does not work here"
	echo "1..$n"
	exit 0
fi
perf record -q -B -e cpu-clock:u -o "$t/no-id.data" -- "$f" 50000000 >/dev/null 2>&1
cp "$w/unwind-v2" "$f.new" && mv "$f.new" "$f"
dso_ids "$t/classic.data" >"$t/classic.ids"
result "classic, replaced: the DSO keeps the recorded build ID" grep -qx "$id1" "$t/classic.ids"
result "classic, replaced: never the other build's" not_grep "$id2" "$t/classic.ids"
dso_ids "$t/no-id.data" >"$t/no-id.ids"
result "no build ID, replaced: not the other build's" not_grep "$id2" "$t/no-id.ids"
echo "1..$n"
