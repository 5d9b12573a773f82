"""State-probe analyses (docs/evaluation.md, "State probes"): per-step accuracy curves per task, the
distribution of the first wrong step, and final-answer accuracy given the first wrong step.

Input: scored rows of the `state_probe` condition. Per-step correctness comes from
`vcot.scoring.probes.add_probe_columns` (the rule-based grader on each `<stepK>` answer; no judge). Every
state_probe reply answers all probes of one instance, so "the first wrong step" is a property of one line of
reasoning. Each (model, task, step) cell counts instance-epochs; intervals are Wilson 95%.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from vcot.analysis.metrics import wilson
from vcot.analysis.tables import Table
from vcot.scoring.probes import PROBE_COLUMNS, add_probe_columns

CONDITION = "state_probe"
NONE_WRONG = "none"


def probe_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The state_probe rows with their per-step columns (computed when absent)."""
    rs = [r for r in rows if r.get("condition") == CONDITION]
    if rs and not all(c in rs[0] for c in PROBE_COLUMNS):
        rs = add_probe_columns(rs)
    return [r for r in rs if r.get("probe_n")]


def _correct(row: dict[str, Any]) -> list[bool]:
    return [bool(x) for x in json.loads(row["probe_correct"])]


def step_curves(rows: list[dict[str, Any]]) -> dict[tuple[str, str], list[tuple[int, int, int]]]:
    """(model, task) -> [(step, right, n)] in step order; instances with fewer steps leave the later cells."""
    acc: dict[tuple[str, str], dict[int, list[int]]] = {}
    for r in probe_rows(rows):
        cells = acc.setdefault((str(r["model"]), str(r["task"])), {})
        for k, ok in enumerate(_correct(r), start=1):
            c = cells.setdefault(k, [0, 0])
            c[0] += ok
            c[1] += 1
    return {key: [(k, c[0], c[1]) for k, c in sorted(cells.items())] for key, cells in sorted(acc.items())}


def _pct(right: int, n: int) -> str:
    lo, hi = wilson(right, n)
    return f"{100 * right / n:.1f} [{100 * lo:.1f}, {100 * hi:.1f}]" if n else "—"


def step_accuracy_table(rows: list[dict[str, Any]]) -> Table | None:
    curves = step_curves(rows)
    if not curves:
        return None
    t = Table(
        "First wrong step: accuracy at each step",
        ["model", "task", "step", "n", "step accuracy %"],
        note="state_probe: the probe of step k asks for the solver's state after step k (docs/tasks/<task>.md, "
        "'State probes'); graded by rule, no judge. Wilson 95% intervals; n counts instance-epochs.",
    )
    for (model, task), pts in curves.items():
        for k, right, n in pts:
            t.rows.append([model, task, k, n, _pct(right, n)])
    return t


def first_wrong_counts(rows: list[dict[str, Any]]) -> dict[tuple[str, str], Counter]:
    """(model, task) -> Counter of first wrong step (an int, or NONE_WRONG)."""
    out: dict[tuple[str, str], Counter] = {}
    for r in probe_rows(rows):
        fw = r.get("first_wrong_step")
        key = NONE_WRONG if fw is None or fw != fw else int(fw)  # NaN from pandas means "none"
        out.setdefault((str(r["model"]), str(r["task"])), Counter())[key] += 1
    return dict(sorted(out.items()))


def _order(k: Any) -> tuple[int, int]:
    return (1, 0) if k == NONE_WRONG else (0, int(k))


def first_wrong_table(rows: list[dict[str, Any]]) -> Table | None:
    counts = first_wrong_counts(rows)
    if not counts:
        return None
    t = Table(
        "First wrong step: distribution",
        ["model", "task", "first wrong step", "count", "share %"],
        note="The first step whose probe was answered wrong in a reply; 'none': every probe right.",
    )
    for (model, task), c in counts.items():
        total = sum(c.values())
        for k in sorted(c, key=_order):
            t.rows.append([model, task, k, c[k], f"{100 * c[k] / total:.1f}"])
    return t


def final_given_first_wrong_table(rows: list[dict[str, Any]]) -> Table | None:
    """Final-answer accuracy by first wrong step (pooled over tasks, per model)."""
    groups: dict[tuple[str, Any], list[int]] = {}
    for r in probe_rows(rows):
        fw = r.get("first_wrong_step")
        key = NONE_WRONG if fw is None or fw != fw else int(fw)
        g = groups.setdefault((str(r["model"]), key), [0, 0])
        g[0] += bool(r.get("correct"))
        g[1] += 1
    if not groups:
        return None
    t = Table(
        "First wrong step: final-answer accuracy given the first wrong step",
        ["model", "first wrong step", "n", "final accuracy %"],
        note="Pooled over tasks. A reasoning line that breaks early and still ends right hints at a shortcut "
        "to the answer that skips the states.",
    )
    for model, key in sorted(groups, key=lambda mk: (mk[0], _order(mk[1]))):
        right, n = groups[(model, key)]
        t.rows.append([model, key, n, _pct(right, n)])
    return t


def probe_tables(rows: list[dict[str, Any]]) -> list[tuple[str, Table]]:
    """The report's "First wrong step" tables (empty without state_probe rows)."""
    out = [
        ("probe-steps", step_accuracy_table(rows)),
        ("first-wrong", first_wrong_table(rows)),
        ("final-given-first-wrong", final_given_first_wrong_table(rows)),
    ]
    return [(a, t) for a, t in out if t is not None]


def step_curve_plots(rows: list[dict[str, Any]]) -> list[tuple[str, bytes]]:
    """Per model: accuracy against step, one line per task (PNG)."""
    from vcot.analysis.plots import _plt, _png

    curves = step_curves(rows)
    out = []
    for model in sorted({m for m, _ in curves}):
        plt = _plt()
        fig, ax = plt.subplots(figsize=(7, 4))
        for (m, task), pts in curves.items():
            if m == model:
                ax.plot([p[0] for p in pts], [100 * p[1] / p[2] for p in pts], marker="o", label=task)
        ax.set_xlabel("step")
        ax.set_ylabel("probe accuracy %")
        ax.set_ylim(-2, 102)
        ax.set_title(f"{model}: state-probe accuracy by step", fontsize=10)
        ax.legend(fontsize=6, loc="upper left", bbox_to_anchor=(1.0, 1.0))
        fig.tight_layout()
        out.append((model, _png(fig)))
    return out


def first_wrong_plots(rows: list[dict[str, Any]]) -> list[tuple[str, bytes]]:
    """Per model: for each task a stacked bar of first-wrong-step shares ('none' on top)."""
    from vcot.analysis.plots import _plt, _png

    counts = first_wrong_counts(rows)
    out = []
    for model in sorted({m for m, _ in counts}):
        tasks = sorted(t for m, t in counts if m == model)
        keys = sorted({k for (m, _), c in counts.items() if m == model for k in c}, key=_order)
        plt = _plt()
        fig, ax = plt.subplots(figsize=(max(6.0, 0.45 * len(tasks) + 2), 4))
        bottom = [0.0] * len(tasks)
        for k in keys:
            shares = [100 * counts[(model, t)][k] / sum(counts[(model, t)].values()) for t in tasks]
            ax.bar(range(len(tasks)), shares, bottom=bottom, label=f"first wrong: {k}")
            bottom = [b + s for b, s in zip(bottom, shares, strict=True)]
        ax.set_xticks(range(len(tasks)), tasks, rotation=60, ha="right", fontsize=7)
        ax.set_ylabel("share of replies %")
        ax.set_title(f"{model}: first wrong step", fontsize=10)
        ax.legend(fontsize=6, loc="upper left", bbox_to_anchor=(1.0, 1.0))
        fig.tight_layout()
        out.append((model, _png(fig)))
    return out
