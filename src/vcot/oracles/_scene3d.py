"""What the scene3d oracles share: where each object stands in a re-rendered picture, and which objects lie
on one side of another there. Left and right are read from the centre of an object's outline (its silhouette
box), in front and behind from how low in the picture its floor point lies (lower = nearer the camera)."""

from __future__ import annotations

from typing import Any

from vcot.draw3d import Camera, Primitive, render_scene


class Unreadable(ValueError):
    """The program refers to an object that the picture does not single out."""


def picture_positions(
    scene: dict[str, Any], primitives: list[Primitive], thing: str = "object"
) -> dict[int, tuple[float, float]]:
    """Per object: (x of its outline's centre, y of its floor point) in picture pixels (id buffer only)."""
    c = scene["camera"]
    cam = Camera(azimuth=c["azimuth"], elevation=c["elevation"], distance=c["distance"], fov=c["fov"])
    res = render_scene(primitives, cam, ss=1, shade=False)
    out = {}
    for k, view in res.objects.items():
        if view.silhouette is None or view.visible == 0:
            raise Unreadable(f"{thing} {k} does not show in the picture")
        x0, _, x1, _ = view.silhouette
        out[k] = ((x0 + x1) / 2, view.foot[1])
    return out


def beyond(pos: dict[int, tuple[float, float]], anchor: int, rel: str) -> set[int]:
    """The objects `rel` (left, right, front, behind) of `anchor` in the picture."""
    ax, ay = pos[anchor]
    test = {
        "left": lambda x, y: x < ax,
        "right": lambda x, y: x > ax,
        "front": lambda x, y: y > ay,
        "behind": lambda x, y: y < ay,
    }[rel]
    return {k for k, (x, y) in pos.items() if k != anchor and test(x, y)}
