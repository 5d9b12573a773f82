"""Image loading for model input: an explicit size policy and data-URI encoding cached per file.

Providers cap image size (some reject sides over 8000 px, or over 2000 px when many images are sent), so
every image goes through one `ImagePolicy` in every condition, and what was sent is recorded per image.
Encoding is the costly part of building a request, so each (file, policy) is encoded once and reused:
a run sends the same input image under every condition and epoch.
"""

from __future__ import annotations

import base64
import hashlib
import io
import os
import stat
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from PIL import Image, UnidentifiedImageError

# Refuse to decode images declaring more pixels than this (decompression bombs); matches suite.py.
MAX_DECODE_PIXELS = 40_000_000

_MIME = {"PNG": "image/png", "JPEG": "image/jpeg", "WEBP": "image/webp", "GIF": "image/gif"}


class ImageError(ValueError):
    """An image could not be loaded or encoded; the message names the file."""


@dataclass(frozen=True)
class ImagePolicy:
    """What every image sent to a model must satisfy.

    `max_side`: longest side in pixels; larger images are downscaled (aspect kept, Lanczos).
    `format`: "keep" passes PNG/JPEG/WEBP files through byte-for-byte when no resize is needed and
    re-encodes as PNG otherwise; "png" or "jpeg" force that format for every image.
    """

    max_side: int = 2000
    format: str = "keep"
    jpeg_quality: int = 90

    def __post_init__(self) -> None:
        if self.max_side < 16:
            raise ValueError(f"image max_side {self.max_side} is too small (minimum 16)")
        if self.format not in ("keep", "png", "jpeg"):
            raise ValueError(f"image format {self.format!r} must be 'keep', 'png' or 'jpeg'")

    def as_dict(self) -> dict[str, Any]:
        return {"max_side": self.max_side, "format": self.format, "jpeg_quality": self.jpeg_quality}


@dataclass(frozen=True)
class EncodedImage:
    """An image ready to send: data URI plus what the policy did to it."""

    source: str  # path relative to the suite (or as given), for the record
    data_uri: str
    mime: str
    width: int
    height: int
    orig_width: int
    orig_height: int
    digest: str  # sha256 of the bytes sent; request digests use it instead of the payload
    # The picture itself when it was never encoded (training prompts: `InMemoryPictures`); None otherwise.
    picture: Image.Image | None = field(default=None, compare=False, repr=False)

    @property
    def resized(self) -> bool:
        return (self.width, self.height) != (self.orig_width, self.orig_height)

    @property
    def b64(self) -> str:
        return self.data_uri.split(",", 1)[1]

    def record(self) -> dict[str, Any]:
        return {
            "path": self.source,
            "mime": self.mime,
            "width": self.width,
            "height": self.height,
            "orig_width": self.orig_width,
            "orig_height": self.orig_height,
            "resized": self.resized,
        }


# How a complete file ends. Files passed through are not decoded, and suites are read for a run without
# checking every image (the first request would wait for it), so a truncated file is caught here.
# A JPEG's end marker may be followed by padding or appended data from cameras and editors, so it is looked
# for near the end rather than at it.
_ENDINGS = {"PNG": (b"IEND\xaeB`\x82", 0), "JPEG": (b"\xff\xd9", 4096)}


def _check_complete(data: bytes, fmt: str, source: str) -> None:
    if fmt not in _ENDINGS:
        return
    ending, slack = _ENDINGS[fmt]
    complete = data.endswith(ending) if not slack else ending in data[-(slack + len(ending)) :]
    if not complete:
        raise ImageError(f"{source}: corrupt or unreadable image (truncated {fmt} file)")


def _png_size(data: bytes) -> tuple[int, int] | None:
    """Width and height from a PNG's IHDR chunk; None when `data` does not start like a PNG."""
    if len(data) >= 24 and data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR":
        return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    return None


def _sent(out: bytes, mime: str, size: tuple[int, int], orig: tuple[int, int], source: str) -> EncodedImage:
    b64 = base64.b64encode(out).decode("ascii")
    return EncodedImage(
        source=source,
        data_uri=f"data:{mime};base64,{b64}",
        mime=mime,
        width=size[0],
        height=size[1],
        orig_width=orig[0],
        orig_height=orig[1],
        digest=hashlib.sha256(out).hexdigest(),
    )


def encode_image_bytes(data: bytes, policy: ImagePolicy, source: str) -> EncodedImage:
    """Apply the policy to encoded image bytes."""
    size = _png_size(data)
    if size is not None and policy.format in ("keep", "png") and 0 < max(size) <= policy.max_side:
        # The common case (a generated PNG within the size limit) is sent as it is: PIL need not parse it.
        if size[0] * size[1] > MAX_DECODE_PIXELS:
            raise ImageError(f"{source}: {size[0]}x{size[1]} pixels refused as a possible decompression bomb")
        _check_complete(data, "PNG", source)
        return _sent(data, "image/png", size, size, source)
    try:
        with Image.open(io.BytesIO(data)) as im:
            w, h = im.size
            if w * h > MAX_DECODE_PIXELS:
                raise ImageError(f"{source}: {w}x{h} pixels refused as a possible decompression bomb")
            fmt = im.format or ""
            scale = min(1.0, policy.max_side / max(w, h))
            passthrough = scale == 1.0 and (
                (policy.format == "keep" and fmt in ("PNG", "JPEG", "WEBP"))
                or (policy.format == "png" and fmt == "PNG")
                or (policy.format == "jpeg" and fmt == "JPEG")
            )
            if passthrough:
                _check_complete(data, fmt, source)
                out, mime, size = data, _MIME[fmt], (w, h)
            else:
                im.load()
                img = im
                if scale < 1.0:
                    size = (max(1, round(w * scale)), max(1, round(h * scale)))
                    img = im.resize(size, Image.Resampling.LANCZOS)
                else:
                    size = (w, h)
                buf = io.BytesIO()
                if policy.format == "jpeg":
                    img.convert("RGB").save(buf, format="JPEG", quality=policy.jpeg_quality)
                    mime = "image/jpeg"
                else:
                    if img.mode not in ("RGB", "RGBA", "L", "LA", "P"):
                        img = img.convert("RGBA")
                    img.save(buf, format="PNG", compress_level=1)
                    mime = "image/png"
                out = buf.getvalue()
    except ImageError:
        raise
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError, Image.DecompressionBombError) as exc:
        raise ImageError(f"{source}: corrupt or unreadable image ({exc})") from None
    return _sent(out, mime, size, (w, h), source)


def read_regular_file(path: Path, source: str) -> bytes:
    """The bytes of an image file; ImageError for anything but a regular file. Opened without blocking and
    checked on the open descriptor: a FIFO's reader waits forever for a writer, a device never ends, and a
    check of the name before opening could be raced."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except OSError as exc:
        raise ImageError(f"{source}: cannot read image file ({exc.strerror or exc})") from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            kind = "a FIFO" if stat.S_ISFIFO(mode) else "a folder" if stat.S_ISDIR(mode) else "a special file"
            raise ImageError(f"{source}: the image is {kind}, not a regular file; refused")
        with os.fdopen(fd, "rb", closefd=False) as fh:
            return fh.read()
    except OSError as exc:
        raise ImageError(f"{source}: cannot read image file ({exc.strerror or exc})") from None
    finally:
        os.close(fd)


class ImageCache:
    """Encoded images keyed by (file, policy), least recently used evicted beyond a byte budget.

    Thread-safe so that conditions can be built from worker threads; suites are treated as frozen, so
    a file is not re-read when it changes during a run.
    """

    def __init__(self, policy: ImagePolicy | None = None, max_bytes: int = 1 << 30) -> None:
        self.policy = policy or ImagePolicy()
        self.max_bytes = max_bytes
        self._items: OrderedDict[tuple[str, ImagePolicy], EncodedImage] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get(self, path: Path, source: str | None = None, policy: ImagePolicy | None = None) -> EncodedImage:
        pol = policy or self.policy
        key = (str(path), pol)
        with self._lock:
            item = self._items.get(key)
            if item is not None:
                self._items.move_to_end(key)
                self.hits += 1
                return item
        data = read_regular_file(Path(path), source or str(path))
        item = encode_image_bytes(data, pol, source or str(path))
        with self._lock:
            self.misses += 1
            if key not in self._items:
                self._items[key] = item
                self._bytes += len(item.data_uri)
                while self._bytes > self.max_bytes and len(self._items) > 1:
                    _, old = self._items.popitem(last=False)
                    self._bytes -= len(old.data_uri)
        return item


ImageSource = Callable[[str], EncodedImage]
"""Maps an instance's relative image path to the encoded image (policy applied)."""


class SuiteImages:
    """An ImageSource over a suite folder: paths validated to stay inside it, encodings cached."""

    def __init__(self, suite: Any, policy: ImagePolicy | None = None, cache: ImageCache | None = None) -> None:
        self.suite = suite
        self.cache = cache or ImageCache(policy)
        self.policy = self.cache.policy
        # Validating a path resolves symlinks (several stat calls); once per file is enough.
        self._paths: dict[str, Any] = {}

    def __call__(self, rel: str) -> EncodedImage:
        path = self._paths.get(rel)
        if path is None:
            path = self._paths[rel] = self.suite.image_path(rel)
        return self.cache.get(path, source=rel)


class InMemoryPictures:
    """An image source over pictures already in memory that encodes nothing: each `EncodedImage` carries the
    PIL picture itself (`picture`) and an empty data URI. Training prompts are built through it, so a trainer
    gets the very pictures the task drew, without a PNG round trip (docs/rl.md, "Problems")."""

    encodes = False

    def __init__(self, pictures: Any) -> None:
        self._pictures = pictures

    def __call__(self, rel: str) -> EncodedImage:
        return self.wrap(self._pictures[rel], rel)

    @staticmethod
    def wrap(picture: Image.Image, source: str) -> EncodedImage:
        w, h = picture.size
        return EncodedImage(
            source=source,
            data_uri="",
            mime="image/png",
            width=w,
            height=h,
            orig_width=w,
            orig_height=h,
            digest="",
            picture=picture,
        )
