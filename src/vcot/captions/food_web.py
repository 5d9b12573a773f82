"""food_web: every species by row and what each animal eats (the arrows into it)."""

from __future__ import annotations

from typing import Any


def caption(scene: dict[str, Any]) -> str:
    rows: dict[int, list[str]] = {}
    for s in sorted(scene["species"], key=lambda s: (s["level"], s["slot"])):
        rows.setdefault(s["level"], []).append(s["name"])
    food: dict[str, list[str]] = {}
    for a, b in scene["eats"]:
        food.setdefault(b, []).append(a)
    parts = [f"A food web drawn in {len(rows)} rows of labelled boxes, arrows pointing from food to eater."]
    parts += [f"Row {lvl + 1} from the bottom: {', '.join(names)}." for lvl, names in sorted(rows.items())]
    parts.append(
        "Arrows: " + "; ".join(f"into the {b} from the {', '.join(sorted(fs))}" for b, fs in sorted(food.items())) + "."
    )
    return " ".join(parts)
