"""mirror_pattern (EG): which of four candidate grids is a single mirror reflection of a coloured pattern.

Patterns are square grids of coloured cells without any symmetry of the square (so a reflection can never
coincide with a rotation and exactly one candidate can be right). Each colour also has its own mark drawn in
its cells (`CELL_MARKS`), so no cell is told from another by colour alone.

The distractors are built so that the option set does not single out the answer: a reader who looks only at
the four candidates sees two transforms, each used twice, and patterns one "switch" apart (a 2 x 2 rectangle
of cells a b / b a turned into b a / a b, which keeps every colour count of every row and column), arranged
so that every candidate relates to the others exactly as the answer does (layouts in `sample_scene`). Only the
comparison with the pattern tells which one is its reflection.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from PIL import Image

from vcot.draw.canvas import Canvas
from vcot.draw.marks import contrast_colour, draw_mark
from vcot.schema import option_letters
from vcot.tasks import register
from vcot.tasks.base import Choices, Corruption, GenContext, Limit, Reject, Rendering, Solution, Task
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
# Palette names of the cell colours, white first. Chosen so that every pair stays apart under simulated
# colour-vision deficiencies (red with green and blue with purple do not); the colour-vision test reads them here.
CELL_COLOURS = ("white", "red", "blue", "yellow", "black")
# The second cue: each colour's mark, drawn in every cell of that colour. Every mark looks the same after any
# turn or flip, so a reflected grid shows the same marks as the pattern's cells.
CELL_MARKS = {"white": "blank", "red": "cross", "blue": "ring", "yellow": "plus", "black": "dot"}
MARK_WORDS = {
    "blank": "no mark",
    "cross": "a diagonal cross (×)",
    "ring": "a small circle",
    "plus": "a plus sign (+)",
    "dot": "a dot",
}
# How the distractors relate to the answer f(P) (f an allowed reflection, g a transform the question does not
# allow, Q = P with one switch, Q1 and Q2 = P with one of two disjoint switches, Q3 = P with both):
#   pairs:  f(P), g(P), f(Q), g(Q)    two exact f/g pairs, one switch apart;
#   square: f(P), g(Q1), g(Q2), f(Q3) a square of switches whose opposite corners share a transform.
# In both, swapping P with a decoy pattern, or f with g, maps the option set onto itself, so nothing in the
# candidates alone marks the answer (docs/tasks/mirror_pattern.md, "Distractors").
LAYOUTS = ("pairs", "square")
SWITCH_CELLS = 4


@dataclass(frozen=True)
class MirrorPatternConfig:
    size: int = 5
    n_colors: int = 3  # including white
    # Lists, not tuples: Task.params() must survive the JSON round trip of meta unchanged.
    axes: list[str] = field(default_factory=lambda: list(REFLECTIONS))  # the stated axis (mode "axis")
    mode: str = "axis"  # "axis": one stated axis; "any": a single reflection, possibly followed by a rotation
    layouts: list[str] = field(default_factory=lambda: list(LAYOUTS))  # distractor layouts drawn from
    min_diff: int = 3  # every two candidates differ in at least this many cells


def allowed_reflections(scene: dict[str, Any]) -> tuple[str, ...]:
    return REFLECTIONS if scene["mode"] == "any" else (scene["axis"],)


def other_transforms(mode: str, axis: str | None) -> tuple[str, ...]:
    """The transforms a distractor may apply: never the identity (the pattern itself, or a decoy shown as the
    pattern is drawn, would be spotted by comparing without reflecting), never an allowed reflection."""
    if mode == "any":
        return ROTATIONS
    return tuple(t for t in TRANSFORMS if t not in ("identity", axis))


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


def check_distinct(candidates: list[Grid], min_diff: int = 1) -> None:
    """Reject when two candidates differ in fewer than `min_diff` cells (equal ones would share a letter)."""
    for i in range(len(candidates)):
        for j in range(i + 1, len(candidates)):
            if _diff(candidates[i], candidates[j]) < min_diff:
                raise Reject(f"candidates {i} and {j} differ in fewer than {min_diff} cells")


def _diff(a: Grid, b: Grid) -> int:
    return int(np.sum(a != b))


Switch = tuple[int, int, int, int]


def switches(pattern: Grid) -> list[Switch]:
    """Every rectangle (rows r1 < r2, columns c1 < c2) whose corners read a b / b a with a != b."""
    n = len(pattern)
    out = []
    for r1 in range(n):
        for r2 in range(r1 + 1, n):
            for c1 in range(n):
                for c2 in range(c1 + 1, n):
                    a, b = pattern[r1, c1], pattern[r1, c2]
                    if a != b and pattern[r2, c2] == a and pattern[r2, c1] == b:
                        out.append((r1, c1, r2, c2))
    return out


def disjoint_pairs(pattern: Grid) -> list[tuple[Switch, Switch]]:
    """Every unordered pair of switches of the pattern that share no cell."""
    s = switches(pattern)
    return [(a, b) for i, a in enumerate(s) for b in s[i + 1 :] if not _corners(a) & _corners(b)]


def accept_symmetrically(rng: random.Random, counts: list[int]) -> None:
    """Keep a draw made uniformly among `counts[0]` choices with probability counts[0] / max(counts).

    The decoys are drawn from the pattern, but a reader must not be able to tell which pattern of the option set
    the others were made from. Each corner of the layout could have been the start, with counts[k] choices from
    corner k; keeping the draw with this probability makes every layout exactly as likely from any of its corners
    (the Metropolis rule), so no statistic of the patterns points at the start.
    """
    if rng.random() * max(counts) >= counts[0]:
        raise Reject("draw thinned to keep the decoys symmetric")


def apply_switch(pattern: Grid, switch: Switch) -> Grid:
    r1, c1, r2, c2 = switch
    out = pattern.copy()
    out[r1, c1], out[r1, c2], out[r2, c1], out[r2, c2] = (
        pattern[r1, c2],
        pattern[r1, c1],
        pattern[r2, c2],
        pattern[r2, c1],
    )
    return out


def _corners(switch: Switch) -> set[tuple[int, int]]:
    r1, c1, r2, c2 = switch
    return {(r1, c1), (r1, c2), (r2, c1), (r2, c2)}


def _orbit(pattern: Grid) -> list[Grid]:
    return [f(pattern) for f in TRANSFORMS.values()]


def check_decoys(pattern: Grid, decoys: list[Grid]) -> None:
    """Reject unless every decoy is asymmetric too and no two of the patterns are symmetries of one another (a
    decoy in the pattern's orbit would be a second right answer or an unmarked copy of it)."""
    patterns = [pattern, *decoys]
    for d in decoys:
        check_asymmetric(d)
    for i, a in enumerate(patterns):
        for b in patterns[:i]:
            if any(np.array_equal(a, image) for image in _orbit(b)):
                raise Reject("two patterns of the option set are symmetries of one another")


def distractor_sources(pattern: Grid, layout: str, rng: random.Random) -> list[tuple[str, Grid]]:
    """The answer's companions before transforming: ("f" or "g", source pattern), per `LAYOUTS`."""
    if layout == "pairs":
        options = switches(pattern)
        if not options:
            raise Reject("the pattern has no switch")
        q = apply_switch(pattern, rng.choice(options))
        accept_symmetrically(rng, [len(options), len(switches(q))])
        check_decoys(pattern, [q])
        return [("g", pattern), ("f", q), ("g", q)]
    pairs = disjoint_pairs(pattern)
    if not pairs:
        raise Reject("the pattern has no two disjoint switches")
    s1, s2 = rng.choice(pairs)
    q1, q2 = apply_switch(pattern, s1), apply_switch(pattern, s2)
    q3 = apply_switch(q1, s2)
    accept_symmetrically(rng, [len(pairs)] + [len(disjoint_pairs(q)) for q in (q1, q2, q3)])
    check_decoys(pattern, [q1, q2, q3])
    return [("g", q1), ("g", q2), ("f", q3)]


def relation(a: Grid, b: Grid) -> tuple[str, int]:
    """What grid a is to grid b for a reader who compares just the two: the handedness of a symmetry of the
    square mapping b onto a ("" when none does), and how many cells differ as drawn when that is a near-miss's
    few (else -1)."""
    hand = ""
    for t, f in TRANSFORMS.items():
        if np.array_equal(a, f(b)):
            hand = "improper" if t in REFLECTIONS else "proper"
    cells = _diff(a, b)
    return hand, cells if cells <= SWITCH_CELLS else -1


def check_unmarked(candidates: list[Grid], answer: int) -> None:
    """Reject when the answer's relations to the other candidates (mirror images, rotations, near-misses) are
    shared by no distractor: then the candidates alone would name it. The layouts guarantee a sharing
    distractor; a chance coincidence of cells in a small grid can still break it."""

    def profile(i: int) -> list[tuple[str, int]]:
        return sorted(relation(candidates[i], d) for j, d in enumerate(candidates) if j != i)

    mine = profile(answer)
    if not any(profile(i) == mine for i in range(len(candidates)) if i != answer):
        raise Reject("the answer's relations to the other candidates single it out")


def check_overlap_cue(pattern: Grid, candidates: list[Grid], answer: int, target: int) -> None:
    """Balance the cue "the candidate that, as drawn, shares the most (or fewest) cells with the pattern".

    A reflection leaves the cells on its mirror line in place and a rotation almost none, so without this the
    answer would share more cells with the pattern than a rotated distractor does (vcot audit). `target`, drawn
    by `ctx.balanced(4)`, fixes where the answer stands: 0 the only candidate sharing the most cells, 1 the only
    one sharing the fewest, 2 or 3 neither, so each cue names the answer in one instance of four, as a guess does.
    """
    shared = [int(np.sum(c == pattern)) for c in candidates]
    most = shared[answer] == max(shared)
    fewest = shared[answer] == min(shared)
    unique = shared.count(shared[answer]) == 1
    ok = {0: most and unique, 1: fewest and unique}.get(target, not most and not fewest)
    if not ok:
        raise Reject("the answer's share of cells with the pattern differs from the balanced target")


def classify_candidate(pattern: Grid, grid: Grid) -> str:
    """How a candidate relates to the pattern: a symmetry's name, or the symmetry of a near-miss closest to it."""
    dist = {t: _diff(grid, f(pattern)) for t, f in TRANSFORMS.items()}
    best = min(dist, key=dist.__getitem__)
    if dist[best] == 0:
        return best
    return f"{best} of a near-miss ({dist[best]} cells differ)"


@register
class MirrorPatternTask(Task):
    name = "mirror_pattern"
    config_cls = MirrorPatternConfig
    presets = {
        "easy": MirrorPatternConfig(size=4, n_colors=2, axes=["vertical", "horizontal"], mode="axis"),
        "medium": MirrorPatternConfig(size=5, n_colors=3, axes=list(REFLECTIONS), mode="axis"),
        "hard": MirrorPatternConfig(size=6, n_colors=3, mode="any"),
    }
    colour_pools = (CELL_COLOURS,)
    limits = {
        "size": Limit(
            4,
            8,
            "grid side: two disjoint switches need 4 rows, and a candidate's cells (168/size px) must "
            "stay large enough to show each colour's mark",
        ),
        "n_colors": Limit(2, len(CELL_COLOURS), "colours including white, drawn from CELL_COLOURS"),
        "axes": Choices(REFLECTIONS, "the mirror lines a stated axis is drawn from"),
        "mode": Choices(("axis", "any"), "axis: one stated mirror line; any: any reflection, possibly then turned"),
        "layouts": Choices(LAYOUTS, "how the distractors relate to the answer (docs/tasks/mirror_pattern.md)"),
        "min_diff": Limit(1, SWITCH_CELLS, "candidates one switch apart differ in exactly 4 cells"),
    }
    version = "4"
    description = "Which candidate grid is a single mirror reflection of the pattern."

    def sample_scene(self, ctx: GenContext) -> dict[str, Any]:
        cfg, rng = self.config, ctx.rng
        n = cfg.size
        colors = ["white"] + rng.sample(CELL_COLOURS[1:], cfg.n_colors - 1)
        pattern = np.array([[rng.randrange(cfg.n_colors) for _ in range(n)] for _ in range(n)])
        if len(set(pattern.flatten().tolist())) < cfg.n_colors:
            raise Reject("a colour is missing")
        check_asymmetric(pattern)
        axis = rng.choice(cfg.axes) if cfg.mode == "axis" else None
        allowed = REFLECTIONS if cfg.mode == "any" else (axis,)
        f, g = rng.choice(allowed), rng.choice(other_transforms(cfg.mode, axis))
        sources = distractor_sources(pattern, rng.choice(cfg.layouts), rng)
        chosen = [TRANSFORMS[f if role == "f" else g](src) for role, src in sources]
        rng.shuffle(chosen)
        is_reflection = reflection_test(pattern, allowed)
        slot = ctx.balanced(4)
        candidates = place_correct_option(
            TRANSFORMS[f](pattern), chosen, slot, is_reflection, "equal an allowed reflection"
        )
        check_distinct(candidates, cfg.min_diff)
        check_unmarked(candidates, slot)
        check_overlap_cue(pattern, candidates, slot, ctx.balanced(4, "pattern-overlap cue"))
        # The scene states the problem only; how each candidate was made is the solver's output (details).
        return {
            "size": n,
            "colors": colors,
            "pattern": pattern.tolist(),
            "mode": cfg.mode,
            "axis": axis,
            "candidates": [c.tolist() for c in candidates],
            "options": option_letters(4),
        }

    def solve(self, scene: dict[str, Any]) -> Solution:
        pattern = np.array(scene["pattern"])
        check_asymmetric(pattern)
        candidates = [np.array(c) for c in scene["candidates"]]
        allowed = allowed_reflections(scene)
        idx = check_candidates(pattern, candidates, allowed)
        axis = next(t for t in allowed if np.array_equal(TRANSFORMS[t](pattern), candidates[idx]))
        kinds = [classify_candidate(pattern, c) for c in candidates]
        return Solution(
            answer=option_letters(len(candidates))[idx], states=[axis], details={"axis": axis, "candidate_kinds": kinds}
        )

    def question(self, scene: dict[str, Any]) -> str:
        head = (
            "The top grid is a pattern of coloured cells; below are four candidate grids A, B, C and D. "
            f"{marks_sentence(scene['colors'])} "
        )
        if scene["mode"] == "any":
            rule = (
                "Exactly one candidate is the pattern after a single mirror reflection, possibly followed by "
                "a rotation (the other candidates are pure rotations or differ in some cell). Which one? "
            )
        else:
            rule = f"Exactly one candidate is the pattern reflected across {AXIS_WORDS[scene['axis']]}. Which one? "
        return head + rule + "Answer with the letter of the candidate (A, B, C or D)."

    def options(self, scene: dict[str, Any]) -> list[str]:
        return list(scene["options"])

    def render(self, scene: dict[str, Any], solution: Solution) -> Rendering:
        image = self.render_input(scene, solution)
        axis = solution.details["axis"]
        reflected = TRANSFORMS[axis](np.array(scene["pattern"]))
        return Rendering(image=image, steps=[(_step_image(scene, axis, reflected), _step_text(scene, axis, reflected))])

    def render_input(self, scene: dict[str, Any], solution: Solution) -> Image.Image:
        return _input_image(scene)

    def corrupt(self, scene: dict[str, Any], solution: Solution, rng: random.Random) -> Corruption:
        """When the question names the mirror line, the pattern misread in a cell or two (preferably so that its
        reflection is a wrong candidate) and reflected across the named line: a wrong mirror line there would
        break the question's own rule. When any reflection is allowed ("any" mode), the pattern reflected across
        another line, which the rule allows. Either way the step reflects the pattern it draws across the line it
        draws, as a right step does."""
        pattern = np.array(scene["pattern"])
        right = solution.details["axis"]
        if scene["mode"] == "any":
            wrong_axis = rng.choice([t for t in REFLECTIONS if t != right])
            wrong = TRANSFORMS[wrong_axis](pattern)
            # The scene is read right (no misread scene). The grid drawn is another reflection of the pattern,
            # which no candidate equals (the answer is the right reflection, the distractors are rotations of
            # the pattern or images of decoys outside its orbit), so the implied option is None. Only a turn of
            # the drawn grid, which the "any" rule also allows, would reach a candidate: the right one.
            return Corruption(
                steps=lambda: [(_step_image(scene, wrong_axis, wrong), _step_text(scene, wrong_axis, wrong))],
                description=f"reflected across {wrong_axis} instead of {right}",
                answer=candidate_equal_to(scene, wrong),
            )
        # A reflection is its own inverse: the misread pattern whose reflection is a candidate.
        near = [TRANSFORMS[right](np.array(c)) for c in scene["candidates"]]
        near = [m for m in near if 1 <= int((m != pattern).sum()) <= 2]
        if near:
            misread = near[rng.randrange(len(near))]
        else:
            misread = pattern.copy()
            r, k = rng.randrange(len(pattern)), rng.randrange(len(pattern))
            misread[r, k] = rng.choice([v for v in range(len(scene["colors"])) if v != pattern[r, k]])
        cells = [(int(r) + 1, int(k) + 1) for r, k in zip(*np.nonzero(misread != pattern), strict=True)]
        wrong_scene = {**scene, "pattern": misread.tolist()}
        reflected = TRANSFORMS[right](misread)
        # The candidate equal to the misread pattern's reflection, when one is (the `near` case); a misread cell
        # picked at random reflects onto no candidate and implies no option (None).
        return Corruption(
            steps=lambda: [(_step_image(wrong_scene, right, reflected), _step_text(wrong_scene, right, reflected))],
            description=f"pattern misread in (row, column) {cells}, then reflected across {right}",
            answer=candidate_equal_to(scene, reflected),
            scene=wrong_scene,
        )


def candidate_equal_to(scene: dict[str, Any], grid: Grid) -> str | None:
    """The letter of the candidate equal to `grid` cell for cell, None when none is (candidates are distinct,
    so at most one is): the option a trajectory ending on that grid picks."""
    hits = [i for i, c in enumerate(scene["candidates"]) if np.array_equal(np.array(c), grid)]
    return option_letters(len(scene["candidates"]))[hits[0]] if len(hits) == 1 else None


def marks_sentence(colors: list[str]) -> str:
    """The question's statement of each colour's mark (the cue that does not rely on telling colours apart)."""
    parts = [
        f"{name} cells {'are blank' if CELL_MARKS[name] == 'blank' else 'show ' + MARK_WORDS[CELL_MARKS[name]]}"
        for name in colors
    ]
    return "Each colour has its own mark: " + ", ".join(parts[:-1]) + f" and {parts[-1]}."


def _step_text(scene: dict[str, Any], axis: str, reflected: Grid) -> str:
    """What the step picture shows: the mirror line and the reflected grid, cell by cell. Which candidate
    equals that grid is the conclusion, left to the reader."""
    names = scene["colors"]
    rows = "; ".join(f"row {r + 1}: " + ", ".join(names[v] for v in row) for r, row in enumerate(reflected.tolist()))
    return (
        f"Left: the pattern with {AXIS_WORDS[axis]} drawn dashed. Right: the pattern reflected across it, "
        f"row by row from the top, cells from left to right: {rows}."
    )


# -- drawing -----------------------------------------------------------------------------------------


def _draw_grid(c: Canvas, grid: list[list[int]], colors: list[str], x0: float, y0: float, cell: float) -> None:
    n = len(grid)
    for r in range(n):
        for k in range(n):
            name = colors[grid[r][k]]
            c.rect(
                (x0 + k * cell, y0 + r * cell, x0 + (k + 1) * cell, y0 + (r + 1) * cell),
                fill=name,
                outline="darkgray",
                width=1,
            )
            draw_mark(
                c, CELL_MARKS[name], (x0 + (k + 0.5) * cell, y0 + (r + 0.5) * cell), cell * 0.28, contrast_colour(name)
            )
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
    # A white halo keeps the line visible where it crosses black cells.
    c.line(list(ends), color="white", width=9, dash=(12, 7))
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
