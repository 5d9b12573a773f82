"""Rasterise the SVG that RDKit's `MolDraw2DSVG` writes, with aggdraw (vcot's own anti-aliased renderer).

RDKit's Cairo drawer would give a PNG directly, but encoding and decoding that PNG costs several times the
drawing itself, which the training streams cannot afford (benchmarks/chem_throughput.py). RDKit's SVG holds
only what its drawing code decided — positions, bond lines, the glyph outlines of every label (FreeType text
is written as paths), highlight shapes — in a small subset of SVG: `rect`, `ellipse` and `path` with the
commands M, L, Q and Z (aggdraw's symbols read that path data), filled or stroked with a solid colour. This module
draws that subset and refuses
anything else, so a change in RDKit's output fails loudly rather than drawing a wrong picture.
"""

from __future__ import annotations

import re

import aggdraw
from PIL import Image

_ELEMENT = re.compile(r"<(rect|ellipse|path)\s([^>]*?)/?>")
_OTHER = re.compile(r"<(?!/|\?|!|svg|rect|ellipse|path)(\w+)")
_ATTR = re.compile(r"([\w:-]+)='([^']*)'")
_COMMAND = re.compile(r"[A-DF-KN-PR-Ya-df-z]")


class UnsupportedSvg(ValueError):
    """RDKit wrote an SVG element or path command this rasteriser does not draw."""


def _style(style: str) -> dict[str, str]:
    return dict(part.split(":", 1) for part in style.split(";") if ":" in part)


def _colour(value: str) -> tuple[int, int, int] | None:
    if value == "none":
        return None
    if not re.fullmatch(r"#[0-9A-Fa-f]{6}", value):
        raise UnsupportedSvg(f"colour {value!r}")
    return int(value[1:3], 16), int(value[3:5], 16), int(value[5:7], 16)


def _symbol(d: str) -> aggdraw.Symbol:
    """An RDKit path as an aggdraw symbol (aggdraw parses SVG path data itself); only M, L, Q and Z expected."""
    if m := _COMMAND.search(d):
        raise UnsupportedSvg(f"path command {m.group(0)!r}")
    return aggdraw.Symbol(d)


def rasterise(svg: str) -> Image.Image:
    """The picture an RDKit SVG describes, as an RGB image of its declared size."""
    if m := _OTHER.search(svg):
        raise UnsupportedSvg(f"element <{m.group(1)}>")
    size = re.search(r"<svg[^>]*width='(\d+)px' height='(\d+)px'", svg)
    if size is None:
        raise UnsupportedSvg("no pixel size")
    dims = (int(size.group(1)), int(size.group(2)))
    # aggdraw's own buffer, copied into an image once at the end (drawing on a Pillow image copies it in too).
    draw = aggdraw.Draw("RGB", dims, (255, 255, 255))
    for kind, attrs in _ELEMENT.findall(svg):
        a = dict(_ATTR.findall(attrs))
        st = _style(a.get("style", ""))
        # Bond and highlight shapes carry their colours in `style`; glyph outlines in a `fill` attribute.
        fill = _colour(st.get("fill", a.get("fill", "none")))
        stroke = _colour(st.get("stroke", "none"))
        width = float(st.get("stroke-width", "1px").removesuffix("px"))
        brush = aggdraw.Brush(fill) if fill else None
        pen = aggdraw.Pen(stroke, width) if stroke and width > 0 else None
        if kind == "rect":
            x, y = float(a.get("x", 0)), float(a.get("y", 0))
            draw.rectangle((x, y, x + float(a["width"]), y + float(a["height"])), pen, brush)
        elif kind == "ellipse":
            cx, cy, rx, ry = (float(a[k]) for k in ("cx", "cy", "rx", "ry"))
            draw.ellipse((cx - rx, cy - ry, cx + rx, cy + ry), pen, brush)
        else:
            if pen is not None or brush is not None:
                draw.symbol((0, 0), _symbol(a["d"]), pen, brush)
    return Image.frombytes("RGB", dims, draw.tobytes())
