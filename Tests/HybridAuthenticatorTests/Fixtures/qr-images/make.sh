#!/usr/bin/env bash
# Makes the QR image fixtures of QRImageReaderTests with tools independent of this project:
# the qrencode CLI (apt qrencode), cjpeg (apt libjpeg-turbo-progs) and python3's standard library.
# Not run by CI: the images are committed. zbarimg (apt zbar-tools) checks each one here.
set -euo pipefail
cd "$(dirname "$0")"

# The "chromium-knownqrs-basic" URL of Tests/Vectors/qr.json.
fido="FIDO:/21451485302227106379487559113723092434570048571579929725294386093726313840430492013630000000134226708900000000000000000000000000000000"
other="https://example.com/not-a-hybrid-code"

# Black on white, 1-bit PNG as qrencode writes it.
qrencode -l M -s 6 -m 4 -o fido-qrencode.png "$fido"
# RGBA PNG, light modules on a dark background (a dark-mode screenshot).
qrencode -t PNG32 -l M -s 5 -m 3 --foreground=F0F0F0 --background=202124 -o fido-dark.png "$fido"
# A QR code that is not a hybrid one.
qrencode -l M -s 6 -m 4 -o not-fido.png "$other"

# A colour "screenshot" JPEG: the QR code (4 px per module) on a 480x360 bluish page with a grey
# header bar, compressed at quality 75.
qrencode -t ASCII -l M -m 0 "$fido" | python3 -c '
import sys
rows = [line.rstrip("\n") for line in sys.stdin if line.strip("\n")]
modules = [[line[i] == "#" for i in range(0, len(line), 2)] for line in rows]
width, height, scale, left, top = 480, 360, 4, 150, 90
pixels = bytearray()
for y in range(height):
    for x in range(width):
        colour = (70, 70, 80) if y < 40 else (225, 235, 250)
        mx, my = (x - left) // scale, (y - top) // scale
        if x >= left and y >= top and my < len(modules) and mx < len(modules[my]):
            colour = (20, 20, 30) if modules[my][mx] else (255, 255, 255)
        elif left - 16 <= x < left + scale * len(modules) + 16 and top - 16 <= y < top + scale * len(modules) + 16:
            colour = (255, 255, 255)
        pixels += bytes(colour)
sys.stdout.buffer.write(b"P6\n%d %d\n255\n" % (width, height) + pixels)
' | cjpeg -quality 75 -outfile fido-screenshot.jpg

# A PNG without any QR code: an 8-bit RGB gradient, written with zlib.
python3 -c '
import struct, zlib
width, height = 96, 64
raw = b"".join(b"\x00" + bytes(v for x in range(width) for v in (x * 2, y * 3, 128)) for y in range(height))
def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
png += chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")
open("no-qr.png", "wb").write(png)
'

# Two QR codes side by side, the hybrid one on the left (zbar lists it second): a grey PNG written with zlib.
{ qrencode -t ASCII -l M -m 0 "$fido"; echo; qrencode -t ASCII -l M -m 0 "$other"; } | python3 -c '
import struct, sys, zlib
codes, rows = [], []
for line in sys.stdin.read().split("\n") + [""]:
    if line.strip():
        rows.append([line[i] == "#" for i in range(0, len(line), 2)])
    elif rows:
        codes.append(rows)
        rows = []
scale, margin = 4, 24
height = max(len(code) for code in codes) * scale + 2 * margin
width = sum(len(code) * scale + margin for code in codes) + margin
image = [[255] * width for _ in range(height)]
left = margin
for code in codes:
    for my, row in enumerate(code):
        for mx, dark in enumerate(row):
            for y in range(margin + my * scale, margin + (my + 1) * scale):
                for x in range(left + mx * scale, left + (mx + 1) * scale):
                    image[y][x] = 0 if dark else 255
    left += len(code) * scale + margin
raw = b"".join(b"\x00" + bytes(row) for row in image)
def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0))
png += chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")
open("two-codes.png", "wb").write(png)
'

for image in two-codes.png fido-qrencode.png fido-dark.png fido-screenshot.jpg not-fido.png no-qr.png; do
    printf '%s: ' "$image"
    zbarimg --raw -q -Stest-inverted "$image" 2>/dev/null || echo "(no QR code)"
done
