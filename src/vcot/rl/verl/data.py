"""The verl data files: rows of verl's `RLHFDataset`, their Parquet schema, the split by whole scenes, and
`export_verl`, which writes `train.parquet` / `validation.parquet` and `tool_config.yaml` beside them
(docs/rl.md, "verl"). Also `problems_from_suite`, a suite's instances as problems to export."""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vcot.rl.verl.errors import VerlExportError
from vcot.rl.verl.tool_schema import DEFAULT_TOOL_CALLS, write_tool_config

if TYPE_CHECKING:
    from PIL import Image

    from vcot.rl.problems import Problem

DATA_SOURCE_PREFIX = "vcot/"
ABILITY = "visual_reasoning"
TRAIN_FILE = "train.parquet"
VALIDATION_FILE = "validation.parquet"
TOOL_CONFIG_FILE = "tool_config.yaml"
# verl's agent loops by their registered names: a row's `agent_name` picks its own (the drawing needs the tool loop).
TOOL_AGENT = "tool_agent"
SINGLE_TURN_AGENT = "single_turn_agent"


def _png(image: Image.Image) -> bytes:
    from vcot.draw.png import encode_png

    return encode_png(image)


def verl_messages(prompt: Sequence[Mapping[str, Any]], n_images: int, where: str = "prompt") -> list[dict]:
    """Messages in TRL's form as verl reads them (`vcot.rl.formats.verl_strings`, the one verl converter)."""
    from vcot.rl.formats import FormatError, verl_strings

    try:
        return verl_strings(prompt, n_images, where)
    except FormatError as exc:
        raise VerlExportError(str(exc)) from None


def problem_spec(problem: Problem) -> dict[str, Any]:
    """What `vcot.rl.problem_from_row` needs to regenerate the problem (the tool's `create_kwargs`)."""
    return {
        "task": problem.task,
        "uid": problem.uid,
        "seed": int(problem.seed),
        "index": int(problem.index),
        "difficulty": problem.difficulty,
        "params": json.dumps(problem.params, sort_keys=True),
        "condition": problem.condition,
        "variant": int(problem.variant or 0),
    }


def verl_row(problem: Problem, *, split: str, index: int, tools: Sequence[str] | None = None) -> dict[str, Any]:
    """One row of verl's RL dataset for `problem`.

    `extra_info.index` is the row's position in its split: verl uses it as the sample id (rollout traces
    count repeats of one index as the n rollouts of one prompt), so the problem's own position in its
    generation sequence is `extra_info.problem_index` (and `index` inside `tools_kwargs`)."""
    from vcot.vaot.actions import action_names

    spec = problem_spec(problem)
    tools = list(tools) if tools is not None else action_names()
    drawing = problem.condition == "vaot"
    return {
        "data_source": DATA_SOURCE_PREFIX + problem.task,
        "agent_name": TOOL_AGENT if drawing else SINGLE_TURN_AGENT,
        "prompt": verl_messages(problem.prompt, len(problem.images), where=f"problem {problem.uid}"),
        "images": [{"bytes": _png(im)} for im in problem.images],
        "ability": ABILITY,
        "reward_model": {"style": "rule", "ground_truth": str(problem.answer)},
        "extra_info": {
            "index": int(index),
            "split": split,
            "task": problem.task,
            "uid": problem.uid,
            "answer_type": str(problem.answer_type),
            "options": [str(o) for o in (problem.options or [])],
            "seed": int(problem.seed),
            "problem_index": int(problem.index),
            "difficulty": problem.difficulty,
            "params": spec["params"],
            "condition": problem.condition,
            "variant": spec["variant"],
            "question": problem.question,
            "need_tools_kwargs": drawing,
            "tools_kwargs": {name: {"create_kwargs": spec} for name in tools},
        },
    }


def _schema(tools: Sequence[str]):
    import pyarrow as pa

    spec = pa.struct(
        [
            ("task", pa.string()),
            ("uid", pa.string()),
            ("seed", pa.int64()),
            ("index", pa.int64()),
            ("difficulty", pa.string()),
            ("params", pa.string()),
            ("condition", pa.string()),
            ("variant", pa.int64()),
        ]
    )
    extra = pa.struct(
        [
            ("index", pa.int64()),
            ("split", pa.string()),
            ("task", pa.string()),
            ("uid", pa.string()),
            ("answer_type", pa.string()),
            ("options", pa.list_(pa.string())),
            ("seed", pa.int64()),
            ("problem_index", pa.int64()),
            ("difficulty", pa.string()),
            ("params", pa.string()),
            ("condition", pa.string()),
            ("variant", pa.int64()),
            ("question", pa.string()),
            ("need_tools_kwargs", pa.bool_()),
            ("tools_kwargs", pa.struct([(name, pa.struct([("create_kwargs", spec)])) for name in tools])),
        ]
    )
    return pa.schema(
        [
            ("data_source", pa.string()),
            ("agent_name", pa.string()),
            ("prompt", pa.list_(pa.struct([("role", pa.string()), ("content", pa.string())]))),
            ("images", pa.list_(pa.struct([("bytes", pa.binary())]))),
            ("ability", pa.string()),
            ("reward_model", pa.struct([("style", pa.string()), ("ground_truth", pa.string())])),
            ("extra_info", extra),
        ]
    )


def scene_key(problem: Problem) -> str:
    """The problem's scene identity (`Task.scene_key`, as `vcot overlap` uses): rows sharing it are one
    problem and go to the same split."""
    scene = problem.instance.meta.get("scene") if isinstance(problem.instance.meta, dict) else None
    if scene is None:
        return "uid:" + problem.uid
    from vcot.rl.problems import configured_task

    try:
        return configured_task(problem.task, problem.difficulty, problem.params).scene_key(scene)
    except (TypeError, ValueError, KeyError):  # a task no longer configurable so: its exact scene still counts
        return hashlib.sha256(json.dumps(scene, sort_keys=True, default=str).encode()).hexdigest()


def split_by_scene(
    problems: Iterable[Problem], validation_fraction: float, seed: int = 0
) -> tuple[list[Problem], list[Problem]]:
    """(train, validation): per task, round(fraction × scenes) whole scenes, ranked by a seeded hash of their
    key, go to validation — at least one when the task has two scenes or more and the fraction is positive,
    never all of them. Both keep the input order."""
    if not 0.0 <= validation_fraction < 1.0 or math.isnan(validation_fraction):
        raise VerlExportError(f"the validation fraction must be in [0, 1), got {validation_fraction}")
    items = [(p, scene_key(p)) for p in problems]
    groups: dict[str, set[str]] = {}
    for p, key in items:
        groups.setdefault(p.task, set()).add(key)
    held: set[tuple[str, str]] = set()
    for task, keys in groups.items():
        want = round(validation_fraction * len(keys))
        if validation_fraction > 0 and len(keys) >= 2:
            want = min(max(want, 1), len(keys) - 1)
        else:
            want = min(want, max(len(keys) - 1, 0))
        ranked = sorted(keys, key=lambda k, t=task: hashlib.sha256(f"{seed}\0{t}\0{k}".encode()).hexdigest())
        held.update((task, k) for k in ranked[:want])
    train = [p for p, k in items if (p.task, k) not in held]
    validation = [p for p, k in items if (p.task, k) in held]
    return train, validation


def _write_parquet(problems: Sequence[Problem], path: Path, split: str, rows_per_group: int = 64) -> int:
    import pyarrow as pa
    import pyarrow.parquet as pq

    from vcot.vaot.actions import action_names

    tools = action_names()
    schema = _schema(tools).with_metadata({"vcot": json.dumps({"format": "verl", "split": split})})
    with pq.ParquetWriter(path, schema) as writer:
        batch: list[dict] = []
        for i, p in enumerate(problems):
            batch.append(verl_row(p, split=split, index=i, tools=tools))
            if len(batch) >= rows_per_group:
                writer.write_table(pa.Table.from_pylist(batch, schema=schema))
                batch = []
        if batch or not problems:
            writer.write_table(pa.Table.from_pylist(batch, schema=schema))
    return len(problems)


@dataclass
class VerlExport:
    """What `export_verl` wrote."""

    out: Path
    train: Path
    validation: Path | None
    tool_config: Path
    counts: dict[str, dict[str, int]] = field(default_factory=dict)  # split → task → rows

    @property
    def n_train(self) -> int:
        return sum(self.counts.get("train", {}).values())

    @property
    def n_validation(self) -> int:
        return sum(self.counts.get("validation", {}).values())


def export_verl(
    problems: Iterable[Problem],
    out: str | Path,
    *,
    validation_fraction: float = 0.1,
    seed: int = 0,
    max_calls: int = DEFAULT_TOOL_CALLS,
    corruption: str | None = None,
    invalid_penalty: float = 0.0,
    split_name: str = "train",
) -> VerlExport:
    """Write `train.parquet`, `validation.parquet` (when the fraction is positive) and `tool_config.yaml` into
    the folder `out`. The rows are built in memory (PNG bytes), so a very large set is better exported in
    parts. `split_name` names the first split and its file (`<split_name>.parquet`): "train" by default; a
    suite exported whole is better called what it is (`vcot export rl SUITE` calls it "suite")."""
    if not split_name.isidentifier() or split_name == "validation":
        raise VerlExportError(f"split_name must be a plain name other than 'validation', got {split_name!r}")
    train, validation = split_by_scene(problems, validation_fraction, seed)
    if not train:
        raise VerlExportError("no problems to export")
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise VerlExportError(f"{out}: exists and is not a folder")
    out.mkdir(parents=True, exist_ok=True)

    def counts(ps: Sequence[Problem]) -> dict[str, int]:
        c: dict[str, int] = {}
        for p in ps:
            c[p.task] = c.get(p.task, 0) + 1
        return c

    first = out / f"{split_name}.parquet"
    _write_parquet(train, first, split_name)
    val_path = None
    if validation_fraction > 0:
        val_path = out / VALIDATION_FILE
        _write_parquet(validation, val_path, "validation")
    elif (out / VALIDATION_FILE).exists():
        (out / VALIDATION_FILE).unlink()  # a stale split from an earlier export would be trained against
    tool_config = write_tool_config(
        out / TOOL_CONFIG_FILE, max_calls=max_calls, corruption=corruption, invalid_penalty=invalid_penalty
    )
    return VerlExport(out, first, val_path, tool_config, {"train": counts(train), "validation": counts(validation)})


def problems_from_suite(suite: Any, condition: str = "direct", steps: bool = False) -> tuple[list[Problem], list[str]]:
    """The suite's generated instances as problems, each regenerated from its generator record with
    `vcot.rl.problem_from_row` (the drawing tool rebuilds it the same way) and checked against the stored
    answer and scene (`steps`: with their step texts and pictures). Returns (problems, one message per
    instance left out)."""
    from vcot.rl import problem_from_row
    from vcot.suite import Suite, read_suite

    s = suite if isinstance(suite, Suite) else read_suite(suite)
    problems: list[Problem] = []
    skipped: list[str] = []
    for inst in s.instances:
        gen = inst.meta.get("generator") if isinstance(inst.meta, dict) else None
        if not isinstance(gen, dict) or "index" not in gen:
            skipped.append(f"{inst.uid}: not generated by vcot (no generator record); cannot be regenerated")
            continue
        row = {
            "task": inst.task,
            "difficulty": gen.get("difficulty", "custom"),
            "params": gen.get("params", {}),
            "seed": gen.get("suite_seed", 0),
            "index": gen["index"],
            "condition": condition,
        }
        if gen.get("variant"):
            row["variant"] = gen["variant"]
        try:
            p = problem_from_row(row, steps=steps)
        except Exception as exc:  # a generator or parameter that no longer works is reported, not raised
            skipped.append(f"{inst.uid}: cannot be regenerated ({type(exc).__name__}: {exc})")
            continue
        if str(p.answer) != str(inst.answer) or p.instance.meta.get("scene") != inst.meta.get("scene"):
            skipped.append(
                f"{inst.uid}: regenerates to a different problem (generator version "
                f"{gen.get('version')!r}{', variant ' + str(gen['variant']) if gen.get('variant') else ''})"
            )
            continue
        problems.append(p)
    return problems, skipped
