"""Report commands: `vcot report` over runs, and the VAoT process tools (trajectories, process judge,
human annotation page)."""

import json
import shutil
import signal
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.table import Table

from vcot.cli.common import check_port, console, err, fail

if TYPE_CHECKING:
    from vcot.analysis.build_report import SectionBuilder
    from vcot.suite import Suite


def _read_suite(path: Path, check_images: str = "header"):
    from vcot.suite import SuiteError, read_suite

    try:
        return read_suite(path, check_images=check_images)
    except SuiteError as exc:
        fail(exc)


def report(
    run_dirs: Annotated[
        list[Path],
        typer.Argument(
            metavar="RUN",
            help="Run folders (or .parquet files); with --mira, folders of official MIRA result .jsonl files",
        ),
    ],
    suite: Annotated[
        Path | None, typer.Option("--suite", help="Suite folder: images and steps for the browser")
    ] = None,
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Report folder (default: <first run>/report)")] = None,
    judge_model: Annotated[
        str | None, typer.Option("--judge-model", help="LLM judge for answers the rules cannot grade")
    ] = None,
    judge_base_url: Annotated[
        str | None, typer.Option("--judge-base-url", help="OpenAI-compatible judge endpoint")
    ] = None,
    api_key_env: Annotated[
        str | None,
        typer.Option(
            "--api-key-env",
            help="Environment variable holding the judge's API key (with --judge-base-url: none sent unless given)",
        ),
    ] = None,
    rescore: Annotated[bool, typer.Option("--rescore", help="Re-grade even if the table is already scored")] = False,
    groups: Annotated[Path | None, typer.Option("--groups", help="JSON {model: group} for Table-1 averages")] = None,
    max_instances: Annotated[int, typer.Option("--max-instances", help="Instances in the HTML browser")] = 300,
    mira: Annotated[bool, typer.Option("--mira", help="Inputs are official MIRA result files")] = False,
    human: Annotated[
        Path | None,
        typer.Option(
            "--human", metavar="STUDY", help="A human-baseline study folder (vcot human) to report beside the models"
        ),
    ] = None,
    tables: Annotated[
        bool,
        typer.Option(
            "--tables", help="Also print MIRA Table 1, the paired tests and the VAoT analyses (always in the report)"
        ),
    ] = False,
    progress: Annotated[bool, typer.Option("--progress/--no-progress", help="Show a progress bar")] = True,
) -> None:
    """Score runs and write report.md + report.html (self-contained) with tables, plots and an instance browser."""
    from vcot.analysis.build_report import build_report
    from vcot.analysis.render import to_rich
    from vcot.analysis.thumbnails import Thumbnails
    from vcot.cli.common import counter, progress_bar

    if max_instances < 0:
        fail(f"--max-instances {max_instances}: must be 0 or more (0 leaves the instance browser out)")
    group_map = _read_groups(groups)
    out_dir = out or (run_dirs[0] if run_dirs[0].is_dir() else run_dirs[0].parent) / "report"
    # The report opens a suite image only for its thumbnail, which shows "unavailable" for one it cannot
    # read, within the suite's limits; checking every image first was a tenth of a report's time.
    the_suite = _read_suite(suite, check_images="none") if suite is not None else None
    # Checked before anything is written: a study built on another suite is refused with nothing left behind.
    from vcot.process.tables import judging_section

    # Issue 46: judges on a step-judging suite against the judge-free baselines (empty for other runs).
    sections = [judging_section, *([_human_section(human, the_suite)] if human is not None else [])]
    created = not out_dir.exists()
    judge = None
    if judge_model:
        from vcot.engine.clients import endpoint_key
        from vcot.engine.errors import ConfigError
        from vcot.scoring.judge import LLMJudge

        try:
            key = endpoint_key(judge_base_url, api_key_env)
        except ConfigError as exc:
            fail(exc)
        out_dir.mkdir(parents=True, exist_ok=True)  # the judge's cache and log live beside the report
        judge = LLMJudge(
            judge_model,
            base_url=judge_base_url,
            api_key=key,
            cache_path=out_dir / "judge_cache.sqlite",
            log_path=out_dir / "judge_log.jsonl",
        )
    shown = progress_bar(progress)
    # Collecting the browser's thumbnails is most of a report's time with --suite: that is what progress shows.
    # In a log, a step that ends within QUIET_S says nothing (it printed eleven lines in a second, issue 45).
    update = counter(shown, "thumbnails")
    thumbnails = (
        None
        if the_suite is None
        else Thumbnails(the_suite, progress=update if err.is_terminal else _unless_quick(update, QUIET_S))
    )
    try:
        with shown:
            job = build_report(
                run_dirs,
                suite=the_suite,
                out=out_dir,
                judge=judge,
                rescore=rescore,
                groups=group_map,
                max_instances=max_instances,
                mira=mira,
                all_tables=tables,
                sections=sections,
                thumbnails=thumbnails,
            )
    except (FileNotFoundError, ValueError, KeyError) as exc:
        if created and out_dir.is_dir():
            # Only the judge's cache and log can be in it: a failed report leaves no folder behind.
            shutil.rmtree(out_dir, ignore_errors=True)
        fail(exc)
    finally:
        if thumbnails is not None:
            thumbnails.close()
    for table in job.terminal_tables:
        console.print(to_rich(table))
    console.print(f"wrote {job.paths.markdown} and {job.paths.html}", markup=False)


# Seconds a step may take before a log hears of it.
QUIET_S = 2.0


def _unless_quick(update: Callable[..., None], after: float) -> Callable[..., None]:
    """`update` (a `(done, total, **counts)` callback) called only once `after` seconds have passed since the
    first call: a step that ends sooner reports nothing."""
    t0: list[float] = []

    def maybe(done: int, total: int, **counts: object) -> None:
        now = time.monotonic()
        if not t0:
            t0.append(now)
        if now - t0[0] >= after:
            update(done, total, **counts)

    return maybe


def _read_groups(path: Path | None) -> dict[str, str] | None:
    """The --groups file as {model: group}, checked before the report reads any run."""
    if path is None:
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        fail(f"--groups {path}: cannot be read ({getattr(exc, 'strerror', None) or exc})")
    except (ValueError, RecursionError) as exc:
        fail(f'--groups {path}: not JSON ({exc}); expected an object {{"model": "group", ...}}')
    if not isinstance(data, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in data.items()):
        kind = type(data).__name__ if not isinstance(data, dict) else "an object with a value that is no text"
        fail(
            f"--groups {path}: expected a JSON object mapping each model to its group name, e.g. "
            f'{{"gpt-4o": "closed"}}; found {"a " + kind if not isinstance(data, dict) else kind}'
        )
    return data


def _human_section(study: Path, suite: "Suite | None") -> "SectionBuilder":
    """The study's report section; the study must have been built on --suite when one is given."""
    from vcot.human import StudyError, open_study
    from vcot.human.analysis import human_section

    try:
        return human_section(open_study(study, suite))
    except StudyError as exc:
        fail(exc)


def score_text(
    response: Annotated[str, typer.Argument(help="The model's response text, or - to read it from standard input")],
    gold: Annotated[str, typer.Option("--gold", help="The gold answer")],
    answer_type: Annotated[
        str,
        typer.Option("--type", help="integer | number | choice | text | time | coordinates | set | pair | direction"),
    ],
    options: Annotated[
        list[str] | None,
        typer.Option("--option", metavar="TEXT", help="An option text, in order; repeat per option (choice questions)"),
    ] = None,
    truncated: Annotated[bool, typer.Option("--truncated", help="The response was cut off by the token limit")] = False,
) -> None:
    """Grade one response against a gold answer and print the extracted answer, the tier, the verdict and why."""
    import sys

    from vcot.schema import AnswerType
    from vcot.scoring import explain

    try:
        atype = AnswerType(answer_type)
    except ValueError:
        fail(f"unknown answer type {answer_type!r}; choose one of {', '.join(t.value for t in AnswerType)}")
    text = sys.stdin.read() if response == "-" else response
    console.print(str(explain(text, gold, atype, options or None, truncated=truncated)), markup=False, highlight=False)


def trajectories(
    run_dir: Annotated[Path, typer.Argument(help="Run folder")],
    suite: Annotated[Path, typer.Option("--suite", help="The suite the run evaluated")],
) -> None:
    """Rebuild every VAoT trajectory of a run (turns, actions, returned images) without calling any model."""
    from vcot.engine.trajectories import ReplayMismatch, read_trajectories, rebuild_trajectories

    try:
        path = rebuild_trajectories(run_dir, _read_suite(suite))
    except (ReplayMismatch, FileNotFoundError, ValueError) as exc:  # not a run folder; a damaged store
        fail(exc)
    n = len(read_trajectories(run_dir))
    console.print(f"{n} trajectories written to {path}")


def judge_process(
    run_dir: Annotated[Path, typer.Argument(help="Run folder (with trajectories rebuilt)")],
    suite: Annotated[Path, typer.Option("--suite", help="The suite the run evaluated")],
    judge_model: Annotated[str, typer.Option("--judge-model", help="Judge model name")],
    judge_base_url: Annotated[str | None, typer.Option("--judge-base-url", help="OpenAI-compatible endpoint")] = None,
    api_key_env: Annotated[
        str | None,
        typer.Option(
            "--api-key-env",
            help="Environment variable holding the API key (with --judge-base-url: none sent unless given)",
        ),
    ] = None,
) -> None:
    """Score each VAoT trajectory (key step; AR, RF, FU) with a judge model; report the judge's RF accuracy."""
    from vcot.engine.trajectories import read_trajectories, rebuild_trajectories
    from vcot.scoring.process_judge import judge_trajectories, rf_calibration, write_process_scores

    s = _read_suite(suite)
    try:
        try:
            trajs = read_trajectories(run_dir)
        except FileNotFoundError:
            rebuild_trajectories(run_dir, s)
            trajs = read_trajectories(run_dir)
    except (FileNotFoundError, ValueError) as exc:  # not a run folder; a damaged store or trajectories file
        fail(exc)
    from vcot.engine.clients import endpoint_key
    from vcot.engine.errors import ConfigError

    try:
        key = endpoint_key(judge_base_url, api_key_env)
    except ConfigError as exc:
        fail(exc)
    if key is None and judge_base_url is None:
        fail(
            "the judge needs an API key in $OPENAI_API_KEY (or --api-key-env VAR, or --judge-base-url for a "
            "local server)"
        )
    scores = judge_trajectories(trajs, run_dir, s, judge_model, base_url=judge_base_url, api_key=key)
    path = write_process_scores(run_dir, scores)
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


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def annotate(
    run_dir: Annotated[Path, typer.Argument(help="Run folder with rebuilt trajectories")],
    suite: Annotated[Path, typer.Option("--suite", help="The suite the run evaluated (input images)")],
    port: Annotated[int, typer.Option("--port", help="Port; 0 picks a free one")] = 0,
    sample: Annotated[int, typer.Option("--sample", help="Number of trajectories to annotate")] = 50,
    seed: Annotated[int, typer.Option("--seed", help="Sampling seed (same seed, same sample)")] = 0,
    host: Annotated[str, typer.Option("--host", help="Address to bind; keep it local")] = "127.0.0.1",
    judge_scores: Annotated[
        Path | None, typer.Option("--judge-scores", help="Judge verdicts (default: RUN_DIR/process_scores.jsonl)")
    ] = None,
    verbose: Annotated[bool, typer.Option("--verbose", help="Log every request")] = False,
) -> None:
    """Score sampled VAoT trajectories (AR, RF, FU) in the browser; agreement with the judge at /agreement."""
    from vcot.annotate import ANNOTATIONS_DB, AnnotationApp, AnnotationServer, sample_trajectories
    from vcot.engine.trajectories import read_trajectories
    from vcot.net import is_loopback, listen_error

    check_port(port)
    if sample < 1:
        fail("--sample must be at least 1")
    s = _read_suite(suite)
    try:
        trajs = read_trajectories(run_dir)
    except (FileNotFoundError, ValueError) as exc:
        fail(exc)
    if not trajs:
        fail(f"{run_dir}: the run has no VAoT trajectories")
    picked = sample_trajectories(trajs, sample, seed)
    try:
        server = AnnotationServer(AnnotationApp(run_dir, s, picked, scores_path=judge_scores), host, port, verbose)
    except OSError as exc:
        fail(listen_error(exc, host, port))
    console.print(
        f"{len(picked)} of {len(trajs)} trajectories sampled (seed {seed}); scores go to "
        f"{Path(run_dir) / ANNOTATIONS_DB}"
    )
    if not is_loopback(host):
        err.print(
            f"warning: listening on {host}, reachable from other machines; every request needs the "
            "access token in the URL below (share it only with annotators)",
            markup=False,
            soft_wrap=True,
        )
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


def register(app: typer.Typer) -> None:
    app.command()(report)
    app.command("score-text")(score_text)
    app.command()(trajectories)
    app.command("judge-process")(judge_process)
    app.command()(annotate)
