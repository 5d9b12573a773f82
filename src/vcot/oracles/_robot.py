"""The robot tasks' independent replay: the table as a map from cell to the stack of block names standing on it
(bottom first), each action a list operation on two stacks. The generators instead move one block's
(column, row, level) triple; the two agree only when both read the rules (docs/tasks/robot_program.md) alike.
"""

from __future__ import annotations

from typing import Any

Stacks = dict[tuple[int, int], list[str]]
_OFFSET = {"left": (-1, 0), "right": (1, 0), "away": (0, 1), "towards": (0, -1)}
_TALLEST = 3  # blocks per stack


class Impossible(ValueError):
    """An action the rules forbid on these stacks."""


def stacks_of(blocks: dict[str, Any]) -> Stacks:
    out: Stacks = {}
    for name, (c, r, level) in sorted(blocks.items(), key=lambda kv: kv[1][2]):
        stack = out.setdefault((int(c), int(r)), [])
        if len(stack) != level:
            raise Impossible(f"the {name} block floats at level {level}")
        stack.append(name)
    return out


def _cell_of(stacks: Stacks, name: str) -> tuple[int, int]:
    return next(cell for cell, stack in stacks.items() if name in stack)


def act(stacks: Stacks, action: dict[str, Any], size: tuple[int, int]) -> Stacks:
    new = {cell: list(stack) for cell, stack in stacks.items()}
    x = action["block"]
    home = _cell_of(new, x)
    if new[home][-1] != x:
        raise Impossible(f"the {x} block is covered")
    if action["op"] == "put_on":
        dest = _cell_of(new, action["onto"])
        if dest == home or new[dest][-1] != action["onto"] or len(new[dest]) >= _TALLEST:
            raise Impossible("no room on that block")
    else:
        dc, dr = _OFFSET[action["dir"]]
        if action["op"] == "push":
            if new[home] != [x]:
                raise Impossible("only a lone block on the table is pushed")
            base = home
        else:
            base = _cell_of(new, action["onto"])
            if action["onto"] == x:
                raise Impossible("beside itself")
        dest = (base[0] + dc, base[1] + dr)
        if not (0 <= dest[0] < size[0] and 0 <= dest[1] < size[1]) or new.get(dest):
            raise Impossible("that cell is off the table or taken")
    new[home].pop()
    if not new[home]:
        del new[home]
    new.setdefault(dest, []).append(x)
    return new


def run(stacks: Stacks, program: list[dict[str, Any]], size: tuple[int, int]) -> Stacks:
    for a in program:
        stacks = act(stacks, a, size)
    return stacks
