"""robot_state_change: the table before and after, stack by stack (see `_robot.py`)."""

from __future__ import annotations

from typing import Any

from vcot.captions._robot import table


def caption(scene: dict[str, Any]) -> str:
    return (
        "Two panels of a robot arm's table seen from above. Before: "
        + table(scene["before"], scene["size"])
        + " After: "
        + table(scene["after"], scene["size"])
    )
