"""rolling_dice_sum: the face touching the board (bottom) after roll k, the number the task sums."""

from __future__ import annotations

from vcot.probes.base import Probe
from vcot.probes.rolling_dice_top import face_after_roll
from vcot.schema import Instance


def build(inst: Instance) -> list[Probe]:
    return face_after_roll(inst, "bottom", "bottom_face")
