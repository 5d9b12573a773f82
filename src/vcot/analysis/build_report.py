"""The report job as a library call: read results, score them, analyse, write Markdown + HTML.

`vcot report`, `vcot quickstart` and `vcot eval`'s closing table all go through here, so every printed
accuracy comes from one accounting (`analysis.units.to_samples` → `analysis.tables`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vcot.analysis.report import Analysis, ReportPaths, analyse, browser_images, write_report
from vcot.analysis.tables import Table, compact_summary, run_summary
from vcot.analysis.thumbnails import Thumbnails
from vcot.analysis.units import Sample, to_samples
from vcot.scoring.judge import Judge
from vcot.scoring.score import score_records


def load_results(paths: Sequence[Path]) -> list[dict[str, Any]]:
    """Rows of every results Parquet file: each path is a .parquet file or a folder holding some (a run
    folder whose results were never exported is read from its run store). Raises ValueError when two paths
    hold the same answers (`_check_no_repeat`)."""
    import pyarrow.parquet as pq

    rows: list[dict[str, Any]] = []
    first: dict[tuple, Path] = {}
    for p in map(Path, paths):
        if not p.exists():
            raise FileNotFoundError(f"{p} not found")
        if p.is_dir() and (p / "manifest.json").is_file() and (p / "instances.jsonl").is_file():
            # The commonest slip: the suite given where its run belongs.
            raise FileNotFoundError(
                f"{p} is a suite (it has manifest.json and instances.jsonl); pass a run "
                f"folder (vcot eval {p} --run DIR writes one)"
            )
        files = [p] if p.is_file() else sorted(p.glob("*.parquet"))
        these: list[dict[str, Any]] = []
        if not files and p.is_dir():
            from vcot.engine.results import results_table
            from vcot.engine.store import STORE_NAME

            if (p / STORE_NAME).is_file():
                these = results_table(p).to_pylist()
        elif not files:
            raise FileNotFoundError(f"{p}: no results .parquet file found")
        if not files and not these:
            raise FileNotFoundError(f"{p}: no results .parquet file found")
        for f in files:
            these += _read_results_file(pq, f)
        _check_no_repeat(these, first, p)
        rows += these
    return rows


def _check_no_repeat(rows: list[dict[str, Any]], first: dict[tuple, Path], path: Path) -> None:
    """Refuse answers that two inputs both hold: the same run given twice, or two runs of one model identity
    (a run id names suite, model, prompts and settings, not the server), whose rows would merge into one
    problem's and be scored as a pair."""
    for row in rows:
        key = (row.get("run_id"), row.get("model"), row.get("condition"), row.get("uid"), row.get("epoch"))
        where = first.setdefault(key, path)
        if where != path:
            raise ValueError(
                f"{where} and {path} both hold model {row.get('model')!r}'s answer under "
                f"{row.get('condition')} to {row.get('uid')} (run {row.get('run_id')}): give each run "
                "once, and give runs of different servers or settings distinct --model names"
            )


# What every results row needs to be scored and counted; a Parquet file without them is not a results table.
RESULTS_COLUMNS = ("model", "condition", "uid", "answer_type", "gold")


def _read_results_file(pq: Any, path: Path) -> list[dict[str, Any]]:
    try:
        pf = pq.ParquetFile(path)  # read_table imports pyarrow.dataset (0.5 s)
    except (OSError, ValueError) as exc:  # ArrowInvalid is a ValueError
        raise ValueError(
            f"{path}: not a readable Parquet file ({exc}); move it out of the folder or restore it"
        ) from None
    missing = [c for c in RESULTS_COLUMNS if c not in pf.schema_arrow.names]
    if missing:
        raise ValueError(
            f"{path}: not a vcot results table (no column {', '.join(missing)}); move it out of "
            "the run folder, or pass the results file itself"
        )
    return pf.read().to_pylist()


def check_same_suite(rows: Sequence[dict[str, Any]], suite: Any) -> None:
    """Raise ValueError unless the rows were made on `suite`: by the content hash each run recorded (as
    `vcot eval` refuses to resume a run on another suite), and for rows without one by their uids. A report
    built on the wrong suite had every chance level "—" and empty per-task, audit and browser sections, and
    replaced the good report (issue 45)."""
    want = str(suite.content_hash or "")
    by_hash: dict[str, set[str]] = {}
    for r in rows:
        h = str(r.get("suite_hash") or "")
        if h:
            by_hash.setdefault(h, set()).add(str(r.get("suite_name") or "?"))
    other = {h: names for h, names in by_hash.items() if want and h != want}
    if other:
        h, names = next(iter(sorted(other.items())))
        raise ValueError(
            f"--suite {suite.root}: the runs were made on another suite ({', '.join(sorted(names))}, "
            f"content hash {h}; this suite's is {want}); pass the suite the runs evaluated, or leave "
            "--suite out. Nothing was written."
        )
    uids = {i.uid for i in suite.instances}
    unhashed = {str(r["uid"]) for r in rows if not r.get("suite_hash")}
    if unhashed and not unhashed & uids:
        raise ValueError(
            f"--suite {suite.root}: none of the runs' {len(unhashed)} problems is in this suite; pass "
            "the suite the runs evaluated, or leave --suite out. Nothing was written."
        )


def scored(rows: list[dict[str, Any]], judge: Judge | None = None, rescore: bool = False) -> list[dict[str, Any]]:
    if rescore or any("correct" not in r or r["correct"] is None for r in rows):
        return score_records(rows, None, judge)
    return rows


def summary_table(rows: list[dict[str, Any]], suite: Any = None, compact: bool = False) -> Table:
    """The headline table of scored rows (see `tables.run_summary`; `compact`: its terminal variant)."""
    instances = {i.uid: i for i in suite.instances} if suite is not None else None
    return (compact_summary if compact else run_summary)(to_samples(rows, instances))


@dataclass
class ReportSection:
    """What a tool above the analysis layer adds to the report (e.g. `vcot.human`'s study section)."""

    tables: list[Table]  # into report.md and report.html, after the other results
    html: str = ""  # trusted markup (its outside text already escaped), placed after the figures
    terminal: list[Table] = field(default_factory=list)  # also printed by `vcot report`


# Called with the runs' scored rows, their samples and the report folder; raises ValueError when it cannot.
SectionBuilder = Callable[[list[dict[str, Any]], list[Sample], Path], ReportSection]


@dataclass
class ReportJob:
    paths: ReportPaths
    analysis: Analysis
    # What a terminal shows: the compact summary, then (all_tables) the rest that says something.
    terminal_tables: list[Table] = field(default_factory=list)


def build_report(
    run_dirs: Sequence[Path],
    suite: Any = None,
    out: Path | None = None,
    judge: Judge | None = None,
    rescore: bool = False,
    groups: dict[str, str] | None = None,
    max_instances: int = 300,
    mira: bool = False,
    all_tables: bool = False,
    sections: Sequence[SectionBuilder] = (),
    thumbnails: Thumbnails | None = None,
) -> ReportJob:
    """Score and analyse the runs (or, with `mira`, folders of official MIRA result files) and write the
    report into `out` (default: <first run>/report). Raises FileNotFoundError, ValueError or KeyError on
    unreadable input; nothing is written then. `thumbnails` of `suite` may have been started by the caller
    (e.g. `vcot quickstart`, during its evaluation); the caller closes them. `all_tables`: the terminal tables
    also hold MIRA Table 1, the paired tests and the VAoT analyses (`--tables`)."""
    if thumbnails is None and suite is not None:
        with Thumbnails(suite) as made:
            return build_report(
                run_dirs,
                suite=suite,
                out=out,
                judge=judge,
                rescore=rescore,
                groups=groups,
                max_instances=max_instances,
                mira=mira,
                all_tables=all_tables,
                sections=sections,
                thumbnails=made,
            )
    run_dirs = [Path(p) for p in run_dirs]
    extra: list[Table] = []
    if mira:
        from vcot.analysis.mira_interop import compare_with_mira

        cmp = compare_with_mira(run_dirs, judge)
        rows = cmp.rows
        extra = [cmp.table, cmp.differences]
    else:
        rows = load_results(run_dirs)
    if not rows:
        raise ValueError("no results rows")
    if suite is not None and not mira:
        check_same_suite(rows, suite)
    if thumbnails is not None:
        # Made by worker processes while this one scores, analyses, audits and plots.
        thumbnails.start(browser_images(rows, suite, max_instances))
    if not mira:
        rows = scored(rows, judge, rescore)
    if any(r.get("condition") == "state_probe" for r in rows):
        from vcot.scoring.probes import add_probe_columns

        rows = add_probe_columns(rows)  # per-step columns of scored.parquet, graded once for every table
    extra_html: list[str] = []
    from vcot.vaot.episode import VAOT_CONDITIONS

    # See2Think's analyses cover VAoT trajectories only; their module needs pandas (half a second to import).
    if not mira and any(r.get("condition") in VAOT_CONDITIONS for r in rows):
        from vcot.analysis.failure_source import agreement_table, annotate, source_table
        from vcot.analysis.see2think_section import load_scores, see2think_tables, trajectory_viewer

        run_folders = [p for p in run_dirs if p.is_dir()]
        scores = load_scores(run_folders)
        annotate(rows, scores)  # failure_source / failure_basis columns of scored.parquet
        extra += see2think_tables(rows, scores)
        extra += [t for t in (source_table(rows), agreement_table(rows, scores)) if t is not None]
        viewer = trajectory_viewer(run_folders, suite)
        if viewer:
            extra_html.append(viewer)
    analysis = analyse(rows, {i.uid: i for i in suite.instances} if suite is not None else None, groups)
    # A terminal gets one summary and, with --mira, the comparison it asks for; the rest only on request.
    terminal = [compact_summary(analysis.samples)]
    if all_tables:
        terminal += [table for anchor, table in analysis.tables if anchor in ("table1", "paired")]
    terminal += extra if all_tables or mira else []
    if suite is not None and not mira:
        from vcot.analysis.audit import audit_suite

        extra.append(audit_suite(suite))  # in the report file only; `vcot audit` prints it
    out_dir = out or (run_dirs[0] if run_dirs[0].is_dir() else run_dirs[0].parent) / "report"
    for build in sections:
        section = build(rows, analysis.samples, out_dir)
        extra += section.tables
        terminal += section.terminal
        if section.html:
            extra_html.insert(0, section.html)
    out_dir.mkdir(parents=True, exist_ok=True)
    _write_scored(rows, out_dir / "scored.parquet")
    paths = write_report(
        rows,
        out_dir,
        suite=suite,
        groups=groups,
        max_instances=max_instances,
        extra_tables=[run_summary(analysis.samples), *extra],
        analysis=analysis,
        extra_html=extra_html,
        thumbnails=thumbnails,
    )
    return ReportJob(paths, analysis, [t for t in terminal if t.informative])


def _write_scored(rows: list[dict[str, Any]], path: Path) -> None:
    """The scored table beside the report, so numbers can be re-derived with DuckDB or pandas."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.Table.from_pylist(rows), path)


def load_groups(path: Path | None) -> dict[str, str] | None:
    return json.loads(Path(path).read_text()) if path else None
