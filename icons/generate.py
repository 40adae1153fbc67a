#!/usr/bin/env python3
"""Writes the app and tray icons as PNGs, and the Windows icon (no dependencies): a blue rounded square with a
white page; the "pending" tray variant adds an orange dot. Run: python3 icons/generate.py"""
import os
import struct
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
BLUE = (0, 0, 145, 255)
WHITE = (255, 255, 255, 255)
LINE = (120, 130, 200, 255)
ORANGE = (240, 110, 0, 255)
CLEAR = (0, 0, 0, 0)


def rounded(x, y, x0, y0, x1, y1, r):
    if x < x0 or x > x1 or y < y0 or y > y1:
        return False
    cx = min(max(x, x0 + r), x1 - r)
    cy = min(max(y, y0 + r), y1 - r)
    return (x - cx) ** 2 + (y - cy) ** 2 <= r * r


def pixel(x, y, pending):
    u, v = x, y  # in a 1.0 square
    if pending and (u - 0.78) ** 2 + (v - 0.22) ** 2 <= 0.2 ** 2:
        return ORANGE
    if not rounded(u, v, 0.04, 0.04, 0.96, 0.96, 0.18):
        return CLEAR
    if rounded(u, v, 0.28, 0.2, 0.72, 0.82, 0.04):
        for top in (0.34, 0.46, 0.58, 0.7):
            if top <= v <= top + 0.05 and 0.35 <= u <= (0.58 if top == 0.7 else 0.65):
                return LINE
        return WHITE
    return BLUE


def png(size, pending=False):
    rows = []
    for y in range(size):
        row = bytearray([0])
        for x in range(size):
            # 2x2 supersampling for smoother edges
            acc = [0, 0, 0, 0]
            for sy in (0.25, 0.75):
                for sx in (0.25, 0.75):
                    p = pixel((x + sx) / size, (y + sy) / size, pending)
                    for i in range(4):
                        acc[i] += p[i]
            row.extend(c // 4 for c in acc)
        rows.append(bytes(row))
    raw = zlib.compress(b"".join(rows), 9)

    def chunk(kind, data):
        c = kind + data
        return struct.pack(">I", len(data)) + c + struct.pack(">I", zlib.crc32(c) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", size, size, 8, 6, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", raw) + chunk(b"IEND", b"")


def ico(sizes):
    """A Windows icon holding one PNG per size (Windows Vista on reads PNG entries); the
    Windows build embeds it in the .exe and the installer shows it."""
    images = [png(size) for size in sizes]
    header = struct.pack("<HHH", 0, 1, len(images))
    offset = len(header) + 16 * len(images)
    entries = b""
    for size, image in zip(sizes, images):
        side = 0 if size >= 256 else size  # 0 means 256 in an icon directory
        entries += struct.pack("<BBBBHHII", side, side, 0, 0, 1, 32, len(image), offset)
        offset += len(image)
    return header + entries + b"".join(images)


def main():
    outputs = {
        "icon.png": (512, False),
        "32x32.png": (32, False),
        "128x128.png": (128, False),
        "128x128@2x.png": (256, False),
        "tray.png": (64, False),
        "tray-pending.png": (64, True),
    }
    for name, (size, pending) in outputs.items():
        with open(os.path.join(HERE, name), "wb") as f:
            f.write(png(size, pending))
        print("wrote icons/" + name)
    with open(os.path.join(HERE, "icon.ico"), "wb") as f:
        f.write(ico([16, 32, 48, 256]))
    print("wrote icons/icon.ico")


if __name__ == "__main__":
    main()
