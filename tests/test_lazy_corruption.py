"""The corrupted trajectory is drawn only when its steps are read.

The rejection loop (`Task._accept(..., check_corruption=True)`) asks `corrupt` only whether a scene admits a
corrupted trajectory, and `make(with_corruption=False)` and `vcot.rl` throw it away; drawing it there was
wasted work. Deferring the drawing must change nothing: not which scene is accepted, not a pixel or a text.
"""

from __future__ import annotations

from typing import Any

import pytest
from PIL import Image

from task_pieces import builtin_task_names
from vcot.tasks import get_task, get_task_class
from vcot.tasks.base import Corruption, Sample, Task

SEED = 3


def _corrupting_tasks() -> list[str]:
    return [n for n in builtin_task_names() if get_task_class(n).corrupt is not Task.corrupt]


def _indices(name: str) -> list[int]:
    # 3-D scenes are ray-cast, which is slow: one instance each.
    return [0] if get_task_class(name).__module__.startswith("vcot.tasks.scene3d") else [0, 1]


CASES = [(name, index) for name in _corrupting_tasks() for index in _indices(name)]


def _image_key(image: Image.Image) -> tuple[str, tuple[int, int], bytes]:
    return image.mode, image.size, image.tobytes()


def _same_sample(got: Sample, want: Sample) -> None:
    assert got.instance == want.instance
    assert sorted(got.images) == sorted(want.images)
    for path, image in want.images.items():
        assert _image_key(got.images[path]) == _image_key(image), path


def test_every_corrupting_task_is_covered() -> None:
    # Guards the parametrisation below against a registry that came up empty.
    assert len(_corrupting_tasks()) >= 20


@pytest.mark.parametrize(("name", "index"), CASES, ids=[f"{n}-{i}" for n, i in CASES])
def test_corruption_is_drawn_lazily_and_identically(name: str, index: int, monkeypatch: pytest.MonkeyPatch) -> None:
    task = get_task(name, "easy")
    _, _, corruption, _ = task._accept(index, SEED, check_corruption=True)
    assert corruption is not None
    assert callable(corruption._steps), f"{name}: corrupt drew its pictures before they were asked for"

    lazy = task.make(index, SEED)
    assert lazy.instance.corrupted_steps

    # The reference draws the trajectory inside `corrupt`, as before the drawing was deferred: any state the
    # deferred drawing read late (a scene or solution changed by `render`, a shared cache) would show here.
    init = Corruption.__init__

    def eager_init(self: Corruption, steps: Any, description: str, **implied: Any) -> None:
        init(self, steps, description, **implied)
        assert self.steps is not None

    monkeypatch.setattr(Corruption, "__init__", eager_init)
    _same_sample(lazy, task.make(index, SEED))


def test_steps_are_drawn_once_and_cached() -> None:
    calls = []
    picture = Image.new("RGB", (4, 4), "white")

    def draw() -> list[tuple[Image.Image, str]]:
        calls.append(1)
        return [(picture, "a wrong step")]

    corruption = Corruption(steps=draw, description="changed")
    assert calls == []
    first = corruption.steps
    assert corruption.steps is first
    assert calls == [1]
    assert first == [(picture, "a wrong step")]
    assert corruption.description == "changed"


def test_steps_given_as_a_list_positionally() -> None:
    steps = [(Image.new("RGB", (4, 4)), "a wrong step")]
    corruption = Corruption(steps, "changed")
    assert corruption.steps is steps
    assert corruption.description == "changed"


def test_make_without_corruption_draws_none_of_it() -> None:
    task = get_task("mirror_clock", "easy")
    drawn = []
    corrupt = type(task).corrupt

    def spying_corrupt(self: Task, scene: dict[str, Any], solution: Any, rng: Any) -> Corruption | None:
        result = corrupt(self, scene, solution, rng)
        if result is not None:
            thunk = result._steps

            def counted() -> Any:
                drawn.append(1)
                return thunk() if callable(thunk) else thunk

            result._steps = counted
        return result

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(type(task), "corrupt", spying_corrupt)
        sample = task.make(0, SEED, with_corruption=False)
        assert not sample.instance.corrupted_steps
        assert drawn == []
        task.make(0, SEED)
        assert drawn == [1]
