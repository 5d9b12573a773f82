"""The chance baseline: seeded, uniform over a documented answer space, with a matching chance level."""

from __future__ import annotations

import math
from collections import Counter

import pytest

from vcot.engine.chance import answer_space, chance_answer, chance_level
from vcot.schema import AnswerType, Instance
from vcot.scoring import score_response


def _inst(answer: str, answer_type: AnswerType, task: str = "some_task", options=None) -> Instance:
    return Instance(uid=f"u-{task}-{answer}", task=task, domain="EG", question="q?", image="a.png", answer=answer,
                    answer_type=answer_type, options=options)


def test_choice_level_and_empirical_rate():
    inst = _inst("C", AnswerType.CHOICE, options=["w", "x", "y", "z"])
    assert chance_level(inst) == 0.25
    answers = [chance_answer(inst, "direct", e) for e in range(4000)]
    assert set(answers) == {"A", "B", "C", "D"}
    rate = sum(a == "C" for a in answers) / len(answers)
    assert abs(rate - 0.25) < 4 * math.sqrt(0.25 * 0.75 / 4000)


def test_seeded_by_uid_condition_epoch():
    inst = _inst("3", AnswerType.INTEGER, task="rolling_dice_top")
    assert chance_level(inst) == pytest.approx(1 / 6)
    a = [chance_answer(inst, "direct", e) for e in range(50)]
    assert a == [chance_answer(inst, "direct", e) for e in range(50)]
    assert a != [chance_answer(inst, "text_cot", e) for e in range(50)]
    assert len(set(a)) > 1 and all(1 <= int(x) <= 6 for x in a)


@pytest.mark.parametrize("answer,atype,task,options", [
    ("7", AnswerType.INTEGER, "cubes_count", None),
    ("2.5", AnswerType.NUMBER, "x", None),
    ("north-east", AnswerType.DIRECTION, "electric_charge", None),
    ("up-left", AnswerType.DIRECTION, "electric_charge", None),
    ("3:45", AnswerType.TIME, "mirror_clock", None),
    ("clockwise", AnswerType.TEXT, "gear_rotation", None),
    ("red, 17", AnswerType.PAIR, "rolling_dice_two", None),
    ("A, C", AnswerType.SET, "multi_piece_puzzle", None),
    ("(1, 2), (3, 0)", AnswerType.COORDINATES, "localizer", None),
])
def test_every_answer_type_has_a_space_holding_the_gold(answer, atype, task, options):
    inst = _inst(answer, atype, task, options)
    space = answer_space(inst)
    assert space.contains_gold and chance_level(inst) == pytest.approx(1 / space.size)
    # The baseline's answers are gradeable and the gold is reachable for small spaces.
    seen = Counter(chance_answer(inst, "direct", e) for e in range(min(3000, 40 * space.size)))
    assert all(score_response(f"<answer>{a}</answer>", inst).extracted == a for a in list(seen)[:20])
    if space.size <= 64:
        assert any(score_response(f"<answer>{a}</answer>", inst).correct for a in seen)


def test_unknown_text_space_has_zero_chance():
    inst = _inst("a free-form phrase", AnswerType.TEXT)
    assert chance_level(inst) == 0.0
    assert chance_answer(inst, "direct", 0) == "unknown"
    given = inst.model_copy(update={"meta": {"answer_space": ["a free-form phrase", "another"]}})
    assert chance_level(given) == 0.5
