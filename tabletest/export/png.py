"""Whether a render's PNG can ship: whole and of its record's size, judged without decoding it.

Decoding a 1024x768 render costs tens of milliseconds, hours for a quarter of a million images; walking
its chunks costs well under one. A PNG is whole when its chunks follow one another from the signature to
IEND, each with the CRC it was written with: a file cut short, overwritten or not a PNG fails that, as
`PIL.Image.verify` would judge it, at a fraction of its cost. The size is IHDR's.
"""

from __future__ import annotations

import struct
import zlib

SIGNATURE = b"\x89PNG\r\n\x1a\n"


def png_problem(data: bytes, size: tuple[int, int]) -> str | None:
    """Why `data` is not a whole PNG of `size` (width, height), as words that follow its name; None if it is."""
    if not data.startswith(SIGNATURE) or data[12:16] != b"IHDR":
        return "is not a PNG"
    if damage := _damage(memoryview(data)):
        return damage
    width, height = struct.unpack_from(">II", data, 16)
    if (width, height) != tuple(size):
        return f"is {width}x{height}, not the {size[0]}x{size[1]} its record gives"
    return None


def _damage(data: memoryview) -> str | None:
    """Where the chunks stop being whole: a chunk cut short, one whose CRC fails, or no IEND."""
    pos = len(SIGNATURE)
    while pos + 12 <= len(data):
        (length,) = struct.unpack_from(">I", data, pos)
        end = pos + 8 + length
        kind = bytes(data[pos + 4 : pos + 8]).decode("latin-1")
        if end + 4 > len(data):
            break
        if zlib.crc32(data[pos + 4 : end]) != struct.unpack_from(">I", data, end)[0]:
            return f"is damaged (its {kind} chunk at byte {pos} fails its CRC)"
        if kind == "IEND":
            return None
        pos = end + 4
    return f"is cut short ({len(data)} bytes, ending inside its data)"
