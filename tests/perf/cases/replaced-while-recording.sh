#!/bin/bash
# A binary replaced while perf record runs (classic: no --buildid-mmap).
# At its end perf record reads the build ID of each file with samples,
# by path: it once read the build of the file renamed over the one that
# ran, wrote that ID into the perf.data and the build-ID cache, and perf
# report then gave the other build's symbols to the samples. The file at
# the path is now taken only when it is the inode the MMAP2 record
# names: the replaced binary gets no ID and no symbols, and perf record
# says so. perf inject -b, which adds IDs to a perf.data later, the same.
# usage: replaced-while-recording.sh WORKLOAD_DIR   (perf from PATH; TAP)
set -u
. "$(dirname "$0")/../tap.sh"
w=$(cd "$1" && pwd) || exit 1
t=$(mktemp -d "${TMPDIR:-/tmp}/replaced-while-recording.XXXXXX")
trap 'rm -rf "$t"' EXIT
export HOME=$t
unset DEBUGINFOD_URLS
f=$t/unwind-prog
v2_id=$(elf_id "$w/unwind-v2")

cp "$w/unwind-v1" "$f" || exit 1
perf record -e cpu-clock:u -o "$t/rec.data" -- "$f" 3000000000 >/dev/null 2>"$t/rec.err" &
rec=$!
# the workload runs: rename the other build over it
for _ in $(seq 100); do
	pgrep -xf "$f 3000000000" >/dev/null && break
	sleep 0.05
done
cp "$w/unwind-v2" "$f.new" && mv "$f.new" "$f"
if ! pgrep -xf "$f 3000000000" >/dev/null; then
	wait "$rec"
	skip "replaced while recording" "the workload was not running when it was replaced"
	echo "1..$n"
	exit 0
fi
wait "$rec"
result "perf record says the binary was replaced" \
	grep -qF "$f was replaced or deleted after it was mapped" "$t/rec.err"
perf buildid-list -i "$t/rec.data" >"$t/ids" 2>/dev/null
result "the build-ID table does not name the other build # $v2_id" not_grep -F "$v2_id" "$t/ids"
result "the build-ID cache holds no entry of the other build" \
	[ ! -e "$t/.debug/.build-id/${v2_id:0:2}/${v2_id:2}" ]
perf report --stdio --sort sym -i "$t/rec.data" >"$t/report" 2>/dev/null
result "perf report: no symbol of the other build" not_grep '_v2' "$t/report"
result "perf report: the samples are there" grep -q '%' "$t/report"
# perf inject -b, later, adds the IDs the perf.data lacks: not the one of
# the file now at the path either
perf inject -b -i "$t/rec.data" -o "$t/inj.data" 2>"$t/inj.err"
perf buildid-list -i "$t/inj.data" >"$t/inj.ids" 2>/dev/null
inj_ids_clean() { [ -s "$t/inj.data" ] && not_grep -F "$v2_id" "$t/inj.ids"; }
result "perf inject -b: no ID of the other build # $v2_id" inj_ids_clean
result "perf inject -b says the binary was replaced" \
	grep -qF "$f was replaced or deleted after it was mapped" "$t/inj.err"
echo "1..$n"
