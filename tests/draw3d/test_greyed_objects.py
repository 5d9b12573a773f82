"""Greyed-out objects of the 3D step pictures are grey to their last pixel (issue 29).

The id and part buffers take each pixel's first (top-left) subpixel, so a mask built from them misses the
antialiased pixels along an object's top and left edges, which kept a 1-px fringe of true colour. Here every
pixel of a greyed object's silhouette dilated by one pixel, except pixels that show another object in any
subpixel, must carry no saturated colour.
"""

from __future__ import annotations

import random
from dataclasses import replace

import numpy as np
import pytest

from vcot.draw3d import Render3D, render_scene
from vcot.draw3d.composites import part_list
from vcot.tasks.scene3d._scene import (
    camera_of,
    greyed,
    greyed_where,
    primitives,
    sample_camera,
    sample_objects,
)
from vcot.tasks.scene3d._vehicles import primitives as vehicle_prims
from vcot.tasks.scene3d._vehicles import sample_vehicles

CHROMA = 14  # max - min channel: the floor and pale grey stay far below, every palette colour far above


def _dilate(mask: np.ndarray) -> np.ndarray:
    out = mask.copy()
    out[1:] |= mask[:-1]
    out[:-1] |= mask[1:]
    out[:, 1:] |= mask[:, :-1]
    out[:, :-1] |= mask[:, 1:]
    return out


def _assert_grey(res: Render3D, picture: np.ndarray, grey_parts: list[int]) -> int:
    """Checks the pixels around the greyed primitives; returns how many were checked."""
    n_prims = int(res.subparts.max()) + 1 if res.subparts is not None else 0
    shown = res.coverage(grey_parts) > 0
    others = res.coverage([p for p in range(n_prims) if p not in grey_parts]) > 0
    area = _dilate(shown) & ~others
    px = picture[area].astype(int)
    chroma = px.max(-1) - px.min(-1)
    bad = np.argwhere(area)[chroma > CHROMA]
    assert not bad.size, f"{bad.shape[0]} pixels keep their colour, first at (y, x) {tuple(bad[0])}"
    return int(area.sum())


@pytest.mark.parametrize("seed", range(4))
def test_greyed_objects_keep_no_fringe(seed: int) -> None:
    rng = random.Random(seed)
    objects = sample_objects(rng, 7)
    scene = {"objects": objects, "camera": sample_camera(rng)}
    prims = primitives(objects)
    res = render_scene(prims, replace(camera_of(scene), width=240, height=160))
    grey = [k for k in range(len(objects)) if k % 2 == seed % 2]
    picture = np.asarray(greyed(res, grey))
    checked = _assert_grey(res, picture, [k for k, p in enumerate(prims) if p.obj in grey])
    assert checked > 100


def test_greyed_vehicle_parts_keep_no_fringe() -> None:
    rng = random.Random(11)
    objects = sample_vehicles(rng, 4)
    scene = {"objects": objects, "camera": sample_camera(rng)}
    res = render_scene(vehicle_prims(objects), replace(camera_of(scene), width=240, height=160))
    # compositional_3d's part pictures grey every part but the kept ones (its `_part_mask`).
    keep = [i for i, (k, part) in enumerate(part_list(objects)) if (k, part) in {(0, "body"), (2, "wheels")}]
    mask = (res.parts >= 0) & ~np.isin(res.parts, keep)
    picture = np.asarray(greyed_where(res, mask))
    grey_parts = [i for i in range(len(part_list(objects))) if i not in keep]
    assert _assert_grey(res, picture, grey_parts) > 100


def test_the_first_subpixel_mask_alone_leaves_a_fringe() -> None:
    # The check above is sharp: greying only the first-subpixel mask (the old behaviour) fails it.
    rng = random.Random(0)
    objects = sample_objects(rng, 7)
    scene = {"objects": objects, "camera": sample_camera(rng)}
    res = render_scene(primitives(objects), replace(camera_of(scene), width=240, height=160))
    arr = np.asarray(res.image, dtype=np.float32).copy()
    mask = np.isin(res.ids, [0])
    lum = arr @ np.array([0.299, 0.587, 0.114], dtype=np.float32)
    arr[mask] = (150 + 0.35 * lum[mask])[:, None]
    with pytest.raises(AssertionError, match="keep their colour"):
        _assert_grey(res, np.round(arr).astype(np.uint8), [0])
