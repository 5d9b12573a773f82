"""Probe test fixtures: a suite of one instance per probed task, and a mock server knowing it."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from probe_fixtures import write_probe_suite  # noqa: E402


@pytest.fixture(scope="session")
def probe_suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_probe_suite(tmp_path_factory.mktemp("probe-suites") / "s")


@pytest.fixture(scope="session")
def probe_mock(probe_suite: Path):
    from vcot.engine.mock import spawn_mock_server

    handle = spawn_mock_server(probe_suite)
    yield handle
    handle.stop()
