# Blanks (zeroes) the payload of every embedded kernel image (fatbin entry) not for sm_90 in a copy of a shared
# library: ELF layout, fatbin headers and offsets unchanged; only images an sm_90 GPU never selects are emptied, so
# the copy compresses to what a device call can carry (bench/carry_cublas11.sh). Usage: SRC DST
import sys, struct, subprocess, re
src, dst = sys.argv[1], sys.argv[2]
data = bytearray(open(src,'rb').read())
out = subprocess.run(['readelf','-S','-W',src],capture_output=True,text=True).stdout
m = re.search(r'\.nv_fatbin\s+PROGBITS\s+\w+\s+(\w+)\s+(\w+)', out)
off, size = int(m.group(1),16), int(m.group(2),16)
p = off; end_sec = off+size; kept=blank=0
while p < end_sec-16:
    magic,ver,hs,fs = struct.unpack_from('<IHHQ',data,p)
    if magic != 0xBA55ED50: p += 8; continue
    q = p+hs; end = p+hs+fs
    while q < end:
        kind,ev,ehs,psize = struct.unpack_from('<HHIQ',data,q)
        arch = struct.unpack_from('<I',data,q+28)[0]
        if arch != 90:
            data[q+ehs:q+ehs+psize] = bytes(psize); blank += psize
        else: kept += psize
        q += ehs+psize
    p = end
open(dst,'wb').write(data)
print(src, 'kept', kept>>20, 'MiB blanked', blank>>20, 'MiB')
