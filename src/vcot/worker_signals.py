"""How vcot's worker processes treat signals (suite generation, shards, report thumbnails).

A forked worker inherits its parent's signal handlers. Ctrl-C is the parent's to handle (it stops the pool),
so workers ignore SIGINT instead of each printing a KeyboardInterrupt traceback. A pool stops its workers with
SIGTERM, so workers take its default action: a handler some library installed in the parent (Ray installs
one for its driver, and it stays after `ray.shutdown()`) kept a worker alive, or deadlocked it on a lock held
at the fork, and the pool then waited for it forever.
"""

from __future__ import annotations

import signal


def init_worker_signals() -> None:
    """Pool initializer: SIGINT ignored, SIGTERM back to its default (end the process)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
