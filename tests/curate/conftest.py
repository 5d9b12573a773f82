from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))


@pytest.fixture(scope="module")
def mock():
    """A mock server playing captioner, reasoner, judge and rewriter (its `curate.*` roles)."""
    from vcot.engine.mock import spawn_mock_server

    handle = spawn_mock_server(None)
    handle.configure(curation_leak_uids=["toy-q005"], curation_fail_uids=["toy-q010"])
    yield handle
    handle.stop()
