"""The one list of conditions: each is registered once, with everything other parts derive from it.

Run defaults, table columns and their order, the MIRA Table-1 columns, short labels and the paired
comparisons the report tests are all read from here, so adding a condition is one `register` call
(`docs/design.md`, "A new condition").
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from vcot.conditions.episode import Episode
from vcot.images import ImageSource
from vcot.schema import JUDGE_META, Instance

EpisodeFactory = Callable[[Instance, str, int, ImageSource], Episode]
ServeCheck = Callable[[Instance], "str | None"]
TaskCheck = Callable[[str], "str | None"]
# How a condition can be trained on (vcot.rl): one prompt and one reply, or an episode of several turns.
TRAINABLE_KINDS = ("single_turn", "episode")
# A step-judging instance (vcot.process.judge_suite) keeps its trajectory's labels in meta[JUDGE_META]: its
# answer is the number of the first wrong step, which only the judging conditions ask for.
# The judging conditions (vcot.conditions.process_judge), named here for the refusal every other one gives.
JUDGE_CONDITIONS = ("judge_first_error", "judge_steps")


def is_judge_instance(instance: Instance) -> bool:
    return JUDGE_META in instance.meta


class ConditionError(ValueError):
    """A condition is unknown or cannot be served for an instance."""


@dataclass(frozen=True)
class Condition:
    """One evaluation condition.

    `make_episode(instance, name, epoch, images)` builds the conversation; `unservable(instance)` says why
    the condition cannot be built for an instance (None when it can). `default` conditions run when a user
    names none. `compare_with` lists the baselines the report tests this condition against (paired).
    `short` labels the MIRA-table columns; `mira_table1` marks the columns of MIRA's Table 1.
    `trainable`: "single_turn" or "episode" when the training side (`vcot.rl`) can pose it, None when not.
    `task_check(task)` says why no instance of a task can be served (None when some can). `offered_by` names
    the other parts that offer the condition: "harness" (the lmms-eval and VLMEvalKit exports), "human" (the
    human-baseline study; `human_instruction` is then what the study page tells a participant). `reads_steps`: its
    prompt shows the solver's step texts or pictures (a training
    problem then renders them).
    `judges_process`: it asks a judge about a labelled trajectory; it serves step-judging instances only, and
    every other condition serves every instance but those (`why_not`).
    """

    name: str
    make_episode: EpisodeFactory
    unservable: ServeCheck
    description: str
    default: bool = True
    compare_with: tuple[str, ...] = ()
    short: str = ""
    mira_table1: bool = False
    trainable: str | None = None
    task_check: TaskCheck | None = None
    offered_by: frozenset[str] = frozenset()
    reads_steps: bool = False
    human_instruction: str = ""
    judges_process: bool = False

    def why_not(self, instance: Instance) -> str | None:
        """Why this condition cannot be built for `instance` (None when it can)."""
        if is_judge_instance(instance) != self.judges_process:
            return (
                f"it is a step-judging instance: only the judging conditions ({', '.join(JUDGE_CONDITIONS)}) serve it"
                if not self.judges_process
                else "it is no step-judging instance (vcot judge-process make writes those)"
            )
        return self.unservable(instance)

    def __post_init__(self) -> None:
        if self.trainable is not None and self.trainable not in TRAINABLE_KINDS:
            raise ValueError(f"condition {self.name}: trainable must be None or one of {TRAINABLE_KINDS}")


class Registry:
    def __init__(self) -> None:
        self._items: dict[str, Condition] = {}
        # Parameterised conditions (e.g. visual_cot_prefix_k2): registered the first time their name is asked.
        self._families: list[tuple[re.Pattern[str], Callable[[re.Match[str]], Condition]]] = []
        self._family_labels: list[str] = []

    def add_family(self, pattern: str, make: Callable[[re.Match[str]], Condition], label: str = "") -> None:
        """Names matching `pattern` (a regular expression, whole name) are conditions made by `make`; `label`
        names the family where known conditions are listed (e.g. "visual_cot_prefix_kN (the first N steps)")."""
        self._families.append((re.compile(pattern), make))
        if label:
            self._family_labels.append(label)

    def known(self, name: str) -> bool:
        """Whether `name` is a condition, registering it if it belongs to a family."""
        if name in self._items:
            return True
        for pattern, make in self._families:
            match = pattern.fullmatch(name)
            if match:
                self.register(make(match))
                return True
        return False

    def register(self, condition: Condition) -> Condition:
        """Add (or, for tests and plug-ins, replace) a condition; registration order is display order."""
        self._items[condition.name] = condition
        return condition

    def get(self, name: str) -> Condition:
        self.known(name)
        try:
            return self._items[name]
        except KeyError:
            raise ConditionError(self.unknown_message([name])) from None

    def names(self) -> list[str]:
        return list(self._items)

    def unknown_message(self, names: Sequence[str]) -> str:
        """What to say of condition names that are not conditions: a close known name for a typo, then the
        list (families such as visual_cot_prefix_kN by their pattern)."""
        from vcot.suggest import did_you_mean

        hint = did_you_mean(names, self._items)
        families = "".join(f" and {label}" for label in self._family_labels)
        return f"unknown condition(s) {', '.join(names)}{hint or ';'} known: {', '.join(self._items)}{families}"

    def defaults(self, instances: Sequence[Instance] = ()) -> list[str]:
        """The conditions a run uses when none is named: for a step-judging suite, the judging ones."""
        if any(is_judge_instance(i) for i in instances):
            return self.judging()
        return [c.name for c in self._items.values() if c.default]

    def judging(self) -> list[str]:
        return [c.name for c in self._items.values() if c.judges_process]

    def mira_table1(self) -> list[str]:
        return [c.name for c in self._items.values() if c.mira_table1]

    def trainable(self, kind: str | None = None) -> list[str]:
        """The conditions training can pose (of one kind, "single_turn" or "episode", when given)."""
        return [
            c.name for c in self._items.values() if c.trainable is not None and (kind is None or c.trainable == kind)
        ]

    def offered_by(self, part: str) -> list[str]:
        """The conditions another part offers ("harness", "human"), in registration order."""
        return [c.name for c in self._items.values() if part in c.offered_by]

    def task_unservable(self, task: str, name: str) -> str | None:
        """Why condition `name` cannot be posed for any instance of `task` (None when it can)."""
        cond = self.get(name)
        return cond.task_check(task) if cond.task_check is not None else None

    def untrainable_reason(self, name: str, task: str | None = None) -> str | None:
        """Why training cannot pose condition `name` (for `task`, when given); None when it can."""
        if not self.known(name):
            return self.unknown_message([name])
        cond = self._items[name]
        if cond.trainable is None:
            return f"condition {name!r} is for evaluation only; trainable conditions: {', '.join(self.trainable())}"
        return self.task_unservable(task, name) if task is not None else None

    def short_labels(self) -> dict[str, str]:
        return {c.name: c.short for c in self._items.values() if c.short}

    def paired_comparisons(self) -> list[tuple[str, str]]:
        """(baseline, treatment) pairs, in registration order of the treatment."""
        return [(base, c.name) for c in self._items.values() for base in c.compare_with]

    def unservable(self, instance: Instance, name: str) -> str | None:
        self.known(name)
        cond = self._items.get(name)
        if cond is None:
            return self.unknown_message([name])
        return cond.why_not(instance)

    def make_episode(self, instance: Instance, name: str, epoch: int, images: ImageSource) -> Episode:
        return self.get(name).make_episode(instance, name, epoch, images)
