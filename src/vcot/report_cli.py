"""`vcot report RUN_DIR...`: score results tables (if not scored yet), print the key tables, write Markdown
and a self-contained HTML report. Wire into the main CLI with `register(app)` (or
`app.command("report")(report)`), so the command is `vcot report`, not a sub-group."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

app = typer.Typer(add_completion=False, help="Score runs and write reports.")
console = Console()
err = Console(stderr=True)


def load_results(paths: list[Path]) -> list[dict[str, Any]]:
    """Rows of every results Parquet file: each path is a .parquet file or a folder holding some."""
    import pyarrow.parquet as pq

    rows: list[dict[str, Any]] = []
    for p in paths:
        files = [p] if p.is_file() else sorted(p.glob("*.parquet"))
        if not files and p.is_dir():
            # A run folder whose results were never exported: read its run store directly.
            from vcot.engine.results import results_table
            from vcot.engine.store import STORE_NAME

            if (p / STORE_NAME).is_file():
                rows += results_table(p).to_pylist()
                continue
        if not files:
            raise FileNotFoundError(f"{p}: no results .parquet file found")
        for f in files:
            rows += pq.read_table(f).to_pylist()
    return rows


def _judge(model: str | None, base_url: str | None, cache: Path):
    if not model:
        return None
    from vcot.scoring.judge import LLMJudge

    return LLMJudge(model, base_url=base_url, cache_path=cache / "judge_cache.sqlite",
                    log_path=cache / "judge_log.jsonl")


@app.command()
def report(
    run_dirs: Annotated[list[Path], typer.Argument(help="Run folders (or .parquet files); with --mira, folders "
                                                        "of official MIRA result .jsonl files")],
    suite: Annotated[Path | None, typer.Option("--suite", help="Suite folder: images and steps for the browser")] = None,
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Report folder (default: <first run>/report)")] = None,
    judge_model: Annotated[str | None, typer.Option("--judge-model", help="LLM judge for answers the rules cannot "
                                                                          "grade")] = None,
    judge_base_url: Annotated[str | None, typer.Option("--judge-base-url", help="OpenAI-compatible judge "
                                                                                 "endpoint")] = None,
    rescore: Annotated[bool, typer.Option("--rescore", help="Re-grade even if the table is already scored")] = False,
    groups: Annotated[Path | None, typer.Option("--groups", help="JSON {model: group} for Table-1 averages")] = None,
    max_instances: Annotated[int, typer.Option("--max-instances", help="Instances in the HTML browser")] = 300,
    mira: Annotated[bool, typer.Option("--mira", help="Inputs are official MIRA result files")] = False,
) -> None:
    """Score runs and write report.md + report.html (self-contained) with tables, plots and an instance browser."""
    from vcot.analysis.render import to_rich
    from vcot.analysis.report import analyse, write_report
    from vcot.scoring.score import score_records

    out_dir = out or (run_dirs[0] if run_dirs[0].is_dir() else run_dirs[0].parent) / "report"
    out_dir.mkdir(parents=True, exist_ok=True)
    judge = _judge(judge_model, judge_base_url, out_dir)
    extra = []
    try:
        if mira:
            from vcot.analysis.mira_interop import compare_with_mira

            cmp = compare_with_mira(run_dirs, judge)
            rows = cmp.rows
            extra = [cmp.table, cmp.differences]
        else:
            rows = load_results(run_dirs)
            if rescore or any("correct" not in r or r["correct"] is None for r in rows):
                rows = score_records(rows, None, judge)
    except (FileNotFoundError, ValueError, KeyError) as exc:
        err.print(f"error: {exc}", highlight=False, markup=False, soft_wrap=True)
        raise typer.Exit(2) from None
    if not rows:
        err.print("error: no results rows", markup=False, soft_wrap=True)
        raise typer.Exit(2)
    the_suite = None
    if suite is not None:
        from vcot.suite import read_suite

        the_suite = read_suite(suite)
    group_map = json.loads(groups.read_text()) if groups else None
    extra_html: list[str] = []
    if not mira:
        from vcot.vaot.report_section import load_scores, see2think_tables, trajectory_viewer

        run_folders = [p for p in run_dirs if p.is_dir()]
        try:
            extra += see2think_tables(rows, load_scores(run_folders))
        except ValueError as exc:
            err.print(f"error: {exc}", highlight=False, markup=False, soft_wrap=True)
            raise typer.Exit(2) from None
        viewer = trajectory_viewer(run_folders, the_suite)
        if viewer:
            extra_html.append(viewer)
    analysis = analyse(rows, {i.uid: i for i in the_suite.instances} if the_suite else None, group_map)
    for anchor, table in analysis.tables:
        # Table 1 has up to 18 columns: only print it where it fits; the report always has it.
        if anchor in ("overview", "paired") or (anchor == "table1" and console.width >= 40 + 7 * len(table.header)):
            console.print(to_rich(table))
    for table in extra:
        console.print(to_rich(table))
    _write_scored(rows, out_dir / "scored.parquet")
    paths = write_report(rows, out_dir, suite=the_suite, groups=group_map, max_instances=max_instances,
                         extra_tables=extra, analysis=analysis, extra_html=extra_html)
    console.print(f"wrote {paths.markdown} and {paths.html}", markup=False)


def _write_scored(rows: list[dict[str, Any]], path: Path) -> None:
    """The scored table beside the report, so numbers can be re-derived with DuckDB or pandas."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.Table.from_pylist(rows), path)


def register(parent: typer.Typer) -> None:
    """Add `report` as a top-level command of the main CLI."""
    parent.command("report")(report)
