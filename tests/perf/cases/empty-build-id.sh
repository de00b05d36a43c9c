#!/bin/bash
# A build-ID record of 0 bytes in the header's build-ID table (size 0 with
# PERF_RECORD_MISC_BUILD_ID_SIZE): no build ID is empty, so perf ignores
# the record with a warning and names the file by no ID at all. An empty
# ID once went into the DSO, and the ".build-id/%.2s/%s" name builders of
# perf report and annotate read past its string (a stack-buffer-overflow
# under ASan, depending on the stack). The table is rewritten here by the
# test's own reader of the perf.data layout, not by perf.
# usage: empty-build-id.sh WORKLOAD_DIR   (perf taken from PATH; TAP output)
set -u
. "$(dirname "$0")/../tap.sh"
w=$(cd "$1" && pwd) || exit 1
t=$(mktemp -d "${TMPDIR:-/tmp}/empty-build-id.XXXXXX")
trap 'rm -rf "$t"' EXIT
export HOME=$t
unset DEBUGINFOD_URLS
f=$t/spin-sha1
cp "$w/spin-sha1" "$f" || exit 1
if ! perf record -q -o "$t/rec.data" -- "$f" 20000000 >/dev/null 2>&1; then
	echo "not ok 1 perf record of $f"
	echo "1..1"
	exit 0
fi

# empty_id IN OUT NAME: the build-ID table's record of NAME given size 0
empty_id() {
	python3 - "$@" <<'EOF'
import struct, sys
src, dst, name = sys.argv[1], sys.argv[2], sys.argv[3].encode()
buf = bytearray(open(src, 'rb').read())
if buf[:8] != b'PERFILE2':
    sys.exit('not a perf.data of this byte order')
data_off, data_size = struct.unpack_from('<QQ', buf, 40)
feats = struct.unpack_from('<4Q', buf, 72)
def has(bit):
    return feats[bit // 64] >> (bit % 64) & 1
if not has(2):
    sys.exit('no build-ID table')
# the feature sections' {offset, size} follow the data, one per set bit
idx = sum(has(b) for b in range(2))
off, size = struct.unpack_from('<QQ', buf, data_off + data_size + 16 * idx)
pos, done = off, 0
while pos + 8 <= off + size:
    typ, misc, rsize = struct.unpack_from('<IHH', buf, pos)
    if rsize < 36:
        break
    fname = bytes(buf[pos + 36:pos + rsize]).split(b'\0')[0]
    if fname == name:
        struct.pack_into('<H', buf, pos + 4, misc | 0x8000)
        buf[pos + 32] = 0
        done += 1
    pos += rsize
if not done:
    sys.exit('no build-ID record of %s' % name.decode())
open(dst, 'wb').write(buf)
EOF
}
if ! empty_id "$t/rec.data" "$t/empty.data" "$f" 2>"$t/py.err"; then
	result "a build-ID table record of $f rewritten to 0 bytes" false
	sed 's/^/# /' "$t/py.err"
	echo "1..$n"
	exit 0
fi
perf buildid-list -i "$t/empty.data" >"$t/list" 2>"$t/list.err"
rc=$?
result "buildid-list: exits 0 ($rc)" [ "$rc" -eq 0 ]
result "buildid-list: no empty build ID listed for the file" not_grep -qE "^ *$f\$" "$t/list"
result "buildid-list: the 0-byte record is warned about" grep -q '0 bytes (1 to 20 are valid)' "$t/list.err"
perf report -i "$t/empty.data" --stdio -q --sort dso >"$t/report" 2>"$t/report.err"
rc=$?
result "report: exits 0 ($rc)" [ "$rc" -eq 0 ]
result "report: the samples of the file" grep -qw spin-sha1 "$t/report"
# the unchanged recording still names the file by its readelf ID
result "the unchanged recording: buildid-list names the file by readelf's ID" \
	grep -qxF "$(elf_id "$f") $f" <<<"$(perf buildid-list -i "$t/rec.data" 2>/dev/null)"
echo "1..$n"
