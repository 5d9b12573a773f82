"""multi_piece_puzzle (ASLP): which k of the N labelled candidate pieces together form the target shape?

The scene is built backwards: a target is cut into k pairwise non-congruent pieces; N - k decoys are added,
each the size of a true piece and fitting the target's bounding box, mostly "near misses" (a true piece with
one cell moved, so equal area and a similar look), so that counting cells does not give the answer away;
scenes where fewer than `min_area_sets` k-subsets have the target's area are rejected. Every k-subset whose
area matches is then tried by exact cover under the stated rule; anything but exactly one tiling subset is
rejected. The answer's label positions are drawn
with ctx.balanced over all k-subsets, so every label set is equally likely across a suite.
"""

from __future__ import annotations

import copy
import itertools
import random
from dataclasses import dataclass
from math import comb
from typing import Any

from PIL import Image

from vcot.draw.canvas import Canvas
from vcot.schema import Instance
from vcot.tasks import register
from vcot.tasks.answer_space import AnswerSpace, subsets
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
    FREE_POLYOMINOES,
    PIECE_COLORS,
    PIECE_RGB,
    RULE_TEXT,
    RULES,
    BoardLayout,
    Cell,
    DrawnPiece,
    Placement,
    congruent,
    draw_placed,
    fitting_areas,
    fmt_cells,
    min_distinct_area,
    mutate_piece,
    placement_from_json,
    random_region,
    sample_cut_target,
    scene_board,
    shown_turned,
    target_frame,
    tilings,
    transform_words,
)


@dataclass(frozen=True)
class MultiPieceConfig:
    rule: str = "rotate"  # translate | rotate | rotate_flip
    irregular: bool = True  # False: the target is a full rectangle
    min_cells: int = 12  # target area range
    max_cells: int = 16
    max_w: int = 6  # target bounding box limits
    max_h: int = 5
    k: int = 3  # pieces in the answer
    n_candidates: int = 5  # labelled candidates shown
    min_piece: int = 3  # piece area range
    max_piece: int = 6
    near_miss: float = 0.8  # chance that a decoy is a true piece with one cell moved (same area)
    min_area_sets: int = 2  # fewest k-sets whose cell counts add up to the target's (2: area never decides)


def labels(n: int) -> list[str]:
    return [chr(ord("A") + i) for i in range(n)]


def tiling_subsets(scene: dict[str, Any], limit: int = 2) -> list[tuple[tuple[int, ...], list[Placement]]]:
    """Up to `limit` k-subsets of candidates that tile the target, each with one tiling (area prefilter)."""
    target = [tuple(c) for c in scene["target"]]
    pieces = [[tuple(c) for c in p["cells"]] for p in scene["pieces"]]
    found = []
    for combo in itertools.combinations(range(len(pieces)), scene["k"]):
        if sum(len(pieces[i]) for i in combo) != len(target):
            continue
        sols = tilings(target, [(pieces[i], ()) for i in combo], scene["rule"], limit=1)
        if sols:
            # Map subset-local piece ids back to candidate indices.
            tiling = [Placement(combo[pl.piece], pl.k, pl.offset, pl.cells, pl.marks) for pl in sols[0]]
            found.append((combo, tiling))
            if len(found) >= limit:
                break
    return found


def fits_box(cells: list[Cell], box: tuple[int, int], rule: str) -> bool:
    """Whether the piece's bounding box fits inside `box` (width, height), turned a quarter if the rule allows."""
    w = max(x for x, _ in cells) + 1
    h = max(y for _, y in cells) + 1
    return (w <= box[0] and h <= box[1]) or (rule != "translate" and h <= box[0] and w <= box[1])


def area_sets(scene: dict[str, Any]) -> list[tuple[int, ...]]:
    """The k-subsets of candidates whose cell counts add up to the target's area."""
    sizes = [len(p["cells"]) for p in scene["pieces"]]
    return [
        c
        for c in itertools.combinations(range(len(sizes)), scene["k"])
        if sum(sizes[i] for i in c) == len(scene["target"])
    ]


def unique_subset(scene: dict[str, Any]) -> tuple[tuple[int, ...], list[Placement]]:
    found = tiling_subsets(scene, limit=2)
    if not found:
        raise Reject("no subset tiles the target")
    if len(found) > 1:
        raise Reject("more than one subset tiles the target")
    return found[0]


@register
class MultiPiecePuzzle(Task):
    name = "multi_piece_puzzle"
    config_cls = MultiPieceConfig
    presets = {
        "easy": MultiPieceConfig(
            rule="translate",
            irregular=False,
            min_cells=8,
            max_cells=12,
            max_w=4,
            max_h=4,
            k=2,
            n_candidates=4,
            min_piece=3,
            max_piece=6,
        ),
        "medium": MultiPieceConfig(),
        "hard": MultiPieceConfig(
            rule="rotate_flip",
            irregular=True,
            min_cells=15,
            max_cells=20,
            max_w=6,
            max_h=5,
            k=4,
            n_candidates=6,
            min_piece=3,
            max_piece=6,
            min_area_sets=4,
        ),
    }
    limits = {
        "rule": Choices(RULES, "which transforms a piece may undergo"),
        "min_cells": Limit(4, 24, "target area: the exact-cover search over every k-set grows quickly with it"),
        "max_cells": Limit(4, 24, "target area: the exact-cover search over every k-set grows quickly with it"),
        "max_w": Limit(2, 8, "target box: wider boxes only make thin, arm-like targets"),
        "max_h": Limit(2, 8, "target box: wider boxes only make thin, arm-like targets"),
        "k": Limit(2, 4, "pieces in the answer: with more, pairwise different pieces and a single tiling set get rare"),
        "n_candidates": Limit(3, 7, "candidates shown: with more decoys a second set tiles the target ever more often"),
        "min_piece": Limit(2, 8, "piece area"),
        "max_piece": Limit(2, 8, "piece area"),
        "near_miss": Limit(0, 1, "a probability"),
        "min_area_sets": Limit(2, 6, "k-sets with the target's area; fewer than 2 would let counting cells decide"),
    }
    version = "4"
    final_state_shows = "the chosen pieces, in their colours and with their labels, tiling the target"
    description = "Pick the labelled pieces that together tile the target shape exactly."

    # -- sampling -----------------------------------------------------------------------------------

    def check_config(self, config: Any) -> None:
        super().check_config(config)
        if not config.k < config.n_candidates <= 2 * config.k:
            raise ParameterError(
                f"parameters of task {self.name}: n_candidates ({config.n_candidates}) must lie "
                f"between k + 1 and 2 * k = {2 * config.k}: at least one decoy, and no more "
                f"decoys than answer pieces (each decoy is a shape of a true piece's size unlike "
                f"every other piece, and more decoys make a second tiling set likely)"
            )
        if config.min_cells < 4 * config.k - 1:
            raise ParameterError(
                f"parameters of task {self.name}: min_cells ({config.min_cells}) must be at least "
                f"4 * k - 1 = {4 * config.k - 1}: smaller pieces come in too few distinct shapes "
                f"for k pairwise different pieces and their decoys"
            )
        if not fitting_areas(config, config.k):
            raise ParameterError(
                f"parameters of task {self.name}: no target area in min_cells..max_cells "
                f"({config.min_cells}..{config.max_cells}) that fits max_w x max_h (an irregular "
                f"one with room to spare) and can be cut into k = {config.k} pieces of "
                f"min_piece..max_piece cells"
            )
        least = min_distinct_area(config.k, config.min_piece, config.max_piece)
        if least is None or max(fitting_areas(config, config.k)) < least + 2:
            raise ParameterError(
                f"parameters of task {self.name}: k = {config.k} pairwise different pieces of "
                f"min_piece..max_piece cells need a target area of at least "
                f"{'?' if least is None else least + 2} (2 cells above the smallest possible, "
                f"so that the cut has some freedom), and none fits"
            )
        shapes = sum(FREE_POLYOMINOES.get(size, 0) for size in range(config.min_piece, config.max_piece + 1))
        if shapes < 2 * config.n_candidates:
            raise ParameterError(
                f"parameters of task {self.name}: pieces of min_piece..max_piece cells come in "
                f"{shapes} shapes; {config.n_candidates} pairwise different candidates need at "
                f"least {2 * config.n_candidates} to choose from"
            )
        # Every decoy has the size of a true piece, so swapping it in keeps the area: each scene has at least
        # n_candidates - k + 1 such sets. Asking for one more costs a few attempts; for more, or for every
        # k-set (all pieces of one size), most scenes fail.
        guaranteed = config.n_candidates - config.k + 1
        most = guaranteed + 1 if comb(config.n_candidates, config.k) > guaranteed + 1 else guaranteed
        if config.min_area_sets > most:
            raise ParameterError(
                f"parameters of task {self.name}: min_area_sets ({config.min_area_sets}) may "
                f"be at most {most}: n_candidates - k + 1 = {guaranteed} sets every scene has, "
                f"plus one if that leaves some k-set out, or most scenes would be rejected"
            )

    def sample_scene(self, ctx: GenContext) -> dict[str, Any]:
        cfg = self.config
        rng = ctx.rng
        combos = list(itertools.combinations(range(cfg.n_candidates), cfg.k))
        answer_slots = combos[ctx.balanced(len(combos), "subset")]
        region, parts = sample_cut_target(rng, cfg, cfg.k)
        box = (max(x for x, _ in region) + 1, max(y for _, y in region) + 1)
        decoys = self._decoys(rng, parts, cfg.n_candidates - cfg.k, box)
        rng.shuffle(parts)
        shapes: list[list[Cell]] = [[] for _ in range(cfg.n_candidates)]
        for slot, part in zip(answer_slots, parts, strict=True):
            shapes[slot] = part
        rest = [i for i in range(cfg.n_candidates) if i not in answer_slots]
        for slot, decoy in zip(rest, decoys, strict=True):
            shapes[slot] = decoy
        pieces = []
        for i, shape in enumerate(shapes):
            cells, _ = shown_turned(rng, shape, cfg.rule)
            pieces.append(
                {"label": labels(cfg.n_candidates)[i], "color": PIECE_COLORS[i][0], "cells": [list(c) for c in cells]}
            )
        scene = {"rule": cfg.rule, "k": cfg.k, **target_frame(region), "pieces": pieces}
        # Counting cells must never settle the question: at least two k-sets (min_area_sets) have the target's
        # area, so a model has to fit shapes (`vcot audit`, analysis/shortcuts/multi_piece_puzzle).
        if len(area_sets(scene)) < cfg.min_area_sets:
            raise Reject("too few sets with the target's area: counting cells would give the answer away")
        combo, _ = unique_subset(scene)
        if combo != answer_slots:
            raise Reject("the tiling subset is not the intended one")
        return scene

    def _decoys(self, rng: random.Random, parts: list[list[Cell]], n: int, box: tuple[int, int]) -> list[list[Cell]]:
        """Decoys congruent to nothing else shown (a congruent pair would make two subsets trivially equal), each
        the size of some true piece and fitting the target's bounding box as the true pieces do: a decoy of an
        unused size, or one too long for the target, would be ruled out by counting or measuring alone."""
        cfg = self.config
        shown = [list(p) for p in parts]
        out: list[list[Cell]] = []
        for _ in range(n):
            for _ in range(30):
                model = rng.choice(parts)
                if rng.random() < cfg.near_miss:
                    cand = mutate_piece(rng, model)
                else:
                    side = min(len(model), 4)
                    cand = random_region(rng, len(model), side, side)
                if cand is not None and fits_box(cand, box, cfg.rule) and not any(congruent(cand, s) for s in shown):
                    break
            else:
                raise Reject("could not draw a distinct decoy")
            shown.append(cand)
            out.append(cand)
        return out

    # -- solving ------------------------------------------------------------------------------------

    def solve(self, scene: dict[str, Any]) -> Solution:
        combo, tiling = unique_subset(scene)
        answer = ", ".join(scene["pieces"][i]["label"] for i in combo)
        return Solution(answer=answer, states=[[pl.to_json() for pl in tiling]], details={"subset": list(combo)})

    def question(self, scene: dict[str, Any]) -> str:
        n = len(scene["pieces"])
        lab = labels(n)
        return (
            f"The grid on the left shows a target shape (the grey cells inside the thick outline). On the right "
            f"are {n} candidate pieces labelled {lab[0]} to {lab[-1]}. Exactly {scene['k']} of these pieces, "
            f"each used at most once, can be put together to cover the target shape exactly: no gaps, no "
            f"overlaps and nothing sticking out. {RULE_TEXT[scene['rule']]}. Which {scene['k']} pieces form the "
            f"target? Answer with their letters in alphabetical order, separated by a comma and a space "
            f'(for example "A, C, D").'
        )

    def answer_space(self, instance: Instance) -> AnswerSpace:
        # The question fixes both the labels (A to the n_candidates-th letter) and the subset size k.
        cfg = self.config
        lab = labels(cfg.n_candidates)
        return subsets(
            lab,
            cfg.k,
            cfg.k,
            f"the {comb(cfg.n_candidates, cfg.k)} sets of {cfg.k} of the labels {lab[0]} to {lab[-1]}",
        )

    # -- rendering ----------------------------------------------------------------------------------

    def _board(
        self, scene: dict[str, Any], faded: tuple[int, ...] = ()
    ) -> tuple[BoardLayout, list[DrawnPiece], Canvas]:
        pieces = [
            DrawnPiece(p["label"], tuple(tuple(c) for c in p["cells"]), (), PIECE_RGB[p["color"]])
            for p in scene["pieces"]
        ]
        lay, cv = scene_board(scene, pieces, "Target shape", "Candidate pieces", faded)
        return lay, pieces, cv

    def render(self, scene: dict[str, Any], solution: Solution) -> Rendering:
        tiling = [placement_from_json(d) for d in solution.states[0]]
        image = self.render_input(scene, solution)
        chosen = {pl.piece for pl in tiling}
        lay, pieces, cv = self._board(scene, faded=tuple(i for i in range(len(scene["pieces"])) if i not in chosen))
        draw_placed(cv, lay, [(pieces[pl.piece], pl) for pl in tiling])
        return Rendering(image=image, steps=[(cv.image(), self._step_text(scene, tiling))])

    def render_input(self, scene: dict[str, Any], solution: Solution) -> Image.Image:
        return self._board(scene)[2].image()

    def _step_text(self, scene: dict[str, Any], tiling: list[Placement]) -> str:
        """What the step picture shows: each placed piece with its turn and cells, walked from the bottom-left
        of the grid, and how much of the target they cover. It names the placed pieces as the picture labels
        them (`final_state_shows`) and never sums them up into an answer."""
        parts = []
        for pl in sorted(tiling, key=lambda p: (min((y, x) for x, y in p.cells), p.piece)):
            p = scene["pieces"][pl.piece]
            parts.append(
                f"piece {p['label']} ({p['color']}, {len(pl.cells)} cells, {transform_words(pl.k)}) "
                f"covers {fmt_cells(pl.cells)}"
            )
        covered = {c for pl in tiling for c in pl.cells}
        target = {tuple(c) for c in scene["target"]}
        n_cov = sum(len(pl.cells) for pl in tiling)
        return (
            f"The target has {len(target)} cells (x = column from the left, y = row from the bottom). Placed "
            f"on it, from the bottom row up: "
            + "; ".join(parts)
            + f". The placed pieces cover {len(covered & target)} of the {len(target)} target cells with "
            f"{n_cov} piece cells; the other candidates stay in the panel, washed out."
        )

    # -- corruption ---------------------------------------------------------------------------------

    def corrupt(self, scene: dict[str, Any], solution: Solution, rng: random.Random) -> Corruption | None:
        """A decoy's shape misread as a true piece's: the decoy (of the same size, preferably) is taken to have
        the shape of the true piece it replaces, so it covers exactly the vacated cells.

        The corrupted step is the true step of the misread scene — the decoy drawn in the panel with the misread
        shape, the target covered exactly, with no gap or overlap — so no line breaks the stated rule ("cover
        the target exactly"); only the decoy's shape read off the picture is wrong."""
        tiling = [placement_from_json(d) for d in solution.states[0]]
        chosen = sorted(pl.piece for pl in tiling)
        decoys = [i for i in range(len(scene["pieces"])) if i not in chosen]
        options = [(out_pl, decoy) for out_pl in tiling for decoy in decoys]
        if not options:
            return None
        rng.shuffle(options)
        size = {i: len(p["cells"]) for i, p in enumerate(scene["pieces"])}
        out_pl, decoy = min(options, key=lambda o: size[o[1]] != size[o[0].piece])
        wrong = copy.deepcopy(scene)
        wrong["pieces"][decoy]["cells"] = copy.deepcopy(scene["pieces"][out_pl.piece]["cells"])
        new = Placement(decoy, out_pl.k, out_pl.offset, out_pl.cells, out_pl.marks)
        bad = [new if pl is out_pl else pl for pl in tiling]
        placed = sorted(pl.piece for pl in bad)
        subset = ", ".join(scene["pieces"][i]["label"] for i in placed)

        def draw() -> list[tuple[Image.Image, str]]:
            faded = tuple(i for i in range(len(wrong["pieces"])) if i not in placed)
            lay, pieces, cv = self._board(wrong, faded=faded)
            draw_placed(cv, lay, [(pieces[pl.piece], pl) for pl in bad])
            return [(cv.image(), self._step_text(wrong, bad))]

        # The placed pieces are the set the trajectory concludes with; `subset` lists them in label order, the
        # answer's format. No misread scene is given: with the decoy read as the true piece's shape, the true
        # set still tiles the target too, so the misread scene has two answers and the oracle none.
        return Corruption(
            steps=draw,
            description=f"decoy {scene['pieces'][decoy]['label']} misread as the shape of piece "
            f"{scene['pieces'][out_pl.piece]['label']} and placed in its stead; placed "
            f"pieces {subset}",
            answer=subset,
        )
