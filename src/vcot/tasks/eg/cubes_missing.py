"""cubes_missing: how many unit cubes must be added to complete the smallest cuboid enclosing a structure (the
sampling and the picture are in `common/cube_scenes.py`).

The visual chain of thought fills the box one layer at a time: each step draws the structure with the ghost
cubes of one more layer (the new layer's ghosts in pale red, the lower layers' ghosts paler still) beside a
top view of that layer. Ghost cubes are drawn opaque and in the same back-to-front order as the structure's
cubes, so no edge shows through another cube: the old single picture of a translucent box, its dashed edges
crossing every cube behind, was hard to count (docs/tasks/cubes_missing.md, "Visual chain of thought").
"""

from __future__ import annotations

import random
from typing import Any

from PIL import Image
from shapely.geometry import MultiPoint

from vcot.draw.canvas import Canvas, hstack
from vcot.schema import Instance
from vcot.tasks import register
from vcot.tasks.answer_space import AnswerSpace
from vcot.tasks.base import Corruption, Solution, answer_range_presets
from vcot.tasks.common.cube_scenes import CUBE_LEVELS, CubePictureTask, CubesConfig, camera_of
from vcot.tasks.common.cube_stacks import (
    EDGE,
    FLOOR_FILL,
    FLOOR_LINE,
    SHADES,
    Camera,
    Heights,
    balanced_answers,
    cubes_of,
    dims,
    face_quads,
    max_height,
    total,
)

# Ghost cubes: top, front and right face colours and the edge colour, for the layer a step adds and for the
# layers below it (paler, so that the new layer stands out).
GHOST_NEW = ((255, 206, 206), (242, 172, 172), (226, 146, 146))
GHOST_NEW_EDGE = (196, 30, 30)
GHOST_OLD = ((252, 242, 242), (244, 228, 228), (234, 214, 214))
GHOST_OLD_EDGE = (214, 166, 166)
BOX_LINE = (110, 110, 110)
# Step pictures: the drawing and the top view of the layer, side by side.
DRAWING_SIZE = (560, 480)
CELL = 48


def box_missing(heights: Heights, box_height: int | None = None) -> int:
    """Cubes needed to fill the W x D x box_height block (default: the tallest column)."""
    w, d = dims(heights)
    h = max_height(heights) if box_height is None else box_height
    return w * d * h - total(heights)


def missing_per_cell(heights: Heights, box_height: int) -> Heights:
    return [[max(0, box_height - h) for h in row] for row in heights]


def ghost_layers(heights: Heights, box_height: int) -> list[int]:
    """The layers (1 = on the floor) that hold ghost cubes: those above the lowest column, up to the box top."""
    lowest = min(min(row) for row in heights)
    return list(range(lowest + 1, box_height + 1))


def _row_label(y: int, d: int) -> str:
    if d == 1:
        return "the only row"
    return "back row" if y == d - 1 else "front row" if y == 0 else f"row {y + 1} from the front"


def layer_text(heights: Heights, box_height: int, layer: int) -> str:
    """What a layer step shows: the box, which layer it adds, and square by square whether that layer holds a
    ghost cube or a cube of the structure. Their number is left to the reader."""
    w, d = dims(heights)
    rows = []
    for y in reversed(range(d)):
        cells = ", ".join("ghost" if h < layer else "cube" for h in heights[y])
        rows.append(f"{_row_label(y, d)}: {cells}")
    lowest = min(min(row) for row in heights)
    full = below = ""
    if layer == lowest + 1 and lowest:
        layers = {1: "Layer 1 is", 2: "Layers 1 and 2 are"}.get(lowest, f"Layers 1 to {lowest} are")
        full = f" {layers} filled by the structure alone and hold{'s' if lowest == 1 else ''} no ghost cubes."
    if layer > lowest + 1:
        below = "; the ghost cubes of the layers below are drawn paler"
    where = "empty floor square" if layer == 1 else f"square whose column is lower than {layer}"
    return (
        f"Completing box: {w} wide x {d} deep x {box_height} tall (the floor rectangle under the structure, as "
        f"tall as the tallest column).{full} Layer {layer} of {box_height} from the floor is filled in: a pale "
        f"red ghost cube on every {where}{below}. Layer {layer} seen from above (columns left to right) — "
        + "; ".join(rows)
        + "."
    )


def _frame(cam: Camera, w: int, d: int, h: int, size: tuple[int, int], top: float) -> tuple[float, float, float]:
    """(scale, x offset, y offset) that fit the W x D x h box into `size`, below a title band `top` high."""
    pts = cam.project_all([(x, y, z) for x in (0, w) for y in (0, d) for z in (0, h)])
    x0, x1 = min(p[0] for p in pts), max(p[0] for p in pts)
    y0, y1 = min(p[1] for p in pts), max(p[1] for p in pts)
    margin = 30.0
    scale = min((size[0] - 2 * margin) / (x1 - x0), (size[1] - top - 2 * margin) / (y1 - y0), 110.0)
    return (
        scale,
        (size[0] - (x1 - x0) * scale) / 2 - x0 * scale,
        top + (size[1] - top - (y1 - y0) * scale) / 2 - y0 * scale,
    )


def render_layer(heights: Heights, cam: Camera, palette: str, box_height: int, layer: int) -> Image.Image:
    """The structure with ghost cubes filling the box up to `layer`, the box's outline dashed around it.

    Every cube, ghost or not, is drawn opaque in one back-to-front order and a face against an occupied cell is
    skipped, as for the structure alone (`cube_stacks.render_iso`), so the ghosts add faces but no lines across
    other cubes. The new layer's ghost tops are at least as visible as the column tops below them were (the
    same columns can hide them, from lower down), which sampling made at least `min_visible` visible.
    """
    w, d = dims(heights)
    canvas = Canvas(*DRAWING_SIZE)
    canvas.text(
        (DRAWING_SIZE[0] / 2, 10),
        f"Box {w} x {d} x {box_height}: layer {layer} of {box_height} filled in",
        size=20,
        anchor="mt",
        bold=True,
    )
    scale, ox, oy = _frame(cam, w, d, box_height, DRAWING_SIZE, 36.0)

    def screen(points: list[tuple[float, float, float]]) -> list[tuple[float, float]]:
        return [(ox + px * scale, oy + py * scale) for px, py in cam.project_all(points)]

    for y in range(d):
        for x in range(w):
            canvas.polygon(
                screen([(x, y, 0), (x + 1, y, 0), (x + 1, y + 1, 0), (x, y + 1, 0)]),
                fill=FLOOR_FILL,
                outline=FLOOR_LINE,
                width=1.5,
            )
    filled = [[max(h, layer) for h in row] for row in heights]
    items = [(x, y, z) for x, y, z in cubes_of(filled)]
    items.sort(key=lambda c: (c[0] - c[1] + c[2], c[2], -c[1], c[0]))
    neighbour = {"top": (0, 0, 1), "front": (0, -1, 0), "right": (1, 0, 0)}
    for x, y, z in items:
        if z < heights[y][x]:
            shades, edge, width = SHADES[palette], EDGE, 2.0
        elif z == layer - 1:
            shades, edge, width = GHOST_NEW, GHOST_NEW_EDGE, 2.0
        else:
            shades, edge, width = GHOST_OLD, GHOST_OLD_EDGE, 1.5
        for k, (face, quad) in enumerate(face_quads(x, y, z).items()):
            dx, dy, dz = neighbour[face]
            nx, ny, nz = x + dx, y + dy, z + dz
            if 0 <= nx < w and 0 <= ny < d and nz < filled[ny][nx]:
                continue
            canvas.polygon(screen(quad), fill=shades[k], outline=edge, width=width)
    corners = screen([(x, y, z) for x in (0, w) for y in (0, d) for z in (0, box_height)])
    hull = list(MultiPoint(corners).convex_hull.exterior.coords)
    canvas.line(hull, color=BOX_LINE, width=1.5, dash=(7, 5))
    return canvas.image()


def render_layer_grid(heights: Heights, palette: str, box_height: int, layer: int) -> Image.Image:
    """Top view of one layer (back row at the top, FRONT under it): a ghost square where the column is lower
    than the layer, the structure's colour elsewhere, and a legend."""
    w, d = dims(heights)
    title = f"Layer {layer} of {box_height}, top view"
    probe = Canvas(8, 8)
    width = int(max(w * CELL, probe.text_size(title, 18, True)[0], 200) + 40)
    left, top = (width - w * CELL) / 2, 44
    canvas = Canvas(width, int(top + d * CELL + 104))
    canvas.text((width / 2, 8), title, size=18, anchor="mt", bold=True)
    cube_fill = SHADES[palette][0]
    for y in range(d):
        for x in range(w):
            x0, y0 = left + x * CELL, top + (d - 1 - y) * CELL
            canvas.rect((x0, y0, x0 + CELL, y0 + CELL), fill=(246, 246, 246), outline=(90, 90, 90), width=1.5)
            ghost = heights[y][x] < layer
            inset = 6
            canvas.rect(
                (x0 + inset, y0 + inset, x0 + CELL - inset, y0 + CELL - inset),
                fill=GHOST_NEW[0] if ghost else cube_fill,
                outline=GHOST_NEW_EDGE if ghost else EDGE,
                width=2.5 if ghost else 1.5,
            )
    y_base = top + d * CELL
    canvas.text((width / 2, y_base + 8), "FRONT", size=16, anchor="mt", bold=True)
    for k, (fill, edge, label) in enumerate(
        ((GHOST_NEW[0], GHOST_NEW_EDGE, "ghost cube"), (cube_fill, EDGE, "cube of the structure"))
    ):
        ly = y_base + 40 + 26 * k
        canvas.rect((20, ly, 38, ly + 18), fill=fill, outline=edge, width=2)
        canvas.text((46, ly + 9), label, size=15, anchor="lm")
    return canvas.image()


def layer_steps(scene: dict[str, Any], box_height: int) -> list[tuple[Image.Image, str]]:
    """One step per layer that holds ghost cubes, bottom to top, each adding that layer's ghosts."""
    heights = scene["heights"]
    cam = camera_of(scene)
    steps = []
    for layer in ghost_layers(heights, box_height):
        img = hstack(
            [
                render_layer(heights, cam, scene["palette"], box_height, layer),
                render_layer_grid(heights, scene["palette"], box_height, layer),
            ],
            gap=10,
        )
        steps.append((img, layer_text(heights, box_height, layer)))
    return steps


@register
class CubesMissing(CubePictureTask):
    name = "cubes_missing"
    presets = answer_range_presets(CUBE_LEVELS, easy=(2, 11), medium=(5, 28), hard=(12, 47))
    version = "4"
    description = "Count the unit cubes needed to complete the smallest cuboid enclosing a stacked structure."
    ask = (
        "What is the smallest number of cubes that must be added (none removed) to turn the structure into a "
        "solid rectangular box? The box is the smallest cuboid enclosing the structure: its base is the "
        "smallest rectangle of floor squares under the structure (grey empty squares included) and its height "
        "is that of the tallest column. Answer with a single integer."
    )
    rising = False

    @staticmethod
    def answer_reach(config: CubesConfig) -> tuple[int, int]:
        # A solid box misses nothing; the tallest column belongs to the box, so at most W * D * H - H are missing.
        return 0, (config.max_width * config.max_depth - 1) * config.max_height

    def answer_of(self, heights: Heights) -> int:
        return box_missing(heights)

    def answer_space(self, instance: Instance) -> AnswerSpace:
        lo, hi = self.answer_reach(self.config)
        return balanced_answers(self.config.answer_min, self.config.answer_max, lo, hi, "the numbers of cubes to add")

    def solve(self, scene: dict[str, Any]) -> Solution:
        heights = scene["heights"]
        w, d = dims(heights)
        h = max_height(heights)
        n = box_missing(heights)
        return Solution(
            answer=str(n),
            states=[missing_per_cell(heights, h)],
            details={
                "box": [w, d, h],
                "box_volume": w * d * h,
                "cubes": total(heights),
                "missing": n,
                "ghost_layers": ghost_layers(heights, h),
            },
        )

    def steps(self, scene: dict[str, Any]) -> list[tuple[Image.Image, str]]:
        return layer_steps(scene, max_height(scene["heights"]))

    def corrupt(self, scene: dict[str, Any], solution: Solution, rng: random.Random) -> Corruption | None:
        """One column misread one cube taller or lower (never down to an empty square, which could change the
        base), and the box completed around the misread structure: as tall as its tallest column, as the text
        says, so each layer step states a wrong state the way a right step does. A misreading that keeps the
        number of layer steps is preferred; one that leaves the answer unchanged is passed over."""
        heights = scene["heights"]
        options = []
        for y, row in enumerate(heights):
            for x, h in enumerate(row):
                for n in (h + 1, h - 1) if h else ():
                    if n < 1:
                        continue
                    wrong = [list(r) for r in heights]
                    wrong[y][x] = n
                    if str(box_missing(wrong)) != solution.answer:
                        options.append((x, y, h, wrong))
        if not options:
            return None
        rng.shuffle(options)
        layers = len(ghost_layers(heights, max_height(heights)))
        x, y, h, wrong = min(options, key=lambda o: len(ghost_layers(o[3], max_height(o[3]))) != layers)
        n = wrong[y][x]
        # The box completed around the misread structure, as the corrupted layer steps fill it.
        return Corruption(
            steps=lambda: layer_steps({**scene, "heights": wrong}, max_height(wrong)),
            answer=str(self.answer_of(wrong)),
            scene={**scene, "heights": wrong},
            description=f"column ({x}, {y}) read as {n} cube{'' if n == 1 else 's'} tall instead of "
            f"{h}; the ghost cubes complete a box {max_height(wrong)} tall around it",
        )
