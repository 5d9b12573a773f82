"""The physics runs step Chipmunk through pymunk's C functions where pymunk exposes them, and through its public
API otherwise (src/vcot/tasks/physsim/_engine.py): both paths give the same floats, so a pymunk whose private
layout differs changes no instance."""

from __future__ import annotations

from typing import Any

import pytest

from vcot.tasks import get_task
from vcot.tasks.physsim import _engine


@pytest.fixture
def public_api(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_engine, "_space_step", lambda space, dt: space.step(dt))
    monkeypatch.setattr(_engine, "_body_position", lambda body: body.position)
    monkeypatch.setattr(_engine, "_body_angle", lambda body: body.angle)
    monkeypatch.setattr(_engine, "_body_velocity", lambda body: body.velocity)
    monkeypatch.setattr(_engine, "_raw", lambda space, body: (space, body))


def _runs() -> tuple[Any, Any]:
    tower, _ = get_task("block_tower", "medium").solved_scene(0, 4)
    ramps, _ = get_task("ball_bins", "medium").solved_scene(0, 4)
    return _engine.simulate_tower(tower["blocks"]).poses, _engine.simulate_ball(ramps).trace


def test_c_calls_and_public_api_give_the_same_runs(request: pytest.FixtureRequest) -> None:
    fast = _runs()
    request.getfixturevalue("public_api")
    assert _engine._space_step is not None and _runs() == fast
