"""puzzle (ASLP): a grid picture of coloured shapes that follows a regular rule has a missing square region;
which of four candidate pieces fills it consistently.

Every cell holds three channels: a shape, a colour and a shade (tint level). Each colour also has its own mark
drawn at the centre of every shape of that colour (`COLOUR_MARKS`), so no cell is told from another by colour
alone. The picture follows one of three rule families — a repeated motif tile, diagonal stripes, or a
row-periodic shape sequence with a left-to-right shading gradient. The right piece must be the only one the
visible context supports: for every channel, every rectangular period (or "no period" along one axis) that
agrees with all visible cells and predicts every hole cell must predict the same content.

Distractors are windows of the same pattern at other positions (each a valid piece of the picture, only out of
phase) and, in some instances, one turned, mirrored or recoloured copy of a piece drawn at random among the
right one and the windows; so neither the candidates alone nor "its symbols occur in the picture" single out
the right piece (docs/tasks/puzzle.md, "Distractors"). Each differs visibly from the right piece (in symbols and
in pixels) and from the others.

The scene holds the picture as the reader sees it: the hole's cells are null, and the generating rule is not
stored; the solver predicts the hole from the visible cells and fits a rule to them for the step's caption.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from PIL import Image

from vcot.draw.canvas import Canvas
from vcot.draw.colors import rgb
from vcot.draw.marks import contrast_colour, draw_mark
from vcot.schema import option_letters
from vcot.tasks import register
from vcot.tasks.base import (
    Choices,
    Corruption,
    GenContext,
    Limit,
    ParameterError,
    Reject,
    Rendering,
    Solution,
    Task,
)
from vcot.tasks.common.options import only_match, place_correct_option

SHAPES = ("circle", "square", "diamond", "plus", "ring", "cross")  # all unchanged by quarter turns and flips
# Palette names of the shape colours; every pair stays apart under simulated colour-vision deficiencies (red
# with green and blue with purple would not). The colour-vision test reads them here.
CELL_COLOURS = ("red", "blue", "yellow", "black")
# The colours a gradient picture may use: its palest tints must still stand out from the light cell background.
GRADIENT_COLOURS = ("red", "blue", "black")
# The second cue: each colour's mark, drawn at the centre of every shape of that colour (and of its tints).
# Every mark looks the same after any turn or flip, like the shapes.
COLOUR_MARKS = {"red": "cross", "blue": "ring", "yellow": "plus", "black": "dot"}
MARK_WORDS = {
    "cross": "a small diagonal cross (×)",
    "ring": "a small circle",
    "plus": "a small plus sign (+)",
    "dot": "a dot",
}
SHADE_MAX = 0.72  # the palest gradient level mixes this much white into the colour
CHANNELS = ("shape", "colour", "shade")
FAMILIES = ("motif", "stripes", "gradient")


@dataclass(frozen=True)
class PuzzleConfig:
    rows: int = 7
    cols: int = 7
    hole: int = 2
    # A list, not a tuple: Task.params() must survive the JSON round trip of meta unchanged.
    families: list[str] = field(default_factory=lambda: list(FAMILIES))
    max_period: int = 3
    min_cells: int = 2  # distractors differ visibly from the right piece in at least this many cells
    min_pixel_frac: float = 0.04  # ... and in at least this fraction of piece pixels
    altered_prob: float = 0.5  # chance that one distractor is a turned, mirrored or recoloured copy


# -- rules -------------------------------------------------------------------------------------------


def sample_rule(rng: random.Random, family: str, rows: int, cols: int, max_period: int) -> dict[str, Any]:
    if family == "motif":
        p, q = rng.randint(2, max_period), rng.randint(2, max_period)
        shapes = rng.sample(SHAPES, 3)
        colors = rng.sample(CELL_COLOURS, 3)
        tile = [[[rng.choice(shapes), rng.choice(colors)] for _ in range(q)] for _ in range(p)]
        return {"family": family, "p": p, "q": q, "tile": tile}
    if family == "stripes":
        m = rng.randint(2, max_period)
        m2 = rng.choice([k for k in range(2, max_period + 1)])
        return {
            "family": family,
            "m": m,
            "m2": m2,
            "shapes": rng.sample(SHAPES, m),
            "colors": rng.sample(CELL_COLOURS, m2),
            "shape_dir": rng.choice([1, -1]),
        }
    if family == "gradient":
        a = rng.randint(2, max_period)
        return {
            "family": family,
            "a": a,
            "shapes": rng.sample(SHAPES, a),
            "color": rng.choice(GRADIENT_COLOURS),
            "reverse": rng.random() < 0.5,
        }
    raise ValueError(f"unknown family {family!r}")


def rule_cell(rule: dict[str, Any], i: int, j: int, cols: int) -> list[Any]:
    """[shape, colour, shade level] of cell (row i, column j); shade 0 is the full colour."""
    f = rule["family"]
    if f == "motif":
        shape, color = rule["tile"][i % rule["p"]][j % rule["q"]]
        return [shape, color, 0]
    if f == "stripes":
        return [
            rule["shapes"][(i + rule["shape_dir"] * j) % rule["m"]],
            rule["colors"][(i - rule["shape_dir"] * j) % rule["m2"]],
            0,
        ]
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


def predicted_fill(grid: list[list[Any]], hole: tuple[int, int, int]) -> list[list[list[Any]]]:
    """The hole's content as the visible cells predict it (hole cells of `grid` are never read); Reject unless,
    channel by channel, every lattice that agrees with the visible cells and predicts the hole predicts the same
    fill."""
    r0, c0, k = hole
    fills = []
    for ch, name in enumerate(CHANNELS):
        channel = [[None if cell is None else cell[ch] for cell in row] for row in grid]
        preds = channel_predictions(channel, hole)
        if len(preds) != 1:
            raise Reject(
                f"the {name} channel of the hole is not uniquely determined by the context ({len(preds)} predictions)"
            )
        fills.append(next(iter(preds)))
    return [[[fills[ch][i * k + j] for ch in range(len(CHANNELS))] for j in range(k)] for i in range(k)]


def check_determined(grid: list[list[list[Any]]], hole: tuple[int, int, int]) -> None:
    """Reject unless the visible context predicts one and only one fill, the true one (`grid` is complete)."""
    r0, c0, k = hole
    truth = [row[c0 : c0 + k] for row in grid[r0 : r0 + k]]
    if predicted_fill(grid, hole) != truth:
        raise Reject("the context predicts another fill than the rule's")


def hide_hole(grid: list[list[list[Any]]], hole: tuple[int, int, int]) -> list[list[Any]]:
    """The picture as the reader sees it: the hole's cells are null."""
    r0, c0, k = hole
    return [
        [None if r0 <= i < r0 + k and c0 <= j < c0 + k else cell for j, cell in enumerate(row)]
        for i, row in enumerate(grid)
    ]


# -- fitting a rule to the visible cells (the step's caption) ----------------------------------------


def _classes(cells: list[tuple[int, int, list[Any]]], key: Any, ch: int, keys: list[Any]) -> list[Any] | None:
    """Channel `ch` as a function of key(i, j) over the visible cells, listed in the order of `keys`; None when
    two cells of one class disagree or a class has no visible cell."""
    seen: dict[Any, Any] = {}
    for i, j, cell in cells:
        kk = key(i, j)
        if seen.setdefault(kk, cell[ch]) != cell[ch]:
            return None
    return [seen[kk] for kk in keys] if all(kk in seen for kk in keys) else None


def fit_rule(grid: list[list[Any]], rows: int, cols: int) -> dict[str, Any] | None:
    """The simplest rule of the three families that agrees with every visible cell and fixes every class of
    cells (fewest free symbols first); None when none does. It may differ from the rule that drew the picture
    (a motif that happens to be striped), never in what it says about the picture."""
    cells = [(i, j, cell) for i, row in enumerate(grid) for j, cell in enumerate(row) if cell is not None]
    fits: list[tuple[int, dict[str, Any]]] = []
    if all(cell[2] == 0 for _, _, cell in cells):
        for m in range(2, min(rows, cols) // 2 + 1):
            for m2 in range(2, min(rows, cols) // 2 + 1):
                for d in (1, -1):
                    shapes = _classes(cells, lambda i, j, m=m, d=d: (i + d * j) % m, 0, list(range(m)))
                    colors = _classes(cells, lambda i, j, m2=m2, d=d: (i - d * j) % m2, 1, list(range(m2)))
                    if shapes and colors:
                        fits.append(
                            (
                                m + m2,
                                {
                                    "family": "stripes",
                                    "m": m,
                                    "m2": m2,
                                    "shapes": shapes,
                                    "colors": colors,
                                    "shape_dir": d,
                                },
                            )
                        )
        for p in range(1, rows // 2 + 1):
            for q in range(1, cols // 2 + 1):
                keys = [(a, b) for a in range(p) for b in range(q)]
                shapes = _classes(cells, lambda i, j, p=p, q=q: (i % p, j % q), 0, keys)
                colors = _classes(cells, lambda i, j, p=p, q=q: (i % p, j % q), 1, keys)
                if shapes and colors:
                    tile = [[[shapes[a * q + b], colors[a * q + b]] for b in range(q)] for a in range(p)]
                    fits.append((p * q, {"family": "motif", "p": p, "q": q, "tile": tile}))
    else:
        for reverse in (False, True):
            colors = _classes(cells, lambda i, j: 0, 1, [0])
            shades_ok = all(cell[2] == (cols - 1 - j if reverse else j) for _, j, cell in cells)
            for a in range(1, rows // 2 + 1):
                shapes = _classes(cells, lambda i, j, a=a: i % a, 0, list(range(a)))
                if colors and shades_ok and shapes:
                    fits.append(
                        (a, {"family": "gradient", "a": a, "shapes": shapes, "color": colors[0], "reverse": reverse})
                    )
    return min(fits, key=lambda f: f[0])[1] if fits else None


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


def distractor_flaw(
    truth: list[list[list[Any]]],
    t_pix: np.ndarray,
    d: list[list[list[Any]]],
    earlier: list[list[list[list[Any]]]],
    shade_levels: int,
    min_cells: int,
    min_pixel_frac: float,
) -> str | None:
    """Why distractor `d` cannot be offered beside the right piece (pixels `t_pix`) and the `earlier` ones."""
    if d == truth:
        return "equals the hole content"
    cells = sum(visible_cell_diff(a, b) for ra, rb in zip(truth, d, strict=True) for a, b in zip(ra, rb, strict=True))
    if cells < min_cells:
        return f"differs visibly in only {cells} cells"
    frac = float(np.mean(np.abs(piece_pixels(d, shade_levels) - t_pix).max(axis=2) > 40))
    if frac < min_pixel_frac:
        return f"differs in only {frac:.1%} of pixels"
    if d in earlier:
        return "equals another distractor"
    return None


def check_distractors(
    truth: list[list[list[Any]]],
    distractors: list[list[list[list[Any]]]],
    shade_levels: int,
    min_cells: int,
    min_pixel_frac: float,
) -> None:
    """Reject when a distractor equals the hole content, is too close to it, or duplicates another."""
    t_pix = piece_pixels(truth, shade_levels)
    for n, d in enumerate(distractors):
        flaw = distractor_flaw(truth, t_pix, d, distractors[:n], shade_levels, min_cells, min_pixel_frac)
        if flaw:
            raise Reject(f"distractor {n} {flaw}")


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
        swap = {present[0]: rng.choice([x for x in GRADIENT_COLOURS if x != present[0]])}
    return [[[c[0], swap.get(c[1], c[1]), c[2]] for c in row] for row in piece]


def _window(rule: dict[str, Any], r0: int, c0: int, k: int, cols: int) -> list[list[Any]] | None:
    if rule["family"] == "gradient" and not (0 <= c0 and c0 + k <= cols):
        return None
    return [[rule_cell(rule, i, j, cols) for j in range(c0, c0 + k)] for i in range(r0, r0 + k)]


def rule_periods(rule: dict[str, Any]) -> tuple[int, int | None]:
    """Rows and columns after which the whole picture repeats (columns None: the gradient never repeats)."""
    f = rule["family"]
    if f == "motif":
        return rule["p"], rule["q"]
    if f == "stripes":
        n = math.lcm(rule["m"], rule["m2"])
        return n, n
    return rule["a"], None


def window_offsets(rule: dict[str, Any], hole: tuple[int, int, int], cols: int) -> list[tuple[int, int]]:
    """Every other phase a k x k window of the pattern can take, as an offset from the hole: all phases of a
    periodic picture, all columns of a gradient one."""
    rows_period, cols_period = rule_periods(rule)
    r0, c0, k = hole
    dcs = range(cols_period) if cols_period else range(-c0, cols - k - c0 + 1)
    return [(dr, dc) for dr in range(rows_period) for dc in dcs if (dr, dc) != (0, 0)]


def alter(kind: str, piece: list[list[Any]], rng: random.Random, shade_levels: int) -> list[list[Any]]:
    """A turned, mirrored or recoloured copy of a piece."""
    if kind == "rotated":
        return _rot(piece, rng.choice([1, 2, 3]))
    if kind == "mirrored":
        return _mirror(piece, rng.random() < 0.5)
    if kind == "recoloured":
        return _recolour(piece, rng, shade_levels)
    raise ValueError(kind)


ALTERATIONS = ("rotated", "mirrored", "recoloured")


def classify_candidates(
    candidates: list[list[list[Any]]],
    truth: list[list[Any]],
    rule: dict[str, Any],
    hole: tuple[int, int, int],
    cols: int,
) -> list[str]:
    """How each candidate relates to the right piece: `right`, `shifted` (a window of the pattern at another
    position), or a `rotated`/`mirrored`/`recoloured` copy of the right piece or of a shifted window."""
    r0, c0, k = hole
    windows = [w for dr, dc in window_offsets(rule, hole, cols) if (w := _window(rule, r0 + dr, c0 + dc, k, cols))]
    kinds = ["right" if c == truth else "shifted" if c in windows else "" for c in candidates]
    sources = [(truth, "the right piece")] + [
        (c, "a shifted window") for c, kd in zip(candidates, kinds, strict=True) if kd == "shifted"
    ]
    for n, c in enumerate(candidates):
        if kinds[n]:
            continue
        kinds[n] = "recoloured copy of a piece"
        for src, what in sources:
            if any(c == _rot(src, t) for t in (1, 2, 3)):
                kinds[n] = f"rotated copy of {what}"
            elif c in (_mirror(src, True), _mirror(src, False)):
                kinds[n] = f"mirrored copy of {what}"
            else:
                continue
            break
    return kinds


@register
class PuzzleTask(Task):
    name = "puzzle"
    config_cls = PuzzleConfig
    presets = {
        "easy": PuzzleConfig(rows=6, cols=6, hole=2, families=["motif", "stripes"], max_period=3),
        "medium": PuzzleConfig(rows=7, cols=7, hole=2, families=list(FAMILIES), max_period=3),
        "hard": PuzzleConfig(rows=8, cols=8, hole=3, families=list(FAMILIES), max_period=3),
    }
    colour_pools = (CELL_COLOURS,)
    limits = {
        "rows": Limit(
            4,
            12,
            "picture height in cells: the cells shrink to 440/max(rows, cols) px and the "
            "uniqueness check grows with rows x cols x periods",
        ),
        "cols": Limit(4, 12, "picture width in cells (also the number of shade levels), as rows"),
        "hole": Limit(
            2,
            4,
            "side of the missing block: a single cell cannot be turned or mirrored, a larger block "
            "hides whole periods of the pattern",
        ),
        "families": Choices(FAMILIES, "rule families the picture is drawn from"),
        "max_period": Limit(2, len(CELL_COLOURS), "largest motif or stripe period: as many colours as the palette"),
        "min_cells": Limit(
            1,
            8,
            "cells in which a distractor must differ visibly from the right piece (at most half "
            "of a piece's cells, see check_config)",
        ),
        "min_pixel_frac": Limit(
            0.0,
            0.15,
            "fraction of a piece's pixels in which a distractor must differ: shapes "
            "cover under half of a piece, so windows one phase off differ in 0.07-0.45",
        ),
        "altered_prob": Limit(0.0, 1.0, "a probability"),
    }
    version = "4"
    description = "Which candidate piece fills the missing square region of a regular pattern."

    def check_config(self, config: PuzzleConfig) -> None:
        super().check_config(config)
        if 2 * config.max_period > min(config.rows, config.cols):
            raise ParameterError(
                f"parameters of task {self.name}: max_period ({config.max_period}) must be at most "
                f"half of rows and cols ({config.rows} x {config.cols}), or the picture does not "
                "show a period twice and the solver's uniqueness check cannot confirm it"
            )
        if config.hole + config.max_period > min(config.rows, config.cols):
            raise ParameterError(
                f"parameters of task {self.name}: hole + max_period ({config.hole} + "
                f"{config.max_period}) must not exceed rows and cols ({config.rows} x {config.cols}), "
                "or a whole period can hide in the gap and its content is not determined"
            )
        if "stripes" in config.families and config.max_period < 3:
            raise ParameterError(
                f"parameters of task {self.name}: the stripes family needs max_period >= 3 (got "
                f"{config.max_period}): two-period stripes form a checkerboard with only one other "
                "window to offer as a distractor"
            )
        if config.min_cells > config.hole**2 // 2:
            raise ParameterError(
                f"parameters of task {self.name}: min_cells ({config.min_cells}) must be at most "
                f"half the cells of a piece ({config.hole**2 // 2}): windows of the pattern one "
                "phase off share the rest, and too few would remain as distractors"
            )

    def sample_scene(self, ctx: GenContext) -> dict[str, Any]:
        cfg, rng = self.config, ctx.rng
        family = rng.choice(cfg.families)
        rule = sample_rule(rng, family, cfg.rows, cfg.cols, cfg.max_period)
        grid = rule_grid(rule, cfg.rows, cfg.cols)
        k = cfg.hole
        hole = (rng.randint(0, cfg.rows - k), rng.randint(0, cfg.cols - k), k)
        check_determined(grid, hole)
        truth = [row[hole[1] : hole[1] + k] for row in grid[hole[0] : hole[0] + k]]
        altered = rng.random() < cfg.altered_prob
        distractors = self._windows(rule, hole, truth, 2 if altered else 3, rng)
        if altered:
            distractors.append(self._altered(truth, distractors, rng))
        rng.shuffle(distractors)
        candidates = place_correct_option(
            truth, distractors, ctx.balanced(4), lambda c: c == truth, "equal the hole content"
        )
        # The scene is the problem as shown: the hole's content and the generating rule stay out of it.
        return {
            "rows": cfg.rows,
            "cols": cfg.cols,
            "shade_levels": cfg.cols,
            "grid": hide_hole(grid, hole),
            "hole": list(hole),
            "candidates": candidates,
            "options": option_letters(4),
            "min_cells": cfg.min_cells,
            "min_pixel_frac": cfg.min_pixel_frac,
        }

    def _windows(
        self, rule: dict[str, Any], hole: tuple[int, int, int], truth: list[list[Any]], n: int, rng: random.Random
    ) -> list[list[list[Any]]]:
        """n windows of the pattern at other phases, drawn uniformly among those that differ visibly."""
        cfg = self.config
        offsets = window_offsets(rule, hole, cfg.cols)
        rng.shuffle(offsets)
        t_pix = piece_pixels(truth, cfg.cols)
        chosen: list[list[list[Any]]] = []
        for dr, dc in offsets:
            w = _window(rule, hole[0] + dr, hole[1] + dc, hole[2], cfg.cols)
            if w is not None and not distractor_flaw(
                truth, t_pix, w, chosen, cfg.cols, cfg.min_cells, cfg.min_pixel_frac
            ):
                chosen.append(w)
                if len(chosen) == n:
                    return chosen
        raise Reject(f"fewer than {n} windows of the pattern differ visibly from the right piece")

    def _altered(self, truth: list[list[Any]], windows: list[list[list[Any]]], rng: random.Random) -> list[list[Any]]:
        """A turned, mirrored or recoloured copy of a piece drawn uniformly among the right one and the windows,
        so that the piece the copy came from is the right one only as often as a guess would be."""
        cfg = self.config
        source = rng.choice([truth, *windows])
        kind = rng.choice(ALTERATIONS)
        d = alter(kind, source, rng, cfg.cols)
        if distractor_flaw(
            truth, piece_pixels(truth, cfg.cols), d, windows, cfg.cols, cfg.min_cells, cfg.min_pixel_frac
        ):
            raise Reject(f"the {kind} copy is too close to another candidate")
        return d

    def solve(self, scene: dict[str, Any]) -> Solution:
        grid, rows, cols = scene["grid"], scene["rows"], scene["cols"]
        r0, c0, k = scene["hole"]
        if any(grid[i][j] is not None for i in range(r0, r0 + k) for j in range(c0, c0 + k)):
            raise Reject("the scene shows the hole's content")
        truth = predicted_fill(grid, (r0, c0, k))
        rule = fit_rule(grid, rows, cols)
        if rule is None or _window(rule, r0, c0, k, cols) != truth:
            raise Reject("no rule of the three families fits the visible cells and the predicted fill")
        hit = only_match(scene["candidates"], lambda c: c == truth, "equal the hole content")
        others = [c for i, c in enumerate(scene["candidates"]) if i != hit]
        check_distractors(truth, others, scene["shade_levels"], scene["min_cells"], scene["min_pixel_frac"])
        kinds = classify_candidates(scene["candidates"], truth, rule, (r0, c0, k), cols)
        return Solution(
            answer=option_letters(4)[hit],
            states=[truth],
            details={
                "rule": describe_rule(rule),
                "family": rule["family"],
                "fitted_rule": rule,
                "candidate_kinds": kinds,
            },
        )

    def question(self, scene: dict[str, Any]) -> str:
        k = scene["hole"][2]
        return (
            f"The picture is a grid of cells with coloured shapes that follows a regular pattern, but a "
            f"{k}x{k} block of cells is missing (the grey square with a question mark). "
            f"{marks_sentence(scene)} Which of the "
            "candidate pieces A, B, C and D fills the gap so that the pattern continues consistently? "
            "Pieces are placed as drawn (no turning or flipping). Answer with the letter of the piece."
        )

    def options(self, scene: dict[str, Any]) -> list[str]:
        return list(scene["options"])

    def render(self, scene: dict[str, Any], solution: Solution) -> Rendering:
        piece = solution.states[0]
        rule, gradient = solution.details["rule"], solution.details["family"] == "gradient"
        return Rendering(
            image=self.render_input(scene, solution),
            steps=[(_filled_image(scene, piece, rule), _filled_text(scene, piece, rule, gradient))],
        )

    def render_input(self, scene: dict[str, Any], solution: Solution) -> Image.Image:
        return _input_image(scene)

    def corrupt(self, scene: dict[str, Any], solution: Solution, rng: random.Random) -> Corruption | None:
        """The pattern's period misread by one (a motif's rows or columns, a stripe's period, a gradient's shape
        cycle), and the gap filled by that misread rule from the nearest visible cells it ties to each gap cell.

        The step then states the misread rule in the words of a right step and fills the gap as that rule says,
        so no gap cell breaks the rule stated beside it; only the period read off the picture is wrong. A
        misread that fills the gap as the true rule does is passed over; without another the scene has no
        corruption."""
        rule = solution.details["fitted_rule"]
        gradient = rule["family"] == "gradient"
        truth = solution.states[0]
        options = [
            {**rule, key: rule[key] + step}
            for key in PERIOD_KEYS[rule["family"]]
            for step in (-1, 1)
            if rule[key] + step >= 1
        ]
        rng.shuffle(options)
        # Off by one first, then by two; a period of 1 ("repeat every 1 rows") last, as it reads oddly.
        wider = [
            {**rule, key: rule[key] + step}
            for key in PERIOD_KEYS[rule["family"]]
            for step in (-2, 2)
            if rule[key] + step >= 1
        ]
        rng.shuffle(wider)
        ordered = sorted(options + wider, key=lambda r: min(r[k] for k in PERIOD_KEYS[rule["family"]]) < 2)
        for wrong in ordered:
            piece = misread_fill(scene, wrong)
            if piece is not None and piece != truth:
                text = describe_rule(wrong)
                # The trajectory fills the gap with `piece`; the option it points to is the candidate drawn with
                # exactly that content, and none when no candidate is (the misread fill is rarely a window the
                # distractors were cut from). No misread scene: the picture is read right, the rule is not.
                hits = [n for n, cand in enumerate(scene["candidates"]) if cand == piece]
                implied = option_letters(4)[hits[0]] if len(hits) == 1 else None
                return Corruption(
                    steps=lambda piece=piece, text=text: [
                        (_filled_image(scene, piece, text), _filled_text(scene, piece, text, gradient))
                    ],
                    description=f"period misread: {text}",
                    answer=implied,
                )
        return None


# The periods of each family's rule that a reader can misread.
PERIOD_KEYS = {"motif": ("p", "q"), "stripes": ("m", "m2"), "gradient": ("a",)}


def channel_keys(rule: dict[str, Any], i: int, j: int) -> tuple[Any, Any, Any]:
    """Keys of cell (row i, column j) under a rule, one per channel (shape, colour, shade): two cells with the
    same key in a channel show the same value in it."""
    f = rule["family"]
    if f == "motif":
        return (i % rule["p"], j % rule["q"]), (i % rule["p"], j % rule["q"]), 0
    if f == "stripes":
        d = rule["shape_dir"]
        return (i + d * j) % rule["m"], (i - d * j) % rule["m2"], 0
    return i % rule["a"], 0, j


def misread_fill(scene: dict[str, Any], rule: dict[str, Any]) -> list[list[list[Any]]] | None:
    """The gap filled by `rule` from the visible cells: each gap cell takes, channel by channel, the value of the
    nearest visible cell with the same key; None when some gap cell has no such cell."""
    grid = scene["grid"]
    r0, c0, k = scene["hole"]
    visible = [(i, j) for i, row in enumerate(grid) for j, cell in enumerate(row) if cell is not None]
    piece = []
    for i in range(r0, r0 + k):
        row = []
        for j in range(c0, c0 + k):
            keys = channel_keys(rule, i, j)
            cell = []
            for ch in range(3):
                same = [(abs(i - a) + abs(j - b), a, b) for a, b in visible if channel_keys(rule, a, b)[ch] == keys[ch]]
                if not same:
                    return None
                _, a, b = min(same)
                cell.append(grid[a][b][ch])
            row.append(cell)
        piece.append(row)
    return piece


def marks_sentence(scene: dict[str, Any]) -> str:
    """The question's statement of each colour's mark (the cue that does not rely on telling colours apart)."""
    used = {cell[1] for row in scene["grid"] for cell in row if cell is not None}
    used |= {cell[1] for piece in scene["candidates"] for row in piece for cell in row}
    parts = [f"{name} shapes show {MARK_WORDS[COLOUR_MARKS[name]]}" for name in CELL_COLOURS if name in used]
    lead = "Each colour has its own mark at the centre of its shapes, paler shades included: "
    return lead + (", ".join(parts[:-1]) + " and " if len(parts) > 1 else "") + parts[-1] + "."


def _cell_words(cell: list[Any], gradient: bool) -> str:
    shape, colour, level = cell
    return f"{colour} {shape} (shade {level})" if gradient else f"{colour} {shape}"


def _filled_text(scene: dict[str, Any], piece: list[list[Any]], rule: str, gradient: bool) -> str:
    """What the filled step picture shows: the rule caption and the gap's cells; which candidate piece holds
    those cells is the conclusion, left to the reader."""
    r0, c0, k = scene["hole"]
    rows = "; ".join(
        f"gap row {i + 1}: " + ", ".join(_cell_words(cell, gradient) for cell in row) for i, row in enumerate(piece)
    )
    shades = f" (shade 0 is the full colour, {scene['shade_levels'] - 1} the palest)" if gradient else ""
    return (
        f"{rule} The gap, rows {r0 + 1}-{r0 + k} and columns {c0 + 1}-{c0 + k} counted from the top-left, "
        f"is drawn filled in and outlined in black. Its cells, left to right{shades}: {rows}."
    )


def describe_rule(rule: dict[str, Any]) -> str:
    f = rule["family"]
    if f == "motif":
        return f"The picture repeats a block of {rule['p']} rows by {rule['q']} columns in both directions."
    if f == "stripes":
        return (
            f"Shapes repeat along diagonal stripes with period {rule['m']} and colours along the other "
            f"diagonal with period {rule['m2']}."
        )
    side = "right" if not rule["reverse"] else "left"
    return (
        f"Shapes repeat every {rule['a']} rows, the colour is {rule['color']} everywhere, and the shade "
        f"gets paler column by column towards the {side}."
    )


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
        c.polygon(
            [(cx, cy - r * 1.1), (cx + r * 1.1, cy), (cx, cy + r * 1.1), (cx - r * 1.1, cy)], fill=col, outline=None
        )
    else:
        w = r * 0.36
        arm = [
            (-w, -r),
            (w, -r),
            (w, -w),
            (r, -w),
            (r, w),
            (w, w),
            (w, r),
            (-w, r),
            (-w, w),
            (-r, w),
            (-r, -w),
            (-w, -w),
        ]
        if shape == "cross":  # the plus turned by 45 degrees
            h = 0.7071
            arm = [((px - py) * h, (px + py) * h) for px, py in arm]
        c.polygon([(cx + px, cy + py) for px, py in arm], fill=col, outline=None)
    # The colour's mark, small enough to sit inside the centre of a plus or cross; inside a ring it stands on
    # the cell's background.
    under = (246, 246, 246) if shape == "ring" else col
    draw_mark(c, COLOUR_MARKS[color], (cx, cy), size * 0.1, contrast_colour(under), stroke=0.4)


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
        c.text(
            (hx + k * cell / 2, hy + k * cell / 2), "?", size=int(cell * 0.9), bold=True, anchor="mm", color="darkgray"
        )
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
