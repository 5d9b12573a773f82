"""Evaluation and training pose one problem: the registry says which conditions training can pose, the
problem's prompt is the evaluation episode's first messages, one drawing session serves every caller, and no
part of vcot keeps a condition list of its own (issue 43; docs/design.md, "A new condition")."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

import vcot
from vcot.conditions import REGISTRY
from vcot.draw.png import pixel_digest
from vcot.rl import make_problem, stream
from vcot.rl.env import EnvError, VcotEnv
from vcot.vaot.session import DrawingSession

SRC = Path(vcot.__file__).parent
# The parts that serve conditions to someone: a model under evaluation, a trainer, a harness, a person. The
# analysis is not among them: it names the comparisons its tables make (MIRA's Table 2 is text_cot against
# text_cot_spec by definition), not which conditions exist.
SERVING = ("rl", "export", "human", "engine", "cli", "vaot")
# Where condition names are registered from.
OWNERS = {SRC / "vaot" / "episode.py"}


def _task_for(condition: str) -> str:
    for task in ("gear_rotation", "cubes_count", "mirror_clock", "convex_hull"):
        if REGISTRY.task_unservable(task, condition) is None:
            return task
    raise AssertionError(f"no test task serves {condition}")


@pytest.mark.parametrize("condition", REGISTRY.trainable())
def test_every_trainable_condition_is_a_problem_and_an_environment(condition):
    task = _task_for(condition)
    p = make_problem(task, "easy", seed=3, index=1, condition=condition)
    assert p.condition == condition and p.prompt
    env = VcotEnv([task], condition=condition, difficulty="easy", seed=3)
    obs, info = env.reset(options={"row": p.row()})
    # The environment's observation is the problem's prompt with the pictures in place.
    texts = [[part.get("text") for part in m["content"]] for m in obs]
    assert texts == [[part.get("text") for part in m["content"]] for m in p.prompt]
    pictures = [part["image"] for m in obs for part in m["content"] if part["type"] == "image"]
    assert [pixel_digest(im) for im in pictures] == [pixel_digest(im) for im in p.images]
    assert info["tools"] == p.tools
    assert (p.tools is not None) == (REGISTRY.get(condition).trainable == "episode")


@pytest.mark.parametrize("condition", [c for c in REGISTRY.names() if c not in REGISTRY.trainable()])
def test_evaluation_only_conditions_are_refused_by_name(condition):
    with pytest.raises(ValueError, match="evaluation only"):
        make_problem("cubes_count", condition=condition)
    with pytest.raises(EnvError, match="evaluation only"):
        VcotEnv(["cubes_count"], condition=condition)


def test_a_condition_a_task_cannot_serve_is_refused_with_the_reason(monkeypatch):
    from vcot.prompts.text_cot_spec import GUIDES

    monkeypatch.delitem(GUIDES, "robot_program")  # every task has a guide today
    with pytest.raises(ValueError, match="no task-specific guide for task 'robot_program'"):
        stream("robot_program", condition="text_cot_spec")


def _condition_literals(path: Path) -> list[tuple[int, list[str]]]:
    names = set(REGISTRY.names())
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Tuple | ast.List | ast.Set):
            items = node.elts
        elif isinstance(node, ast.Dict):
            items = [k for k in node.keys if k is not None]
        else:
            continue
        values = [e.value for e in items if isinstance(e, ast.Constant) and isinstance(e.value, str)]
        if len(values) >= 2 and len(values) == len(items) and set(values) <= names:
            found.append((node.lineno, values))
    return found


def test_no_part_keeps_a_condition_list_of_its_own():
    """In the parts that serve conditions, no literal tuple, list, set or dict key set names two or more
    conditions: they ask the registry (trainable, offered_by, defaults, ...)."""
    offenders = []
    for path in sorted(p for part in SERVING for p in (SRC / part).rglob("*.py")):
        if path in OWNERS:
            continue
        offenders += [f"{path.relative_to(SRC)}:{line} {values}" for line, values in _condition_literals(path)]
    assert not offenders, "condition lists outside the registry:\n" + "\n".join(offenders)


def test_the_literal_scan_finds_a_planted_list(tmp_path):
    planted = tmp_path / "planted.py"
    planted.write_text('CONDITIONS = ("direct", "text_cot", "vaot")\nOTHER = ("direct", "not_a_condition")\n')
    assert [values for _, values in _condition_literals(planted)] == [["direct", "text_cot", "vaot"]]


def _calls(path: Path) -> set[str]:
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call):
            f = node.func
            out.add(f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", ""))
    return out


def test_one_drawing_session_draws_for_everyone():
    """Only the drawing session renders a model's action (vcot.vaot.corrupt renders inside a corruption);
    evaluation's episode and the training environment both hold a DrawingSession."""
    renderers = {"apply_action", "corrupt_render"}
    drawing = sorted(str(p.relative_to(SRC)) for p in SRC.rglob("*.py") if _calls(p) & renderers)
    assert drawing == ["vaot/corrupt.py", "vaot/session.py"]
    env = VcotEnv(["convex_hull"], condition="vaot", seed=1)
    env.reset()
    assert type(env.session) is DrawingSession and type(env.episode.session) is DrawingSession
    # Every trainer adapter reaches the drawing through the environment core.
    for name in ("trl.py", "verl/tool.py", "verifiers_env.py", "openenv.py", "skyrl.py"):
        path = SRC / "rl" / name
        text = path.read_text(encoding="utf-8")  # a moved adapter fails here rather than leaving the check
        assert "VcotEnv" in text and not (_calls(path) & renderers), name


def test_problem_rows_keep_their_json_form():
    p = make_problem("convex_hull", seed=4, condition="vaot")
    assert json.loads(p.row()["tools"]) == p.tools


def test_the_environment_refuses_a_bad_stream_when_built(tmp_path):
    from vcot.suite import SuiteError

    with pytest.raises(SuiteError, match="not found"):
        VcotEnv("cubes_count", exclude=str(tmp_path / "no-such-suite"))
    env = VcotEnv("cubes_count", condition="direct", seed=2)  # one name is one task
    assert env.reset()[1]["task"] == "cubes_count"
