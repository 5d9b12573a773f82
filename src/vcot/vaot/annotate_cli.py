"""`vcot annotate RUN_DIR --suite SUITE`: serve the human-validation page for sampled VAoT trajectories."""

from __future__ import annotations

import signal
from pathlib import Path
from typing import Annotated, NoReturn

import typer
from rich.console import Console

app = typer.Typer(add_completion=False)
console = Console()
err = Console(stderr=True)


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def _fail(message: str) -> NoReturn:
    err.print(f"[bold red]error:[/] {message}", highlight=False)
    raise typer.Exit(2)


@app.command("annotate")
def annotate(
    run_dir: Annotated[Path, typer.Argument(help="Run folder with rebuilt trajectories")],
    suite: Annotated[Path, typer.Option("--suite", help="The suite the run evaluated (input images)")],
    port: Annotated[int, typer.Option("--port", help="Port; 0 picks a free one")] = 0,
    sample: Annotated[int, typer.Option("--sample", help="Number of trajectories to annotate")] = 50,
    seed: Annotated[int, typer.Option("--seed", help="Sampling seed (same seed, same sample)")] = 0,
    host: Annotated[str, typer.Option("--host", help="Address to bind; keep it local")] = "127.0.0.1",
    judge_scores: Annotated[Path | None, typer.Option("--judge-scores", help="Judge verdicts "
                                                      "(default: RUN_DIR/process_scores.jsonl)")] = None,
    verbose: Annotated[bool, typer.Option("--verbose", help="Log every request")] = False,
) -> None:
    """Score sampled VAoT trajectories (AR, RF, FU) in the browser; agreement with the judge at /agreement."""
    from vcot.suite import SuiteError, read_suite
    from vcot.vaot.annotate import ANNOTATIONS_DB, AnnotationApp, AnnotationServer, sample_trajectories
    from vcot.vaot.trajectory import read_trajectories

    if sample < 1:
        _fail("--sample must be at least 1")
    try:
        s = read_suite(suite)
    except SuiteError as exc:
        _fail(str(exc))
    try:
        trajs = read_trajectories(run_dir)
    except (FileNotFoundError, ValueError) as exc:
        _fail(str(exc))
    if not trajs:
        _fail(f"{run_dir}: the run has no VAoT trajectories")
    picked = sample_trajectories(trajs, sample, seed)
    try:
        server = AnnotationServer(AnnotationApp(run_dir, s, picked, scores_path=judge_scores), host, port, verbose)
    except OSError as exc:
        _fail(f"cannot listen on {host}:{port}: {exc}")
    console.print(f"{len(picked)} of {len(trajs)} trajectories sampled (seed {seed}); scores go to "
                  f"{Path(run_dir) / ANNOTATIONS_DB}")
    # A process started in the background by a non-interactive shell inherits SIGINT as ignored; install
    # the handler explicitly so that Ctrl-C (and SIGTERM) always stop the server cleanly.
    signal.signal(signal.SIGINT, _interrupt)
    signal.signal(signal.SIGTERM, _interrupt)
    print(server.url, flush=True)
    console.print("Ctrl-C to stop.")
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.close()


if __name__ == "__main__":
    app()
