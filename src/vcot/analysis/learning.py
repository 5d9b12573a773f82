"""Did it learn? The paired before/after comparison of two models on one suite (docs/rl.md, "Did it learn?").

`vcot report runs/before runs/after --suite SUITE` puts two runs of one held-out suite side by side. For each
pair of models in the order their runs were given (before, after) and each condition both ran, over the
problems both answered:

- the paired difference after − before in points, with a paired-bootstrap 95 % interval over problems, and
  the sign test (McNemar's test with one epoch);
- the chance level (the mean of each problem's chance) and the best constant answer: per task, the accuracy
  of always giving the gold answer that is most frequent among these very problems (for a choice question,
  the most frequent letter). It is chosen in hindsight, so no policy that ignores the picture and the question
  beyond its task can do better on these problems: the strongest prior-only baseline;
- a verdict in words: whether the gain's interval excludes 0, and whether "after" beats the best constant.

A model that learned only the answer prior reaches the best constant and stops there; a gain that does not
clear it shows nothing about seeing.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Hashable, Sequence
from typing import Any

from vcot.analysis.metrics import mcnemar, paired_bootstrap
from vcot.analysis.tables import Table, is_baseline
from vcot.analysis.units import Sample, pair_key

MIN_PROBLEMS = 10  # below this many shared problems the verdict says the comparison is too small to read


def _gold_by_unit(rows: Sequence[dict[str, Any]], instances: dict | None = None) -> dict[tuple[str, str], Hashable]:
    """(task, unit) → the canonical gold answer (a tuple over a paired problem's rows)."""
    from vcot.scoring.grade import canonical
    from vcot.scoring.score import parse_options

    members: dict[tuple[str, str], dict[str, Hashable]] = {}
    for r in rows:
        opts = parse_options(r.get("options"))
        gold = str(r["gold"])
        value = canonical(gold, r["answer_type"], opts, gold)
        unit = pair_key(r, (instances or {}).get(str(r["uid"])))  # the unit `to_samples` gives the row
        members.setdefault((str(r.get("task", "")), unit), {})[str(r["uid"])] = value if value is not None else gold
    return {k: v[next(iter(v))] if len(v) == 1 else tuple(v[u] for u in sorted(v)) for k, v in members.items()}


def _best_constant(units: Sequence[tuple[str, str]], gold: dict[tuple[str, str], Hashable]) -> float:
    by_task: dict[str, Counter[Hashable]] = {}
    for task, unit in units:
        by_task.setdefault(task, Counter())[gold.get((task, unit))] += 1
    return sum(c.most_common(1)[0][1] for c in by_task.values()) / max(1, len(units))


def _models_in_order(samples: Sequence[Sample]) -> list[str]:
    seen: dict[str, None] = {}
    for s in samples:
        if not is_baseline(s.model):
            seen.setdefault(s.model, None)
    return list(seen)


def _verdict(n: int, lo: float, hi: float, after: float, best: float, chance: float) -> tuple[str, str, str]:
    """(gain cell, beats-best-constant cell, the verdict in words)."""
    if n < MIN_PROBLEMS:
        return "—", "—", f"too few problems ({n} < {MIN_PROBLEMS}) to read"
    if lo > 0:
        gain, words = "yes", "gain: the interval excludes 0"
    elif hi < 0:
        gain, words = "loss", "loss: the interval excludes 0"
    else:
        gain, words = "not shown", "no change shown: the interval contains 0"
    beats = after > best
    words += (
        f"; after beats the best constant answer ({100 * best:.1f}%)"
        if beats
        else f"; after does not beat the best constant answer ({100 * best:.1f}%)"
    )
    if not math.isnan(chance) and after <= chance:
        words += ", nor chance"
    return gain, "yes" if beats else "no", words


def before_after(
    samples: Sequence[Sample], rows: Sequence[dict[str, Any]], instances: dict | None = None, n_boot: int = 2000
) -> Table | None:
    """The before/after table (module docstring); None with fewer than two models (baselines aside)."""
    models = _models_in_order(samples)
    if len(models) < 2:
        return None
    gold = _gold_by_unit(rows, instances)
    t = Table(
        "Before and after: paired over problems",
        [
            "before → after",
            "condition",
            "n",
            "before %",
            "after %",
            "Δ pts [95% bootstrap]",
            "sign test p",
            "chance %",
            "best constant %",
            "gain?",
            "beats best constant?",
        ],
    )
    verdicts: list[str] = []
    for before, after in zip(models, models[1:], strict=False):
        conds = [
            c
            for c in dict.fromkeys(s.condition for s in samples if s.model == before)
            if any(s.model == after and s.condition == c for s in samples)
        ]
        for cond in conds:
            per: dict[str, dict[tuple[str, str], list[float]]] = {before: {}, after: {}}
            chance: dict[tuple[str, str], float] = {}
            for s in samples:
                if s.condition == cond and s.model in per:
                    per[s.model].setdefault((s.task, s.unit), []).append(float(s.correct))
                    chance[(s.task, s.unit)] = s.chance
            units = sorted(set(per[before]) & set(per[after]))
            if not units:
                continue
            a = [sum(per[before][u]) / len(per[before][u]) for u in units]
            b = [sum(per[after][u]) / len(per[after][u]) for u in units]
            delta, lo, hi = paired_bootstrap(a, b, n_boot=n_boot)
            test = mcnemar(sum(x > y for x, y in zip(a, b, strict=True)), sum(y > x for x, y in zip(a, b, strict=True)))
            chances = [chance[u] for u in units if not math.isnan(chance[u])]
            level = sum(chances) / len(chances) if chances else math.nan
            best = _best_constant(units, gold)
            acc_after = sum(b) / len(b)
            gain, beats, words = _verdict(len(units), lo, hi, acc_after, best, level)
            t.rows.append(
                [
                    f"{before} → {after}",
                    cond,
                    len(units),
                    f"{100 * sum(a) / len(a):.1f}",
                    f"{100 * acc_after:.1f}",
                    f"{100 * delta:+.1f} [{100 * lo:+.1f}, {100 * hi:+.1f}]",
                    f"{test.p_value:.3g}",
                    "—" if math.isnan(level) else f"{100 * level:.1f}",
                    f"{100 * best:.1f}",
                    gain,
                    beats,
                ]
            )
            verdicts.append(f"{before} → {after}, {cond}: {words}.")
    if not t.rows:
        return None
    t.note = (
        " ".join(verdicts) + " — Models in the order their runs were given. n: problems both runs answered "
        "(accuracy: mean over epochs). Best constant: per task, always answering the gold answer most "
        "frequent among these problems, chosen in hindsight: the strongest policy that reads neither "
        "picture nor question. A gain that does not beat it may be the answer prior alone."
    )
    return t
