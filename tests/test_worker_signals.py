"""Worker pools end even when the parent carries a SIGTERM handler that does not exit (Ray leaves one in its
driver after `ray.shutdown()`). A pool that stops before its work is done holds its task queue's lock and ends
its workers with SIGTERM; a worker that survives the signal then waits for the lock, and the pool for it."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from vcot.worker_signals import init_worker_signals

# The parent installs a SIGTERM handler that does nothing, as a library might, then stops a generation pool
# after its first instance, while the workers are still busy.
_SCRIPT = textwrap.dedent("""
    import signal
    signal.signal(signal.SIGTERM, lambda signum, frame: None)
    from vcot.build import TaskPlan, iter_encoded
    stream = iter_encoded([TaskPlan(task="mirror_pattern", difficulty="easy", n=40, seed=3)], processes=2)
    next(stream)
    stream.close()
    print("done")
""")


def test_a_pool_stopped_early_ends_though_the_parent_ignores_sigterm(tmp_path: Path) -> None:
    try:
        proc = subprocess.run(
            [sys.executable, "-c", _SCRIPT], capture_output=True, text=True, timeout=120, cwd=tmp_path
        )
    except subprocess.TimeoutExpired:
        pytest.fail("the generation pool never ended: a worker outlived its SIGTERM")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip() == "done"


def test_workers_ignore_ctrl_c_and_end_on_sigterm() -> None:
    before = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
    try:
        signal.signal(signal.SIGTERM, lambda signum, frame: None)
        init_worker_signals()
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
        assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
    finally:
        signal.signal(signal.SIGINT, before[0])
        signal.signal(signal.SIGTERM, before[1])
