"""vcot's subpackages and top-level modules form layers: no import cycle among them (`docs/design.md`).

Every import counts, including those inside functions: a lazy import is still a dependency, and a cycle
through one is a cycle a later edit can turn into an import-time failure.
"""

from __future__ import annotations

import ast
from pathlib import Path

import vcot

ROOT = Path(vcot.__file__).parent


def _unit(module: str, root: Path = ROOT) -> str | None:
    """`vcot.engine.runner` → `engine`; `vcot.schema` → `schema`; anything outside vcot, or a name of
    vcot's own `__init__` (`from vcot import __version__`), → None."""
    parts = module.split(".")
    if parts[0] != "vcot" or len(parts) < 2:
        return None
    if not ((root / parts[1]).is_dir() or (root / f"{parts[1]}.py").is_file()):
        return None
    return parts[1]


def _module_name(path: Path, root: Path) -> str:
    rel = path.relative_to(root.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def import_graph(root: Path = ROOT) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for path in root.rglob("*.py"):
        name = _module_name(path, root)
        src_unit = _unit(name, root)
        if src_unit is None:
            continue
        package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - node.level + 1]
                    targets = [".".join([*base, node.module] if node.module else base)]
                elif node.module:
                    targets = [node.module]
                if targets and targets[0] == "vcot":  # `from vcot import x`: x is the unit
                    targets = [f"vcot.{a.name}" for a in node.names]
            for t in targets:
                unit = _unit(t, root)
                if unit is not None and unit != src_unit:
                    graph.setdefault(src_unit, set()).add(unit)
        graph.setdefault(src_unit, set())
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle as a path [a, b, ..., a], or None."""
    state: dict[str, int] = {}  # 1: on the stack, 2: done
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt) :] + [nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return None


def test_no_import_cycle_among_subpackages() -> None:
    cycle = find_cycle(import_graph())
    assert cycle is None, "import cycle among vcot's subpackages: " + " → ".join(cycle or [])


def test_cycle_finder_sees_a_cycle_through_a_lazy_import(tmp_path: Path) -> None:
    pkg = tmp_path / "vcot"
    (pkg / "a").mkdir(parents=True)
    (pkg / "b").mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a" / "__init__.py").write_text("from vcot.b import thing\n")
    (pkg / "b" / "__init__.py").write_text("def f():\n    from ..a import other\n")
    graph = import_graph(pkg)
    assert graph == {"a": {"b"}, "b": {"a"}}
    assert find_cycle(graph) in (["a", "b", "a"], ["b", "a", "b"])


def test_low_layers_import_nothing_above_them() -> None:
    """The shared vocabulary and the generators stay free of evaluation code."""
    graph = import_graph()
    evaluation = {
        "engine",
        "conditions",
        "scoring",
        "analysis",
        "cli",
        "export",
        "annotate",
        "human",
        "local_site",
        "rl",
    }
    for unit in ("schema", "messages", "images", "seeding", "draw", "tasks", "vaot", "prompts"):
        assert not (graph.get(unit, set()) & evaluation), (unit, graph.get(unit))


def test_rl_sits_above_what_it_builds_on() -> None:
    """Training support uses the generators, prompts, grader and VAoT renderer; none of them may use it."""
    graph = import_graph()
    # `process` (labelled trajectories) sits in the training layer beside rl and reads its streams' seeds and
    # exclusion; nothing below the training layer may use either.
    users = sorted(unit for unit, deps in graph.items() if "rl" in deps and unit not in ("rl", "cli", "process"))
    assert not users, users
    assert {"tasks", "scoring", "conditions", "vaot", "probes"} <= graph.get("rl", set())
    # The commands (cli, and api's `report`, which adds the step-judging section) sit above it.
    assert not sorted(unit for unit, deps in graph.items() if "process" in deps and unit not in ("cli", "api"))
