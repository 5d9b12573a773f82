"""The robot tasks' table: a grid of cells (columns a.. left to right as the picture shows them, rows 1.. counted
from the robot), 5 cm blocks of six colours standing on cells or stacked, and the three actions — put a block on
another block, put a block beside another block, push a block one cell — as a symbolic replay over a
{colour: (column, row, level)} state. Drawing (vcot's own layer, seen from above) is in `_draw.py`.
"""

from __future__ import annotations

import random
from typing import Any

CELL = 0.07  # metres between cell centres
CUBE = 0.05  # block edge
ROW0_X = 0.30  # distance of row 1's centre from the arm's base
COLOURS = ("red", "blue", "green", "orange", "purple", "cyan")
DIRS: dict[str, tuple[int, int]] = {"left": (-1, 0), "right": (1, 0), "away": (0, 1), "towards": (0, -1)}
BESIDE = {
    "left": "to the left of",
    "right": "to the right of",
    "away": "just beyond (farther from the robot than)",
    "towards": "just in front of (nearer the robot than)",
}
PUSH = {
    "left": "one cell to the left",
    "right": "one cell to the right",
    "away": "one cell away from the robot",
    "towards": "one cell towards the robot",
}

Blocks = dict[str, tuple[int, int, int]]
Action = dict[str, Any]


class Illegal(ValueError):
    """An action the rules forbid in this state."""


def cell_xy(col: int, row: int, size: tuple[int, int]) -> tuple[float, float]:
    """World (x, y) of a cell's centre: x away from the robot, y to the robot's left (the picture's left)."""
    cols, _ = size
    return ROW0_X + row * CELL, (cols - 1) / 2 * CELL - col * CELL


def nearest_cell(x: float, y: float, size: tuple[int, int]) -> tuple[tuple[int, int] | None, float]:
    cols, rows = size
    col = round(((cols - 1) / 2 * CELL - y) / CELL)
    row = round((x - ROW0_X) / CELL)
    cx, cy = cell_xy(col, row, size)
    off = max(abs(x - cx), abs(y - cy))
    return ((col, row) if 0 <= col < cols and 0 <= row < rows else None), off


def cell_name(col: int, row: int) -> str:
    return f"{'abcdefgh'[col]}{row + 1}"


def as_blocks(raw: dict[str, Any]) -> Blocks:
    return {k: (int(v[0]), int(v[1]), int(v[2])) for k, v in raw.items()}


def on_top(state: Blocks, name: str) -> str | None:
    c, r, lv = state[name]
    return next((n for n, (c2, r2, l2) in state.items() if (c2, r2, l2) == (c, r, lv + 1)), None)


def clear(state: Blocks, name: str) -> bool:
    return on_top(state, name) is None


def occupied(state: Blocks, col: int, row: int) -> bool:
    return any((c, r) == (col, row) for c, r, _ in state.values())


def legal(state: Blocks, act: Action, size: tuple[int, int], max_level: int) -> bool:
    try:
        _target(state, act, size, max_level)
    except Illegal:
        return False
    return True


def _target(state: Blocks, act: Action, size: tuple[int, int], max_level: int) -> tuple[int, int, int]:
    x = act["block"]
    if not clear(state, x):
        raise Illegal(f"something stands on the {x} block")
    cols, rows = size
    if act["op"] == "put_on":
        y = act["onto"]
        if y == x or not clear(state, y) or state[y][2] + 1 > max_level:
            raise Illegal("the block below must be another block with nothing on it, below the stack limit")
        c, r, lv = state[y]
        return c, r, lv + 1
    dc, dr = DIRS[act["dir"]]
    if act["op"] == "put_beside":
        y = act["onto"]
        if y == x:
            raise Illegal("a block beside itself")
        c, r = state[y][0] + dc, state[y][1] + dr
    elif act["op"] == "push":
        if state[x][2] != 0:
            raise Illegal("only a block standing on the table is pushed")
        c, r = state[x][0] + dc, state[x][1] + dr
    else:
        raise ValueError(f"unknown action {act['op']!r}")
    if not (0 <= c < cols and 0 <= r < rows) or occupied(state, c, r):
        raise Illegal("the cell is off the table or taken")
    return c, r, 0


def apply(state: Blocks, act: Action, size: tuple[int, int] = (8, 8), max_level: int = 7) -> Blocks:
    """The state after one action (the generator's symbolic replay); raises Illegal for a forbidden action."""
    new = dict(state)
    new[act["block"]] = _target(state, act, size, max_level)
    return new


def action_text(act: Action) -> str:
    x = act["block"]
    if act["op"] == "put_on":
        return f"put the {x} block on the {act['onto']} block"
    if act["op"] == "put_beside":
        return f"put the {x} block on the table {BESIDE[act['dir']]} the {act['onto']} block"
    return f"push the {x} block {PUSH[act['dir']]}"


def where_text(state: Blocks, name: str) -> str:
    """Where a block is, in the words of the step texts: its cell and what it stands on."""
    c, r, lv = state[name]
    if lv == 0:
        return f"on the table in cell {cell_name(c, r)}"
    below = next(n for n, v in state.items() if v == (c, r, lv - 1))
    return f"on the {below} block in cell {cell_name(c, r)}"


RULES = (
    "Rules: the arm picks only a block with nothing on it and carries it above the stacks; 'put X on Y' sets X "
    "on top of Y; 'put X beside Y' sets X on the table in the neighbouring cell of Y's cell on the named side; "
    "'push X' slides X (standing on the table, nothing on it) one cell. Left and right are as the picture "
    "shows them; the robot's base is at the bottom. Every action of the program is possible."
)


def sample_blocks(rng: random.Random, n: int, size: tuple[int, int], stacked: int) -> Blocks:
    """n blocks of distinct colours on distinct cells, then `stacked` of them moved onto others (two high)."""
    cols, rows = size
    names = rng.sample(COLOURS, n)
    cells = rng.sample([(c, r) for c in range(cols) for r in range(rows)], n)
    state = {name: (c, r, 0) for name, (c, r) in zip(names, cells, strict=True)}
    for name in rng.sample(names, stacked):
        bases = [
            b
            for b in names
            if b != name and clear(state, b) and state[b][2] == 0 and clear(state, name) and state[name][2] == 0
        ]
        if bases:
            b = rng.choice(bases)
            state[name] = (state[b][0], state[b][1], 1)
    return state


def random_action(
    rng: random.Random, state: Blocks, size: tuple[int, int], max_level: int, ops: tuple[str, ...]
) -> Action | None:
    """A uniformly drawn legal action, or None when none of the tries is legal."""
    names = sorted(state)
    for _ in range(40):
        op = rng.choice(ops)
        act: Action = {"op": op, "block": rng.choice(names)}
        if op != "put_on":
            act["dir"] = rng.choice(sorted(DIRS))
        if op != "push":
            act["onto"] = rng.choice(names)
        if legal(state, act, size, max_level):
            return act
    return None
