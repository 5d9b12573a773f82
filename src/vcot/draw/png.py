"""PNG encoding and the pixel digest that suite hashes are built on."""

from __future__ import annotations

import hashlib
import io

from PIL import Image

# Level 1 is the fastest zlib level measured on this project's hardware; files stay small because
# generated scenes are mostly flat colour.
PNG_COMPRESS_LEVEL = 1


def encode_png(image: Image.Image) -> bytes:
    buf = io.BytesIO()
    image.save(buf, format="PNG", compress_level=PNG_COMPRESS_LEVEL)
    return buf.getvalue()


def decode_png(data: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(data))
    image.load()
    return image


def pixel_digest(image: Image.Image) -> str:
    """Hash of decoded pixels (mode, size, raw bytes): independent of the zlib build that wrote the file."""
    h = hashlib.sha256()
    h.update(f"{image.mode}:{image.width}x{image.height}:".encode())
    h.update(image.tobytes())
    return h.hexdigest()
