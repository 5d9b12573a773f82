"""Oracles share no solving code with the generators: they import nothing from vcot.tasks but the catalog."""

from __future__ import annotations

import ast
from pathlib import Path

import vcot.oracles

ROOT = Path(vcot.oracles.__file__).parent


def test_oracles_import_no_generator_code() -> None:
    for path in ROOT.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
                if node.module == "vcot":  # `from vcot import tasks`
                    names = [f"vcot.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            for name in names:
                assert not name.startswith("vcot.tasks") or name == "vcot.tasks.catalog", (path.name, name)
