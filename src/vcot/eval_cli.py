"""`vcot eval` and `vcot serve-mock`. Thin: parse options, call the engine, print."""

from __future__ import annotations

import asyncio
import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

app = typer.Typer(add_completion=False, no_args_is_help=True)
console = Console(stderr=True)
out = Console()


def _error(message: object) -> None:
    # Messages can quote file names or server text: printed verbatim, never parsed as markup.
    console.print("[red]error:[/red] ", end="")
    console.print(str(message), markup=False, highlight=False, soft_wrap=True)


def _split(values: list[str] | None) -> list[str] | None:
    if not values:
        return None
    items = [v.strip() for value in values for v in value.split(",") if v.strip()]
    return items or None


def accuracy_rows(run_dir: Path, suite_dir: Path) -> list[dict[str, Any]]:
    """Per-condition accuracy (rule-based scoring, no judge) next to the chance level."""
    from vcot.engine.chance import chance_level
    from vcot.engine.results import results_table
    from vcot.scoring import score_response
    from vcot.suite import read_suite

    suite = read_suite(suite_dir, check_images="none")
    table = results_table(run_dir).to_pylist()
    acc: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    chance: dict[str, float] = defaultdict(float)
    for row in table:
        try:
            inst = suite.get(row["uid"])
        except KeyError:
            continue
        a = acc[row["condition"]]
        a[1] += 1
        if row["error"]:
            a[2] += 1
        elif score_response(row["response"], inst).correct:
            a[0] += 1
        chance[row["condition"]] += chance_level(inst)
    return [{"condition": c, "n": n, "correct": k, "errors": e, "accuracy": k / n if n else 0.0,
             "chance": chance[c] / n if n else 0.0} for c, (k, n, e) in acc.items()]


@app.command("eval")
def eval_command(
    suite: Annotated[Path, typer.Option("--suite", help="Suite folder")],
    model: Annotated[str, typer.Option("--model", help="chance | openai/NAME | anthropic/NAME | google/NAME | "
                                                        "NAME with --base-url")] = "chance",
    base_url: Annotated[str | None, typer.Option("--base-url", help="OpenAI-compatible endpoint, e.g. "
                                                                     "http://host:8000/v1")] = None,
    api_key_env: Annotated[str | None, typer.Option("--api-key-env", help="Environment variable holding the "
                                                                           "API key (with --base-url: none "
                                                                           "sent unless given)")] = None,
    conditions: Annotated[list[str] | None, typer.Option("--conditions", "-c", help="Comma-separated; default: "
                                                                                    "every condition the suite "
                                                                                    "can serve")] = None,
    epochs: Annotated[int, typer.Option("--epochs")] = 1,
    concurrency: Annotated[int, typer.Option("--concurrency")] = 8,
    rpm: Annotated[float | None, typer.Option("--rpm", help="Requests per minute cap")] = None,
    limit: Annotated[int | None, typer.Option("--limit", help="At most K instances per task")] = None,
    tasks: Annotated[list[str] | None, typer.Option("--tasks", help="Comma-separated task names")] = None,
    max_tokens: Annotated[int | None, typer.Option("--max-tokens")] = 8192,
    temperature: Annotated[float | None, typer.Option("--temperature")] = None,
    top_p: Annotated[float | None, typer.Option("--top-p")] = None,
    seed: Annotated[int | None, typer.Option("--seed", help="Per-request seed (plus the epoch)")] = None,
    timeout: Annotated[float, typer.Option("--timeout", help="Per-request timeout, seconds")] = 600.0,
    max_attempts: Annotated[int, typer.Option("--max-attempts", help="Attempts per call incl. retries")] = 6,
    max_side: Annotated[int, typer.Option("--max-side", help="Longest image side sent, pixels")] = 2000,
    image_format: Annotated[str, typer.Option("--image-format", help="keep | png | jpeg")] = "keep",
    run: Annotated[Path | None, typer.Option("--run", help="Run folder (rerun to resume)")] = None,
    runs_root: Annotated[Path, typer.Option("--runs-root", help="Parent of default run folders")] = Path("runs"),
    tag_requests: Annotated[bool, typer.Option("--tag-requests", help="Send X-Vcot-Call headers (mock "
                                                                       "server, proxies)")] = False,
    progress: Annotated[bool, typer.Option("--progress/--no-progress")] = True,
) -> None:
    """Evaluate a model on a suite under the chosen conditions; resumable, prints accuracy per condition."""
    from vcot.conditions import ConditionError
    from vcot.engine.errors import ConfigError
    from vcot.engine.retry import RetryPolicy
    from vcot.engine.runner import EvalSpec, Progress, run_eval
    from vcot.engine.settings import GenSettings
    from vcot.images import ImagePolicy
    from vcot.suite import SuiteError

    try:
        spec = EvalSpec(
            suite=suite, model=model, base_url=base_url, api_key_env=api_key_env, conditions=_split(conditions),
            epochs=epochs, limit=limit, tasks=_split(tasks), concurrency=concurrency, requests_per_minute=rpm,
            settings=GenSettings(max_tokens=max_tokens, temperature=temperature, top_p=top_p, seed=seed,
                                 timeout_s=timeout),
            image_policy=ImagePolicy(max_side=max_side, format=image_format),
            retry=RetryPolicy(max_attempts=max_attempts), run_dir=run, runs_root=runs_root,
            tag_requests=tag_requests)
    except ValueError as exc:
        _error(exc)
        raise typer.Exit(2) from None

    from rich.progress import BarColumn, TextColumn, TimeElapsedColumn, TimeRemainingColumn
    from rich.progress import Progress as Bar

    bar = Bar(TextColumn("{task.description}"), BarColumn(), TextColumn("{task.completed}/{task.total}"),
              TextColumn("errors {task.fields[errors]} · retries {task.fields[retries]} · tokens {task.fields[tokens]}"),
              TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(), console=console,
              disable=not progress, refresh_per_second=4)
    task_id = bar.add_task("eval", total=None, errors=0, retries=0, tokens=0)

    suite_name: dict[str, str] = {}

    def on_start(info: dict[str, Any]) -> None:
        suite_name["name"] = info["suite_name"]
        skipped = info["skipped_conditions"]
        console.print(f"run {info['run_id']} in {info['run_dir']}: {info['instances']} instances × "
                      f"{', '.join(info['conditions'])} × {epochs} epoch(s)", markup=False, soft_wrap=True)
        for cond, reason in skipped.items():
            console.print(f"  skipped {cond}: {reason}", markup=False, soft_wrap=True)
        bar.update(task_id, description=model)
        bar.start()

    def on_progress(p: Progress) -> None:
        bar.update(task_id, total=p.total, completed=p.resumed + p.done + p.errors, errors=p.errors,
                   retries=p.retries, tokens=p.input_tokens + p.output_tokens)

    try:
        result = run_eval(spec, on_progress, on_start)
    except (ConfigError, SuiteError, ConditionError) as exc:
        bar.stop()
        _error(exc)
        raise typer.Exit(2) from None
    finally:
        bar.stop()
    p = result.progress
    console.print(f"finished: {p.done} answered, {p.errors} failed, {p.resumed} already done, {p.retries} retries")
    rows = accuracy_rows(result.run_dir, suite)
    table = Table(title=f"{model} on {suite_name.get('name', suite.name)}")
    for col in ("condition", "n", "accuracy", "chance", "errors"):
        table.add_column(col, justify="left" if col == "condition" else "right")
    order = {c: i for i, c in enumerate(result.conditions)}
    for r in sorted(rows, key=lambda r: order.get(r["condition"], 99)):
        table.add_row(r["condition"], str(r["n"]), f"{r['accuracy']:.1%}", f"{r['chance']:.1%}", str(r["errors"]))
    out.print(table)
    out.print(f"results: {result.results_path}")


@app.command("serve-mock")
def serve_mock(
    suite: Annotated[Path | None, typer.Option("--suite", help="Suite whose gold answers drive the policy")] = None,
    host: Annotated[str, typer.Option("--host")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="0 picks a free port")] = 8000,
    port_file: Annotated[Path | None, typer.Option("--port-file", help="Write the bound port here")] = None,
    p: Annotated[float, typer.Option("--p", help="Probability of a correct answer")] = 0.5,
    p_condition: Annotated[list[str] | None, typer.Option("--p-condition", help="CONDITION=P, repeatable")] = None,
    seed: Annotated[int, typer.Option("--seed")] = 0,
    latency: Annotated[float, typer.Option("--latency", help="Seconds per request")] = 0.0,
    fault_rate: Annotated[float, typer.Option("--fault-rate", help="Fraction of requests that fail")] = 0.0,
    faults: Annotated[str, typer.Option("--faults", help="Comma list of 429,500,timeout,malformed,truncated,"
                                                          "drop")] = "429,500,timeout,malformed,truncated,drop",
    retry_after: Annotated[float, typer.Option("--retry-after", help="Retry-After seconds on 429")] = 0.05,
    hang: Annotated[float, typer.Option("--hang", help="Seconds a 'timeout' fault hangs")] = 30.0,
    script: Annotated[Path | None, typer.Option("--script", help="JSON list of tool-call turns")] = None,
) -> None:
    """A local OpenAI-compatible server with a scripted policy, latency and fault injection."""
    from vcot.mock_server import MockConfig, run_server

    by_cond = {}
    for item in p_condition or []:
        cond, _, val = item.partition("=")
        by_cond[cond.strip()] = float(val)
    try:
        config = MockConfig(p=p, p_by_condition=by_cond, seed=seed, latency_s=latency, fault_rate=fault_rate,
                            faults=[f for f in faults.split(",") if f], retry_after_s=retry_after, hang_s=hang,
                            script=json.loads(script.read_text()) if script else [])
        config.validate()
    except (ValueError, OSError) as exc:
        _error(exc)
        raise typer.Exit(2) from None
    try:
        asyncio.run(run_server(config, suite, host, port, port_file,
                               announce=lambda msg: (print(msg), sys.stdout.flush())))
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    app()
