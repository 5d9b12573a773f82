"""Bulk loading without the cyclic garbage collector.

Reading a large suite allocates hundreds of thousands of objects that live for the whole run; every
collection triggered meanwhile rescans all of them, which cost two thirds of the start-up on a 100,000-instance
suite (docs/engine.md, "Performance"). Inside `paused_gc()` no collection runs; on leaving it, everything
allocated so far is frozen (moved out of the collector's reach, as `gc.freeze` documents) so the long-lived
objects are not rescanned during the run either, and collection resumes for what comes after. Entering it
unfreezes what an earlier pause froze, so a process that loads many times (a notebook running evaluations,
the tests) holds at most one load's garbage out of reach; a command that ends after its run pays no full
collection at its close.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused_gc() -> Iterator[None]:
    was_enabled = gc.isenabled()
    gc.disable()
    if was_enabled:
        gc.unfreeze()
    try:
        yield
    finally:
        if was_enabled:
            gc.freeze()
            gc.enable()
