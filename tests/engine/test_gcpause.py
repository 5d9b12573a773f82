"""vcot.gcpause: no collection while loading, collection back afterwards, and one load's freeze at a time."""

from __future__ import annotations

import gc

from vcot.gcpause import paused_gc


def test_paused_gc_disables_then_freezes_and_restores() -> None:
    assert gc.isenabled()
    try:
        with paused_gc():
            assert not gc.isenabled()
            kept = [[i] for i in range(1000)]
        assert gc.isenabled()
        assert gc.get_freeze_count() >= len(kept)  # what was loaded is out of the collector's reach
        # A caller that had the collector off keeps it off, and nothing is frozen for it.
        gc.unfreeze()
        gc.disable()
        with paused_gc():
            pass
        assert not gc.isenabled() and gc.get_freeze_count() == 0
    finally:
        gc.enable()
        gc.unfreeze()


def test_a_new_pause_unfreezes_what_the_last_one_froze(suite_small, tmp_path) -> None:
    from vcot.engine.runner import EvalSpec, run_eval

    try:
        result = run_eval(EvalSpec(suite=suite_small, model="chance", conditions=["direct"], run_dir=tmp_path / "r"))
        assert result.progress.done == 12
        assert gc.isenabled() and gc.get_freeze_count() > 0  # the run's loading stays frozen until ...
        with paused_gc():
            assert gc.get_freeze_count() == 0  # ... the next load, which can collect it again
    finally:
        gc.unfreeze()
