"""pybullet, imported when a robot scene is first simulated, without its import-time banner.

Bullet's extension writes "pybullet build time: ..." to the process's standard error when it is imported.
Every command that lists the tasks would otherwise import Bullet (every generator module is imported on
discovery) and show the line under its own output, so the import waits for the first simulation, and the
banner goes to the null device at the file-descriptor level, where the extension writes (standard output too,
and C's buffers are flushed before the descriptors are given back).
"""

from __future__ import annotations

import contextlib
import functools
import os
import sys
import types
from collections.abc import Iterator
from typing import Any


@contextlib.contextmanager
def _silenced(fds: tuple[int, ...] = (1, 2)) -> Iterator[None]:
    saved: list[tuple[int, int]] = []
    try:
        sys.stdout.flush()
        sys.stderr.flush()
        null = os.open(os.devnull, os.O_WRONLY)
        try:
            for fd in fds:
                saved.append((fd, os.dup(fd)))
                os.dup2(null, fd)
        finally:
            os.close(null)
    except (OSError, ValueError, AttributeError):  # a descriptor that is not there has nothing to protect
        pass
    try:
        yield
    finally:
        _flush_c_stdio()
        for fd, copy in saved:
            os.dup2(copy, fd)
            os.close(copy)


def _flush_c_stdio() -> None:
    try:
        import ctypes

        ctypes.CDLL(None).fflush(None)
    except (OSError, AttributeError):  # no C library to ask: the banner may show, nothing worse
        pass


@functools.lru_cache(maxsize=1)
def modules() -> tuple[types.ModuleType, types.ModuleType]:
    """(pybullet, pybullet_data), imported once."""
    with _silenced():
        import pybullet
        import pybullet_data
    return pybullet, pybullet_data


class _Lazy:
    """Stands for the pybullet module: the first attribute read imports it."""

    def __getattr__(self, name: str) -> Any:
        return getattr(modules()[0], name)


p: Any = _Lazy()
