"""paper_airplane: the area of the folded paper's outline after fold k (states[k] is that outline)."""

from __future__ import annotations

from fractions import Fraction

from vcot.probes.base import Probe, meta, number_text
from vcot.schema import AnswerType, Instance


def polygon_area(points: list[list[float]]) -> Fraction:
    """Shoelace area of a simple polygon with exact rational arithmetic."""
    pts = [(Fraction(str(x)), Fraction(str(y))) for x, y in points]
    s = sum(x0 * y1 - x1 * y0 for (x0, y0), (x1, y1) in zip(pts, pts[1:] + pts[:1], strict=True))
    return abs(s) / 2


def build(inst: Instance) -> list[Probe]:
    _, states, _ = meta(inst)
    out = []
    for k in range(1, len(inst.steps) + 1):
        area = polygon_area(states[k])
        q = (
            f"Look at the outline of the folded paper (all layers together, seen from above) right after fold "
            f"{k}. What is the area it covers on the table, in square units? Answer with a number."
        )
        out.append(Probe(k, q, number_text(area), AnswerType.NUMBER, "outline_area"))
    return out
