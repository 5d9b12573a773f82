"""Drawing helpers the Intuitive Physics tasks share: a world-to-picture frame, a hatched floor, labelled lists."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Frame:
    """Maps world coordinates (y up) to picture pixels (y down): x0..x1 by y0..y1 drawn at `scale` px a unit,
    with `pad` pixels around."""

    x0: float
    y0: float
    x1: float
    y1: float
    scale: float
    pad: int = 20
    top: int = 0  # extra pixels above the world (a title line)

    @property
    def width(self) -> int:
        return int(round((self.x1 - self.x0) * self.scale)) + 2 * self.pad

    @property
    def height(self) -> int:
        return int(round((self.y1 - self.y0) * self.scale)) + 2 * self.pad + self.top

    def px(self, x: float, y: float) -> tuple[float, float]:
        return (self.pad + (x - self.x0) * self.scale, self.top + self.pad + (self.y1 - y) * self.scale)


def names(items: Sequence[str]) -> str:
    """'A', 'A and B', 'A, B and C'."""
    if not items:
        raise ValueError("no items to name")
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]
