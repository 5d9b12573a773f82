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
    from vcot.images import EncodedImage
    from vcot.schema import Instance

# Conditions a problem's prompt can take: MIRA's single-turn templates, the state-probe prompt (its <stepK>
# answers feed the step rewards) and the VAoT drawing loop.
CONDITIONS = ("direct", "text_cot", "text_cot_spec", "question_only", "visual_cot", "text_state_cot",
              "state_probe", "vaot")
# Conditions whose prompt needs the step texts or pictures, so every step is rendered for them.
_NEEDS_STEPS = frozenset({"visual_cot", "text_state_cot", "state_probe"})

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

    def row(self) -> dict[str, Any]:
        """Plain, Arrow-friendly columns for a `datasets` table; `problem_from_row` turns one back into this
        problem. `params` is a JSON string, `options` a list ([] when none), `tools` a JSON string ("" when
        none)."""
        return {
            "prompt": self.prompt, "images": list(self.images), "task": self.task, "uid": self.uid,
            "seed": self.seed, "index": self.index, "difficulty": self.difficulty,
            "params": json.dumps(self.params, sort_keys=True), "condition": self.condition, "answer": self.answer,
            "answer_type": self.answer_type, "options": list(self.options or []), "variant": self.variant,
            "question": self.question, "tools": json.dumps(self.tools) if self.tools else "",
        }

    def digest(self) -> str:
        """A fingerprint of everything the model sees and is graded against: prompt, pixels, answer."""
        from vcot.draw.png import pixel_digest

        h = hashlib.sha256()
        h.update(json.dumps([self.uid, self.prompt, self.answer, self.answer_type, self.options, self.tools],
                            sort_keys=True).encode())
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
    scene, solution, _, attempts = task._accept(index, seed, check_corruption=can_corrupt,
                                                variant=variant)
    return scene, solution, attempts


def check_condition(condition: str, task: str) -> None:
    """Refuse a condition no problem of `task` can be posed in."""
    if condition not in CONDITIONS:
        raise ValueError(f"unknown condition {condition!r}; choose one of {', '.join(CONDITIONS)}")
    if condition == "text_cot_spec":
        from vcot.prompts.text_cot_spec import GUIDES

        if task not in GUIDES:
            raise ValueError(f"condition 'text_cot_spec' needs a reasoning guide, and task {task!r} has none")
    if condition == "state_probe":
        from vcot.probes import PROBE_TASKS

        if task not in PROBE_TASKS:
            raise ValueError(f"condition 'state_probe' needs state probes, and task {task!r} has none")


def build_problem(task: Task, seed: int, index: int, scene: dict[str, Any], solution: Any, *,
                  condition: str = "direct", steps: bool = False, variant: int = 0,
                  attempts: int = 1) -> Problem:
    """The problem for an accepted scene of `task` (see `accepted_scene`)."""
    check_condition(condition, task.name)
    params = json.loads(_json(task.params()))
    label = params_label(task.name, task.difficulty, params)
    uid = problem_uid(task.name, label, params, seed, index, variant)
    full = steps or condition in _NEEDS_STEPS
    sample = task.assemble(index, seed, scene, solution, variant=variant, attempts=attempts, steps=full, uid=uid)
    inst = sample.instance
    prompt, paths, tools = _prompt(inst, condition, sample.images)
    return Problem(
        task=task.name, uid=uid, seed=int(seed), index=int(index), difficulty=label, params=params,
        condition=condition, question=inst.question, prompt=prompt, images=[sample.images[p] for p in paths],
        answer=inst.answer, answer_type=str(inst.answer_type), options=list(inst.options) if inst.options else None,
        instance=inst, variant=variant,
        step_images=[sample.images[s.image] for s in inst.steps] if steps else [], tools=tools,
    )


def make_problem(task: str, difficulty: str = "medium", params: Mapping[str, Any] | None = None, seed: int = 0,
                 index: int = 0, condition: str = "direct", *, steps: bool = False, variant: int = 0) -> Problem:
    """Problem `index` of `seed` for a task configured by a preset and overrides (see the module docstring
    for what the seed range means)."""
    t = configured_task(task, difficulty, params)
    scene, solution, attempts = accepted_scene(t, seed, index, variant)
    return build_problem(t, seed, index, scene, solution, condition=condition, steps=steps, variant=variant,
                         attempts=attempts)


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
    return make_problem(str(row["task"]), difficulty, dict(params), int(row["seed"]), int(row["index"]),
                        str(row.get("condition") or "direct"), steps=steps, variant=int(row.get("variant") or 0))


# -- prompts ----------------------------------------------------------------------------------------------------

class _NoEncoding:
    """An image source for the evaluation's prompt builders that encodes nothing: the builders only need a
    record of each picture, and the trainer gets the PIL images themselves."""

    def __init__(self, images: Mapping[str, Image.Image]) -> None:
        self._images = images

    def __call__(self, rel: str) -> EncodedImage:
        from vcot.images import EncodedImage

        w, h = self._images[rel].size
        return EncodedImage(source=rel, data_uri="", mime="image/png", width=w, height=h, orig_width=w,
                            orig_height=h, digest="")


def _prompt(inst: Instance, condition: str, images: Mapping[str, Image.Image]
            ) -> tuple[list[dict[str, Any]], list[str], list[dict[str, Any]] | None]:
    """(TRL messages, the image paths in prompt order, tools) for `condition`."""
    if condition == "vaot":
        from vcot.prompts.templates import format_question
        from vcot.vaot.actions import COORDINATE_NOTE, MAX_TURNS, action_names, tool_definitions
        from vcot.vaot.episode import VAOT_PROMPT

        # The text VaotEpisode.first_messages sends (tests/rl/test_stream.py checks they agree).
        w, h = images[inst.image].size
        text = VAOT_PROMPT.format(question=format_question(inst), actions=", ".join(action_names()),
                                  coords=COORDINATE_NOTE, width=w, height=h, budget=MAX_TURNS)
        return _user([inst.image], text), [inst.image], tool_definitions()
    if condition == "state_probe":
        from vcot.conditions.state_probe import state_probe_text

        return _user([inst.image], state_probe_text(inst)), [inst.image], None
    from vcot.conditions.single_turn import build_prompt
    from vcot.messages import ImagePart, TextPart

    built = build_prompt(inst, condition, _NoEncoding(images))
    messages, paths = [], []
    for m in built.messages:
        content: list[dict[str, Any]] = []
        for part in m.parts:
            if isinstance(part, ImagePart):
                content.append({"type": "image"})
                paths.append(part.image.source)
            elif isinstance(part, TextPart):
                content.append({"type": "text", "text": part.text})
        messages.append({"role": m.role, "content": content})
    return messages, paths, None


def _user(paths: list[str], text: str) -> list[dict[str, Any]]:
    return [{"role": "user", "content": [*({"type": "image"} for _ in paths), {"type": "text", "text": text}]}]
