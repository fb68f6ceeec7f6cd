"""A small PNG writer with no dependency beyond NumPy: 8-bit grayscale, RGB
or RGBA images, written unfiltered and deflate-compressed."""

import struct
import zlib
from pathlib import Path

import numpy as np

_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_COLOR_TYPES = {1: 0, 3: 2, 4: 6}  # channels -> PNG colour type


def _chunk(tag, data):
    # The CRC covers the tag and the data, not the length.
    crc = zlib.crc32(tag + data) & 0xFFFFFFFF
    return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", crc)


def encode_png(pixels):
    """The PNG file for `pixels`, a uint8 array of shape (h, w), (h, w, 3) or (h, w, 4)."""
    pixels = np.asarray(pixels)
    if pixels.dtype != np.uint8:
        raise TypeError(f"encode_png needs uint8 pixels, not {pixels.dtype}")
    if pixels.ndim == 2:
        pixels = pixels[:, :, None]
    if pixels.ndim != 3 or pixels.shape[2] not in _COLOR_TYPES:
        raise ValueError(f"encode_png needs shape (h, w), (h, w, 3) or (h, w, 4), not {pixels.shape}")
    h, w, channels = pixels.shape
    header = struct.pack(">IIBBBBB", w, h, 8, _COLOR_TYPES[channels], 0, 0, 0)
    # Every scanline starts with its filter type; 0 leaves the bytes as they are.
    rows = np.concatenate([np.zeros((h, 1), np.uint8), pixels.reshape(h, w * channels)], axis=1)
    return b"".join([
        _SIGNATURE,
        _chunk(b"IHDR", header),
        _chunk(b"IDAT", zlib.compress(rows.tobytes(), 6)),
        _chunk(b"IEND", b""),
    ])


def write_png(path, pixels):
    """Writes `pixels` (see encode_png) to `path`, creating its folder."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(encode_png(pixels))
    return path


def image_strip(tiles, gap=4, background=255):
    """Uint8 RGB images of one height side by side, `gap` pixels apart: the
    frames of a simulation in one picture."""
    height = tiles[0].shape[0]
    spacer = np.full((height, gap, 3), background, np.uint8)
    parts = []
    for k, tile in enumerate(tiles):
        if tile.shape[0] != height:
            raise ValueError(f"image_strip needs tiles of one height: {tile.shape[0]} != {height}")
        parts.extend([spacer, tile] if k else [tile])
    return np.concatenate(parts, axis=1)
