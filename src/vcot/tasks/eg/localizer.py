"""localizer (EG): tile a target region with drawn pieces that carry circles; where do the circles end up?

The scene is built backwards: a target region is cut into random, pairwise non-congruent polyominoes, a few
cells get circles, and each piece is shown in a random orientation allowed by the rule. Exhaustive exact
cover (Algorithm X) then counts the tilings under the stated rule; anything but exactly one is rejected.
Placements differing only in where a symmetric piece's circles land count as different tilings, so a unique
tiling means a unique set of circle coordinates.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from vcot.draw.canvas import Canvas
from vcot.tasks import register
from vcot.tasks.base import Corruption, GenContext, Reject, Rendering, Solution, Task
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
    fmt_cells,
    nearby_placements,
    placement_from_json,
    sample_cut_target,
    scene_board,
    shown_turned,
    target_frame,
    tilings,
    transform_words,
)


@dataclass(frozen=True)
class LocalizerConfig:
    rule: str = "rotate"          # translate | rotate | rotate_flip (what the solver and question allow)
    irregular: bool = True        # False: the target is a full rectangle
    min_cells: int = 12           # target area range
    max_cells: int = 16
    max_w: int = 6                # target bounding box limits
    max_h: int = 5
    min_pieces: int = 3
    max_pieces: int = 4
    min_piece: int = 3            # piece area range
    max_piece: int = 6
    min_circles: int = 1          # circle count is balanced over [min_circles, max_circles]
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


@register
class Localizer(Task):
    name = "localizer"
    config_cls = LocalizerConfig
    presets = {
        "easy": LocalizerConfig(rule="translate", irregular=False, min_cells=8, max_cells=12, max_w=4, max_h=4,
                                min_pieces=3, max_pieces=3, min_piece=2, max_piece=5,
                                min_circles=1, max_circles=2, max_circles_per_piece=1),
        "medium": LocalizerConfig(),
        "hard": LocalizerConfig(rule="rotate_flip", irregular=True, min_cells=16, max_cells=20, max_w=6, max_h=5,
                                min_pieces=4, max_pieces=4, min_piece=3, max_piece=6,
                                min_circles=2, max_circles=4, max_circles_per_piece=2),
    }
    version = "1"
    description = "Tile a target region with pieces carrying circles; give the circles' cell coordinates."

    # -- sampling -----------------------------------------------------------------------------------

    def sample_scene(self, ctx: GenContext) -> dict[str, Any]:
        cfg = self.config
        rng = ctx.rng
        if cfg.rule not in RULES:
            raise ValueError(f"rule must be one of {RULES}")
        n_circles = cfg.min_circles + ctx.balanced(cfg.max_circles - cfg.min_circles + 1, "circles")
        n_pieces = rng.randint(cfg.min_pieces, cfg.max_pieces)
        region, parts = sample_cut_target(rng, cfg, n_pieces,
                                          accept=lambda region, parts: tiles_once(region, parts, cfg.rule))
        circles = self._circles(rng, parts, n_circles)
        rng.shuffle(parts)
        pieces = []
        for i, part in enumerate(parts):
            cells, drawn_marks = shown_turned(rng, part, cfg.rule, [c for c in part if c in circles])
            name, _ = PIECE_COLORS[i]
            pieces.append({"number": i + 1, "color": name, "cells": [list(c) for c in cells],
                           "circles": [list(c) for c in drawn_marks]})
        scene = {"rule": cfg.rule, **target_frame(region), "pieces": pieces}
        unique_tiling(scene)
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
        return Solution(answer=answer, states=[[pl.to_json() for pl in tiling]],
                        details={"circles": answer})

    def question(self, scene: dict[str, Any]) -> str:
        n = len(scene["pieces"])
        return (
            f"The grid on the left shows a target region (the grey cells inside the thick outline). Columns are "
            f"numbered x = 1 to {scene['width']} from left to right and rows y = 1 to {scene['height']} from "
            f"bottom to top. On the right are {n} numbered pieces; some of their cells carry a black circle. "
            f"Place all {n} pieces so that together they cover the target region exactly, with no gaps, no "
            f"overlaps and nothing outside it, each piece used once. {RULE_TEXT[scene['rule']]}. There is "
            f"exactly one way to do this. After tiling, which cells of the grid hold a circle? Answer with the "
            f"(x, y) coordinates of every circle, sorted by x and then by y, in the form \"(x1, y1), (x2, y2)\"."
        )

    # -- rendering ----------------------------------------------------------------------------------

    def _board(self, scene: dict[str, Any]) -> tuple[BoardLayout, list[DrawnPiece], Canvas]:
        pieces = [DrawnPiece(str(p["number"]), tuple(tuple(c) for c in p["cells"]),
                             tuple(tuple(c) for c in p["circles"]), PIECE_RGB[p["color"]]) for p in scene["pieces"]]
        lay, cv = scene_board(scene, pieces, "Target region", "Pieces")
        return lay, pieces, cv

    def render(self, scene: dict[str, Any], solution: Solution) -> Rendering:
        tiling = [placement_from_json(d) for d in solution.states[0]]
        _, _, cv = self._board(scene)
        image = cv.image()
        lay, pieces, cv = self._board(scene)
        draw_placed(cv, lay, [(pieces[pl.piece], pl) for pl in tiling])
        return Rendering(image=image, steps=[(cv.image(), self._step_text(scene, tiling, solution.answer))])

    def _step_text(self, scene: dict[str, Any], tiling: list[Placement], answer: str) -> str:
        parts = []
        for pl in tiling:
            p = scene["pieces"][pl.piece]
            s = f"piece {p['number']} ({p['color']}, {transform_words(pl.k)}) covers {fmt_cells(pl.cells)}"
            if pl.marks:
                s += f" with its circle{'s' if len(pl.marks) > 1 else ''} at {fmt_cells(pl.marks)}"
            parts.append(s)
        n_circ = answer.count("(")
        return ("The tiling: " + "; ".join(parts) + f". So the {n_circ} circle{'s' if n_circ > 1 else ''} "
                f"lie at {answer}.")

    # -- corruption ---------------------------------------------------------------------------------

    def corrupt(self, scene: dict[str, Any], solution: Solution, rng: random.Random) -> Corruption | None:
        tiling = [placement_from_json(d) for d in solution.states[0]]
        wrong = wrong_placement(scene, tiling, rng)
        if wrong is None:
            return None
        bad = [wrong if pl.piece == wrong.piece else pl for pl in tiling]
        lay, pieces, cv = self._board(scene)
        # Translucent fills let an overlap show as a blended colour.
        draw_placed(cv, lay, [(pieces[pl.piece], pl) for pl in bad], opacity=200)
        answer = circles_answer(bad)
        num = scene["pieces"][wrong.piece]["number"]
        return Corruption(steps=[(cv.image(), self._step_text(scene, bad, answer))],
                          description=f"piece {num} placed wrongly (k={wrong.k} at {list(wrong.offset)}), "
                                      f"moving its circle(s); claimed answer {answer}")


def wrong_placement(scene: dict[str, Any], tiling: list[Placement], rng: random.Random) -> Placement | None:
    """A nearby but wrong placement (shifted, rotated or flipped) of a circle-carrying piece that changes the
    circle answer; prefers the candidates overlapping the true position most."""
    true_answer = circles_answer(tiling)
    cands: list[tuple[int, Placement]] = []
    for pl in tiling:
        if not pl.marks:
            continue
        piece = scene["pieces"][pl.piece]
        for score, new in nearby_placements([tuple(c) for c in piece["cells"]], [tuple(c) for c in piece["circles"]],
                                            pl.piece, scene["width"], scene["height"], range(8), pl.cells):
            bad = [new if q.piece == pl.piece else q for q in tiling]
            if sorted(new.cells) != sorted(pl.cells) and circles_answer(bad) != true_answer:
                cands.append((score, new))
    if not cands:
        return None
    best = max(score for score, _ in cands)
    return rng.choice([p for score, p in cands if score >= best - 1])
