#!/bin/bash
# A classic perf record next to a perf record -a --buildid-mmap. Kernels
# with mainline's listener-order leak (5.12 to 7.2) put the build-ID flag
# in the classic listener's MMAP2 records, over the device and inode it
# was given. perf must read those records as classic ones: the device and
# inode that stat gives for the file, the build ID of the header's table
# (readelf's), samples with symbols. On a kernel without the leak the
# same checks hold; the first line says whether this kernel leaked.
# usage: leaked-flag.sh WORKLOAD_DIR   (perf taken from PATH; TAP output)
set -u
. "$(dirname "$0")/../tap.sh"
w=$(cd "$1" && pwd) || exit 1
t=$(mktemp -d "${TMPDIR:-/tmp}/leaked-flag.XXXXXX")
trap 'kill "${bg:-}" 2>/dev/null; rm -rf "$t"' EXIT
export HOME=$t
n=0
has_id() { perf buildid-list -i "$3" 2>/dev/null | awk -v id="$1" -v f="$2" '$1 == id && $2 == f { ok = 1 } END { exit !ok }'; }
one_id() { [ "$(perf buildid-list -i "$2" 2>/dev/null | awk -v f="$1" '$2 == f' | wc -l)" -eq 1 ]; }

if ! perf record -q --buildid-mmap -o "$t/probe.data" -- true >/dev/null 2>&1; then
	echo "ok 1 # SKIP perf record --buildid-mmap does not work here"
	echo "1..1"
	exit 0
fi
f=$t/spin
cp "$w/spin-sha1" "$f"
id=$(readelf -n "$f" | awk '/Build ID:/ { print $3 }')
# the classic fields as perf script prints them: hex major:minor, inode
# (st_dev split as the kernel's new_encode_dev() joined it)
read -r dev ino < <(stat -c '%d %i' "$f")
classic=$(printf '%02x:%02x %d' $(((dev >> 8) & 0xfff | ((dev >> 32) & ~0xfff))) \
	$(((dev & 0xff) | ((dev >> 12) & ~0xff))) "$ino")

perf record -q -a --buildid-mmap -o "$t/bg.data" -- sleep 30 >/dev/null 2>&1 &
bg=$!
sleep 2 # the system-wide build-ID listener is open before the classic one
perf record -q -o "$t/fg.data" -- "$f" 30000000 >/dev/null 2>"$t/fg.err"
kill -INT "$bg" 2>/dev/null
wait "$bg" 2>/dev/null
bg=

# whether the kernel leaked: MMAP2 records (type 10) whose raw header, as
# perf report -D dumps it (u32 type, u16 misc), has misc bit 14
leaked=$(perf report -D -i "$t/fg.data" 2>/dev/null | awk '
	/raw event: size/ { raw = 1; next }
	raw && $2 == "0000:" { if ($3 == "0a" && $4 == "00" && and_bit14($8)) n++; raw = 0 }
	function and_bit14(b) { return index("4567cdef", substr(b, 1, 1)) > 0 }
	END { print n + 0 }')
echo "# leaked-flag: $leaked MMAP2 records of the classic listener carry the build-ID flag ($(uname -r))"
mmap=$(perf script -i "$t/fg.data" --show-mmap-events 2>/dev/null | grep "PERF_RECORD_MMAP2.*r-xp $f\$")
result "the classic listener's MMAP2 of the workload is there" [ -n "$mmap" ]
result "it is read with the file's device and inode # $classic" grep -qE "@ 0x[0-9a-f]+ $classic " <<<"$mmap"
result "and without a build ID" not_grep '<' <<<"$mmap"
result "buildid-list: readelf's ID from the header's table" has_id "$id" "$f" "$t/fg.data"
result "buildid-list: no made-up ID for the workload" \
	one_id "$f" "$t/fg.data"
result "report: samples in main()" grep -q '\] main$' \
	<<<"$(perf report -i "$t/fg.data" --stdio -q --sort dso,sym 2>/dev/null | grep -w spin)"
echo "1..$n"
