"""Scoring a step judge against exact labels (issue 46; docs/process.md, "Scoring a judge").

A judge's verdict on a labelled trajectory is the step it names as the first wrong one (None: every step is
right) and, for a per-step protocol, a verdict per step ("correct" or "incorrect"). `score` measures verdicts
against the labels:

- step level, over the steps up to and including the first error (a step after an error has no right answer:
  its premise is already wrong): precision and recall of "incorrect";
- first-error localisation: the share of trajectories whose named first wrong step is the true one (None for
  a correct trajectory), overall and by error type, task and the first error's position;
- every figure with its Wilson 95 % interval and its count.

`baselines` gives what judge-free policies score on the same set: always "all correct", always "step 1", and a
seeded random step (or none). A judge is worth reading only where it beats them. A reply that names no step
(no answer, an engine error, a number out of range) is a `Verdict` with `given=False`: wrong at localisation,
silent on every step, and counted (`JudgeScores.no_verdict`). Putting a labelled set to a judge model is
`vcot judge-process` (`vcot.process.judged` reads its replies into verdicts).

Anything with `uid`, `task`, `kind`, `labels` and `first_error` can be scored: a `LabelledTrajectory`, or a
`vcot.process.judged.JudgedItem` read back from a results row.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from vcot.analysis.metrics import wilson
from vcot.seeding import derive_seed


class Labelled(Protocol):
    """What scoring reads of a labelled trajectory."""

    @property
    def uid(self) -> str: ...
    @property
    def task(self) -> str: ...
    @property
    def kind(self) -> str: ...
    @property
    def labels(self) -> list[str]: ...
    @property
    def first_error(self) -> int | None: ...


@dataclass(frozen=True)
class Verdict:
    """A judge's reading of one trajectory: its first wrong step (1-based, None: none) and, optionally, a
    verdict per step ("correct" / "incorrect"; None where the judge gave none). `given=False`: the judge named
    no step at all (no answer, an error, a number that is no step). With per-step verdicts and no
    `first_error`, the first step called incorrect is the one named, unless `stated`: the judge said itself
    that no step is wrong (its answer, which localisation then reads, as the grader does)."""

    first_error: int | None
    steps: tuple[str | None, ...] | None = None
    given: bool = True
    stated: bool = False


@dataclass(frozen=True)
class Rate:
    k: int
    n: int

    @property
    def value(self) -> float:
        return self.k / self.n if self.n else math.nan

    @property
    def interval(self) -> tuple[float, float]:
        return wilson(self.k, self.n)

    def __str__(self) -> str:
        if not self.n:
            return "— (n = 0)"
        lo, hi = self.interval
        return f"{100 * self.value:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}] (n = {self.n})"


@dataclass
class JudgeScores:
    precision: Rate  # of the steps called incorrect, how many are the first error
    recall: Rate  # of the first errors, how many were called incorrect
    localisation: Rate  # trajectories whose first wrong step was named exactly
    by_kind: dict[str, Rate] = field(default_factory=dict)
    by_task: dict[str, Rate] = field(default_factory=dict)
    by_position: dict[str, Rate] = field(default_factory=dict)  # first error's position: "1", "2", …, "none"
    no_verdict: int = 0  # trajectories the judge named no step for (counted wrong at localisation)

    def rows(self) -> list[list[str]]:
        """Printable rows: (figure, value)."""
        out = [
            ["step precision of 'incorrect'", str(self.precision)],
            ["step recall of 'incorrect'", str(self.recall)],
            ["first-error localisation", str(self.localisation)],
            ["replies naming no step (wrong)", str(self.no_verdict)],
        ]
        for name, group in (("kind", self.by_kind), ("task", self.by_task), ("first error at", self.by_position)):
            out += [[f"localisation, {name} {key}", str(rate)] for key, rate in group.items()]
        return out


def _steps(verdict: Verdict, n: int) -> list[str | None]:
    if not verdict.given:
        return [None] * n
    if verdict.steps is not None:
        return list(verdict.steps)[:n] + [None] * max(0, n - len(verdict.steps))
    # A first-error verdict implies its per-step reading: right before it, wrong at it, nothing said after.
    k = verdict.first_error
    return ["correct" if k is None or i + 1 < k else "incorrect" if i + 1 == k else None for i in range(n)]


def score(trajectories: Sequence[Labelled], verdicts: Sequence[Verdict]) -> JudgeScores:
    """The judge's scores on the labelled set (module docstring)."""
    if len(trajectories) != len(verdicts):
        raise ValueError(f"{len(verdicts)} verdicts for {len(trajectories)} trajectories")
    called = hits = positives = found = 0
    local: dict[str, dict[str, list[bool]]] = {"kind": {}, "task": {}, "position": {}}
    right_total = missing = 0
    for x, v in zip(trajectories, verdicts, strict=True):
        truth = x.first_error
        labels = x.labels
        upto = truth if truth is not None else len(labels)
        said = _steps(v, len(labels))
        for i in range(upto):
            wrong_here = labels[i] == "incorrect"
            if said[i] == "incorrect":
                called += 1
                hits += wrong_here
            if wrong_here:
                positives += 1
                found += said[i] == "incorrect"
        named = (
            v.first_error
            if v.first_error is not None or v.steps is None or v.stated
            else next((i + 1 for i, s in enumerate(said) if s == "incorrect"), None)
        )
        right = v.given and named == truth
        missing += not v.given
        right_total += right
        for group, key in (("kind", x.kind), ("task", x.task), ("position", str(truth) if truth else "none")):
            local[group].setdefault(key, []).append(right)

    def rates(group: str) -> dict[str, Rate]:
        return {k: Rate(sum(v), len(v)) for k, v in sorted(local[group].items())}

    return JudgeScores(
        Rate(hits, called),
        Rate(found, positives),
        Rate(right_total, len(trajectories)),
        rates("kind"),
        rates("task"),
        rates("position"),
        missing,
    )


def _random_verdict(x: Labelled, seed: int) -> Verdict:
    rng = random.Random(derive_seed("vcot.process.random-judge", seed, x.uid))
    k = rng.randrange(len(x.labels) + 1)
    return Verdict(k or None)


BASELINES: dict[str, Callable[[Labelled, int], Verdict]] = {
    "always correct": lambda x, seed: Verdict(None),
    "always step 1": lambda x, seed: Verdict(1),
    "random step or none": _random_verdict,
}


def baselines(trajectories: Sequence[Labelled], seed: int = 0) -> dict[str, JudgeScores]:
    """What each judge-free policy scores on the set."""
    return {name: score(trajectories, [policy(x, seed) for x in trajectories]) for name, policy in BASELINES.items()}


def scripted_verdicts(
    trajectories: Sequence[Labelled],
    right: float,
    seed: int = 0,
    mistake: Callable[[Labelled, random.Random], Verdict] | None = None,
) -> list[Verdict]:
    """A judge right on a share `right` of the trajectories (seeded), and wrong otherwise (`mistake`, default:
    another step or none, uniformly): the known-accuracy judge the scores are checked with."""
    out = []
    for x in trajectories:
        rng = random.Random(derive_seed("vcot.process.scripted-judge", seed, x.uid))
        if rng.random() < right:
            out.append(Verdict(x.first_error))
            continue
        if mistake is not None:
            out.append(mistake(x, rng))
            continue
        choices = [k for k in [None, *range(1, len(x.labels) + 1)] if k != x.first_error]
        out.append(Verdict(rng.choice(choices)))
    return out


def summary(scores: Mapping[str, JudgeScores]) -> list[list[Any]]:
    """One row per judge: localisation, precision and recall with intervals (for a table)."""
    return [[name, str(s.localisation), str(s.precision), str(s.recall)] for name, s in scores.items()]
