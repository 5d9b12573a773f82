"""robot_state_change oracle: replay every option over stacks of block names per cell (`_robot.py`) from the
Before panel and keep the one whose stacks equal the After panel's; an option the rules forbid fits nothing."""

from __future__ import annotations

from typing import Any

from vcot.oracles._robot import Impossible, run, stacks_of


def answer(scene: dict[str, Any], params: dict[str, Any]) -> str:
    size = (int(scene["size"][0]), int(scene["size"][1]))
    before, after = stacks_of(scene["before"]), stacks_of(scene["after"])
    fits = []
    for i, program in enumerate(scene["options"]):
        try:
            if run(before, program, size) == after:
                fits.append(i)
        except Impossible:
            continue
    if len(fits) != 1:
        raise ValueError(f"{len(fits)} options fit the change")
    return "ABCDEFGH"[fits[0]]
