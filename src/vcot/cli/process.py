"""Process-supervision commands (docs/process.md): `export-process` writes step-labelled trajectories as
process-reward-model data; `step-judge make` writes them as a step-judging suite that `vcot eval` puts to a
judge model, and `step-judge score` prints how judges did against the judge-free baselines."""

from pathlib import Path
from typing import Annotated

import typer

from vcot.cli.common import console, fail, parse_params, require, split_list

MAX_TRAJECTORIES = 100_000

# The options of every command that draws labelled trajectories (export process, step-judge make).
TaskOption = Annotated[
    list[str],
    typer.Option(
        "--task",
        "-t",
        metavar="NAME,…",
        help="Task(s), comma-separated or repeated; the trajectories take them in turn",
    ),
]
NOption = Annotated[int, typer.Option("--n", help="Trajectories to write")]
SeedOption = Annotated[int, typer.Option("--seed", help="Stream seed")]
DifficultyOption = Annotated[str, typer.Option("--difficulty", "-d", help="easy | medium | hard")]
ParamOption = Annotated[
    list[str],
    typer.Option("--param", "-p", metavar="KEY=VALUE", help="With one --task: override a task parameter, repeatable"),
]
KindsOption = Annotated[
    str, typer.Option("--kinds", metavar="KIND,…", help="Kinds to mix (default: all; docs/process.md, 'Kinds')")
]
ExcludeOption = Annotated[
    list[Path] | None,
    typer.Option(
        "--exclude", metavar="SUITE", help="A suite whose scenes must not appear (an evaluation suite), repeatable"
    ),
]
TextOnlyOption = Annotated[
    bool,
    typer.Option(
        "--text-only", help="Steps without their pictures (refuses picture_text_mismatch, whose error is in a picture)"
    ),
]


def export_process(
    out: Annotated[
        Path,
        typer.Option(
            "--out", "-o", metavar="DIR", help="Output folder: dataset/ (datasets.load_from_disk) and prm.parquet"
        ),
    ],
    task: TaskOption,
    n: NOption = 100,
    seed: SeedOption = 0,
    difficulty: DifficultyOption = "medium",
    param: ParamOption = [],  # noqa: B006
    kinds: KindsOption = "",
    exclude: ExcludeOption = None,
    text_only: TextOnlyOption = False,
) -> None:
    """Write step-labelled trajectories with exact labels as process-reward-model data: TRL's stepwise-
    supervision format (prompt, completions, labels) with the pictures, as a datasets folder and Parquet."""
    require("datasets", "rl-trl")
    from vcot.process.export import write_prm

    items = _labelled_items(task, n, seed, difficulty, param, kinds, exclude, text_only)
    try:
        written = write_prm(items, out)
    except (ValueError, OSError) as exc:
        fail(exc)
    console.print(
        f"wrote {written} labelled trajectories ({_mix(items)}) to {out}", markup=False, highlight=False, soft_wrap=True
    )


def _labelled_items(
    task: list[str],
    n: int,
    seed: int,
    difficulty: str,
    param: list[str],
    kinds: str,
    exclude: list[Path] | None,
    text_only: bool,
    *,
    balance: bool = False,
) -> list:
    from vcot.process.labelled import KINDS, LabellingError, labelled_stream

    names = split_list(task) or []
    chosen = split_list([kinds]) if kinds else list(KINDS)
    if not names:
        fail("--task: name at least one task")
    if not 1 <= n <= MAX_TRAJECTORIES:
        fail(f"--n: must be from 1 to {MAX_TRAJECTORIES:,}, got {n}")
    if difficulty not in ("easy", "medium", "hard"):
        fail(f"--difficulty: unknown level {difficulty!r}; choose easy, medium or hard")
    for path in exclude or []:
        if not path.is_dir():
            fail(f"--exclude {path}: no such suite folder")
    params = parse_params(param) or None
    try:
        stream = labelled_stream(
            names,
            seed=seed,
            difficulty=difficulty,
            params=params,
            kinds=chosen,
            exclude=[str(p) for p in exclude] if exclude else None,
            text_only=text_only,
        )
        if balance:
            from vcot.process.judge_suite import balanced_by_position

            return balanced_by_position(stream, n)
        return [next(stream) for _ in range(n)]
    except (LabellingError, ValueError, KeyError) as exc:
        fail(exc)


def _mix(items: list) -> str:
    counts: dict[str, int] = {}
    for x in items:
        counts[x.kind] = counts.get(x.kind, 0) + 1
    return ", ".join(f"{k} {v}" for k, v in counts.items())


def step_judge_make(
    out: Annotated[Path, typer.Option("--out", "-o", metavar="DIR", help="Suite folder to write")],
    task: TaskOption,
    n: NOption = 100,
    seed: SeedOption = 0,
    difficulty: DifficultyOption = "medium",
    param: ParamOption = [],  # noqa: B006
    kinds: KindsOption = "",
    exclude: ExcludeOption = None,
    text_only: TextOnlyOption = False,
    name: Annotated[str | None, typer.Option("--name", help="Suite name (default: the folder's name)")] = None,
    balance: Annotated[
        bool,
        typer.Option(
            "--balance-positions/--no-balance-positions",
            help="Spread the first errors evenly over steps 1, 2, 3, 4+ and none (draws up to 4x the trajectories), "
            "so that naming one position is no shortcut (vcot audit checks)",
        ),
    ] = True,
) -> None:
    """Write step-labelled trajectories as a step-judging suite: `vcot eval SUITE --model M` then asks the model
    for each trajectory's first wrong step (judge_first_error, judge_steps) and scores it against exact labels."""
    from vcot.process.judge_suite import write_judge_suite
    from vcot.suite import SuiteError

    items = _labelled_items(task, n, seed, difficulty, param, kinds, exclude, text_only, balance=balance)
    settings = {
        "balance_positions": balance,
        "tasks": split_list(task),
        "n": n,
        "seed": seed,
        "difficulty": difficulty,
        "kinds": split_list([kinds]) if kinds else "all",
        "text_only": text_only,
        "exclude": [p.name for p in exclude or []],
    }
    try:
        manifest = write_judge_suite(items, out, name or out.resolve().name, settings)
    except (SuiteError, OSError, ValueError) as exc:
        fail(exc)
    console.print(
        f"wrote a step-judging suite of {manifest['total']} trajectories ({_mix(items)}) to {out}\n"
        f"next: vcot eval {out} --model MODEL   (conditions judge_first_error, judge_steps)",
        markup=False,
        highlight=False,
        soft_wrap=True,
    )


def step_judge_score(
    runs: Annotated[
        list[Path],
        typer.Argument(metavar="RUN", help="Run folders (or results .parquet files) of judges on a step-judging suite"),
    ],
) -> None:
    """Print how each judge did on its labelled trajectories: first-error localisation, step precision and
    recall, by error type, position and task, with 95% intervals, against the judge-free baselines."""
    from vcot.analysis.build_report import load_results
    from vcot.analysis.render import to_rich
    from vcot.process.tables import judging_tables

    try:
        rows = load_results(runs)
    except (FileNotFoundError, ValueError, KeyError) as exc:
        fail(exc)
    tables = judging_tables(rows)
    if not tables:
        fail("no judging results in these runs: run `vcot eval` on a suite written by `vcot step-judge make`")
    for _, table in tables:
        console.print(to_rich(table))
    console.print(tables[0][1].note, markup=False, highlight=False, soft_wrap=True)


def register(app: typer.Typer) -> None:
    from vcot.cli.groups import export_app, register_in

    register_in(export_app, "process", export_process, app=app, old_name="export-process")
    judge = typer.Typer(
        no_args_is_help=True,
        rich_markup_mode=None,
        help="Step judges and process reward models on exactly labelled trajectories (docs/process.md).",
    )
    judge.command("make")(step_judge_make)
    judge.command("score")(step_judge_score)
    app.add_typer(judge, name="step-judge")
