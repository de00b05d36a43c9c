#!/bin/bash
# The -z recordings of newer perfs (mainline 6.16 and later) carry their
# compressed records as PERF_RECORD_COMPRESSED2 (type 83); this perf once
# said "records of type 83, unknown to this perf" and gave no samples. A
# -z recording in pipe form, its COMPRESSED records rewritten as
# COMPRESSED2 by the test itself (tests/perf/compressed2.py, from the
# record's layout), must give the samples of the original.
# usage: compressed2.sh WORKLOAD_DIR   (perf taken from PATH; TAP output)
set -u
. "$(dirname "$0")/../tap.sh"
here=$(cd "$(dirname "$0")/.." && pwd)
w=$(cd "$1" && pwd) || exit 1
t=$(mktemp -d "${TMPDIR:-/tmp}/compressed2.XXXXXX")
trap 'rm -rf "$t"' EXIT
export HOME=$t
unset DEBUGINFOD_URLS

if ! perf record -q -z -e cpu-clock:u -o - -- "$w/burn" 100 >"$t/z.pipe" 2>"$t/rec.err"; then
	skip "COMPRESSED2" "perf record -z -o - does not work here: $(head -1 "$t/rec.err")"
	echo "1..$n"
	exit 0
fi
nr=$(python3 "$here/compressed2.py" "$t/z.pipe" "$t/z2.pipe")
result "the recording rewritten with COMPRESSED2 records # $nr of them" [ "${nr:-0}" -gt 0 ]
perf script -i - <"$t/z.pipe" >"$t/z.script" 2>/dev/null
perf script -i - <"$t/z2.pipe" >"$t/z2.script" 2>"$t/z2.err"
same_samples() { grep -q burn "$1" && cmp -s "$1" "$2"; }
result "perf script: the samples of the original" same_samples "$t/z.script" "$t/z2.script"
[ -s "$t/z2.err" ] && sed 's/^/# /' "$t/z2.err" >&2
notip() { grep -v '^# (Tip: ' "$1"; }
perf report --stdio --sort dso,sym -i - <"$t/z.pipe" >"$t/z.report" 2>/dev/null
perf report --stdio --sort dso,sym -i - <"$t/z2.pipe" >"$t/z2.report" 2>/dev/null
result "perf report: the report of the original" \
	cmp -s <(notip "$t/z.report") <(notip "$t/z2.report")
perf inject -i - -o "$t/injected.data" <"$t/z2.pipe" 2>/dev/null
perf script -i "$t/injected.data" >"$t/inj.script" 2>/dev/null
result "perf inject to a file: the samples of the original" same_samples "$t/z.script" "$t/inj.script"
# a COMPRESSED2 record whose size field is past its end: a clear error
python3 - "$t/z2.pipe" "$t/bad.pipe" <<'PY'
import struct, sys
d = bytearray(open(sys.argv[1], 'rb').read())
off = 16
while off + 8 <= len(d):
    rtype, _, size = struct.unpack_from('<IHH', d, off)
    if rtype == 83:
        struct.pack_into('<Q', d, off + 8, size)
        break
    off += size
open(sys.argv[2], 'wb').write(d)
PY
perf script -i - <"$t/bad.pipe" >/dev/null 2>"$t/bad.err"
rc=$?
clear_error() { [ "$rc" -gt 0 ] && { [ "$rc" -lt 128 ] || [ "$rc" -gt 159 ]; } && grep -q "COMPRESSED2 record at" "$t/bad.err"; }
result "a size past the record's end: a clear error, no crash # exit $rc" clear_error
echo "1..$n"
