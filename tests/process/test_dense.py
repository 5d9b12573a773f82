"""Dense process rewards from the solver's states (issue 46, vcot.process.dense): first-error semantics worked
by hand on real tasks' probes, the per-turn form of multi-turn episodes, untrusted completions, VcotEnv's
`dense_weight` knob, and agreement with the exact labels of vcot.process.labelled."""

from __future__ import annotations

import json
import math
import time

import pytest

from vcot.process.dense import (
    dense_rewards,
    dense_turn_rewards,
    episode_dense_rewards,
    first_error_rewards,
    label_rewards,
)
from vcot.process.labelled import labelled
from vcot.rl import stream
from vcot.rl.env import EnvError, VcotEnv
from vcot.rl.rewards import MAX_COMPLETION_CHARS, dense_reward, problem_probes, step_rewards


@pytest.fixture(scope="module")
def dice():
    """rolling_dice_top: five probes, integer answers."""
    p = stream("rolling_dice_top", seed=8, condition="state_probe")[1]
    assert len(problem_probes(p)) >= 3
    return p


def _tag(probe: dict, right: bool = True) -> str:
    value = probe["answer"] if right else "zzz nothing"
    return f"<step{probe['step']}>{value}</step{probe['step']}>"


def _reply(probes: list[dict], wrong: set[int] = frozenset(), missing: set[int] = frozenset()) -> str:
    tags = [_tag(p, p["step"] not in wrong) for p in probes if p["step"] not in missing]
    return "Reasoning.\n" + "\n".join(tags) + "\n<answer>x</answer>"


def test_right_steps_total_one_and_first_error_semantics(dice):
    probes = problem_probes(dice)
    k = len(probes)
    right = dense_rewards(_reply(probes), dice)
    assert right == pytest.approx([1 / k] * k) and sum(right) == pytest.approx(1.0)
    assert dense_reward(_reply(probes), dice) == pytest.approx(1.0)
    # First wrong at step 2: step 1 paid, step 2 penalised, later steps 0 even where right (their premise is
    # wrong) — unlike step_rewards, which pays each right step on its own.
    reply = _reply(probes, wrong={2})
    assert dense_rewards(reply, dice) == pytest.approx([1 / k, -1 / k] + [0.0] * (k - 2))
    assert step_rewards(reply, dice) == [1.0, 0.0] + [1.0] * (k - 2)
    assert dense_rewards(reply, dice, wrong=0.0) == pytest.approx([1 / k] + [0.0] * (k - 1))
    assert dense_rewards(reply, dice, wrong=-0.5) == pytest.approx([1 / k, -0.5 / k] + [0.0] * (k - 2))
    # The first wrong step anywhere: the right prefix is paid, the step itself penalised.
    for first in range(1, k + 1):
        got = dense_rewards(_reply(probes, wrong={first, k}), dice)
        assert got == pytest.approx([1 / k] * (first - 1) + [-1 / k] + [0.0] * (k - first))
    # The row form regenerates the same probes.
    assert dense_rewards(reply, dice.row()) == dense_rewards(reply, dice)


def test_missing_tags_are_wrong_steps(dice):
    probes = problem_probes(dice)
    k = len(probes)
    assert dense_rewards("<answer>x</answer>", dice) == pytest.approx([-1 / k] + [0.0] * (k - 1))
    assert dense_rewards(_reply(probes, missing={2}), dice) == pytest.approx([1 / k, -1 / k] + [0.0] * (k - 2))
    assert dense_rewards(_reply(probes, missing={k}), dice) == pytest.approx([1 / k] * (k - 1) + [-1 / k])


def test_no_probes_no_dense_reward():
    from vcot.rl import make_problem

    p = make_problem("toy_dots", seed=1)  # the test-only task of tests/conftest.py has no state probes
    assert dense_rewards("<step1>3</step1>", p) == [] and dense_reward("<step1>3</step1>", p) == 0.0
    assert dense_turn_rewards(["<step1>3</step1>", "x"], p) == [0.0, 0.0]


def test_bad_penalty_is_refused_by_name(dice):
    for bad in (1.0, math.nan, math.inf, True, "-1"):
        with pytest.raises(ValueError, match="wrong"):
            dense_rewards("", dice, wrong=bad)
    with pytest.raises(ValueError, match="wrong"):
        first_error_rewards([True], wrong=0.5)


def test_untrusted_completions_never_raise_and_stay_fast(dice):
    probes = problem_probes(dice)
    k = len(probes)
    nothing = [-1 / k] + [0.0] * (k - 1)
    t0 = time.process_time()
    flood = _tag(probes[0]) * 100_000  # a tag flood: no single committed step answer
    huge = _reply(probes) + "x" * (MAX_COMPLETION_CHARS + 1)
    unclosed = "<step1>" * 50_000 + _reply(probes)
    for completion in (
        flood,
        huge,
        unclosed,
        None,
        12,
        b"\xff<step1>",
        {"content": [{"text": 3}]},
        [{"role": "assistant", "content": _reply(probes)}],
        "&lt;step1&gt;" * 1000,
    ):
        got = dense_rewards(completion, dice)
        assert len(got) == k and all(isinstance(v, float) for v in got)
        turns = dense_turn_rewards([completion, completion], dice)
        assert len(turns) == 2 and all(isinstance(v, float) for v in turns)
    assert time.process_time() - t0 < 10
    assert dense_rewards(flood, dice) == pytest.approx(nothing)
    assert dense_rewards(huge, dice) == pytest.approx(nothing)
    # Chat messages are read as vcot.rl.reward reads them: the last assistant message.
    assert dense_rewards([{"role": "assistant", "content": _reply(probes)}], dice) == pytest.approx([1 / k] * k)


def test_per_turn_pays_each_step_once_at_its_first_turn(dice):
    probes = problem_probes(dice)
    k = len(probes)
    t = [_tag(p) for p in probes]
    # Step 1, then steps 1 (restated) and 2, then the rest: each step paid once, where its tag first appears.
    replies = [t[0], t[0] + t[1], "".join(t[2:]) + "<answer>x</answer>"]
    assert dense_turn_rewards(replies, dice) == pytest.approx([1 / k, 1 / k, (k - 2) / k])
    assert sum(dense_turn_rewards(replies, dice)) == pytest.approx(1.0)
    # The first statement counts: changing a right step 1 later to a wrong one changes nothing, and a wrong
    # step 1 corrected later is not paid.
    changed = [t[0], _tag(probes[0], right=False) + t[1]]
    assert dense_turn_rewards(changed, dice, ended=False) == pytest.approx([1 / k, 1 / k])
    corrected = [_tag(probes[0], right=False), t[0] + t[1]]
    assert dense_turn_rewards(corrected, dice, ended=False) == pytest.approx([-1 / k, 0.0])
    assert episode_dense_rewards(corrected, dice) == pytest.approx([-1 / k] + [0.0] * (k - 1))
    # Out of order: step 2 first is paid only once step 1 is stated (its reward depends on step 1).
    assert dense_turn_rewards([t[1], t[0]], dice, ended=False) == pytest.approx([0.0, 2 / k])
    # Steps never stated: settled at the episode's end (the first missing one penalised), not before.
    assert dense_turn_rewards([t[0], "no tags"], dice, ended=False) == pytest.approx([1 / k, 0.0])
    assert dense_turn_rewards([t[0], "no tags"], dice) == pytest.approx([1 / k, -1 / k])
    # A refused reply (tag flood) states nothing; the turns sum to the episode's per-step rewards.
    flooded = [t[0] * 100, t[0], t[1]]
    assert dense_turn_rewards(flooded, dice) == pytest.approx([0.0, 1 / k, 1 / k - 1 / k])
    assert dense_turn_rewards([], dice) == []  # no reply, no turn to pay
    for episode in (replies, changed, corrected, flooded, [t[1], t[0]]):
        assert sum(dense_turn_rewards(episode, dice)) == pytest.approx(sum(episode_dense_rewards(episode, dice)))
    # A single reply: the per-turn form is the one-completion form.
    one = _reply(probes, wrong={3})
    assert dense_turn_rewards([one], dice) == pytest.approx([sum(dense_rewards(one, dice))])


# -- the environment --------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def hull():
    """A VAoT convex_hull problem: two probes (the hull's size, then the answer)."""
    p = stream(tasks=["convex_hull"], seed=5, condition="vaot", difficulty="easy").take(1)[0]
    assert len(problem_probes(p)) == 2
    return p


def _draw(p) -> dict:
    w, h = p.images[0].size
    return {
        "id": "c0",
        "name": "draw_line",
        "arguments": json.dumps({"x1": w * 0.1, "y1": h * 0.2, "x2": w * 0.8, "y2": h * 0.7, "color": "red"}),
    }


def _episode(p, first_text: str, last_text: str, **knobs) -> tuple[list[float], dict]:
    env = VcotEnv(["convex_hull"], condition="vaot", **knobs)
    env.reset(options={"problem": p})
    _, r1, term1, _, _ = env.step({"content": first_text, "tool_calls": [_draw(p)]})
    assert not term1
    _, r2, term2, _, info = env.step(last_text)
    assert term2
    return [r1, r2], info


def test_env_pays_dense_rewards_turn_by_turn(hull):
    probes = problem_probes(hull)
    answer = f"<answer>{hull.answer}</answer>"
    first, last = _tag(probes[0]), _tag(probes[1]) + answer
    rewards, info = _episode(hull, first, last, dense_weight=0.5)
    assert rewards == pytest.approx([0.5 * 0.5, 0.5 * 0.5 + 1.0])  # step 1; step 2, then the grader's 1.0
    assert info["dense_rewards"] == pytest.approx([0.5, 0.5])
    # A wrong step 1: penalised at its turn; the right step 2 after it earns nothing.
    rewards, info = _episode(hull, _tag(probes[0], right=False), last, dense_weight=1.0)
    assert rewards == pytest.approx([-0.5, 1.0])
    # Beside the step reward, which pays each right step on its own.
    rewards, _ = _episode(hull, _tag(probes[0], right=False), last, dense_weight=1.0, step_weight=1.0)
    assert rewards == pytest.approx([-0.5, 0.5 + 1.0])
    # A missing step 1: the penalty arrives at the end, when it is known to be missing.
    rewards, _ = _episode(hull, "", last, dense_weight=1.0)
    assert rewards == pytest.approx([0.0, -0.5 + 1.0])


def test_env_without_dense_weight_is_unchanged(hull):
    probes = problem_probes(hull)
    first, last = _tag(probes[0], right=False), _tag(probes[1]) + f"<answer>{hull.answer}</answer>"
    default, info = _episode(hull, first, last)
    zero, info0 = _episode(hull, first, last, dense_weight=0.0)
    assert default == zero == [0.0, 1.0]
    assert "dense_rewards" not in info and "dense_rewards" not in info0
    stepped, _ = _episode(hull, first, last, step_weight=1.0, dense_weight=0)
    assert stepped == pytest.approx([0.0, 0.5 + 1.0])


def test_env_single_turn_pays_the_whole_dense_return(dice):
    probes = problem_probes(dice)
    k = len(probes)
    env = VcotEnv(["rolling_dice_top"], condition="state_probe", dense_weight=2.0)
    env.reset(options={"problem": dice})
    reply = _reply(probes, wrong={3})  # answer "x": the grader gives 0
    _, r, terminated, _, info = env.step(reply)
    assert terminated and r == pytest.approx(2.0 * (2 / k - 1 / k))
    assert info["dense_rewards"] == pytest.approx(dense_rewards(reply, dice))


@pytest.mark.parametrize("bad", [-0.1, math.nan, math.inf, 11, True, "1"])
def test_env_refuses_a_bad_dense_weight(bad):
    with pytest.raises(EnvError, match="dense_weight"):
        VcotEnv(["convex_hull"], condition="vaot", dense_weight=bad)


# -- agreement with the exact labels ----------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["none", "ignores_evidence", "picture_text_mismatch", "wrong_conclusion"])
def test_dense_rewards_read_like_the_exact_labels(kind):
    """The labels of a labelled trajectory (correct* incorrect after_error*) are the dense rewards' signs:
    a trajectory whose steps are right exactly where labelled `correct` earns + on `correct`, the penalty on
    `incorrect` and 0 on `after_error`."""
    x = next(t for i in range(6) if (t := labelled("gear_rotation", seed=11, index=i, kind=kind)) is not None)
    rewards = first_error_rewards([label == "correct" for label in x.labels])
    assert rewards == pytest.approx(label_rewards(x.labels))
    signs = {"correct": 1, "incorrect": -1, "after_error": 0}
    assert [int(math.copysign(1, r)) if r else 0 for r in rewards] == [signs[label] for label in x.labels]
    assert (sum(rewards) == pytest.approx(1.0)) == (x.first_error is None)
    with pytest.raises(ValueError, match="unknown step labels"):
        label_rewards(["correct", "wrong"])
