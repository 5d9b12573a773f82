"""rolling_dice_two: the same die can roll along a red or a black path on a grid board; which path gives the
higher sum of bottom faces, and that sum.

The board, paths and step pictures are shared with the other rolling-dice tasks (`common/dice_paths.py`);
the die model and the roll rule live in `common/die.py`.
"""

from __future__ import annotations

import random
from typing import Any

from PIL import Image

from vcot.draw.canvas import Canvas
from vcot.schema import Instance
from vcot.tasks import register
from vcot.tasks.answer_space import AnswerSpace, finite, product
from vcot.tasks.base import Corruption, GenContext, Limit, Reject, Rendering, Solution, Task
from vcot.tasks.common.dice_paths import (
    DICE_LIMITS,
    RULES,
    H,
    RollingDiceConfig,
    W,
    board_geometry,
    bottom_sum,
    bottom_sum_space,
    cell_center,
    check_board,
    draw_board,
    draw_die_on_board,
    draw_panel,
    draw_path,
    misread_start,
    sample_die,
    sample_path,
    slipped_rolls,
    start_die,
    trajectory,
    validate_path,
)
from vcot.tasks.common.die import Die, draw_top_face

TWO_OUTCOMES = ("red", "black", "same")


def validate_pair(red: list[list[int]], black: list[list[int]]) -> None:
    """Both paths must start on the same cell, have the same number of moves, and differ."""
    if list(red[0]) != list(black[0]):
        raise Reject("the two paths start on different cells")
    if len(red) != len(black):
        raise Reject("the two paths have different lengths")
    if [list(c) for c in red] == [list(c) for c in black]:
        raise Reject("the two paths are identical")


def outcome(sums: dict[str, int]) -> str:
    """The path whose sum is higher, or "same"."""
    if sums["red"] > sums["black"]:
        return "red"
    return "black" if sums["black"] > sums["red"] else "same"


def answer_of_states(states: dict[str, list[dict[str, Any]]]) -> str:
    """'colour, sum' from the die's states along both paths."""
    sums = {c: bottom_sum(states[c]) for c in ("red", "black")}
    return f"{outcome(sums)}, {max(sums.values())}"


@register
class RollingDiceTwo(Task):
    name = "rolling_dice_two"
    config_cls = RollingDiceConfig
    version = "3"
    description = (
        "The same die can roll along a red or a black path; which path gives the higher sum of "
        "bottom faces, and that sum."
    )
    presets = {
        "easy": RollingDiceConfig(rows=4, cols=4, min_moves=3, max_moves=4),
        "medium": RollingDiceConfig(rows=5, cols=5, min_moves=4, max_moves=6),
        "hard": RollingDiceConfig(rows=6, cols=6, min_moves=6, max_moves=9),
    }
    limits = {
        **DICE_LIMITS,
        "max_moves": Limit(
            2,
            DICE_LIMITS["max_moves"].hi,
            DICE_LIMITS["max_moves"].why + "; a tie ('same') "
            "needs two rolls, since one roll each way puts two different faces at the bottom",
        ),
    }

    def check_config(self, config: RollingDiceConfig) -> None:
        super().check_config(config)
        # On a 2 x 2 board the only two paths from a cell are its two ways round, too few for all three outcomes.
        check_board(
            self.name,
            config,
            min_cells=6,
            why="two different paths from one start cell that can tie or let either colour win",
        )

    def sample_scene(self, ctx: GenContext) -> dict[str, Any]:
        cfg = self.config
        target = TWO_OUTCOMES[ctx.balanced(3)]
        moves = ctx.rng.randint(cfg.min_moves, cfg.max_moves)
        red = sample_path(ctx.rng, cfg.rows, cfg.cols, moves)
        black = sample_path(ctx.rng, cfg.rows, cfg.cols, moves, start=red[0])
        scene = {
            "rows": cfg.rows,
            "cols": cfg.cols,
            "paths": {"red": red, "black": black},
            "start_die": sample_die(ctx.rng),
        }
        outcome = self.solve(scene).details["winner"]
        if outcome != target:
            raise Reject(f"balancing: outcome {outcome} is not the target {target}")
        return scene

    def solve(self, scene: dict[str, Any]) -> Solution:
        paths = scene["paths"]
        for p in paths.values():
            validate_path(scene["rows"], scene["cols"], p)
        validate_pair(paths["red"], paths["black"])
        die = start_die(scene)
        states = {c: trajectory(die, paths[c]) for c in ("red", "black")}
        sums = {c: bottom_sum(states[c]) for c in ("red", "black")}
        winner = outcome(sums)
        return Solution(answer=answer_of_states(states), states=[states], details={"sums": sums, "winner": winner})

    def question(self, scene: dict[str, Any]) -> str:
        return (
            f"The same die, in the same starting position on cell S of a {scene['rows']}x{scene['cols']} grid "
            f"board, can roll either along the red path or along the black path (each from S to its arrow "
            f"head). {RULES} For each path, add up the numbers on the bottom face (the face touching the "
            "board) after each roll; the bottom face at the start, before the first roll, is not counted. "
            "Which path gives the higher sum, and what is that sum? Answer as 'colour, sum' with colour red "
            "or black, e.g. 'red, 17'; if both sums are equal, answer 'same, <sum>', e.g. 'same, 12'."
        )

    def _picture(
        self, scene: dict[str, Any], now: dict[str, dict[str, Any]], done: int | None, label: str
    ) -> Image.Image:
        rows, cols = scene["rows"], scene["cols"]
        _, _, cell = board_geometry(rows, cols)
        off = cell * 0.09
        cv = Canvas(W, H)
        draw_board(cv, rows, cols, scene["paths"]["red"][0])
        draw_path(cv, rows, cols, scene["paths"]["black"], "black", offset=-off, done=done)
        draw_path(cv, rows, cols, scene["paths"]["red"], "red", offset=off, done=done)
        if done is None:
            draw_die_on_board(cv, rows, cols, now["red"]["cell"], now["red"]["die"]["top"])
            draw_panel(cv, Die(**now["red"]["die"]), 70, label)
        else:
            for colour, sign in (("black", -1), ("red", 1)):
                st = now[colour]
                cx, cy = cell_center(rows, cols, *st["cell"])
                o = sign * cell * 0.14
                h = cell * 0.25 + 4
                cv.rect((cx + o - h, cy + o - h, cx + o + h, cy + o + h), fill=colour, outline=None)
                draw_top_face(cv, (cx + o, cy + o), cell * 0.5, st["die"]["top"])
            draw_panel(cv, Die(**now["red"]["die"]), 60, f"Red path, {label}", "red", show_bottom=True, compact=True)
            draw_panel(
                cv, Die(**now["black"]["die"]), 305, f"Black path, {label}", "black", show_bottom=True, compact=True
            )
        cv.text((20, 14), "Two paths for the same die", size=20, bold=True)
        return cv.image()

    def _steps(self, scene: dict[str, Any], states: dict[str, list[dict[str, Any]]]) -> list[tuple[Image.Image, str]]:
        """One step per roll index: both dice after that roll, with the faces the two panels draw. The sums
        and the winner are the conclusion (kept in meta), so no step states a running or final sum."""
        n = len(states["red"]) - 1
        steps = []
        for k in range(1, n + 1):
            parts = []
            for colour in ("red", "black"):
                st, prev = states[colour][k], states[colour][k - 1]
                d = st["die"]
                parts.append(
                    f"{colour.capitalize()} path: the die rolls {st['move']} from (row "
                    f"{prev['cell'][0] + 1}, column {prev['cell'][1] + 1}) to (row {st['cell'][0] + 1}, "
                    f"column {st['cell'][1] + 1}) and shows top {d['top']}, south {d['south']}, east "
                    f"{d['east']} and bottom {d['bottom']}."
                )
            img = self._picture(scene, {c: states[c][k] for c in states}, done=k, label=f"after roll {k}")
            steps.append((img, f"Roll {k} of {n}. " + " ".join(parts)))
        return steps

    def render(self, scene: dict[str, Any], solution: Solution) -> Rendering:
        return Rendering(image=self.render_input(scene, solution), steps=self._steps(scene, solution.states[0]))

    def render_input(self, scene: dict[str, Any], solution: Solution) -> Image.Image:
        states = solution.states[0]
        return self._picture(scene, {c: states[c][0] for c in states}, done=None, label="Start die")

    def answer_space(self, instance: Instance) -> AnswerSpace:
        """The three words the question offers times the sums a path of this configuration can give (the
        higher of two sums is one of them)."""
        colours = finite(list(TWO_OUTCOMES), "red, black or same", lambda a: a.strip().lower())
        sums = bottom_sum_space(self.config)

        def split(answer: str) -> list[str] | None:
            parts = [p.strip() for p in answer.split(",")]
            return parts if len(parts) == 2 else None

        return product(
            [colours, sums],
            lambda p: f"{p[0]}, {p[1]}",
            split,
            f"'colour, sum' with colour red, black or same ({colours.size}) and the sum one of "
            f"{sums.description} ({sums.size})",
        )

    def corrupt(self, scene: dict[str, Any], solution: Solution, rng: random.Random) -> Corruption | None:
        # Both paths start from the one die, so a misread start die changes both (`misread_start`).
        misread = misread_start(scene, lambda s: self.solve(s).answer, rng)
        if misread is None:
            return None
        wrong, description = misread
        solved = self.solve(wrong)  # `misread_start` has solved this scene already: it cannot reject here
        states = solved.states[0]
        # The misread die rolled along both paths by the stated rule: its sums and winner are what the
        # corrupted trajectory concludes, and the oracle re-derives them from the misread scene.
        return Corruption(
            steps=lambda: self._steps(wrong, states), description=description, answer=solved.answer, scene=wrong
        )

    def slip(self, scene: dict[str, Any], solution: Solution, rng: random.Random) -> Corruption | None:
        """One roll on one path turned as a roll in another direction would turn it (`slipped_rolls`), the rest
        of that path rolled by the rule from there, the other path true; the first such slip, in a seeded
        order, that changes the answer."""
        true = solution.states[0]
        colours = ["red", "black"]
        rng.shuffle(colours)
        for colour in colours:
            for k, turned, states, rolled in slipped_rolls(scene["paths"][colour], true[colour], rng):
                slipped = {**true, colour: states}
                answer = answer_of_states(slipped)
                if answer != solution.answer:
                    return Corruption(
                        steps=lambda slipped=slipped: self._steps(scene, slipped),
                        description=f"{colour} path: roll {k} ({states[k]['move']}) turns the die as "
                        f"a roll {turned} would; its later rolls follow the rule from there",
                        answer=answer,
                        scene={**scene, "paths": {**scene["paths"], colour: rolled}},
                    )
        return None
