#!/bin/bash
# Records of a perf.data from elsewhere, crafted here byte by byte (with
# python3's struct, not with perf) as pipe streams:
# - a CPU_MAP record of the mask form (CPUs 0, 1 and 3) in this byte order
#   and in the other one: perf must read both as 0-1,3 (the other byte
#   order's form field is a u16; swapped as a u64 it read as 0, the list
#   form, and gave garbage), and one of the other byte order whose count
#   claims more words than the record holds (swapped, it must not be
#   swapped past the record's end).
# (A build-ID record whose name does not end in it is patch 31's
# buildid_list_record_name.sh, in perf test.)
# usage: crafted-records.sh WORKLOAD_DIR   (perf taken from PATH; TAP output)
set -u
. "$(dirname "$0")/../tap.sh"
t=$(mktemp -d "${TMPDIR:-/tmp}/crafted-records.XXXXXX")
trap 'rm -rf "$t"' EXIT
export HOME=$t
n=0
if ! command -v python3 >/dev/null; then
	echo "ok 1 crafted records # SKIP no python3 to craft them"
	echo "1..1"
	exit 0
fi
python3 - "$t" <<'PY'
import struct, sys
d = sys.argv[1]
def pipe(order, recs):
    magic = b"PERFILE2" if order == "<" else b"PERFILE2"[::-1]
    return magic + struct.pack(order + "Q", 16) + b"".join(recs)
def cpu_map_mask(order, bits):
    # header; u16 type (1: mask); u16 nr, u16 long_size, mask[] at 8
    body = struct.pack(order + "HHHxxxxQ", 1, 1, 8, bits)
    size = (8 + len(body) + 7) // 8 * 8
    return struct.pack(order + "IHH", 74, 0, size) + body + b"\0" * (size - 8 - len(body))
for order, name in (("<", "same"), (">", "other")):
    open(d + "/cpumap-" + name + ".data", "wb").write(pipe(order, [cpu_map_mask(order, 0b1011)]))
# a mask that claims 65535 words in a record of one
huge = bytearray(cpu_map_mask(">", 0b1011))
huge[10:12] = struct.pack(">H", 0xffff)
open(d + "/cpumap-huge.data", "wb").write(pipe(">", [bytes(huge)]))
PY
for order in same other; do
	out=$(perf report -D -i - <"$t/cpumap-$order.data" 2>&1 | grep 'PERF_RECORD_CPU_MAP')
	result "CPU_MAP, mask form, $order byte order: CPUs 0-1,3" grep -q 'PERF_RECORD_CPU_MAP: 0-1,3$' <<<"$out"
done
perf report -D -i - <"$t/cpumap-huge.data" >/dev/null 2>"$t/err"
rc=$?
result "CPU_MAP of the other byte order claiming 65535 words: no crash (exit $rc)" [ "$rc" -lt 128 ]
result "CPU_MAP claiming more words than it holds: perf says so" grep -q 'CPU_MAP record' "$t/err"
echo "1..$n"
