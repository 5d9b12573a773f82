"""Engine test fixtures: small suites built directly from Instances, and a mock server in a child process."""

from __future__ import annotations

from pathlib import Path

import pytest
from engine_fixtures import write_test_suite


@pytest.fixture(scope="session")
def suite_small(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_test_suite(tmp_path_factory.mktemp("suites") / "small", 12, seed=1, big_first=True)


@pytest.fixture(scope="session")
def suite_large(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_test_suite(tmp_path_factory.mktemp("suites") / "large", 300, seed=2)


@pytest.fixture(scope="session")
def mock(suite_large: Path):
    """One mock server for the session, knowing the large suite; tests reconfigure it via /config."""
    from vcot.engine.mock import spawn_mock_server

    handle = spawn_mock_server(suite_large)
    # The tests also run suite_small (and hand-made requests) against it: answered, not a 404 (unknown).
    handle.configure(unknown="answer")
    yield handle
    handle.stop()


@pytest.fixture
def server(mock):
    """The session server reset to a clean, fault-free, zero-latency state."""
    mock.configure(
        p=0.5,
        p_by_condition={},
        latency_s=0.0,
        fault_rate=0.0,
        script=[],
        seed=0,
        retry_after_s=0.05,
        hang_s=30.0,
        truncate_rate=0.0,
        faults=["429", "500", "timeout", "malformed", "truncated", "drop"],
        unknown="answer",
    )
    mock.reset()
    return mock
