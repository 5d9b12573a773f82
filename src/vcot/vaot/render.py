"""Execute validated visual actions on the current image state with the shared draw layer.

Deterministic: the same state and action give the same pixels. Each drawing action changes pixels only
inside its footprint (`footprint()`), which the tests check; `crop_zoom` returns a view and leaves the
state alone; `mask_region` greys out a region (or everything but it).
"""

from __future__ import annotations

import math

from PIL import Image

from vcot.draw import Canvas
from vcot.vaot.actions import (
    MAX_RETURNED_SIDE,
    Action,
    AnnotateText,
    CropZoom,
    DrawArrow,
    DrawCircle,
    DrawLine,
    DrawPolygon,
    DrawPolyline,
    DrawRay,
    HighlightBox,
    MarkPoint,
    MaskRegion,
)

MARK_RADIUS = 5
MASK_COLOR = (200, 200, 200)
ZOOM_TARGET_SIDE = 768


def ray_end(a: DrawRay, width: int, height: int) -> tuple[float, float]:
    """Where the ray from (x, y) through (x_through, y_through) leaves the image."""
    dx, dy = a.x_through - a.x, a.y_through - a.y
    ts = []
    for bound, pos, d in ((width - 1, a.x, dx), (0, a.x, dx), (height - 1, a.y, dy), (0, a.y, dy)):
        if d != 0:
            t = (bound - pos) / d
            if t > 0:
                ts.append(t)
    t = min(ts) if ts else 0.0
    return a.x + dx * t, a.y + dy * t


def footprint(action: Action, width: int, height: int) -> tuple[int, int, int, int] | None:
    """Bounding box (x0, y0, x1, y1), inclusive, outside which the action changes no pixel.

    None means the action may change the whole image (isolate) or none of it (crop_zoom returns a view).
    """
    pad = 2
    if isinstance(action, DrawLine | DrawArrow):
        head = max(8.0, 3.5 * action.width) if isinstance(action, DrawArrow) else 0.0
        m = action.width + head + pad
        xs, ys = (action.x1, action.x2), (action.y1, action.y2)
    elif isinstance(action, DrawRay):
        ex, ey = ray_end(action, width, height)
        m = action.width + pad
        xs, ys = (action.x, ex), (action.y, ey)
    elif isinstance(action, DrawPolyline | DrawPolygon):
        # Mitred joins of sharp angles can stick out far beyond the points; bound them generously.
        m = action.width * 6 + pad
        xs, ys = tuple(p[0] for p in action.points), tuple(p[1] for p in action.points)
    elif isinstance(action, DrawCircle):
        m = action.radius + action.width + pad
        xs, ys = (action.x,), (action.y,)
    elif isinstance(action, MarkPoint):
        canvas = Canvas(8, 8)
        tw, th = canvas.text_size(action.label, 14) if action.label else (0.0, 0.0)
        x0, y0 = action.x - MARK_RADIUS - pad, action.y - max(MARK_RADIUS, th + 6) - pad
        x1, y1 = action.x + MARK_RADIUS + 4 + tw + pad * 2, action.y + MARK_RADIUS + pad
        return _clip(x0, y0, x1, y1, width, height)
    elif isinstance(action, HighlightBox):
        m = action.width + pad
        xs, ys = (action.x1, action.x2), (action.y1, action.y2)
    elif isinstance(action, AnnotateText):
        tw, th = Canvas(8, 8).text_size(action.text, action.size)
        return _clip(action.x - 4, action.y - 4, action.x + tw + 4, action.y + th + 4, width, height)
    elif isinstance(action, MaskRegion):
        if action.mode == "isolate":
            return None
        m = 1
        xs, ys = (action.x1, action.x2), (action.y1, action.y2)
    else:
        return None
    return _clip(min(xs) - m, min(ys) - m, max(xs) + m, max(ys) + m, width, height)


def _clip(x0: float, y0: float, x1: float, y1: float, w: int, h: int) -> tuple[int, int, int, int]:
    return (max(0, math.floor(x0)), max(0, math.floor(y0)), min(w - 1, math.ceil(x1)), min(h - 1, math.ceil(y1)))


def _box(a: HighlightBox | MaskRegion | CropZoom) -> tuple[float, float, float, float]:
    x0, x1 = sorted((a.x1, a.x2))
    y0, y1 = sorted((a.y1, a.y2))
    return x0, y0, x1, y1


def apply_action(state: Image.Image, action: Action) -> tuple[Image.Image, Image.Image]:
    """Execute one action: returns (new state, image to show the model).

    For drawing actions both are the new state; for crop_zoom the state is unchanged and the view is
    the enlarged crop.
    """
    if isinstance(action, CropZoom):
        x0, y0, x1, y1 = (int(round(v)) for v in _box(action))
        crop = state.crop((x0, y0, x1 + 1, y1 + 1))
        scale = min(ZOOM_TARGET_SIDE / max(crop.size), 8.0)
        view = crop.resize(
            (max(1, round(crop.width * scale)), max(1, round(crop.height * scale))), Image.Resampling.LANCZOS
        )
        return state, bound_size(view)
    if isinstance(action, MaskRegion):
        x0, y0, x1, y1 = (int(round(v)) for v in _box(action))
        grey = Image.new("RGB", state.size, MASK_COLOR)
        out = state.copy()
        if action.mode == "mask":
            out.paste(grey.crop((x0, y0, x1 + 1, y1 + 1)), (x0, y0))
        else:
            keep = state.crop((x0, y0, x1 + 1, y1 + 1))
            out = grey
            out.paste(keep, (x0, y0))
        return out, out
    canvas = Canvas.from_image(state)
    if isinstance(action, DrawLine):
        canvas.line(
            [(action.x1, action.y1), (action.x2, action.y2)],
            action.color,
            action.width,
            dash=(10, 6) if action.dashed else None,
        )
    elif isinstance(action, DrawRay):
        canvas.line([(action.x, action.y), ray_end(action, state.width, state.height)], action.color, action.width)
    elif isinstance(action, DrawArrow):
        canvas.arrow((action.x1, action.y1), (action.x2, action.y2), action.color, action.width)
    elif isinstance(action, DrawPolyline):
        canvas.line(list(action.points), action.color, action.width)
    elif isinstance(action, DrawPolygon):
        canvas.polygon(
            list(action.points),
            fill=action.color if action.fill else None,
            outline=action.color,
            width=action.width,
            fill_opacity=70,
        )
    elif isinstance(action, DrawCircle):
        canvas.circle((action.x, action.y), action.radius, outline=action.color, width=action.width)
    elif isinstance(action, MarkPoint):
        canvas.circle((action.x, action.y), MARK_RADIUS, fill=action.color, outline=None)
        if action.label:
            canvas.text(
                (action.x + MARK_RADIUS + 3, action.y - MARK_RADIUS - 2),
                action.label,
                size=14,
                color=action.color,
                anchor="lb",
                padding=0,
            )
    elif isinstance(action, HighlightBox):
        canvas.rect(_box(action), fill=action.color, outline=action.color, width=action.width, fill_opacity=50)
    elif isinstance(action, AnnotateText):
        canvas.text((action.x, action.y), action.text, size=action.size, color=action.color, padding=0)
    else:  # pragma: no cover - the union is exhaustive
        raise TypeError(f"unhandled action {type(action).__name__}")
    out = canvas.image()
    return out, out


def bound_size(image: Image.Image, max_side: int = MAX_RETURNED_SIDE) -> Image.Image:
    """Downscale an image returned to the model so that its longer side is at most `max_side`."""
    if max(image.size) <= max_side:
        return image
    scale = max_side / max(image.size)
    return image.resize(
        (max(1, round(image.width * scale)), max(1, round(image.height * scale))), Image.Resampling.LANCZOS
    )
