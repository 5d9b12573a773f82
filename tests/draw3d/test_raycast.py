"""The NumPy ray caster: projection and id buffer agree, occlusion and shadows show, output is deterministic."""

from __future__ import annotations

import numpy as np
import pytest

from vcot.draw.png import pixel_digest
from vcot.draw3d import Camera, Primitive, render_scene

CAM = Camera(azimuth=0, elevation=30, distance=10, width=160, height=120)


def _sphere(x: float, y: float, r: float = 0.7, obj: int = 0, material: str = "rubber") -> Primitive:
    return Primitive("sphere", (x, y, r), (r,), (229, 15, 65), material, obj)


def test_sphere_centre_shows_its_id_where_projected() -> None:
    res = render_scene([_sphere(0.0, 0.0)], CAM, ss=1, shade=False)
    cx, cy = res.objects[0].centre
    assert res.ids[int(cy), int(cx)] == 0
    assert res.ids[2, 2] == -1  # sky in the corner
    x0, y0, x1, y1 = res.objects[0].silhouette
    assert x0 < cx < x1 and y0 < cy < y1
    assert res.objects[0].fraction == 1.0


@pytest.mark.parametrize("kind, size", [("box", (0.5, 0.5, 0.5)), ("cylinder", (0.5, 0.5)), ("sphere", (0.5,))])
def test_every_kind_is_hit(kind: str, size: tuple[float, ...]) -> None:
    prim = Primitive(kind, (0.0, 0.0, 0.5), size, (0, 96, 245), "metal", 3, yaw=30)
    res = render_scene([prim], CAM, ss=1, shade=False)
    assert 100 < res.objects[3].full < 160 * 120 / 4
    assert (res.ids == 3).sum() == pytest.approx(res.objects[3].visible, abs=1)


def test_a_nearer_object_hides_part_of_a_farther_one() -> None:
    far = _sphere(0.0, 2.0, obj=1)
    near = _sphere(0.3, -1.0, obj=2)
    res = render_scene([far, near], CAM, ss=1, shade=False)
    assert res.objects[2].fraction == 1.0
    assert 0.0 < res.objects[1].fraction < 1.0
    alone = render_scene([far], CAM, ss=1, shade=False)
    assert alone.objects[1].full == res.objects[1].full  # the unoccluded outline ignores the other object


def test_shadow_falls_on_the_floor_away_from_the_light() -> None:
    # The key light comes from -x, -y and above, so the shadow lies on the +x, +y side of the object.
    lit = render_scene([], CAM).image
    shaded = render_scene([_sphere(0.0, 0.0)], CAM).image
    a, b = np.asarray(lit, dtype=int), np.asarray(shaded, dtype=int)
    diff = (a - b).sum(-1)
    ids = render_scene([_sphere(0.0, 0.0)], CAM, shade=True).ids
    darker = (diff > 30) & (ids == -1)
    assert darker.sum() > 30
    ys, xs = np.nonzero(darker)
    assert xs.mean() > render_scene([_sphere(0.0, 0.0)], CAM, ss=1, shade=False).objects[0].centre[0]


def test_same_scene_same_pixels_and_metal_differs_from_rubber() -> None:
    one = render_scene([_sphere(0.0, 0.0, material="metal")], CAM).image
    two = render_scene([_sphere(0.0, 0.0, material="metal")], CAM).image
    rubber = render_scene([_sphere(0.0, 0.0)], CAM).image
    assert pixel_digest(one) == pixel_digest(two)
    assert pixel_digest(one) != pixel_digest(rubber)


def test_project_matches_ground_axes() -> None:
    cam = Camera(azimuth=25, elevation=35)
    right, forward = cam.ground_axes()
    p = cam.project(np.array([[0, 0, 0], right * 2, forward * 2]))
    assert p[1, 0] > p[0, 0] + 20  # right of the target is further right in the picture
    assert p[2, 1] < p[0, 1] - 10  # farther along forward is higher up
    assert abs(p[2, 0] - p[0, 0]) < 1e-6  # forward stays on the centre column (no roll)
