"""robot_program: the starting table, stack by stack (see `_robot.py`)."""

from __future__ import annotations

from typing import Any

from vcot.captions._robot import table


def caption(scene: dict[str, Any]) -> str:
    return "A robot arm at a table seen from above. " + table(scene["blocks"], scene["size"])
