"""`vcot trajectories` and `vcot judge-process`: rebuild VAoT trajectories of a run and score them."""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

app = typer.Typer(add_completion=False)
console = Console()
err = Console(stderr=True)

SCORES_FILE = "process_scores.jsonl"


def _suite(path: Path):
    from vcot.suite import SuiteError, read_suite

    try:
        return read_suite(path)
    except SuiteError as exc:
        err.print(f"[bold red]error:[/] {exc}", highlight=False)
        raise typer.Exit(2) from None


@app.command()
def trajectories(
    run_dir: Annotated[Path, typer.Argument(help="Run folder")],
    suite: Annotated[Path, typer.Option("--suite", help="The suite the run evaluated")],
) -> None:
    """Rebuild every VAoT trajectory of a run (turns, actions, returned images) without calling any model."""
    from vcot.vaot.trajectory import read_trajectories, rebuild_trajectories

    path = rebuild_trajectories(run_dir, _suite(suite))
    n = len(read_trajectories(run_dir))
    console.print(f"{n} trajectories written to {path}")


def write_scores(run_dir: Path, scores) -> Path:
    path = Path(run_dir) / SCORES_FILE
    path.write_text("".join(json.dumps(dataclasses.asdict(s), sort_keys=True) + "\n" for s in scores),
                    encoding="utf-8")
    return path


@app.command("judge-process")
def judge_process(
    run_dir: Annotated[Path, typer.Argument(help="Run folder (with trajectories rebuilt)")],
    suite: Annotated[Path, typer.Option("--suite", help="The suite the run evaluated")],
    judge_model: Annotated[str, typer.Option("--judge-model", help="Judge model name")],
    judge_base_url: Annotated[str | None, typer.Option("--judge-base-url", help="OpenAI-compatible endpoint")] = None,
    api_key_env: Annotated[str, typer.Option("--api-key-env", help="Variable holding the judge's API key")] = "OPENAI_API_KEY",
) -> None:
    """Score each VAoT trajectory (key step; AR, RF, FU) with a judge model; report the judge's RF accuracy."""
    from vcot.vaot.judge import judge_trajectories, rf_calibration
    from vcot.vaot.trajectory import read_trajectories, rebuild_trajectories

    s = _suite(suite)
    try:
        trajs = read_trajectories(run_dir)
    except FileNotFoundError:
        rebuild_trajectories(run_dir, s)
        trajs = read_trajectories(run_dir)
    key = os.environ.get(api_key_env)
    if key is None and judge_base_url is None:
        err.print(f"[bold red]error:[/] the judge needs an API key in ${api_key_env} (or --judge-base-url for a "
                  "local server)")
        raise typer.Exit(2)
    scores = judge_trajectories(trajs, run_dir, s, judge_model, base_url=judge_base_url, api_key=key)
    path = write_scores(run_dir, scores)
    failed = sum(1 for x in scores if x.error)
    console.print(f"{len(scores) - failed} of {len(scores)} trajectories scored ({failed} failed); {path}")
    cal = rf_calibration(trajs, scores)
    table = Table(title="Judge accuracy on Render Faithfulness (truth known from the renderer)")
    for col in ("subset", "n", "strict"):
        table.add_column(col)
    table.add_row("all", str(cal["n"]), "-" if cal["strict"] is None else f"{cal['strict']:.3f}")
    for cond, v in cal["by_condition"].items():
        table.add_row(cond, str(v["n"]), f"{v['strict']:.3f}")
    console.print(table)
