"""Declared parameter limits of all 20 MIRA tasks (docs/tasks/README.md, "Parameter limits"): every numeric
config field has a Limit and every string field its Choices, every preset lies inside them, a value just outside
is refused with an error that names the task, the parameter and the reason, and `vcot generate` reports it in
one line without writing anything. Also the relations between parameters that single ranges cannot express."""

from __future__ import annotations

import dataclasses
import math
import typing
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from task_pieces import builtin_task_names
from vcot.cli import app
from vcot.tasks import get_task_class
from vcot.tasks.base import Choices, Limit, ParameterError, Task

TASKS = builtin_task_names()
LEVELS = ("easy", "medium", "hard")
runner = CliRunner()


def _kind(tp: Any) -> str:
    """'number', 'text' (a str or a list/tuple of str), 'flag' (bool) or 'other' for a config field's type."""
    if tp is bool:
        return "flag"
    if tp in (int, float):
        return "number"
    if tp is str or (typing.get_origin(tp) in (list, tuple) and str in typing.get_args(tp)):
        return "text"
    return "other"


def _fields(cls: type[Task]) -> dict[str, Any]:
    hints = typing.get_type_hints(cls.config_cls)
    return {f.name: hints[f.name] for f in dataclasses.fields(cls.config_cls)}


def _numeric_limits(cls: type[Task]) -> dict[str, Limit]:
    return {k: v for k, v in cls.limits.items() if isinstance(v, Limit)}


def _outside(tp: Any, limit: Limit) -> list[Any]:
    """The values just above the upper and just below the lower limit, of the field's own type."""
    if tp is int:
        return [math.floor(limit.hi) + 1, math.ceil(limit.lo) - 1]
    return [math.nextafter(float(limit.hi), math.inf), math.nextafter(float(limit.lo), -math.inf)]


def _cli_error(args: list[str], out: Path) -> str:
    """Run `vcot generate` expecting a refused parameter: the exit code of invalid input, one error line, no
    traceback, no output folder. Returns the line."""
    r = runner.invoke(app, ["generate", *args, "--n", "1", "-o", str(out)])
    lines = [ln for ln in r.output.splitlines() if ln.strip()]
    # 2 is the CLI's code for input it refuses (cli/common.py `fail`), as for an unknown task.
    assert r.exit_code == 2, r.output
    assert not isinstance(r.exception, ParameterError | ValueError | TypeError), r.exception
    assert len(lines) == 1 and lines[0].startswith("error:"), r.output
    assert "Traceback" not in r.output
    assert not out.exists()
    return lines[0]


@pytest.mark.parametrize("name", TASKS)
def test_every_field_has_a_limit_or_choices(name: str) -> None:
    cls = get_task_class(name)
    fields = _fields(cls)
    assert set(cls.limits) <= set(fields), f"{name} declares limits for fields its config lacks"
    for field, tp in fields.items():
        kind = _kind(tp)
        assert kind != "other", f"{name}.{field}: type {tp} is neither a number, a string nor a flag"
        if kind == "number":
            assert isinstance(cls.limits.get(field), Limit), f"{name}.{field} has no Limit"
        elif kind == "text":
            assert isinstance(cls.limits.get(field), Choices), f"{name}.{field} has no Choices"
        limit = cls.limits.get(field)
        if limit is not None:
            assert limit.why.strip() or isinstance(limit, Choices), f"{name}.{field}: the limit gives no reason"
            if isinstance(limit, Limit):
                assert limit.lo <= limit.hi, f"{name}.{field}: empty range"


@pytest.mark.parametrize("name", TASKS)
def test_every_preset_lies_within_its_limits(name: str) -> None:
    cls = get_task_class(name)
    for level in LEVELS:
        cfg = cls.presets[level]
        for field, limit in cls.limits.items():
            value = getattr(cfg, field)
            if isinstance(limit, Limit):
                assert limit.lo <= value <= limit.hi, f"{name} {level}: {field} = {value} outside {limit}"
            else:
                items = list(value) if isinstance(value, list | tuple) else [value]
                assert items and set(items) <= set(limit.values), f"{name} {level}: {field} = {value!r}"
        cls(difficulty=level)  # and the task's own relations hold


@pytest.mark.parametrize("name", TASKS)
def test_values_just_outside_a_limit_are_refused_with_the_reason(name: str) -> None:
    cls = get_task_class(name)
    fields = _fields(cls)
    limits = _numeric_limits(cls)
    assert limits, f"{name} declares no numeric limit"
    for field, limit in limits.items():
        for value in _outside(fields[field], limit):
            with pytest.raises(ParameterError) as info:
                cls(difficulty="medium", **{field: value})
            message = str(info.value)
            assert name in message and field in message and limit.why in message, message


@pytest.mark.parametrize("name", TASKS)
def test_choices_refuse_other_values(name: str) -> None:
    cls = get_task_class(name)
    fields = _fields(cls)
    for field, limit in cls.limits.items():
        if not isinstance(limit, Choices):
            continue
        bad: Any = "no-such-value"
        if typing.get_origin(fields[field]) in (list, tuple):
            bad = [limit.values[0], "no-such-value"]
        with pytest.raises(ParameterError, match=field):
            cls(difficulty="medium", **{field: bad})


@pytest.mark.parametrize("name", TASKS)
def test_generate_refuses_an_out_of_range_value_in_one_line(name: str, tmp_path: Path) -> None:
    cls = get_task_class(name)
    fields = _fields(cls)
    limits = _numeric_limits(cls)
    assert limits, f"{name} declares no numeric limit"
    field, limit = next(iter(limits.items()))
    value = _outside(fields[field], limit)[0]
    line = _cli_error(["--task", name, "-p", f"{field}={value!r}"], tmp_path / "out")
    assert name in line and field in line and limit.why in line


@pytest.mark.parametrize("name", ["rolling_dice_top", "rolling_dice_sum", "rolling_dice_two"])
def test_rolling_dice_board_and_move_errors(name: str, tmp_path: Path) -> None:
    line = _cli_error(["--task", name, "-p", "min_moves=5", "-p", "max_moves=3"], tmp_path / "a")
    assert "min_moves (5) must not exceed max_moves (3)" in line
    why = get_task_class(name).limits["rows"].why
    for rows in (-3, 0):
        line = _cli_error(["--task", name, "-p", f"rows={rows}"], tmp_path / f"rows{rows}")
        assert f"parameter rows of task {name} must be between 2 and 10" in line and why in line
        assert line.endswith(f"got {rows}")


# Relations between parameters, per task: a configuration breaking one, the words its error must contain, and the
# nearest configuration that keeps it (so each check refuses exactly what it should).
RELATIONS = [
    ("billiards", {"min_width": 9, "max_width": 9}, {"min_width": 8, "max_width": 9}, "no even width"),
    (
        "billiards",
        {"min_width": 10, "max_width": 12, "min_height": 10, "max_height": 11},
        {"min_width": 10, "max_width": 12, "min_height": 9, "max_height": 11},
        "min_height (10) must be below",
    ),
    (
        "billiards",
        {"max_width": 12, "min_bounces": 7, "max_bounces": 7},
        {"max_width": 12, "min_bounces": 6, "max_bounces": 7},
        "min_bounces (7) must be at most max_width / 2",
    ),
    ("defuse_a_bomb", {"n_wires": 6, "height": 6}, {"n_wires": 6, "height": 7}, "height (6) must be at least"),
    (
        "defuse_a_bomb",
        {"n_wires": 4, "height": 6, "panel_max_h": 3},
        {"n_wires": 4, "height": 7, "panel_max_h": 3},
        "with panel_max_h below 4, height (6) must be at least n_wires + 3 = 7",
    ),
    (
        "defuse_a_bomb",
        {"panel_max_w": 3, "panel_max_h": 3},
        {"panel_max_w": 4, "panel_max_h": 3},
        "panel_max_w (3) or panel_max_h (3) must be at least 4",
    ),
    (
        "defuse_a_bomb",
        {"n_panels": 3, "panel_max_w": 4, "width": 18},
        {"n_panels": 3, "panel_max_w": 4, "width": 19},
        "width (18) must be at least n_panels x (panel_max_w + 2) + 1 = 19",
    ),
    (
        "rolling_dice_top",
        {"rows": 2, "cols": 3, "min_moves": 1, "max_moves": 6},
        {"rows": 2, "cols": 3, "min_moves": 1, "max_moves": 5},
        "max_moves (6) must be at most rows x cols - 1 = 5",
    ),
    (
        "rolling_dice_sum",
        {"rows": 2, "cols": 2, "min_moves": 1, "max_moves": 4},
        {"rows": 2, "cols": 2, "min_moves": 1, "max_moves": 3},
        "max_moves (4) must be at most",
    ),
    (
        "rolling_dice_two",
        {"rows": 2, "cols": 2, "min_moves": 2, "max_moves": 3},
        {"rows": 2, "cols": 3, "min_moves": 2, "max_moves": 3},
        "at least 6 cells",
    ),
    (
        "trailer_cubes_count",
        {"max_width": 4, "max_depth": 4, "max_height": 4, "answer_max": 65},
        {"max_width": 4, "max_depth": 4, "max_height": 4, "answer_max": 64},
        "must lie within 3..64",
    ),
    (
        "trailer_cubes_count",
        {"min_width": 3, "answer_min": 2},
        {"min_width": 3, "answer_min": 3},
        "must lie within 3..64",
    ),
    (
        "trailer_cubes_missing",
        {"max_width": 4, "max_depth": 4, "max_height": 4, "answer_max": 61},
        {"max_width": 4, "max_depth": 4, "max_height": 4, "answer_max": 60},
        "must lie within 0..60",
    ),
    (
        "trailer_cubes_missing",
        {"answer_min": 5, "answer_max": 7, "buckets": 4},
        {"answer_min": 5, "answer_max": 8, "buckets": 4},
        "buckets (4) must not exceed the 3 values",
    ),
    (
        "trailer_cubes_count",
        {"min_width": 3, "min_depth": 4, "min_unequal_cells": 7},
        {"min_width": 3, "min_depth": 4, "min_unequal_cells": 6},
        "min_unequal_cells (7) must be at most half",
    ),
]


@pytest.mark.parametrize("name, bad, good, words", RELATIONS, ids=[f"{r[0]}-{'-'.join(r[1])}" for r in RELATIONS])
def test_relations_between_parameters(name: str, bad: dict, good: dict, words: str) -> None:
    cls = get_task_class(name)
    with pytest.raises(ParameterError) as info:
        cls(difficulty="medium", **bad)
    assert name in str(info.value) and words in str(info.value), str(info.value)
    cls(difficulty="medium", **good)


def test_tasks_command_shows_the_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    from vcot.cli import common

    # Wide enough that no parameter cell folds (a log gets 100 columns, where long cells wrap).
    monkeypatch.setattr(common.console, "width", 220)
    r = runner.invoke(app, ["tasks"])
    assert r.exit_code == 0, r.output
    for name, field in (("rolling_dice_top", "rows"), ("overlap", "max_size"), ("billiards", "max_bounces")):
        cls = get_task_class(name)
        limit = cls.limits[field]
        values = "/".join(str(getattr(cls.presets[lv], field)) for lv in LEVELS)
        if len(set(values.split("/"))) == 1:
            values = values.split("/")[0]
        assert f"{field}: int = {values}  in {limit.lo:g}..{limit.hi:g}" in r.output, (name, field)
    assert "min_margin: float = 0.1  in 0.05..1" in r.output
    # The values of a Choices follow "one of" (the table may fold them onto the next line).
    assert 'ref_mode: str = "corner"/"vertex"/"vertex"  one of' in r.output
