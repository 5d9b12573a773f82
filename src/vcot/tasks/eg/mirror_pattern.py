"""mirror_pattern (EG): which of four candidate grids is a single mirror reflection of a coloured pattern.

Patterns are square grids of coloured cells without any symmetry of the square (so a reflection can never
coincide with a rotation and exactly one candidate can be right). Distractors are rotations of the pattern,
reflections across an axis the question does not allow, or near-misses (the right answer with one cell
recoloured); none of them equals any allowed reflection and no two candidates are equal.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from PIL import Image

from vcot.draw.canvas import Canvas
from vcot.schema import option_letters
from vcot.tasks import register
from vcot.tasks.base import Corruption, GenContext, Reject, Rendering, Solution, Task
from vcot.tasks.common.options import only_match, place_correct_option

Grid = np.ndarray

TRANSFORMS: dict[str, Callable[[Grid], Grid]] = {
    "identity": lambda a: a,
    "rot90": lambda a: np.rot90(a, 1),  # a quarter turn counter-clockwise
    "rot180": lambda a: np.rot90(a, 2),
    "rot270": lambda a: np.rot90(a, 3),
    "vertical": np.fliplr,  # mirror line vertical: left and right swap
    "horizontal": np.flipud,  # mirror line horizontal: top and bottom swap
    "diagonal": lambda a: a.T,  # mirror line from top-left to bottom-right corner
    "antidiagonal": lambda a: np.rot90(a, 2).T,  # mirror line from top-right to bottom-left corner
}
REFLECTIONS = ("vertical", "horizontal", "diagonal", "antidiagonal")
ROTATIONS = ("rot90", "rot180", "rot270")
AXIS_WORDS = {
    "vertical": "a vertical mirror line (left and right swap)",
    "horizontal": "a horizontal mirror line (top and bottom swap)",
    "diagonal": "the diagonal mirror line from the top-left corner to the bottom-right corner",
    "antidiagonal": "the diagonal mirror line from the top-right corner to the bottom-left corner",
}
COLOR_POOL = ("red", "blue", "yellow", "green", "purple")


@dataclass(frozen=True)
class MirrorPatternConfig:
    size: int = 5
    n_colors: int = 3  # including white
    # A list, not a tuple: Task.params() must survive the JSON round trip of meta unchanged.
    axes: list[str] = field(default_factory=lambda: list(REFLECTIONS))  # the stated axis (mode "axis")
    mode: str = "axis"  # "axis": one stated axis; "any": a single reflection, possibly followed by a rotation
    max_near_miss: int = 1
    min_diff: int = 3  # rotations / wrong reflections differ from the answer in at least this many cells


def allowed_reflections(scene: dict[str, Any]) -> tuple[str, ...]:
    return REFLECTIONS if scene["mode"] == "any" else (scene["axis"],)


def check_asymmetric(pattern: Grid) -> None:
    """Reject a pattern mapped onto itself by any symmetry of the square other than the identity."""
    for name, f in TRANSFORMS.items():
        if name != "identity" and np.array_equal(f(pattern), pattern):
            raise Reject(f"pattern is symmetric under {name}")


def reflection_test(pattern: Grid, allowed: tuple[str, ...]) -> Callable[[Grid], bool]:
    """Whether a grid equals an allowed reflection of the pattern."""
    variants = [TRANSFORMS[t](pattern) for t in allowed]
    return lambda grid: any(np.array_equal(grid, v) for v in variants)


def check_candidates(pattern: Grid, candidates: list[Grid], allowed: tuple[str, ...]) -> int:
    """The index of the only candidate equal to an allowed reflection; Reject unless exactly one exists
    and all candidates differ pairwise."""
    hit = only_match(candidates, reflection_test(pattern, allowed), "equal an allowed reflection")
    check_distinct(candidates)
    return hit


def check_distinct(candidates: list[Grid]) -> None:
    """Reject when two candidates are equal (two letters would name the same grid)."""
    for i in range(len(candidates)):
        for j in range(i + 1, len(candidates)):
            if np.array_equal(candidates[i], candidates[j]):
                raise Reject(f"candidates {i} and {j} are equal")


def _diff(a: Grid, b: Grid) -> int:
    return int(np.sum(a != b))


@register
class MirrorPatternTask(Task):
    name = "mirror_pattern"
    config_cls = MirrorPatternConfig
    presets = {
        "easy": MirrorPatternConfig(size=4, n_colors=2, axes=["vertical", "horizontal"], mode="axis",
                                    max_near_miss=0),
        "medium": MirrorPatternConfig(size=5, n_colors=3, axes=list(REFLECTIONS), mode="axis", max_near_miss=1),
        "hard": MirrorPatternConfig(size=6, n_colors=3, mode="any", max_near_miss=2),
    }
    version = "2"
    description = "Which candidate grid is a single mirror reflection of the pattern."

    def sample_scene(self, ctx: GenContext) -> dict[str, Any]:
        cfg, rng = self.config, ctx.rng
        n = cfg.size
        colors = ["white"] + rng.sample(COLOR_POOL, cfg.n_colors - 1)
        pattern = np.array([[rng.randrange(cfg.n_colors) for _ in range(n)] for _ in range(n)])
        if len(set(pattern.flatten().tolist())) < cfg.n_colors:
            raise Reject("a colour is missing")
        check_asymmetric(pattern)
        axis = rng.choice(cfg.axes) if cfg.mode == "axis" else None
        allowed = REFLECTIONS if cfg.mode == "any" else (axis,)
        answer_t = rng.choice(allowed)
        answer = TRANSFORMS[answer_t](pattern)
        pool: list[tuple[str, Grid]] = [(t, TRANSFORMS[t](pattern)) for t in ROTATIONS]
        pool += [(t, TRANSFORMS[t](pattern)) for t in REFLECTIONS if t not in allowed]
        for name, g in pool:
            if _diff(g, answer) < cfg.min_diff:
                raise Reject(f"{name} of the pattern is too close to the answer")
        rng.shuffle(pool)
        n_near = rng.randint(0, cfg.max_near_miss)
        chosen = pool[: 3 - n_near]
        for _ in range(n_near):
            near = answer.copy()
            r, c = rng.randrange(n), rng.randrange(n)
            near[r, c] = rng.choice([k for k in range(cfg.n_colors) if k != near[r, c]])
            chosen.append((f"near_miss({r},{c})", near))
        rng.shuffle(chosen)
        is_reflection = reflection_test(pattern, allowed)
        chosen = place_correct_option((answer_t, answer), chosen, ctx.balanced(4),
                                      lambda kg: is_reflection(kg[1]), "equal an allowed reflection")
        candidates = [g for _, g in chosen]
        check_distinct(candidates)
        return {"size": n, "colors": colors, "pattern": pattern.tolist(), "mode": cfg.mode, "axis": axis,
                "candidates": [g.tolist() for g in candidates], "candidate_kinds": [k for k, _ in chosen],
                "options": option_letters(4)}

    def solve(self, scene: dict[str, Any]) -> Solution:
        pattern = np.array(scene["pattern"])
        check_asymmetric(pattern)
        candidates = [np.array(c) for c in scene["candidates"]]
        allowed = allowed_reflections(scene)
        idx = check_candidates(pattern, candidates, allowed)
        axis = next(t for t in allowed if np.array_equal(TRANSFORMS[t](pattern), candidates[idx]))
        return Solution(answer=option_letters(len(candidates))[idx], states=[axis], details={"axis": axis})

    def question(self, scene: dict[str, Any]) -> str:
        head = ("The top grid is a pattern of coloured cells; below are four candidate grids A, B, C and D. ")
        if scene["mode"] == "any":
            rule = ("Exactly one candidate is the pattern after a single mirror reflection, possibly followed by "
                    "a rotation (the other candidates are pure rotations or differ in some cell). Which one? ")
        else:
            rule = (f"Exactly one candidate is the pattern reflected across {AXIS_WORDS[scene['axis']]}. "
                    "Which one? ")
        return head + rule + "Answer with the letter of the candidate (A, B, C or D)."

    def options(self, scene: dict[str, Any]) -> list[str]:
        return list(scene["options"])

    def render(self, scene: dict[str, Any], solution: Solution) -> Rendering:
        image = _input_image(scene)
        axis = solution.details["axis"]
        reflected = TRANSFORMS[axis](np.array(scene["pattern"]))
        return Rendering(image=image, steps=[(_step_image(scene, axis, reflected),
                                              _step_text(scene, axis, reflected))])

    def corrupt(self, scene: dict[str, Any], solution: Solution, rng: random.Random) -> Corruption:
        pattern = np.array(scene["pattern"])
        right = solution.details["axis"]
        wrong_axis = rng.choice([t for t in REFLECTIONS if t != right])
        wrong = TRANSFORMS[wrong_axis](pattern)
        return Corruption(steps=[(_step_image(scene, wrong_axis, wrong), _step_text(scene, wrong_axis, wrong))],
                          description=f"reflected across {wrong_axis} instead of {right}")


def _step_text(scene: dict[str, Any], axis: str, reflected: Grid) -> str:
    """What the step picture shows: the mirror line and the reflected grid, cell by cell. Which candidate
    equals that grid is the conclusion, left to the reader."""
    names = scene["colors"]
    rows = "; ".join(f"row {r + 1}: " + ", ".join(names[v] for v in row) for r, row in enumerate(reflected.tolist()))
    return (f"Left: the pattern with {AXIS_WORDS[axis]} drawn dashed. Right: the pattern reflected across it, "
            f"row by row from the top, cells from left to right: {rows}.")


# -- drawing -----------------------------------------------------------------------------------------

def _draw_grid(c: Canvas, grid: list[list[int]], colors: list[str], x0: float, y0: float, cell: float) -> None:
    n = len(grid)
    for r in range(n):
        for k in range(n):
            c.rect((x0 + k * cell, y0 + r * cell, x0 + (k + 1) * cell, y0 + (r + 1) * cell),
                   fill=colors[grid[r][k]], outline="darkgray", width=1)
    c.rect((x0, y0, x0 + n * cell, y0 + n * cell), fill=None, outline="black", width=3)


def _input_image(scene: dict[str, Any]) -> Image.Image:
    n = scene["size"]
    cell_big, cell = 216 / n, 168 / n
    W, gap = 800, 24
    c = Canvas(W, 40 + 216 + 40 + 34 + 168 + 20)
    side = cell_big * n
    c.text((W / 2, 10), "Pattern", size=20, bold=True, anchor="mt")
    _draw_grid(c, scene["pattern"], scene["colors"], (W - side) / 2, 40, cell_big)
    y = 40 + side + 40
    c.line([(10, y - 20), (W - 10, y - 20)], color="lightgray", width=2)
    total = 4 * cell * n + 3 * gap
    x = (W - total) / 2
    for i, letter in enumerate(option_letters(4)):
        c.text((x + cell * n / 2, y), letter, size=22, bold=True, anchor="mt")
        _draw_grid(c, scene["candidates"][i], scene["colors"], x, y + 34, cell)
        x += cell * n + gap
    return c.image()


def _axis_line(c: Canvas, axis: str, x0: float, y0: float, side: float) -> None:
    ext = 18
    ends = {
        "vertical": ((x0 + side / 2, y0 - ext), (x0 + side / 2, y0 + side + ext)),
        "horizontal": ((x0 - ext, y0 + side / 2), (x0 + side + ext, y0 + side / 2)),
        "diagonal": ((x0 - ext, y0 - ext), (x0 + side + ext, y0 + side + ext)),
        "antidiagonal": ((x0 + side + ext, y0 - ext), (x0 - ext, y0 + side + ext)),
    }[axis]
    c.line(list(ends), color="black", width=5, dash=(12, 7))


def _step_image(scene: dict[str, Any], axis: str, reflected: Grid) -> Image.Image:
    n = scene["size"]
    cell = 216 / n
    side = cell * n
    W, H = 800, 330
    c = Canvas(W, H)
    xl, xr, y0 = 80, W - 80 - side, 70
    c.text((xl + side / 2, 16), "Pattern and mirror line", size=18, bold=True, anchor="mt")
    c.text((xr + side / 2, 16), "Reflected pattern", size=18, bold=True, anchor="mt")
    _draw_grid(c, scene["pattern"], scene["colors"], xl, y0, cell)
    _axis_line(c, axis, xl, y0, side)
    _draw_grid(c, reflected.tolist(), scene["colors"], xr, y0, cell)
    c.arrow((xl + side + 40, y0 + side / 2), (xr - 40, y0 + side / 2), color="black", width=4)
    c.text((W / 2, y0 + side / 2 - 14), "reflect", size=18, anchor="mb")
    return c.image()
