#!/usr/bin/env python3
# perfdata-rename.py IN OUT OLD NEW ID: the MMAP2 records with a build ID
# of the file OLD in the perf.data IN (this machine's byte order) renamed
# NEW, with the build ID ID (hex), written to OUT. NEW is NUL padded in
# OLD's space, so the record sizes stay; it must be shorter than that.
# For tests of the names a perf.data from elsewhere may carry.
import os, struct, sys
src, dst, old, new, bid = sys.argv[1:6]
old, new, bid = os.fsencode(old), os.fsencode(new), bytes.fromhex(bid)
buf = bytearray(open(src, 'rb').read())
if buf[:8] != b'PERFILE2':
    sys.exit('%s: not a perf.data file of this byte order' % src)
off, size = struct.unpack_from('<QQ', buf, 40)
# the file name takes strlen + 1 bytes rounded up to 8; sample_id follows
area = (len(old) + 1 + 7) // 8 * 8
if len(new) >= area or len(bid) > 20:
    sys.exit('%s does not fit in the space of %s' % (new, old))
pos, done = off, 0
while pos + 8 <= off + size:
    typ, misc, rsize = struct.unpack_from('<IHH', buf, pos)
    if rsize < 8:
        sys.exit('%s: bad record at %d' % (src, pos))
    name = pos + 72
    if (typ == 10 and misc & 0x4000 and rsize >= 72 + area and
            buf[name:name + len(old) + 1] == old + b'\0'):
        buf[name:name + area] = new.ljust(area, b'\0')
        buf[pos + 40] = len(bid)
        buf[pos + 44:pos + 64] = bid.ljust(20, b'\0')
        done += 1
    pos += rsize
if not done:
    sys.exit('%s: no MMAP2 record with a build ID of %s' % (src, old.decode()))
open(dst, 'wb').write(buf)
