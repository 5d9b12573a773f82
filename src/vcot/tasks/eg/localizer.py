"""localizer (EG): tile a target region with drawn pieces that carry circles; where do the circles end up?

The scene is built backwards: a target region is cut into random, pairwise non-congruent polyominoes, a few
cells get circles, and each piece is shown in a random orientation allowed by the rule. Exhaustive exact
cover (Algorithm X) then counts the tilings under the stated rule; anything but exactly one is rejected.
Placements differing only in where a symmetric piece's circles land count as different tilings, so a unique
tiling means a unique set of circle coordinates.
"""

from __future__ import annotations

import copy
import random
import re
from dataclasses import dataclass
from math import comb
from typing import Any

from PIL import Image

from vcot.draw.canvas import Canvas
from vcot.schema import Instance
from vcot.tasks import register
from vcot.tasks.answer_space import AnswerSpace
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
from vcot.tasks.common.polyomino import (
    PIECE_COLORS,
    PIECE_RGB,
    RULE_TEXT,
    RULES,
    BoardLayout,
    Cell,
    DrawnPiece,
    Placement,
    draw_placed,
    fitting_areas,
    fmt_cells,
    min_distinct_area,
    placement_from_json,
    rect_options,
    sample_cut_target,
    scene_board,
    shown_turned,
    target_frame,
    tiling_map,
    tilings,
    transform_words,
)


@dataclass(frozen=True)
class LocalizerConfig:
    rule: str = "rotate"  # translate | rotate | rotate_flip (what the solver and question allow)
    irregular: bool = True  # False: the target is a full rectangle
    min_cells: int = 12  # target area range
    max_cells: int = 16
    max_w: int = 6  # target bounding box limits
    max_h: int = 5
    min_pieces: int = 3
    max_pieces: int = 4
    min_piece: int = 3  # piece area range
    max_piece: int = 6
    min_circles: int = 1  # circle count is balanced over [min_circles, max_circles]
    max_circles: int = 3
    max_circles_per_piece: int = 2


def piece_list(scene: dict[str, Any]) -> list[tuple[list[Cell], list[Cell]]]:
    return [([tuple(c) for c in p["cells"]], [tuple(c) for c in p["circles"]]) for p in scene["pieces"]]


def tiles_once(region: list[Cell], parts: list[list[Cell]], rule: str) -> bool:
    """Whether the pieces, without circles, tile the region in one way only. Circles can only add tilings
    (they split symmetric orientations), so a cut that already tiles in two ways without them is hopeless."""
    return len(tilings(region, [(c, ()) for c in parts], rule, limit=2)) == 1


def unique_tiling(scene: dict[str, Any]) -> list[Placement]:
    """The single tiling under the scene's rule; Reject when there is none or more than one."""
    target = [tuple(c) for c in scene["target"]]
    found = tilings(target, piece_list(scene), scene["rule"], limit=2)
    if not found:
        raise Reject("the pieces do not tile the target")
    if len(found) > 1:
        raise Reject("the pieces tile the target in more than one way")
    return found[0]


def circles_answer(tiling: list[Placement]) -> str:
    return fmt_cells(m for pl in tiling for m in pl.marks)


def _first_fit(cells: list[Cell], target: set[Cell]) -> Cell | None:
    """The 1-based offset of the lowest, then leftmost, spot where the drawn shape lies inside the target."""
    for dy in range(1, max(y for _, y in target) + 1):
        for dx in range(1, max(x for x, _ in target) + 1):
            if all((x + dx, y + dy) in target for x, y in cells):
                return (dx, dy)
    return None


def shallow_answers(scene: dict[str, Any]) -> set[str]:
    """Answers read off the pieces without tiling: every circle at its drawn cell counted from the grid's corner,
    and every circled piece, unturned, at the lowest-leftmost spot where it fits the target on its own. Under
    `translate` the piece on the corner cell lies exactly as drawn, so these would often be right by accident
    (`vcot audit`, analysis/shortcuts/localizer)."""
    target = {(x, y) for x, y in scene["target"]}
    drawn = [([(x, y) for x, y in p["cells"]], [(x, y) for x, y in p["circles"]]) for p in scene["pieces"]]
    out = {fmt_cells({(x + 1, y + 1) for _, circles in drawn for x, y in circles})}
    fitted: set[Cell] = set()
    for cells, circles in drawn:
        at = _first_fit(cells, target) if circles else (0, 0)
        if at is None:
            return out
        fitted.update((x + at[0], y + at[1]) for x, y in circles)
    out.add(fmt_cells(fitted))
    return out


_CELL = re.compile(r"\(\s*(\d+)\s*,\s*(\d+)\s*\)")


def circle_frames(cfg: LocalizerConfig) -> list[tuple[int, int]]:
    """The largest grids (W, H) a target can span: the whole max_w x max_h box for irregular targets, the
    maximal allowed rectangles otherwise (every allowed rectangle lies inside one of them)."""
    if cfg.irregular:
        return [(cfg.max_w, cfg.max_h)]
    rects = rect_options(cfg)
    return sorted(r for r in rects if not any(o != r and o[0] >= r[0] and o[1] >= r[1] for o in rects))


def circle_counts(cfg: LocalizerConfig) -> range:
    """How many circles a scene can carry: the balanced range, capped by what the pieces can hold."""
    return range(cfg.min_circles, min(cfg.max_circles, cfg.max_pieces * cfg.max_circles_per_piece) + 1)


def _fits(cells: set[tuple[int, int]], frames: list[tuple[int, int]]) -> bool:
    return any(all(1 <= x <= w and 1 <= y <= h for x, y in cells) for w, h in frames)


def circle_sets(cfg: LocalizerConfig) -> AnswerSpace:
    """Every set of circle cells the question admits under the configuration: n distinct cells (n a possible
    circle count) that lie together inside one grid a target can span, written as the answer is."""
    frames = circle_frames(cfg)

    def within(n: int, w: int, h: int) -> int:
        # n-sets inside a w x h grid that reach its last column and its last row (inclusion-exclusion), so
        # that each set is counted once, at the tightest grid holding it.
        return comb(w * h, n) - comb((w - 1) * h, n) - comb(w * (h - 1), n) + comb((w - 1) * (h - 1), n)

    spans = {(w, h) for fw, fh in frames for w in range(1, fw + 1) for h in range(1, fh + 1)}
    by_n = {n: sum(within(n, w, h) for w, h in spans) for n in circle_counts(cfg)}
    box = [(x, y) for x in range(1, max(w for w, _ in frames) + 1) for y in range(1, max(h for _, h in frames) + 1)]

    def sample(rng: random.Random) -> str:
        n = rng.choices(list(by_n), weights=list(by_n.values()))[0]
        while True:  # uniform over the n-sets of the box, kept when they fit a grid: uniform over the space
            cells = set(rng.sample(box, n))
            if _fits(cells, frames):
                return fmt_cells(cells)

    def contains(answer: str) -> bool:
        cells = [(int(x), int(y)) for x, y in _CELL.findall(answer)]
        return (
            len(cells) in by_n
            and len(set(cells)) == len(cells)
            and _fits(set(cells), frames)
            and _CELL.sub("", answer).strip(" ,") == ""
        )

    grids = " or ".join(f"{w} x {h}" for w, h in frames)
    return AnswerSpace(
        sum(by_n.values()), sample, contains, f"sets of {min(by_n)} to {max(by_n)} distinct cells inside a {grids} grid"
    )


@register
class Localizer(Task):
    name = "localizer"
    config_cls = LocalizerConfig
    presets = {
        "easy": LocalizerConfig(
            rule="translate",
            irregular=False,
            min_cells=8,
            max_cells=12,
            max_w=4,
            max_h=4,
            min_pieces=3,
            max_pieces=3,
            min_piece=2,
            max_piece=5,
            min_circles=1,
            max_circles=2,
            max_circles_per_piece=1,
        ),
        "medium": LocalizerConfig(),
        "hard": LocalizerConfig(
            rule="rotate_flip",
            irregular=True,
            min_cells=16,
            max_cells=20,
            max_w=6,
            max_h=5,
            min_pieces=4,
            max_pieces=4,
            min_piece=3,
            max_piece=6,
            min_circles=2,
            max_circles=4,
            max_circles_per_piece=2,
        ),
    }
    limits = {
        "rule": Choices(RULES, "which transforms a piece may undergo"),
        "min_cells": Limit(4, 24, "target area: the exact-cover search grows quickly with it"),
        "max_cells": Limit(4, 24, "target area: the exact-cover search grows quickly with it"),
        "max_w": Limit(2, 8, "target box: wider boxes only make thin, arm-like targets"),
        "max_h": Limit(2, 8, "target box: wider boxes only make thin, arm-like targets"),
        "min_pieces": Limit(2, 4, "pieces: with five or more, cuts that tile the target one way only get rare"),
        "max_pieces": Limit(2, 4, "pieces: with five or more, cuts that tile the target one way only get rare"),
        "min_piece": Limit(2, 8, "piece area"),
        "max_piece": Limit(2, 8, "piece area"),
        "min_circles": Limit(1, 8, "circles in the answer"),
        "max_circles": Limit(1, 8, "circles in the answer"),
        "max_circles_per_piece": Limit(1, 4, "circles on one piece"),
    }
    version = "4"
    final_state_shows = "the circles drawn in their cells of the tiled grid"
    description = "Tile a target region with pieces carrying circles; give the circles' cell coordinates."

    # -- sampling -----------------------------------------------------------------------------------

    def check_config(self, config: Any) -> None:
        super().check_config(config)
        name = self.name
        if not config.irregular and config.rule != "translate":
            raise ParameterError(
                f"parameters of task {name}: a rectangular target (irregular = False) needs rule "
                f"'translate': a rectangle looks the same turned half round, so under "
                f"{config.rule!r} every tiling has a turned twin and no scene is unique"
            )
        for n in range(config.min_pieces, config.max_pieces + 1):
            if not fitting_areas(config, n):
                raise ParameterError(
                    f"parameters of task {name}: no target area in min_cells..max_cells "
                    f"({config.min_cells}..{config.max_cells}) that fits max_w x max_h (an "
                    f"irregular one with room to spare) and can be cut into {n} pieces of "
                    f"min_piece..max_piece cells"
                )
        # Cuts into pairwise different pieces are impossible below the smallest such area, and, with turns (more
        # so flips) allowed, cuts that tile only one way are rare just above it: measured, up to a few seconds
        # per scene within 2 (rotate) or 4 (rotate_flip) cells of it.
        least = min_distinct_area(config.max_pieces, config.min_piece, config.max_piece)
        slack = {"translate": 0, "rotate": 2, "rotate_flip": 4}[config.rule]
        if least is None or config.max_cells < least + slack:
            raise ParameterError(
                f"parameters of task {name}: {config.max_pieces} pairwise different pieces of "
                f"min_piece..max_piece cells need max_cells >= "
                f"{'?' if least is None else least + slack} under rule {config.rule!r}"
            )
        room = config.min_pieces * min(config.max_circles_per_piece, config.min_piece)
        if config.max_circles > room:
            raise ParameterError(
                f"parameters of task {name}: max_circles ({config.max_circles}) must fit on "
                f"min_pieces pieces at max_circles_per_piece (and min_piece) each: at most {room}"
            )

    def sample_scene(self, ctx: GenContext) -> dict[str, Any]:
        cfg = self.config
        rng = ctx.rng
        n_circles = cfg.min_circles + ctx.balanced(cfg.max_circles - cfg.min_circles + 1, "circles")
        n_pieces = rng.randint(cfg.min_pieces, cfg.max_pieces)
        region, parts = sample_cut_target(
            rng, cfg, n_pieces, accept=lambda region, parts: tiles_once(region, parts, cfg.rule)
        )
        circles = self._circles(rng, parts, n_circles)
        rng.shuffle(parts)
        pieces = []
        for i, part in enumerate(parts):
            cells, drawn_marks = shown_turned(rng, part, cfg.rule, [c for c in part if c in circles])
            name, _ = PIECE_COLORS[i]
            pieces.append(
                {
                    "number": i + 1,
                    "color": name,
                    "cells": [list(c) for c in cells],
                    "circles": [list(c) for c in drawn_marks],
                }
            )
        scene = {"rule": cfg.rule, **target_frame(region), "pieces": pieces}
        answer = circles_answer(unique_tiling(scene))
        if answer in shallow_answers(scene):
            raise Reject("the circles can be read off the pieces as drawn, without tiling")
        return scene

    def _circles(self, rng: random.Random, parts: list[list[Cell]], n: int) -> set[Cell]:
        owner = {c: i for i, p in enumerate(parts) for c in p}
        cells = sorted(owner)
        rng.shuffle(cells)
        chosen: set[Cell] = set()
        per_piece = [0] * len(parts)
        for c in cells:
            if len(chosen) == n:
                break
            if per_piece[owner[c]] < self.config.max_circles_per_piece:
                chosen.add(c)
                per_piece[owner[c]] += 1
        if len(chosen) < n:
            raise Reject("not enough room for circles")
        return chosen

    # -- solving ------------------------------------------------------------------------------------

    def solve(self, scene: dict[str, Any]) -> Solution:
        tiling = unique_tiling(scene)
        answer = circles_answer(tiling)
        return Solution(answer=answer, states=[[pl.to_json() for pl in tiling]], details={"circles": answer})

    def question(self, scene: dict[str, Any]) -> str:
        n = len(scene["pieces"])
        return (
            f"The grid on the left shows a target region (the grey cells inside the thick outline). Columns are "
            f"numbered x = 1 to {scene['width']} from left to right and rows y = 1 to {scene['height']} from "
            f"bottom to top. On the right are {n} numbered pieces; some of their cells carry a black circle. "
            f"Place all {n} pieces so that together they cover the target region exactly, with no gaps, no "
            f"overlaps and nothing outside it, each piece used once. {RULE_TEXT[scene['rule']]}. There is "
            f"exactly one way to do this. After tiling, which cells of the grid hold a circle? Answer with the "
            f'(x, y) coordinates of every circle, sorted by x and then by y, in the form "(x1, y1), (x2, y2)".'
        )

    def answer_space(self, instance: Instance) -> AnswerSpace:
        return circle_sets(self.config)

    # -- rendering ----------------------------------------------------------------------------------

    def _board(self, scene: dict[str, Any]) -> tuple[BoardLayout, list[DrawnPiece], Canvas]:
        pieces = [
            DrawnPiece(
                str(p["number"]),
                tuple(tuple(c) for c in p["cells"]),
                tuple(tuple(c) for c in p["circles"]),
                PIECE_RGB[p["color"]],
            )
            for p in scene["pieces"]
        ]
        lay, cv = scene_board(scene, pieces, "Target region", "Pieces")
        return lay, pieces, cv

    def render(self, scene: dict[str, Any], solution: Solution) -> Rendering:
        tiling = [placement_from_json(d) for d in solution.states[0]]
        lay, pieces, cv = self._board(scene)
        draw_placed(cv, lay, [(pieces[pl.piece], pl) for pl in tiling])
        return Rendering(image=self.render_input(scene, solution), steps=[(cv.image(), self._step_text(scene, tiling))])

    def render_input(self, scene: dict[str, Any], solution: Solution) -> Image.Image:
        return self._board(scene)[2].image()

    def _step_text(self, scene: dict[str, Any], tiling: list[Placement]) -> str:
        """What the step picture shows: how each piece was turned and which piece (and circle) is on each cell
        of the grid. The circles' coordinates are the answer, so the text maps them like the picture does and
        leaves reading them off to the reader."""
        turns = []
        for pl in sorted(tiling, key=lambda p: p.piece):
            p = scene["pieces"][pl.piece]
            turns.append(f"piece {p['number']} ({p['color']}) {transform_words(pl.k)}")
        legend, rows = tiling_map(
            scene["width"],
            scene["height"],
            [tuple(c) for c in scene["target"]],
            [(str(scene["pieces"][pl.piece]["number"]), pl) for pl in tiling],
        )
        return (
            f"The pieces placed on the grid: {'; '.join(turns)}. The grid row by row from the top, columns "
            f"x = 1 to {scene['width']} from left to right, each cell showing the number of the piece on it "
            f"({legend}): {rows}."
        )

    # -- corruption ---------------------------------------------------------------------------------

    def corrupt(self, scene: dict[str, Any], solution: Solution, rng: random.Random) -> Corruption | None:
        """One circle misread: on a circle-carrying piece in the panel, a circle taken to sit on another cell of
        the same piece. The pieces still tile the target exactly, the one way the question allows, so the
        corrupted step is the true step of the misread scene (the piece drawn with its misread circle): no
        overlap, gap or overhang breaks the stated tiling rule, and only the circles' cells are wrong."""
        moves = [
            (i, c, cell)
            for i, piece in enumerate(scene["pieces"])
            for c in piece["circles"]
            for cell in piece["cells"]
            if cell not in piece["circles"]
        ]
        rng.shuffle(moves)
        for i, circle, cell in moves:
            wrong = copy.deepcopy(scene)
            wrong["pieces"][i]["circles"] = sorted([cell if c == circle else c for c in scene["pieces"][i]["circles"]])
            try:
                tiling = unique_tiling(wrong)  # a circle can tell a symmetric piece's placements apart, or not
            except Reject:
                continue
            if circles_answer(tiling) == solution.answer:
                continue

            def draw(wrong: dict[str, Any] = wrong, tiling: list[Placement] = tiling) -> list[tuple[Image.Image, str]]:
                lay, pieces, cv = self._board(wrong)
                draw_placed(cv, lay, [(pieces[pl.piece], pl) for pl in tiling])
                return [(cv.image(), self._step_text(wrong, tiling))]

            num = scene["pieces"][i]["number"]
            # The misread scene's unique tiling is the corrupted step, so its circles are the implied answer.
            return Corruption(
                steps=draw,
                answer=circles_answer(tiling),
                scene=wrong,
                description=f"the circle of piece {num} on its cell {list(circle)} misread on "
                f"{list(cell)}; the circles lie at {circles_answer(tiling)}",
            )
        return None
