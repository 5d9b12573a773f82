"""Rubber and metal on every shape the 3D tasks draw (docs/draw3d.md, "Materials"): a grid, one row per shape
(sphere, cube, cylinder, car, truck, tractor), rubber and metal side by side in three of the tasks' colours,
each cell lit and framed as the tasks' pictures are, with a neighbour behind to show what metal mirrors.

    python benchmarks/draw3d_materials.py                         # writes docs/img/draw3d_materials.png
    python benchmarks/draw3d_materials.py --out /tmp/grid.png
"""

from __future__ import annotations

import argparse
from pathlib import Path

from PIL import Image, ImageDraw

from vcot.draw.colors import PALETTE
from vcot.draw3d import Camera, Primitive, render_scene
from vcot.draw3d.composites import vehicle_primitives

CELL_W, CELL_H = 200, 150
COLOURS = ("red", "cyan", "purple")
SHAPES = ("sphere", "cube", "cylinder", "car", "truck", "tractor")
LABEL_W, HEAD_H = 70, 22


def subject(shape: str, colour: str, material: str) -> list[Primitive]:
    rgb = PALETTE[colour]
    if shape == "sphere":
        return [Primitive("sphere", (0, 0, 0.7), (0.7,), rgb, material, 0)]
    if shape == "cube":
        return [Primitive("box", (0, 0, 0.6), (0.6, 0.6, 0.6), rgb, material, 0, yaw=30)]
    if shape == "cylinder":
        return [Primitive("cylinder", (0, 0, 0.7), (0.7, 0.7), rgb, material, 0)]
    car = {
        "type": shape,
        "size": "large",
        "material": material,
        "body": colour,
        "cabin": colour,
        "wheels": "darkgray",
        "x": 0.0,
        "y": 0.0,
        "heading": 150.0,
    }
    return vehicle_primitives([car], PALETTE)


def cell(shape: str, colour: str, material: str) -> Image.Image:
    # A grey rubber neighbour behind and to the right, as in a task scene, for metal to mirror.
    prims = [
        *subject(shape, colour, material),
        Primitive("sphere", (1.6, 1.6, 0.45), (0.45,), PALETTE["yellow"], "rubber", 1),
    ]
    cam = Camera(azimuth=4, elevation=35, distance=6.2, fov=40, width=CELL_W, height=CELL_H, target=(0.3, 0.5, 0.4))
    res = render_scene(prims, cam)
    assert res.image is not None
    return res.image


def grid() -> Image.Image:
    cols = [(c, m) for c in COLOURS for m in ("rubber", "metal")]
    out = Image.new("RGB", (LABEL_W + CELL_W * len(cols), HEAD_H + CELL_H * len(SHAPES)), "white")
    draw = ImageDraw.Draw(out)
    for j, (c, m) in enumerate(cols):
        draw.text((LABEL_W + j * CELL_W + 8, 5), f"{c} {m}", fill="black")
    for i, shape in enumerate(SHAPES):
        draw.text((6, HEAD_H + i * CELL_H + CELL_H // 2 - 6), shape, fill="black")
        for j, (c, m) in enumerate(cols):
            out.paste(cell(shape, c, m), (LABEL_W + j * CELL_W, HEAD_H + i * CELL_H))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=Path(__file__).resolve().parents[1] / "docs/img/draw3d_materials.png")
    args = ap.parse_args()
    grid().save(args.out, optimize=True)
    print(args.out)


if __name__ == "__main__":
    main()
