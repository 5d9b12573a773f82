"""The board, paths, pictures and step texts shared by the rolling-dice tasks (rolling_dice_top,
rolling_dice_sum, rolling_dice_two), and `SinglePathTask`, the part of the two one-path tasks that does not
depend on the question.

The die model, its handedness and the roll rule live in `die.py`. Paths are self-avoiding so that the drawn
polyline reads unambiguously; every move goes to a 4-neighbour and tips the die over one edge.
"""

from __future__ import annotations

import random
from abc import abstractmethod
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, ClassVar

from PIL import Image

from vcot.draw.canvas import Canvas
from vcot.tasks.answer_space import AnswerSpace, finite, integers
from vcot.tasks.base import Corruption, GenContext, Limit, ParameterError, Reject, Rendering, Solution, Task
from vcot.tasks.common.die import (
    DIRECTIONS,
    ORIENTATIONS,
    STEP,
    Die,
    die_from_visible,
    draw_cube,
    draw_top_face,
    move_direction,
    roll_path,
)

RULES = (
    "The die is a standard die: opposite faces sum to 7, and it is right-handed (with 1 on top and 2 facing "
    "south, 3 faces east). North is up in the picture; rows are numbered from the top (north), columns from "
    "the left (west). The die starts on the cell marked S, where its top face is drawn; the panel on the right "
    "shows its top, south and east faces. At every move the die rolls over one of its bottom edges into the "
    "neighbouring cell along the path, so each move turns it by a quarter turn."
)

W, H = 768, 560
BOARD_BOX = (40, 60, 520, 540)  # board drawing area (x0, y0, x1, y1)
PALE = {"blue": "lightblue", "red": "lightred", "black": (185, 185, 185)}


@dataclass(frozen=True)
class RollingDiceConfig:
    rows: int = 5
    cols: int = 5
    min_moves: int = 5
    max_moves: int = 7


_SIDE_WHY = (
    "board side in cells: above 10 the cells of the 480-px board, and the die's pips in them, get smaller "
    "than 48 px; with one row or column every path is a straight line"
)
_MOVES_WHY = (
    "rolls along the path, one step picture each; the sum questions' answer space searches every path shape "
    "(0.4 CPU seconds at 12 moves, nearly 3 times more per extra move)"
)
# Shared by the three rolling-dice tasks (docs/tasks/README.md, "Parameter limits"); rolling_dice_two raises
# the lower bound of max_moves.
DICE_LIMITS: dict[str, Limit] = {
    "rows": Limit(2, 10, _SIDE_WHY),
    "cols": Limit(2, 10, _SIDE_WHY),
    "min_moves": Limit(1, 12, _MOVES_WHY),
    "max_moves": Limit(1, 12, _MOVES_WHY),
}


def check_board(task: str, cfg: RollingDiceConfig, min_cells: int = 0, why: str = "") -> None:
    """Refuse a board too small for the paths: a self-avoiding path of max_moves moves visits max_moves + 1
    cells; a question may need a board of at least `min_cells` cells (`why` says why)."""
    cells = cfg.rows * cfg.cols
    if cfg.max_moves > cells - 1:
        raise ParameterError(
            f"parameters of task {task}: max_moves ({cfg.max_moves}) must be at most rows x cols - 1 "
            f"= {cells - 1} (a path of max_moves moves visits max_moves + 1 different cells)"
        )
    if cells < min_cells:
        raise ParameterError(
            f"parameters of task {task}: the board (rows x cols = {cells} cells) must have at least "
            f"{min_cells} cells ({why})"
        )


# -- scene pieces ---------------------------------------------------------------------------------------


def validate_path(rows: int, cols: int, path: list[list[int]]) -> None:
    """Reject paths that leave the board, jump, or revisit a cell (a self-crossing polyline reads ambiguously)."""
    if len(path) < 2:
        raise Reject("path has no move")
    for r, c in path:
        if not (0 <= r < rows and 0 <= c < cols):
            raise Reject(f"cell {(r, c)} is off the {rows}x{cols} board")
    for a, b in zip(path[:-1], path[1:], strict=True):
        try:
            move_direction(a, b)
        except ValueError:
            raise Reject(f"cells {a} and {b} are not 4-neighbours") from None
    if len({tuple(p) for p in path}) != len(path):
        raise Reject("path revisits a cell")


def sample_path(
    rng: random.Random, rows: int, cols: int, moves: int, start: list[int] | None = None
) -> list[list[int]]:
    """A self-avoiding random walk with `moves` moves; Reject if it gets stuck."""
    if start is None:
        start = [rng.randrange(rows), rng.randrange(cols)]
    path = [list(start)]
    seen = {tuple(start)}
    for _ in range(moves):
        r, c = path[-1]
        options = []
        for d in DIRECTIONS:
            dr, dc = STEP[d]
            nxt = (r + dr, c + dc)
            if 0 <= nxt[0] < rows and 0 <= nxt[1] < cols and nxt not in seen:
                options.append(nxt)
        if not options:
            raise Reject("random walk got stuck")
        nxt = rng.choice(options)
        seen.add(nxt)
        path.append(list(nxt))
    return path


def sample_die(rng: random.Random) -> dict[str, int]:
    keys = sorted(ORIENTATIONS)
    return ORIENTATIONS[keys[rng.randrange(len(keys))]].visible()


def start_die(scene: dict[str, Any]) -> Die:
    try:
        return die_from_visible(scene["start_die"])
    except ValueError as exc:
        raise Reject(str(exc)) from None


def trajectory(die: Die, path: list[list[int]]) -> list[dict[str, Any]]:
    """JSON-able states: cell, move that led there (None at the start), all six faces."""
    states = roll_path(die, path)
    out = []
    for k, (cell, st) in enumerate(zip(path, states, strict=True)):
        move = move_direction(path[k - 1], cell) if k else None
        out.append({"cell": list(cell), "move": move, "die": st.as_dict()})
    return out


def bottom_sum(states: list[dict[str, Any]]) -> int:
    """Sum of the bottom faces after each roll; the starting bottom face is not counted."""
    return sum(s["die"]["bottom"] for s in states[1:])


@lru_cache(maxsize=32)
def reachable_bottom_sums(rows: int, cols: int, min_moves: int, max_moves: int) -> frozenset[int]:
    """Every bottom-face sum that some path the generator can draw gives, from some start orientation: paths
    of min_moves..max_moves moves that avoid themselves and fit a rows x cols board.

    The bounds n..6n would be loose: consecutive bottoms are adjacent faces, and self-avoidance forbids the
    tight loops that the extreme sums need (medium: 11..33 instead of 5..42). So the search is exhaustive over
    path shapes (a shape fits some start cell iff its bounding box fits the board), carrying per current
    orientation the bit set of sums reached; a half turn of the board maps shapes to shapes and orientations
    to orientations (a quarter turn too on a square board), so only first moves up to that symmetry are tried.
    About a second for the hard preset, once per configuration.
    """
    dies = sorted(ORIENTATIONS.values(), key=lambda d: (d.top, d.south))
    index = {d: i for i, d in enumerate(dies)}
    after = {m: [index[d.roll(m)] for d in dies] for m in DIRECTIONS}
    bottom = [d.bottom for d in dies]
    found = 0

    def walk(
        cell: tuple[int, int],
        seen: set[tuple[int, int]],
        sums: list[int],
        moves: int,
        box: tuple[int, int, int, int],
        first: tuple[str, ...],
    ) -> None:
        nonlocal found
        if moves >= min_moves:
            for bits in sums:
                found |= bits
        if moves == max_moves:
            return
        for m in first:
            dr, dc = STEP[m]
            nxt = (cell[0] + dr, cell[1] + dc)
            if nxt in seen:
                continue
            nbox = (min(box[0], nxt[0]), max(box[1], nxt[0]), min(box[2], nxt[1]), max(box[3], nxt[1]))
            if nbox[1] - nbox[0] >= rows or nbox[3] - nbox[2] >= cols:
                continue
            rolled = [0] * len(dies)
            for i, bits in enumerate(sums):
                j = after[m][i]
                rolled[j] = bits << bottom[j]
            seen.add(nxt)
            walk(nxt, seen, rolled, moves + 1, nbox, DIRECTIONS)
            seen.remove(nxt)

    first = ("east",) if rows == cols else ("east", "south")
    walk((0, 0), {(0, 0)}, [1] * len(dies), 0, (0, 0, 0, 0), first)
    return frozenset(k for k in range(found.bit_length()) if found >> k & 1)


def bottom_sum_space(cfg: RollingDiceConfig) -> AnswerSpace:
    """The integer sums a bottom-face-sum question admits under `cfg` (see `reachable_bottom_sums`)."""
    sums = sorted(reachable_bottom_sums(cfg.rows, cfg.cols, cfg.min_moves, cfg.max_moves))
    what = (
        f"bottom-face sums of a die rolled {cfg.min_moves}-{cfg.max_moves} times along a self-avoiding path "
        f"on a {cfg.rows}x{cfg.cols} board"
    )
    if sums == list(range(sums[0], sums[-1] + 1)):
        return integers(sums[0], sums[-1], f"the integers {sums[0]} to {sums[-1]}: the {what}")

    def canon(a: str) -> str:
        a = a.strip()
        return str(int(a)) if a.lstrip("-").isdigit() else a

    return finite([str(v) for v in sums], f"the {len(sums)} {what}", canon)


# -- drawing --------------------------------------------------------------------------------------------


def board_geometry(rows: int, cols: int) -> tuple[float, float, float]:
    x0, y0, x1, y1 = BOARD_BOX
    cell = min((x1 - x0) / cols, (y1 - y0) / rows, 90.0)
    return x0, y0, cell


def cell_center(rows: int, cols: int, r: int, c: int) -> tuple[float, float]:
    x0, y0, cell = board_geometry(rows, cols)
    return (x0 + (c + 0.5) * cell, y0 + (r + 0.5) * cell)


def draw_board(cv: Canvas, rows: int, cols: int, start: list[int]) -> None:
    x0, y0, cell = board_geometry(rows, cols)
    for r in range(rows):
        for c in range(cols):
            fill = "lightyellow" if [r, c] == list(start) else ((238, 238, 238) if (r + c) % 2 else "white")
            cv.rect(
                (x0 + c * cell, y0 + r * cell, x0 + (c + 1) * cell, y0 + (r + 1) * cell),
                fill=fill,
                outline="gray",
                width=1.5,
            )
    cv.rect((x0, y0, x0 + cols * cell, y0 + rows * cell), outline="black", width=2.5)
    for c in range(cols):
        cv.text((x0 + (c + 0.5) * cell, y0 - 6), str(c + 1), size=16, anchor="mb", color="darkgray")
    for r in range(rows):
        cv.text((x0 - 8, y0 + (r + 0.5) * cell), str(r + 1), size=16, anchor="rm", color="darkgray")
    sx, sy = cell_center(rows, cols, *start)
    cv.text((sx - cell / 2 + 3, sy - cell / 2 + 2), "S", size=16, bold=True, anchor="lt")
    # compass, top right, clear of the board and the die panel
    cv.arrow((W - 22, 50), (W - 22, 8), color="black", width=3)
    cv.text((W - 34, 30), "N", size=18, bold=True, anchor="rm")


def _path_points(rows: int, cols: int, path: list[list[int]], offset: float) -> list[tuple[float, float]]:
    return [(x + offset, y + offset) for x, y in (cell_center(rows, cols, r, c) for r, c in path)]


def draw_path(
    cv: Canvas, rows: int, cols: int, path: list[list[int]], color: str, offset: float = 0.0, done: int | None = None
) -> None:
    """The path as a polyline with direction chevrons and an arrow head at its end; when `done` is given the
    first `done` moves are solid and the rest pale and dashed."""
    pts = _path_points(rows, cols, path, offset)
    _, _, cell = board_geometry(rows, cols)
    width = max(3.0, cell * 0.07)
    n = len(pts) - 1
    for k in range(n):
        travelled = done is None or k < done
        a, b = pts[k], pts[k + 1]
        seg_color = color if travelled else PALE[color]
        if k == n - 1:
            cv.arrow(
                a,
                (a[0] + 0.78 * (b[0] - a[0]), a[1] + 0.78 * (b[1] - a[1])),
                color=seg_color,
                width=width,
                head=width * 4.2,
                dash=None if travelled else (8, 6),
            )
        else:
            cv.line([a, b], color=seg_color, width=width, dash=None if travelled else (8, 6))
            mid = ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2)
            ux, uy = (b[0] - a[0]) / cell, (b[1] - a[1]) / cell
            h = width * 2.2
            cv.polygon(
                [
                    (mid[0] + ux * h, mid[1] + uy * h),
                    (mid[0] - ux * h - uy * h, mid[1] - uy * h + ux * h),
                    (mid[0] - ux * h + uy * h, mid[1] - uy * h - ux * h),
                ],
                fill=seg_color,
                outline=None,
            )


def draw_die_on_board(
    cv: Canvas, rows: int, cols: int, cell_rc: list[int], top: int, ring: str | None = None, offset: float = 0.0
) -> None:
    _, _, cell = board_geometry(rows, cols)
    cx, cy = cell_center(rows, cols, *cell_rc)
    size = cell * 0.55
    if ring is not None:
        h = size / 2 + 4
        cv.rect((cx + offset - h, cy + offset - h, cx + offset + h, cy + offset + h), fill=ring, outline=None)
    draw_top_face(cv, (cx + offset, cy + offset), size, top)


def draw_panel(
    cv: Canvas,
    die: Die,
    y_top: float,
    title: str,
    title_color: str = "black",
    show_bottom: bool = False,
    compact: bool = False,
) -> None:
    """The oblique three-face view of the die in the right-hand panel; with `show_bottom` also its bottom face
    (the step pictures: the sum tasks count bottom faces, and a step text may only state what its picture
    shows). `compact` fits two panels, one above the other, by setting the bottom face beside the cube."""
    cv.text((645, y_top), title, size=16, anchor="mt", bold=True, color=title_color)
    if not compact:
        draw_cube(cv, (582, y_top + 92), 96, die)
        if show_bottom:
            cv.text((630, y_top + 236), "bottom", size=16, anchor="mt", color="darkgray")
            draw_top_face(cv, (630, y_top + 292), 64, die.bottom)
        return
    draw_cube(cv, (540, y_top + 80), 80, die)
    if show_bottom:
        cv.text((735, y_top + 89), "bottom", size=16, anchor="mb", color="darkgray")
        draw_top_face(cv, (735, y_top + 120), 50, die.bottom)


# -- single-path tasks (rolling_dice_top, rolling_dice_sum) and the corrupted roll -----------------


def sample_single(ctx: GenContext, cfg: RollingDiceConfig) -> dict[str, Any]:
    """A scene with one path: its length, the walk, then the start die (in this order of draws)."""
    moves = ctx.rng.randint(cfg.min_moves, cfg.max_moves)
    path = sample_path(ctx.rng, cfg.rows, cfg.cols, moves)
    return {"rows": cfg.rows, "cols": cfg.cols, "path": path, "start_die": sample_die(ctx.rng)}


def solve_single(scene: dict[str, Any]) -> list[dict[str, Any]]:
    """The states along the scene's one path."""
    validate_path(scene["rows"], scene["cols"], scene["path"])
    return trajectory(start_die(scene), scene["path"])


def roll_text(k: int, n: int, st: dict[str, Any], prev: dict[str, Any]) -> str:
    """What step k's picture shows: the roll, the cells, and the four faces drawn (top, south, east, bottom).
    No running sum and no closing remark: the sum and the final reading are the conclusion, kept in meta."""
    d = st["die"]
    return (
        f"Roll {k} of {n}: the die rolls {st['move']} from (row {prev['cell'][0] + 1}, column "
        f"{prev['cell'][1] + 1}) to (row {st['cell'][0] + 1}, column {st['cell'][1] + 1}). It now shows top "
        f"{d['top']}, south {d['south']}, east {d['east']} and bottom {d['bottom']}."
    )


def single_steps(scene: dict[str, Any], states: list[dict[str, Any]]) -> list[tuple[Image.Image, str]]:
    n = len(states) - 1
    return [
        (
            single_picture(scene, states[k], done=k, label=f"After roll {k} ({states[k]['move']})"),
            roll_text(k, n, states[k], states[k - 1]),
        )
        for k in range(1, n + 1)
    ]


def single_picture(scene: dict[str, Any], state: dict[str, Any], done: int | None, label: str) -> Image.Image:
    rows, cols = scene["rows"], scene["cols"]
    cv = Canvas(W, H)
    draw_board(cv, rows, cols, scene["path"][0])
    draw_path(cv, rows, cols, scene["path"], "blue", done=done)
    draw_die_on_board(cv, rows, cols, state["cell"], state["die"]["top"], ring="orange")
    # The input picture (done is None) shows the three faces the question describes; steps add the bottom.
    draw_panel(cv, Die(**state["die"]), 70, label, show_bottom=done is not None)
    cv.text((20, 14), "Die rolling on a grid board", size=20, bold=True)
    return cv.image()


def misread_start(
    scene: dict[str, Any], answer_of: Callable[[dict[str, Any]], str], rng: random.Random
) -> tuple[dict[str, Any], str] | None:
    """The scene with its start die misread as another standard (right-handed) die whose rolls give another
    answer, and what was misread; None when no misreading changes the answer.

    A corrupted trajectory rolls the misread die along the drawn path by the stated rule, so every step states
    a wrong state the way a right step states a right one: each roll turns the faces as its stated direction
    does, and every state is a standard die (opposite faces sum to 7, right-handed). A die that keeps the top
    face (drawn on S as well as in the panel) and misreads the side faces is tried first."""
    true = start_die(scene)
    answer = answer_of(scene)
    others = [die for _, die in sorted(ORIENTATIONS.items()) if die != true]
    same_top = [die for die in others if die.top == true.top]
    rng.shuffle(same_top)
    rest = [die for die in others if die.top != true.top]
    rng.shuffle(rest)
    for die in same_top + rest:
        wrong = {**scene, "start_die": die.visible()}
        if answer_of(wrong) != answer:
            seen, read = true.visible(), die.visible()
            faces = ", ".join(f"{f} {read[f]}" for f in ("top", "south", "east") if read[f] != seen[f])
            return wrong, f"start die misread ({faces}); every roll follows the rule from the misread die"
    return None


def slipped_rolls(
    path: list[list[int]], states: list[dict[str, Any]], rng: random.Random
) -> Iterator[tuple[int, str, list[dict[str, Any]], list[list[int]]]]:
    """Every slip of one roll along `path`, in a seeded order: roll k (1-based) turns the die as a roll in
    another direction would, while the die still moves to the path's next cell, and every later roll follows
    the rule from that wrong state. Yields (k, the direction the faces were turned, the slipped states, the
    path whose rolls give those states).

    The slipped state is a standard die in a reachable orientation and the step names the true move and cells,
    so nothing within the step breaks a stated rule: only the turn from the state before it is wrong. The last
    item is a path with the same moves but roll k's, which `vcot.oracles` rolls to re-derive the slipped
    answer (it may leave the board or cross itself: the oracle reads only the moves)."""
    n = len(states) - 1
    slips = [(k, d) for k in range(1, n + 1) for d in DIRECTIONS if d != states[k]["move"]]
    rng.shuffle(slips)
    for k, turned in slips:
        wrong = Die(**states[k - 1]["die"]).roll(turned)
        rest = trajectory(wrong, [list(c) for c in path[k:]])
        rest[0] = {**rest[0], "move": states[k]["move"]}
        dr = STEP[turned][0] - STEP[states[k]["move"]][0]
        dc = STEP[turned][1] - STEP[states[k]["move"]][1]
        rolled = [list(c) for c in path[:k]] + [[r + dr, c + dc] for r, c in path[k:]]
        yield k, turned, states[:k] + rest, rolled


class SinglePathTask(Task):
    """A one-path rolling-dice task but for its question: the presets, the answer balancing, the pictures and
    the corrupted roll. A task adds what it asks (`ask`), its answer (`solve`), which answers it balances
    (`balance_bins`, `balance_bin`) and the answers its question admits (`answer_space`). Both tasks share
    the steps: one state of the die per roll, never the answer."""

    config_cls = RollingDiceConfig
    presets = {
        "easy": RollingDiceConfig(rows=4, cols=4, min_moves=3, max_moves=4),
        "medium": RollingDiceConfig(rows=5, cols=5, min_moves=5, max_moves=7),
        "hard": RollingDiceConfig(rows=6, cols=6, min_moves=8, max_moves=11),
    }
    ask: ClassVar[str]  # the question, after the description of the board and the rules of the die
    balance_bins: ClassVar[int]  # answers fall into this many classes, each equally common over a suite
    limits = DICE_LIMITS

    def check_config(self, config: RollingDiceConfig) -> None:
        super().check_config(config)
        check_board(self.name, config)

    @abstractmethod
    def balance_bin(self, answer: int) -> int:
        """The class in range(balance_bins) of an answer."""

    def sample_scene(self, ctx: GenContext) -> dict[str, Any]:
        target = ctx.balanced(self.balance_bins)
        scene = sample_single(ctx, self.config)
        got = self.balance_bin(int(self.solve(scene).answer))
        if got != target:
            raise Reject(f"balancing: answer class {got} is not the target {target}")
        return scene

    def question(self, scene: dict[str, Any]) -> str:
        return (
            f"A die rolls along the blue path on a {scene['rows']}x{scene['cols']} grid board, from the start "
            f"cell S to the arrow head. {RULES} {self.ask}"
        )

    def render_input(self, scene: dict[str, Any], solution: Solution) -> Image.Image:
        return single_picture(scene, solution.states[0], done=None, label="Start die")

    def render(self, scene: dict[str, Any], solution: Solution) -> Rendering:
        return Rendering(image=self.render_input(scene, solution), steps=single_steps(scene, solution.states))

    def corrupt(self, scene: dict[str, Any], solution: Solution, rng: random.Random) -> Corruption | None:
        misread = misread_start(scene, lambda s: self.solve(s).answer, rng)
        if misread is None:
            return None
        wrong, description = misread
        solved = self.solve(wrong)
        states = solved.states
        # The misread start die rolled by the rule is the whole trajectory, so its answer is the misread
        # scene's (it differs from the true one: misread_start keeps only dice that change the answer).
        return Corruption(
            steps=lambda: single_steps(wrong, states), description=description, answer=solved.answer, scene=wrong
        )

    @abstractmethod
    def answer_of_states(self, states: list[dict[str, Any]]) -> str:
        """The answer the die's states along the path give (what `solve` concludes from its states)."""

    def slip(self, scene: dict[str, Any], solution: Solution, rng: random.Random) -> Corruption | None:
        """One roll turned as a roll in another direction would turn it (the die still moves along the path),
        the rest rolled by the rule from there; the first such slip, in a seeded order, that changes the
        answer."""
        for k, turned, states, rolled in slipped_rolls(scene["path"], solution.states, rng):
            answer = self.answer_of_states(states)
            if answer != solution.answer:
                return Corruption(
                    steps=lambda states=states: single_steps(scene, states),
                    description=f"roll {k} ({states[k]['move']}) turns the die as a roll {turned} "
                    "would; the later rolls follow the rule from there",
                    answer=answer,
                    scene={**scene, "path": rolled},
                )
        return None
