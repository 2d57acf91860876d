"""elfpatch.py -- damage a section of a 64-bit little-endian ELF file in place.

  python3 elfpatch.py FILE SECTION OFFSET HEXBYTES   write BYTES at OFFSET
                                                     into SECTION's data
  python3 elfpatch.py FILE SECTION --size SIZE       set its header's sh_size

Used by tests/elf-import.sh (damaged sections) and tests/find-routes.sh
(a compressed section whose header claims 4 GiB).  Exits non-zero if
FILE has no such section.
"""
import struct, sys
path, sec = sys.argv[1], sys.argv[2]
b = bytearray(open(path, "rb").read())
shoff, = struct.unpack_from("<Q", b, 0x28)
shentsize, shnum, shstrndx = struct.unpack_from("<HHH", b, 0x3a)
def sh(i):
    return struct.unpack_from("<IIQQQQIIQQ", b, shoff + i * shentsize)
stroff = sh(shstrndx)[4]
for i in range(shnum):
    h = sh(i)
    name = b[stroff + h[0]:].split(b"\0")[0].decode()
    if name != sec:
        continue
    if sys.argv[3] == "--size":
        struct.pack_into("<Q", b, shoff + i * shentsize + 0x20, int(sys.argv[4], 0))
    else:
        off = int(sys.argv[3], 0)
        data = bytes.fromhex(sys.argv[4])
        b[h[4] + off:h[4] + off + len(data)] = data
    open(path, "wb").write(b)
    sys.exit(0)
sys.exit("no section " + sec)
