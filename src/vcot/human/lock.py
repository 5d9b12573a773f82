"""One server per study: an exclusive lock on `server.lock` in the study folder, held while serving.

Two servers on one study would hand the same participant two pages and race on the same items; the store
would keep every answer once, but the second server's participants would see pages the first server never
recorded as shown. The lock is advisory (`flock`): the operating system releases it when the process ends,
even after a crash, so a stale lock file never blocks a restart.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path


class StudyBusy(RuntimeError):
    """Another server holds the study."""


class StudyLock:
    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._fd: int | None = None

    def acquire(self) -> StudyLock:
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.read(fd, 64).decode("ascii", "replace").strip() or "unknown"
            os.close(fd)
            raise StudyBusy(
                f"{self.path.parent}: another vcot human server is already serving this study "
                f"(process {holder}); stop it first, or open the URL it printed"
            ) from None
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self._fd = fd
        return self

    def release(self) -> None:
        if self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> StudyLock:
        return self.acquire()

    def __exit__(self, *exc: object) -> None:
        self.release()
