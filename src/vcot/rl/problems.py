"""Training problems: one generated instance as a trainer sees it (docs/rl.md, "Problems").

A `Problem` holds the prompt in TRL's conversational form, the pictures it refers to as PIL images (never
encoded to PNG and decoded again), the gold answer and what grading needs, and the full `Instance` (scene and
solver states in `meta`). Prompt texts come from the evaluation's own builders — `build_prompt` of the
single-turn conditions with an image source that encodes nothing, `state_probe_text`, and the VAoT prompt —
so a model trained here reads word for word what `vcot run` sends it.

A problem is regenerated from six fields (task, difficulty, params, seed, index, condition; `variant` for a
suite instance drawn again by `vcot generate`). Seeds from 2**62 up are training-stream seeds (`stream_seed`):
their scenes are accepted without asking the task for a corrupted trajectory, which halves generation time
and which the training stream does not need. Seeds below 2**62 are suite seeds and regenerate exactly the
instance `vcot generate` made (`Task.make`), so a suite's instances can be served as problems too; their
rejection loop asks for the corrupted trajectory but does not draw it (`Corruption.steps` is drawn when read).
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from PIL import Image

from vcot.seeding import derive_seed
from vcot.tasks import get_task, get_task_class
from vcot.tasks.base import Task

if typing.TYPE_CHECKING:
    from vcot.schema import Instance

# Training-stream seeds have bit 62 set and stay below 2**63 (an Arrow int64 column holds them).
STREAM_SEED_FLAG = 1 << 62
_SEED_MASK = STREAM_SEED_FLAG - 1


def stream_seed(seed: int, redraw: int = 0) -> int:
    """The generation seed of a training stream with seed `seed`; `redraw` > 0 gives the seed of a fresh draw
    that replaces a scene the stream must not show (an excluded one)."""
    return STREAM_SEED_FLAG | (derive_seed("vcot.rl.stream", int(seed), int(redraw)) & _SEED_MASK)


def is_stream_seed(seed: int) -> bool:
    """Whether `seed` is a training-stream seed (else a suite seed, regenerated as `vcot generate` does)."""
    return int(seed) >= STREAM_SEED_FLAG


@dataclass(frozen=True)
class Problem:
    """One training problem. `images` are exactly the pictures of `prompt`, in order (one `{"type": "image"}`
    part each); `step_images` the step pictures, rendered only when asked (`steps=True`)."""

    task: str
    uid: str
    seed: int
    index: int
    difficulty: str
    params: dict[str, Any]
    condition: str
    question: str
    prompt: list[dict[str, Any]]
    images: list[Image.Image]
    answer: str
    answer_type: str
    options: list[str] | None
    instance: Instance
    variant: int = 0
    step_images: list[Image.Image] = field(default_factory=list)
    # The VAoT drawing tools as OpenAI-style function definitions (vcot.vaot.actions.tool_definitions);
    # None for the other conditions.
    tools: list[dict[str, Any]] | None = None
    # Every picture the task drew for this problem by its path in the instance (input, and steps when drawn):
    # what an episode is rebuilt over (vcot.rl.env). Not a column.
    pictures: Mapping[str, Image.Image] = field(default_factory=dict, repr=False, compare=False)

    def row(self) -> dict[str, Any]:
        """Plain, Arrow-friendly columns for a `datasets` table; `problem_from_row` turns one back into this
        problem. `params` is a JSON string, `options` a list ([] when none), `tools` a JSON string ("" when
        none)."""
        return {
            "prompt": self.prompt,
            "images": list(self.images),
            "task": self.task,
            "uid": self.uid,
            "seed": self.seed,
            "index": self.index,
            "difficulty": self.difficulty,
            "params": json.dumps(self.params, sort_keys=True),
            "condition": self.condition,
            "answer": self.answer,
            "answer_type": self.answer_type,
            "options": list(self.options or []),
            "variant": self.variant,
            "question": self.question,
            "tools": json.dumps(self.tools) if self.tools else "",
        }

    def digest(self) -> str:
        """A fingerprint of everything the model sees and is graded against: prompt, pixels, answer."""
        from vcot.draw.png import pixel_digest

        h = hashlib.sha256()
        h.update(
            json.dumps(
                [self.uid, self.prompt, self.answer, self.answer_type, self.options, self.tools], sort_keys=True
            ).encode()
        )
        for im in [*self.images, *self.step_images]:
            h.update(pixel_digest(im).encode())
        return h.hexdigest()


def params_label(task: str, difficulty: str, params: Mapping[str, Any]) -> str:
    """The difficulty label of a problem: the preset name when `params` are that preset's, else "custom"."""
    cls = get_task_class(task)
    if difficulty in cls.presets and _json(dataclasses.asdict(cls.presets[difficulty])) == _json(params):
        return difficulty
    return "custom"


def problem_uid(task: str, label: str, params: Mapping[str, Any], seed: int, index: int, variant: int = 0) -> str:
    """`{task}/{difficulty}/{seed}/{index}`; a custom setting adds a digest of its parameters, a suite
    instance's variant `/v{variant}`. Derived from the regeneration fields alone, so a regenerated problem
    keeps its uid."""
    name = label if label != "custom" else "custom-" + hashlib.sha256(_json(params).encode()).hexdigest()[:8]
    return f"{task}/{name}/{seed}/{index}" + (f"/v{variant}" if variant else "")


def _json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)


@functools.lru_cache(maxsize=512)
def _task(task: str, difficulty: str, params_json: str) -> Task:
    # Tasks are immutable once configured; building one checks every parameter, so it is done once.
    from vcot.build import check_params

    params = json.loads(params_json)
    base = difficulty if difficulty in get_task_class(task).presets else "medium"
    return get_task(task, base, **check_params(task, params))


def configured_task(task: str, difficulty: str = "medium", params: Mapping[str, Any] | None = None) -> Task:
    """The task configured by a preset and parameter overrides (cached)."""
    return _task(task, difficulty, _json(dict(params or {})))


def accepted_scene(task: Task, seed: int, index: int, variant: int = 0) -> tuple[dict[str, Any], Any, int]:
    """(scene, solution, attempts) of instance `index`: a stream seed takes the first acceptable scene, a
    suite seed the one `vcot generate` takes (which also asks for a corrupted trajectory)."""
    if is_stream_seed(seed):
        scene, solution, _, attempts = task._accept(index, seed, check_corruption=False)
        return scene, solution, attempts
    can_corrupt = type(task).corrupt is not Task.corrupt
    scene, solution, _, attempts = task._accept(index, seed, check_corruption=can_corrupt, variant=variant)
    return scene, solution, attempts


def trainable_conditions() -> list[str]:
    """The conditions a problem can be posed in: the registry's trainable ones (`vcot.conditions`)."""
    from vcot.conditions import REGISTRY

    return REGISTRY.trainable()


def check_condition(condition: str, task: str) -> None:
    """Refuse a condition training cannot pose, or no problem of `task` can be posed in."""
    from vcot.conditions import REGISTRY

    reason = REGISTRY.untrainable_reason(condition, task)
    if reason is not None:
        raise ValueError(reason if "condition" in reason else f"condition {condition!r}: {reason}")


def build_problem(
    task: Task,
    seed: int,
    index: int,
    scene: dict[str, Any],
    solution: Any,
    *,
    condition: str = "direct",
    steps: bool = False,
    variant: int = 0,
    attempts: int = 1,
) -> Problem:
    """The problem for an accepted scene of `task` (see `accepted_scene`)."""
    check_condition(condition, task.name)
    params = json.loads(_json(task.params()))
    label = params_label(task.name, task.difficulty, params)
    uid = problem_uid(task.name, label, params, seed, index, variant)
    from vcot.conditions import REGISTRY

    full = steps or REGISTRY.get(condition).reads_steps
    sample = task.assemble(index, seed, scene, solution, variant=variant, attempts=attempts, steps=full, uid=uid)
    inst = sample.instance
    prompt, paths, tools = _prompt(inst, condition, sample.images)
    return Problem(
        task=task.name,
        uid=uid,
        seed=int(seed),
        index=int(index),
        difficulty=label,
        params=params,
        condition=condition,
        question=inst.question,
        prompt=prompt,
        images=[sample.images[p] for p in paths],
        answer=inst.answer,
        answer_type=str(inst.answer_type),
        options=list(inst.options) if inst.options else None,
        instance=inst,
        variant=variant,
        step_images=[sample.images[s.image] for s in inst.steps] if steps else [],
        tools=tools,
        pictures=sample.images,
    )


def make_problem(
    task: str,
    difficulty: str = "medium",
    params: Mapping[str, Any] | None = None,
    seed: int = 0,
    index: int = 0,
    condition: str = "direct",
    *,
    steps: bool = False,
    variant: int = 0,
) -> Problem:
    """Problem `index` of `seed` for a task configured by a preset and overrides (see the module docstring
    for what the seed range means)."""
    t = configured_task(task, difficulty, params)
    scene, solution, attempts = accepted_scene(t, seed, index, variant)
    return build_problem(
        t, seed, index, scene, solution, condition=condition, steps=steps, variant=variant, attempts=attempts
    )


def problem_from_row(row: Mapping[str, Any], *, steps: bool | None = None) -> Problem:
    """The identical problem regenerated from a row's task, difficulty, params (JSON text or a mapping), seed,
    index and condition (and `variant`, 0 when absent). `steps` defaults to the row's own `steps` flag, else
    False."""
    params = row.get("params") or {}
    if isinstance(params, str):
        params = json.loads(params) if params.strip() else {}
    if not isinstance(params, Mapping):
        raise ValueError(f"a row's params must be a JSON object, got {type(params).__name__}")
    difficulty = str(row.get("difficulty") or "medium")
    if steps is None:
        steps = bool(row.get("steps", False))
    return make_problem(
        str(row["task"]),
        difficulty,
        dict(params),
        int(row["seed"]),
        int(row["index"]),
        str(row.get("condition") or "direct"),
        steps=steps,
        variant=int(row.get("variant") or 0),
    )


# -- prompts ----------------------------------------------------------------------------------------------------


def _prompt(
    inst: Instance, condition: str, images: Mapping[str, Image.Image]
) -> tuple[list[dict[str, Any]], list[str], list[dict[str, Any]] | None]:
    """(TRL messages, the image paths in prompt order, tools) for `condition`: the first messages of the very
    episode `vcot eval` runs, built over the pictures in memory and converted by `vcot.rl.formats`."""
    from vcot.conditions import REGISTRY
    from vcot.images import InMemoryPictures
    from vcot.messages import ImagePart
    from vcot.rl.formats import to_trl, tool_dicts

    episode = REGISTRY.make_episode(inst, condition, 0, InMemoryPictures(images))
    messages = episode.first_messages()
    prompt, _ = to_trl(messages)
    paths = [p.image.source for m in messages for p in m.parts if isinstance(p, ImagePart)]
    return prompt, paths, tool_dicts(episode.tools)


def __getattr__(name: str) -> Any:
    # `CONDITIONS` is asked of the registry each time: a condition registered later (a plug-in) is trainable too.
    if name == "CONDITIONS":
        return tuple(trainable_conditions())
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
