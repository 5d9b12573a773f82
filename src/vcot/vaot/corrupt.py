"""Corrupted feedback for `vaot_wrongrender`: natural-looking returned images that are wrong.

- `modify_key` renders a perturbed version of the model's action so that task-relevant evidence changes
  while the look and broad intent stay: a line bent by some degrees, a polygon vertex moved, a polyline
  bent at an interior vertex, a mark moved onto a neighbouring object (found in the picture itself), a
  box shifted, a number in a text altered.
- `modify_non_key` renders the action faithfully and adds a small stray mark in blank background far
  from the action's footprint, so only irrelevant content changes.

Both are deterministic given the RNG, and both return a description that goes into the results (never
to the model).
"""

from __future__ import annotations

import math
import random
import re
from dataclasses import dataclass

from PIL import Image

from vcot.draw import Canvas
from vcot.vaot import actions as act
from vcot.vaot.actions import clamp_action
from vcot.vaot.render import apply_action, footprint

CORRUPTIONS = ("modify_key", "modify_non_key")


@dataclass
class CorruptedRender:
    state: Image.Image
    view: Image.Image
    description: str


def _rotate(px: float, py: float, cx: float, cy: float, deg: float) -> tuple[float, float]:
    a = math.radians(deg)
    dx, dy = px - cx, py - cy
    return cx + dx * math.cos(a) - dy * math.sin(a), cy + dx * math.sin(a) + dy * math.cos(a)


def _angle(rng: random.Random) -> float:
    return rng.choice((-1, 1)) * rng.uniform(10.0, 22.0)


def _object_centroids(state: Image.Image) -> list[tuple[float, float]]:
    """Centres of the drawn objects (connected non-background blobs) in the picture."""
    # Imported here: scipy costs half a second, and every `vcot` command imports this module (condition list).
    import numpy as np
    from scipy import ndimage

    arr = np.asarray(state.convert("RGB"), dtype=np.int16)
    background = np.median(arr.reshape(-1, 3), axis=0)
    mask = np.abs(arr - background).sum(axis=2) > 60
    labels, n = ndimage.label(mask)
    if n == 0:
        return []
    sizes = ndimage.sum(mask, labels, index=range(1, n + 1))
    centres = ndimage.center_of_mass(mask, labels, index=range(1, n + 1))
    return [(float(c[1]), float(c[0])) for c, s in zip(centres, sizes, strict=True) if s >= 12]


def picture_objects(meta: object) -> list[tuple[float, float]] | None:
    """Object centres a task recorded from its renderer's id buffer (`meta["scene"]["picture"]
    ["object_centres"]`, the 3D scene tasks), or None: blob detection cannot separate shaded objects from their
    shadows and the floor's gradient."""
    scene = meta.get("scene") if isinstance(meta, dict) else None
    picture = scene.get("picture") if isinstance(scene, dict) else None
    centres = picture.get("object_centres") if isinstance(picture, dict) else None
    if not isinstance(centres, list) or not centres:
        return None
    return [(float(c[0]), float(c[1])) for c in centres]


def perturb_key(
    action: act.Action, state: Image.Image, rng: random.Random, objects: list[tuple[float, float]] | None = None
) -> tuple[act.Action, str]:
    """A plausible but wrong version of the action (same kind, evidence changed). `objects` are the picture's
    object centres when the instance records them (`picture_objects`); otherwise they are found in the picture."""
    w, h = state.size
    diag = math.hypot(w, h)
    data = action.model_dump()
    if isinstance(action, act.DrawLine | act.DrawArrow):
        deg = _angle(rng)
        data["x2"], data["y2"] = _rotate(action.x2, action.y2, action.x1, action.y1, deg)
        desc = f"{action.action} rotated by {deg:+.0f}° about its start"
    elif isinstance(action, act.DrawRay):
        deg = _angle(rng)
        data["x_through"], data["y_through"] = _rotate(action.x_through, action.y_through, action.x, action.y, deg)
        desc = f"ray direction rotated by {deg:+.0f}°"
    elif isinstance(action, act.DrawPolyline):
        pts = [list(p) for p in action.points]
        k = rng.randrange(1, len(pts)) if len(pts) > 2 else 1
        deg = _angle(rng)
        for j in range(k, len(pts)):  # bend the path at vertex k-1: everything after it turns
            pts[j] = list(_rotate(pts[j][0], pts[j][1], pts[k - 1][0], pts[k - 1][1], deg))
        data["points"] = pts
        desc = f"polyline bent by {deg:+.0f}° at vertex {k - 1}"
    elif isinstance(action, act.DrawPolygon):
        pts = [list(p) for p in action.points]
        k = rng.randrange(len(pts))
        r = rng.uniform(0.06, 0.1) * diag
        a = rng.uniform(0, 2 * math.pi)
        pts[k] = [pts[k][0] + r * math.cos(a), pts[k][1] + r * math.sin(a)]
        data["points"] = pts
        desc = f"polygon vertex {k} moved by {r:.0f} px"
    elif isinstance(action, act.DrawCircle):
        a = rng.uniform(0, 2 * math.pi)
        r = max(action.radius * 0.6, 0.04 * diag)
        data["x"], data["y"] = action.x + r * math.cos(a), action.y + r * math.sin(a)
        desc = f"circle centre moved by {r:.0f} px"
    elif isinstance(action, act.MarkPoint):
        found = objects if objects else _object_centroids(state)
        others = [c for c in found if math.dist(c, (action.x, action.y)) > 12]
        if others:
            data["x"], data["y"] = min(others, key=lambda c: math.dist(c, (action.x, action.y)))
            desc = "mark placed on the neighbouring object"
        else:
            a = rng.uniform(0, 2 * math.pi)
            r = rng.uniform(0.06, 0.1) * diag
            data["x"], data["y"] = action.x + r * math.cos(a), action.y + r * math.sin(a)
            desc = f"mark moved by {r:.0f} px"
    elif isinstance(action, act.HighlightBox | act.MaskRegion | act.CropZoom):
        bw, bh = abs(action.x2 - action.x1), abs(action.y2 - action.y1)
        # Shift towards the image centre so that clamping cannot cancel the shift at a border.
        cx, cy = (action.x1 + action.x2) / 2, (action.y1 + action.y2) / 2
        sx = (1 if cx < w / 2 else -1) * max(0.4 * bw, 0.04 * w)
        sy = (1 if cy < h / 2 else -1) * max(0.4 * bh, 0.04 * h)
        for key in ("x1", "x2"):
            data[key] += sx
        for key in ("y1", "y2"):
            data[key] += sy
        desc = f"{action.action} box shifted by ({sx:+.0f}, {sy:+.0f}) px"
    elif isinstance(action, act.AnnotateText):
        text = action.text
        if re.search(r"\d", text):
            text = re.sub(r"\d+", lambda m: str(int(m.group()) + rng.choice((-1, 1, 2))), text, count=1)
            desc = "a number in the annotation altered"
        else:
            data["x"], data["y"] = action.x + 0.08 * w * rng.choice((-1, 1)), action.y + 0.08 * h * rng.choice((-1, 1))
            desc = "annotation placed elsewhere"
        data["text"] = text
    else:  # pragma: no cover - the union is exhaustive
        raise TypeError(type(action).__name__)
    return clamp_action(type(action).model_validate(data), w, h), desc


def _blank_patch_far_from(
    state: Image.Image, box: tuple[int, int, int, int] | None, rng: random.Random, size: int = 14
) -> tuple[int, int] | None:
    """Top-left of a uniform background patch as far as possible from `box` (None if there is none)."""
    import numpy as np

    arr = np.asarray(state.convert("L"), dtype=np.int16)
    h, w = arr.shape
    step = max(size, min(w, h) // 24)
    best, best_d = None, -1.0
    cx = (box[0] + box[2]) / 2 if box else w / 2
    cy = (box[1] + box[3]) / 2 if box else h / 2
    for y in range(step, h - size - step, step):
        for x in range(step, w - size - step, step):
            patch = arr[y - 4 : y + size + 4, x - 4 : x + size + 4]
            if patch.max() - patch.min() > 3:
                continue
            if box and box[0] - size - 8 <= x <= box[2] + 8 and box[1] - size - 8 <= y <= box[3] + 8:
                continue
            d = math.hypot(x - cx, y - cy) + rng.uniform(0, step)
            if d > best_d:
                best, best_d = (x, y), d
    return best


def corrupt_render(
    state: Image.Image,
    action: act.Action,
    kind: str,
    rng: random.Random,
    objects: list[tuple[float, float]] | None = None,
) -> CorruptedRender:
    """Render `action` with the given corruption. The action itself is recorded unchanged by the caller."""
    if kind == "modify_key":
        wrong, desc = perturb_key(action, state, rng, objects)
        new_state, view = apply_action(state, wrong)
        return CorruptedRender(new_state, view, f"modify_key: {desc}")
    if kind == "modify_non_key":
        new_state, view = apply_action(state, action)
        if isinstance(action, act.CropZoom):
            return CorruptedRender(new_state, view, "modify_non_key: crop view left unchanged")
        spot = _blank_patch_far_from(new_state, footprint(action, *state.size), rng)
        if spot is None:
            return CorruptedRender(new_state, view, "modify_non_key: no blank background found; unchanged")
        x, y = spot
        canvas = Canvas.from_image(new_state)
        canvas.line([(x, y + 10), (x + 6, y + 3), (x + 12, y + 9)], "gray", 2)
        out = canvas.image()
        return CorruptedRender(out, out, f"modify_non_key: stray mark added at ({x}, {y}) far from the action")
    raise ValueError(f"unknown corruption {kind!r}; choose one of {CORRUPTIONS}")
