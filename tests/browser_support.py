"""Headless Debian chromium for the browser tests, driven by playwright with `executable_path` (a downloaded
browser build is not possible on the project's machines). A test calls `require_browser()` first: it skips when
chromium or playwright is missing, and fails instead when VCOT_REQUIRE_BROWSER=1 (as in CI)."""

from __future__ import annotations

import importlib.util
import os
import shutil
from typing import Any

import pytest

ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def chromium_path() -> str | None:
    return (
        shutil.which("chromium")
        or shutil.which("chromium-browser")
        or ("/usr/bin/chromium" if os.path.exists("/usr/bin/chromium") else None)
    )


def browser_missing() -> str | None:
    if chromium_path() is None:
        return "Debian's chromium is not installed (apt-get install chromium)"
    if importlib.util.find_spec("playwright") is None:
        return "playwright (pip) is not installed"
    return None


def require_browser() -> None:
    reason = browser_missing()
    if reason:
        if os.environ.get("VCOT_REQUIRE_BROWSER") == "1":
            pytest.fail(f"VCOT_REQUIRE_BROWSER=1 but {reason}")
        pytest.skip(reason)


def launch(playwright: Any) -> Any:
    """A headless chromium browser from a started `sync_playwright()`."""
    return playwright.chromium.launch(executable_path=chromium_path(), args=ARGS)
