"""Reinforcement-learning commands (docs/rl.md): `rl doctor` checks a model folder for multi-turn image RL;
`export-rl` writes training data for an RL trainer."""

import math
from pathlib import Path
from typing import Annotated

import typer

from vcot.cli.common import console, err, fail, parse_params, progress_bar, require, split_list

rl_app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    rich_markup_mode=None,
    help="Reinforcement-learning helpers (docs/rl.md).",
)

EXPORT_RL_FORMATS = ("verl", "trl", "sft")
STREAM = "stream"
# `export-rl stream` holds every drawn problem (its decoded pictures, up to ~2 MB each) until the split by
# scene, so the number drawn is bounded up front rather than found out by a MemoryError (docs/rl.md).
MAX_STREAM_PROBLEMS = 2_048


def export_rl(
    source: Annotated[
        str,
        typer.Argument(
            metavar="SUITE_OR_STREAM",
            help="A suite folder, or the word `stream` to draw fresh problems from "
            "vcot.rl.stream (--task or --preset, --n, --seed, --difficulty)",
        ),
    ],
    out: Annotated[
        Path,
        typer.Option(
            "--out",
            "-o",
            metavar="DIR",
            help="Output folder (verl: train.parquet, "
            "validation.parquet, tool_config.yaml; trl, sft: a Hugging Face datasets "
            "folder with train and validation splits)",
        ),
    ],
    fmt: Annotated[
        str,
        typer.Option(
            "--format",
            "-f",
            help="verl | trl | sft (warm-start rows: the RL prompt "
            "and an answer-tag completion, for supervised steps before RL)",
        ),
    ] = "verl",
    task: Annotated[
        list[str] | None,
        typer.Option("--task", "-t", metavar="NAME,…", help="With `stream`: the task(s), comma-separated or repeated"),
    ] = None,
    preset: Annotated[
        str | None,
        typer.Option("--preset", help="With `stream`: the tasks of a preset suite (mini, mira-synth, see2think-synth)"),
    ] = None,
    n: Annotated[
        int,
        typer.Option("--n", help="With `stream`: problems drawn per difficulty (the stream mixes the tasks in turn)"),
    ] = 64,
    seed: Annotated[int, typer.Option("--seed", help="Stream seed; also seeds which scenes go to validation")] = 0,
    difficulty: Annotated[
        list[str] | None,
        typer.Option(
            "--difficulty",
            "-d",
            metavar="LEVEL,…",
            help="With `stream`: easy | medium | hard, or several "
            "comma-separated (one block of --n per level, for a "
            "curriculum)",
        ),
    ] = None,
    param: Annotated[
        list[str],
        typer.Option(
            "--param",
            "-p",
            metavar="KEY=VALUE",
            help="With `stream` and one --task: override a task parameter, repeatable (vcot tasks lists them)",
        ),
    ] = [],  # noqa: B006
    condition: Annotated[
        str,
        typer.Option(
            "--condition",
            "-c",
            help="Prompt: direct, text_cot, vaot (the "
            "drawing tool's prompt and verl's tool agent loop) or another of "
            "vcot.rl.CONDITIONS",
        ),
    ] = "direct",
    validation_fraction: Annotated[
        float,
        typer.Option(
            "--validation-fraction",
            metavar="F",
            help="Share of each task's scenes held out for validation, in [0, 1); whole scenes, never also in train",
        ),
    ] = 0.1,
    exclude: Annotated[
        list[Path] | None,
        typer.Option(
            "--exclude", metavar="SUITE", help="A suite whose scenes must not appear (an evaluation suite), repeatable"
        ),
    ] = None,
    max_calls: Annotated[
        int,
        typer.Option(
            "--max-calls",
            help="verl: drawing actions per trajectory, written "
            "into tool_config.yaml (1–64; default: the 6 rounds the prompt states)",
        ),
    ] = 6,
    reasoning: Annotated[
        str,
        typer.Option(
            "--reasoning", help="sft: none (the answer tag only) | steps (the solver's steps in words, then the answer)"
        ),
    ] = "none",
    progress: Annotated[bool, typer.Option("--progress/--no-progress", help="Show a progress bar")] = True,
) -> None:
    """Export RL training data: verl's Parquet files with the drawing tool's config, a Hugging Face datasets
    folder for TRL, or warm-start rows for supervised steps before RL (sft), from a suite or a fresh problem
    stream (docs/rl.md)."""
    if fmt not in EXPORT_RL_FORMATS:
        fail(f"--format: unknown format {fmt!r}; choose {' or '.join(EXPORT_RL_FORMATS)}")
    if math.isnan(validation_fraction) or not 0.0 <= validation_fraction < 1.0:
        fail(f"--validation-fraction: must be in [0, 1), got {validation_fraction}")
    if out.exists() and not out.is_dir():
        fail(f"--out {out}: exists and is not a folder")
    if not 1 <= max_calls <= 64:
        fail(f"--max-calls: must be from 1 to 64, got {max_calls}")
    from vcot.rl.problems import CONDITIONS
    from vcot.rl.warmstart import REASONING

    if condition not in CONDITIONS:
        from vcot.conditions import REGISTRY

        fail(f"--condition: {REGISTRY.untrainable_reason(condition)}")
    if reasoning not in REASONING:
        fail(f"--reasoning: unknown {reasoning!r}; choose {' or '.join(REASONING)}")
    if reasoning != "none" and fmt != "sft":
        fail("--reasoning goes with --format sft")
    if reasoning == "steps" and condition == "direct":
        fail(
            "--reasoning steps: the direct prompt asks for the answer directly; use -c text_cot (or another "
            "condition whose prompt asks for reasoning), or --reasoning none"
        )
    tasks = split_list(task)
    levels = split_list(difficulty)
    streaming = source == STREAM
    if not streaming:
        used = [
            name
            for name, given in (("--task", tasks), ("--preset", preset), ("--difficulty", levels), ("--param", param))
            if given
        ]
        if used:
            fail(f"{', '.join(used)} go with `stream` as the source, not with the suite folder {source}")
        if not Path(source).is_dir():
            fail(f"{source}: no such suite folder (give a suite folder, or `stream` to draw problems)")
    elif tasks and preset:
        fail("give --task or --preset, not both")
    elif n <= 0:
        fail(f"--n: must be positive, got {n}")
    elif n * max(1, len(levels or [])) > MAX_STREAM_PROBLEMS:
        blocks = max(1, len(levels or []))
        fail(
            f"--n: {n:,} problems{f' × {blocks} difficulties' if blocks > 1 else ''} is over the limit of "
            f"{MAX_STREAM_PROBLEMS:,} problems per export (they are held in memory until written); export in "
            "parts with different --seed values"
        )
    elif param and (not tasks or len(tasks) != 1):
        fail("--param goes with exactly one --task")
    for level in levels or []:
        if level not in ("easy", "medium", "hard"):
            fail(f"--difficulty: unknown level {level!r}; choose easy, medium or hard")
    for path in exclude or []:
        if not path.is_dir():
            fail(f"--exclude {path}: no such suite folder")
    if fmt in ("trl", "sft"):
        require("datasets", "rl-trl")
        require("transformers", "rl-trl")

    from vcot.rl.verl import VerlExportError, split_by_scene

    steps = reasoning == "steps"
    problems = (
        _stream_problems(tasks, preset, n, seed, levels, parse_params(param), condition, exclude, progress, steps)
        if streaming
        else _suite_problems(Path(source), condition, exclude, steps)
    )
    # A suite exported whole is that suite, often an evaluation suite: its split is not called "train".
    first = "train" if streaming or validation_fraction > 0 else "suite"
    what = "training" if first == "train" else f"suite ({Path(source).name}, split 'suite')"
    try:
        if fmt == "verl":
            from vcot.rl.verl import export_verl

            result = export_verl(
                problems, out, validation_fraction=validation_fraction, seed=seed, max_calls=max_calls, split_name=first
            )
            console.print(
                f"wrote {result.n_train} {what} and {result.n_validation} validation rows "
                f"({len(result.counts['train'])} task(s)) to {out}",
                soft_wrap=True,
            )
            console.print(f'tool config {result.tool_config}; verl settings: docs/rl.md, "verl"', soft_wrap=True)
        else:
            train, validation = split_by_scene(problems, validation_fraction, seed)
            if not train:
                fail("no problems to export")
            _write_trl(train, validation, out, first, sft=reasoning if fmt == "sft" else None)
            kind = "warm-start " if fmt == "sft" else ""
            console.print(
                f"wrote {len(train)} {kind}{what} and {len(validation)} validation rows to {out} "
                f"(datasets.load_from_disk)",
                soft_wrap=True,
            )
    except VerlExportError as exc:
        fail(exc)


def _stream_problems(
    tasks: list[str] | None,
    preset: str | None,
    n: int,
    seed: int,
    levels: list[str] | None,
    params: dict,
    condition: str,
    exclude: list[Path] | None,
    progress: bool,
    steps: bool = False,
) -> list:
    from vcot.rl import ExclusionError, stream
    from vcot.tasks import UnknownTaskError
    from vcot.tasks.base import GenerationError

    problems: list = []
    try:
        with progress_bar(progress) as shown:
            for level in levels or [None]:
                s = stream(
                    tasks=tasks,
                    preset=preset,
                    difficulty=level,
                    params=params or None,
                    seed=seed,
                    exclude=[str(p) for p in exclude] if exclude else None,
                    condition=condition,
                    steps=steps,
                )
                bar = shown.add_task(f"drawing {level or 'problems'}", total=n)
                for _ in range(n):
                    problems.append(next(s))
                    shown.advance(bar)
    except (UnknownTaskError, ValueError, TypeError, KeyError, ExclusionError, GenerationError) as exc:
        fail(exc)
    return problems


def _suite_problems(suite_dir: Path, condition: str, exclude: list[Path] | None, steps: bool = False) -> list:
    from vcot.rl import excluded_keys
    from vcot.rl.verl import problems_from_suite, scene_key
    from vcot.suite import SuiteError, read_suite

    try:
        suite = read_suite(suite_dir)
        held = excluded_keys([str(p) for p in exclude]) if exclude else {}
    except SuiteError as exc:
        fail(exc)
    problems, skipped = problems_from_suite(suite, condition=condition, steps=steps)
    for message in skipped[:5]:
        err.print(f"skipped {message}", markup=False, highlight=False, soft_wrap=True)
    if len(skipped) > 5:
        err.print(f"skipped {len(skipped) - 5} more instances", markup=False)
    if held:
        before = len(problems)
        problems = [p for p in problems if scene_key(p) not in held.get(p.task, ())]
        if before != len(problems):
            err.print(f"left out {before - len(problems)} problems whose scenes are in --exclude", markup=False)
    if not problems:
        fail(f"{suite_dir}: no instance can be exported (see the messages above)")
    return problems


def _write_trl(train: list, validation: list, out: Path, first: str = "train", sft: str | None = None) -> None:
    import datasets

    from vcot.rl.trl import arrow_row, features
    from vcot.rl.warmstart import sft_dataset

    datasets.disable_progress_bars()  # one line of ours says what was written

    def table(problems: list) -> datasets.Dataset:
        if sft is not None:
            return sft_dataset(problems, sft)
        # The TRL adapter's own rows and schema, so the folder is what vcot.rl.trl.dataset(...) would give.
        return datasets.Dataset.from_list([arrow_row(p) for p in problems], features=features())

    splits = {first: table(train)}
    if validation:
        splits["validation"] = table(validation)
    datasets.DatasetDict(splits).save_to_disk(str(out))


# Exit codes of `vcot rl doctor`: every check passed / some check failed / the folder cannot be examined.
DOCTOR_OK, DOCTOR_FAILED, DOCTOR_BAD_FOLDER = 0, 1, 2


@rl_app.command("doctor")
def doctor(
    model_dir: Annotated[
        Path,
        typer.Argument(
            metavar="MODEL_DIR",
            help="Local model folder (config, tokenizer, processor, chat template); nothing is downloaded",
        ),
    ],
    chat_template: Annotated[
        Path | None,
        typer.Option(
            "--chat-template", metavar="FILE", help="Check this Jinja chat template instead of the folder's own"
        ),
    ] = None,
    trust_remote_code: Annotated[
        bool,
        typer.Option(
            "--trust-remote-code/--no-trust-remote-code",
            help="Allow a processor class shipped as code inside the folder (auto_map)",
        ),
    ] = False,
    frameworks: Annotated[
        str,
        typer.Option(
            "--frameworks",
            metavar="NAME,…|auto|none",
            help="Trainers to run "
            "a 3-turn drawing episode through (trl, verl, verifiers, openenv, "
            "skyrl): auto = those installed",
        ),
    ] = "auto",
) -> None:
    """Check a model folder for multi-turn image RL: tool turns rendered, images kept in tool and follow-up
    turns, image-token counts, prefix preservation, tool-call parsing; then, per trainer, a drawing episode
    through vcot's adapter (image tokens = features at every turn, pixels arriving = pixels sent, step
    rewards arriving). Exit 0 when all pass, 1 when one fails (or a named trainer is missing), 2 when the
    folder cannot be examined."""
    require("transformers", "rl-trl")
    from vcot.rl.conformance import FRAMEWORKS
    from vcot.rl.doctor import DoctorError
    from vcot.rl.doctor import doctor as run_doctor

    names = [n.strip() for n in frameworks.split(",") if n.strip()]
    named = names not in (["auto"], ["none"])
    unknown = [n for n in names if n not in FRAMEWORKS] if named else []
    if unknown or not names:
        fail(
            f"--frameworks: unknown {', '.join(unknown) or '(empty)'}; choose from {', '.join(FRAMEWORKS)}, "
            "auto or none"
        )
    try:
        checks, processor = run_doctor(
            model_dir, trust_remote_code=trust_remote_code, chat_template_file=chat_template, return_processor=True
        )
    except DoctorError as exc:
        fail(exc, code=DOCTOR_BAD_FOLDER)
    width = max(len(c.name) for c in checks)
    for check in checks:
        console.print(f"[{'green' if check.ok else 'bold red'}]{check.verdict}[/] ", end="")
        console.print(f"{check.name:<{width}}  {check.reason}", markup=False, highlight=False, soft_wrap=True)
    failed = [c.name for c in checks if not c.ok]
    judged: list[str] = []
    if names != ["none"]:
        bad, judged = _framework_report(processor, names if named else None, required=named)
        failed += bad
    if failed:
        console.print(f"failed: {', '.join(failed)}", markup=False, highlight=False)
        raise typer.Exit(DOCTOR_FAILED)
    trainers = f" and {len(judged)} trainers ({', '.join(judged)})" if judged else ""
    console.print(f"all {len(checks)} checks{trainers} passed", markup=False, highlight=False)


def _framework_report(processor: object, names: list[str] | None, *, required: bool) -> tuple[list[str], list[str]]:
    """Print one verdict per trainer (and its three checks); returns (those that failed, those that passed)."""
    from vcot.rl.conformance import PENALTY, framework_verdicts_bounded

    console.print(
        f"trainers: a 3-turn drawing episode through each adapter (a refused call is due -{PENALTY:g})",
        markup=False,
        highlight=False,
    )
    failed, passed = [], []
    for v in framework_verdicts_bounded(processor, names):
        bad = v.status == "FAIL" or (v.status == "MISSING" and required)
        colour = "green" if v.status == "PASS" else "bold red" if bad else "yellow"
        console.print(f"[{colour}]{v.status}[/] ", end="")
        console.print(f"{v.framework:<9} {v.reason}".rstrip(), markup=False, highlight=False, soft_wrap=True)
        for c in v.checks:
            console.print(f"  {c.verdict} {c.name:<12} {c.reason}", markup=False, highlight=False, soft_wrap=True)
        if bad:
            failed.append(v.framework)
        elif v.status == "PASS":
            passed.append(v.framework)
    return failed, passed


def register(app: typer.Typer) -> None:
    app.add_typer(rl_app, name="rl")
    from vcot.cli.groups import export_app, register_in

    register_in(export_app, "rl", export_rl, app=app, old_name="export-rl")
