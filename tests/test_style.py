"""The code stays as formatted once (issue 45): ruff's lint rules, the 120-column line length among them, and
ruff's formatter, both as configured in pyproject.toml (ruff pinned in the dev extra: formatting differs between
versions)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PATHS = ["src", "tests", "benchmarks", "examples"]


def _ruff() -> list[str]:
    found = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
    if found is None:
        pytest.skip("ruff is not installed (pip install -e '.[dev]')")
    return [found]


def test_lint_rules_hold_line_length_included() -> None:
    done = subprocess.run(
        [*_ruff(), "check", "--output-format", "concise", *PATHS], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]


def test_code_is_formatted() -> None:
    done = subprocess.run(
        [*_ruff(), "format", "--check", *PATHS], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, "run `ruff format src tests benchmarks examples`:\n" + done.stdout[-4000:]
