"""What a registered task must bring besides its generator, and which of it is missing (docs/design.md, "A new
task"). `tests/test_task_completeness.py` holds every task to it.

The check reads a repository tree — `src/vcot/...`, `docs/tasks/...`, `tests/...` under one root — so that a
test of the test can run it on a copy of the tree with one piece removed. Run as a script it checks the tree
it is given (`python tests/task_pieces.py ROOT`, with ROOT's `src` on `PYTHONPATH`) and prints one JSON object
{"vcot": the package it checked, "missing": {task: [missing piece, ...]}}.
"""

from __future__ import annotations

import ast
import importlib
import json
import re
import sys
from pathlib import Path

# The pieces, in the order docs/design.md lists them.
PIECES = (
    "generator",
    "oracle",
    "state probes",
    "caption",
    "text-CoT guide",
    "colour roles",
    "shortcuts",
    "task doc",
    "catalog entry",
    "See2Think category",
    "generator tests",
    "oracle test",
)


def builtin_task_names() -> list[str]:
    """The tasks vcot itself registers (tests register toy tasks of their own, which need no pieces)."""
    from vcot.tasks import get_task_class, task_names

    return [n for n in task_names() if get_task_class(n).__module__.startswith("vcot.tasks.")]


def _defines(path: Path, name: str) -> bool:
    """Whether the module file binds `name` at its top level (a function, class or assignment)."""
    if not path.is_file():
        return False
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.ClassDef) and node.name == name:
            return True
        if isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == name for t in targets):
                return True
        if isinstance(node, ast.ImportFrom) and any((a.asname or a.name) == name for a in node.names):
            return True
    return False


def _test_names(path: Path) -> list[str]:
    if not path.is_file():
        return []
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    return [n.name for n in tree.body if isinstance(n, ast.FunctionDef) and n.name.startswith("test_")]


def missing_pieces(task: str, root: Path) -> list[str]:
    """The pieces `task` lacks in the tree at `root`, each as "piece: what is missing"."""
    from vcot.analysis.shortcuts import NO_SHORTCUTS
    from vcot.prompts.text_cot_spec import GUIDES
    from vcot.tasks import get_task_class
    from vcot.tasks.catalog import MIRA_TASKS
    from vcot.tasks.colour_roles import DECORATION, INFORMATION, REASONS, SECOND_CUE
    from vcot.tasks.see2think_categories import CATEGORY_TASKS

    src = root / "src" / "vcot"
    cls = get_task_class(task)
    out: list[str] = []
    parts = cls.__module__.split(".")
    if len(parts) != 4 or parts[-1] != task or not (src / "tasks" / parts[2] / f"{task}.py").is_file():
        out.append(f"generator: the task is defined in {cls.__module__}, not in its own file tasks/<domain>/{task}.py")
    if not _defines(src / "oracles" / f"{task}.py", "answer"):
        out.append(f"oracle: src/vcot/oracles/{task}.py with answer(scene, params)")
    if not _defines(src / "probes" / f"{task}.py", "build"):
        out.append(f"state probes: src/vcot/probes/{task}.py with build(instance)")
    if not _defines(src / "captions" / f"{task}.py", "caption"):
        out.append(f"caption: src/vcot/captions/{task}.py with caption(scene)")
    if not str(GUIDES.get(task, "")).strip():
        out.append(f"text-CoT guide: GUIDES[{task!r}] in src/vcot/prompts/text_cot_spec.py")
    colour = [
        t
        for t, table in (("INFORMATION", INFORMATION), ("DECORATION", DECORATION), ("REASONS", REASONS))
        if task not in table
    ]
    if task in INFORMATION and len(INFORMATION[task]) >= 2 and task not in SECOND_CUE:
        colour.append("SECOND_CUE")
    if colour:
        out.append(f"colour roles: {', '.join(colour)}[{task!r}] in src/vcot/tasks/colour_roles.py")
    has_module = _defines(src / "analysis" / "shortcuts" / f"{task}.py", "HEURISTICS")
    if has_module == bool(str(NO_SHORTCUTS.get(task, "")).strip()):
        out.append(
            f"shortcuts: src/vcot/analysis/shortcuts/{task}.py with HEURISTICS, or (only) a reason in "
            "NO_SHORTCUTS of src/vcot/analysis/shortcuts/__init__.py"
        )
    doc = root / "docs" / "tasks" / f"{task}.md"
    index = root / "docs" / "tasks" / "README.md"
    if not doc.is_file():
        out.append(f"task doc: docs/tasks/{task}.md")
    elif not index.is_file() or not re.search(rf"\]\({re.escape(task)}\.md\)", index.read_text(encoding="utf-8")):
        out.append(f"task doc: a link to {task}.md in docs/tasks/README.md")
    if task in MIRA_TASKS and MIRA_TASKS[task] != (cls.domain, cls.answer_type):
        out.append(
            f"catalog entry: MIRA_TASKS[{task!r}] in src/vcot/tasks/catalog.py says {MIRA_TASKS[task]}, "
            f"the task class ({cls.domain}, {cls.answer_type})"
        )
    if not any(task in tasks for tasks in CATEGORY_TASKS.values()):
        out.append(f"See2Think category: {task!r} in CATEGORY_TASKS of src/vcot/tasks/see2think_categories.py")
    tests = _test_names(root / "tests" / "tasks" / f"test_{task}.py")
    if not any("hand" in t for t in tests):
        out.append(f"generator tests: tests/tasks/test_{task}.py with hand-worked examples (a test_hand... test)")
    if not _test_names(root / "tests" / "oracles" / f"test_{task}.py"):
        out.append(f"oracle test: tests/oracles/test_{task}.py")
    return out


if __name__ == "__main__":
    tree = Path(sys.argv[1]).resolve()
    package = importlib.import_module("vcot").__file__
    print(json.dumps({"vcot": package, "missing": {t: missing_pieces(t, tree) for t in builtin_task_names()}}))
