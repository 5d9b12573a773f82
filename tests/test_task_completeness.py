"""Every registered task is complete: it brings every piece docs/design.md ("A new task") lists, passes the
generator contract and agrees with its independent oracle — one parametrised test each, over the registry, so
a new task is held to all of it without touching a list. Each task's own hand-worked examples stay in
`tests/tasks/test_<task>.py` and `tests/oracles/test_<task>.py`.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from generator_contract import check_generator_contract
from task_pieces import builtin_task_names, missing_pieces
from vcot.draw.png import pixel_digest
from vcot.oracles import get_oracle
from vcot.tasks import get_task, get_task_class
from vcot.tasks.scene3d._task import Scene3DTask

REPO = Path(__file__).resolve().parents[1]
TASKS = builtin_task_names()
LEVELS = ("easy", "medium", "hard")


def _slow(name: str) -> bool:
    # A 3D scene costs a ray-cast render (docs/draw3d.md): fewer instances, the same checks.
    return issubclass(get_task_class(name), Scene3DTask)


def test_the_registry_holds_every_task() -> None:
    # Every generator file registers the task of its name (a task that fails to register would otherwise just
    # be absent), and every MIRA task is among them.
    import pkgutil

    import vcot.tasks as tasks_pkg
    from vcot.tasks.catalog import MIRA_TASKS

    files = []
    for pkg in tasks_pkg._DOMAIN_PACKAGES:
        path = [str(Path(tasks_pkg.__file__).parent / pkg)]
        files += [m.name for m in pkgutil.iter_modules(path) if not m.name.startswith("_")]
    assert sorted(files) == sorted(TASKS) and len(set(TASKS)) == len(TASKS)
    assert set(MIRA_TASKS) <= set(TASKS) and len(TASKS) >= 22


@pytest.mark.parametrize("name", TASKS)
def test_task_has_every_piece(name: str) -> None:
    missing = missing_pieces(name, REPO)
    assert not missing, f"{name} lacks:\n  " + "\n  ".join(missing)


@pytest.mark.parametrize("name", TASKS)
def test_generator_contract(name: str) -> None:
    check_generator_contract(name, n=3 if _slow(name) else 20)


@pytest.mark.parametrize("difficulty", LEVELS)
@pytest.mark.parametrize("name", TASKS)
def test_oracle_agrees_with_generator(name: str, difficulty: str) -> None:
    task = get_task(name, difficulty)
    oracle = get_oracle(name)
    for i in range(12 if _slow(name) else 40):
        scene, solution = task.solved_scene(i, 5)
        # The scene is what the picture shows: the answer is never stored in it.
        assert "answer" not in scene and "solution" not in scene, (difficulty, i)
        assert oracle(scene, task.params()) == solution.answer, (difficulty, i)


@pytest.mark.parametrize("name", TASKS)
def test_input_picture_alone_is_the_rendered_one(name: str) -> None:
    # Training streams draw `render_input` alone while `vcot generate` keeps `render`'s picture: a task that
    # draws its input picture without the steps must draw that same picture.
    for difficulty in LEVELS:
        task = get_task(name, difficulty)
        for i in range(1 if _slow(name) else 2):
            scene, solution = task.solved_scene(i, 5)
            # render_input first, as a stream calls it: on a fresh solution, before render has touched it.
            alone = pixel_digest(task.render_input(scene, solution))
            assert alone == pixel_digest(task.render(scene, solution).image), (difficulty, i)


# -- the check itself can fail ------------------------------------------------------------------------------


def _check_copy(tmp_path: Path, remove: str) -> dict[str, list[str]]:
    """Run the piece check on a copy of the tree with one file removed."""
    root = tmp_path / "tree"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "img")
    for part in ("src", "docs"):
        shutil.copytree(REPO / part, root / part, ignore=ignore)
    for part in ("tasks", "oracles"):
        shutil.copytree(REPO / "tests" / part, root / "tests" / part, ignore=ignore)
    (root / remove).unlink()
    env = {**os.environ, "PYTHONPATH": str(root / "src")}
    out = subprocess.run(
        [sys.executable, str(REPO / "tests" / "task_pieces.py"), str(root)],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    found = json.loads(out.stdout)
    assert Path(found["vcot"]).resolve().is_relative_to(root.resolve()), found["vcot"]  # the copy, not the repo
    return found["missing"]


@pytest.mark.parametrize(
    "remove, task, piece",
    [
        ("src/vcot/oracles/billiards.py", "billiards", "oracle"),
        ("src/vcot/captions/mirror_clock.py", "mirror_clock", "caption"),
        ("docs/tasks/puzzle.md", "puzzle", "task doc"),
        ("src/vcot/probes/overlap.py", "overlap", "state probes"),
        ("tests/oracles/test_localizer.py", "localizer", "oracle test"),
    ],
)
def test_the_check_fails_on_a_tree_missing_a_piece(tmp_path: Path, remove: str, task: str, piece: str) -> None:
    found = _check_copy(tmp_path, remove)
    assert [m.split(":")[0] for m in found[task]] == [piece]
    assert not any(found[t] for t in found if t != task)


def test_every_generator_module_is_named_for_its_task() -> None:
    # `is_task_name` (what reading a suite asks) tells a task by its module file without importing every
    # generator; that holds only while every public module of a domain package registers the task of its name.
    import importlib
    import pkgutil

    from vcot.tasks import _DOMAIN_PACKAGES, is_task_name

    modules = []
    for pkg_name in _DOMAIN_PACKAGES:
        pkg = importlib.import_module(f"vcot.tasks.{pkg_name}")
        modules += [m.name for m in pkgutil.iter_modules(pkg.__path__) if not m.name.startswith("_")]
    assert sorted(modules) == sorted(TASKS)
    for name in TASKS:
        assert get_task_class(name).__module__.rsplit(".", 1)[1] == name
        assert is_task_name(name)
    assert not is_task_name("no_such_task") and not is_task_name("_gear_layout") and not is_task_name("../x")


def test_reading_a_suite_of_non_mira_tasks_imports_no_generator(tmp_path: Path) -> None:
    # The 3D tasks are not MIRA's, so the suite reader once asked the registry, which imports every generator.
    from vcot.build import TaskPlan, build_suite

    build_suite(tmp_path / "s", "s", [TaskPlan("object_attributes", 1, 0, "easy")])
    code = (
        "import json, sys\nfrom vcot.suite import read_suite\nread_suite(sys.argv[1])\n"
        "print(json.dumps(sorted(sys.modules)))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "s")], capture_output=True, text=True, check=True
    ).stdout
    from vcot.tasks import _DOMAIN_PACKAGES

    loaded = json.loads(out)
    generators = [m for m in loaded if m.count(".") >= 3 and m.split(".")[2] in _DOMAIN_PACKAGES]
    assert generators == [] and "shapely" not in loaded and "vcot.draw3d" not in loaded, generators
    assert "vcot.tasks.scene3d" in loaded  # the reader did look the task up by its file
