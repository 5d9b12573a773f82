"""Two contracts every generator keeps (`docs/tasks/README.md`):

- Steps are states, not conclusions: over 100 instances of every task (33 of a 3D scene task; easy, medium and hard),
no step text
  and no label drawn in a step picture states the answer (`vcot.tasks.answer_leaks`). Labels that the
  input picture already shows (pocket letters, gear names) are part of the scene, not statements.
- The chance level comes from the task's answer space, which the question and configuration define: every
  gold answer lies in it, and changing an instance's gold answer does not move its chance level.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from task_pieces import builtin_task_names
from vcot.draw import drawn_labels
from vcot.engine.chance import answer_space, chance_answer, chance_level
from vcot.schema import Instance
from vcot.scoring import score_response
from vcot.tasks import Sample, get_task, get_task_class
from vcot.tasks.answer_leaks import answer_statements
from vcot.tasks.scene3d._task import Scene3DTask

PER_DIFFICULTY = {"easy": 34, "medium": 33, "hard": 33}
SEED = 11


# The instances (without their pictures) of every task made so far: the pictures of 100 samples of 22 tasks
# would hold about 20 GB, so they are checked as they are made and dropped.
_INSTANCES: dict[str, tuple[Instance, ...]] = {}


def samples(name: str) -> Iterator[Sample]:
    """The samples checked for `name`, made one at a time; their instances are kept in _INSTANCES."""
    kept = []
    # A ray-cast 3D scene costs ~0.05 s (docs/draw3d.md): a third as many of them.
    share = 3 if issubclass(get_task_class(name), Scene3DTask) else 1
    for diff, n in PER_DIFFICULTY.items():
        task = get_task(name, difficulty=diff)
        for k in range(n // share):
            sample = task.make(k, SEED)
            kept.append(sample.instance)
            yield sample
    _INSTANCES[name] = tuple(kept)


def instances(name: str) -> tuple[Instance, ...]:
    if name not in _INSTANCES:
        for _ in samples(name):
            pass
    return _INSTANCES[name]


def _statements(sample, final_state_shows: bool) -> list[str]:
    inst = sample.instance
    if issubclass(get_task_class(inst.task), Scene3DTask):
        scene_labels = []  # a ray-cast picture (docs/draw3d.md): no text is drawn on it
    else:
        scene_labels = drawn_labels(sample.images[inst.image])
        assert scene_labels is not None, f"{inst.uid}: the input picture was not drawn through vcot.draw"
    found = []
    for kind, steps in (("step", inst.steps), ("corrupted step", inst.corrupted_steps)):
        for k, step in enumerate(steps, start=1):
            for why in answer_statements(step.text, inst, final_state_shows):
                found.append(f"{inst.uid} {kind} {k} text {why}: {step.text[:160]!r}")
            labels = drawn_labels(sample.images[step.image])
            assert labels is not None, f"{inst.uid}: {kind} {k}'s picture was not drawn through vcot.draw"
            for label in dict.fromkeys(labels):
                if label in scene_labels:
                    continue
                for why in answer_statements(label, inst, final_state_shows):
                    found.append(f"{inst.uid} {kind} {k} drawn label {label!r} {why}")
    return found


@pytest.mark.parametrize("name", builtin_task_names())
def test_no_step_states_the_answer(name: str) -> None:
    final = bool(get_task_class(name).final_state_shows)
    found = [f for s in samples(name) for f in _statements(s, final)]
    assert not found, f"{len(found)} statements of the answer, e.g.:\n" + "\n".join(found[:8])


@pytest.mark.parametrize("name", builtin_task_names())
def test_answer_space_holds_every_gold_and_never_depends_on_it(name: str) -> None:
    for inst in instances(name):
        space = answer_space(inst)
        assert space.contains(inst.answer), f"{inst.uid}: gold {inst.answer!r} outside {space.description}"
        level = chance_level(inst)
        assert level == pytest.approx(1 / space.size)
        other = next(a for a in (space.sample(__import__("random").Random(k)) for k in range(100)) if a != inst.answer)
        assert chance_level(inst.model_copy(update={"answer": other})) == level
    # The baseline's answers are gradeable answers of the task.
    inst = instances(name)[0]
    space = answer_space(inst)
    for epoch in range(5):
        guess = chance_answer(inst, "direct", epoch)
        assert space.contains(guess)
        assert score_response(f"<answer>{guess}</answer>", inst).extracted is not None
