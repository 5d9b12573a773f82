"""Which trajectories annotators see, and the opaque keys their pages are addressed by."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence

from vcot.engine.trajectories import Trajectory


def sample_trajectories(trajectories: Sequence[Trajectory], n: int, seed: int = 0) -> list[Trajectory]:
    """Pick `n` trajectories deterministically, balanced across conditions where the data allows.

    Each condition's trajectories are shuffled by the seed and drawn round-robin, so conditions get equal
    shares until one runs out and the rest is filled from the others. Input order does not matter (ids are
    sorted first). The result is shuffled once more so that annotators do not see conditions in blocks.
    """
    if n <= 0:
        return []
    rng = random.Random(seed)
    by_cond: dict[str, list[Trajectory]] = {}
    for t in sorted(trajectories, key=lambda t: t.trajectory_id):
        by_cond.setdefault(t.condition, []).append(t)
    queues = []
    for cond in sorted(by_cond):
        items = by_cond[cond][:]
        rng.shuffle(items)
        queues.append(items)
    picked: list[Trajectory] = []
    while len(picked) < n and any(queues):
        for q in queues:
            if q and len(picked) < n:
                picked.append(q.pop(0))
    rng.shuffle(picked)
    return picked


def item_key(trajectory_id: str) -> str:
    """Opaque URL key: the id itself would reveal model and condition to the annotator."""
    return hashlib.sha256(trajectory_id.encode("utf-8")).hexdigest()[:16]
