"""The chance baseline: seeded, uniform over the task's answer space, never informed by the gold answer."""

from __future__ import annotations

import math

import pytest

from vcot.engine.chance import answer_space, chance_answer, chance_level
from vcot.schema import AnswerType, Instance


def _inst(answer: str, answer_type: AnswerType, task: str = "some_task", options=None, meta=None) -> Instance:
    return Instance(
        uid=f"u-{task}-{answer}",
        task=task,
        domain="EG",
        question="q?",
        image="a.png",
        answer=answer,
        answer_type=answer_type,
        options=options,
        meta=meta or {},
    )


def test_choice_level_and_empirical_rate():
    inst = _inst("C", AnswerType.CHOICE, options=["w", "x", "y", "z"])
    assert chance_level(inst) == 0.25
    answers = [chance_answer(inst, "direct", e) for e in range(4000)]
    assert set(answers) == {"A", "B", "C", "D"}
    rate = sum(a == "C" for a in answers) / len(answers)
    assert abs(rate - 0.25) < 4 * math.sqrt(0.25 * 0.75 / 4000)


def test_seeded_by_uid_condition_epoch():
    inst = _inst("C", AnswerType.CHOICE, options=list("abcdef"))
    a = [chance_answer(inst, "direct", e) for e in range(50)]
    assert a == [chance_answer(inst, "direct", e) for e in range(50)]
    assert a != [chance_answer(inst, "text_cot", e) for e in range(50)]
    assert len(set(a)) > 1


@pytest.mark.parametrize("atype,size", [(AnswerType.DIRECTION, 8), (AnswerType.TIME, 720), (AnswerType.INTEGER, 21)])
def test_unknown_tasks_get_a_generic_space_by_type(atype, size):
    inst = _inst("5" if atype == AnswerType.INTEGER else "north", atype)
    assert answer_space(inst).size == size and chance_level(inst) == pytest.approx(1 / size)


@pytest.mark.parametrize("gold", ["0", "7", "20", "12345"])
def test_the_level_never_moves_with_the_gold(gold):
    """The old baseline sized integer spaces from the gold (0..max(9, 2·gold)); the level must not see it."""
    assert chance_level(_inst(gold, AnswerType.INTEGER)) == pytest.approx(1 / 21)


def test_unknown_text_space_has_zero_chance():
    inst = _inst("a free-form phrase", AnswerType.TEXT)
    assert chance_level(inst) == 0.0
    assert chance_answer(inst, "direct", 0) == "unknown"
    given = inst.model_copy(update={"meta": {"answer_space": ["a free-form phrase", "another"]}})
    assert chance_level(given) == 0.5
