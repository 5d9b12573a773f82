"""Difficulty sweeps (issue 20, docs/evaluation.md "Difficulty sweeps"): one suite per value of a generator
parameter (or per preset), each evaluated, and accuracy against the knob per condition, with where it
crosses 50 % and where it reaches the chance level.

Suites and runs live under one folder (`suites/NAME=VALUE`, `runs/MODEL/NAME=VALUE`), so a rerun reuses
every suite already written and resumes every run, and other models can be swept over the same suites. Value k is
generated with seed `seed + k`, so instance ids
differ across the suites and one mock server can serve them all (`vcot serve-mock SWEEP/suites`).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vcot.analysis.tables import Cell, Table, cell
from vcot.analysis.units import to_samples

PRESETS = ("easy", "medium", "hard")


@dataclass
class SweepSpec:
    task: str
    param: str | None  # None: the presets are the knob
    values: list[Any]
    n: int
    out: Path
    model: str = "chance"
    base_url: str | None = None
    api_key_env: str | None = None
    conditions: list[str] = field(default_factory=lambda: ["direct"])
    seed: int = 0
    difficulty: str = "medium"
    concurrency: int = 8
    tag_requests: bool = False


@dataclass
class SweepPoint:
    value: Any
    condition: str
    cell: Cell


@dataclass
class SweepResult:
    spec: SweepSpec
    points: list[SweepPoint]

    def conditions(self) -> list[str]:
        return list(dict.fromkeys(p.condition for p in self.points))

    def curve(self, condition: str) -> list[SweepPoint]:
        return [p for p in self.points if p.condition == condition]


def label(param: str | None, value: Any) -> str:
    """The folder name of one value: `NAME=VALUE` (JSON), or the preset's name."""
    return str(value) if param is None else f"{param}={json.dumps(value)}"


def isotonic(ys: Sequence[float], weights: Sequence[float], decreasing: bool) -> list[float]:
    """Weighted least-squares monotone fit (pool adjacent violators)."""
    sign = -1.0 if decreasing else 1.0
    blocks: list[list[float]] = []  # [mean, weight, count]
    for y, w in zip(ys, weights, strict=True):
        blocks.append([sign * y, w, 1])
        while len(blocks) > 1 and blocks[-2][0] > blocks[-1][0]:
            m2, w2, c2 = blocks.pop()
            m1, w1, c1 = blocks.pop()
            blocks.append([(m1 * w1 + m2 * w2) / (w1 + w2), w1 + w2, c1 + c2])
    out: list[float] = []
    for m, _, c in blocks:
        out += [sign * m] * int(c)
    return out


def crossing(xs: Sequence[float], accs: Sequence[float], weights: Sequence[float], level: float) -> float | None:
    """Where the monotone fit of accuracy against the knob first passes `level`, by linear interpolation
    between grid values; None when it never does. The direction (falling or rising) is the one the ends of
    the fit show: difficulty knobs make accuracy fall."""
    points = [(x, a, w) for x, a, w in zip(xs, accs, weights, strict=True) if not math.isnan(a) and w > 0]
    if len(points) < 2:
        return None
    xs2, ys, ws = zip(*points, strict=True)
    decreasing = ys[0] >= ys[-1]
    fit = isotonic(ys, ws, decreasing)
    for (x0, y0), (x1, y1) in zip(zip(xs2, fit, strict=True), zip(xs2[1:], fit[1:], strict=True), strict=False):
        if (y0 - level) * (y1 - level) <= 0 and y0 != y1:
            return x0 + (level - y0) * (x1 - x0) / (y1 - y0)
        if y0 == level:
            return x0
    return None


def _numeric(values: Sequence[Any]) -> list[float]:
    """Knob positions for interpolation: the values themselves when numeric, else their order (presets)."""
    if all(isinstance(v, int | float) and not isinstance(v, bool) for v in values):
        return [float(v) for v in values]
    return [float(i) for i in range(len(values))]


def fitted_points(result: SweepResult, condition: str) -> tuple[float | None, float | None]:
    """(knob at 50 %, knob at the chance level) for one condition, in knob units (order for presets)."""
    curve = result.curve(condition)
    xs = _numeric([p.value for p in curve])
    accs = [p.cell.acc for p in curve]
    ns = [float(p.cell.n) for p in curve]
    chances = [p.cell.chance for p in curve if not math.isnan(p.cell.chance)]
    chance = sum(chances) / len(chances) if chances else math.nan
    half = crossing(xs, accs, ns, 0.5)
    at_chance = crossing(xs, accs, ns, chance) if not math.isnan(chance) else None
    return half, at_chance


def _fmt_knob(result: SweepResult, x: float | None) -> str:
    if x is None:
        return "not crossed"
    if result.spec.param is None:
        values = [p.value for p in result.points]
        return (
            f"between {values[math.floor(x)]} and {values[min(math.ceil(x), len(set(values)) - 1)]}"
            if x != int(x)
            else str(values[int(x)])
        )
    return f"{x:.2f}"


def sweep_table(result: SweepResult) -> Table:
    knob = result.spec.param or "preset"
    rows = []
    for cond in result.conditions():
        half, at_chance = fitted_points(result, cond)
        for p in result.curve(cond):
            c = p.cell
            rows.append(
                [
                    cond,
                    json.dumps(p.value) if result.spec.param else str(p.value),
                    str(c.n),
                    c.full(),
                    f"{100 * c.chance:.1f}",
                    c.failures() or "0",
                    _fmt_knob(result, half),
                    _fmt_knob(result, at_chance),
                ]
            )
    return Table(
        f"Sweep of {result.spec.task} over {knob}: accuracy % [95% Wilson interval] per value ({result.spec.model})",
        ["condition", knob, "problems", "accuracy %", "chance %", "failures", "50 % at", "chance at"],
        rows,
    )


def sweep_plot(result: SweepResult) -> bytes:
    from vcot.analysis.plots import _plt, _png

    plt = _plt()
    fig, ax = plt.subplots(figsize=(6.5, 4))
    values = [p.value for p in result.curve(result.conditions()[0])]
    xs = _numeric(values)
    for cond in result.conditions():
        curve = result.curve(cond)
        accs = [100 * p.cell.acc for p in curve]
        err = [[100 * (p.cell.acc - p.cell.lo) for p in curve], [100 * (p.cell.hi - p.cell.acc) for p in curve]]
        ax.errorbar(xs, accs, yerr=err, marker="o", capsize=3, label=cond)
        half, _ = fitted_points(result, cond)
        if half is not None:
            ax.axvline(half, linestyle=":", linewidth=1)
    chances = [p.cell.chance for p in result.points if not math.isnan(p.cell.chance)]
    if chances:
        ax.axhline(100 * sum(chances) / len(chances), color="grey", linestyle="--", linewidth=1, label="chance")
    ax.axhline(50, color="grey", linestyle=":", linewidth=1)
    ax.set_xticks(xs, [json.dumps(v) if result.spec.param else str(v) for v in values])
    ax.set_xlabel(result.spec.param or "preset")
    ax.set_ylabel("accuracy %")
    ax.set_ylim(0, 100)
    ax.set_title(
        f"{result.spec.task}: accuracy against {result.spec.param or 'preset'} ({result.spec.model})", fontsize=10
    )
    ax.legend(fontsize=8)
    fig.tight_layout()
    return _png(fig)


def build_value_suite(spec: SweepSpec, k: int, value: Any, progress: Callable[[int], None] | None = None) -> Path:
    """The suite of value `value` (the k-th): written once, reused by later runs of the same sweep."""
    from vcot.build import TaskPlan, build_suite, check_params

    suite_dir = spec.out / "suites" / label(spec.param, value)
    name = f"{spec.task}-sweep-{label(spec.param, value)}"
    manifest = suite_dir / "manifest.json"
    if manifest.is_file():
        held = json.loads(manifest.read_text())
        if held.get("name") == name and held.get("counts", {}).get(spec.task) == spec.n:
            return suite_dir
    if spec.param is None:
        plan = TaskPlan(spec.task, spec.n, spec.seed + k, str(value), {})
    else:
        plan = TaskPlan(spec.task, spec.n, spec.seed + k, spec.difficulty, check_params(spec.task, {spec.param: value}))
    build_suite(suite_dir, name, [plan], progress=progress)
    return suite_dir


def evaluate_value(spec: SweepSpec, suite_dir: Path, value: Any) -> list[SweepPoint]:
    from vcot.analysis.build_report import scored
    from vcot.engine.results import results_table
    from vcot.engine.runner import EvalSpec, run_eval
    from vcot.suite import read_suite

    run_dir = spec.out / "runs" / re.sub(r"[^A-Za-z0-9_.-]+", "_", spec.model) / label(spec.param, value)
    run_eval(
        EvalSpec(
            suite=suite_dir,
            model=spec.model,
            base_url=spec.base_url,
            api_key_env=spec.api_key_env,
            conditions=spec.conditions,
            concurrency=spec.concurrency,
            run_dir=run_dir,
            tag_requests=spec.tag_requests,
        )
    )
    suite = read_suite(suite_dir, check_images="none")
    samples = to_samples(scored(results_table(run_dir).to_pylist()), {i.uid: i for i in suite.instances})
    return [SweepPoint(value, cond, cell([s for s in samples if s.condition == cond])) for cond in spec.conditions]


def run_sweep(
    spec: SweepSpec, generate_only: bool = False, on_value: Callable[[Any], None] | None = None
) -> SweepResult | None:
    """Generate (and unless `generate_only`, evaluate) every value; write sweep.json, .md and .png."""
    spec.out.mkdir(parents=True, exist_ok=True)
    suites = []
    for k, value in enumerate(spec.values):
        if on_value is not None:
            on_value(value)
        suites.append(build_value_suite(spec, k, value))
    if generate_only:
        return None
    points: list[SweepPoint] = []
    for value, suite_dir in zip(spec.values, suites, strict=True):
        points += evaluate_value(spec, suite_dir, value)
    # Grouped by condition, values in the order given.
    points.sort(key=lambda p: spec.conditions.index(p.condition))
    result = SweepResult(spec, points)
    write_outputs(result)
    return result


def search_target(
    spec: SweepSpec, lo: int, hi: int, target: float, condition: str, on_value: Callable[[Any], None] | None = None
) -> tuple[int, list[SweepPoint]]:
    """The integer knob value in lo..hi where the model's accuracy under `condition` is nearest `target`,
    by bisection on the assumption that accuracy is monotone in the knob (each probe is a fresh suite of
    `spec.n`). Returns the value and every point measured."""
    measured: dict[int, SweepPoint] = {}

    def acc(v: int) -> float:
        if v not in measured:
            if on_value is not None:
                on_value(v)
            suite_dir = build_value_suite(spec, v - lo, v)
            measured[v] = next(p for p in evaluate_value(spec, suite_dir, v) if p.condition == condition)
        return measured[v].cell.acc

    a_lo, a_hi = acc(lo), acc(hi)
    falling = a_lo >= a_hi
    while hi - lo > 1:
        mid = (lo + hi) // 2
        above = acc(mid) >= target
        if above == falling:
            lo = mid
        else:
            hi = mid
    best = min(measured, key=lambda v: (abs(measured[v].cell.acc - target), v))
    return best, [measured[v] for v in sorted(measured)]


def write_outputs(result: SweepResult) -> None:
    from vcot.analysis.render import to_markdown

    out = result.spec.out
    summary = {
        "task": result.spec.task,
        "param": result.spec.param,
        "model": result.spec.model,
        "n": result.spec.n,
        "seed": result.spec.seed,
        "conditions": {},
    }
    for cond in result.conditions():
        half, at_chance = fitted_points(result, cond)
        summary["conditions"][cond] = {
            "points": [
                {
                    "value": p.value,
                    "accuracy": p.cell.acc,
                    "low": p.cell.lo,
                    "high": p.cell.hi,
                    "problems": p.cell.n,
                    "chance": p.cell.chance,
                    "errors": p.cell.errors,
                    "timeouts": p.cell.timeouts,
                    "truncated": p.cell.truncated,
                }
                for p in result.curve(cond)
            ],
            "knob_at_50": half,
            "knob_at_chance": at_chance,
        }
    (out / "sweep.json").write_text(json.dumps(summary, indent=2, allow_nan=True))
    (out / "sweep.png").write_bytes(sweep_plot(result))
    (out / "sweep.md").write_text(to_markdown(sweep_table(result)) + "\n\n![accuracy against the knob](sweep.png)\n")
