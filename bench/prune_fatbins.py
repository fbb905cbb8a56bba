#!/usr/bin/env python3
"""Copies a CUDA library with the device code of every architecture but one blanked out, so that a
library too large to carry to the GPU machine (cuBLASLt 11.8 is 575 MB) compresses to a few MB and
still runs there: the .nv_fatbin section keeps its layout and every entry header, only the images
of other architectures become zeros, which the driver never reads on that GPU (it picks the entry
for its own architecture). A test harness for bench/gpu_everywhere_h200.sh, not a way to ship.
  prune_fatbins.py IN OUT --keep 90
"""
import argparse, shutil, struct

p = argparse.ArgumentParser()
p.add_argument("src"); p.add_argument("dst"); p.add_argument("--keep", type=int, required=True)
a = p.parse_args()
shutil.copyfile(a.src, a.dst)
with open(a.dst, "r+b") as f:
    d = bytearray(f.read())
    shoff, = struct.unpack_from("<Q", d, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", d, 0x3A)
    def sec(i):
        name, typ, flags, addr, off, size = struct.unpack_from("<IIQQQQ", d, shoff + i * shentsize)
        return name, off, size
    _, stroff, _ = sec(shstrndx)
    kept = blanked = 0
    for i in range(shnum):
        name, off, size = sec(i)
        n = d[stroff + name: d.index(b"\0", stroff + name)].decode()
        if n != ".nv_fatbin":
            continue
        at, end = off, off + size
        while at + 16 <= end:
            magic, ver, hs, body = struct.unpack_from("<IHHQ", d, at)
            if magic != 0xBA55ED50:
                at += 8
                continue
            e, stop = at + hs, at + hs + body
            while e + 64 <= stop:
                kind, _, eh, payload = struct.unpack_from("<HHIQ", d, e)
                arch, = struct.unpack_from("<I", d, e + 28)
                if arch == a.keep:
                    kept += 1
                else:
                    d[e + eh: e + eh + payload] = bytes(payload)
                    blanked += 1
                e += eh + payload
            at = stop
    f.seek(0); f.write(d)
print(f"{a.dst}: kept {kept} entries for sm_{a.keep}, blanked {blanked}")
