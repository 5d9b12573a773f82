"""The scenes of exported training data, so `vcot overlap SUITE EXPORT` checks an export as it checks a suite.

An export (`vcot export rl`: verl's Parquet files, or a Hugging Face datasets folder of TRL or warm-start rows;
`vcot export process`: `prm.parquet`) holds each problem's regeneration fields. Each problem's scene is drawn again
from them (no picture is
rendered) and keyed by its task's `scene_key`, the key `vcot.validate.scene_keys` gives a suite's scenes.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

FIELDS = ("task", "difficulty", "params", "seed", "index", "variant", "uid")


class ExportError(ValueError):
    """The folder is not an export vcot can read (the message names what and where)."""


def is_export(path: Path) -> bool:
    """Whether `path` looks like an RL export (rather than a suite folder)."""
    path = Path(path)
    return (
        path.is_dir()
        and not (path / "manifest.json").is_file()
        and (
            (path / "dataset_dict.json").is_file()
            or (path / "dataset_info.json").is_file()
            or any(path.glob("*.parquet"))
        )
    )


def rows(path: Path) -> Iterator[dict[str, Any]]:
    """Each exported problem's regeneration fields (and uid)."""
    path = Path(path)
    if any(path.glob("*.parquet")):
        import pyarrow.parquet as pq

        for file in sorted(path.glob("*.parquet")):
            try:
                names = pq.read_schema(file).names
                if "extra_info" in names:  # verl's rows
                    table = pq.read_table(file, columns=["extra_info"])
                else:  # rows with the fields as columns (`vcot export process`'s prm.parquet)
                    table = pq.read_table(file, columns=[*FIELDS, *(["kind"] if "kind" in names else [])])
            except Exception as exc:  # noqa: BLE001 - pyarrow raises several types for a bad file
                raise ExportError(f"{file}: not a vcot export's Parquet file ({str(exc)[:160]})") from None
            for row in table.to_pylist():
                if "extra_info" not in row:
                    yield row
                    continue
                info = row.get("extra_info") or {}
                yield {
                    "task": info.get("task"),
                    "difficulty": info.get("difficulty"),
                    "params": info.get("params"),
                    "seed": info.get("seed"),
                    "index": info.get("problem_index"),
                    "variant": info.get("variant"),
                    "uid": info.get("uid"),
                }
        return
    try:
        import datasets
    except ImportError as exc:
        raise ExportError(f"{path}: reading a datasets folder needs the `datasets` package ({exc})") from None
    loaded = datasets.load_from_disk(str(path))
    splits = loaded.values() if isinstance(loaded, datasets.DatasetDict) else [loaded]
    for split in splits:
        missing = [f for f in FIELDS if f not in split.column_names]
        if missing:
            raise ExportError(f"{path}: not a vcot export (columns {missing} are missing)")
        yield from split.select_columns(list(FIELDS)).to_list()


def scene_keys(path: Path) -> dict[tuple[str, str], list[str]]:
    """(task, scene key) → uids of the export's problems, as `vcot.validate.scene_keys` gives a suite's."""
    from vcot.rl.problems import accepted_scene, configured_task

    out: dict[tuple[str, str], list[str]] = {}
    for row in rows(path):
        if row.get("task") is None or row.get("seed") is None or row.get("index") is None:
            raise ExportError(f"{path}: a row lacks task, seed or index ({str(row)[:120]})")
        params = row.get("params") or {}
        params = json.loads(params) if isinstance(params, str) else params
        task = configured_task(str(row["task"]), str(row.get("difficulty") or "medium"), params)
        if task.rows_per_problem > 1:
            continue  # as for suites: a paired problem's rows share one scene, which overlap leaves out
        if row.get("kind") is not None:
            # A labelled trajectory (vcot.process) accepts its scene as `vcot generate` does, corruption asked.
            from vcot.tasks.base import Task

            scene, _, _, _ = task._accept(
                int(row["index"]),
                int(row["seed"]),
                check_corruption=type(task).corrupt is not Task.corrupt,
                variant=int(row.get("variant") or 0),
            )
        else:
            scene, _, _ = accepted_scene(task, int(row["seed"]), int(row["index"]), int(row.get("variant") or 0))
        out.setdefault((task.name, task.scene_key(scene)), []).append(str(row.get("uid")))
    return out
