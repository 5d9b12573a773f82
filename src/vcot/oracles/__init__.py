"""Independent oracles: a second way to answer every task, sharing no solving code with its generator.

`vcot validate --oracle` re-answers every instance with its task's oracle and reports disagreements; the
generator contract compares `solve` with the oracle, so a mutated solver fails even though re-solving with
the solver itself would agree. One module per task, `vcot/oracles/<task>.py`, defines

    def answer(scene: dict, params: dict) -> str

from the scene stored in `meta["scene"]` and the generator's parameters (`meta["generator"]["params"]`),
by brute force, simulation, a different algorithm or pixels. An oracle module may import vcot's schema,
drawing layer and third-party libraries, but nothing from `vcot.tasks` beyond `vcot.tasks.catalog` — that is
what makes it independent (checked by `tests/oracles/test_independence.py`).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from vcot.tasks.catalog import MIRA_TASKS

Oracle = Callable[[dict[str, Any], dict[str, Any]], str]


class NoOracle(LookupError):
    """The task has no oracle module."""


def get_oracle(task: str) -> Oracle:
    # The name becomes a module path inside this package: a plain identifier, never a private module. Beyond
    # MIRA's tasks, any task with a module here has an oracle (the scene3d tasks do).
    if task not in MIRA_TASKS and (not task.isidentifier() or task.startswith("_")):
        raise NoOracle(f"no oracle for task {task!r}")
    try:
        module = importlib.import_module(f"vcot.oracles.{task}")
    except ModuleNotFoundError as exc:
        if exc.name == f"vcot.oracles.{task}":
            raise NoOracle(f"no oracle for task {task!r} yet") from None
        raise
    return module.answer
