"""mirror_pattern: the step draws the reflected pattern; the probe asks for the colour of its top-left cell.
The reflected pattern is the candidate the answer letter names (the solver checks it is the only match)."""

from __future__ import annotations

from vcot.probes.base import Probe, meta
from vcot.schema import AnswerType, Instance, option_letters


def build(inst: Instance) -> list[Probe]:
    scene, _, _ = meta(inst)
    grid = scene["candidates"][option_letters(len(scene["candidates"])).index(inst.answer)]
    colour = scene["colors"][grid[0][0]]
    q = (
        "Reflect the top pattern as the question says. What colour is the top-left cell of the reflected "
        "pattern? Answer with one colour word."
    )
    return [Probe(k, q, colour, AnswerType.TEXT, "reflected_cell") for k in range(1, len(inst.steps) + 1)]
