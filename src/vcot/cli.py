"""The `vcot` command: thin wrappers that parse options, call the API and print."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table

from vcot import __version__

app = typer.Typer(add_completion=False, no_args_is_help=True, help="Visual chain-of-thought benchmarks and evaluation.")
console = Console()
err = Console(stderr=True)


def _fail(message: str, code: int = 2) -> None:
    err.print(f"[bold red]error:[/] {message}", highlight=False)
    raise typer.Exit(code)


@app.command()
def version() -> None:
    """Print the vcot version."""
    console.print(__version__)


@app.command()
def tasks() -> None:
    """List registered tasks with their domains and answer types."""
    from vcot.tasks import get_task_class, task_names

    table = Table(title="vcot tasks")
    for col in ("task", "domain", "answer type", "presets", "description"):
        table.add_column(col)
    for name in task_names():
        cls = get_task_class(name)
        table.add_row(name, cls.domain, str(cls.answer_type), "/".join(cls.presets), cls.description)
    console.print(table)


def _parse_params(items: list[str]) -> dict:
    params = {}
    for item in items:
        if "=" not in item:
            _fail(f"--param expects key=value, got {item!r}")
        key, raw = item.split("=", 1)
        try:
            params[key] = json.loads(raw)
        except json.JSONDecodeError:
            params[key] = raw
    return params


def _progress() -> Progress:
    return Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                    TimeElapsedColumn(), TimeRemainingColumn(), console=err, transient=False)


@app.command()
def generate(
    out: Annotated[Path, typer.Option("--out", "-o", help="Output suite folder")],
    task: Annotated[str | None, typer.Option("--task", "-t", help="Generate one task")] = None,
    suite: Annotated[str | None, typer.Option("--suite", "-s", help="Preset suite: mini or mira-synth")] = None,
    n: Annotated[int, typer.Option("--n", help="Instances (with --task)")] = 10,
    seed: Annotated[int, typer.Option("--seed")] = 0,
    difficulty: Annotated[str, typer.Option("--difficulty", "-d", help="easy | medium | hard")] = "medium",
    param: Annotated[list[str], typer.Option("--param", "-p", help="Override a config parameter: key=value")] = [],  # noqa: B006
    processes: Annotated[int, typer.Option("--processes", "-j", help="Worker processes")] = 1,
    name: Annotated[str | None, typer.Option("--name", help="Suite name (default: task or preset name)")] = None,
) -> None:
    """Generate a suite: one task (--task) or a preset (--suite mini|mira-synth)."""
    from vcot.build import TaskPlan, build_suite, preset_plans
    from vcot.tasks import UnknownTaskError, get_task

    if (task is None) == (suite is None):
        _fail("give exactly one of --task or --suite")
    try:
        if task is not None:
            if n <= 0:
                _fail("--n must be positive")
            params = _parse_params(param)
            get_task(task, difficulty, **params)  # validates name, difficulty and params early
            plans = [TaskPlan(task, n, seed, difficulty, params)]
            suite_name = name or task
        else:
            plans = preset_plans(suite or "", seed, difficulty)
            suite_name = name or str(suite)
    except (UnknownTaskError, ValueError, TypeError) as exc:
        _fail(str(exc))
    total = sum(p.n for p in plans)
    with _progress() as progress:
        bar = progress.add_task(f"generating {suite_name}", total=total)
        manifest = build_suite(out, suite_name, plans, processes=processes,
                               progress=lambda k: progress.advance(bar, k))
    console.print(f"wrote {manifest['total']} instances of {len(manifest['counts'])} task(s) to {out}")
    console.print(f"content hash {manifest['content_hash']}", soft_wrap=True)


@app.command()
def validate(
    suite_dir: Annotated[Path, typer.Argument(help="Suite folder")],
    resolve: Annotated[bool, typer.Option("--resolve/--no-resolve", help="Re-solve generated answers from meta")] = True,
    check_hash: Annotated[bool, typer.Option("--hash/--no-hash", help="Recompute the content hash from pixels")] = True,
) -> None:
    """Validate a suite: schema, images (fully decoded), content hash, and gold answers re-solved from meta."""
    from vcot.suite import SuiteError, compute_content_hash, read_suite
    from vcot.tasks import get_task_class, task_names

    try:
        # Recomputing the hash decodes every image anyway, so reading need not decode them first.
        s = read_suite(suite_dir, check_images="header" if check_hash else "full")
    except SuiteError as exc:
        _fail(str(exc))
    problems = []
    if check_hash:
        try:
            actual = compute_content_hash(s)
        except SuiteError as exc:
            _fail(str(exc))
        if actual != s.content_hash:
            problems.append(f"content hash mismatch: manifest {s.content_hash}, files {actual}")
    resolved = 0
    if resolve:
        registered = set(task_names())
        cache = {}
        for inst in s.instances:
            gen = inst.meta.get("generator") if isinstance(inst.meta, dict) else None
            if not gen or inst.task not in registered:
                continue
            key = (inst.task, json.dumps(gen.get("params"), sort_keys=True))
            try:
                if key not in cache:
                    cls = get_task_class(inst.task)
                    cache[key] = cls(config=cls.config_cls(**gen.get("params", {})))
                answer = cache[key].resolve(inst)
            except Exception as exc:  # a broken scene is a validation failure, not a crash
                problems.append(f"{inst.uid}: re-solve failed: {exc}")
                continue
            resolved += 1
            if answer != inst.answer:
                problems.append(f"{inst.uid}: gold answer {inst.answer!r} but re-solve gives {answer!r}")
    if problems:
        for p in problems[:50]:
            err.print(f"[red]✗[/] {p}", highlight=False)
        _fail(f"{len(problems)} problem(s) in {suite_dir}", code=1)
    console.print(f"[green]ok[/] {len(s)} instances, {len(s.manifest.get('counts', {}))} task(s); "
                  f"{resolved} answers re-solved from meta; hash {s.content_hash}", soft_wrap=True)


@app.command()
def gallery(
    suite_dir: Annotated[Path, typer.Argument(help="Suite folder")],
    out: Annotated[Path | None, typer.Option("--out", "-o", help="HTML file (default: SUITE/gallery.html)")] = None,
    per_task: Annotated[int, typer.Option("--per-task", help="At most this many instances per task (0 = all)")] = 0,
) -> None:
    """Write a self-contained HTML gallery of a suite."""
    from vcot.gallery import write_gallery
    from vcot.suite import SuiteError, read_suite

    try:
        s = read_suite(suite_dir)
    except SuiteError as exc:
        _fail(str(exc))
    uids = None
    if per_task > 0:
        seen: dict[str, int] = {}
        uids = []
        for inst in s.instances:
            if seen.get(inst.task, 0) < per_task:
                seen[inst.task] = seen.get(inst.task, 0) + 1
                uids.append(inst.uid)
    path = write_gallery(s, out or (suite_dir / "gallery.html"), uids)
    console.print(f"gallery written to {path}")


@app.command("export")
def export_cmd(
    suite_dir: Annotated[Path, typer.Argument(help="Suite folder")],
    fmt: Annotated[str, typer.Option("--format", "-f", help="parquet | mira | vlmevalkit | lmms-eval | inspect")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Output file (parquet) or folder (all others)")],
    package: Annotated[str, typer.Option(help="Python package name of the generated Inspect task package")]
    = "vcot_inspect",
) -> None:
    """Export a suite to Parquet (HF datasets), the MIRA layout, or an evaluation harness's format."""
    from vcot.suite import SuiteError, read_suite

    try:
        s = read_suite(suite_dir)
    except SuiteError as exc:
        _fail(str(exc))
    if fmt == "parquet":
        from vcot.export.parquet import export_parquet

        console.print(f"wrote {export_parquet(s, out)}")
    elif fmt == "mira":
        from vcot.export.mira import export_mira

        console.print(f"wrote MIRA layout to {export_mira(s, out)}")
    elif fmt == "vlmevalkit":
        from vcot.export.vlmevalkit import export_vlmevalkit

        console.print(f"wrote VLMEvalKit TSVs and dataset class to {export_vlmevalkit(s, out)}")
    elif fmt == "lmms-eval":
        from vcot.export.lmms_eval import export_lmms_eval

        console.print(f"wrote lmms-eval task folder to {export_lmms_eval(s, out)} "
                      f"(use: lmms-eval --include_path {out} --tasks ...)")
    elif fmt == "inspect":
        from vcot.export.inspect_ai import export_inspect

        try:
            root = export_inspect(s, out, package=package)
        except ValueError as exc:
            _fail(str(exc))
        console.print(f"wrote Inspect AI package to {root} (use: pip install {root}; "
                      f"inspect eval {package}/direct --model ...)")
    else:
        _fail(f"unknown format {fmt!r}; choose parquet, mira, vlmevalkit, lmms-eval or inspect")


@app.command("import-mira")
def import_mira_cmd(
    src: Annotated[Path, typer.Argument(help="Folder in the official MIRA release layout")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Output suite folder")],
    name: Annotated[str, typer.Option("--name")] = "mira",
) -> None:
    """Import the official MIRA release layout as a vcot suite."""
    from vcot.export.mira import import_mira
    from vcot.suite import SuiteError

    try:
        manifest = import_mira(src, out, name)
    except SuiteError as exc:
        _fail(str(exc))
    console.print(f"imported {manifest['total']} instances of {len(manifest['counts'])} task(s) into {out}")


@app.command()
def quickstart(
    out: Annotated[Path, typer.Option("--out", "-o", help="Working folder")] = Path("vcot-quickstart"),
    seed: Annotated[int, typer.Option("--seed")] = 0,
) -> None:
    """The main job on the embedded default, offline: generate the mini suite, validate it, write its
    gallery, evaluate the chance baseline under every condition the suite serves, and write the report."""
    from vcot.build import build_suite, preset_plans
    from vcot.eval_cli import eval_command
    from vcot.gallery import write_gallery
    from vcot.report_cli import report
    from vcot.suite import read_suite

    suite_dir = out / "mini"
    plans = preset_plans("mini", seed)
    with _progress() as progress:
        bar = progress.add_task("generating mini", total=sum(p.n for p in plans))
        manifest = build_suite(suite_dir, "mini", plans, processes=1, progress=lambda k: progress.advance(bar, k))
    console.print(f"mini suite: {manifest['total']} instances of {len(manifest['counts'])} tasks in {suite_dir}")
    validate(suite_dir, resolve=True, check_hash=True)
    path = write_gallery(read_suite(suite_dir), out / "gallery.html")
    console.print(f"gallery: {path}")
    run_dir = out / "run-chance"
    eval_command(suite=suite_dir, model="chance", run=run_dir, progress=False)
    report(run_dirs=[run_dir], suite=suite_dir, out=out / "report")


def _attach_subcommands() -> None:
    """Commands that live in their own modules (evaluation, mock server, report)."""
    import importlib

    for module in ("vcot.eval_cli", "vcot.report_cli", "vcot.vaot.vaot_cli", "vcot.vaot.annotate_cli"):
        try:
            sub = importlib.import_module(module)
        except ModuleNotFoundError as exc:
            if exc.name != module:  # a missing dependency inside the module is a real error
                raise
            continue
        for command in sub.app.registered_commands:
            app.registered_commands.append(command)


_attach_subcommands()


def main() -> None:  # pragma: no cover - console entry point
    app()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(app())
