"""Corrupted steps never contradict the rules their own task states (issue 45, docs/tasks/README.md "Steps are
states").

The `visual_cot_corrupted` condition asks whether a wrong picture misleads a model, so a corrupted step must look
like a right one: it states a wrong state in the same words and style as a right step, computed from a wrong but
consistent earlier reading (a misread arrow, sign, die or view), never by applying a rule wrongly in the same
sentence ("the y component flips ... so it now moves (-1, 2)" from (3, -2)).

For every registered task with a corrupted trajectory, instances at every difficulty are checked by the task's
rule checker in `RULE_CHECKERS`: each parses every step text with the task's template (so a corrupted step must
use the true steps' words) and checks the rules the question states. Every checker runs on the true steps too,
which must pass it: a checker that rejects right steps is wrong, not strict. Beside the rules, the corrupted
trajectory must end in another final state than the true one, and, for the tasks in `SAME_STEP_COUNT`, have as
many steps.

Hook for other packages: tasks in the packages of `CHECKED_ELSEWHERE` (the 3-D scenes, whose checkers live in
`tests/tasks/test_corruption_rules_3d.py`, and the packages being created) are skipped here; to check a task of
such a package here instead, add its checker to `RULE_CHECKERS` (`@rule_checker("task_name")`) and remove its
package from `CHECKED_ELSEWHERE`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import pytest

from task_pieces import builtin_task_names
from vcot.schema import Instance
from vcot.tasks import get_task, get_task_class
from vcot.tasks.base import Task

SEED = 11
PER_DIFFICULTY = 2  # instances per task and difficulty: the whole file stays well under a minute
CHECKED_ELSEWHERE = (
    "vcot.tasks.scene3d",
    "vcot.tasks.chem",
    "vcot.tasks.sciqa",
    "vcot.tasks.physsim",
    "vcot.tasks.robot",
)

Checker = Callable[[dict[str, Any], list[str]], None]
RULE_CHECKERS: dict[str, Checker] = {}
# Tasks whose corrupted trajectory misreads the input without changing how many steps the work takes. Billiards
# (another bounce count), gear_rotation (a jam found or overlooked) and cubes_missing (a misread column can
# change the layers with ghost cubes) may differ.
# Tasks whose steps add to one state (each layer step of cubes_missing adds its ghost cubes to the earlier ones),
# so the final state is the whole trajectory, not its last text.
CUMULATIVE_STATE = {"cubes_missing"}
SAME_STEP_COUNT = {
    "electric_charge",
    "mirror_clock",
    "rolling_dice_top",
    "rolling_dice_sum",
    "rolling_dice_two",
    "trailer_cubes_count",
    "trailer_cubes_missing",
    "cubes_count",
    "convex_hull",
}


def rule_checker(*names: str) -> Callable[[Checker], Checker]:
    """Register `fn(scene, step_texts)` as the rule checker of the named tasks; it raises AssertionError naming
    the broken rule."""

    def wrap(fn: Checker) -> Checker:
        for name in names:
            RULE_CHECKERS[name] = fn
        return fn

    return wrap


def _checked_here(name: str) -> bool:
    return not get_task_class(name).__module__.startswith(CHECKED_ELSEWHERE)


def corrupting_tasks() -> list[str]:
    return [n for n in builtin_task_names() if get_task_class(n).corrupt is not Task.corrupt and _checked_here(n)]


def _match(pattern: str, text: str) -> re.Match[str]:
    m = re.fullmatch(pattern, text)
    assert m, f"step text does not follow the task's template:\n  {text}\n  pattern: {pattern}"
    return m


# -- billiards: the reflection rule ------------------------------------------------------------------------

_BOUNCE = (
    r"Segment (\d+): from (?:the start|bounce \d+ at \((\S+), (\S+)\)) moving \((-?\d+), (-?\d+)\), the "
    r"ball hits the (left|right|top|bottom) cushion \((x|y) = (\d+)\) at \((\S+), (\S+)\) \(bounce (\d+)\)\. "
    r"The (x|y) component of the direction flips and the other is kept, so it now moves \((-?\d+), (-?\d+)\)\."
)
_POCKET = (
    r"Segment (\d+): from (?:the start|bounce \d+ at \((\S+), (\S+)\)) moving \((-?\d+), (-?\d+)\), the ball "
    r"reaches the pocket at \((\d+), (\d+)\) after (\d+) bounces? and falls in\."
)


@rule_checker("billiards")
def check_billiards(scene: dict[str, Any], texts: list[str]) -> None:
    w, h = scene["width"], scene["height"]
    pos = (Fraction(scene["start"][0]), Fraction(scene["start"][1]))
    moving: tuple[int, int] | None = None  # the first direction is read off the picture (it may be misread)
    for k, text in enumerate(texts, start=1):
        last = k == len(texts)
        m = _match(_POCKET if last else _BOUNCE, text)
        assert int(m.group(1)) == k
        if k > 1:
            assert (Fraction(m.group(2)), Fraction(m.group(3))) == pos, "a segment starts where the last one ended"
        d = (int(m.group(4)), int(m.group(5)))
        assert moving is None or d == moving, "a segment moves in the direction the last bounce gave"
        if last:
            pocket = (int(m.group(6)), int(m.group(7)))
            assert pocket in [(0, 0), (w // 2, 0), (w, 0), (w, h), (w // 2, h), (0, h)]
            assert int(m.group(8)) == k - 1
            # The pocket lies ahead on the line of motion, within its capture radius.
            rel = (pocket[0] - pos[0], pocket[1] - pos[1])
            along = rel[0] * d[0] + rel[1] * d[1]
            cross = rel[0] * d[1] - rel[1] * d[0]
            assert along > 0 and cross * cross <= Fraction(scene["capture"]) ** 2 * (d[0] ** 2 + d[1] ** 2)
            continue
        wall, axis, value = m.group(6), m.group(7), int(m.group(8))
        assert (axis, value) == {"left": ("x", 0), "right": ("x", w), "bottom": ("y", 0), "top": ("y", h)}[wall]
        hit = (Fraction(m.group(9)), Fraction(m.group(10)))
        assert int(m.group(11)) == k
        assert hit[0 if axis == "x" else 1] == value, "the hit point lies on the cushion named"
        assert 0 <= hit[0] <= w and 0 <= hit[1] <= h
        t = [(hit[i] - pos[i]) / d[i] for i in (0, 1) if d[i]]
        assert all(v == t[0] and v > 0 for v in t), "the hit point lies ahead on the line of motion"
        assert all(hit[i] == pos[i] for i in (0, 1) if not d[i])
        assert m.group(12) == axis, "the component normal to the cushion flips"
        flipped = (-d[0], d[1]) if axis == "x" else (d[0], -d[1])
        assert (int(m.group(13)), int(m.group(14))) == flipped, f"reflection of {d} off the {wall} cushion"
        pos, moving = hit, flipped


# -- gear_rotation: meshing and crossed belts reverse, open belts and shafts keep -------------------------

_FLIPS = {
    "meshes with": True,
    "is joined by a crossed belt to": True,
    "is joined by an open belt to": False,
    "shares a shaft with": False,
}
_DIR = r"(clockwise|counterclockwise)"
_LINK = "(" + "|".join(_FLIPS) + ")"


def _other(direction: str) -> str:
    return "counterclockwise" if direction == "clockwise" else "clockwise"


@rule_checker("gear_rotation")
def check_gear_rotation(scene: dict[str, Any], texts: list[str]) -> None:
    known: dict[str, str] = {}
    conflict = re.fullmatch(
        rf"Gear (\w) \({_DIR}\) {_LINK} gear (\w) \({_DIR}\), "
        r"(their contact ringed in red|their shared shaft ringed in red|the belt drawn in red)\.",
        texts[-1],
    )
    verb = "would turn" if conflict else "turns"
    first = _match(rf"Gear (\w) turns {_DIR} \(given\)\.", texts[0])
    assert first.group(1) == scene["gears"][scene["driver"]]["label"] and first.group(2) == scene["driver_dir"]
    known[first.group(1)] = first.group(2)
    for text in texts[1 : len(texts) - bool(conflict)]:
        sentences = re.split(r"(?<=\.) ", text)
        for s in sentences:
            m = _match(rf"Gear (\w) {_LINK} gear (\w) \({_DIR}\) and (turns|would turn) {_DIR}\.", s)
            new, link, via, via_dir, said, new_dir = m.groups()
            assert said == verb, f"{'tentative' if conflict else 'settled'} directions are worded {verb!r}: {s}"
            assert new not in known, f"gear {new} is reached once"
            assert known.get(via) == via_dir, f"gear {via}'s direction is the one stated before: {s}"
            assert new_dir == (_other(via_dir) if _FLIPS[link] else via_dir), f"the link's rule: {s}"
            known[new] = new_dir
    if conflict:
        a, a_dir, link, b, b_dir, _ = conflict.groups()
        assert known.get(a) == a_dir and known.get(b) == b_dir, "the ringed link joins the stated directions"
        assert (a_dir != b_dir) != _FLIPS[link], "the ringed link contradicts its rule"


# -- rolling dice: a roll turns the faces as its direction does -------------------------------------------

_STEP = {"north": (-1, 0), "south": (1, 0), "east": (0, 1), "west": (0, -1)}


def _roll(die: dict[str, int], direction: str) -> dict[str, int]:
    """The die after tipping over its bottom edge on `direction`'s side (faces: top, bottom, north, south,
    east, west)."""
    t, b, n, s, e, w = (die[f] for f in ("top", "bottom", "north", "south", "east", "west"))
    return {
        "north": dict(top=s, bottom=n, north=t, south=b, east=e, west=w),
        "south": dict(top=n, bottom=s, north=b, south=t, east=e, west=w),
        "east": dict(top=w, bottom=e, north=n, south=s, east=t, west=b),
        "west": dict(top=e, bottom=w, north=n, south=s, east=b, west=t),
    }[direction]


def _standard_dice() -> set[tuple[int, int, int]]:
    """(top, south, east) of the 24 orientations of the question's die: 1 on top, 2 south, 3 east, opposite
    faces summing to 7; every orientation is reached by rolling."""
    start = dict(top=1, bottom=6, north=5, south=2, east=3, west=4)
    seen, frontier = {(1, 2, 3)}, [start]
    while frontier:
        die = frontier.pop()
        for d in _STEP:
            r = _roll(die, d)
            if (r["top"], r["south"], r["east"]) not in seen:
                seen.add((r["top"], r["south"], r["east"]))
                frontier.append(r)
    return seen


STANDARD = _standard_dice()
_ROLL = (
    r"the die rolls (north|south|east|west) from \(row (\d+), column (\d+)\) to \(row (\d+), column (\d+)\)"
    r"(?:\. It now shows| and shows) top (\d), south (\d), east (\d) and bottom (\d)\."
)


def _check_rolls(path: list[list[int]], rolls: list[re.Match[str]]) -> None:
    prev: dict[str, int] | None = None
    for k, m in enumerate(rolls, start=1):
        d = m.group(1)
        a = (int(m.group(2)) - 1, int(m.group(3)) - 1)
        b = (int(m.group(4)) - 1, int(m.group(5)) - 1)
        assert [list(a), list(b)] == [path[k - 1], path[k]], "the die follows the drawn path"
        assert (b[0] - a[0], b[1] - a[1]) == _STEP[d], f"a roll {d} moves one cell {d}"
        top, south, east, bottom = (int(m.group(i)) for i in (6, 7, 8, 9))
        assert bottom == 7 - top, "opposite faces sum to 7"
        assert (top, south, east) in STANDARD, f"top {top}, south {south}, east {east} is no right-handed die"
        die = dict(top=top, bottom=bottom, south=south, north=7 - south, east=east, west=7 - east)
        if prev is not None:
            assert die == _roll(prev, d), f"roll {k} {d} turns the faces of the state before it"
        prev = die


@rule_checker("rolling_dice_top", "rolling_dice_sum")
def check_rolling_dice(scene: dict[str, Any], texts: list[str]) -> None:
    n = len(texts)
    rolls = [_match(rf"Roll {k} of {n}: {_ROLL}", t) for k, t in enumerate(texts, start=1)]
    _check_rolls(scene["path"], rolls)


@rule_checker("rolling_dice_two")
def check_rolling_dice_two(scene: dict[str, Any], texts: list[str]) -> None:
    n = len(texts)
    ms = [_match(rf"Roll {k} of {n}\. Red path: {_ROLL} Black path: {_ROLL}", t) for k, t in enumerate(texts, 1)]
    for colour, shift in (("red", 0), ("black", 9)):
        rolls = [re.fullmatch(_ROLL, " ".join(m.group(i + shift) for i in range(1, 10))) for m in ms]
        # Rebuild one match per roll from the captured groups, in the single-path form.
        rolls = [
            _match(
                _ROLL,
                f"the die rolls {m.group(1 + shift)} from (row {m.group(2 + shift)}, column "
                f"{m.group(3 + shift)}) to (row {m.group(4 + shift)}, column {m.group(5 + shift)}) "
                f"and shows top {m.group(6 + shift)}, south {m.group(7 + shift)}, east "
                f"{m.group(8 + shift)} and bottom {m.group(9 + shift)}.",
            )
            for m in ms
        ]
        _check_rolls(scene["paths"][colour], rolls)


# -- electric_charge: like charges repel, Coulomb magnitudes, the net force is the sum --------------------

_CHARGE = r"([+−]?\d+)q"


def _q(label: str) -> int:
    return int(label.replace("−", "-"))


@rule_checker("electric_charge")
def check_electric_charge(scene: dict[str, Any], texts: list[str]) -> None:
    assert len(texts) == 2
    head = _match(rf"Forces on T \({_CHARGE} at \((\d+), (\d+)\)\) from each numbered charge, .*?: (.*)\.", texts[0])
    qt, tx, ty = _q(head.group(1)), int(head.group(2)), int(head.group(3))
    total = [0.0, 0.0]
    lines = head.group(4).split("; ")
    assert len(lines) == len(scene["sources"])
    for i, line in enumerate(lines, start=1):
        m = _match(
            rf"{i}: {_CHARGE} at \((\d+), (\d+)\), r² = (\d+), (repulsive|attractive), \|F\| = (\d+)/(\d+) = "
            r"(\S+), \(Fx, Fy\) = \((\S+), (\S+)\)",
            line,
        )
        q, sx, sy = _q(m.group(1)), int(m.group(2)), int(m.group(3))
        dx, dy = tx - sx, ty - sy
        assert int(m.group(4)) == dx * dx + dy * dy == int(m.group(7))
        assert m.group(5) == ("repulsive" if q * qt > 0 else "attractive"), f"like charges repel: {line}"
        assert int(m.group(6)) == abs(q * qt)
        mag = abs(q * qt) / (dx * dx + dy * dy)
        assert abs(float(m.group(8)) - mag) < 6e-4
        sign = 1 if q * qt > 0 else -1  # repulsion pushes T away from the source
        r = math.hypot(dx, dy)
        fx, fy = float(m.group(9)), float(m.group(10))
        assert abs(fx - sign * mag * dx / r) < 6e-4 and abs(fy - sign * mag * dy / r) < 6e-4, line
        total[0] += fx
        total[1] += fy
    net = _match(r"The force diagram adds the net force, .*: \(Fx, Fy\) = \((\S+), (\S+)\)\.", texts[1])
    tol = 6e-4 * (len(lines) + 1)
    assert abs(float(net.group(1)) - total[0]) < tol and abs(float(net.group(2)) - total[1]) < tol


# -- mirror_clock: the hour hand moves half a degree a minute --------------------------------------------

_FACE = (
    r"the minute hand (?:now )?points (\S+) degrees clockwise from 12 and "
    r"the hour hand (\S+) degrees clockwise from 12\."
)


def _clock(m: re.Match[str]) -> tuple[Fraction, Fraction]:
    minute, hour = Fraction(m.group(1)), Fraction(m.group(2))
    assert minute % 6 == 0 and 0 <= minute < 360 and 0 <= hour < 360, "a whole-minute face"
    assert hour % 30 == minute / 12, f"hour hand {hour} deg does not fit minute hand {minute} deg"
    return hour, minute


@rule_checker("mirror_clock")
def check_mirror_clock(scene: dict[str, Any], texts: list[str]) -> None:
    hour, minute = _clock(_match(f"Flipping the mirror image left to right gives the real face: {_FACE}", texts[0]))
    assert len(texts) == (2 if scene["form"] == "shift" else 1)
    if scene["form"] == "shift":
        later = _match(rf"The real face .* later: {_FACE}", texts[1])
        hour2, minute2 = _clock(later)
        dm = 60 * scene["shift"]["hours"] + scene["shift"]["minutes"]
        assert (minute2 - minute - 6 * dm) % 360 == 0 and (hour2 - hour - Fraction(dm, 2)) % 360 == 0


# -- three views (trailer tasks): each cell the lower of its two silhouettes -----------------------------

_ROWS = r"((?:(?:back row|front row|the only row|row \d+ from the front): [\d, ]+(?:; )?)+)"
_CELL_ROWS = _ROWS.replace(r"[\d, ]", "[a-z, ]")  # the same rows of words (cube, ghost)


def _rows(text: str, depth: int) -> list[list[int]]:
    """Rows front (y = 0) to back, from 'back row: ...; ...; front row: ...'."""
    rows = [[int(v) for v in part.split(": ")[1].split(", ")] for part in text.split("; ")]
    assert len(rows) == depth
    return rows[::-1]


@rule_checker("trailer_cubes_count", "trailer_cubes_missing")
def check_three_views(scene: dict[str, Any], texts: list[str]) -> None:
    assert len(texts) == 1
    side = scene["side_name"]
    m = _match(
        rf"Front view heights by column \(left to right\): ([\d, ]+); {side} view heights by row \(front to "
        rf"back\): ([\d, ]+)\. Each top-view cell holds the lower of the front height of its column and the "
        rf"{side} height of its row: maximal heights \(columns left to right\) — {_ROWS}\. (.*)",
        texts[0],
    )
    front = [int(v) for v in m.group(1).split(", ")]
    sides = [int(v) for v in m.group(2).split(", ")]
    cells = _rows(m.group(3), len(scene["top"]))
    for y, row in enumerate(cells):
        for x, v in enumerate(row):
            want = min(front[x], sides[y]) if scene["top"][y][x] else 0
            assert v == want, f"cell ({x}, {y}) holds {v}, the lower of {front[x]} and {sides[y]} is {want}"
    block = re.search(r"(\d+) wide x (\d+) deep x (\d+) tall \(as tall as the tallest column\)", m.group(4))
    if block:
        assert int(block.group(3)) == max(max(r) for r in cells) == max(front), "the block is as tall as the tallest"


# -- cubes_count and cubes_missing: columns filled from the floor, the box as tall as the tallest ----------


@rule_checker("cubes_count")
def check_cubes_count(scene: dict[str, Any], texts: list[str]) -> None:
    assert len(texts) == 1
    m = _match(
        r"Height of every column, written on its top \(left\) and in the top-down height map \(right, front "
        rf"row at the bottom\): heights \(columns left to right\) — {_ROWS}\.",
        texts[0],
    )
    heights = _rows(m.group(1), len(scene["heights"]))
    assert all(len(r) == len(scene["heights"][0]) for r in heights)
    # An empty floor square is drawn grey and stays empty; a column with cubes keeps at least one.
    assert all(
        (v == 0) == (h == 0) for r, s in zip(heights, scene["heights"], strict=True) for v, h in zip(r, s, strict=True)
    )


@rule_checker("cubes_missing")
def check_cubes_missing(scene: dict[str, Any], texts: list[str]) -> None:
    box: tuple[int, int, int] | None = None
    ghost_from: dict[tuple[int, int], int] = {}  # the lowest layer where the column's square holds a ghost
    layers = []
    for text in texts:
        m = _match(
            r"Completing box: (\d+) wide x (\d+) deep x (\d+) tall \(the floor rectangle under the structure, "
            r"as tall as the tallest column\)\. (?:.* )?Layer (\d+) of (\d+) from the floor is filled in: .*"
            rf"Layer (\d+) seen from above \(columns left to right\) — {_CELL_ROWS}\.",
            text,
        )
        size = (int(m.group(1)), int(m.group(2)), int(m.group(3)))
        assert box is None or size == box, "one box in every step"
        box = size
        layer = int(m.group(4))
        assert int(m.group(5)) == size[2] and int(m.group(6)) == layer
        rows = [[c for c in part.split(": ")[1].split(", ")] for part in m.group(7).split("; ")][::-1]
        assert len(rows) == size[1] and all(len(r) == size[0] for r in rows)
        for y, row in enumerate(rows):
            for x, cell in enumerate(row):
                below = ghost_from.get((x, y))
                assert below is None or cell == "ghost", f"a column is filled from the floor up: square ({x}, {y})"
                if cell == "ghost" and below is None:
                    ghost_from[(x, y)] = layer
        layers.append(layer)
    assert box is not None
    assert layers == list(range(layers[0], box[2] + 1)), "one step per layer, up to the top of the box"
    # As tall as the tallest column: some column reaches the top layer.
    assert any(ghost_from.get((x, y)) is None for y in range(box[1]) for x in range(box[0])), (
        "the box is taller than every column"
    )


# -- convex_hull: a hull is the convex hull of its colour's points; rings mark the points inside ---------

_PT = r"\((-?[\d.]+), (-?[\d.]+)\)"


def _pts(text: str) -> list[tuple[Fraction, Fraction]]:
    return [(Fraction(a), Fraction(b)) for a, b in re.findall(_PT, text)]


def _cross(o: Any, a: Any, b: Any) -> Fraction:
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])


@rule_checker("convex_hull")
def check_convex_hull(scene: dict[str, Any], texts: list[str]) -> None:
    assert len(texts) == 2
    hulls = re.findall(
        r"The convex hull of the (\w+) points has (\d+) vertices \(counter-clockwise\): ([^.]*(?:\.\d+"
        r"[^.]*)*)\.",
        texts[0],
    )
    assert [c for c, _, _ in hulls] == scene["hull_colours"], texts[0]
    polys = []
    for _, n, listed in hulls:
        poly = _pts(listed)
        assert len(poly) == int(n) >= 3
        k = len(poly)
        assert all(_cross(poly[i], poly[(i + 1) % k], poly[(i + 2) % k]) > 0 for i in range(k)), (
            "a hull is convex and counter-clockwise"
        )
        polys.append(poly)
    # Rings: the counted colour's points listed as strictly inside must be inside every stated hull (the overlap
    # is their intersection) and the others must not.
    ringed = set(_pts(texts[1].split(";")[0])) if "ringed in thick black:" in texts[1] else set()
    counted = next(s for s in scene["sets"] if s["colour"] == scene["count_colour"])
    pts = {(Fraction(x), Fraction(y)) for x, y in counted["points"]}
    assert ringed <= pts, "only points of the counted colour are ringed"
    for p in pts:
        inside = all(all(_cross(poly[i], poly[(i + 1) % len(poly)], p) > 0 for i in range(len(poly))) for poly in polys)
        assert inside == (p in ringed), f"point {p} is {'' if inside else 'not '}strictly inside the stated region"


# -- localizer and multi_piece_puzzle: the target covered exactly, no gaps, no overlaps ---------------------

_MAP_ROW = re.compile(r"y = (\d+): ([^;]+?)(?=;|\.$)")


@rule_checker("localizer")
def check_localizer(scene: dict[str, Any], texts: list[str]) -> None:
    assert len(texts) == 1
    m = _match(
        r"The pieces placed on the grid: (.*)\. The grid row by row from the top, columns x = 1 to (\d+) from "
        r"left to right, each cell showing the number of the piece on it \((.*?)\): (y = .*)",
        texts[0],
    )
    assert "overlapping" not in m.group(3) and "uncovered" not in m.group(3), "the legend needs no overlap or gap"
    cells = {(x, int(y)): sym for y, row in _MAP_ROW.findall(m.group(4)) for x, sym in enumerate(row.split(), 1)}
    target = {(x, y) for x, y in scene["target"]}  # 1-based, as the map
    for cell, sym in cells.items():
        assert "+" not in sym and sym != "_" and not sym.startswith("["), f"cell {cell} breaks the tiling: {sym}"
        assert (sym == ".") == (cell not in target), f"cell {cell}: the pieces cover the target exactly"
    for piece in scene["pieces"]:
        on = [c for c, sym in cells.items() if sym.rstrip("*") == str(piece["number"])]
        assert len(on) == len(piece["cells"]), f"piece {piece['number']} covers as many cells as it has"
        assert sum(cells[c].endswith("*") for c in on) == len(piece["circles"]), "a piece keeps its circles"


@rule_checker("multi_piece_puzzle")
def check_multi_piece_puzzle(scene: dict[str, Any], texts: list[str]) -> None:
    assert len(texts) == 1
    n = len(scene["target"])
    m = _match(
        rf"The target has {n} cells \(x = column from the left, y = row from the bottom\)\. Placed on it, "
        r"from the bottom row up: (.*)\. The placed pieces cover (\d+) of the (\d+) target cells with (\d+) "
        r"piece cells; the other candidates stay in the panel, washed out\.",
        texts[0],
    )
    placed = re.findall(r"piece ([A-Z]) \((\w+), (\d+) cells, [^)]*\) covers ((?:\(\d+, \d+\)(?:, )?)+)", m.group(1))
    assert len(placed) == scene["k"], f"exactly {scene['k']} pieces"
    covered: list[tuple[Fraction, Fraction]] = []
    for label, _, size, where in placed:
        cells = _pts(where)
        assert len(cells) == int(size), f"piece {label} covers as many cells as it has"
        covered += cells
    target = {(Fraction(x), Fraction(y)) for x, y in scene["target"]}  # 1-based, as the text
    assert len(set(covered)) == len(covered), "no overlaps"
    assert set(covered) == target, "the target covered exactly: no gaps, nothing sticking out"
    assert (int(m.group(2)), int(m.group(3)), int(m.group(4))) == (n, n, n)


# -- defuse_a_bomb: under a panel a wire runs straight on ----------------------------------------------------

_HEADING = {"northeast": -1, "east": 0, "southeast": 1}


@rule_checker("defuse_a_bomb")
def check_defuse_a_bomb(scene: dict[str, Any], texts: list[str]) -> None:
    assert len(texts) == 1
    m = _match(
        r"The highlighted wire starts at the wire end at \(0, (\d+)\)((?:; enters panel .*?)?); it ends at "
        r"terminal (\d+) at \((\d+), (\d+)\), which is (the detonator|not the detonator)\. Coordinates are "
        r"grid units: .*",
        texts[0],
    )
    assert int(m.group(1)) in [w["rows"][0] for w in scene["wires"]], "the trace starts at a wire end"
    x_before = 0.0
    for part in filter(None, m.group(2).split("; ")):
        p = _match(
            r"enters panel (\d+) at \((\S+), (\S+)\) heading (\w+), runs under it \(dashed\) and leaves it "
            r"at \((\S+), (\S+)\)",
            part,
        )
        panel = scene["panels"][int(p.group(1)) - 1]
        x0, y0, x1, y1 = (float(p.group(i)) for i in (2, 3, 5, 6))
        for x, y in ((x0, y0), (x1, y1)):
            assert panel["x0"] <= x <= panel["x1"] and panel["y0"] <= y <= panel["y1"]
            assert x in (panel["x0"], panel["x1"]) or y in (panel["y0"], panel["y1"]), "on the panel's edge"
        assert x1 > x0 > x_before, "the wire runs on from left to right"
        assert y1 - y0 == _HEADING[p.group(4)] * (x1 - x0), f"under a panel the wire runs straight on: {part}"
        x_before = x1
    number, row = int(m.group(3)), int(m.group(5))
    assert int(m.group(4)) == scene["width"]
    assert {"number": number, "row": row} in scene["terminals"], "the trace ends at a drawn terminal"
    assert (m.group(6) == "the detonator") == (number == scene["detonator"])


# -- overlap: an intersection is no larger than either shape ------------------------------------------------


def _area(vertices: list[list[int]]) -> float:
    return (
        abs(sum(x0 * y1 - x1 * y0 for (x0, y0), (x1, y1) in zip(vertices, vertices[1:] + vertices[:1], strict=True)))
        / 2
    )


@rule_checker("overlap")
def check_overlap(scene: dict[str, Any], texts: list[str]) -> None:
    assert len(texts) == 1
    m = _match(
        r"Each pair drawn again with both black dots moved to the origin, in the same 2 x 2 layout as the "
        r"question picture; the intersection is shaded purple and its area is written on each panel: "
        r"top-left (\S+), top-right (\S+), bottom-left (\S+), bottom-right (\S+)\.",
        texts[0],
    )
    for area, pair in zip((float(m.group(i)) for i in range(1, 5)), scene["pairs"], strict=True):
        assert 0 <= area <= min(_area(s["vertices"]) for s in pair) + 1e-3, "an overlap fits in either shape"


# -- mirror_pattern: the grid drawn is the pattern reflected across the line drawn --------------------------

_AXES = {
    "a vertical mirror line (left and right swap)": "vertical",
    "a horizontal mirror line (top and bottom swap)": "horizontal",
    "the diagonal mirror line from the top-left corner to the bottom-right corner": "diagonal",
    "the diagonal mirror line from the top-right corner to the bottom-left corner": "antidiagonal",
}


def _reflect(grid: list[list[str]], axis: str) -> list[list[str]]:
    n = len(grid)
    at = {
        "vertical": lambda r, c: grid[r][n - 1 - c],
        "horizontal": lambda r, c: grid[n - 1 - r][c],
        "diagonal": lambda r, c: grid[c][r],
        "antidiagonal": lambda r, c: grid[n - 1 - c][n - 1 - r],
    }[axis]
    return [[at(r, c) for c in range(n)] for r in range(n)]


@rule_checker("mirror_pattern")
def check_mirror_pattern(scene: dict[str, Any], texts: list[str]) -> None:
    assert len(texts) == 1
    m = _match(
        r"Left: the pattern with (.*) drawn dashed\. Right: the pattern reflected across it, row by row from "
        r"the top, cells from left to right: (.*)\.",
        texts[0],
    )
    axis = _AXES[m.group(1)]
    if scene["mode"] != "any":
        assert axis == scene["axis"], "the question names the mirror line"
    grid = [part.split(": ")[1].split(", ") for part in m.group(2).split("; ")]
    pattern = [[scene["colors"][v] for v in row] for row in scene["pattern"]]
    # The pattern the step reflects: the drawn one, read with at most two cells wrong (a misread, not a new
    # picture); a reflection is its own inverse.
    read = _reflect(grid, axis)
    assert len(read) == len(pattern) and all(len(r) == len(pattern) for r in read)
    wrong = sum(a != b for ra, rb in zip(read, pattern, strict=True) for a, b in zip(ra, rb, strict=True))
    assert wrong <= 2, f"the reflected grid is no reflection of the pattern across {axis} ({wrong} cells off)"


# -- paper_airplane: a fold moves the paper on one side of its line onto the other ---------------------------

_SIDE = {"left": (-1, 0), "right": (1, 0), "lower": (0, -1), "upper": (0, 1)}


@rule_checker("paper_airplane")
def check_paper_airplane(scene: dict[str, Any], texts: list[str]) -> None:
    assert len(texts) == len(scene["folds"])
    for k, (text, fold) in enumerate(zip(texts, scene["folds"], strict=True), start=1):
        m = _match(
            rf"Fold {k} along the line (.*?) \(coordinates in units, origin at the sheet's bottom-left "
            r"corner\): the ([a-z-]+) part of the paper is folded over \(orange, the reflected flap\)\. The "
            r"outline of the folded paper is now the polygon (.*)\.",
            text,
        )
        a, b, c = fold["line"]  # the line a x + b y = c is drawn in the question; which side moves is read
        side = [sum(_SIDE[w][i] for w in m.group(2).split("-")) for i in (0, 1)]
        sign = 1 if side[0] * a + side[1] * b > 0 else -1
        assert side[0] * a + side[1] * b != 0, f"the {m.group(2)} part lies on one side of the line"
        outline = _pts(m.group(3))
        # After the fold nothing lies on the side that moved, and the fold line bounds the paper.
        assert all(sign * (a * x + b * y - c) <= 0 for x, y in outline), f"paper left on the folded side: {text}"
        assert any(a * x + b * y == c for x, y in outline), "the folded paper reaches its fold line"


# -- unfolded_cube: one net cell per face of the view --------------------------------------------------------


@rule_checker("unfolded_cube")
def check_unfolded_cube(scene: dict[str, Any], texts: list[str]) -> None:
    for text in texts:
        faces = re.findall(r"the net cell in column (\d+), row (\d+) \([^)]*\) becomes the ([\w-]+) face", text)
        assert [f for _, _, f in faces[:3]] == ["top", "front-left", "front-right"], text
        per_view = [faces[i : i + 3] for i in range(0, len(faces), 3)]
        for view in per_view:
            cells = [(c, r) for c, r, _ in view]
            assert len(set(cells)) == 3, "three faces from three different net cells"


# -- puzzle: every gap cell continues the pattern by the rule the step states -------------------------------


def _stated_rule(text: str) -> dict[str, Any]:
    m = re.match(r"The picture repeats a block of (\d+) rows by (\d+) columns in both directions\.", text)
    if m:
        return {"family": "motif", "p": int(m.group(1)), "q": int(m.group(2))}
    m = re.match(
        r"Shapes repeat along diagonal stripes with period (\d+) and colours along the other diagonal with "
        r"period (\d+)\.",
        text,
    )
    if m:
        return {"family": "stripes", "m": int(m.group(1)), "m2": int(m.group(2))}
    m = _match(
        r"Shapes repeat every (\d+) rows, the colour is (\w+) everywhere, and the shade gets paler column by "
        r"column towards the (left|right)\. .*",
        text,
    )
    return {"family": "gradient", "a": int(m.group(1)), "color": m.group(2), "towards": m.group(3)}


def _keys(rule: dict[str, Any], i: int, j: int, d: int) -> tuple[Any, Any, Any]:
    """Per channel (shape, colour, shade), what two cells share when the stated rule makes them equal."""
    if rule["family"] == "motif":
        return (i % rule["p"], j % rule["q"]), (i % rule["p"], j % rule["q"]), 0
    if rule["family"] == "stripes":
        return (i + d * j) % rule["m"], (i - d * j) % rule["m2"], 0
    return i % rule["a"], 0, j


@rule_checker("puzzle")
def check_puzzle(scene: dict[str, Any], texts: list[str]) -> None:
    assert len(texts) == 1
    rule = _stated_rule(texts[0])
    m = _match(
        r".*? The gap, rows (\d+)-(\d+) and columns (\d+)-(\d+) counted from the top-left, is drawn filled "
        r"in and outlined in black\. Its cells, left to right(?: \([^)]*\))?: (.*)\.",
        texts[0],
    )
    r0, c0, k = scene["hole"]
    assert [int(m.group(i)) for i in range(1, 5)] == [r0 + 1, r0 + k, c0 + 1, c0 + k], "the gap where it is drawn"
    rows = [row.split(": ")[1].split(", ") for row in m.group(5).split("; ")]
    grid = scene["grid"]
    visible = [(i, j) for i, row in enumerate(grid) for j, cell in enumerate(row) if cell is not None]
    for di, row in enumerate(rows):
        for dj, words in enumerate(row):
            w = _match(r"(\w+) (\w+)(?: \(shade (\d+)\))?", words)
            cell = [w.group(2), w.group(1), int(w.group(3) or 0)]
            i, j = r0 + di, c0 + dj
            # Either stripe direction may be meant by "the other diagonal": the cell must fit one of them.
            fits = False
            for d in (1, -1) if rule["family"] == "stripes" else (1,):
                keys = _keys(rule, i, j, d)
                fits |= all(
                    any(_keys(rule, a, b, d)[ch] == keys[ch] and grid[a][b][ch] == cell[ch] for a, b in visible)
                    for ch in range(3)
                )
            assert fits, f"gap cell ({i + 1}, {j + 1}) = {words} continues no visible cell by the stated rule"


# -- the test --------------------------------------------------------------------------------------------


def _instances(name: str) -> list[Instance]:
    out = []
    for difficulty in get_task_class(name).presets:
        task = get_task(name, difficulty)
        out += [task.make(index, SEED).instance for index in range(PER_DIFFICULTY)]
    return out


def test_every_corrupting_task_has_a_rule_checker() -> None:
    tasks = corrupting_tasks()
    assert len(tasks) >= 15  # guards the parametrisation against a registry that came up empty
    missing = [n for n in tasks if n not in RULE_CHECKERS]
    assert not missing, f"tasks with a corrupted trajectory but no rule checker in RULE_CHECKERS: {missing}"
    assert not (SAME_STEP_COUNT | CUMULATIVE_STATE) - set(tasks)


@pytest.mark.parametrize("name", corrupting_tasks())
def test_corrupted_steps_obey_the_task_rules(name: str) -> None:
    check = RULE_CHECKERS.get(name)
    if check is None:
        pytest.fail(f"{name} has no rule checker")
    for inst in _instances(name):
        scene = inst.meta["scene"]
        true_texts = [s.text for s in inst.steps]
        wrong_texts = [s.text for s in inst.corrupted_steps]
        assert wrong_texts, f"{inst.uid}: no corrupted trajectory"
        try:
            check(scene, true_texts)
        except AssertionError as exc:
            raise AssertionError(f"{inst.uid}: the checker rejects the TRUE steps (a checker bug): {exc}") from exc
        try:
            check(scene, wrong_texts)
        except AssertionError as exc:
            raise AssertionError(
                f"{inst.uid} ({inst.meta.get('corruption')}): a corrupted step breaks the task's rules: {exc}"
            ) from exc
        final = (wrong_texts != true_texts) if name in CUMULATIVE_STATE else (wrong_texts[-1] != true_texts[-1])
        assert final, f"{inst.uid}: the corrupted final state equals the true one"
        if name in SAME_STEP_COUNT:
            assert len(wrong_texts) == len(true_texts), f"{inst.uid}: the corrupted trajectory has another length"


# -- the examples, replayed: the checkers catch each kind of contradiction ----------------------------


def test_checker_catches_a_reflection_that_breaks_its_own_rule() -> None:
    # Issue 45: "the y component of the direction flips and the other is kept, so it now moves (-1, 2)" from
    # (3, -2). From (3, 4) the ball reaches the bottom cushion at (9, 0); (-1, 2) then leads to pocket (6, 6).
    scene = {"width": 12, "height": 6, "start": [3, 4], "capture": "2/5"}
    wrong = [
        "Segment 1: from the start moving (3, -2), the ball hits the bottom cushion (y = 0) at (9, 0) (bounce 1). "
        "The y component of the direction flips and the other is kept, so it now moves (-1, 2).",
        "Segment 2: from bounce 1 at (9, 0) moving (-1, 2), the ball reaches the pocket at (6, 6) after 1 bounce "
        "and falls in.",
    ]
    with pytest.raises(AssertionError, match="reflection of"):
        check_billiards(scene, wrong)
    # A misread arrow, (-1, -2) from (12, 4) on a 14-wide table, stated as a right step states it, passes.
    right = [
        "Segment 1: from the start moving (-1, -2), the ball hits the bottom cushion (y = 0) at (10, 0) "
        "(bounce 1). The y component of the direction flips and the other is kept, so it now moves (-1, 2).",
        "Segment 2: from bounce 1 at (10, 0) moving (-1, 2), the ball reaches the pocket at (7, 6) after 1 "
        "bounce and falls in.",
    ]
    check_billiards({**scene, "width": 14, "start": [12, 4]}, right)


def test_checker_catches_a_mesh_that_keeps_the_direction() -> None:
    # Issue 45, gear_rotation: "D meshes with A (clockwise) and turns clockwise".
    scene = {"gears": [{"label": "A"}, {"label": "D"}], "driver": 0, "driver_dir": "clockwise"}
    with pytest.raises(AssertionError, match="the link's rule"):
        check_gear_rotation(
            scene, ["Gear A turns clockwise (given).", "Gear D meshes with gear A (clockwise) and turns clockwise."]
        )
    check_gear_rotation(
        scene, ["Gear A turns clockwise (given).", "Gear D meshes with gear A (clockwise) and turns counterclockwise."]
    )
    # A jammed system's directions before the conflict are tentative; stated as facts, they fail.
    three = {"gears": [{"label": "A"}, {"label": "B"}, {"label": "C"}], "driver": 0, "driver_dir": "clockwise"}
    conflict = "Gear C (counterclockwise) meshes with gear B (counterclockwise), their contact ringed in red."
    facts = [
        "Gear A turns clockwise (given).",
        "Gear B meshes with gear A (clockwise) and turns counterclockwise. "
        "Gear C meshes with gear A (clockwise) and turns counterclockwise.",
        conflict,
    ]
    with pytest.raises(AssertionError, match="worded 'would turn'"):
        check_gear_rotation(three, facts)
    check_gear_rotation(three, [t.replace("turns counter", "would turn counter") for t in facts])


def test_checker_catches_like_charges_attracting() -> None:
    # Issue 45's kind of step, electric_charge: a −1q source "attractive" on a −1q target (a version-4 text).
    scene = {"sources": [{"q": -1, "pos": [4, 0]}, {"q": -1, "pos": [0, 0]}]}
    head = (
        "Forces on T (−1q at (2, 2)) from each numbered charge, drawn in the force diagram beside the grid with "
        "length proportional to magnitude (very short ones lengthened) and listed in the table below; units "
        "k·q²/spacing², (Fx, Fy) along the grid's x and y axes: 1: −1q at (4, 0), r² = 8, repulsive, |F| = 1/8 = "
        "0.125, (Fx, Fy) = (-0.088, +0.088); "
    )
    net = (
        "The force diagram adds the net force, the sum of the numbered forces, as the thick black arrow, and the "
        "table adds its components: (Fx, Fy) = ({}, {})."
    )
    with pytest.raises(AssertionError, match="like charges repel"):
        check_electric_charge(
            scene,
            [
                head + "2: −1q at (0, 0), r² = 8, attractive, |F| = 1/8 = 0.125, (Fx, Fy) = (-0.088, -0.088).",
                net.format("-0.177", "0.000"),
            ],
        )
    check_electric_charge(
        scene,
        [
            head + "2: −1q at (0, 0), r² = 8, repulsive, |F| = 1/8 = 0.125, (Fx, Fy) = (+0.088, +0.088).",
            net.format("0.000", "+0.177"),
        ],
    )


def test_checker_catches_a_roll_in_another_direction() -> None:
    # Version-4 rolling dice: "the die rolls east ..." with the faces of a roll north.
    scene = {"path": [[1, 0], [0, 0], [0, 1]]}
    first = (
        "Roll 1 of 2: the die rolls north from (row 2, column 1) to (row 1, column 1). It now shows top 2, south "
        "6, east 3 and bottom 5."
    )
    second = "Roll 2 of 2: the die rolls east from (row 1, column 1) to (row 1, column 2). It now shows {}."
    check_rolling_dice(scene, [first, second.format("top 4, south 6, east 2 and bottom 3")])
    with pytest.raises(AssertionError, match="turns the faces"):
        check_rolling_dice(scene, [first, second.format("top 6, south 5, east 3 and bottom 1")])


def test_checker_catches_a_cell_above_the_lower_silhouette() -> None:
    # Version-4 trailer_cubes: "cell (1, 0) given max(front, side) = 2 instead of the min".
    scene = {"side_name": "right", "top": [[0, 1], [1, 1], [1, 0]]}
    text = (
        "Front view heights by column (left to right): 2, 2; right view heights by row (front to back): 1, 2, 1. "
        "Each top-view cell holds the lower of the front height of its column and the right height of its row: "
        "maximal heights (columns left to right) — back row: 1, 0; row 2 from the front: 2, 2; front row: 0, {}. "
        "On the right, the maximal structure is drawn in 3-D."
    )
    check_three_views(scene, [text.format(1)])
    with pytest.raises(AssertionError, match="the lower of"):
        check_three_views(scene, [text.format(2)])


def _gear_instances(difficulty: str, n: int) -> list[tuple[Any, Instance, dict[str, Any]]]:
    task = get_task("gear_rotation", difficulty)
    return [(task, sample.instance, sample.images) for sample in (task.make(i, SEED) for i in range(n))]


def test_jammed_gear_steps_are_tentative_until_the_conflict() -> None:
    # Issue 45: in a jammed system step 2 said "Gear C turns counterclockwise ..." and drew solid arrows, and only
    # step 3 rang the conflict. Jammed systems are found by generation (a third of the problems of each block).
    from vcot.tasks.ct._gear_drawing import draw_system
    from vcot.tasks.ct._gear_labels import label_layout
    from vcot.tasks.ct._gear_propagation import direction_of, propagate

    jammed = turning = 0
    for difficulty in ("easy", "hard"):
        for _, inst, images in _gear_instances(difficulty, 16):
            scene, texts = inst.meta["scene"], [s.text for s in inst.steps]
            if inst.answer != "jammed":
                turning += 1
                assert not any("would" in t for t in texts), "a system that turns keeps the settled wording"
                continue
            jammed += 1
            # The conflict is found at layer 1 or later, so step 2 always states tentative directions.
            assert texts[0].endswith("(given).") and "would turn" in texts[1]
            assert all(" turns " not in t for t in texts[1:-1]), texts
            assert re.search(r"ringed in red|belt drawn in red", texts[-1])
            # The pictures before the conflict draw the same arrows dashed: a solid drawing differs.
            prop, layout = propagate(scene), label_layout(scene)
            known = {
                i: direction_of(scene["driver_dir"], prop["sign"][i])
                for i, lv in enumerate(prop["layer"])
                if lv is not None and lv <= 1
            }
            new = {i for i, lv in enumerate(prop["layer"]) if lv == 1}
            step2 = images[inst.steps[1].image]
            dashed = draw_system(scene, known, new, layout=layout, tentative=True)
            solid = draw_system(scene, known, new, layout=layout, tentative=False)
            assert step2.tobytes() == dashed.tobytes() != solid.tobytes()
    assert jammed >= 3 and turning >= 3
