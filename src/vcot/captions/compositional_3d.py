"""compositional_3d: toy vehicles whose body, cabin and wheels have their own colours (see `_scene3d.py`)."""

from __future__ import annotations

from typing import Any

from vcot.captions import _scene3d


def _describe(o: dict[str, Any]) -> str:
    material = {"rubber": "rubber (matte)", "metal": "metal (shiny)"}.get(o["material"], o["material"])
    return (
        f"{_scene3d.article(o['size'])} {material} {o['type']} with {_scene3d.article(o['body'])} body, "
        f"{_scene3d.article(o['cabin'])} cabin and {o['wheels']} wheels"
    )


def caption(scene: dict[str, Any]) -> str:
    return _scene3d.caption(scene, "Toy vehicles on a grey floor, seen from above and in front.", _describe)
