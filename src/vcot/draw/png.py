"""PNG encoding and the pixel digest that suite hashes are built on.

The default encoder writes the PNG itself: one fixed filter for every row, computed in NumPy, and the
image data compressed by ISA-L (the `isal` bindings) at level 1. Pillow's encoder tries every filter on
every row (adaptive filtering), which costs more than the drawing on many tasks; generated scenes are flat
colour, where one fixed filter compresses almost as well (docs/scale.md, "PNG encoding", has the figures). Pillow
stays the fallback for
modes this writer does not cover and for machines without isal. Either way the pixels are the same, and
suite hashes are computed from decoded pixels (`pixel_digest`), so the choice never changes a hash.
"""

from __future__ import annotations

import hashlib
import io
import struct
import zlib

from PIL import Image

try:  # isal is a dependency; its absence only costs speed
    from isal import isal_zlib as _fast_zlib
except ImportError:  # pragma: no cover - exercised by forcing the fallback in tests
    _fast_zlib = None

# Pillow's level: 1 is its fastest, and files stay small because generated scenes are mostly flat colour.
PNG_COMPRESS_LEVEL = 1
# ISA-L's level 1 compresses 2.5-3x faster than zlib-ng's level 2 did, with files 3 % smaller to 10 % larger
# than Pillow's level 1; its level 0 is no quicker and writes files up to 46 % larger (docs/scale.md).
FAST_COMPRESS_LEVEL = 1

# PNG colour types (PNG spec, IHDR) of the modes written directly; 8 bits per sample.
_COLOUR_TYPES = {"L": 0, "RGB": 2, "LA": 4, "RGBA": 6}
_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_FILTER_UP = 2


def encode_png(image: Image.Image) -> bytes:
    """The image as PNG bytes: the fast writer where it applies, Pillow otherwise."""
    if _fast_applies(image):
        return _encode_fast(image, image.tobytes())
    return encode_png_pillow(image)


def encode_png_and_digest(image: Image.Image) -> tuple[bytes, str]:
    """PNG bytes and `pixel_digest` of the image as RGB, reading the pixels out of Pillow once where it can."""
    if image.mode == "RGB" and _fast_applies(image):
        raw = image.tobytes()
        return _encode_fast(image, raw), _digest(image.mode, image.width, image.height, raw)
    return encode_png(image), pixel_digest(image.convert("RGB"))


def encode_png_pillow(image: Image.Image) -> bytes:
    """Pillow's encoder (adaptive filtering): the fallback, and the reference the fast writer is tested against."""
    buf = io.BytesIO()
    image.save(buf, format="PNG", compress_level=PNG_COMPRESS_LEVEL)
    return buf.getvalue()


def fast_png_available() -> bool:
    return _fast_zlib is not None


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(data, zlib.crc32(kind)))


def _fast_applies(image: Image.Image) -> bool:
    return _fast_zlib is not None and image.mode in _COLOUR_TYPES and image.width > 0 and image.height > 0


def _encode_fast(image: Image.Image, raw: bytes) -> bytes:
    import numpy as np  # here, not at the top: the request path imports this module and must stay light

    assert _fast_zlib is not None
    rows = np.frombuffer(raw, dtype=np.uint8).reshape(image.height, -1)
    # Filter "Up": each byte minus the byte above it (mod 256); the first row's "above" is zero.
    filtered = np.empty((rows.shape[0], rows.shape[1] + 1), dtype=np.uint8)
    filtered[:, 0] = _FILTER_UP
    filtered[0, 1:] = rows[0]
    np.subtract(rows[1:], rows[:-1], out=filtered[1:, 1:])
    header = struct.pack(">IIBBBBB", image.width, image.height, 8, _COLOUR_TYPES[image.mode], 0, 0, 0)
    data = _fast_zlib.compress(filtered, FAST_COMPRESS_LEVEL)
    return _SIGNATURE + _chunk(b"IHDR", header) + _chunk(b"IDAT", data) + _chunk(b"IEND", b"")


def decode_png(data: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(data))
    image.load()
    return image


def pixel_digest(image: Image.Image) -> str:
    """Hash of decoded pixels (mode, size, raw bytes): independent of the encoder and zlib build that wrote the file."""
    return _digest(image.mode, image.width, image.height, image.tobytes())


def _digest(mode: str, width: int, height: int, raw: bytes) -> str:
    h = hashlib.sha256()
    h.update(f"{mode}:{width}x{height}:".encode())
    h.update(raw)
    return h.hexdigest()
