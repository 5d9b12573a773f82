"""Scene-graph captions (src/vcot/captions/): every registered task, 3 seeds x 3 difficulties; deterministic,
written from the scene alone, and never stating an answer that is not itself a plain fact of the picture (the 3D
scene tasks' full descriptions name attribute values an answer may be; their rule is in test_captions_3d.py)."""

from __future__ import annotations

import json
import re

import pytest

from task_pieces import builtin_task_names
from vcot.captions import CAPTIONER_VERSION, CaptionError, caption_for, caption_source, scene_caption
from vcot.conditions import REGISTRY, build_prompt
from vcot.engine.chance import chance_answer
from vcot.images import EncodedImage
from vcot.schema import AnswerType, Instance
from vcot.tasks import get_task_class
from vcot.tasks.answer_leaks import _CONCLUSION, answer_statements

SEEDS = (1, 2, 3)
LEVELS = ("easy", "medium", "hard")


def _instance(task: str, level: str, seed: int) -> Instance:
    """An unrendered instance (question, options, answer, meta) of the task's first index for `seed`."""
    t = get_task_class(task)(difficulty=level)
    scene, solution = t.solved_scene(0, seed)
    meta = json.loads(json.dumps({"scene": scene, "solution": {"states": solution.states}}))
    return Instance(
        uid=f"{task}-{level}-{seed}",
        task=task,
        domain=t.domain,
        question=t.question(scene),
        image=f"images/{task}/x.png",
        answer=solution.answer,
        answer_type=t.answer_type,
        options=t.options(scene),
        meta=meta,
    )


@pytest.fixture(scope="module")
def instances() -> list[Instance]:
    return [_instance(task, level, seed) for task in builtin_task_names() for level in LEVELS for seed in SEEDS]


def _leaks(text: str, inst: Instance) -> list[str]:
    """Why the caption states the answer. Choice captions name every candidate's letter (they describe every
    panel), so for them the test is that no letter is singled out and nothing announces a conclusion."""
    if inst.answer_type == AnswerType.CHOICE:
        reasons = [f"conclusion word {m.group(0)!r}" for m in [_CONCLUSION.search(text)] if m]
        missing = [
            a
            for a in [chr(65 + i) for i in range(len(inst.options or []))]
            if not re.search(rf"(?<![A-Za-z]){a}(?![A-Za-z])", text)
        ]
        return reasons + ([f"names only some candidates (missing {missing})"] if missing else [])
    reasons = answer_statements(text, inst)
    # A whole word: the caption's fixed "rows grow northward" does not state "north".
    if inst.answer_type not in (AnswerType.INTEGER, AnswerType.NUMBER) and re.search(
        rf"(?<![a-z0-9]){re.escape(inst.answer.lower())}(?![a-z0-9])", text.lower()
    ):
        reasons.append(f"contains the answer string {inst.answer!r}")
    return reasons


def test_every_task_has_a_caption_for_every_seed_and_level(instances):
    assert {i.task for i in instances} == set(builtin_task_names())
    for inst in instances:
        text = caption_for(inst)
        assert len(text) > 80 and "\n" not in text, inst.uid
        assert caption_source(inst) == CAPTIONER_VERSION


# Domains whose full descriptions name values an answer may be: the 3D scenes' attribute values (their rule is in
# test_captions_3d.py) and the robot scenes' cells (every block's starting cell is listed, and an answer is the
# cell a block ends in: the cell is a fact of the picture, not a conclusion).
_DESCRIBES_ANSWER_VALUES = ("3D", "robot")


def test_no_caption_states_the_answer(instances):
    bad = {
        inst.uid: why
        for inst in instances
        if inst.domain not in _DESCRIBES_ANSWER_VALUES and (why := _leaks(caption_for(inst), inst))
    }
    assert not bad, bad


def test_the_leak_check_catches_a_planted_answer(instances):
    """The check above can fail: a caption that adds the answer is flagged for every answer type."""
    for inst in instances[::9]:
        planted = caption_for(inst) + f" The answer is {inst.answer}."
        assert _leaks(planted, inst), inst.uid


def test_captions_are_deterministic_and_read_only_the_scene(instances):
    for inst in instances[::3]:
        again = _instance(inst.task, *inst.uid.rsplit("-", 2)[1:2], int(inst.uid.rsplit("-", 1)[1]))
        assert caption_for(again) == caption_for(inst)
        no_solution = inst.model_copy(update={"meta": {"scene": inst.meta["scene"]}})
        assert caption_for(no_solution) == caption_for(inst)


def test_different_scenes_get_different_captions(instances):
    by_task: dict[str, set[str]] = {}
    for inst in instances:
        by_task.setdefault(inst.task, set()).add(caption_for(inst))
    assert all(len(caps) >= 2 for caps in by_task.values()), {t: len(c) for t, c in by_task.items()}


def test_own_caption_wins_and_unknown_tasks_are_refused(instances):
    inst = instances[0]
    own = inst.model_copy(update={"meta": {**inst.meta, "caption": "  A hand-written description.  "}})
    assert caption_for(own) == "A hand-written description." and caption_source(own) == "meta"
    stranger = inst.model_copy(update={"task": "toy_dots", "meta": {"scene": {"dots": [[1, 2]]}}})
    assert REGISTRY.unservable(stranger, "caption_only") is not None
    with pytest.raises(CaptionError):
        caption_for(stranger)
    with pytest.raises(CaptionError):
        scene_caption("toy_dots", {})
    broken = inst.model_copy(update={"meta": {"scene": {}}})
    with pytest.raises(CaptionError, match="does not match"):
        caption_for(broken)


def _no_images(path: str) -> EncodedImage:
    raise AssertionError(f"a text-only condition read the image {path}")


def test_caption_only_and_question_only_send_no_image_and_chance_answers_both(instances):
    # Both are diagnostics, asked for by name (docs/evaluation.md).
    assert "question_only" not in REGISTRY.defaults() and "caption_only" not in REGISTRY.defaults()
    for inst in instances[::9]:
        for cond in ("caption_only", "question_only"):
            assert REGISTRY.unservable(inst, cond) is None
            prompt = build_prompt(inst, cond, _no_images)
            (msg,) = prompt.messages
            assert len(msg.parts) == 1 and prompt.images == []
            assert chance_answer(inst, cond, 0)
        cap = build_prompt(inst, "caption_only", _no_images).messages[0].parts[0].text
        q = build_prompt(inst, "question_only", _no_images).messages[0].parts[0].text
        assert cap.startswith("Image description: " + caption_for(inst)) and not q.startswith("Image description")
        assert q.startswith("Question: ") and "step-by-step" in q
