#!/usr/bin/env python3
"""Rewrite a pipe-form perf.data as newer perfs (mainline 6.16 and later)
write it with -z: each PERF_RECORD_COMPRESSED record (type 81: the header,
then the compressed bytes up to header.size) becomes a
PERF_RECORD_COMPRESSED2 record (type 83: the header, a u64 with the size
of the compressed bytes, the bytes, zeros up to a multiple of 8).
Prints how many records it rewrote; exits 2 when one would not fit.

usage: compressed2.py IN OUT   (little-endian pipe form, as perf record -o - writes)
"""
import struct
import sys

src, dst = sys.argv[1:3]
data = open(src, 'rb').read()
if data[:8] != b'PERFILE2' or struct.unpack_from('<Q', data, 8)[0] != 16:
    sys.exit(f'{src}: not a perf.data of pipe form')
out = bytearray(data[:16])
off, n = 16, 0
while off + 8 <= len(data):
    rtype, misc, size = struct.unpack_from('<IHH', data, off)
    if size < 8 or off + size > len(data):
        sys.exit(f'{src}: a record of {size} bytes at {off}')
    rec = data[off:off + size]
    if rtype == 81:
        payload = rec[8:]
        total = (16 + len(payload) + 7) // 8 * 8
        if total > 0xffff:
            print(f'a COMPRESSED record of {size} bytes does not fit as COMPRESSED2', file=sys.stderr)
            sys.exit(2)
        rec = struct.pack('<IHHQ', 83, misc, total, len(payload)) + payload + bytes(total - 16 - len(payload))
        n += 1
    out += rec
    off += size
open(dst, 'wb').write(out)
print(n)
