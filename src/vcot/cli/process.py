"""Process-supervision commands (docs/process.md): `export-process` writes step-labelled trajectories."""

from pathlib import Path
from typing import Annotated

import typer

from vcot.cli.common import console, fail, parse_params, require, split_list

MAX_TRAJECTORIES = 100_000


def export_process(
    out: Annotated[Path, typer.Option("--out", "-o", metavar="DIR", help="Output folder: dataset/ "
                                      "(datasets.load_from_disk) and prm.parquet")],
    task: Annotated[list[str], typer.Option("--task", "-t", metavar="NAME,…", help="Task(s), comma-separated or "
                                            "repeated; the trajectories take them in turn")],
    n: Annotated[int, typer.Option("--n", help="Trajectories to write")] = 100,
    seed: Annotated[int, typer.Option("--seed", help="Stream seed")] = 0,
    difficulty: Annotated[str, typer.Option("--difficulty", "-d", help="easy | medium | hard")] = "medium",
    param: Annotated[list[str], typer.Option("--param", "-p", metavar="KEY=VALUE", help="With one --task: "
                                             "override a task parameter, repeatable")] = [],  # noqa: B006
    kinds: Annotated[str, typer.Option("--kinds", metavar="KIND,…", help="Kinds to mix: none, ignores_evidence, "
                                       "picture_text_mismatch, wrong_conclusion (default: all)")] = "",
    exclude: Annotated[list[Path] | None, typer.Option("--exclude", metavar="SUITE", help="A suite whose scenes "
                                                       "must not appear (an evaluation suite), repeatable")] = None,
    text_only: Annotated[bool, typer.Option("--text-only", help="Steps without their pictures")] = False,
) -> None:
    """Write step-labelled trajectories with exact labels as process-reward-model data: TRL's stepwise-
    supervision format (prompt, completions, labels) with the pictures, as a datasets folder and Parquet."""
    require("datasets", "rl-trl")
    from vcot.process.export import write_prm
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
        stream = labelled_stream(names, seed=seed, difficulty=difficulty, params=params, kinds=chosen,
                                 exclude=[str(p) for p in exclude] if exclude else None, text_only=text_only)
        items = [next(stream) for _ in range(n)]
        written = write_prm(items, out)
    except (LabellingError, ValueError, KeyError) as exc:
        fail(exc)
    counts: dict[str, int] = {}
    for x in items:
        counts[x.kind] = counts.get(x.kind, 0) + 1
    mix = ", ".join(f"{k} {v}" for k, v in counts.items())
    console.print(f"wrote {written} labelled trajectories ({mix}) to {out}", markup=False, highlight=False,
                  soft_wrap=True)


def register(app: typer.Typer) -> None:
    app.command("export-process")(export_process)
