"""Reinforcement-learning support (docs/rl.md): problem streams, rewards from vcot's grader, step rewards
from the solver's states, an adaptive curriculum and the VAoT drawing loop.

The core imports no torch, transformers, trl or verl; the adapters `vcot.rl.trl` and `vcot.rl.verl` do. Names
load lazily, so `import vcot.rl` costs nothing until one is used.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "Problem": "problems",
    "problem_from_row": "problems",
    "make_problem": "problems",
    "CONDITIONS": "problems",
    "stream": "streams",
    "ProblemStream": "streams",
    "Capacity": "streams",
    "ExclusionError": "streams",
    "excluded_keys": "streams",
    "reward": "rewards",
    "reward_details": "rewards",
    "RewardDetails": "rewards",
    "format_reward": "rewards",
    "step_rewards": "rewards",
    "step_reward": "rewards",
    "completion_text": "rewards",
    "dense_rewards": "rewards",
    "dense_reward": "rewards",
    "dense_turn_rewards": "rewards",
    "episode_dense_rewards": "rewards",
    "first_error_rewards": "rewards",
    "Curriculum": "curriculum",
    "VcotEnv": "env",
    "trainable_conditions": "problems",
}
# Names that live outside vcot.rl (the one drawing session is evaluation's: vcot.vaot.session).
_ELSEWHERE = {"DrawingSession": "vcot.vaot.session"}

__all__ = sorted({*_EXPORTS, *_ELSEWHERE})


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is not None:
        module = f"vcot.rl.{module}"
    else:
        module = _ELSEWHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'vcot.rl' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
