"""robot_program oracle: replay the program over stacks of block names per cell (`_robot.py`), not over the
generator's per-block coordinates, and name the asked block's cell."""

from __future__ import annotations

from typing import Any

from vcot.oracles._robot import run, stacks_of


def answer(scene: dict[str, Any], params: dict[str, Any]) -> str:
    size = (int(scene["size"][0]), int(scene["size"][1]))
    final = run(stacks_of(scene["blocks"]), scene["program"], size)
    col, row = next(cell for cell, stack in final.items() if scene["asked"] in stack)
    return f"{'abcdefgh'[col]}{row + 1}"
