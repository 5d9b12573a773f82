"""The report's instance-browser thumbnails, made in worker processes while the report does its other work.

Decoding, shrinking and re-encoding a few hundred suite images was most of `vcot report --suite`'s time.
Pillow lets go of the GIL while it works, but only between small chunks of a file: a thread pool beside a
main thread busy in Python (scoring, tables, plots, the audit) hardly advanced — the threads wait for the
GIL after every chunk — so the thumbnails were made after the rest, not beside it. Worker processes have
their own interpreters and run on the other core meanwhile (benchmarks/report_speed.py). Made thumbnails
are kept in the user's cache folder, keyed by the image file's bytes: reports of several runs on one suite
make them once.
"""

from __future__ import annotations

import hashlib
import io
import multiprocessing as mp
import os
import struct
import tempfile
import zlib
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

from vcot.worker_signals import init_worker_signals

THUMB_SIDE = 384
# Fewer images than this are made on the calling thread: starting workers would cost more than it saves.
MIN_FOR_WORKERS = 16
# Part of every cache key (with the Pillow version): bump it when the making changes (vcot.html.thumbnail_png).
CACHE_VERSION = "1"
CACHE_ENV = "VCOT_CACHE_DIR"  # the cache's folder; empty turns the cache off
# The cache's size bound (MiB; about 14 MiB per mira-synth suite): past it, the least recently used go first.
CACHE_MAX_ENV = "VCOT_CACHE_MAX_MB"
CACHE_MAX_MB = 512
_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def thumbnail(path: str, side: int = THUMB_SIDE) -> str | None:
    """A PNG data: URI of the image at `path` shrunk to fit `side`; None when it cannot be read (a missing
    image must not sink the whole report; the browser says so instead).

    Thumbnails are kept in the user's cache folder under a hash of the image file's bytes (and of how they
    are made), so the next report on the same suite reads them instead of making them again."""
    try:
        from PIL import Image

        from vcot.html import png_data_uri, thumbnail_png
        from vcot.suite import MAX_IMAGE_BYTES, MAX_IMAGE_PIXELS, MAX_IMAGE_SIDE

        # The suite's own limits, checked here too: `vcot report` reads its suite without opening the images.
        if os.stat(path).st_size > MAX_IMAGE_BYTES:
            return None
        with open(path, "rb") as fh:
            data = fh.read()
        cached = _cache_file(data, side)
        if cached is not None:
            png = _read_valid_png(cached)
            if png is not None:
                _touch(cached)
                return png_data_uri(png)
        with Image.open(io.BytesIO(data)) as im:
            w, h = im.size
            if w * h > MAX_IMAGE_PIXELS or max(w, h) > MAX_IMAGE_SIDE:  # a possible decompression bomb
                return None
            # The fastest encoding: `optimize` saves 6 % of the bytes for twice the time.
            png = thumbnail_png(im, side, mode="RGB")
        if cached is not None:
            _write_atomically(cached, png)
        return png_data_uri(png)
    except Exception:
        return None


def cache_dir() -> Path | None:
    """The thumbnail cache's folder: $VCOT_CACHE_DIR/thumbnails, else under $XDG_CACHE_HOME or ~/.cache;
    None when VCOT_CACHE_DIR is set but empty."""
    root = os.environ.get(CACHE_ENV)
    if root is None:
        root = os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "vcot")
    return Path(root) / "thumbnails" if root else None


def _cache_file(data: bytes, side: int) -> Path | None:
    folder = cache_dir()
    if folder is None:
        return None
    import PIL

    key = hashlib.sha256(f"{CACHE_VERSION}|{side}|{PIL.__version__}|".encode() + data).hexdigest()
    return folder / key[:2] / f"{key}.png"


def _read_valid_png(path: Path) -> bytes | None:
    """The cached PNG's bytes if every chunk's CRC holds and it ends with IEND; None otherwise (missing,
    truncated or corrupt: the thumbnail is made again and the file replaced)."""
    try:
        png = path.read_bytes()
    except OSError:
        return None
    if not png.startswith(_PNG_SIGNATURE):
        return None
    at = len(_PNG_SIGNATURE)
    while at + 12 <= len(png):
        (length,) = struct.unpack(">I", png[at : at + 4])
        kind, body = png[at + 4 : at + 8], png[at + 8 : at + 8 + length]
        if len(body) != length or png[at + 8 + length : at + 12 + length] != struct.pack(">I", zlib.crc32(kind + body)):
            return None
        at += 12 + length
        if kind == b"IEND":
            return png if at == len(png) else None
    return None


def _write_atomically(path: Path, png: bytes) -> None:
    """Written beside its place and renamed, so a reader never sees half a file; a cache that cannot be
    written (read-only home, full disk) only costs the time."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(png)
            os.replace(tmp, path)
        except BaseException:
            os.unlink(tmp)
            raise
    except OSError:
        pass


def _touch(path: Path) -> None:
    # The pruning evicts by modification time: a thumbnail just used counts as new.
    try:
        os.utime(path)
    except OSError:
        pass


def cache_limit_bytes() -> int:
    try:
        return max(0, int(float(os.environ.get(CACHE_MAX_ENV, CACHE_MAX_MB)) * 2**20))
    except ValueError:
        return CACHE_MAX_MB * 2**20


def prune_cache(max_bytes: int | None = None) -> int:
    """Delete the least recently used thumbnails until the cache holds at most 80 % of `max_bytes` (default
    $VCOT_CACHE_MAX_MB, else 512 MiB), when it holds more than `max_bytes`; returns how many were deleted."""
    folder = cache_dir()
    if folder is None or not folder.is_dir():
        return 0
    limit = cache_limit_bytes() if max_bytes is None else max_bytes
    entries = []
    for sub in os.scandir(folder):
        if sub.is_dir(follow_symlinks=False):
            for f in os.scandir(sub.path):
                if f.is_file(follow_symlinks=False):
                    st = f.stat(follow_symlinks=False)
                    entries.append((st.st_mtime, st.st_size, f.path))
    total = sum(size for _, size, _ in entries)
    if total <= limit:
        return 0
    deleted = 0
    for _, size, path in sorted(entries):
        if total <= 0.8 * limit:
            break
        try:
            os.unlink(path)
        except OSError:
            continue
        total -= size
        deleted += 1
    return deleted


class Thumbnails:
    """Thumbnails of a suite's images, made by worker processes from the moment they are asked for.

    `start` queues images (the report does so as soon as it knows which instances it shows, `vcot quickstart`
    before its evaluation); `get` collects them. Use as a context manager: leaving it stops the workers."""

    def __init__(
        self, suite: Any, workers: int | None = None, progress: Callable[[int, int], None] | None = None
    ) -> None:
        self.suite = suite
        self.workers = workers if workers is not None else min(2, os.cpu_count() or 1)
        self.progress = progress  # (collected, asked) as `get` collects each one: for a progress line
        self._pool: ProcessPoolExecutor | None = None
        self._paths: dict[str, str | None] = {}  # every queued image (None: not inside the suite folder)
        self._futures: dict[str, Future[str | None]] = {}  # those given to a worker

    def _path(self, rel: str) -> str | None:
        try:
            return str(self.suite.image_path(rel))
        except Exception:  # e.g. a path escaping the suite folder: shown as unavailable, as a missing file is
            return None

    def start(self, rels: Sequence[str]) -> Thumbnails:
        """Queue the thumbnails of `rels` not yet queued, in order (the first shown are made first)."""
        new = [rel for rel in dict.fromkeys(rels) if rel not in self._paths]
        if self._pool is None and self.workers > 1 and len(new) >= MIN_FOR_WORKERS:
            try:
                # The default start method, as `vcot.build` uses: a fork copies the loaded suite for free.
                self._pool = ProcessPoolExecutor(
                    self.workers, mp_context=mp.get_context(), initializer=init_worker_signals
                )
            except (OSError, ValueError, NotImplementedError):  # no processes here: made on this thread instead
                self.workers = 1
        for rel in new:
            path = self._paths[rel] = self._path(rel)
            if self._pool is not None and path is not None:
                try:
                    self._futures[rel] = self._pool.submit(thumbnail, path)
                except BrokenProcessPool:  # made on the calling thread when collected
                    pass
        return self

    def get(self, rels: Sequence[str]) -> dict[str, str | None]:
        """The data: URI of each of `rels` (None where its image cannot be read), waiting for any not done."""
        self.start(rels)
        out: dict[str, str | None] = {}
        wanted = list(dict.fromkeys(rels))
        if self.progress is not None:
            self.progress(0, len(wanted))
        for rel in wanted:
            path, future = self._paths[rel], self._futures.get(rel)
            try:
                out[rel] = future.result() if future is not None else thumbnail(path) if path else None
            except BrokenProcessPool:  # a worker died (e.g. killed for memory): made here instead
                out[rel] = thumbnail(path) if path else None
            if self.progress is not None:
                self.progress(len(out), len(wanted))
        return out

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None
        if self._paths:
            try:
                prune_cache()
            except OSError:  # a cache that cannot be tidied only costs disk space
                pass

    def __enter__(self) -> Thumbnails:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
