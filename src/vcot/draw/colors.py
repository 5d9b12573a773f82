"""Named colours shared by all tasks, chosen to stay distinct for colour-blind-safe reading where possible."""

from __future__ import annotations

Color = tuple[int, int, int]

PALETTE: dict[str, Color] = {
    "white": (255, 255, 255),
    "black": (0, 0, 0),
    "gray": (128, 128, 128),
    "lightgray": (215, 215, 215),
    "darkgray": (70, 70, 70),
    "red": (213, 40, 40),
    "blue": (31, 90, 200),
    "green": (30, 150, 60),
    "orange": (240, 140, 20),
    "purple": (130, 60, 170),
    "brown": (140, 90, 40),
    "pink": (230, 110, 170),
    "cyan": (20, 170, 190),
    "yellow": (235, 200, 30),
    "lightblue": (170, 200, 240),
    "lightred": (245, 180, 180),
    "lightgreen": (180, 230, 180),
    "lightyellow": (250, 240, 190),
}


def rgb(color: str | Color) -> Color:
    """Resolve a palette name or an RGB triple; raises KeyError naming an unknown colour."""
    if isinstance(color, str):
        try:
            return PALETTE[color]
        except KeyError:
            raise KeyError(f"unknown colour {color!r}; known: {sorted(PALETTE)}") from None
    r, g, b = color
    return (int(r), int(g), int(b))
