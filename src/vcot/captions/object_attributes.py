"""object_attributes: CLEVR-like objects with shape, size, colour and material (see `_scene3d.py`)."""

from __future__ import annotations

from typing import Any

from vcot.captions import _scene3d


def _describe(o: dict[str, Any]) -> str:
    material = {"rubber": "rubber (matte)", "metal": "metal (shiny)"}.get(o["material"], o["material"])
    return _scene3d.article(f"{o['size']} {o['colour']} {material} {o['shape']}")


def caption(scene: dict[str, Any]) -> str:
    return _scene3d.caption(scene, "A 3D scene of objects on a grey floor, seen from above and in front.", _describe)
