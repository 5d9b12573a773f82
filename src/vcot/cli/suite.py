"""Suite commands: build, check, look at and convert suites, and the quickstart that runs the main job."""

import json
import os
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from vcot.cli.common import console, counter, err, fail, parse_params, progress_bar
from vcot.version import __version__


def version() -> None:
    """Print the vcot version."""
    console.print(__version__)


def tasks(
    name: Annotated[
        str | None,
        typer.Argument(metavar="[NAME]", help="One task to show in full: its parameters as a table, every value whole"),
    ] = None,
) -> None:
    """List registered tasks: domain, answer type, description and every parameter (--param key=value) with
    its easy/medium/hard preset values and the range or values it may take (a value outside is refused with
    the reason; docs/tasks/README.md, "Parameter limits"). With NAME, that task in full."""
    from vcot.tasks import UnknownTaskError, get_task_class, task_names

    if name is not None:
        try:
            cls = get_task_class(name)
        except UnknownTaskError as exc:
            fail(exc)
        _one_task(cls)
        return
    table = Table(
        title="vcot tasks (parameter values: easy/medium/hard, then the allowed range or values)", show_lines=True
    )
    for col in ("task", "domain", "answer type", "description", "parameters"):
        # fold, never "…": a preset value cut short is a value the reader cannot type back (issue 45).
        table.add_column(col, overflow="fold")
    for task in task_names():
        cls = get_task_class(task)
        lines = [
            f"{f}: {tp} = {vals[0] if len(set(vals)) == 1 else '/'.join(vals)}{'  ' + allowed if allowed else ''}"
            for f, tp, vals, allowed in _parameter_rows(cls)
        ]
        table.add_row(task, cls.domain, str(cls.answer_type), cls.description, "\n".join(lines), end_section=False)
    console.print(table, markup=False, highlight=False)
    console.print("vcot tasks NAME shows one task in full, a column per difficulty.", markup=False, highlight=False)


def _parameter_rows(cls: type) -> list[tuple[str, str, list[str], str]]:
    """Per config field, in field order: name, type, its value at each preset present (easy, medium, hard) as
    JSON, and the range or values it may take ("" when unlimited)."""
    import dataclasses
    import typing

    from vcot.tasks.base import Limit

    hints = typing.get_type_hints(cls.config_cls)
    levels = [lv for lv in ("easy", "medium", "hard") if lv in cls.presets]
    rows = []
    for f in dataclasses.fields(cls.config_cls):
        values = [json.dumps(getattr(cls.presets[lv], f.name), default=str) for lv in levels]
        tp = hints.get(f.name, f.type)
        limit = cls.limits.get(f.name)
        allowed = (
            f"in {limit.lo:g}..{limit.hi:g}"
            if isinstance(limit, Limit)
            else f"one of {', '.join(limit.values)}"
            if limit is not None
            else ""
        )
        rows.append((f.name, str(getattr(tp, "__name__", None) if isinstance(tp, type) else tp), values, allowed))
    return rows


def _one_task(cls: type) -> None:
    """`vcot tasks NAME`: the task's facts, then its parameters with one column per difficulty; long values
    wrap, none is cut."""
    levels = [lv for lv in ("easy", "medium", "hard") if lv in cls.presets]
    console.print(f"{cls.name}: {cls.domain}, answer type {cls.answer_type}", markup=False, highlight=False)
    console.print(cls.description, markup=False, highlight=False)
    table = Table(title=f"{cls.name} parameters (--param NAME=VALUE)", show_lines=True)
    rows = _parameter_rows(cls)
    # Names and types stay whole on one line; the values wrap (between words where they can), never cut.
    for col in ("parameter", "type"):
        table.add_column(col, no_wrap=True)
    for col in (*levels, "allowed"):
        table.add_column(col, overflow="fold")
    for f, tp, values, allowed in rows:
        table.add_row(f, tp, *values, allowed or "any")
    console.print(table, markup=False, highlight=False)


# One suite folder holds every instance's files and the build keeps per-instance bookkeeping (the job list,
# uids, scene keys), so without --shards, which streams, --n is bounded before anything runs.
MAX_SUITE_N = 1_000_000


def generate(
    out: Annotated[
        str,
        typer.Option(
            "--out",
            "-o",
            metavar="DIR",
            help="Output suite folder (with --shards: the "
            "shard-set folder, or a URI pyarrow accepts such as s3://bucket/set)",
        ),
    ],
    task: Annotated[str | None, typer.Option("--task", "-t", help="Generate one task")] = None,
    suite: Annotated[
        str | None, typer.Option("--preset", "--suite", "-s", help="Preset suite: mini, mira-synth or see2think-synth")
    ] = None,
    n: Annotated[int, typer.Option("--n", help="Instances (with --task)")] = 10,
    seed: Annotated[int, typer.Option("--seed", help="Suite seed: same seed and parameters, same instances")] = 0,
    difficulty: Annotated[str, typer.Option("--difficulty", "-d", help="easy | medium | hard")] = "medium",
    param: Annotated[
        list[str],
        typer.Option(
            "--param", "-p", metavar="KEY=VALUE", help="Override a config parameter, repeatable (vcot tasks lists them)"
        ),
    ] = [],  # noqa: B006
    processes: Annotated[int, typer.Option("--processes", "-j", help="Worker processes")] = 1,
    progress: Annotated[bool, typer.Option("--progress/--no-progress", help="Show a progress bar")] = True,
    name: Annotated[str | None, typer.Option("--name", help="Suite name (default: task or preset name)")] = None,
    shards: Annotated[
        int | None,
        typer.Option(
            "--shards",
            min=1,
            metavar="K",
            help="Stream the instances into this many shards with a manifest, resumable (docs/scale.md)",
        ),
    ] = None,
    fmt: Annotated[
        str | None,
        typer.Option("--format", "-f", help="Shard format with --shards: parquet (the default) | webdataset | folder"),
    ] = None,
    backend: Annotated[
        str | None,
        typer.Option(
            "--backend", help="Where shards run with --shards: local (the default; --processes worker processes) | ray"
        ),
    ] = None,
    ray_address: Annotated[
        str | None,
        typer.Option(
            "--ray-address", metavar="ADDR", help="Ray cluster to join with --backend ray (default: start a local one)"
        ),
    ] = None,
    overwrite: Annotated[
        bool,
        typer.Option(
            "--overwrite",
            help="With --shards: replace the shards of another plan (or shard-named files without a manifest) in --out",
        ),
    ] = False,
) -> None:
    """Generate a suite: one task (--task) or a preset (--preset mini|mira-synth|see2think-synth); with
    --shards, a shard set (Parquet, WebDataset or suite folders) written streaming, resumable, on local
    processes or Ray."""
    from vcot.build import build_suite, generation_plans
    from vcot.suite import SuiteError
    from vcot.tasks import UnknownTaskError

    if (task is None) == (suite is None):
        fail("give exactly one of --task or --preset")
    if task is not None and n <= 0:
        fail("--n must be positive")
    if task is not None and shards is None and n > MAX_SUITE_N:
        fail(
            f"--n: {n:,} instances is over the limit of {MAX_SUITE_N:,} for one suite folder (its plan and "
            "bookkeeping grow with --n); stream a larger set with --shards K (docs/scale.md)"
        )
    if processes < 1:
        fail(f"--processes must be at least 1, got {processes}")
    if shards is None and (fmt is not None or backend is not None or ray_address is not None or overwrite):
        fail("--format, --backend, --ray-address and --overwrite go with --shards (a suite without it is one folder)")
    if "://" not in out and Path(out).exists() and not Path(out).is_dir():
        fail(f"--out {out}: exists and is not a folder")
    params = parse_params(param) if task is not None else {}
    try:
        plans, default_name = generation_plans(task, suite, n, seed, difficulty, params)
    except (UnknownTaskError, ValueError, TypeError) as exc:
        fail(exc)
    suite_name = name or default_name
    total = sum(p.n for p in plans)
    if shards is not None:
        _generate_shards(
            out,
            suite_name,
            plans,
            shards,
            fmt or "parquet",
            backend or "local",
            processes,
            ray_address,
            progress,
            overwrite,
        )
        return
    try:
        with progress_bar(progress) as shown:
            bar = shown.add_task(f"generating {suite_name}", total=total)
            manifest = build_suite(
                Path(out), suite_name, plans, processes=processes, progress=lambda k: shown.advance(bar, k)
            )
    except (SuiteError, ValueError) as exc:  # BuildError is a ValueError
        fail(exc)
    except KeyboardInterrupt:
        fail(f"interrupted: {out} is unfinished (it has no manifest); rerun the command to generate it", code=130)
    console.print(f"wrote {manifest['total']} instances of {len(manifest['counts'])} task(s) to {out}")
    console.print(f"content hash {manifest['content_hash']}", soft_wrap=True)


def _generate_shards(
    out: str,
    name: str,
    plans: list,
    shards: int,
    fmt: str,
    backend: str,
    processes: int,
    ray_address: str | None,
    progress: bool,
    overwrite: bool = False,
) -> None:
    from vcot.cli.common import require
    from vcot.shards import ShardError, generate_shards

    if backend == "ray":
        require("ray", "scale")
    try:
        with progress_bar(progress) as shown:
            bar = shown.add_task(f"generating {name} in {shards} {fmt} shards", total=sum(p.n for p in plans))
            manifest = generate_shards(
                out,
                name,
                plans,
                shards,
                fmt,
                backend=backend,
                processes=processes,
                ray_address=ray_address,
                progress=lambda k: shown.advance(bar, k),
                overwrite=overwrite,
            )
    except (ShardError, ValueError, OSError) as exc:  # BuildError is a ValueError
        fail(exc)
    except KeyboardInterrupt:
        fail(
            f"interrupted: the shards listed in {out}/manifest.json are finished; rerun the same command to "
            "write the rest",
            code=130,
        )
    console.print(
        f"wrote {manifest['total']} instances of {len(manifest['counts'])} task(s) in {shards} {fmt} "
        f"shards to {out} (manifest.json lists each shard's count and sha256)",
        soft_wrap=True,
    )


def validate(
    suite_dir: Annotated[Path, typer.Argument(help="Suite folder")],
    resolve: Annotated[
        bool, typer.Option("--resolve/--no-resolve", help="Re-solve generated answers from meta")
    ] = True,
    check_hash: Annotated[bool, typer.Option("--hash/--no-hash", help="Recompute the content hash from pixels")] = True,
    oracle: Annotated[
        bool,
        typer.Option(
            "--oracle",
            help="Also re-derive every answer with the task's independent oracle (no code shared with the solver)",
        ),
    ] = False,
) -> None:
    """Validate a suite: schema, images (fully decoded), content hash, gold answers re-solved from meta (and
    by an independent oracle with --oracle), no scene repeated."""
    from vcot.suite import SuiteError
    from vcot.validate import validate_suite

    try:
        report = validate_suite(suite_dir, resolve=resolve, check_hash=check_hash, oracle=oracle)
    except SuiteError as exc:
        fail(exc)
    if report.problems:
        for p in report.problems[:50]:
            err.print(f"[red]✗[/] {p}", highlight=False)
        fail(f"{len(report.problems)} problem(s) in {suite_dir}", code=1)
    s = report.suite
    by_oracle = f"; {report.oracle_checked} re-derived by independent oracles" if oracle else ""
    console.print(
        f"[green]ok[/] {len(s)} instances, {len(s.manifest.get('counts', {}))} task(s); "
        f"{report.resolved} answers re-solved from meta{by_oracle}; no repeated scene; "
        f"hash {s.content_hash}",
        soft_wrap=True,
    )
    if report.no_oracle:
        err.print(f"no oracle yet for: {', '.join(sorted(report.no_oracle))}", markup=False)


def audit(
    suite_dir: Annotated[Path, typer.Argument(help="Suite folder")],
) -> None:
    """Run non-solving baselines (question-only, candidates-only, single-cue heuristics) per task and
    difficulty, and print each one's accuracy beside the chance level; exits 1 when one is shown (one-sided
    exact binomial test, p <= 0.05) to beat chance by more than 20 points."""
    from vcot.analysis.audit import ALPHA, MARGIN, TOO_FEW, audit_rich, audit_table, audit_verdicts
    from vcot.suite import SuiteError, read_suite

    try:
        s = read_suite(suite_dir, check_images="none")
    except SuiteError as exc:
        fail(exc)
    verdicts = audit_verdicts(s.instances)
    table = audit_table(verdicts)
    console.print(audit_rich(table))
    # The rich table has no note; without it a reader cannot tell what flags a cell or what "too few" means.
    console.print(table.note, markup=False, highlight=False)
    flagged = [v for v in verdicts if v.shortcut]
    too_few = sum(v.label == TOO_FEW for v in verdicts)
    claim = f"beat chance by more than {100 * MARGIN:.0f} points (p <= {ALPHA:g})"
    # Every line wraps at the console's width (100 columns in a pipe): the verdict is read, not grepped whole.
    for v in flagged:  # every one, so none hides behind a count
        console.print(
            f"shortcut: {v.task} {v.difficulty} {v.baseline}: {v.right}/{v.n} right "
            f"({100 * v.accuracy:.1f}% against chance {100 * v.chance:.1f}%), p = {v.p_value:.2g}",
            markup=False,
            highlight=False,
        )
    if too_few:
        console.print(
            f"{too_few} of {len(verdicts)} cells have too few items for a verdict", markup=False, highlight=False
        )
    if flagged:
        fail(f"{len(flagged)} baseline(s) shown to {claim}", code=1)
    console.print(f"no baseline shown to {claim}", markup=False, highlight=False)


def _refuse_step_judging(suite_dir: Path, what: str) -> None:
    """A step-judging suite (vcot step-judge make) answers "which step is wrong", which only vcot eval's judging
    conditions ask: an export that poses its problems' own questions would grade them against step numbers."""
    from vcot.process.judge_suite import SUITE_KIND

    try:
        kind = json.loads((suite_dir / "manifest.json").read_text(encoding="utf-8")).get("suite_kind")
    except (OSError, ValueError, AttributeError):
        return
    if kind == SUITE_KIND:
        fail(
            f"{suite_dir} is a step-judging suite: {what} cannot pose it; evaluate it with vcot eval "
            "(docs/process.md, 'Running a judge'), or export its rows with -f parquet"
        )


def overlap(
    suite_a: Annotated[Path, typer.Argument(help="First suite folder (or an RL export folder)")],
    suite_b: Annotated[Path, typer.Argument(help="Second suite folder (or an RL export folder)")],
) -> None:
    """Report scenes two suites share (e.g. a public and a private split), or that an RL export (`vcot export rl`:
    verl Parquet, TRL or warm-start datasets folder) shares with a suite; exits 1 when there are any."""
    from vcot.suite import SuiteError, read_suite
    from vcot.validate import scene_keys

    def keys(path: Path) -> dict[tuple[str, str], list[str]]:
        from vcot.rl.exported import ExportError, is_export
        from vcot.rl.exported import scene_keys as export_keys

        if is_export(path):
            try:
                return export_keys(path)
            except (ExportError, ValueError, KeyError) as exc:
                fail(exc)
        suite = read_suite(path, check_images="none")
        found = scene_keys(suite)
        compared = sum(len(uids) for uids in found.values())
        if compared < len(suite.instances):
            # Imported or curated items store no scene, and a paired problem's rows share one: say so rather
            # than let "no scene in common" stand for items never compared.
            err.print(
                f"note: {len(suite.instances) - compared} of {len(suite.instances)} instances of {path} "
                "carry no comparable scene (imported, curated or paired rows) and are not compared",
                markup=False,
                soft_wrap=True,
            )
        return found

    try:
        keys_a, keys_b = keys(suite_a), keys(suite_b)
    except SuiteError as exc:
        fail(exc)
    shared = [(task, uids, keys_b[(task, key)]) for (task, key), uids in keys_a.items() if (task, key) in keys_b]
    for task, ua, ub in shared[:50]:
        console.print(f"{task}: {', '.join(ua)} ~ {', '.join(ub)}", markup=False)
    if shared:
        fail(f"{len(shared)} scene(s) appear in both {suite_a} and {suite_b}", code=1)
    console.print(f"[green]ok[/] no scene of {suite_a} appears in {suite_b}")


def gallery(
    suite_dir: Annotated[Path, typer.Argument(help="Suite folder")],
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            "-o",
            help="Index HTML file (default: SUITE/gallery.html); the task pages go beside it (SUITE/gallery_pages/)",
        ),
    ] = None,
    per_task: Annotated[int, typer.Option("--per-task", help="At most this many instances per task (0 = all)")] = 0,
    per_page: Annotated[int, typer.Option("--per-page", min=1, help="Instances per task page")] = 50,
    embed: Annotated[
        bool,
        typer.Option(
            "--embed",
            help="One self-contained file with every image embedded (refused above 32 MiB: for sharing small suites)",
        ),
    ] = False,
) -> None:
    """Write a suite's HTML gallery: an index of the tasks and one page per task, images linked from the suite
    folder and loaded lazily; or, with --embed, one self-contained file."""
    from vcot.gallery import GalleryError, write_gallery
    from vcot.suite import SuiteError, read_suite

    if per_task < 0:
        fail(f"--per-task {per_task}: must be 0 (every instance) or more")
    shown = progress_bar(embed)  # the linked pages take seconds; embedding every image can take minutes
    try:
        s = read_suite(suite_dir)
        uids = s.first_per_task(per_task) if per_task > 0 else None
        with shown:
            files = write_gallery(
                s,
                out or (suite_dir / "gallery.html"),
                uids,
                embed=embed,
                per_page=per_page,
                progress=counter(shown, "embedding images"),
            )
    except (SuiteError, GalleryError, OSError) as exc:  # OSError: --out cannot be written (a folder, no access)
        fail(exc)
    pages = f" and {len(files.pages)} task pages in {files.pages_dir}" if not embed else ""
    console.print(
        f"gallery written to {files.index}{pages} ({files.total_bytes / 1e6:.1f} MB of HTML)",
        markup=False,
        soft_wrap=True,
    )


EXPORT_FORMATS = ("parquet", "mira", "vlmevalkit", "lmms-eval", "inspect")


def export(
    suite_dir: Annotated[Path, typer.Argument(help="Suite folder")],
    fmt: Annotated[str, typer.Option("--format", "-f", help=" | ".join(EXPORT_FORMATS))],
    out: Annotated[Path, typer.Option("--out", "-o", help="Output file (parquet) or folder (all others)")],
    package: Annotated[
        str, typer.Option(help="Python package name of the generated Inspect task package")
    ] = "vcot_inspect",
) -> None:
    """Export a suite to Parquet (HF datasets), the MIRA layout, or an evaluation harness's format."""
    from vcot.suite import SuiteError, read_suite

    if fmt not in EXPORT_FORMATS:
        fail(f"unknown format {fmt!r}; choose {', '.join(EXPORT_FORMATS[:-1])} or {EXPORT_FORMATS[-1]}")
    if out.exists() and out.is_dir() == (fmt == "parquet"):
        fail(
            f"--out {out}: exists and is {'a folder' if out.is_dir() else 'not a folder'}; the {fmt} export "
            f"writes {'a file' if fmt == 'parquet' else 'a folder'}"
        )
    try:
        s = read_suite(suite_dir)
    except SuiteError as exc:
        fail(exc)
    if fmt != "parquet":
        _refuse_step_judging(suite_dir, f"the {fmt} export")
    if fmt == "parquet":
        from vcot.export.parquet import export_parquet

        console.print(f"wrote {export_parquet(s, out)}")
    elif fmt == "mira":
        from vcot.export.mira import export_mira

        try:
            console.print(f"wrote MIRA layout to {export_mira(s, out)}")
        except SuiteError as exc:  # a task name that cannot become a folder name
            fail(exc)
    elif fmt == "vlmevalkit":
        from vcot.export.vlmevalkit import export_vlmevalkit

        console.print(
            f"wrote VLMEvalKit TSVs, dataset class and PNG-keeping API model class to {export_vlmevalkit(s, out)}"
        )
    elif fmt == "lmms-eval":
        from vcot.export.lmms_eval import export_lmms_eval

        console.print(
            f"wrote lmms-eval task folder to {export_lmms_eval(s, out)} "
            f"(use: lmms-eval --include_path {out} --tasks ...)"
        )
    else:
        from vcot.export.inspect_ai import export_inspect

        try:
            root = export_inspect(s, out, package=package)
        except ValueError as exc:
            fail(exc)
        console.print(
            f"wrote Inspect AI package to {root} (use: pip install {root}; inspect eval {package}/direct --model ...)"
        )


def export_training(
    suite_dir: Annotated[Path, typer.Argument(help="Suite folder, or a shard set of folder or parquet shards")],
    fmt: Annotated[
        str,
        typer.Option(
            "--format",
            "-f",
            help="trl (messages with image parts) | sharegpt "
            "(ShareGPT/LLaVA JSON) | vaot (a run's episodes as tool-use conversations)",
        ),
    ],
    out: Annotated[Path, typer.Option("--out", "-o", help="Output folder (data file, images/, README.md card)")],
    run: Annotated[
        Path | None,
        typer.Option(
            "--run",
            help="Run folder whose VAoT episodes to export (--format vaot; `vcot trajectories RUN` must have been run)",
        ),
    ] = None,
    license_id: Annotated[
        str, typer.Option("--license", help="Licence identifier written in the dataset card")
    ] = "apache-2.0",
) -> None:
    """Export a suite or shard set as interleaved visual chain-of-thought training conversations with a dataset
    card (docs/scale.md, "Training exports")."""
    from vcot.export.training import TRAINING_FORMATS, export_vaot_episodes, open_source
    from vcot.export.training import export_training as do_export
    from vcot.suite import SuiteError

    if fmt not in TRAINING_FORMATS:
        fail(f"unknown format {fmt!r}; choose {', '.join(TRAINING_FORMATS)}")
    if (fmt == "vaot") != (run is not None):
        fail("--run goes with --format vaot, and --format vaot needs --run")
    if out.exists() and not out.is_dir():
        fail(f"--out {out}: exists and is not a folder")
    _refuse_step_judging(suite_dir, "a training export")
    try:
        source = open_source(suite_dir)
        if run is not None:
            from vcot.engine.trajectories import read_trajectories, returned_image_path

            trajectories = read_trajectories(run)
            root = export_vaot_episodes(source, trajectories, lambda d: returned_image_path(run, d), out, license_id)
        else:
            root = do_export(source, out, fmt, license_id)
    except (SuiteError, ValueError, OSError) as exc:  # FileNotFoundError: no trajectories yet
        fail(exc)
    console.print(f"wrote the {fmt} training export and its dataset card to {root}", markup=False, soft_wrap=True)


def import_mira(
    src: Annotated[Path, typer.Argument(help="Folder in the official MIRA release layout")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Output suite folder")],
    name: Annotated[str, typer.Option("--name", help="Suite name")] = "mira",
) -> None:
    """Import the official MIRA release layout as a vcot suite."""
    from vcot.export.mira import import_mira as do_import
    from vcot.suite import SuiteError

    try:
        manifest = do_import(src, out, name)
    except SuiteError as exc:
        fail(exc)
    console.print(f"imported {manifest['total']} instances of {len(manifest['counts'])} task(s) into {out}")


def quickstart(
    out: Annotated[Path, typer.Option("--out", "-o", help="Working folder")] = Path("vcot-quickstart"),
    seed: Annotated[int, typer.Option("--seed", help="Seed of the mini suite")] = 0,
    progress: Annotated[bool, typer.Option("--progress/--no-progress", help="Show a progress bar")] = True,
    tables: Annotated[
        bool,
        typer.Option(
            "--tables", help="Also print MIRA Table 1, the paired tests and the VAoT analyses (always in the report)"
        ),
    ] = False,
) -> None:
    """The main job on the embedded default, offline: generate the mini suite, validate it, write its
    gallery, evaluate the chance baseline under every condition the suite serves, and write the report."""
    import time

    from vcot.analysis.build_report import build_report
    from vcot.analysis.render import to_rich
    from vcot.analysis.report import instance_images
    from vcot.analysis.thumbnails import Thumbnails
    from vcot.analysis.units import count_phrase
    from vcot.build import build_suite, preset_plans
    from vcot.engine.runner import EvalSpec, run_eval
    from vcot.gallery import write_gallery
    from vcot.validate import validate_suite

    suite_dir = out / "mini"
    plans = preset_plans("mini", seed)
    clock = [time.perf_counter()]
    with progress_bar(progress) as shown:
        bar = shown.add_task("generating mini", total=sum(p.n for p in plans))
        # Output is identical on any number of processes; two halve the wait on the usual laptop or CI runner.
        manifest = build_suite(
            suite_dir, "mini", plans, processes=min(2, os.cpu_count() or 1), progress=lambda k: shown.advance(bar, k)
        )
    clock.append(time.perf_counter())
    checked = validate_suite(suite_dir)
    if not checked.ok:
        fail("the generated suite does not validate: " + "; ".join(checked.problems[:5]), code=1)
    console.print(f"mini suite: {len(manifest['counts'])} tasks, {count_phrase(checked.suite.instances)}", markup=False)
    console.print(f"[green]ok[/] {checked.resolved} answers re-solved from meta in {suite_dir}")
    console.print(f"content hash {checked.suite.content_hash}", markup=False)
    clock.append(time.perf_counter())
    # The report's thumbnails are made by worker processes during the gallery and the evaluation (which
    # keep this process busy); the chance model answers every instance, so the browser shows the first 300.
    with Thumbnails(checked.suite) as thumbnails:
        thumbnails.start(instance_images(checked.suite.instances[:300]))
        files = write_gallery(checked.suite, out / "gallery.html")
        console.print(f"gallery: {files.index} (task pages in {files.pages_dir})", markup=False)
        clock.append(time.perf_counter())
        result = run_eval(EvalSpec(suite=suite_dir, model="chance", run_dir=out / "run-chance"))
        for cond, reason in result.skipped_conditions.items():
            console.print(f"  skipped {cond}: {reason}", markup=False)
        clock.append(time.perf_counter())
        # The report's terminal tables open with the run's summary: printed once, after the report.
        job = build_report(
            [result.run_dir], suite=checked.suite, out=out / "report", thumbnails=thumbnails, all_tables=tables
        )
    clock.append(time.perf_counter())
    for table in job.terminal_tables:
        console.print(to_rich(table))
    console.print(f"wrote {job.paths.markdown} and {job.paths.html}", markup=False)
    steps = ("generate", "validate", "gallery", "eval", "report")
    console.print(
        f"took {clock[-1] - clock[0]:.1f} s: "
        + ", ".join(f"{name} {b - a:.1f} s" for name, a, b in zip(steps, clock[:-1], clock[1:], strict=True)),
        markup=False,
    )
    _next_steps(suite_dir, result.run_dir, job.paths.html)


def _next_steps(suite_dir: Path, chance_run: Path, report: Path) -> None:
    """Where a newcomer goes from the quickstart, as commands to copy (a model named NAME, served locally)."""
    run = chance_run.parent / "run-NAME"
    console.print("\nnext steps:", markup=False)
    console.print(f"  1. open the report (every table, an instance browser): {report}", markup=False)
    console.print("  2. evaluate your model, served OpenAI-compatible (recipes: docs/models.md):", markup=False)
    _print_command(
        [["vcot", "eval"], [suite_dir], ["--base-url", "http://localhost:8000/v1"], ["--model", "NAME"], ["--run", run]]
    )
    console.print("  3. report it beside the chance baseline:", markup=False)
    _print_command([["vcot", "report"], [run], [chance_run], ["--suite", suite_dir]])


def _print_command(parts: list[list[object]], indent: str = "     ") -> None:
    """A shell command in lines that fit the console, broken between its parts (an option and its value stay
    together) and continued with a backslash, so that it can be copied and pasted as printed."""
    import shlex

    lines = [""]
    for part in (" ".join(shlex.quote(str(w)) for w in words) for words in parts):
        if lines[-1] and len(indent) + len(lines[-1]) + len(part) + 3 > console.width:
            lines[-1] += " \\"
            lines.append("  ")
        lines[-1] += f" {part}" if lines[-1].strip() else part
    for line in lines:
        console.print(indent + line, markup=False, highlight=False, soft_wrap=True)


def register(app: typer.Typer) -> None:
    app.command()(version)
    app.command()(tasks)
    app.command()(generate)
    app.command()(validate)
    app.command()(overlap)
    app.command()(audit)
    app.command()(gallery)
    from vcot.cli.groups import export_app, register_in

    register_in(export_app, "suite", export)
    register_in(export_app, "training", export_training, app=app, old_name="export-training")
    app.command("import-mira")(import_mira)
    app.command()(quickstart)
