"""Fixtures of the human-study tests; the suite they use is built in `human_fixtures.py`."""

from __future__ import annotations

from pathlib import Path

import pytest
from human_fixtures import build_suite


@pytest.fixture
def suite_dir(tmp_path: Path) -> Path:
    return build_suite(tmp_path / "suite")
