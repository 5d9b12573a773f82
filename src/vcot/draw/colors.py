"""Named colours shared by all tasks.

The hues keep their names (questions and step texts name colours), and the saturated colours and light tints
were tuned so that every pair of colours some task must tell apart (`vcot.tasks.colour_roles.INFORMATION`)
stays at least 10 CIEDE2000 units apart under normal vision and under simulated protanopia, deuteranopia
and tritanopia; `tests/test_colour_vision.py` checks it and docs/tasks/README.md ("Colour") gives the rule.
Red, green and brown differ in lightness as well as hue, because the red-green dichromacies see them along
one yellow-to-dark line; blue and purple likewise. Change a value only with that test passing.
"""

from __future__ import annotations

Color = tuple[int, int, int]

PALETTE: dict[str, Color] = {
    "white": (255, 255, 255),
    "black": (0, 0, 0),
    "gray": (128, 128, 128),
    "lightgray": (215, 215, 215),
    "darkgray": (70, 70, 70),
    "red": (229, 15, 65),
    "blue": (0, 96, 245),
    "green": (0, 134, 80),
    "orange": (240, 140, 20),
    "purple": (123, 55, 146),
    "brown": (139, 81, 20),
    "pink": (230, 110, 170),
    "cyan": (20, 170, 190),
    "yellow": (245, 208, 43),
    "lightblue": (168, 200, 250),
    "lightred": (245, 180, 180),
    "lightgreen": (202, 255, 181),
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
