"""Canvas: anti-aliased vector drawing and text on an RGB image.

Coordinates are pixels with the origin at the top-left, x to the right, y down. All shapes are
anti-aliased. Text uses the bundled DejaVu Sans, so pixels are identical on every machine with the same
aggdraw and Pillow versions.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from functools import lru_cache
from importlib import resources

import aggdraw
from PIL import Image

from vcot.draw.colors import Color, rgb
from vcot.draw.png import encode_png

Point = tuple[float, float]
ColorLike = str | Color

_FONT_FILES = {False: "DejaVuSans.ttf", True: "DejaVuSans-Bold.ttf"}

# Every text drawn through this layer is recorded in the picture's `info` under this key, so the generator
# contract can check that no step picture writes the answer (`vcot.tasks.answer_leaks`). Pillow copies
# `info` through copy/convert/crop/resize; `paste` and `hstack` merge it. The PNG encoder ignores it, so
# pixels and hashes do not change.
LABELS_KEY = "vcot_labels"


def drawn_labels(image: Image.Image) -> tuple[str, ...] | None:
    """The texts drawn on `image` through this layer, or None when it was not made by it."""
    labels = image.info.get(LABELS_KEY)
    return tuple(labels) if labels is not None else None


# Anchors: first letter horizontal (l, m, r), second vertical (t, m, b), as in Pillow.
_H = {"l": 0.0, "m": 0.5, "r": 1.0}
_V = {"t": 0.0, "m": 0.5, "b": 1.0}


def font_path(bold: bool = False) -> str:
    return str(resources.files("vcot.draw") / "fonts" / _FONT_FILES[bold])


@lru_cache(maxsize=256)
def _font(color: Color, size: int, bold: bool) -> aggdraw.Font:
    return aggdraw.Font(color, font_path(bold), size)


@lru_cache(maxsize=256)
def _pen(color: Color, width: float, opacity: int) -> aggdraw.Pen:
    return aggdraw.Pen(color, width, opacity)


@lru_cache(maxsize=256)
def _brush(color: Color, opacity: int) -> aggdraw.Brush:
    return aggdraw.Brush(color, opacity)


def _flat(points: Iterable[Point]) -> list[float]:
    out: list[float] = []
    for x, y in points:
        out.append(float(x))
        out.append(float(y))
    return out


class Canvas:
    """A drawing surface. Call `image()` (or `png()`) when done; further drawing is still allowed."""

    def __init__(self, width: int, height: int, background: ColorLike = "white") -> None:
        if width <= 0 or height <= 0:
            raise ValueError(f"canvas size must be positive, got {width}x{height}")
        self.width = int(width)
        self.height = int(height)
        self._image = Image.new("RGB", (self.width, self.height), rgb(background))
        self._draw = aggdraw.Draw(self._image)
        self.labels: list[str] = []

    @classmethod
    def from_image(cls, image: Image.Image) -> Canvas:
        canvas = cls.__new__(cls)
        canvas.width, canvas.height = image.size
        canvas._image = image.convert("RGB").copy()
        canvas._draw = aggdraw.Draw(canvas._image)
        canvas.labels = list(drawn_labels(image) or ())
        return canvas

    # -- shapes -------------------------------------------------------------------------------------

    def line(
        self,
        points: Sequence[Point],
        color: ColorLike = "black",
        width: float = 2.0,
        opacity: int = 255,
        dash: tuple[float, float] | None = None,
    ) -> None:
        """A polyline through `points`; `dash=(on, off)` draws it dashed."""
        if len(points) < 2:
            raise ValueError("a line needs at least two points")
        pen = _pen(rgb(color), float(width), int(opacity))
        if dash is None:
            self._draw.line(_flat(points), pen)
            return
        for a, b in zip(points[:-1], points[1:], strict=True):
            for seg in _dash_segments(a, b, dash):
                self._draw.line(_flat(seg), pen)

    def polygon(
        self,
        points: Sequence[Point],
        fill: ColorLike | None = None,
        outline: ColorLike | None = "black",
        width: float = 2.0,
        fill_opacity: int = 255,
    ) -> None:
        if len(points) < 3:
            raise ValueError("a polygon needs at least three points")
        pen = _pen(rgb(outline), float(width), 255) if outline is not None else None
        brush = _brush(rgb(fill), int(fill_opacity)) if fill is not None else None
        args = [a for a in (pen, brush) if a is not None]
        self._draw.polygon(_flat(points), *args)

    def rect(
        self,
        box: tuple[float, float, float, float],
        fill: ColorLike | None = None,
        outline: ColorLike | None = "black",
        width: float = 2.0,
        fill_opacity: int = 255,
    ) -> None:
        x0, y0, x1, y1 = box
        self.polygon([(x0, y0), (x1, y0), (x1, y1), (x0, y1)], fill, outline, width, fill_opacity)

    def circle(
        self,
        center: Point,
        radius: float,
        fill: ColorLike | None = None,
        outline: ColorLike | None = "black",
        width: float = 2.0,
        fill_opacity: int = 255,
    ) -> None:
        cx, cy = center
        pen = _pen(rgb(outline), float(width), 255) if outline is not None else None
        brush = _brush(rgb(fill), int(fill_opacity)) if fill is not None else None
        args = [a for a in (pen, brush) if a is not None]
        self._draw.ellipse((cx - radius, cy - radius, cx + radius, cy + radius), *args)

    def arc(
        self,
        center: Point,
        radius: float,
        start_deg: float,
        end_deg: float,
        color: ColorLike = "black",
        width: float = 2.0,
        segments: int = 48,
    ) -> None:
        """Circular arc; angles in degrees, counter-clockwise on screen from the +x axis."""
        cx, cy = center
        pts = []
        for i in range(segments + 1):
            a = math.radians(start_deg + (end_deg - start_deg) * i / segments)
            pts.append((cx + radius * math.cos(a), cy - radius * math.sin(a)))
        self.line(pts, color, width)

    def arrow(
        self,
        start: Point,
        end: Point,
        color: ColorLike = "black",
        width: float = 3.0,
        head: float | None = None,
        dash: tuple[float, float] | None = None,
    ) -> None:
        """A shaft from start to end with a filled triangular head whose tip is exactly at `end`."""
        head = head if head is not None else max(8.0, 3.5 * width)
        (x0, y0), (x1, y1) = start, end
        length = math.hypot(x1 - x0, y1 - y0)
        if length == 0:
            return
        ux, uy = (x1 - x0) / length, (y1 - y0) / length
        head = min(head, length)
        bx, by = x1 - ux * head, y1 - uy * head
        self.line([(x0, y0), (bx + ux * 0.5, by + uy * 0.5)], color, width, dash=dash)
        half = head * 0.5
        self.polygon(
            [(x1, y1), (bx - uy * half, by + ux * half), (bx + uy * half, by - ux * half)], fill=color, outline=None
        )

    # -- text ---------------------------------------------------------------------------------------

    def text_size(self, text: str, size: int = 16, bold: bool = False) -> tuple[float, float]:
        w, h = self._draw.textsize(text, _font((0, 0, 0), int(size), bold))
        return float(w), float(h)

    def text(
        self,
        pos: Point,
        text: str,
        size: int = 16,
        color: ColorLike = "black",
        anchor: str = "lt",
        bold: bool = False,
        background: ColorLike | None = None,
        padding: float = 2.0,
    ) -> tuple[float, float, float, float]:
        """Draw one line of text anchored at `pos`; returns its bounding box (x0, y0, x1, y1)."""
        if len(anchor) != 2 or anchor[0] not in _H or anchor[1] not in _V:
            raise ValueError(f"anchor {anchor!r} must be two letters from 'lmr' and 'tmb'")
        font = _font(rgb(color), int(size), bold)
        w, h = self._draw.textsize(text, font)
        x = pos[0] - _H[anchor[0]] * w
        y = pos[1] - _V[anchor[1]] * h
        box = (x - padding, y - padding, x + w + padding, y + h + padding)
        if background is not None:
            self.rect(box, fill=background, outline=None)
        self._draw.text((x, y), text, font)
        self.labels.append(text)
        return box

    # -- raster -------------------------------------------------------------------------------------

    def paste(self, image: Image.Image, xy: tuple[int, int]) -> None:
        """Paste another picture (e.g. a candidate panel) at integer position xy."""
        self._draw.flush()
        self._image.paste(image.convert("RGB"), (int(xy[0]), int(xy[1])))
        self._draw = aggdraw.Draw(self._image)
        self.labels.extend(drawn_labels(image) or ())

    def image(self) -> Image.Image:
        """The current picture (a copy; the canvas stays usable)."""
        self._draw.flush()
        out = self._image.copy()
        out.info[LABELS_KEY] = tuple(self.labels)
        return out

    def png(self) -> bytes:
        return encode_png(self.image())


def _dash_segments(a: Point, b: Point, dash: tuple[float, float]) -> list[tuple[Point, Point]]:
    on, off = dash
    if on <= 0 or off < 0:
        raise ValueError(f"dash pattern {dash} must have on > 0 and off >= 0")
    (x0, y0), (x1, y1) = a, b
    length = math.hypot(x1 - x0, y1 - y0)
    if length == 0:
        return []
    ux, uy = (x1 - x0) / length, (y1 - y0) / length
    segs = []
    t = 0.0
    while t < length:
        t_end = min(t + on, length)
        segs.append(((x0 + ux * t, y0 + uy * t), (x0 + ux * t_end, y0 + uy * t_end)))
        t = t_end + off
    return segs


def hstack(images: Sequence[Image.Image], gap: int = 10, background: ColorLike = "white") -> Image.Image:
    """Place pictures side by side, top-aligned."""
    width = sum(im.width for im in images) + gap * (len(images) - 1)
    height = max(im.height for im in images)
    out = Image.new("RGB", (width, height), rgb(background))
    x = 0
    for im in images:
        out.paste(im.convert("RGB"), (x, 0))
        x += im.width + gap
    out.info[LABELS_KEY] = tuple(label for im in images for label in (drawn_labels(im) or ()))
    return out
