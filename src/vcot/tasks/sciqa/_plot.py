"""Drawing helpers the Science QA tasks share: exact numbers as short text and a table of lines under a picture."""

from __future__ import annotations

from fractions import Fraction

from PIL import Image

from vcot.draw.canvas import Canvas

TABLE_FONT = 16
TABLE_ROW = 24


def frac_text(value: Fraction | int) -> str:
    """An exact value as a person writes it: 3, -3, 7/2, -8/3 (a true minus sign, so no number reads as a
    hyphenated word)."""
    v = Fraction(value)
    sign = "−" if v < 0 else ""
    v = abs(v)
    body = str(v.numerator) if v.denominator == 1 else f"{v.numerator}/{v.denominator}"
    return sign + body


def signed_text(value: Fraction | int) -> str:
    """Like `frac_text` with an explicit plus sign on positive values."""
    return ("+" if Fraction(value) > 0 else "") + frac_text(value)


def over_table(picture: Image.Image, title: str, rows: list[str]) -> Image.Image:
    """The picture above a table: a bold title line and one line per row, at a size a person reads easily."""
    height = picture.height + 16 + TABLE_ROW * (len(rows) + 1) + 10
    c = Canvas(picture.width, height)
    c.paste(picture, (0, 0))
    y = picture.height + 10
    c.text((16, y), title, size=TABLE_FONT, bold=True)
    for row in rows:
        y += TABLE_ROW
        c.text((16, y), row, size=TABLE_FONT)
    return c.image()
