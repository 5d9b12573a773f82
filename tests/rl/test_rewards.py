"""vcot.rl rewards: agreement with the grader on the labelled corpora, garbage and huge completions, chat
messages, the format term, and step rewards against the solver's states."""

from __future__ import annotations

import json
import random
import string
import time

import pytest

from scoring import commitment_cases, grading_cases
from vcot.rl import (
    format_reward,
    make_problem,
    problem_from_row,
    reward,
    reward_details,
    step_reward,
    step_rewards,
    stream,
)
from vcot.rl.rewards import MAX_COMPLETION_CHARS, MAX_TAGS, problem_probes
from vcot.scoring import score_fields


def _row(case) -> dict:
    return {"answer": case.gold, "answer_type": case.type, "options": list(case.options or [])}


def test_reward_is_one_exactly_where_the_grader_says_correct():
    cases = [(c, False) for c in grading_cases.CASES] + [(c, c.truncated) for c in commitment_cases.CASES]
    disagreements, ones = [], 0
    for case, truncated in cases:
        graded = score_fields(case.response, case.gold, case.type, case.options, truncated=truncated).correct
        r = reward(case.response, _row(case), truncated=truncated)
        ones += r == 1.0
        if r != (1.0 if graded else 0.0):
            disagreements.append((case.response, case.gold, r, graded))
    assert not disagreements
    # Both verdicts occur, and the corpus labels (what a careful grader says) are met through the reward too.
    assert 0 < ones < len(cases)
    assert all((reward(c.response, _row(c), truncated=t) == 1.0) is c.expected for c, t in cases)


def test_hedged_negated_and_truncated_answers_get_nothing():
    row = {"answer": "E", "answer_type": "choice", "options": ["A", "B", "C", "D", "E"]}
    assert reward("<answer>E</answer>", row) == 1.0
    for bad in ("<answer>not E</answer>", "<answer>E or C</answer>", "<answer>probably E, maybe D</answer>"):
        assert reward(bad, row) == 0.0, bad
    assert reward("Counting... <answer>E", row) == 1.0  # an unclosed final tag is read ...
    assert reward("Counting... <answer>E", row, truncated=True) == 0.0  # ... unless the completion was cut off
    assert reward("Counting... <answer>E</answer>", row, truncated=True) == 1.0


def test_details_say_why():
    p = make_problem("cubes_count", seed=1)
    d = reward_details(f"I count. <answer>{p.answer}</answer>", p)
    assert (d.reward, d.correct, d.verdict, d.extracted, d.tier, d.format_ok) == (
        1.0,
        True,
        "correct",
        p.answer,
        "tag",
        True,
    )
    d = reward_details("It is 1000000.", p)
    assert (d.reward, d.correct, d.verdict, d.format_ok) == (0.0, False, "wrong", False) and d.reason
    d = reward_details("", p)
    assert d.verdict == "no answer" and d.reward == 0.0


def test_format_term_is_optional_and_documented_weight():
    p = make_problem("cubes_count", seed=2)
    right_tag, wrong_tag = f"<answer>{p.answer}</answer>", "<answer>1000</answer>"
    right_plain = f"The final answer: {p.answer}"
    assert [reward(c, p) for c in (right_tag, wrong_tag, right_plain)] == [1.0, 0.0, 1.0]
    assert [reward(c, p, format_weight=0.25) for c in (right_tag, wrong_tag, right_plain)] == [1.25, 0.25, 1.0]
    assert [format_reward(c) for c in (right_tag, wrong_tag, right_plain)] == [1.0, 1.0, 0.0]
    assert format_reward("<think><answer>5</answer></think>") == 0.0  # a tag inside reasoning is no answer
    assert format_reward("<answer></answer>") == 0.0


def test_chat_completions_grade_the_last_assistant_message():
    p = make_problem("cubes_count", seed=3)
    good, bad = f"<answer>{p.answer}</answer>", "<answer>1000</answer>"
    assert reward([{"role": "assistant", "content": good}], p) == 1.0
    assert reward([{"role": "assistant", "content": [{"type": "text", "text": good}]}], p) == 1.0
    assert (
        reward(
            [
                {"role": "assistant", "content": good},
                {"role": "tool", "content": "Action executed."},
                {"role": "assistant", "content": bad},
            ],
            p,
        )
        == 0.0
    )
    assert (
        reward(
            [
                {"role": "assistant", "content": bad},
                {"role": "user", "content": good},
                {"role": "assistant", "content": good},
            ],
            p,
        )
        == 1.0
    )
    assert reward({"role": "assistant", "content": good}, p) == 1.0
    assert reward(good.encode(), p) == 1.0
    assert reward([{"role": "assistant", "content": good}], p.row()) == 1.0  # a row works as well


def _garbage(rng: random.Random) -> object:
    kind = rng.randrange(10)
    n = rng.randrange(0, 300)
    if kind == 0:
        return "".join(rng.choice(string.printable) for _ in range(n))
    if kind == 1:  # arbitrary code points, lone surrogates included
        return "".join(chr(rng.randrange(0x110000)) for _ in range(n))
    if kind == 2:  # answer-like fragments in random order
        parts = [
            "<answer>",
            "</answer>",
            "<think>",
            "</think>",
            "<step1>",
            "</step1>",
            "not",
            "or",
            "\\boxed{",
            "}",
            "{",
            "Final answer:",
            "A",
            "B",
            "3",
            "-2.5",
            "(1, 2)",
            "12:30",
            "north",
            "\n",
            " ",
        ]
        return "".join(rng.choice(parts) for _ in range(n // 3))
    if kind == 3:  # JSON fragments, cut anywhere
        doc = json.dumps({"answer": rng.choice([1, "B", [1, 2], None, {"x": "y"}]), "reasoning": "r" * n})
        return doc[: rng.randrange(len(doc) + 1)]
    if kind == 4:
        return bytes(rng.randrange(256) for _ in range(n))
    if kind == 5:  # malformed chat messages
        return rng.choice(
            [
                [{"role": "assistant"}],
                [{"content": 5}],
                [None, 3, "x"],
                [{"role": "assistant", "content": [{"type": "image"}, {"text": None}, 7]}],
                {"content": {"a": 1}},
                [],
            ]
        )
    if kind == 6:
        return rng.choice([None, 0, 1.5, float("nan"), True, object(), {"answer": 3}, ("a",), {1, 2}])
    if kind == 7:  # deep nesting
        return "[" * n + "(" * n + "{" * n
    if kind == 8:
        return "<answer>" + "".join(rng.choice("0123456789 ,.-()/:") for _ in range(n)) + "</answer>"
    return " ".join(rng.choice(["the", "answer", "is", "not", "B", "7", "therefore", "so"]) for _ in range(n))


GOLDS = [
    ("7", "integer", None),
    ("B", "choice", ["a", "b", "c", "d"]),
    ("2.5", "number", None),
    ("(1, 2)", "coordinates", None),
    ("3:15", "time", None),
    ("north", "direction", None),
    ("red, 17", "pair", None),
    ("1, 4", "set", None),
    ("clockwise", "text", None),
]


def test_ten_thousand_garbage_completions_never_raise():
    rng = random.Random(20240611)
    disagreements = 0
    for k in range(10_000):
        completion = _garbage(rng)
        answer, answer_type, options = GOLDS[k % len(GOLDS)]
        row = {"answer": answer, "answer_type": answer_type, "options": options}
        r = reward(completion, row, truncated=k % 7 == 0)
        assert r in (0.0, 1.0)
        if isinstance(completion, str):  # a string the size limits let through is graded as the grader does
            graded = score_fields(completion, answer, answer_type, options, truncated=k % 7 == 0).correct
            disagreements += r != (1.0 if graded else 0.0)
        assert format_reward(completion) in (0.0, 1.0)
    assert disagreements == 0


HUGE = {
    "letters": lambda rng: "".join(rng.choice(string.ascii_letters + " \n") for _ in range(1_000_000)),
    "open answer tags": lambda rng: "<answer>" * 125_000,
    "open think tags": lambda rng: "<think>" * 140_000,
    "step tags": lambda rng: "<step1>" * 140_000,
    "one huge tag": lambda rng: "<answer>" + "7" * 999_000 + "</answer>",
    "answer phrases": lambda rng: "the answer is 7. " * 60_000,
}


@pytest.mark.parametrize("name", sorted(HUGE))
def test_huge_completions_are_refused_quickly(name):
    completion = HUGE[name](random.Random(1))
    p = {
        "answer": "7",
        "answer_type": "integer",
        "options": None,
        "task": "cubes_count",
        "difficulty": "medium",
        "params": {},
        "seed": 5,
        "index": 0,
    }
    t0 = time.process_time()
    d = reward_details(completion, p)
    assert d.reward == 0.0 and d.verdict == "refused" and str(MAX_COMPLETION_CHARS) in d.reason
    assert format_reward(completion) == 0.0
    assert set(step_rewards(completion, p)) <= {0.0}
    assert time.process_time() - t0 < 5


def test_many_tags_under_the_length_limit_are_refused():
    assert len("<answer>7</answer>" * 100) < MAX_COMPLETION_CHARS
    row = {"answer": "7", "answer_type": "integer", "options": None}
    d = reward_details("<answer>7</answer>" * (MAX_TAGS + 1), row)
    assert d.verdict == "refused" and "tags" in d.reason
    assert reward("<answer>7</answer>" * MAX_TAGS, row) == 1.0
    t0 = time.process_time()
    assert reward("<think>" * 20_000, row) == 0.0
    assert time.process_time() - t0 < 1


# -- step rewards ------------------------------------------------------------------------------------------------


def _steps_completion(probes: list[dict], wrong: int | None = None) -> str:
    lines = [
        f"<step{p['step']}>{'zzz nothing' if p['step'] == wrong else p['answer']}</step{p['step']}>" for p in probes
    ]
    return "Reasoning.\n" + "\n".join(lines) + "\n<answer>x</answer>"


@pytest.mark.parametrize("task", ["convex_hull", "rolling_dice_top", "gear_rotation", "cubes_count"])
def test_step_rewards_grade_each_step_against_the_solver(task):
    p = stream(task, seed=8, condition="state_probe")[1]
    probes = problem_probes(p)
    assert probes and [q["step"] for q in probes] == list(range(1, len(p.instance.steps) + 1))
    assert step_rewards(_steps_completion(probes), p) == [1.0] * len(probes)
    assert step_reward(_steps_completion(probes), p) == 1.0
    for k in range(1, len(probes) + 1):
        expected = [0.0 if q["step"] == k else 1.0 for q in probes]
        assert step_rewards(_steps_completion(probes, wrong=k), p) == expected
    assert step_rewards("<answer>x</answer>", p) == [0.0] * len(probes)
    assert step_reward(_steps_completion(probes, wrong=1), p) == pytest.approx(1 - 1 / len(probes))


def test_step_rewards_from_a_row_or_a_problem_without_steps():
    with_steps = stream("rolling_dice_top", seed=9, condition="state_probe")[0]
    without = stream("rolling_dice_top", seed=9)[0]
    assert without.instance.steps == [] and with_steps.instance.steps
    completion = _steps_completion(problem_probes(with_steps), wrong=2)
    expected = step_rewards(completion, with_steps)
    assert 0.0 in expected and 1.0 in expected
    assert step_rewards(completion, without) == expected
    assert step_rewards(completion, without.row()) == expected
    assert step_rewards(completion, problem_from_row(without.row())) == expected


def test_no_probes_no_step_reward():
    p = make_problem("toy_dots", seed=1)  # the test-only task of tests/conftest.py has no state probes
    assert step_rewards("<step1>3</step1>", p) == [] and step_reward("<step1>3</step1>", p) == 0.0


def test_a_problem_without_grading_fields_is_an_error():
    with pytest.raises(ValueError, match="answer"):
        reward("<answer>3</answer>", {"question": "?"})
