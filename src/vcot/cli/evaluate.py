"""Evaluation commands: `vcot eval` runs a model over a suite; `vcot serve-mock` is the local test server."""

import asyncio
import errno
import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from vcot.cli.common import (
    check_number,
    check_port,
    console,
    err,
    fail,
    one_suite,
    parse_value,
    progress_bar,
    split_list,
)
from vcot.conditions import REGISTRY

# Exit codes of `vcot eval` beyond 0 (every sample answered) and 2 (bad options or input), listed in the README.
EXIT_SOME_FAILED = 3
EXIT_ALL_FAILED = 4
EXIT_INTERRUPTED = 130  # the shell's code for a process stopped by SIGINT


# What print_run_summary imports: warmed on a thread while the run waits on the network (runner.EvalSpec).
SUMMARY_MODULES = ("vcot.analysis.build_report", "vcot.analysis.render")


def print_run_summary(run_dir: Path, suite: Any, title: str, results: Any = None) -> None:
    """`vcot eval`'s closing table, compact (the report has every column): the same accounting as `vcot
    report` (rule-based scoring, no judge). `results` is the run's results table when the caller has it (else it is
    read from the run folder)."""
    from vcot.analysis.build_report import scored, summary_table
    from vcot.analysis.render import to_rich
    from vcot.engine.results import results_table

    rows = (results_table(run_dir) if results is None else results).to_pylist()
    table = summary_table(scored(rows), suite, compact=True)
    table.title = title
    console.print(to_rich(table))
    from vcot.process.tables import judging_tables

    judging = judging_tables(rows)  # a step-judging suite: the judge against the judge-free baselines
    if judging:
        console.print(to_rich(judging[0][1]))


def eval_command(
    suite: Annotated[Path | None, typer.Argument(help="Suite folder", metavar="SUITE", show_default=False)] = None,
    suite_option: Annotated[Path | None, typer.Option("--suite", hidden=True, help="Same as SUITE")] = None,
    model: Annotated[
        str | None,
        typer.Option(
            "--model",
            help="chance (the default) | openai/NAME | anthropic/NAME "
            "| google/NAME | hf:PATH (a local transformers VLM "
            "in-process; VCOT_HF_* variables, docs/models.md) | "
            "NAME with --base-url (default there: the one model "
            "the server lists)",
            show_default=False,
        ),
    ] = None,
    base_url: Annotated[
        list[str] | None,
        typer.Option(
            "--base-url",
            metavar="URL",
            help="OpenAI-compatible endpoint, e.g. "
            "http://host:8000/v1; repeatable: "
            "several servers of one model share "
            "the work",
        ),
    ] = None,
    endpoint_concurrency: Annotated[
        int | None,
        typer.Option(
            "--endpoint-concurrency",
            help="With several --base-url: requests in flight at each at most (default: "
            "only --concurrency bounds them)",
            show_default=False,
        ),
    ] = None,
    api_key_env: Annotated[
        str | None,
        typer.Option(
            "--api-key-env", help="Environment variable holding the API key (with --base-url: none sent unless given)"
        ),
    ] = None,
    conditions: Annotated[
        list[str] | None,
        typer.Option(
            "--conditions",
            "-c",
            metavar="NAME,…",
            help=f"Comma-separated, of: {', '.join(REGISTRY.names())}, visual_cot_prefix_kN (the first N "
            "steps). Default: every default "
            "condition the suite can serve",
        ),
    ] = None,
    epochs: Annotated[
        int, typer.Option("--epochs", help="Times each instance is asked (answers vary with sampling)")
    ] = 1,
    concurrency: Annotated[int, typer.Option("--concurrency", help="Requests in flight at once")] = 8,
    rpm: Annotated[float | None, typer.Option("--rpm", help="Requests per minute cap")] = None,
    limit: Annotated[int | None, typer.Option("--limit", help="At most K instances per task")] = None,
    tasks: Annotated[
        list[str] | None, typer.Option("--tasks", metavar="TASK,…", help="Comma-separated task names")
    ] = None,
    max_tokens: Annotated[
        int | None,
        typer.Option("--max-tokens", help="Output token cap per reply (replies cut by it are counted as truncated)"),
    ] = 8192,
    temperature: Annotated[
        float | None, typer.Option("--temperature", help="Sampling temperature (default: the provider's)")
    ] = None,
    top_p: Annotated[float | None, typer.Option("--top-p", help="Nucleus sampling (default: the provider's)")] = None,
    seed: Annotated[int | None, typer.Option("--seed", help="Per-request seed (plus the epoch)")] = None,
    timeout: Annotated[
        float,
        typer.Option(
            "--timeout", help="Deadline of each attempt at a call, seconds (however slowly the reply arrives)"
        ),
    ] = 600.0,
    max_reply_mb: Annotated[
        float, typer.Option("--max-reply-mb", help="Largest reply body accepted, MiB (a larger one fails the call)")
    ] = 8.0,
    max_attempts: Annotated[int, typer.Option("--max-attempts", help="Attempts per call incl. retries")] = 6,
    malformed_attempts: Annotated[
        int,
        typer.Option(
            "--malformed-attempts",
            help="Attempts per call when the reply arrives whole but vcot cannot use it "
            "(2,000 tool calls, a numeric tool name): each is a paid request",
        ),
    ] = 2,
    max_side: Annotated[int, typer.Option("--max-side", help="Longest image side sent, pixels")] = 2000,
    image_format: Annotated[str, typer.Option("--image-format", help="keep | png | jpeg")] = "keep",
    run: Annotated[Path | None, typer.Option("--run", help="Run folder (rerun to resume)")] = None,
    runs_root: Annotated[Path, typer.Option("--runs-root", help="Parent of default run folders")] = Path("runs"),
    tag_requests: Annotated[
        bool, typer.Option("--tag-requests", help="Send X-Vcot-Call headers (mock server, proxies)")
    ] = False,
    progress: Annotated[bool, typer.Option("--progress/--no-progress", help="Show a progress bar")] = True,
) -> None:
    """Evaluate a model on a suite under the chosen conditions; resumable, prints accuracy per condition."""
    from vcot.analysis.units import count_phrase
    from vcot.conditions import ConditionError
    from vcot.engine.errors import ConfigError
    from vcot.engine.retry import RetryPolicy
    from vcot.engine.runner import EvalSpec, Progress, run_eval
    from vcot.engine.settings import GenSettings
    from vcot.images import ImagePolicy
    from vcot.suite import SuiteError, read_suite

    suite = one_suite(suite, suite_option, required=True)
    _check_eval_numbers(
        timeout=timeout,
        temperature=temperature,
        top_p=top_p,
        rpm=rpm,
        epochs=epochs,
        concurrency=concurrency,
        limit=limit,
        max_tokens=max_tokens,
        max_attempts=max_attempts,
        max_side=max_side,
    )
    if run is not None and run.exists() and not run.is_dir():
        fail(f"--run {run}: exists and is not a folder; give a run folder (new, or one to resume)")
    urls = base_url or []
    model = _model_to_ask(model, urls[0] if len(urls) == 1 else urls or None, api_key_env)
    try:
        spec = EvalSpec(
            suite=suite,
            model=model,
            base_url=urls[0] if len(urls) == 1 else urls or None,
            api_key_env=api_key_env,
            conditions=split_list(conditions),
            epochs=epochs,
            limit=limit,
            tasks=split_list(tasks),
            concurrency=concurrency,
            endpoint_concurrency=endpoint_concurrency,
            requests_per_minute=rpm,
            settings=GenSettings(
                max_tokens=max_tokens,
                temperature=temperature,
                top_p=top_p,
                seed=seed,
                timeout_s=timeout,
                max_reply_bytes=_reply_bytes(max_reply_mb),
            ),
            image_policy=ImagePolicy(max_side=max_side, format=image_format),
            retry=RetryPolicy(max_attempts=max_attempts, malformed_attempts=malformed_attempts),
            run_dir=run,
            runs_root=runs_root,
            tag_requests=tag_requests,
            warm_modules=SUMMARY_MODULES,
        )
    except ValueError as exc:
        fail(exc)

    def columns() -> tuple[Any, ...]:
        from rich.progress import BarColumn, TextColumn, TimeElapsedColumn, TimeRemainingColumn

        return (
            TextColumn("{task.description}"),
            BarColumn(),
            TextColumn("{task.completed}/{task.total}"),
            TextColumn("errors {task.fields[errors]} · retries {task.fields[retries]} · tokens {task.fields[tokens]}"),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
        )

    bar = progress_bar(progress, columns, refresh_per_second=4)
    task_id = bar.add_task("eval", total=None, errors=0, retries=0, tokens=0)

    suite_name: dict[str, str] = {}

    def on_start(info: dict[str, Any]) -> None:
        suite_name["name"] = info["suite_name"]
        skipped = info["skipped_conditions"]
        # ASCII only: a log's line must fit its width in bytes too (mawk's `length` counts bytes).
        err.print(
            f"run {info['run_id']} in {info['run_dir']}: {count_phrase(info['selected'])}; conditions "
            f"{', '.join(info['conditions'])}; {epochs} epoch(s)",
            markup=False,
        )
        for cond, reason in skipped.items():
            err.print(f"  skipped {cond}: {reason}", markup=False)
        bar.update(task_id, description=model)
        bar.start()

    def on_progress(p: Progress) -> None:
        bar.update(
            task_id,
            total=p.total,
            completed=p.resumed + p.done + p.errors,
            errors=p.errors,
            retries=p.retries,
            tokens=p.input_tokens + p.output_tokens,
        )

    try:
        result = run_eval(spec, on_progress, on_start)
    except (ConfigError, SuiteError, ConditionError) as exc:
        bar.stop()
        fail(exc)
    except KeyboardInterrupt:
        bar.stop()
        fail("interrupted: every finished sample is stored; rerun the same command to resume", code=EXIT_INTERRUPTED)
    except OSError as exc:
        bar.stop()
        if exc.errno != errno.ENOSPC:
            raise
        # Every committed sample is in the store: the same command resumes once there is room.
        fail(
            f"no space left on device: {exc.filename or run or runs_root}; every finished sample is stored; free "
            "some space and rerun the same command to resume"
        )
    finally:
        bar.stop()
    p = result.progress
    unusable = f" ({p.malformed_retries} after an unusable reply)" if p.malformed_retries else ""
    err.print(
        f"finished: {p.done} answered, {p.errors} failed, {p.resumed} already done, {p.retries} retries{unusable}"
    )
    if result.endpoints:
        _print_endpoints(result.endpoints)
    print_run_summary(
        result.run_dir,
        result.suite or read_suite(suite, check_images="none"),
        f"{model} on {suite_name.get('name', suite.name)}",
        result.table,
    )
    console.print(f"results: {result.results_path}")
    if p.errors:
        # Scripts must be able to tell a run with failures from a clean one; rerunning retries them.
        every = p.done + p.resumed == 0
        _print_failures(result, every, model, urls[0] if urls else None)
        raise typer.Exit(EXIT_ALL_FAILED if every else EXIT_SOME_FAILED)


def serve_mock(
    suite: Annotated[
        Path | None,
        typer.Argument(help="Suite whose gold answers drive the policy", metavar="SUITE", show_default=False),
    ] = None,
    suite_option: Annotated[Path | None, typer.Option("--suite", hidden=True, help="Same as SUITE")] = None,
    host: Annotated[
        str,
        typer.Option(
            "--host", help="Address to listen on (not loopback: a warning, anyone who reaches it can use the server)"
        ),
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="0 picks a free port")] = 8000,
    port_file: Annotated[Path | None, typer.Option("--port-file", help="Write the bound port here")] = None,
    p: Annotated[float, typer.Option("--correct-rate", "--p", help="Probability of a correct answer")] = 0.5,
    p_condition: Annotated[
        list[str] | None,
        typer.Option(
            "--correct-rate-for", "--p-condition", metavar="CONDITION=P", help="Per-condition correct rate, repeatable"
        ),
    ] = None,
    p_param: Annotated[
        list[str] | None,
        typer.Option(
            "--correct-rate-by-param",
            metavar="NAME=VALUE:P",
            help="Correct rate for instances generated with this "
            "parameter value, repeatable (scripts a model for "
            "vcot sweep)",
        ),
    ] = None,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the policy's random choices")] = 0,
    latency: Annotated[float, typer.Option("--latency", help="Seconds per request")] = 0.0,
    fault_rate: Annotated[float, typer.Option("--fault-rate", help="Fraction of requests that fail")] = 0.0,
    faults: Annotated[
        str,
        typer.Option(
            "--faults",
            metavar="FAULT,…",
            help="Fault kinds drawn from: 429, 500, "
            "timeout, malformed, truncated, drop, hostile (a 200 reply with attacking "
            "text), usage_list, message_str, tokens_str, tokens_huge, "
            "finish_object, parts_nonstr, deep_nesting, huge_header (well-formed "
            "hostile bodies)",
        ),
    ] = "429,500,timeout,malformed,truncated,drop",
    retry_after: Annotated[float, typer.Option("--retry-after", help="Retry-After seconds on 429")] = 0.05,
    hang: Annotated[float, typer.Option("--hang", help="Seconds a 'timeout' fault hangs")] = 30.0,
    script: Annotated[Path | None, typer.Option("--script", help="JSON list of tool-call turns")] = None,
    truncate_rate: Annotated[
        float,
        typer.Option("--truncate-rate", help="Fraction of answers cut off by the token limit (finish_reason length)"),
    ] = 0.0,
    judge: Annotated[
        str,
        typer.Option(
            "--judge",
            metavar="POLICY",
            help="On a step-judging suite: 'scripted' "
            "names the first wrong step with the correct rate, 'all_correct' always "
            "says every step is correct",
        ),
    ] = "scripted",
) -> None:
    """A local OpenAI-compatible server with a scripted policy, latency and fault injection."""
    from vcot.engine.mock import MockConfig, run_server
    from vcot.net import is_loopback, listen_error

    suite = one_suite(suite, suite_option, required=False)
    check_port(port)
    check_number(latency, "--latency", what="a number of seconds")
    check_number(retry_after, "--retry-after", what="a number of seconds")
    check_number(hang, "--hang", what="a number of seconds")
    for rate, option in ((p, "--correct-rate"), (fault_rate, "--fault-rate"), (truncate_rate, "--truncate-rate")):
        check_number(rate, option, high=1.0, what="a rate")
    if not is_loopback(host):
        err.print(
            f"warning: listening on {host}: anyone who can reach this machine can use the mock server "
            "and change its configuration (POST /config)",
            markup=False,
            soft_wrap=True,
        )
    by_cond = {}
    for item in p_condition or []:
        cond, _, val = item.partition("=")
        try:
            by_cond[cond.strip()] = float(val)
        except ValueError:
            fail(f"--correct-rate-for {item!r}: expected CONDITION=P, P a number in 0..1")
    by_param = {}
    for item in p_param or []:
        setting, _, val = item.rpartition(":")
        name, eq, value = setting.partition("=")
        if not eq or not name.strip():
            fail(f"--correct-rate-by-param {item!r}: expected NAME=VALUE:P, e.g. size=5:0.8")
        by_param[f"{name.strip()}={json.dumps(parse_value(value.strip()))}"] = _rate(val, item)
    try:
        config = MockConfig(
            p=p,
            p_by_condition=by_cond,
            p_by_param=by_param,
            seed=seed,
            latency_s=latency,
            fault_rate=fault_rate,
            faults=[f for f in faults.split(",") if f],
            retry_after_s=retry_after,
            hang_s=hang,
            script=json.loads(script.read_text()) if script else [],
            truncate_rate=truncate_rate,
            judge=judge,
        )
        config.validate()
    except (ValueError, OSError) as exc:
        fail(exc)
    try:
        asyncio.run(
            run_server(config, suite, host, port, port_file, announce=lambda msg: (print(msg), sys.stdout.flush()))
        )
    except KeyboardInterrupt:
        pass
    except OSError as exc:
        if exc.filename is not None:  # the --port-file, not the address
            fail(exc)
        fail(listen_error(exc, host, port))


def sweep(
    task: Annotated[str, typer.Option("--task", "-t", help="The task whose knob is swept")],
    param: Annotated[
        str | None,
        typer.Option(
            "--param",
            "-p",
            metavar="NAME=V1,V2,…|NAME=LO..HI",
            help="Generator parameter and its values (vcot tasks lists "
            "them); a range LO..HI with --target-accuracy. Default: "
            "the presets easy, medium, hard",
        ),
    ] = None,
    n: Annotated[int, typer.Option("--n", help="Instances per value")] = 50,
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="Sweep folder (rerun to resume); default sweep-TASK-NAME")
    ] = None,
    model: Annotated[str | None, typer.Option("--model", help="As for vcot eval", show_default=False)] = None,
    base_url: Annotated[str | None, typer.Option("--base-url", help="As for vcot eval")] = None,
    api_key_env: Annotated[str | None, typer.Option("--api-key-env", help="As for vcot eval")] = None,
    conditions: Annotated[
        str, typer.Option("--conditions", "-c", metavar="NAME,…", help="Conditions, one curve each")
    ] = "direct",
    seed: Annotated[int, typer.Option("--seed", help="Seed of the first value's suite (value k: seed + k)")] = 0,
    difficulty: Annotated[
        str, typer.Option("--difficulty", "-d", help="Preset the other parameters come from")
    ] = "medium",
    concurrency: Annotated[int, typer.Option("--concurrency", help="Requests in flight at once")] = 8,
    target_accuracy: Annotated[
        float | None,
        typer.Option(
            "--target-accuracy",
            help="Search the integer knob in LO..HI for the value where the model scores "
            "this accuracy (0..1) under the first condition",
        ),
    ] = None,
    generate_only: Annotated[bool, typer.Option("--generate-only", help="Write the suites, evaluate nothing")] = False,
    tag_requests: Annotated[bool, typer.Option("--tag-requests", help="As for vcot eval")] = False,
) -> None:
    """Accuracy against a difficulty knob: one suite per value, each evaluated; a table, a plot with Wilson
    intervals, and where accuracy crosses 50 % and reaches chance (docs/evaluation.md, "Difficulty sweeps")."""
    from vcot.analysis.render import to_rich
    from vcot.analysis.sweep import PRESETS, SweepResult, SweepSpec, run_sweep, search_target, sweep_table
    from vcot.build import check_params
    from vcot.engine.errors import ConfigError
    from vcot.suite import SuiteError
    from vcot.tasks import UnknownTaskError, get_task

    conds = split_list([conditions]) or ["direct"]
    unknown = [c for c in conds if not REGISTRY.known(c)]
    if unknown:
        fail(REGISTRY.unknown_message(unknown))
    if n < 1:
        fail("--n must be positive")
    name: str | None = None
    rng: tuple[int, int] | None = None
    if param is None:
        values: list[Any] = list(PRESETS)
    else:
        name, eq, raw = param.partition("=")
        name = name.strip()
        if not eq or not name or not raw:
            fail(f"--param {param!r}: expected NAME=V1,V2,… or NAME=LO..HI")
        if ".." in raw:
            lo_text, _, hi_text = raw.partition("..")
            lo, hi = parse_value(lo_text), parse_value(hi_text)
            if not (isinstance(lo, int) and isinstance(hi, int) and lo < hi):
                fail(f"--param {param!r}: a range needs two integers LO < HI")
            rng = (lo, hi)
            values = [lo, hi]
        else:
            values = [parse_value(v.strip(), f"--param {name}") for v in raw.split(",") if v.strip()]
        if len(values) < 2 or len({json.dumps(v) for v in values}) != len(values):
            fail(f"--param {param!r}: give at least two distinct values")
    if (target_accuracy is None) != (rng is None):
        fail("--target-accuracy needs a range --param NAME=LO..HI, and a range needs --target-accuracy")
    if target_accuracy is not None and not 0 <= target_accuracy <= 1:
        fail("--target-accuracy must be in 0..1")
    try:
        for v in values:  # every value checked (type and range) before anything is generated
            if name is None:
                get_task(task, str(v))
            else:
                get_task(task, difficulty, **check_params(task, {name: v}))
    except (UnknownTaskError, ValueError, TypeError) as exc:
        fail(exc)
    folder = out or Path(f"sweep-{task}-{name or 'preset'}")
    model = model if generate_only else _model_to_ask(model, base_url, api_key_env)
    spec = SweepSpec(
        task=task,
        param=name,
        values=values,
        n=n,
        out=folder,
        model=model or "chance",
        base_url=base_url,
        api_key_env=api_key_env,
        conditions=conds,
        seed=seed,
        difficulty=difficulty,
        concurrency=concurrency,
        tag_requests=tag_requests,
    )

    def announce(value: Any) -> None:
        err.print(f"{task}: {name or 'preset'} = {value}", markup=False)

    try:
        if rng is not None:
            assert target_accuracy is not None
            best, points = search_target(spec, rng[0], rng[1], target_accuracy, conds[0], announce)
            spec.values = [p.value for p in points]
            spec.conditions = conds[:1]
            console.print(to_rich(sweep_table(SweepResult(spec, points))))
            cell_best = next(p.cell for p in points if p.value == best)
            console.print(
                f"{name} = {best}: accuracy {cell_best.full()} %, nearest to the target "
                f"{100 * target_accuracy:.0f} % under {conds[0]}",
                markup=False,
            )
            return
        result = run_sweep(spec, generate_only=generate_only, on_value=announce)
    except (ConfigError, SuiteError) as exc:
        fail(exc)
    if result is None:
        console.print(f"suites: {folder / 'suites'}", markup=False)
        return
    console.print(to_rich(sweep_table(result)))
    console.print(f"wrote {folder / 'sweep.md'}, {folder / 'sweep.png'} and {folder / 'sweep.json'}", markup=False)


def _model_to_ask(model: str | None, base_url: str | list[str] | None, api_key_env: str | None) -> str:
    """--model as given; without it chance, or with --base-url the one model the server lists (said so); with
    several, the one model every one of them lists."""
    if model is not None or not base_url:
        return model or "chance"
    from vcot.engine.clients import served_model, served_model_of_all
    from vcot.engine.errors import ConfigError

    try:
        if isinstance(base_url, str):
            found = served_model(base_url, api_key_env)
            said = f"using model {found}, the only one {base_url} lists"
        else:
            found = served_model_of_all(base_url, api_key_env)
            said = f"using model {found}, the only one each of the {len(base_url)} endpoints lists"
    except ConfigError as exc:
        fail(exc)
    err.print(said, markup=False, soft_wrap=True)
    return found


def _print_endpoints(endpoints: list[dict[str, Any]]) -> None:
    """One closing line per endpoint of a run over several: its share of the requests, errors and latency
    (URLs as stored: without credentials)."""
    total = sum(e["requests"] for e in endpoints) or 1

    def secs(value: float | None) -> str:
        return "-" if value is None else f"{value:.3f} s"

    err.print("endpoints:", markup=False)
    for e in endpoints:
        kinds = ", ".join(f"{n} {k}" for k, n in sorted(e["error_kinds"].items(), key=lambda kv: -kv[1]))
        out = f", taken out {e['taken_out']}x" if e["taken_out"] else ""
        err.print(
            f"  {e['url']}: {e['requests']} requests ({100 * e['requests'] / total:.0f}%), {e['ok']} ok, "
            f"{e['errors']} errors{f' ({kinds})' if kinds else ''}{out}; latency mean {secs(e['mean_s'])}, "
            f"p50 {secs(e['p50_s'])}",
            markup=False,
            highlight=False,
            soft_wrap=True,
        )


def _print_failures(result: Any, every: bool, model: str, base_url: str | None) -> None:
    """The closing lines of a run with failed samples: their most frequent causes with counts, each one line
    of the terminal, and the fix of the causes vcot knows."""
    from vcot.engine.diagnose import error_causes, failure_lines, http_status

    p = result.progress
    table = result.table
    if table is None:
        from vcot.engine.results import results_table

        table = results_table(result.run_dir)
    errors = [e for e in table.column("error").to_pylist() if e]  # a failed sample's row, and only it, has one
    head = f"{'every' if every else 'some'} sample(s) failed ({p.errors} of {p.total})"
    status = http_status(error_causes(errors)) if every else None
    if status:
        head += f", with HTTP {status}"
    err.print(f"{head}; the most frequent causes:", markup=False, soft_wrap=True)
    for line in failure_lines(errors, base_url, model, width=err.width):
        err.print(line, markup=False, highlight=False, soft_wrap=True)
    err.print("rerun the same command to retry them", markup=False, soft_wrap=True)


def _check_eval_numbers(
    *,
    timeout: float,
    temperature: float | None,
    top_p: float | None,
    rpm: float | None,
    epochs: int,
    concurrency: int,
    limit: int | None,
    max_tokens: int | None,
    max_attempts: int,
    max_side: int,
) -> None:
    """`vcot eval`'s numbers, named as typed: NaN, infinity or a negative count get one line, not a traceback
    or a run that waits forever."""
    check_number(timeout, "--timeout", strict=True, what="a number of seconds")
    check_number(temperature, "--temperature", what="a sampling temperature")
    check_number(top_p, "--top-p", strict=True, high=1.0, what="a probability")
    # --rpm and --max-attempts have the engine's own checks and messages (runner.arun_eval, RetryPolicy).
    for value, option in (
        (epochs, "--epochs"),
        (concurrency, "--concurrency"),
        (limit, "--limit"),
        (max_tokens, "--max-tokens"),
        (max_side, "--max-side"),
    ):
        if value is not None and value < 1:
            fail(f"{option} {value}: must be at least 1")


def _reply_bytes(mb: float) -> int:
    if not 0 < mb < 2**40:  # also refuses NaN and infinity
        raise ValueError(f"--max-reply-mb must be a positive number of MiB, got {mb}")
    return max(1, int(mb * 2**20))


def _rate(text: str, item: str) -> float:
    try:
        return float(text)
    except ValueError:
        fail(f"--correct-rate-by-param {item!r}: P must be a number in 0..1")


def register(app: typer.Typer) -> None:
    app.command("eval")(eval_command)
    app.command("serve-mock")(serve_mock)
    app.command("sweep")(sweep)
