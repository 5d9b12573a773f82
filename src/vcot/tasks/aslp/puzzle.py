"""puzzle (ASLP): a grid picture of coloured shapes that follows a regular rule has a missing square region;
which of four candidate pieces fills it consistently.

Every cell holds three channels: a shape, a colour and a shade (tint level). The picture follows one of three
rule families — a repeated motif tile, diagonal stripes, or a row-periodic shape sequence with a left-to-right
shading gradient. The right piece must be the only one the visible context supports: for every channel, every
rectangular period (or "no period" along one axis) that agrees with all visible cells and predicts every hole
cell must predict the same content. Distractors are the right piece rotated, mirrored, taken from a shifted
window of the pattern, or recoloured/reshaded; each differs visibly from the right piece (in symbols and in
pixels) and from the others.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from PIL import Image

from vcot.draw.canvas import Canvas
from vcot.draw.colors import rgb
from vcot.schema import option_letters
from vcot.tasks import register
from vcot.tasks.base import Corruption, GenContext, Reject, Rendering, Solution, Task
from vcot.tasks.common.options import only_match, place_correct_option

SHAPES = ("circle", "square", "diamond", "plus", "ring", "cross")  # all unchanged by quarter turns and flips
COLORS = ("red", "blue", "green", "orange", "purple")
SHADE_MAX = 0.72  # the palest gradient level mixes this much white into the colour
CHANNELS = ("shape", "colour", "shade")


@dataclass(frozen=True)
class PuzzleConfig:
    rows: int = 7
    cols: int = 7
    hole: int = 2
    # A list, not a tuple: Task.params() must survive the JSON round trip of meta unchanged.
    families: list[str] = field(default_factory=lambda: ["motif", "stripes", "gradient"])
    max_period: int = 3
    min_cells: int = 2  # distractors differ visibly from the right piece in at least this many cells
    min_pixel_frac: float = 0.04  # ... and in at least this fraction of piece pixels


# -- rules -------------------------------------------------------------------------------------------

def sample_rule(rng: random.Random, family: str, rows: int, cols: int, max_period: int) -> dict[str, Any]:
    if family == "motif":
        p, q = rng.randint(2, max_period), rng.randint(2, max_period)
        shapes = rng.sample(SHAPES, 3)
        colors = rng.sample(COLORS, 3)
        tile = [[[rng.choice(shapes), rng.choice(colors)] for _ in range(q)] for _ in range(p)]
        return {"family": family, "p": p, "q": q, "tile": tile}
    if family == "stripes":
        m = rng.randint(2, max_period)
        m2 = rng.choice([k for k in range(2, max_period + 1)])
        return {"family": family, "m": m, "m2": m2, "shapes": rng.sample(SHAPES, m),
                "colors": rng.sample(COLORS, m2), "shape_dir": rng.choice([1, -1])}
    if family == "gradient":
        a = rng.randint(2, max_period)
        return {"family": family, "a": a, "shapes": rng.sample(SHAPES, a), "color": rng.choice(COLORS),
                "reverse": rng.random() < 0.5}
    raise ValueError(f"unknown family {family!r}")


def rule_cell(rule: dict[str, Any], i: int, j: int, cols: int) -> list[Any]:
    """[shape, colour, shade level] of cell (row i, column j); shade 0 is the full colour."""
    f = rule["family"]
    if f == "motif":
        shape, color = rule["tile"][i % rule["p"]][j % rule["q"]]
        return [shape, color, 0]
    if f == "stripes":
        return [rule["shapes"][(i + rule["shape_dir"] * j) % rule["m"]],
                rule["colors"][(i - rule["shape_dir"] * j) % rule["m2"]], 0]
    level = cols - 1 - j if rule["reverse"] else j
    return [rule["shapes"][i % rule["a"]], rule["color"], level]


def rule_grid(rule: dict[str, Any], rows: int, cols: int) -> list[list[list[Any]]]:
    return [[rule_cell(rule, i, j, cols) for j in range(cols)] for i in range(rows)]


# -- uniqueness --------------------------------------------------------------------------------------

def channel_predictions(channel: list[list[Any]], hole: tuple[int, int, int]) -> set[tuple[Any, ...]]:
    """Every hole fill predicted by a rectangular period (p, q) that agrees with all visible cells.

    p runs over 1..rows//2 plus "none" (0: rows are independent), q likewise; a lattice counts only when it
    predicts every hole cell, i.e. each hole cell shares its residue class with some visible cell.
    """
    rows, cols = len(channel), len(channel[0])
    r0, c0, k = hole
    in_hole = [[r0 <= i < r0 + k and c0 <= j < c0 + k for j in range(cols)] for i in range(rows)]
    preds: set[tuple[Any, ...]] = set()
    for p in range(0, rows // 2 + 1):
        for q in range(0, cols // 2 + 1):
            if p == 0 and q == 0:
                continue
            seen: dict[tuple[int, int], Any] = {}
            ok = True
            for i in range(rows):
                for j in range(cols):
                    if in_hole[i][j]:
                        continue
                    key = (i % p if p else i, j % q if q else j)
                    if key in seen and seen[key] != channel[i][j]:
                        ok = False
                        break
                    seen[key] = channel[i][j]
                if not ok:
                    break
            if not ok:
                continue
            fill = []
            for i in range(r0, r0 + k):
                for j in range(c0, c0 + k):
                    key = (i % p if p else i, j % q if q else j)
                    if key not in seen:
                        ok = False
                        break
                    fill.append(seen[key])
                if not ok:
                    break
            if ok:
                preds.add(tuple(fill))
    return preds


def check_determined(grid: list[list[list[Any]]], hole: tuple[int, int, int]) -> None:
    """Reject unless, channel by channel, the visible context predicts one and only one fill (the true one)."""
    r0, c0, k = hole
    for ch, name in enumerate(CHANNELS):
        channel = [[cell[ch] for cell in row] for row in grid]
        truth = tuple(channel[i][j] for i in range(r0, r0 + k) for j in range(c0, c0 + k))
        preds = channel_predictions(channel, hole)
        if preds != {truth}:
            raise Reject(f"the {name} channel of the hole is not uniquely determined by the context "
                         f"({len(preds)} predictions)")


def piece_pixels(piece: list[list[list[Any]]], shade_levels: int, cell: int = 24) -> np.ndarray:
    k = len(piece)
    c = Canvas(k * cell, k * cell)
    for r in range(k):
        for q in range(k):
            _draw_cell(c, piece[r][q], q * cell, r * cell, cell, shade_levels)
    return np.asarray(c.image(), dtype=np.int16)


def visible_cell_diff(a: list[Any], b: list[Any]) -> bool:
    """Shape or colour differ, or the shade differs by at least two gradient levels."""
    return a[0] != b[0] or a[1] != b[1] or abs(a[2] - b[2]) >= 2


def check_distractors(truth: list[list[list[Any]]], distractors: list[list[list[list[Any]]]],
                      shade_levels: int, min_cells: int, min_pixel_frac: float) -> None:
    """Reject when a distractor equals the hole content, is too close to it, or duplicates another."""
    t_pix = piece_pixels(truth, shade_levels)
    for n, d in enumerate(distractors):
        if d == truth:
            raise Reject(f"distractor {n} equals the hole content")
        cells = sum(visible_cell_diff(a, b) for ra, rb in zip(truth, d, strict=True)
                    for a, b in zip(ra, rb, strict=True))
        if cells < min_cells:
            raise Reject(f"distractor {n} differs visibly in only {cells} cells")
        frac = float(np.mean(np.abs(piece_pixels(d, shade_levels) - t_pix).max(axis=2) > 40))
        if frac < min_pixel_frac:
            raise Reject(f"distractor {n} differs in only {frac:.1%} of pixels")
        for m in range(n):
            if distractors[m] == d:
                raise Reject(f"distractors {m} and {n} are equal")


# -- piece transforms --------------------------------------------------------------------------------

def _rot(piece: list[list[Any]], quarter_turns: int) -> list[list[Any]]:
    arr = [row[:] for row in piece]
    for _ in range(quarter_turns):  # counter-clockwise quarter turn
        k = len(arr)
        arr = [[arr[j][k - 1 - i] for j in range(k)] for i in range(k)]
    return arr


def _mirror(piece: list[list[Any]], horizontal: bool) -> list[list[Any]]:
    return [row[::-1] for row in piece] if horizontal else piece[::-1]


def _recolour(piece: list[list[Any]], rng: random.Random, shade_levels: int) -> list[list[Any]]:
    cells = [c for row in piece for c in row]
    if any(c[2] != cells[0][2] for c in cells):
        # Wrong shading: the same shapes two or three gradient levels darker or paler.
        lo, hi = min(c[2] for c in cells), max(c[2] for c in cells)
        shifts = [d for d in (-3, -2, 2, 3) if lo + d >= 0 and hi + d <= shade_levels - 1]
        if shifts:
            d = rng.choice(shifts)
            return [[[c[0], c[1], c[2] + d] for c in row] for row in piece]
    present = sorted({c[1] for c in cells})
    if len(present) >= 2:
        a, b = rng.sample(present, 2)
        swap = {a: b, b: a}
    else:
        swap = {present[0]: rng.choice([x for x in COLORS if x != present[0]])}
    return [[[c[0], swap.get(c[1], c[1]), c[2]] for c in row] for row in piece]


def _window(rule: dict[str, Any], r0: int, c0: int, k: int, cols: int) -> list[list[Any]] | None:
    if rule["family"] == "gradient" and not (0 <= c0 and c0 + k <= cols):
        return None
    return [[rule_cell(rule, i, j, cols) for j in range(c0, c0 + k)] for i in range(r0, r0 + k)]


def make_distractor(kind: str, truth: list[list[Any]], rule: dict[str, Any], hole: tuple[int, int, int],
                    cols: int, rng: random.Random, shade_levels: int) -> list[list[Any]] | None:
    r0, c0, k = hole
    if kind == "rotated":
        return _rot(truth, rng.choice([1, 2, 3]))
    if kind == "mirrored":
        return _mirror(truth, rng.random() < 0.5)
    if kind == "shifted":
        dr, dc = rng.choice([(0, 1), (0, -1), (1, 0), (-1, 0), (1, 1), (1, -1)])
        return _window(rule, r0 + dr, c0 + dc, k, cols)
    if kind == "recoloured":
        return _recolour(truth, rng, shade_levels)
    raise ValueError(kind)


DISTRACTOR_KINDS = ("rotated", "mirrored", "shifted", "recoloured")


@register
class PuzzleTask(Task):
    name = "puzzle"
    config_cls = PuzzleConfig
    presets = {
        "easy": PuzzleConfig(rows=6, cols=6, hole=2, families=["motif", "stripes"], max_period=3),
        "medium": PuzzleConfig(rows=7, cols=7, hole=2, families=["motif", "stripes", "gradient"], max_period=3),
        "hard": PuzzleConfig(rows=8, cols=8, hole=3, families=["motif", "stripes", "gradient"], max_period=3),
    }
    version = "2"
    description = "Which candidate piece fills the missing square region of a regular pattern."

    def sample_scene(self, ctx: GenContext) -> dict[str, Any]:
        cfg, rng = self.config, ctx.rng
        family = rng.choice(cfg.families)
        rule = sample_rule(rng, family, cfg.rows, cfg.cols, cfg.max_period)
        grid = rule_grid(rule, cfg.rows, cfg.cols)
        k = cfg.hole
        hole = (rng.randint(0, cfg.rows - k), rng.randint(0, cfg.cols - k), k)
        check_determined(grid, hole)
        truth = [row[hole[1]:hole[1] + k] for row in grid[hole[0]:hole[0] + k]]
        kinds = list(DISTRACTOR_KINDS)
        rng.shuffle(kinds)
        chosen: list[tuple[str, list[list[Any]]]] = []
        for kind in kinds:
            for _ in range(4):
                d = make_distractor(kind, truth, rule, hole, cfg.cols, rng, cfg.cols)
                if d is None:
                    continue
                try:
                    check_distractors(truth, [c for _, c in chosen] + [d], cfg.cols, cfg.min_cells,
                                      cfg.min_pixel_frac)
                except Reject:
                    continue
                chosen.append((kind, d))
                break
            if len(chosen) == 3:
                break
        if len(chosen) < 3:
            raise Reject("could not find three visibly different distractors")
        chosen = place_correct_option(("right", truth), chosen, ctx.balanced(4), lambda kc: kc[1] == truth,
                                      "equal the hole content")
        return {"rows": cfg.rows, "cols": cfg.cols, "shade_levels": cfg.cols, "rule": rule, "grid": grid,
                "hole": list(hole), "candidates": [c for _, c in chosen],
                "candidate_kinds": [kd for kd, _ in chosen], "options": option_letters(4),
                "min_cells": cfg.min_cells, "min_pixel_frac": cfg.min_pixel_frac}

    def solve(self, scene: dict[str, Any]) -> Solution:
        grid = scene["grid"]
        if grid != rule_grid(scene["rule"], scene["rows"], scene["cols"]):
            raise Reject("grid does not follow its rule")
        r0, c0, k = scene["hole"]
        check_determined(grid, (r0, c0, k))
        truth = [row[c0:c0 + k] for row in grid[r0:r0 + k]]
        hit = only_match(scene["candidates"], lambda c: c == truth, "equal the hole content")
        others = [c for i, c in enumerate(scene["candidates"]) if i != hit]
        check_distractors(truth, others, scene["shade_levels"], scene["min_cells"], scene["min_pixel_frac"])
        return Solution(answer=option_letters(4)[hit], states=[truth], details={"rule": describe_rule(scene)})

    def question(self, scene: dict[str, Any]) -> str:
        k = scene["hole"][2]
        return (f"The picture is a grid of cells with coloured shapes that follows a regular pattern, but a "
                f"{k}x{k} block of cells is missing (the grey square with a question mark). Which of the "
                "candidate pieces A, B, C and D fills the gap so that the pattern continues consistently? "
                "Pieces are placed as drawn (no turning or flipping). Answer with the letter of the piece.")

    def options(self, scene: dict[str, Any]) -> list[str]:
        return list(scene["options"])

    def render(self, scene: dict[str, Any], solution: Solution) -> Rendering:
        image = _input_image(scene)
        piece = solution.states[0]
        rule = solution.details["rule"]
        return Rendering(image=image, steps=[(_filled_image(scene, piece, rule), _filled_text(scene, piece, rule))])

    def corrupt(self, scene: dict[str, Any], solution: Solution, rng: random.Random) -> Corruption:
        letters = option_letters(4)
        wrong = rng.choice([i for i in range(4) if letters[i] != solution.answer])
        piece = scene["candidates"][wrong]
        rule = solution.details["rule"]
        return Corruption(steps=[(_filled_image(scene, piece, rule), _filled_text(scene, piece, rule))],
                          description=f"hole filled with the {scene['candidate_kinds'][wrong]} distractor "
                                      f"{letters[wrong]}")


def _cell_words(cell: list[Any], gradient: bool) -> str:
    shape, colour, level = cell
    return f"{colour} {shape} (shade {level})" if gradient else f"{colour} {shape}"


def _filled_text(scene: dict[str, Any], piece: list[list[Any]], rule: str) -> str:
    """What the filled step picture shows: the rule caption and the gap's cells; which candidate piece holds
    those cells is the conclusion, left to the reader."""
    r0, c0, k = scene["hole"]
    gradient = scene["rule"]["family"] == "gradient"
    rows = "; ".join(f"gap row {i + 1}: " + ", ".join(_cell_words(cell, gradient) for cell in row)
                     for i, row in enumerate(piece))
    shades = (f" (shade 0 is the full colour, {scene['shade_levels'] - 1} the palest)" if gradient else "")
    return (f"{rule} The gap, rows {r0 + 1}-{r0 + k} and columns {c0 + 1}-{c0 + k} counted from the top-left, "
            f"is drawn filled in and outlined in black. Its cells, left to right{shades}: {rows}.")


def describe_rule(scene: dict[str, Any]) -> str:
    rule = scene["rule"]
    f = rule["family"]
    if f == "motif":
        return (f"The picture repeats a block of {rule['p']} rows by {rule['q']} columns in both directions.")
    if f == "stripes":
        return (f"Shapes repeat along diagonal stripes with period {rule['m']} and colours along the other "
                f"diagonal with period {rule['m2']}.")
    side = "right" if not rule["reverse"] else "left"
    return (f"Shapes repeat every {rule['a']} rows, the colour is {rule['color']} everywhere, and the shade "
            f"gets paler column by column towards the {side}.")


# -- drawing -----------------------------------------------------------------------------------------

def _shade(color: str, level: int, levels: int) -> tuple[int, int, int]:
    base = rgb(color)
    t = SHADE_MAX * level / max(1, levels - 1)
    return tuple(int(round(v + (255 - v) * t)) for v in base)  # type: ignore[return-value]


def _draw_cell(c: Canvas, cell: list[Any], x: float, y: float, size: float, levels: int) -> None:
    c.rect((x, y, x + size, y + size), fill=(246, 246, 246), outline="lightgray", width=1)
    shape, color, level = cell
    col = _shade(color, level, levels)
    cx, cy, r = x + size / 2, y + size / 2, size * 0.34
    if shape == "circle":
        c.circle((cx, cy), r, fill=col, outline=None)
    elif shape == "ring":
        c.circle((cx, cy), r * 0.85, fill=None, outline=col, width=max(3.0, size * 0.12))
    elif shape == "square":
        s = r * 0.85
        c.rect((cx - s, cy - s, cx + s, cy + s), fill=col, outline=None)
    elif shape == "diamond":
        c.polygon([(cx, cy - r * 1.1), (cx + r * 1.1, cy), (cx, cy + r * 1.1), (cx - r * 1.1, cy)], fill=col,
                  outline=None)
    else:
        w = r * 0.36
        arm = [(-w, -r), (w, -r), (w, -w), (r, -w), (r, w), (w, w), (w, r), (-w, r), (-w, w), (-r, w),
               (-r, -w), (-w, -w)]
        if shape == "cross":  # the plus turned by 45 degrees
            h = 0.7071
            arm = [((px - py) * h, (px + py) * h) for px, py in arm]
        c.polygon([(cx + px, cy + py) for px, py in arm], fill=col, outline=None)


def _cell_size(scene: dict[str, Any]) -> float:
    return min(64.0, 440.0 / max(scene["rows"], scene["cols"]))


def _draw_grid(c: Canvas, scene: dict[str, Any], x0: float, y0: float, fill: list[list[Any]] | None) -> None:
    cell = _cell_size(scene)
    r0, c0, k = scene["hole"]
    for i, row in enumerate(scene["grid"]):
        for j, content in enumerate(row):
            inside = r0 <= i < r0 + k and c0 <= j < c0 + k
            if inside and fill is None:
                continue
            if inside and fill is not None:
                content = fill[i - r0][j - c0]
            _draw_cell(c, content, x0 + j * cell, y0 + i * cell, cell, scene["shade_levels"])
    hx, hy = x0 + c0 * cell, y0 + r0 * cell
    if fill is None:
        c.rect((hx, hy, hx + k * cell, hy + k * cell), fill="lightgray", outline="darkgray", width=2)
        c.text((hx + k * cell / 2, hy + k * cell / 2), "?", size=int(cell * 0.9), bold=True, anchor="mm",
               color="darkgray")
    else:
        c.rect((hx, hy, hx + k * cell, hy + k * cell), fill=None, outline="black", width=4)
    c.rect((x0, y0, x0 + scene["cols"] * cell, y0 + scene["rows"] * cell), fill=None, outline="black", width=2)


def _input_image(scene: dict[str, Any]) -> Image.Image:
    cell = _cell_size(scene)
    k = scene["hole"][2]
    gw, gh = scene["cols"] * cell, scene["rows"] * cell
    piece = k * cell
    W = 800
    gap = (W - 4 * piece) / 5
    H = int(16 + gh + 30 + 34 + piece + 16)
    c = Canvas(W, H)
    _draw_grid(c, scene, (W - gw) / 2, 16, None)
    y = 16 + gh + 30
    for n, letter in enumerate(option_letters(4)):
        x = gap + n * (piece + gap)
        c.text((x + piece / 2, y), letter, size=22, bold=True, anchor="mt")
        cand = scene["candidates"][n]
        for i in range(k):
            for j in range(k):
                _draw_cell(c, cand[i][j], x + j * cell, y + 34 + i * cell, cell, scene["shade_levels"])
        c.rect((x, y + 34, x + piece, y + 34 + piece), fill=None, outline="black", width=2)
    return c.image()


CAPTION_SIZE = 16


def _wrap(c: Canvas, text: str, width: float, size: int) -> list[str]:
    lines: list[str] = []
    for word in text.split():
        if lines and c.text_size(f"{lines[-1]} {word}", size)[0] <= width:
            lines[-1] = f"{lines[-1]} {word}"
        else:
            lines.append(word)
    return lines


def _filled_image(scene: dict[str, Any], piece: list[list[Any]], rule: str) -> Image.Image:
    """The picture with the gap filled by `piece`, under the rule written as a caption (the text states the
    rule too, and a step text says only what its picture shows)."""
    cell = _cell_size(scene)
    gw, gh = scene["cols"] * cell, scene["rows"] * cell
    W = 800
    lines = _wrap(Canvas(1, 1), rule, W - 40, CAPTION_SIZE)
    line_h = CAPTION_SIZE + 6
    c = Canvas(W, int(gh + 70 + 10 + line_h * len(lines)))
    c.text((W / 2, 10), "Gap filled", size=20, bold=True, anchor="mt")
    _draw_grid(c, scene, (W - gw) / 2, 46, piece)
    for n, line in enumerate(lines):
        c.text((W / 2, 46 + gh + 16 + n * line_h), line, size=CAPTION_SIZE, anchor="mt")
    return c.image()
