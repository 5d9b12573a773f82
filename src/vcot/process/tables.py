"""The step-judging tables (issue 46; docs/process.md, "Running a judge"): each judge (a model under a judging
condition) against the judge-free baselines on the same labelled trajectories, for `vcot step-judge score`,
`vcot eval`'s closing summary and the report (`judging_section`, a section the commands add: the analysis layer
imports nothing of this one).

Figures come from `vcot.process.judged` (the replies read as the grader reads them) and
`vcot.process.judging` (exact labels, Wilson 95 % intervals). A reply naming no step counts wrong and is
shown in its own column; the baselines never see a label they are scored on.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from vcot.analysis.build_report import ReportSection
from vcot.analysis.tables import Table
from vcot.process.judged import JudgeRun, baseline_scores, judge_runs
from vcot.process.judging import JudgeScores, Rate

NOTE = (
    'Localisation: the share of trajectories whose first wrong step the judge named exactly ("0" for a '
    "trajectory without error); a reply naming no step counts wrong (column 'no step named'). Step precision "
    "and recall of 'incorrect' over the steps up to the first error (a step after it has no right answer). "
    "Wilson 95% intervals; n counts judgements (trajectory × epoch). Baselines: judge-free policies on the "
    "same trajectories."
)


def _pct(rate: Rate) -> str:
    if not rate.n:
        return "—"
    lo, hi = rate.interval
    return f"{100 * rate.value:.1f} [{100 * lo:.1f}, {100 * hi:.1f}]"


def _label(run: JudgeRun) -> str:
    return f"{run.model} · {run.condition}"


def _positions(rates: dict[str, Rate]) -> dict[str, Rate]:
    """Positions 1, 2, 3, then 4 and later together, then 'none' (a wide table helps no one)."""
    out: dict[str, Rate] = {}
    for key, rate in rates.items():
        k = key if key == "none" or int(key) < 4 else "4+"
        old = out.get(k, Rate(0, 0))
        out[k] = Rate(old.k + rate.k, old.n + rate.n)
    return dict(sorted(out.items(), key=lambda kv: (kv[0] == "none", kv[0])))


def _judges(runs: list[JudgeRun]) -> list[tuple[str, JudgeScores, int, int]]:
    """(label, scores, no step named, errors) of every judge, then every baseline."""
    out = [(_label(r), r.scores, sum(not v.given for v in r.verdicts), r.errors) for r in runs]
    out += [(f"baseline: {name}", s, 0, 0) for name, s in baseline_scores(runs).items()]
    return out


def judging_tables(rows: list[dict[str, Any]]) -> list[tuple[str, Table]]:
    """The step-judging tables (empty without rows of a judging condition)."""
    runs = judge_runs(rows)
    if not runs:
        return []
    judges = _judges(runs)
    main = Table(
        "Step judging: first-error localisation and step verdicts, % [95% CI]",
        ["judge", "n", "localisation", "step precision", "step recall", "no step named", "errors"],
        note=NOTE,
    )
    for label, s, missing, errors in judges:
        main.rows.append(
            [label, s.localisation.n, _pct(s.localisation), _pct(s.precision), _pct(s.recall), missing, errors]
        )
    split = [f"{_label(r)}: {r.disagreements} of {len(r.verdicts)}" for r in runs if r.disagreements]
    if split:
        main.note += (
            " Replies whose step tags name another first wrong step than their answer (localisation "
            "reads the answer): " + "; ".join(split) + "."
        )
    tables = [("judge-process", main)]
    for anchor, title, attr in (
        ("judge-process-kind", "by error type", "by_kind"),
        ("judge-process-position", "by the first error's position", "by_position"),
        ("judge-process-task", "by task", "by_task"),
    ):
        keys = list(
            dict.fromkeys(
                k
                for _, s, _, _ in judges
                for k in (getattr(s, attr) if attr != "by_position" else _positions(s.by_position))
            )
        )
        t = Table(
            f"Step judging: localisation {title}, % [95% CI] (n)",
            ["judge", *keys],
            note="The share of trajectories whose first wrong step was named exactly, per group; "
            "'none': trajectories without error.",
        )
        for label, s, _, _ in judges:
            group = getattr(s, attr) if attr != "by_position" else _positions(s.by_position)
            t.rows.append([label, *(f"{_pct(group[k])} ({group[k].n})" if k in group else "—" for k in keys)])
        tables.append((anchor, t))
    return tables


def judging_section(rows: list[dict[str, Any]], samples: Any, out: Path) -> ReportSection:
    """The report's step-judging section (empty without judging rows); the first table is also printed."""
    tables = [t for _, t in judging_tables(rows)]
    return ReportSection(tables=tables, terminal=tables[:1])
