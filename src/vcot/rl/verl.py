"""verl adapter (optional extra "rl-verl"): training data, reward function, drawing tool and curriculum.

Four pieces, each on the contract verl 0.9 reads (docs/rl.md, "verl", gives the config lines):

- `export_verl` writes `train.parquet` / `validation.parquet` in the schema of verl's `RLHFDataset`
  (a `prompt` of chat messages whose string contents hold one `<image>` placeholder per entry of `images`,
  `images` as `{"bytes": PNG}` dicts, `reward_model.ground_truth`, `extra_info` with `tools_kwargs`) and
  `tool_config.yaml` beside them. Validation takes whole scenes (the scene keys `vcot overlap` compares), so
  no validation scene is ever trained on.
- `compute_score` is verl's custom reward function: vcot's grader through `vcot.rl.reward_details`.
- `DrawingTool` (a `verl.tools.base_tool.BaseTool`) runs the VAoT actions on `vcot.rl.DrawingSession`, one
  tool per action, the problem rebuilt from the row's `tools_kwargs` with `vcot.rl.problem_from_row`.
- `CurriculumSampler` and `CurriculumDataset` move each task along `vcot.rl.Curriculum`. The sampler has the
  interface of verl's `AbstractCurriculumSampler` (and subclasses it where verl still has it: 0.9 removed it
  and its `data.sampler` hook); `CurriculumDataset`, an `RLHFDataset` loaded with `data.custom_cls`, carries
  it inside and is fed by the `on_batch_end` hook that verl 0.9's trainer still calls.

Only this module imports verl, and only when a verl class is asked for (`DrawingTool`, `CurriculumSampler`,
`CurriculumDataset` are built on first access), so the export and `compute_score` run without it.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import json
import logging
import math
import random
import threading
import uuid
import weakref
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from PIL import Image

    from vcot.rl.problems import Problem

logger = logging.getLogger(__name__)

DATA_SOURCE_PREFIX = "vcot/"
ABILITY = "visual_reasoning"
TOOL_CLASS = f"{__name__}.DrawingTool"
TRAIN_FILE = "train.parquet"
VALIDATION_FILE = "validation.parquet"
TOOL_CONFIG_FILE = "tool_config.yaml"
# verl's agent loops by their registered names: a row's `agent_name` picks its own (the drawing needs the tool loop).
TOOL_AGENT = "tool_agent"
SINGLE_TURN_AGENT = "single_turn_agent"
MAX_TOOL_CALLS = 64
DEFAULT_TOOL_CALLS = 6  # vcot.vaot.actions.MAX_TURNS: the budget the prompt states
# verl truncates a tool text past rollout.multi_turn.max_tool_response_length (256 characters by default).
MAX_TOOL_TEXT = 240


class VerlExportError(ValueError):
    """The problems cannot be exported as asked (the message names what and where)."""


# ----------------------------------------------------------------------------------------------- export


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
    return {"task": problem.task, "uid": problem.uid, "seed": int(problem.seed), "index": int(problem.index),
            "difficulty": problem.difficulty, "params": json.dumps(problem.params, sort_keys=True),
            "condition": problem.condition, "variant": int(problem.variant or 0)}


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
            "index": int(index), "split": split, "task": problem.task, "uid": problem.uid,
            "answer_type": str(problem.answer_type), "options": [str(o) for o in (problem.options or [])],
            "seed": int(problem.seed), "problem_index": int(problem.index), "difficulty": problem.difficulty,
            "params": spec["params"], "condition": problem.condition, "variant": spec["variant"],
            "question": problem.question, "need_tools_kwargs": drawing,
            "tools_kwargs": {name: {"create_kwargs": spec} for name in tools},
        },
    }


def _schema(tools: Sequence[str]):
    import pyarrow as pa

    spec = pa.struct([("task", pa.string()), ("uid", pa.string()), ("seed", pa.int64()), ("index", pa.int64()),
                      ("difficulty", pa.string()), ("params", pa.string()), ("condition", pa.string()),
                      ("variant", pa.int64())])
    extra = pa.struct([
        ("index", pa.int64()), ("split", pa.string()), ("task", pa.string()), ("uid", pa.string()),
        ("answer_type", pa.string()), ("options", pa.list_(pa.string())), ("seed", pa.int64()),
        ("problem_index", pa.int64()), ("difficulty", pa.string()), ("params", pa.string()),
        ("condition", pa.string()), ("variant", pa.int64()), ("question", pa.string()),
        ("need_tools_kwargs", pa.bool_()),
        ("tools_kwargs", pa.struct([(name, pa.struct([("create_kwargs", spec)])) for name in tools])),
    ])
    return pa.schema([
        ("data_source", pa.string()), ("agent_name", pa.string()),
        ("prompt", pa.list_(pa.struct([("role", pa.string()), ("content", pa.string())]))),
        ("images", pa.list_(pa.struct([("bytes", pa.binary())]))), ("ability", pa.string()),
        ("reward_model", pa.struct([("style", pa.string()), ("ground_truth", pa.string())])),
        ("extra_info", extra),
    ])


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


def split_by_scene(problems: Iterable[Problem], validation_fraction: float, seed: int = 0
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


def export_verl(problems: Iterable[Problem], out: str | Path, *, validation_fraction: float = 0.1, seed: int = 0,
                max_calls: int = DEFAULT_TOOL_CALLS, corruption: str | None = None,
                invalid_penalty: float = 0.0, split_name: str = "train") -> VerlExport:
    """Write `train.parquet`, `validation.parquet` (when the fraction is positive) and `tool_config.yaml` into
    the folder `out`. The rows are built in memory (PNG bytes), so a very large set is better exported in
    parts. `split_name` names the first split and its file (`<split_name>.parquet`): "train" by default; a
    suite exported whole is better called what it is (`vcot export-rl SUITE` calls it "suite")."""
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
    tool_config = write_tool_config(out / TOOL_CONFIG_FILE, max_calls=max_calls, corruption=corruption,
                                    invalid_penalty=invalid_penalty)
    return VerlExport(out, first, val_path, tool_config,
                      {"train": counts(train), "validation": counts(validation)})


def problems_from_suite(suite: Any, condition: str = "direct", steps: bool = False
                        ) -> tuple[list[Problem], list[str]]:
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
        row = {"task": inst.task, "difficulty": gen.get("difficulty", "custom"), "params": gen.get("params", {}),
               "seed": gen.get("suite_seed", 0), "index": gen["index"], "condition": condition}
        if gen.get("variant"):
            row["variant"] = gen["variant"]
        try:
            p = problem_from_row(row, steps=steps)
        except Exception as exc:  # a generator or parameter that no longer works is reported, not raised
            skipped.append(f"{inst.uid}: cannot be regenerated ({type(exc).__name__}: {exc})")
            continue
        if str(p.answer) != str(inst.answer) or p.instance.meta.get("scene") != inst.meta.get("scene"):
            skipped.append(f"{inst.uid}: regenerates to a different problem (generator version "
                           f"{gen.get('version')!r}{', variant ' + str(gen['variant']) if gen.get('variant') else ''})")
            continue
        problems.append(p)
    return problems, skipped


# ------------------------------------------------------------------------------------------ tool config


def _describe(prop: Mapping[str, Any]) -> str | None:
    # verl's OpenAIFunctionPropertySchema keeps only type, description and enum: bounds, defaults and the
    # shape of a point list would be dropped silently, so they are said in words instead.
    bits = []
    items = prop.get("items")
    if prop.get("type") == "array" and isinstance(items, Mapping) and items.get("type") == "array":
        bits.append("list of [x, y] points")
    if "maxItems" in prop:
        bits.append(f"at most {prop['maxItems']} items")
    lo, hi = prop.get("minimum"), prop.get("maximum")
    if lo is not None and hi is not None:
        bits.append(f"from {lo} to {hi}")
    elif prop.get("exclusiveMinimum") is not None:
        bits.append(f"greater than {prop['exclusiveMinimum']}")
    if hi is not None and lo is None:
        bits.append(f"at most {hi}")
    if prop.get("minLength"):
        bits.append("not empty")
    if "maxLength" in prop:
        bits.append(f"at most {prop['maxLength']} characters")
    if "default" in prop:
        bits.append(f"default {json.dumps(prop['default'])}")
    return "; ".join(bits) or None


def verl_tool_schema(definition: Mapping[str, Any]) -> dict[str, Any]:
    """A `vcot.vaot.actions.tool_definitions()` entry in the subset of JSON schema verl's tool schema holds."""
    fn = definition["function"]
    params = fn["parameters"]
    props = {}
    for name, prop in params.get("properties", {}).items():
        p: dict[str, Any] = {"type": prop.get("type", "string")}
        desc = _describe(prop)
        if desc:
            p["description"] = desc
        if "enum" in prop:
            p["enum"] = list(prop["enum"])
        props[name] = p
    return {"type": "function", "function": {
        "name": fn["name"], "description": fn["description"],
        "parameters": {"type": "object", "properties": props, "required": list(params.get("required", []))}}}


def tool_config(max_calls: int = DEFAULT_TOOL_CALLS, corruption: str | None = None,
                invalid_penalty: float = 0.0) -> dict[str, Any]:
    """verl's tool config (`rollout.multi_turn.tool_config_path`): one `DrawingTool` entry per action. One
    tool per action keeps each action's own parameter schema (a single tool with an `action` enum could not
    say which parameters go with which action in verl's flat schema); the entries share one drawing per
    trajectory."""
    from vcot.vaot.actions import tool_definitions

    _check_tool_options(max_calls, corruption, invalid_penalty)
    config: dict[str, Any] = {"type": "native", "max_calls": int(max_calls), "corruption": corruption}
    if invalid_penalty:
        config["invalid_penalty"] = float(invalid_penalty)
    return {"tools": [{"class_name": TOOL_CLASS, "config": dict(config),
                       "tool_schema": verl_tool_schema(d)} for d in tool_definitions()]}


def write_tool_config(path: str | Path, max_calls: int = DEFAULT_TOOL_CALLS, corruption: str | None = None,
                      invalid_penalty: float = 0.0) -> Path:
    import yaml

    path = Path(path)
    text = ("# verl tool config for the vcot drawing tool (docs/rl.md, \"verl\"): "
            "actor_rollout_ref.rollout.multi_turn.tool_config_path\n")
    path.write_text(text + yaml.safe_dump(tool_config(max_calls, corruption, invalid_penalty), sort_keys=False, allow_unicode=True),
                    encoding="utf-8")
    return path


def _check_tool_options(max_calls: Any, corruption: Any, invalid_penalty: Any = 0.0) -> None:
    from vcot.vaot.corrupt import CORRUPTIONS

    if isinstance(max_calls, bool) or not isinstance(max_calls, int) or not 1 <= max_calls <= MAX_TOOL_CALLS:
        raise VerlExportError(f"max_calls must be an integer from 1 to {MAX_TOOL_CALLS}, got {max_calls!r}")
    if corruption is not None and corruption not in CORRUPTIONS:
        raise VerlExportError(f"corruption must be null or one of {', '.join(CORRUPTIONS)}, got {corruption!r}")
    if (isinstance(invalid_penalty, bool) or not isinstance(invalid_penalty, int | float)
            or not 0 <= invalid_penalty <= 10):
        raise VerlExportError(f"invalid_penalty must be a number from 0 to 10, got {invalid_penalty!r}")


# ---------------------------------------------------------------------------------------------- reward

_SCORE_KEYS = ("score", "acc", "pred", "format_ok", "draw_calls")


def _draw_calls(value: Any) -> float:
    """The rollout's drawing-call count as a float verl can stack: 0.0 for anything that is not a finite,
    non-negative number (an int too large for a float, NaN, a bool, a string)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return 0.0
    try:
        count = float(value)
    except OverflowError:  # an int beyond 1.8e308
        return 0.0
    return count if math.isfinite(count) and count >= 0 else 0.0


def compute_score(data_source: str, solution_str: str, ground_truth: str, extra_info: Mapping[str, Any] | None = None,
                  **kwargs: Any) -> dict[str, Any]:
    """verl's custom reward function (`reward.custom_reward_function`): vcot's grader on the decoded
    response. Returns verl's dict form — `score` (the reward), `acc` (1.0 when correct: verl's validation
    metrics use it), `pred` (the extracted answer: verl's majority vote uses it), `format_ok`, `draw_calls` —
    with the same keys whatever the input, since verl stacks every key over the batch. Never raises."""
    info = extra_info if isinstance(extra_info, Mapping) else {}
    out: dict[str, Any] = {"score": 0.0, "acc": 0.0, "pred": "", "format_ok": 0.0, "draw_calls": 0.0}
    try:
        out["draw_calls"] = _draw_calls(info.get("vcot_draw_calls"))
    except Exception:  # an odd Mapping's get; the count stays 0
        pass
    try:
        from vcot.rl import reward_details

        options = info.get("options")
        row = {"answer": "" if ground_truth is None else str(ground_truth),
               "answer_type": str(info.get("answer_type") or ""),
               "options": [str(o) for o in options] if isinstance(options, list | tuple) and options else None,
               "question": str(info.get("question") or ""), "task": info.get("task"), "uid": info.get("uid")}
        details = reward_details(solution_str if isinstance(solution_str, str) else "", row)
        out.update(score=float(details.reward), acc=float(bool(details.correct)),
                   pred="" if details.extracted is None else str(details.extracted),
                   format_ok=float(bool(details.format_ok)))
    except Exception:  # a reward must never stop training; garbage scores 0
        pass
    return out


# ---------------------------------------------------------------------------------------- drawing tool


@functools.lru_cache(maxsize=64)
def _problem(spec_json: str) -> Problem:
    # The n rollouts of one prompt and its validation passes ask for the same problem: regenerate it once.
    from vcot.rl import problem_from_row

    return problem_from_row(json.loads(spec_json))


def _spec_json(spec: Any) -> str:
    if not isinstance(spec, Mapping):
        raise ValueError("the row's tools_kwargs carry no create_kwargs for this tool")
    keys = ("task", "uid", "seed", "index", "difficulty", "params", "condition", "variant")
    missing = [k for k in ("task", "seed", "index") if spec.get(k) is None]
    if missing:
        raise ValueError(f"create_kwargs lack {', '.join(missing)}")
    clean = {k: spec[k] for k in keys if spec.get(k) is not None}
    if isinstance(clean.get("params"), str):
        clean["params"] = json.loads(clean["params"])
    return json.dumps(clean, sort_keys=True)


def _safe_text(text: Any) -> str:
    # The decoded response that compute_score grades contains the tool turns too: an instruction quoting
    # "<answer></answer>" there would be read as the model's (empty) answer.
    s = str(text)
    s = s.replace("<answer>", "‹answer›").replace("</answer>", "‹/answer›")
    return s if len(s) <= MAX_TOOL_TEXT else s[: MAX_TOOL_TEXT - 1] + "…"


class _Trajectory:
    """One trajectory's drawing: its problem spec, the environment core once built (`vcot.rl.env.VcotEnv`,
    which holds the drawing session), and a lock (parallel calls of one turn would otherwise draw on the same
    picture at once)."""

    def __init__(self, spec_json: str) -> None:
        self.spec_json = spec_json
        self.session: Any = None  # the VcotEnv
        self.lock = asyncio.Lock()
        self.calls = 0
        self.errors = 0


# Sessions keyed by verl's per-trajectory AgentData: verl 0.9's tool agent loop creates and releases a tool
# instance around every single call (and the actions are separate tools), so an instance cannot hold a
# drawing; the AgentData lives exactly as long as the trajectory. Not kept in AgentData.extra_fields:
# those are copied into the batch and shipped to the reward workers.
_BY_TRAJECTORY: weakref.WeakKeyDictionary[Any, _Trajectory] = weakref.WeakKeyDictionary()
_BY_TRAJECTORY_LOCK = threading.Lock()


def _build_drawing_tool() -> type:
    from verl.tools.base_tool import BaseTool
    from verl.tools.schemas import OpenAIFunctionToolSchema, ToolResponse

    from vcot.vaot.actions import MAX_RAW_ARGUMENTS, action_names, tool_definitions

    class DrawingTool(BaseTool):
        """One vcot visual action as a verl tool (`tool_config.yaml` lists one per action).

        `config`: `max_calls` (the actions one trajectory may take over all drawing tools, 1–64, default the
        prompt's budget of 6: each call is a turn of `vcot.vaot.session.DrawingSession`), `corruption` (null,
        "modify_key" or "modify_non_key": vcot.vaot.corrupt) and `invalid_penalty` (0–10, default 0). The
        problem comes from the row's `tools_kwargs[<action>].create_kwargs`. `execute` returns the new picture
        and a short text, or an error text and no picture for an invalid action — it never raises — and the
        per-call step reward `vcot.rl.env.VcotEnv.act` gives: 0.0 for a drawn action, `-invalid_penalty` for a
        refused one (verl collects it in `tool_rewards`). The outcome reward is `compute_score`'s."""

        def __init__(self, config: dict | None, tool_schema: OpenAIFunctionToolSchema | None = None) -> None:
            config = dict(config or {})
            if tool_schema is None:
                name = config.get("action")
                defs = {d["function"]["name"]: d for d in tool_definitions()}
                if name not in defs:
                    raise ValueError(f"DrawingTool: config.action must name an action ({', '.join(defs)}), "
                                     f"got {name!r}")
                tool_schema = OpenAIFunctionToolSchema.model_validate(verl_tool_schema(defs[name]))
            super().__init__(config, tool_schema)
            if self.name not in action_names():
                raise ValueError(f"DrawingTool: {self.name!r} is not a vcot action ({', '.join(action_names())})")
            max_calls = config.get("max_calls", DEFAULT_TOOL_CALLS)
            corruption = config.get("corruption")
            try:
                _check_tool_options(max_calls, corruption)
            except VerlExportError as exc:
                raise ValueError(f"DrawingTool {self.name}: {exc}") from None
            self.max_calls: int = max_calls
            self.corruption: str | None = corruption
            penalty = config.get("invalid_penalty", 0.0)
            if not isinstance(penalty, int | float) or isinstance(penalty, bool) or not 0 <= penalty <= 10:
                raise ValueError(f"DrawingTool {self.name}: invalid_penalty must be a number from 0 to 10, "
                                 f"got {penalty!r}")
            self.invalid_penalty = float(penalty)
            self._instances: dict[str, _Trajectory | str] = {}

        async def create(self, instance_id: str | None = None, **kwargs: Any) -> tuple[str, ToolResponse]:
            """Record the problem spec (`create_kwargs`) for this instance; the picture is built on first use."""
            instance_id = instance_id or str(uuid.uuid4())
            try:
                self._instances[instance_id] = _spec_json(kwargs.get("create_kwargs"))
            except (ValueError, TypeError) as exc:
                self._instances[instance_id] = f"error: {exc}"
            return instance_id, ToolResponse()

        def _trajectory(self, instance_id: str, agent_data: Any) -> _Trajectory | str:
            entry = self._instances.get(instance_id)
            if entry is None:
                return "error: unknown tool instance (create was not called)"
            if isinstance(entry, _Trajectory):
                return entry
            if entry.startswith("error: "):
                return entry
            if agent_data is None:  # a caller that keeps one instance per trajectory (no AgentData)
                traj = _Trajectory(entry)
                self._instances[instance_id] = traj
                return traj
            with _BY_TRAJECTORY_LOCK:
                traj = _BY_TRAJECTORY.get(agent_data)
                if traj is None:
                    traj = _BY_TRAJECTORY[agent_data] = _Trajectory(entry)
            return traj

        async def execute(self, instance_id: str, parameters: dict[str, Any], **kwargs: Any
                          ) -> tuple[ToolResponse, float, dict]:
            """Run this action on the trajectory's drawing: (ToolResponse with the picture and a text, 0.0,
            metrics) or, for an invalid action or an exhausted budget, (ToolResponse with the error text, 0.0,
            metrics)."""
            agent_data = kwargs.get("agent_data")
            try:
                traj = self._trajectory(instance_id, agent_data)
            except TypeError:  # an AgentData stand-in that cannot be weakly referenced
                traj = self._trajectory(instance_id, None)
            if isinstance(traj, str):
                return ToolResponse(text=_safe_text(traj)), 0.0, {"valid": False}
            error = _check_parameters(parameters, MAX_RAW_ARGUMENTS)
            loop = asyncio.get_running_loop()
            async with traj.lock:
                if error is None and traj.session is None:
                    try:
                        traj.session = await loop.run_in_executor(None, self._new_session, traj.spec_json)
                    except Exception as exc:  # the problem cannot be rebuilt: say so to the model
                        error = f"error: the picture could not be rebuilt ({type(exc).__name__})"
                if error is None:
                    try:
                        image, text, step = await loop.run_in_executor(None, traj.session.act, self.name,
                                                                       dict(parameters))
                    except Exception as exc:  # VcotEnv.act promises not to raise; a bug must not end a rollout
                        image, text, step = None, f"error: {self.name} failed ({type(exc).__name__})", None
                else:
                    image, text, step = None, error, None
                if step is None:
                    step = -self.invalid_penalty
                traj.calls += 1
                traj.errors += image is None
                if agent_data is not None and isinstance(getattr(agent_data, "extra_fields", None), dict):
                    # Small numbers only (extra_fields go into the batch): compute_score reports the count.
                    agent_data.extra_fields["vcot_draw_calls"] = traj.calls - traj.errors
            if image is None:
                return ToolResponse(text=_safe_text(text)), float(step), {"valid": False, "action": self.name}
            return (ToolResponse(text=_safe_text(text), image=[image]), float(step),
                    {"valid": True, "action": self.name})

        def _new_session(self, spec_json: str) -> Any:
            from vcot.rl.env import VcotEnv
            from vcot.vaot.episode import drawing_condition

            condition = drawing_condition(self.corruption)
            env = VcotEnv(condition=condition, max_turns=self.max_calls, invalid_penalty=self.invalid_penalty)
            problem = _problem(spec_json)
            if problem.condition != condition:  # a row posed as another drawing condition: same scene
                problem = _problem(json.dumps({**json.loads(spec_json), "condition": condition}, sort_keys=True))
            env.reset(options={"problem": problem})
            return env

        async def calc_reward(self, instance_id: str, **kwargs: Any) -> float:
            """0.0: the drawing itself is not graded here; the per-call step reward comes with each `execute`,
            the outcome reward from `compute_score`."""
            return 0.0

        async def release(self, instance_id: str, **kwargs: Any) -> None:
            """Forget the instance; the trajectory's drawing lives on with verl's AgentData."""
            self._instances.pop(instance_id, None)

    return DrawingTool


def _check_parameters(parameters: Any, limit: int) -> str | None:
    if not isinstance(parameters, Mapping):
        return "error: the arguments must be a JSON object"
    from vcot.vaot.actions import oversized

    too_big = oversized(dict(parameters))  # counted before json.dumps walks a million elements
    if too_big is not None:
        return f"error: {too_big}"
    try:
        size = len(json.dumps(parameters, default=str))
    except (TypeError, ValueError, RecursionError):
        return "error: the arguments are not plain JSON"
    if size > limit:
        return f"error: the arguments are {size} characters long (limit {limit})"
    return None


# ------------------------------------------------------------------------------------------ curriculum


def _row_keys(data_source: Any) -> list[tuple[str, str, dict]]:
    """(task, difficulty, params) of every row of a verl dataset (its `dataframe`) or a sequence of rows."""
    frame = getattr(data_source, "dataframe", None)
    if frame is not None and "extra_info" in getattr(frame, "column_names", ()):
        infos = list(frame["extra_info"])
    else:
        infos = [data_source[i].get("extra_info") for i in range(len(data_source))]
    out = []
    for info in infos:
        info = info if isinstance(info, Mapping) else {}
        try:
            params = json.loads(info.get("params") or "{}")
        except (TypeError, ValueError):
            params = {}
        out.append((str(info.get("task", "")), str(info.get("difficulty", "")),
                    params if isinstance(params, dict) else {}))
    return out


# vcot.rl.Curriculum's own arguments, passed through from data.vcot_curriculum.
_CURRICULUM_ARGS = ("band", "window", "knobs", "start", "ladders", "step", "z", "check_every")


class _Picker:
    """Chooses a row for each draw from the pool of its task at the curriculum's current level."""

    def __init__(self, keys: list[tuple[str, str, dict]], options: Mapping[str, Any]) -> None:
        from vcot.rl import Curriculum

        self.keys = keys
        self.tasks = sorted({t for t, _, _ in keys if t})
        if not self.tasks:
            raise ValueError("the dataset has no vcot rows (extra_info.task)")
        self.rows: dict[str, list[int]] = {t: [] for t in self.tasks}
        for i, (t, _, _) in enumerate(keys):
            if t:
                self.rows[t].append(i)
        kwargs = {k: options[k] for k in _CURRICULUM_ARGS if options.get(k) is not None}
        if "band" in kwargs:
            kwargs["band"] = tuple(kwargs["band"])
        self.curriculum = Curriculum(self.tasks, **kwargs)
        self.seed = int(options.get("seed") or 0)
        self.draws = 0
        self._pools: dict[tuple[str, str], list[int]] = {}

    def pool(self, task: str) -> list[int]:
        """The rows of `task` that match the curriculum's current parameters (the nearest level's when none
        do exactly): the preset name, else the knob's value, else all the task's rows."""
        level = self.curriculum.level(task)
        target = self.curriculum.params(task)
        cache_key = (task, json.dumps([level, target], sort_keys=True, default=str))
        if cache_key in self._pools:
            return self._pools[cache_key]
        rows = self.rows[task]
        exact = [i for i in rows if target and all(self.keys[i][2].get(k) == v for k, v in target.items())]
        pool = exact or [i for i in rows if self.keys[i][1] == str(level)]
        if not pool:
            pool = self._nearest(task, rows, level)
        self._pools[cache_key] = pool or rows
        return self._pools[cache_key]

    def _nearest(self, task: str, rows: list[int], level: Any) -> list[int]:
        # Equally near levels are served together (medium asked, easy and hard exported: both).
        presets = ["easy", "medium", "hard"]
        if isinstance(level, str) and level in presets:
            dist = {i: abs(presets.index(self.keys[i][1]) - presets.index(level)) for i in rows
                    if self.keys[i][1] in presets}
            if dist:
                best = min(dist.values())
                return [i for i, d in dist.items() if d == best]
        knob = (getattr(self.curriculum, "knobs", None) or {}).get(task)
        if knob and isinstance(level, int | float) and not isinstance(level, bool):
            vals = {i: self.keys[i][2].get(knob) for i in rows}
            nums = {i: v for i, v in vals.items() if isinstance(v, int | float) and not isinstance(v, bool)}
            if nums:
                best_dist = min(abs(v - level) for v in nums.values())
                return [i for i, v in nums.items() if abs(v - level) == best_dist]
        return []

    def pick(self, item: int) -> int:
        task = self.keys[item][0] if 0 <= item < len(self.keys) and self.keys[item][0] else self.tasks[0]
        pool = self.pool(task)
        rng = random.Random(f"{self.seed}:{item}:{self.draws}")
        self.draws += 1
        return pool[rng.randrange(len(pool))]

    def update(self, batch: Any) -> int:
        """Feed a verl batch's rewards (per sample: `acc` from compute_score, else the summed token-level
        score) to the curriculum; returns how many were observed."""
        tasks, rewards = _batch_rewards(batch)
        for task, r in zip(tasks, rewards, strict=False):
            if task in self.rows:
                self.curriculum.observe(task, r)
        return len(tasks)


def _batch_rewards(batch: Any) -> tuple[list[str], list[float]]:
    non_tensor = getattr(batch, "non_tensor_batch", None) or {}
    tensors = getattr(batch, "batch", None)
    infos = non_tensor.get("extra_info")
    if infos is None:
        return [], []
    tasks = [str(i.get("task", "")) if isinstance(i, Mapping) else "" for i in infos]
    rewards: list[float] | None = None
    if "acc" in non_tensor:
        rewards = [float(x) for x in non_tensor["acc"]]
    elif tensors is not None:
        for key in ("token_level_scores", "token_level_rewards", "rm_scores"):
            if key in tensors.keys():
                rewards = [float(x) for x in tensors[key].sum(-1).tolist()]
                break
    if rewards is None or len(rewards) != len(tasks):
        return [], []
    return tasks, rewards


def _curriculum_options(data_config: Any) -> dict[str, Any]:
    raw = None
    if data_config is not None:
        getter = getattr(data_config, "get", None)
        raw = getter("vcot_curriculum", None) if getter else None
    if raw is None:
        return {}
    try:
        from omegaconf import OmegaConf

        if OmegaConf.is_config(raw):
            raw = OmegaConf.to_container(raw, resolve=True)
    except ImportError:  # plain dict configs need no omegaconf
        pass
    if not isinstance(raw, Mapping):
        raise ValueError("data.vcot_curriculum must be a mapping of vcot.rl.Curriculum's arguments, seed and "
                         "num_samples")
    return dict(raw)


def _build_sampler() -> type:
    from torch.utils.data import Sampler

    try:  # verl ≤ 0.8 has the interface (and its trainer calls update); 0.9 dropped it
        from verl.experimental.dataset.sampler import AbstractCurriculumSampler as _Base
    except ImportError:
        _Base = Sampler

    class CurriculumSampler(_Base):  # type: ignore[misc, valid-type]
        """Row indices drawn task by task at `vcot.rl.Curriculum`'s current level (verl's
        `AbstractCurriculumSampler`: `__init__(data_source, data_config)`, `__iter__`, `__len__`,
        `update(batch)`). Options from `data.vcot_curriculum`: the Curriculum's arguments (band, window, knobs,
        start, ladders, step, z, check_every), `seed`, and `num_samples` per epoch (default the dataset's
        length). Indices are drawn lazily, so a level
        change is seen from the next batch on — with `data.dataloader_num_workers=0`, as verl requires of a
        curriculum."""

        def __init__(self, data_source: Any, data_config: Any = None) -> None:
            self.data_source = data_source
            options = _curriculum_options(data_config)
            self._picker = _Picker(_row_keys(data_source), options)
            n = options.get("num_samples")
            self.num_samples = int(n) if n else len(self._picker.keys)
            self.epoch = 0

        @property
        def curriculum(self) -> Any:
            return self._picker.curriculum

        def __len__(self) -> int:
            return self.num_samples

        def __iter__(self) -> Iterator[int]:
            rng = random.Random(f"{self._picker.seed}:epoch:{self.epoch}")
            self.epoch += 1
            n = len(self._picker.keys)
            for _ in range(self.num_samples):
                yield self._picker.pick(rng.randrange(n))

        def pick(self, item: int) -> int:
            """The row to serve in place of `item` (same task, the curriculum's current level)."""
            return self._picker.pick(item)

        def update(self, batch: Any) -> None:
            """Observe the batch's per-sample rewards (verl calls this after each training step)."""
            self._picker.update(batch)

        def state_dict(self) -> dict[str, Any]:
            return {"curriculum": self.curriculum.state_dict(), "draws": self._picker.draws, "epoch": self.epoch}

        def load_state_dict(self, state: Mapping[str, Any]) -> None:
            self.curriculum.load_state_dict(state["curriculum"])
            self._picker.draws = int(state.get("draws", 0))
            self.epoch = int(state.get("epoch", 0))
            self._picker._pools.clear()

    return CurriculumSampler


def _build_dataset() -> type:
    from torch.utils.data import get_worker_info
    from verl.utils.dataset.rl_dataset import RLHFDataset

    class CurriculumDataset(RLHFDataset):
        """verl's `RLHFDataset` with the curriculum inside, for verl 0.9, whose config has no sampler hook
        (`data.custom_cls.path=pkg://vcot.rl.verl`, `data.custom_cls.name=CurriculumDataset`): each training
        item is served from its task's rows at the current level, and `on_batch_end` — which verl's
        trainer calls after every step — feeds the batch's rewards back. Validation rows
        (`extra_info.split == "validation"`) are served as they are."""

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            infos = list(self.dataframe["extra_info"]) if len(self.dataframe) else []
            # verl builds the validation set with the same class (data.custom_cls): it must stay as it is.
            self.curriculum_sampler = None
            self._warned = False
            if infos and {(i or {}).get("split") for i in infos} != {"validation"}:
                self.curriculum_sampler = __getattr__("CurriculumSampler")(self, self.config)

        def __getitem__(self, item: int) -> dict:
            if self.curriculum_sampler is not None:
                if not self._warned and get_worker_info() is not None:
                    # A worker holds a copy: the trainer's on_batch_end updates never reach it.
                    logger.warning("vcot CurriculumDataset runs in a dataloader worker, where the curriculum "
                                   "never moves; set data.dataloader_num_workers=0")
                    self._warned = True
                item = self.curriculum_sampler.pick(int(item))
            return super().__getitem__(item)

        def on_batch_end(self, batch: Any) -> None:
            """Feed the step's rewards to the curriculum (verl's trainer hook)."""
            if self.curriculum_sampler is not None:
                self.curriculum_sampler.update(batch)

    return CurriculumDataset


_LAZY: dict[str, Callable[[], type]] = {"DrawingTool": _build_drawing_tool, "CurriculumSampler": _build_sampler,
                                        "CurriculumDataset": _build_dataset}
_LAZY_LOCK = threading.Lock()


def __getattr__(name: str) -> Any:
    # verl's loaders (tool_registry.get_tool_class, import_utils.load_extern_object) use getattr, so the
    # verl-backed classes can be built on first access and this module stays importable without verl.
    builder = _LAZY.get(name)
    if builder is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    with _LAZY_LOCK:
        if name not in globals():
            cls = builder()
            cls.__module__ = __name__
            cls.__qualname__ = name
            globals()[name] = cls
    return globals()[name]


__all__ = ["ABILITY", "DATA_SOURCE_PREFIX", "TOOL_CLASS", "VerlExport", "VerlExportError", "compute_score", "export_verl", "problem_spec", "problems_from_suite",
           "scene_key", "split_by_scene", "tool_config", "verl_messages", "verl_row", "verl_tool_schema",
           "write_tool_config"]
