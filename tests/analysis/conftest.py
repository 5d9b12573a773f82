"""The report's thumbnail cache (`vcot.analysis.thumbnails`) lives in the user's cache folder; the tests here
give each test its own, so nothing is left in the home folder and no test reads another's thumbnails."""

from __future__ import annotations

from pathlib import Path

import pytest

from vcot.analysis.thumbnails import CACHE_ENV


@pytest.fixture(autouse=True)
def _own_thumbnail_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path_factory.mktemp("vcot-cache")
    monkeypatch.setenv(CACHE_ENV, str(folder))
    return folder
