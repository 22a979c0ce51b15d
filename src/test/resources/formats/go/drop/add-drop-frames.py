# Appends drop_frames = `runtime\..*` and keep_frames = `runtime\.memmove` (fields 7 and 8, two new
# string_table entries) to a gzip'd profile.proto: go119-cpu-drop.pb.gz = this on drop/main.go's cpu.pb.gz.
import gzip, sys

def varint(b, i):
    r = s = 0
    while True:
        c = b[i]; i += 1; r |= (c & 0x7f) << s; s += 7
        if c < 0x80:
            return r, i

def enc(v):
    o = b''
    while True:
        c = v & 0x7f; v >>= 7
        if not v:
            return o + bytes([c])
        o += bytes([c | 0x80])

d = gzip.decompress(open(sys.argv[1], 'rb').read())
i = n = 0
while i < len(d):
    t, i = varint(d, i)
    f, w = t >> 3, t & 7
    if w == 0:
        _, i = varint(d, i)
    elif w == 2:
        l, i = varint(d, i); i += l; n += f == 6
    elif w == 1:
        i += 8
    elif w == 5:
        i += 4
drop, keep = rb'runtime\..*', rb'runtime\.memmove'
d += bytes([6 << 3 | 2]) + enc(len(drop)) + drop + bytes([6 << 3 | 2]) + enc(len(keep)) + keep
d += bytes([7 << 3]) + enc(n) + bytes([8 << 3]) + enc(n + 1)
open(sys.argv[2], 'wb').write(gzip.compress(d))
