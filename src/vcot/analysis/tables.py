"""The report's tables (docs/scoring.md), built from samples: MIRA Table-1 and Table-2 layouts, per-task tables,
relative gains,
pass@k and majority vote, paired condition tests, extraction tiers. Every accuracy carries its Wilson 95%
interval and the chance level of the same items.

Accuracy of a cell is the mean over its samples. With several epochs the interval uses the number of
distinct problems as n, because samples of one problem are not independent trials.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from vcot.analysis.metrics import (
    majority_vote,
    mcnemar,
    paired_bootstrap,
    pass_at_k,
    relative_gain_bootstrap,
    wilson,
)
from vcot.analysis.units import Sample
from vcot.conditions import REGISTRY

DOMAINS = ("EG", "PBR", "ASLP", "CT")
# Columns, their order, MIRA's Table-1 conditions, short labels and the paired tests come from the one
# condition registry, so a new condition appears in every table without edits here.
CONDITIONS = tuple(REGISTRY.names())
MIRA_CONDITIONS = tuple(REGISTRY.mira_table1())
SHORT = REGISTRY.short_labels()
# Condition deltas worth a paired test, each (baseline, treatment); only pairs present in the data are run.
PAIRED_COMPARISONS = tuple(REGISTRY.paired_comparisons())
PASS_KS = (1, 2, 4, 8)
# References rather than models: the offline `chance` model (`vcot.engine.clients.chance`) and the rows of a
# human study reported as a run (`vcot.human.export.HUMAN_MODEL`; named here, since human imports analysis).
# An average "over models" that took them in said less about models the more baselines a report held.
BASELINE_MODELS = frozenset({"chance", "human"})
# A relative gain divides by the base accuracy, so on a few problems it swings by hundreds of percent (one
# more right answer on 9 items turned +100% into +200%): below this many paired problems it is left out.
MIN_GAIN_N = 30
SMALL_N_MARK = "†"


@dataclass(frozen=True, slots=True)
class Cell:
    """An accuracy with its interval and chance level; renderers decide how much of it to show."""

    acc: float
    lo: float
    hi: float
    n: int  # distinct problems
    samples: int
    chance: float
    errors: int = 0
    timeouts: int = 0
    truncated: int = 0
    answered_acc: float = math.nan  # over samples with no error, timeout or truncation

    def pct(self) -> str:
        return "—" if math.isnan(self.acc) else f"{100 * self.acc:.1f}"

    def failures(self) -> str:
        """The engine failures behind the accuracy, e.g. "2 err, 1 timeout, 3 trunc" ("" when none)."""
        parts = [
            f"{v} {k}" for v, k in ((self.errors, "err"), (self.timeouts, "timeout"), (self.truncated, "trunc")) if v
        ]
        return ", ".join(parts)

    def full(self) -> str:
        if math.isnan(self.acc):
            return "—"
        text = f"{100 * self.acc:.1f} [{100 * self.lo:.1f}, {100 * self.hi:.1f}]"
        return f"{text} ({self.failures()})" if self.failures() else text


@dataclass
class Table:
    title: str
    header: list[str]
    rows: list[list[Any]] = field(default_factory=list)  # str | float | Cell | None
    note: str = ""
    # False for rows that hold no finding yet (no pair with a corruption, every failure unattributed): the
    # report keeps such a table, which says what was not measured; a terminal leaves it out.
    informative: bool = True


def cell(samples: Sequence[Sample]) -> Cell:
    """Accuracy over all samples: engine errors, timeouts and truncations count as wrong (shown beside it)."""
    if not samples:
        return Cell(math.nan, math.nan, math.nan, 0, 0, math.nan)
    acc = sum(s.correct for s in samples) / len(samples)
    chances: dict[str, float] = {}
    for s in samples:
        chances[s.unit] = s.chance
    n = len(chances)
    lo, hi = wilson(acc * n, n)
    answered = [s for s in samples if not (s.errors or s.timeouts or s.truncated)]
    answered_acc = sum(s.correct for s in answered) / len(answered) if answered else math.nan
    return Cell(
        acc,
        lo,
        hi,
        n,
        len(samples),
        sum(chances.values()) / n,
        sum(s.errors for s in samples),
        sum(s.timeouts for s in samples),
        sum(s.truncated for s in samples),
        answered_acc,
    )


def group(samples: Iterable[Sample], key: Callable[[Sample], Any]) -> dict[Any, list[Sample]]:
    out: dict[Any, list[Sample]] = {}
    for s in samples:
        out.setdefault(key(s), []).append(s)
    return out


def ordered(values: Iterable[str], preferred: Sequence[str]) -> list[str]:
    vals = set(values)
    return [v for v in preferred if v in vals] + sorted(vals - set(preferred))


def _pct(x: float) -> str:
    return "—" if x is None or math.isnan(x) else f"{100 * x:+.1f}%"


def condition_overview(samples: list[Sample]) -> Table:
    """Every model × every condition present, overall accuracy, with the chance level of the items."""
    conds = ordered({s.condition for s in samples}, CONDITIONS)
    t = Table("Accuracy by condition (%, Wilson 95% interval)", ["model", *conds, "chance"])
    by_model = group(samples, lambda s: s.model)
    for model in sorted(by_model, key=model_order):
        by_cond = group(by_model[model], lambda s: s.condition)
        t.rows.append([model, *[cell(by_cond.get(c, [])) for c in conds], cell(by_model[model]).chance])
    return t


def condition_cells(samples: list[Sample]) -> dict[tuple[str, str], Cell]:
    """(model, condition) → accuracy cell, in model then registry order."""
    return {
        key: cell(ss)
        for key, ss in sorted(
            group(samples, lambda s: (s.model, s.condition)).items(),
            key=lambda kv: (model_order(kv[0][0]), _cond_order(kv[0][1])),
        )
    }


def run_summary(samples: list[Sample]) -> Table:
    """The headline accounting, printed by `vcot eval` and `vcot report` alike: per model and condition, the
    problems scored, accuracy with its interval, accuracy over answered samples, the chance level and the
    engine's failures."""
    cells = condition_cells(samples)
    models = {m for m, _ in cells}
    epochs = any(c.samples != c.n for c in cells.values())
    header = [
        *(["model"] if len(models) > 1 else []),
        "condition",
        "problems",
        *(["samples"] if epochs else []),
        "accuracy % [95% CI]",
        "over answered %",
        "chance %",
        "errors",
        "timeouts",
        "truncated",
    ]
    t = Table(
        "Accuracy by condition" + ("" if len(models) > 1 else f": {next(iter(models), '')}"),
        header,
        note="A problem is one instance (both rows of a paired gear_rotation problem count as one, right "
        "only when both are). Accuracy counts errors, timeouts and truncated responses as wrong; "
        "'over answered' leaves them out. Errors: samples the engine gave up on or the provider "
        "rejected; truncated: responses cut off by the token limit, graded only from a complete "
        "answer tag.",
    )
    for (model, cond), c in cells.items():
        t.rows.append(
            [
                *([model] if len(models) > 1 else []),
                cond,
                c.n,
                *([c.samples] if epochs else []),
                f"{100 * c.acc:.1f} [{100 * c.lo:.1f}, {100 * c.hi:.1f}]",
                "—" if math.isnan(c.answered_acc) else f"{100 * c.answered_acc:.1f}",
                "—" if math.isnan(c.chance) else f"{100 * c.chance:.1f}",
                c.errors,
                c.timeouts,
                c.truncated,
            ]
        )
    return t


def compact_summary(samples: list[Sample]) -> Table:
    """`run_summary` for a terminal (the report keeps the full table): per model and condition the problems,
    accuracy with its interval, the chance level and the engine's errors (timeouts among them). Columns that
    would only repeat something are left out: the accuracy over answered samples and the truncated count
    appear only when some sample failed or was truncated."""
    cells = condition_cells(samples)
    models = {m for m, _ in cells}
    epochs = any(c.samples != c.n for c in cells.values())
    failed = any(c.errors or c.timeouts or c.truncated for c in cells.values())
    truncated = any(c.truncated for c in cells.values())
    header = [
        *(["model"] if len(models) > 1 else []),
        "condition",
        "problems",
        *(["samples"] if epochs else []),
        "accuracy % [95% CI]",
        *(["over answered %"] if failed else []),
        "chance %",
        "errors",
        *(["truncated"] if truncated else []),
    ]
    t = Table("Accuracy by condition" + ("" if len(models) > 1 else f": {next(iter(models), '')}"), header)
    for (model, cond), c in cells.items():
        answered = ["—" if math.isnan(c.answered_acc) else f"{100 * c.answered_acc:.1f}"] if failed else []
        t.rows.append(
            [
                *([model] if len(models) > 1 else []),
                cond,
                c.n,
                *([c.samples] if epochs else []),
                f"{100 * c.acc:.1f} [{100 * c.lo:.1f}, {100 * c.hi:.1f}]",
                *answered,
                "—" if math.isnan(c.chance) else f"{100 * c.chance:.1f}",
                c.errors + c.timeouts,
                *([c.truncated] if truncated else []),
            ]
        )
    return t


def is_baseline(model: str) -> bool:
    """True for a built-in baseline (`BASELINE_MODELS`), which cross-model averages leave out."""
    return model in BASELINE_MODELS


def model_order(model: str) -> tuple[bool, str]:
    """Sort key of models in every table and figure: the user's models (by name) before the built-in baselines,
    which a reader compares them with but did not come to see."""
    return is_baseline(model), model


def _baseline_note(models: Iterable[str]) -> str:
    names = sorted({m for m in models if is_baseline(m)})
    return f"built-in baselines ({', '.join(names)})" if names else ""


def _paired_scores(samples: Sequence[Sample], base: str, treat: str) -> tuple[list[float], list[float]]:
    """Per problem run under both conditions, its accuracy (mean over epochs) under each: the unit of every
    paired statistic is the problem."""
    units: dict[str, dict[str, list[float]]] = {}
    for s in samples:
        if s.condition in (base, treat):
            units.setdefault(s.unit, {}).setdefault(s.condition, []).append(float(s.correct))
    keys = sorted(k for k, v in units.items() if base in v and treat in v)
    return (
        [sum(units[k][base]) / len(units[k][base]) for k in keys],
        [sum(units[k][treat]) / len(units[k][treat]) for k in keys],
    )


def gain_cell(samples: Sequence[Sample], base: str, treat: str, n_boot: int = 2000) -> tuple[str, float]:
    """MIRA's relative gain of `treat` over `base` with its paired-bootstrap 95% interval over problems, as
    text and as a number; "—" with the small-n mark (NaN) below `MIN_GAIN_N` paired problems."""
    a, b = _paired_scores(samples, base, treat)
    if not a:
        return "—", math.nan
    if len(a) < MIN_GAIN_N:
        return f"—{SMALL_N_MARK}", math.nan
    g, lo, hi = relative_gain_bootstrap(a, b, n_boot=n_boot)
    if math.isnan(g):
        return "—", math.nan
    return f"{100 * g:+.1f}% [{100 * lo:+.1f}, {100 * hi:+.1f}]", g


def _gain_note(n_boot: int) -> str:
    return (
        f"Relative gain: (treatment − base) / base over the problems run under both, with a paired "
        f"bootstrap 95% interval ({n_boot:,} resamples of problems, seeded); {SMALL_N_MARK}: n < {MIN_GAIN_N} "
        f"such problems, too few for a ratio, left out. '—' alone: no such problem, or a base accuracy of 0."
    )


def table1(samples: list[Sample], groups: dict[str, str] | None = None, n_boot: int = 2000) -> Table | None:
    """MIRA Table 1: models as rows, (domain + overall) × {direct, text_cot, visual_cot}, group averages over
    models (built-in baselines left out), and the relative gains of text_cot and visual_cot over direct."""
    data = [s for s in samples if s.condition in MIRA_CONDITIONS]
    if not data:
        return None
    conds = ordered({s.condition for s in data}, MIRA_CONDITIONS)
    domains = ordered({s.domain for s in data}, DOMAINS)
    header = ["model"] + [f"{d} {SHORT[c]}" for d in [*domains, "Overall"] for c in conds]
    gains = [c for c in ("text_cot", "visual_cot") if c in conds and "direct" in conds]
    header += [f"rel. gain {SHORT[c]} vs D" for c in gains]
    t = Table("MIRA Table 1 layout (accuracy %, Wilson 95% interval)", header)
    groups = groups or {}
    by_model = group(data, lambda s: s.model)
    model_rows: dict[str, list[Any]] = {}
    for model in sorted(by_model, key=lambda m: (groups.get(m, ""), model_order(m))):
        ms = by_model[model]
        row: list[Any] = [model]
        for d in [*domains, "Overall"]:
            for c in conds:
                row.append(cell([s for s in ms if s.condition == c and (d == "Overall" or s.domain == d)]))
        row += [gain_cell(ms, "direct", c, n_boot)[0] for c in gains]
        model_rows[model] = row
    notes = [
        "Rows 'avg' average the models of a group (unweighted), built-in baselines (chance, human) left "
        "out; the chance row gives the chance level of the same items."
    ]
    for g in sorted(set(groups.get(m, "models") for m in model_rows)):
        members = [m for m in model_rows if groups.get(m, "models") == g]
        t.rows += [model_rows[m] for m in members]
        real = [m for m in members if not is_baseline(m)]
        if len(real) > 1:
            label = f"avg ({g}, baselines excluded)" if len(real) < len(members) else f"avg ({g})"
            t.rows.append(_average_row(label, [model_rows[m] for m in real], len(gains)))
        elif not real and len(model_rows) == len(members):
            notes.append(f"No average: the table holds only {_baseline_note(members)}, no model.")
    chance_row: list[Any] = ["chance level"]
    for d in [*domains, "Overall"]:
        for c in conds:
            chance_row.append(cell([s for s in data if s.condition == c and (d == "Overall" or s.domain == d)]).chance)
    t.rows.append(chance_row + [""] * len(gains))
    if gains:
        notes.append(_gain_note(n_boot))
    t.note = " ".join(notes)
    return t


def see2think_table(samples: list[Sample]) -> Table | None:
    """See2Think's categories (tasks/see2think_categories.py) as columns, in the order of its three levels, with
    (model, condition) rows: the layout of a See2Think-style suite (`see2think-synth`), whose tasks the MIRA
    domains group otherwise. Shown when a task of the 3D-scene level is in the samples."""
    from vcot.tasks.see2think_categories import CATEGORY_TASKS, LEVELS

    category_of = {t: c for c, tasks in CATEGORY_TASKS.items() for t in tasks}
    data = [s for s in samples if s.task in category_of]
    if not any(category_of[s.task] in LEVELS["3D scene"] for s in data):
        return None
    present = {category_of[s.task] for s in data}
    cats = [c for level in LEVELS.values() for c in level if c in present]
    conds = ordered({s.condition for s in data}, CONDITIONS)
    absent = [c for level in LEVELS.values() for c in level if c not in present]
    missing = ""
    if absent:
        # A category no generator serves (Visual Commonsense: real photographs) comes from curation.
        names = [f"{c}, which needs real photographs: docs/curation.md" if not CATEGORY_TASKS[c] else c for c in absent]
        missing = f"Categories with no problem here have no column ({'; '.join(names)}); "
    t = Table(
        "See2Think categories (accuracy %, Wilson 95% interval)",
        ["model", "condition", *cats, "Overall"],
        note=f"{missing}the chance rows give the chance level of the same items.",
    )
    for model, ms in sorted(group(data, lambda s: s.model).items(), key=lambda kv: model_order(kv[0])):
        by_cond = group(ms, lambda s: s.condition)
        for c in conds:
            if c in by_cond:
                cs = by_cond[c]
                t.rows.append(
                    [model, c, *(cell([s for s in cs if category_of[s.task] == cat]) for cat in cats), cell(cs)]
                )
    for c in conds:
        cs = [s for s in data if s.condition == c]
        t.rows.append(
            [
                "chance level",
                c,
                *(cell([s for s in cs if category_of[s.task] == cat]).chance for cat in cats),
                cell(cs).chance,
            ]
        )
    return t


def _average_row(label: str, rows: list[list[Any]], n_gain: int) -> list[Any]:
    out: list[Any] = [label]
    width = len(rows[0]) - 1 - n_gain
    for j in range(1, 1 + width):
        accs = [r[j].acc for r in rows if isinstance(r[j], Cell) and not math.isnan(r[j].acc)]
        out.append(sum(accs) / len(accs) if accs else math.nan)
    return out + [""] * n_gain


def table2(samples: list[Sample]) -> Table | None:
    """MIRA Table 2: general text_cot vs task-specific text_cot_spec per domain, with the difference."""
    data = [s for s in samples if s.condition in ("text_cot", "text_cot_spec")]
    if len({s.condition for s in data}) < 2:
        return None
    domains = ordered({s.domain for s in data}, DOMAINS)
    header = ["model"] + [f"{d} {x}" for d in [*domains, "Overall"] for x in ("T", "T-spec", "Δ")]
    t = Table("MIRA Table 2 layout: text_cot vs text_cot_spec (accuracy %)", header)
    for model, ms in sorted(group(data, lambda s: s.model).items(), key=lambda kv: model_order(kv[0])):
        row: list[Any] = [model]
        for d in [*domains, "Overall"]:
            a = cell([s for s in ms if s.condition == "text_cot" and (d == "Overall" or s.domain == d)])
            b = cell([s for s in ms if s.condition == "text_cot_spec" and (d == "Overall" or s.domain == d)])
            row += [a, b, f"{100 * (b.acc - a.acc):+.1f}" if a.n and b.n else "—"]
        t.rows.append(row)
    chance: list[Any] = ["chance level"]
    for d in [*domains, "Overall"]:
        c = cell([s for s in data if d == "Overall" or s.domain == d]).chance
        chance += [c, c, ""]
    t.rows.append(chance)
    return t


def per_task_tables(samples: list[Sample]) -> list[Table]:
    """For each model: tasks as rows (with domain), conditions as columns, chance beside them."""
    out = []
    for model, ms in sorted(group(samples, lambda s: s.model).items(), key=lambda kv: model_order(kv[0])):
        conds = ordered({s.condition for s in ms}, CONDITIONS)
        t = Table(f"Per-task accuracy: {model} (%, Wilson 95% interval)", ["domain", "task", "n", *conds, "chance"])
        by_task = group(ms, lambda s: (s.domain, s.task))
        for domain, task in sorted(by_task, key=lambda k: (DOMAINS.index(k[0]) if k[0] in DOMAINS else 9, k[1])):
            ts = by_task[(domain, task)]
            cells = [cell([s for s in ts if s.condition == c]) for c in conds]
            t.rows.append([domain, task, max(c.n for c in cells), *cells, cell(ts).chance])
        out.append(t)
    return out


def relative_gains(
    samples: list[Sample], base: str = "direct", treat: str = "visual_cot", n_boot: int = 2000
) -> Table | None:
    """MIRA's relative gain (treat - base) / base per model and domain, each with a paired-bootstrap 95%
    interval over problems and left out below `MIN_GAIN_N` problems, and the average over the models
    (built-in baselines left out)."""
    data = [s for s in samples if s.condition in (base, treat)]
    if len({s.condition for s in data}) < 2:
        return None
    domains = ordered({s.domain for s in data}, DOMAINS)
    t = Table(
        f"Relative gain of {treat} over {base} (paired bootstrap 95% interval; left out below n = "
        f"{MIN_GAIN_N} problems)",
        ["model", *domains, "Overall"],
    )
    per_col: dict[str, list[float]] = {}
    by_model = group(data, lambda s: s.model)
    for model, ms in sorted(by_model.items(), key=lambda kv: model_order(kv[0])):
        row: list[Any] = [model]
        for d in [*domains, "Overall"]:
            text, g = gain_cell([s for s in ms if d == "Overall" or s.domain == d], base, treat, n_boot)
            if not is_baseline(model):
                per_col.setdefault(d, []).append(g)
            row.append(text)
        t.rows.append(row)
    real = [m for m in by_model if not is_baseline(m)]
    notes = [_gain_note(n_boot)]
    if len(real) > 1:
        label = "average (models, baselines excluded)" if len(real) < len(by_model) else "average (models)"
        avg: list[Any] = [label]
        for d in [*domains, "Overall"]:
            vals = [v for v in per_col.get(d, []) if not math.isnan(v)]
            avg.append(_pct(sum(vals) / len(vals)) if vals else "—")
        t.rows.append(avg)
        notes.append(
            "The average is the unweighted mean of the models' gains shown above (no interval); "
            "built-in baselines (chance, human) are left out."
        )
    elif not real:
        notes.append(f"No average: the table holds only {_baseline_note(by_model)}, no model.")
    t.note = " ".join(notes)
    return t


def pass_at_k_table(samples: list[Sample], ks: Sequence[int] = PASS_KS) -> Table | None:
    """pass@k (unbiased, over problems with at least k samples) and majority-vote accuracy per model × condition."""
    if max((s.epoch for s in samples), default=0) == 0:
        return None
    t = Table(
        "pass@k and majority vote (%)",
        ["model", "condition", "samples/problem", *[f"pass@{k}" for k in ks], "majority vote"],
        note="pass@k averages 1 - C(n-c,k)/C(n,k) over problems with n >= k samples. Majority vote: the most "
        "frequent canonical answer; ties go to the answer given first (lowest epoch); missing answers "
        "do not vote.",
    )
    for (model, cond), ss in sorted(
        group(samples, lambda s: (s.model, s.condition)).items(),
        key=lambda kv: (model_order(kv[0][0]), _cond_order(kv[0][1])),
    ):
        curves = pass_curve(ss, ks)
        per_unit = group(ss, lambda s: (s.run_id, s.unit))
        ns = sorted({len(v) for v in per_unit.values()})
        t.rows.append(
            [
                model,
                cond,
                "/".join(map(str, ns)),
                *[("—" if curves.get(k) is None else f"{100 * curves[k]:.1f}") for k in ks],
                f"{100 * majority_accuracy(ss):.1f}",
            ]
        )
    return t


def _cond_order(c: str) -> int:
    return CONDITIONS.index(c) if c in CONDITIONS else len(CONDITIONS)


def pass_curve(samples: list[Sample], ks: Sequence[int] = PASS_KS) -> dict[int, float | None]:
    per_unit = group(samples, lambda s: (s.run_id, s.unit))
    out: dict[int, float | None] = {}
    for k in ks:
        vals = [pass_at_k(len(v), sum(s.correct for s in v), k) for v in per_unit.values() if len(v) >= k]
        out[k] = sum(vals) / len(vals) if vals else None
    return out


def majority_accuracy(samples: list[Sample]) -> float:
    per_unit = group(samples, lambda s: (s.run_id, s.unit))
    right = 0
    for ss in per_unit.values():
        ss = sorted(ss, key=lambda s: s.epoch)
        winner, idx = majority_vote([s.vote for s in ss])
        right += winner is not None and ss[idx].correct
    return right / len(per_unit) if per_unit else math.nan


def paired_tests(
    samples: list[Sample], comparisons: Sequence[tuple[str, str]] = PAIRED_COMPARISONS, n_boot: int = 2000
) -> Table | None:
    """For each model and condition pair present: accuracies, delta with a paired-bootstrap 95% interval
    over problems, and a paired test over problems.

    The unit is the problem, never the (problem, epoch) pair: epochs of one problem are not independent, and
    counting them separately gave b + c > n. Each problem's accuracy is its mean over the epochs paired in
    both conditions; b counts problems whose mean is higher under the baseline, c those higher under the
    treatment, and the test is the sign test on b and c (McNemar's test, exactly, with one epoch)."""
    t = Table(
        "Paired condition comparisons",
        [
            "model",
            "baseline → treatment",
            "n",
            "baseline %",
            "treatment %",
            "Δ pts [95% bootstrap]",
            "b (base better)",
            "c (treat better)",
            "sign test p",
        ],
        note="n: problems. b: problems with a higher accuracy (mean over epochs) under the baseline; c: under "
        "the treatment; ties are not counted, so b + c ≤ n. The test is the sign test on (b, c) over "
        "problems — with one epoch it is McNemar's test on right/wrong: exact binomial when "
        "b + c < 25, else chi-square with continuity correction.",
    )
    for model, ms in sorted(group(samples, lambda s: s.model).items(), key=lambda kv: model_order(kv[0])):
        index = {(s.condition, s.run_id, s.unit, s.epoch): s.correct for s in ms}
        loose: dict[tuple, bool] = {}
        for s in ms:
            loose.setdefault((s.condition, s.unit, s.epoch), s.correct)
        conds = {s.condition for s in ms}
        for base, treat in comparisons:
            if base not in conds or treat not in conds:
                continue
            a_units: dict[tuple, list[float]] = {}
            b_units: dict[tuple, list[float]] = {}
            for (cond, run, unit, epoch), ok in index.items():
                if cond != base:
                    continue
                # Runs of one model may differ per condition, so pair on (problem, epoch) only.
                other = index.get((treat, run, unit, epoch), loose.get((treat, unit, epoch)))
                if other is None:
                    continue
                a_units.setdefault(unit, []).append(float(ok))
                b_units.setdefault(unit, []).append(float(other))
            if not a_units:
                continue
            keys = sorted(a_units)
            a = [sum(a_units[k]) / len(a_units[k]) for k in keys]
            b = [sum(b_units[k]) / len(b_units[k]) for k in keys]
            disc_b = sum(x > y for x, y in zip(a, b, strict=True))
            disc_c = sum(y > x for x, y in zip(a, b, strict=True))
            delta, lo, hi = paired_bootstrap(a, b, n_boot=n_boot)
            test = mcnemar(disc_b, disc_c)
            t.rows.append(
                [
                    model,
                    f"{base} → {treat}",
                    len(keys),
                    f"{100 * sum(a) / len(a):.1f}",
                    f"{100 * sum(b) / len(b):.1f}",
                    f"{100 * delta:+.1f} [{100 * lo:+.1f}, {100 * hi:+.1f}]",
                    disc_b,
                    disc_c,
                    f"{test.p_value:.3g}",
                ]
            )
    return t if t.rows else None


def tier_table(samples: list[Sample]) -> Table:
    """How answers were found, per model × condition: MIRA never reported this; it shows how much rests on
    heuristics or the judge."""
    tiers = ("tag", "regex", "judge", "none")
    t = Table("Extraction tiers (% of responses)", ["model", "condition", "responses", *tiers])
    for (model, cond), ss in sorted(
        group(samples, lambda s: (s.model, s.condition)).items(),
        key=lambda kv: (model_order(kv[0][0]), _cond_order(kv[0][1])),
    ):
        all_tiers = [x for s in ss for x in s.tiers]
        n = len(all_tiers) or 1
        t.rows.append([model, cond, len(all_tiers), *[f"{100 * all_tiers.count(x) / n:.1f}" for x in tiers]])
    return t
