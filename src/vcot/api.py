"""vcot from Python: the few functions `import vcot` offers (README.md, "From Python").

Each is the library call behind one command, so a script and the command give the same suite, run store,
results and report: `generate` is `vcot generate`, `evaluate` is `vcot eval`, `report` is `vcot report`,
`grade` is `vcot score-text`. `vcot/__init__.py` imports this module on first use, so `import vcot` stays fast.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from vcot.analysis.tables import Table
    from vcot.scoring.explain import Explanation
    from vcot.suite import Suite
    from vcot.tasks import TaskInfo

__all__ = ["Run", "evaluate", "generate", "grade", "load_suite", "report", "tasks"]


def tasks() -> list[TaskInfo]:
    """The registered tasks, in catalog order: each a `TaskInfo` with `name`, `domain`, `answer_type`
    (the `vcot.schema.AnswerType` value) and a one-line `description`."""
    from vcot.tasks import task_infos

    return task_infos()


def generate(
    task: str | None = None,
    *,
    preset: str | None = None,
    n: int = 10,
    seed: int = 0,
    difficulty: str = "medium",
    params: Mapping[str, Any] | None = None,
    out: str | Path,
    processes: int = 1,
    name: str | None = None,
) -> Suite:
    """Generate a suite into the folder `out` and return it, read back (`vcot generate`: the same instances,
    pixels and content hash for the same arguments, on any number of processes).

    Give exactly one of `task` (with `n` instances at `difficulty`, `params` overriding the preset's
    parameters, e.g. ``{"grid": 20}``) or `preset` ("mini", "mira-synth" or "see2think-synth"). Raises
    ValueError naming what is wrong (unknown task or parameter, a value out of its limits, an empty `out`,
    `n` over the one-folder limit of `vcot generate`) and TypeError for an argument of the wrong type (a
    seed that is a string), before `out` is touched."""
    from vcot.build import build_suite, generation_plans
    from vcot.cli.suite import MAX_SUITE_N
    from vcot.suite import read_suite

    _check_int("n", n, minimum=1)
    if task is not None and n > MAX_SUITE_N:
        raise ValueError(
            f"n={n:,} is over the limit of {MAX_SUITE_N:,} instances for one suite folder; "
            "`vcot generate --shards` streams larger sets (docs/scale.md)"
        )
    _check_int("seed", seed)
    _check_int("processes", processes, minimum=1)
    if not isinstance(difficulty, str):
        raise TypeError(f"difficulty must be a string (easy, medium or hard), got {difficulty!r}")
    if params is not None and not isinstance(params, Mapping):
        raise TypeError(f"params must be a mapping of parameter names to values, got {type(params).__name__}")
    out = _folder("out", out)
    plans, default_name = generation_plans(task, preset, n, seed, difficulty, dict(params or {}))
    build_suite(Path(out), name or default_name, plans, processes=processes)
    return read_suite(out, check_images="none")


def _check_int(what: str, value: Any, minimum: int | None = None) -> None:
    # bool is an int to Python, but `seed=True` is a slip, not a seed.
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{what} must be an integer, got {value!r}")
    if minimum is not None and value < minimum:
        raise ValueError(f"{what} must be at least {minimum}, got {value}")


def _folder(what: str, value: Any) -> Path:
    """A folder argument as a Path; "" would be the current folder, which nobody means to write into."""
    if not isinstance(value, str | Path):
        raise TypeError(f"{what} must be a folder path (str or pathlib.Path), got {type(value).__name__}")
    if not str(value).strip():
        raise ValueError(f"{what} is empty: name the folder to write")
    return Path(value)


def load_suite(path: str | Path) -> Suite:
    """Read and check a suite folder (manifest, instances, image files); `.instances` holds its
    `vcot.schema.Instance`s, `.manifest` its manifest. Raises `vcot.suite.SuiteError` (a ValueError) naming
    the file and line of anything malformed."""
    from vcot.suite import read_suite

    return read_suite(path)


@dataclass
class Run:
    """A finished evaluation: where its store and results are, what was asked, and how many samples were
    answered, failed or already done (a rerun of the same run resumes)."""

    run_dir: Path
    results_path: Path | None
    conditions: list[str]
    skipped_conditions: dict[str, str]
    answered: int
    failed: int
    resumed: int
    total: int
    _rows: list[dict[str, Any]] = field(default_factory=list, repr=False)
    _suite: Any = field(default=None, repr=False)

    def summary(self) -> Table:
        """The report's summary table, of which `vcot eval` prints a compact form at its end (the same
        accounting as `vcot report`): per condition the problems, accuracy with its interval, accuracy over
        answered samples, chance and failures."""
        from vcot.analysis.build_report import summary_table

        return summary_table(self._rows, self._suite)

    @property
    def accuracy(self) -> dict[str, float]:
        """Accuracy per condition (a fraction; errors, timeouts and truncated responses count as wrong), from
        the samples `summary()` counts."""
        from vcot.analysis.tables import condition_cells
        from vcot.analysis.units import to_samples

        instances = {i.uid: i for i in self._suite.instances} if self._suite is not None else None
        cells = condition_cells(to_samples(self._rows, instances))
        return {cond: cell.acc for (_, cond), cell in cells.items()}


def evaluate(
    suite: str | Path | Suite,
    model: str = "chance",
    base_url: str | None = None,
    conditions: Sequence[str] | None = None,
    run: str | Path | None = None,
    **settings: Any,
) -> Run:
    """Evaluate `model` on `suite` (a folder or a loaded suite) and return the finished `Run` (`vcot eval`:
    the same run store, `results.parquet` and resume on rerun).

    `model` is "chance" (the built-in baseline), "openai/NAME", "anthropic/NAME", "google/NAME", or a
    served model's name with `base_url` (an OpenAI-compatible endpoint). `conditions`: condition names
    (default: every default condition the suite can serve). `run`: the run folder (default: one under
    ./runs named after the model and suite). `settings` are `vcot.engine.runner.EvalSpec` fields
    (epochs, limit, tasks, concurrency, api_key_env, ...) and generation settings (max_tokens, temperature,
    top_p, seed, timeout_s, max_reply_bytes). Raises ValueError on a bad setting and
    `vcot.engine.errors.ConfigError` on a model it cannot reach; a sample that fails is counted in `failed`,
    never raised."""
    import dataclasses

    from vcot.engine.runner import EvalSpec, run_eval
    from vcot.engine.settings import GenSettings

    gen_fields = {f.name for f in dataclasses.fields(GenSettings)}
    spec_fields = {f.name for f in dataclasses.fields(EvalSpec)} - {
        "suite",
        "model",
        "base_url",
        "conditions",
        "run_dir",
        "settings",
    }
    unknown = sorted(set(settings) - gen_fields - spec_fields)
    if unknown:
        raise ValueError(
            f"unknown setting(s) {', '.join(unknown)}; known: {', '.join(sorted(gen_fields | spec_fields))}"
        )
    gen = GenSettings(**{k: v for k, v in settings.items() if k in gen_fields})
    # A folder given as a Path stays that folder (a Path's own `.root` is "/"); a loaded Suite gives its root.
    from vcot.suite import Suite

    if isinstance(suite, Suite):
        path: str | Path = suite.root
    elif isinstance(suite, str | Path):
        path = suite
    else:
        raise TypeError(f"suite must be a folder path or a vcot.suite.Suite, got {type(suite).__name__}")
    spec = EvalSpec(
        suite=path,
        model=model,
        base_url=base_url,
        conditions=_names("conditions", conditions),
        run_dir=run,
        settings=gen,
        **{k: v for k, v in settings.items() if k in spec_fields},
    )
    result = run_eval(spec)
    from vcot.analysis.build_report import scored

    p = result.progress
    rows = scored(result.table.to_pylist()) if result.table is not None else []
    return Run(
        run_dir=Path(result.run_dir),
        results_path=result.results_path,
        conditions=list(result.conditions),
        skipped_conditions=dict(result.skipped_conditions),
        answered=p.done,
        failed=p.errors,
        resumed=p.resumed,
        total=p.total,
        _rows=rows,
        _suite=result.suite,
    )


def _names(what: str, value: str | Sequence[str] | None) -> list[str] | None:
    """Condition names as a list: one string is one name or a comma-separated list (as on the command line),
    never its letters."""
    if value is None:
        return None
    items = value.split(",") if isinstance(value, str) else list(value)
    if not all(isinstance(v, str) for v in items):
        raise TypeError(f"{what} must be names (str), got {value!r}")
    names = [v.strip() for v in items if v.strip()]
    if not names:
        raise ValueError(f"{what} is empty: give at least one name, or None for the defaults")
    return names


def report(
    run: str | Path | Run | Sequence[str | Path | Run],
    suite: str | Path | Suite | None = None,
    out: str | Path | None = None,
) -> Path:
    """Score one or more runs and write `report.md` and a self-contained `report.html` into `out` (default:
    <first run>/report); returns that folder (`vcot report`). With `suite`, the report's instance browser
    shows the pictures and steps."""
    from vcot.analysis.build_report import build_report
    from vcot.suite import read_suite

    runs = [run] if isinstance(run, str | Path | Run) else list(run)
    if not runs:
        raise ValueError("report needs at least one run (a run folder or a Run)")
    bad = [r for r in runs if not isinstance(r, str | Path | Run)]
    if bad:
        raise TypeError(f"each run must be a run folder (str or pathlib.Path) or a Run, got {bad[0]!r}")
    run_dirs = [Path(r.run_dir if isinstance(r, Run) else r) for r in runs]
    the_suite = read_suite(suite, check_images="none") if isinstance(suite, str | Path) else suite
    first = run_dirs[0]
    out_dir = Path(out) if out is not None else (first if first.is_dir() else first.parent) / "report"
    from vcot.process.tables import judging_section

    job = build_report(run_dirs, suite=the_suite, out=out_dir, sections=[judging_section])
    return job.paths.html.parent


def grade(
    response: str, gold: str, answer_type: str, options: Sequence[str] | None = None, *, truncated: bool = False
) -> Explanation:
    """Grade one response against a gold answer with vcot's rule-based grader (`vcot score-text`): the
    result has `correct`, `verdict`, `extracted` (the answer span), `tier` (how it was found), `value`
    (what the answer commits to) and `reason`. `answer_type` is an `vcot.schema.AnswerType` value
    ("integer", "choice", "time", ...); `options` are a choice question's option texts, in order;
    `truncated` says the response was cut off by a token limit (then only a complete answer tag counts)."""
    from vcot.schema import AnswerType
    from vcot.scoring import explain

    for what, value in (("response", response), ("gold", gold), ("answer_type", answer_type)):
        if not isinstance(value, str):
            raise TypeError(
                f"{what} must be a string, got {type(value).__name__} {value!r}"
                f"{' (pass str(...))' if isinstance(value, int | float) else ''}"
            )
    if options is not None and (isinstance(options, str) or not all(isinstance(o, str) for o in options)):
        raise TypeError(f"options must be a sequence of option texts (str), got {options!r}")
    try:
        atype = AnswerType(answer_type)
    except ValueError:
        raise ValueError(
            f"unknown answer type {answer_type!r}; choose one of {', '.join(t.value for t in AnswerType)}"
        ) from None
    return explain(response, gold, atype, list(options) if options else None, truncated=truncated)
