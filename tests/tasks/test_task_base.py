"""What the Task base and the shared task bases give every generator: domain and answer type from the MIRA
catalog, and presets of sibling tasks that differ only in their answer ranges."""

from __future__ import annotations

import dataclasses

import pytest

from vcot.tasks import get_task_class, task_names
from vcot.tasks.base import answer_range_presets
from vcot.tasks.catalog import MIRA_TASKS
from vcot.tasks.common.cube_scenes import CUBE_LEVELS
from vcot.tasks.common.three_views import VIEWS_LEVELS


def test_mira_tasks_take_domain_and_answer_type_from_the_catalog() -> None:
    names = [n for n in task_names() if n in MIRA_TASKS]
    assert sorted(names) == sorted(MIRA_TASKS)
    for name in names:
        cls = get_task_class(name)
        assert (cls.domain, cls.answer_type) == MIRA_TASKS[name], name


def test_answer_range_presets_keep_each_level_and_set_its_range() -> None:
    presets = answer_range_presets(CUBE_LEVELS, easy=(1, 2), medium=(3, 4), hard=(5, 6))
    assert list(presets) == list(CUBE_LEVELS)
    for level, (lo, hi) in {"easy": (1, 2), "medium": (3, 4), "hard": (5, 6)}.items():
        assert presets[level] == dataclasses.replace(CUBE_LEVELS[level], answer_min=lo, answer_max=hi)
    with pytest.raises(ValueError):
        answer_range_presets(CUBE_LEVELS, easy=(1, 2), medium=(3, 4))


@pytest.mark.parametrize(
    "pair, levels",
    [(("cubes_count", "cubes_missing"), CUBE_LEVELS), (("trailer_cubes_count", "trailer_cubes_missing"), VIEWS_LEVELS)],
)
def test_sibling_tasks_share_their_levels_but_the_answer_range(pair: tuple[str, str], levels: dict) -> None:
    for name in pair:
        for level, cfg in get_task_class(name).presets.items():
            assert (
                dataclasses.replace(cfg, answer_min=levels[level].answer_min, answer_max=levels[level].answer_max)
                == levels[level]
            )
            assert cfg.answer_min < cfg.answer_max
