"""Task registry. Generators live one per file under `vcot/tasks/<domain>/` and register themselves with
`@register`; every module in those packages is imported on first use, so adding a task needs no edit here.
Code shared by several tasks lives in `vcot/tasks/common/`, which registers nothing and is not scanned.
"""

from __future__ import annotations

import importlib
import importlib.util
import pkgutil
import sys
import types
from dataclasses import dataclass
from typing import Any

from vcot.tasks.base import GenContext, GenerationError, Reject, Sample, Solution, Task
from vcot.tasks.catalog import MIRA_TASKS

_REGISTRY: dict[str, type[Task]] = {}
_DOMAIN_PACKAGES = ("eg", "pbr", "aslp", "ct", "scene3d", "chem", "sciqa", "physsim", "robot")
_discovered = False


class UnknownTaskError(KeyError):
    def __str__(self) -> str:
        return str(self.args[0])


def register(cls: type[Task]) -> type[Task]:
    """Class decorator adding a Task subclass to the registry under `cls.name`."""
    name = cls.name
    if name in _REGISTRY and _REGISTRY[name] is not cls:
        raise ValueError(f"task {name!r} registered twice ({_REGISTRY[name].__module__} and {cls.__module__})")
    for attr in ("domain", "answer_type", "config_cls", "presets"):
        if not hasattr(cls, attr):
            raise TypeError(f"task {name!r} lacks class attribute {attr!r}")
    missing = {"easy", "medium", "hard"} - set(cls.presets)
    if missing:
        raise TypeError(f"task {name!r} lacks difficulty presets {sorted(missing)}")
    _REGISTRY[name] = cls
    return cls


def _discover() -> None:
    global _discovered
    if _discovered:
        return
    _discovered = True
    for pkg_name in _DOMAIN_PACKAGES:
        pkg = importlib.import_module(f"vcot.tasks.{pkg_name}")
        for mod in pkgutil.iter_modules(pkg.__path__):
            if not mod.name.startswith("_"):
                importlib.import_module(f"vcot.tasks.{pkg_name}.{mod.name}")


def is_task_name(name: str) -> bool:
    """Whether `name` is a registered task. A built-in generator lives in `vcot/tasks/<domain>/<name>.py`
    (every module there not starting with "_" registers the task of its name: tests/test_task_completeness.py),
    so the file tells without importing every generator, which reading a suite before a run's first request
    would otherwise do (shapely, the 3D renderer, ...)."""
    if name in _REGISTRY:
        return True
    if name.isidentifier() and not name.startswith("_"):
        for pkg_name in _DOMAIN_PACKAGES:
            if importlib.util.find_spec(f"vcot.tasks.{pkg_name}.{name}") is not None:
                return True
    return name in task_names()


def task_names() -> list[str]:
    """Registered tasks in MIRA catalog order, then any others alphabetically."""
    _discover()
    order = {name: i for i, name in enumerate(MIRA_TASKS)}
    return sorted(_REGISTRY, key=lambda n: (order.get(n, len(order)), n))


def get_task_class(name: str) -> type[Task]:
    _discover()
    try:
        return _REGISTRY[name]
    except KeyError:
        from vcot.suggest import unknown_name

        raise UnknownTaskError(unknown_name("task", name, task_names(), "registered tasks")) from None


def get_task(name: str, difficulty: str = "medium", **params: Any) -> Task:
    """A task object at a difficulty preset ("easy" | "medium" | "hard"), `params` overriding the preset's
    config fields; raises UnknownTaskError for an unknown name and ValueError for a value outside its limits."""
    return get_task_class(name)(difficulty=difficulty, **params)


@dataclass(frozen=True)
class TaskInfo:
    """One registered task, as `vcot.tasks()` and `vcot tasks` list it."""

    name: str
    domain: str
    answer_type: str  # a vcot.schema.AnswerType value
    description: str


def task_infos() -> list[TaskInfo]:
    """Every registered task in catalog order, with its domain, answer type and description."""
    out = []
    for name in task_names():
        cls = _REGISTRY[name]
        out.append(TaskInfo(name, cls.domain, str(getattr(cls.answer_type, "value", cls.answer_type)), cls.description))
    return out


class _TasksPackage(types.ModuleType):
    """`vcot.tasks()` is the public listing (README.md, "From Python") and `vcot.tasks` this package: once the
    package is imported it is the attribute of `vcot`, so the package itself answers the call."""

    def __call__(self) -> list[TaskInfo]:
        return task_infos()


sys.modules[__name__].__class__ = _TasksPackage


__all__ = [
    "GenContext",
    "GenerationError",
    "Reject",
    "Sample",
    "Solution",
    "Task",
    "TaskInfo",
    "register",
    "get_task",
    "get_task_class",
    "is_task_name",
    "task_infos",
    "task_names",
    "UnknownTaskError",
    "MIRA_TASKS",
]
