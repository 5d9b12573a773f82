"""Shared fixtures. A tiny registered task (`toy_dots`) lets suite tests run without real generators."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from vcot.draw import Canvas
from vcot.schema import AnswerType
from vcot.tasks import GenContext, Reject, Solution, Task, register
from vcot.tasks.base import Corruption, Rendering


@pytest.fixture(scope="session", autouse=True)
def _no_cache_in_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The report's thumbnail cache (VCOT_CACHE_DIR, vcot.analysis.thumbnails) in a folder of this test session,
    for the commands the tests run in this process and in child processes: nothing is written to the home
    folder. Tests of the cache itself give each test its own folder (tests/analysis/conftest.py)."""
    old = os.environ.get("VCOT_CACHE_DIR")
    os.environ["VCOT_CACHE_DIR"] = str(tmp_path_factory.mktemp("vcot-cache"))
    yield
    if old is None:
        os.environ.pop("VCOT_CACHE_DIR", None)
    else:
        os.environ["VCOT_CACHE_DIR"] = old


@dataclasses.dataclass(frozen=True)
class ToyConfig:
    max_dots: int = 6


@register
class ToyDots(Task):
    """Count the dots: the smallest complete generator, used to test the machinery around generators."""

    name = "toy_dots"
    domain = "EG"
    answer_type = AnswerType.INTEGER
    config_cls = ToyConfig
    presets = {"easy": ToyConfig(3), "medium": ToyConfig(6), "hard": ToyConfig(9)}
    description = "test-only task"

    def sample_scene(self, ctx: GenContext) -> dict:
        n = ctx.rng.randint(1, self.config.max_dots)
        dots = [[ctx.rng.randint(20, 230), ctx.rng.randint(20, 230)] for _ in range(n)]
        for i, a in enumerate(dots):
            for b in dots[:i]:
                if abs(a[0] - b[0]) < 24 and abs(a[1] - b[1]) < 24:
                    raise Reject("dots too close to count reliably")
        return {"dots": dots}

    def solve(self, scene: dict) -> Solution:
        return Solution(answer=str(len(scene["dots"])), states=[len(scene["dots"])])

    def answer_space(self, instance):
        from vcot.tasks.answer_space import integers

        return integers(1, self.config.max_dots)

    def question(self, scene: dict) -> str:
        return "How many dots are there? Answer with an integer."

    def render(self, scene: dict, solution: Solution) -> Rendering:
        c = Canvas(256, 256)
        for x, y in scene["dots"]:
            c.circle((x, y), 8, fill="blue")
        step = Canvas.from_image(c.image())
        for k, (x, y) in enumerate(scene["dots"], 1):
            step.text((x, y - 10), str(k), size=14, anchor="mb")
        return Rendering(c.image(), [(step.image(), f"numbered the {solution.answer} dots")])

    def corrupt(self, scene, solution, rng):
        step = Canvas(256, 256)
        step.text((128, 128), "?", size=30, anchor="mm")
        return Corruption([(step.image(), "a wrong count")], "count replaced")


@pytest.fixture
def toy_suite(tmp_path: Path) -> Path:
    from vcot.build import TaskPlan, build_suite

    out = tmp_path / "toy"
    build_suite(out, "toy", [TaskPlan("toy_dots", 8, 3)])
    return out
