"""Dense process rewards from the solver's states (issue 46, "Dense rewards"; docs/rl.md, "Dense rewards").

A reward per step answer, judge-free, in the manner of a process reward model (PRM): the `<stepK>` answers of
a reply are graded against the solver's state after step K (`vcot.probes`, graded as `state_probe` runs are:
`vcot.scoring.probes`), and the rewards follow the first-error semantics of the exact labels of
`vcot.process.labelled`:

- step k earns `+1 / K` (K the number of probes) when its answer is right and every earlier step's is too
  (label `correct`);
- the first wrong or missing step earns `wrong / K` (label `incorrect`; `wrong` is -1.0 by default, may be 0);
- every later step earns 0 (label `after_error`): its premise is wrong, so it is neither paid nor blamed.

A fully right reply therefore totals 1.0, the scale of the final-answer reward (`vcot.rl.reward`), and the
lowest total is `wrong / K`. This differs from `vcot.rl.step_rewards`, which pays every right step on its own:
a right step 3 after a wrong step 2 earns a step reward but no dense reward.

- `dense_rewards(completion, problem, *, wrong=-1.0)`: one number per probe for one completion ([] for a task
  without probes); `vcot.rl.rewards.dense_reward` is their sum, a per-completion reward like `step_reward`.
- `dense_turn_rewards(replies, problem, *, wrong=-1.0, ended=True)`: one number per reply of a multi-turn
  episode. A step is graded by its first statement (restating it pays nothing; a later reply that changes it
  changes nothing, so neither a correction nor a retraction is paid) and paid at the turn from which its reward
  is known: where its tag and all earlier steps' tags have been stated. Steps never stated are settled at the
  episode's end. `episode_dense_rewards` gives the per-step rewards of such an episode; `VcotEnv`'s
  `dense_weight` pays `dense_turn_rewards` turn by turn.
- `first_error_rewards(correct)`: the rewards of given per-step verdicts; `label_rewards(labels)` those the
  exact labels of a labelled trajectory stand for.

Drawing actions earn nothing here. A drawing is not a state: no solver state says which line, mark or crop a
step should have drawn, so there is no per-action ground truth to grade against, and none is invented. What
pays a multi-turn (VAoT) episode densely is the per-turn form.

Completions are untrusted: every function here returns numbers and never raises on a completion, with the
size and tag-flood limits of `vcot.rl.rewards` (a refused completion states no step). The functions live in
`vcot.rl.rewards`, since the environment pays them and vcot.process builds on vcot.rl, not the reverse.
"""

from __future__ import annotations

from collections.abc import Sequence

from vcot.process.labelled import LABELS
from vcot.rl.rewards import (
    dense_reward,
    dense_rewards,
    dense_turn_rewards,
    episode_dense_rewards,
    first_error_rewards,
)

__all__ = [
    "dense_reward",
    "dense_rewards",
    "dense_turn_rewards",
    "episode_dense_rewards",
    "first_error_rewards",
    "label_rewards",
]


def label_rewards(labels: Sequence[str], *, wrong: float = -1.0) -> list[float]:
    """The dense rewards exact step labels stand for (`correct` 1/K, `incorrect` wrong/K, `after_error` 0):
    what a trajectory of `vcot.process.labelled` earns when its steps are graded like a reply's."""
    unknown = sorted({label for label in labels if label not in LABELS})
    if unknown:
        raise ValueError(f"unknown step labels {unknown}; labels are {', '.join(LABELS)}")
    first_error_rewards([True] * len(labels), wrong=wrong)  # validates `wrong`
    n = len(labels)
    value = {"correct": 1.0 / n if n else 0.0, "incorrect": wrong / n if n else 0.0, "after_error": 0.0}
    return [value[label] for label in labels]
