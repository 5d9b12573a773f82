"""Corrupted steps of the simulation and robot tasks never contradict the rules their own question states (issue
45; `tests/tasks/test_corruption_rules.py` does the same for the MIRA tasks and skips these packages).

A corrupted trajectory carries a wrong state, but every step of it is written with the true steps' templates and
states nothing a reader could refute from the question and the earlier steps alone. Per task, a checker parses
every step text with the task's own template and checks the question's rules:

- block_tower: the blocks named moved and still make up the tower, each once; the bottom block A never moves;
  a block that has moved never "has not moved" later; the moving blocks are a top group of the tower; the floor
  block has moved; one side throughout; the times rise to 2.50 s; the verbs agree with the count.
- ball_bins: the ball, released from rest, first lands on the highest ramp under its start, at the third of it
  the text names; it slides along the ramp it landed on; the end it leaves over is on the side the ramp's slope
  puts it; after leaving over an end it flies on that way (the next ramp or the bin lies that side); it never
  lands above its starting height (smooth ramps, no bounce); the bin is one of the numbered ones.
- robot_program: each step names the program's action in the question's words, and the place it states for the
  moved block is where the rules put it from the state the earlier steps stated (put on: on top of the partner;
  beside: the partner's neighbouring cell on the named side; push: one cell on, from the table), the block
  picked has nothing on it, the target cell is free, stacks stay three high.
- robot_state_change: the differences start from the Before panel; each action moves a block with nothing on it
  from the cell it is in to a place some action of the rules reaches (on a clear block, or on a free table cell
  beside a block or one push away); the differences list exactly the blocks whose place changed, with their end
  places; the stated actions are what one of the question's options does.

Every checker runs on the true steps too, which must pass it. Each checker returns the final state its steps
state; the corrupted one must differ from the true one.

robot_program's corrupted trajectory misreads the starting table (one lone block one cell off) and carries
the program through by the rules from there: its checker accepts the true start or one such misreading, and the
true steps must follow the true start. Known violations would be strict xfails (each must go when the task
is fixed); none is left (a rare block_tower corrupted run that said a block began to tip and later that it had
not moved is now passed over).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

from task_pieces import builtin_task_names
from vcot.tasks import get_task, get_task_class
from vcot.tasks.base import Task

SEED = 11
PER_DIFFICULTY = 2
PACKAGES = ("vcot.tasks.physsim", "vcot.tasks.robot")

Checker = Callable[[dict[str, Any], list[str]], Any]
CHECKERS: dict[str, Checker] = {}


def checker(name: str) -> Callable[[Checker], Checker]:
    def wrap(fn: Checker) -> Checker:
        CHECKERS[name] = fn
        return fn

    return wrap


def _match(pattern: str, text: str) -> re.Match[str]:
    m = re.fullmatch(pattern, text)
    assert m, f"step text does not follow the task's template:\n  {text}\n  pattern: {pattern}"
    return m


def _names(text: str) -> list[str]:
    """'A', 'A and B', 'A, B and C' -> letters (the tasks' `names`)."""
    m = _match(r"([A-I])((?:, [A-I])*)(?: and ([A-I]))?", text)
    out = [m.group(1), *re.findall(r"[A-I]", m.group(2))]
    if m.group(3):
        out.append(m.group(3))
    assert len(set(out)) == len(out), f"a block named twice: {text}"
    return out


# -- block_tower ------------------------------------------------------------------------------------------

_BLOCKS = r"blocks? ([A-I](?:, [A-I])*(?: and [A-I])?)"
_SIDE = r"(left|right)"
_NONE = r"t = (\d\.\d\d) s: no block has moved; every block stands where it was placed\."
_TIP = rf"t = (\d\.\d\d) s: {_BLOCKS} (has|have) begun to tip to the {_SIDE}; {_BLOCKS} (has|have) not moved\."
_FLOOR = (
    rf"t = (\d\.\d\d) s: {_BLOCKS} (reaches|reach) the floor to the {_SIDE} of the tower; {_BLOCKS} (has|have) "
    r"not moved\."
)
_TOPPLED = (
    rf"t = (\d\.\d\d) s: {_BLOCKS} (has|have) toppled to the {_SIDE} \(dashed: where (it|they) stood and the "
    rf"path of (its centre|their centres)\); {_BLOCKS} (stands|stand) where (it was|they were) placed\."
)


def _agrees(items: list[str], one: str, many: str, said: str) -> None:
    assert said == (one if len(items) == 1 else many), f"{said!r} with {len(items)} block(s)"


def _blocks_word(m: re.Match[str], group: int, items: list[str]) -> None:
    word = "block " if len(items) == 1 else "blocks "
    assert m.string[: m.start(group)].endswith(word), f"{word!r} for {len(items)} block(s): {m.string}"


@checker("block_tower")
def check_block_tower(scene: dict[str, Any], texts: list[str]) -> tuple[str, ...]:
    labels = [b["label"] for b in scene["blocks"]]
    assert len(texts) == 3, "three key frames"
    if re.fullmatch(_NONE, texts[0]):
        times = [float(_match(_NONE, t).group(1)) for t in texts]
        assert times == [0.5, 1.5, 2.5], "a tower that stands is shown at 0.5, 1.5 and 2.5 s"
        return tuple(labels)
    tip, floor, end = _match(_TIP, texts[0]), _match(_FLOOR, texts[1]), _match(_TOPPLED, texts[2])
    times = [float(m.group(1)) for m in (tip, floor, end)]
    assert 0 < times[0] < times[1] < times[2] == 2.5, f"key frame times {times}"
    sides = {tip.group(4), floor.group(4), end.group(4)}
    assert len(sides) == 1, f"the tower falls to one side: {sides}"
    moved_sets = []
    for m, group, verb, still_g, still_verb in ((tip, 2, 3, 5, 6), (floor, 2, 3, 5, 6), (end, 2, 3, 7, 8)):
        full = m.group(0)
        named = _names(m.group(group))
        still = _names(m.group(still_g))
        _blocks_word(m, group, named)
        _blocks_word(m, still_g, still)
        _agrees(
            named,
            *(("has", "have") if m is tip else ("reaches", "reach") if m is floor else ("has", "have")),
            m.group(verb),
        )
        _agrees(still, *(("stands", "stand") if m is end else ("has", "have")), m.group(still_verb))
        assert set(named).isdisjoint(still), f"a block both moved and still: {full}"
        assert set(still) <= set(labels) and set(named) <= set(labels), full
        assert still == sorted(still) and named == sorted(named), f"blocks are named bottom first: {full}"
        moved = set(labels) - set(still)
        if m is not floor:
            # Every block is either still or named as moving (tipping, toppled).
            assert set(named) == moved, f"the blocks named and the blocks still make up the tower: {full}"
        else:
            assert set(named) <= moved, f"a block on the floor has moved: {full}"
        assert "A" in still, f"the bottom block rests on the floor and cannot move: {full}"
        # Blocks rest on one another: a moving block carries the ones above it, so the moved ones are a top group.
        k = min(labels.index(x) for x in moved)
        assert moved == set(labels[k:]), f"the moved blocks are not a top group of the tower: {full}"
        moved_sets.append(moved)
    end_m = end
    _agrees(_names(end_m.group(2)), "it", "they", end_m.group(5))
    _agrees(_names(end_m.group(2)), "its centre", "their centres", end_m.group(6))
    _agrees(_names(end_m.group(7)), "it was", "they were", end_m.group(9))
    assert moved_sets[0] <= moved_sets[1] <= moved_sets[2], "a block that has moved is later said not to have"
    return tuple(_names(end.group(7)))


# -- ball_bins ----------------------------------------------------------------------------------------------

BALL_R, RAMP_R = 0.25, 0.06
TOL = BALL_R + RAMP_R + 0.05  # the trace is the ball's centre, off the ramp's line by the two radii
_WHERE = r"near its (upper end|middle|lower end)"
_END = r"(lower|upper) \((left|right)\) end"
_FIRST = "The ball falls from its start (grey circle)"
_SLIDE = rf"The ball slides along ramp ([A-Z]), leaves it over its {_END},"
_LAND = rf"({re.escape(_FIRST)}|{_SLIDE}) and lands on ramp ([A-Z]) {_WHERE}\."
_BIN = rf"({re.escape(_FIRST)}|{_SLIDE}) and drops between the dividers into bin (\d+)\."
_THIRDS = {"upper end": (0.0, 1 / 3), "middle": (1 / 3, 2 / 3), "lower end": (2 / 3, 1.0)}


def _on(ramp: dict[str, Any], f: float) -> tuple[float, float]:
    (ax, ay), (bx, by) = ramp["a"], ramp["b"]
    return ax + f * (bx - ax), ay + f * (by - ay)


def _third(ramp: dict[str, Any], where: str) -> list[tuple[float, float]]:
    lo, hi = _THIRDS[where]
    return [_on(ramp, lo + (hi - lo) * k / 20) for k in range(21)]


@checker("ball_bins")
def check_ball_bins(scene: dict[str, Any], texts: list[str]) -> int:
    ramps = {r["label"]: r for r in scene["ramps"]}
    ball = scene["ball"]
    bw = scene["width"] / scene["bins"]
    prev: str | None = None  # the ramp the last step landed on
    exit_pt: tuple[float, float] | None = None
    exit_side = ""
    exit_lower = False
    for k, text in enumerate(texts):
        last = k == len(texts) - 1
        m = _match(_BIN if last else _LAND, text)
        if m.group(1) == _FIRST:
            assert k == 0 and prev is None, f"only the first step falls from the start: {text}"
        else:
            assert k > 0, f"the first step falls from the start: {text}"
            slid, end, side = m.group(2), m.group(3), m.group(4)
            assert slid == prev, f"the ball slides along the ramp it landed on ({prev}): {text}"
            r = ramps[slid]
            pt = r["b"] if end == "lower" else r["a"]
            other = r["a"] if end == "lower" else r["b"]
            assert side == ("right" if pt[0] > other[0] else "left"), f"ramp {slid}'s {end} end is on the other side"
            exit_pt, exit_side, exit_lower = (pt[0], pt[1]), side, end == "lower"
        if last:
            b = int(m.group(5))
            assert 1 <= b <= scene["bins"], f"bin {b} of {scene['bins']}"
            lo, hi = (b - 1) * bw, b * bw
            if exit_pt is None:
                assert lo - TOL <= ball["x"] <= hi + TOL, "a ball that meets no ramp drops straight down"
            elif exit_side == "right":
                assert hi >= exit_pt[0] - TOL, f"the ball leaves to the right of bin {b}"
            else:
                assert lo <= exit_pt[0] + TOL, f"the ball leaves to the left of bin {b}"
            return b
        label, where = m.group(5), m.group(6)
        assert label in ramps and label != prev, f"ramp {label}: {text}"
        pts = _third(ramps[label], where)
        # Smooth ramps and no bounce: the ball never rises above where it was released.
        assert min(y for _, y in pts) <= ball["y"], f"the ball lands above its start: {text}"
        if exit_pt is None:
            # Released from rest, the ball falls straight down onto the highest ramp under it.
            under = {}
            for lab, r in ramps.items():
                (ax, ay), (bx, by) = r["a"], r["b"]
                if min(ax, bx) <= ball["x"] <= max(ax, bx):
                    under[lab] = ay + (ball["x"] - ax) / (bx - ax) * (by - ay)
            below = {lab: y for lab, y in under.items() if y < ball["y"]}
            assert below and label == max(below, key=below.__getitem__), f"not the ramp under the start: {text}"
            assert any(abs(x - ball["x"]) <= TOL for x, _ in pts), f"lands at another third of ramp {label}: {text}"
        else:
            ahead = [
                (x, y) for x, y in pts if (x >= exit_pt[0] - TOL if exit_side == "right" else x <= exit_pt[0] + TOL)
            ]
            assert ahead, f"the ball left ramp {prev} to the {exit_side} but lands behind it: {text}"
            if exit_lower:  # leaving down the slope it only goes down
                assert min(y for _, y in ahead) <= exit_pt[1] + TOL, f"the ball rises after leaving downhill: {text}"
        prev = label
    raise AssertionError("no bin step")


# -- robot tasks: the grid world ---------------------------------------------------------------------------

MAX_LEVEL = 2
_DIRS = {"left": (-1, 0), "right": (1, 0), "away": (0, 1), "towards": (0, -1)}
_BESIDE = {
    "to the left of": "left",
    "to the right of": "right",
    "just beyond (farther from the robot than)": "away",
    "just in front of (nearer the robot than)": "towards",
}
_PUSH = {
    "one cell to the left": "left",
    "one cell to the right": "right",
    "one cell away from the robot": "away",
    "one cell towards the robot": "towards",
}
_COL = r"(\w+)"
_PLACE = r"on (?:the table|the (\w+) block) in cell ([a-h])(\d)"
State = dict[str, tuple[int, int, int]]


def _cell(text_col: str, text_row: str) -> tuple[int, int]:
    return "abcdefgh".index(text_col), int(text_row) - 1


def _place(state: State, x: str, below: str | None, col: str, row: str) -> tuple[int, int, int]:
    """The position a 'where' phrase states for block x, checked against the blocks it names."""
    c, r = _cell(col, row)
    if below is None:
        return c, r, 0
    assert below in state and below != x, f"{x} on {below}"
    bc, br, bl = state[below]
    assert (bc, br) == (c, r), f"the {below} block is not in cell {col}{row}"
    return c, r, bl + 1


def _where(state: State, name: str) -> tuple[str | None, int, int]:
    c, r, lv = state[name]
    below = None if lv == 0 else next(n for n, v in state.items() if v == (c, r, lv - 1))
    return below, c, r


def _clear(state: State, name: str) -> bool:
    c, r, lv = state[name]
    return all(v != (c, r, lv + 1) for v in state.values())


def _free(state: State, c: int, r: int, size: tuple[int, int], mover: str) -> bool:
    return 0 <= c < size[0] and 0 <= r < size[1] and all(v[:2] != (c, r) for k, v in state.items() if k != mover)


def _move(state: State, x: str, new: tuple[int, int, int], size: tuple[int, int], text: str) -> State:
    assert _clear(state, x), f"the arm picks only a block with nothing on it: {text}"
    if new[2] == 0:
        assert _free(state, new[0], new[1], size, x), f"the cell is off the table or taken: {text}"
    else:
        assert new[2] <= MAX_LEVEL, f"stacks stand at most three high: {text}"
    return {**state, x: new}


# -- robot_program ------------------------------------------------------------------------------------------

_ACTION = (
    rf"put the {_COL} block on the {_COL} block|"
    rf"put the {_COL} block on the table ({'|'.join(map(re.escape, _BESIDE))}) the {_COL} block|"
    rf"push the {_COL} block ({'|'.join(map(re.escape, _PUSH))})"
)
_PROGRAM_STEP = rf"After action (\d+) \(({_ACTION})\): the {_COL} block is {_PLACE}; the other blocks have not moved\."


def _action_text(act: dict[str, Any]) -> str:
    inv_b = {v: k for k, v in _BESIDE.items()}
    inv_p = {v: k for k, v in _PUSH.items()}
    x = act["block"]
    if act["op"] == "put_on":
        return f"put the {x} block on the {act['onto']} block"
    if act["op"] == "put_beside":
        return f"put the {x} block on the table {inv_b[act['dir']]} the {act['onto']} block"
    return f"push the {x} block {inv_p[act['dir']]}"


def _true_start(scene: dict[str, Any]) -> State:
    return {k: (int(v[0]), int(v[1]), int(v[2])) for k, v in scene["blocks"].items()}


def _misread_starts(scene: dict[str, Any]) -> list[State]:
    """The starting tables a corrupted trajectory may have read instead of the true one: one block that stands
    alone on the table taken to stand in a neighbouring free cell (robot_program's `corrupt`)."""
    start, (cols, rows) = _true_start(scene), (int(scene["size"][0]), int(scene["size"][1]))
    out = []
    for name, (c, r, level) in sorted(start.items()):
        if level or any(v == (c, r, 1) for v in start.values()):
            continue
        for dc, dr in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            cell = (c + dc, r + dr)
            if 0 <= cell[0] < cols and 0 <= cell[1] < rows and all(v[:2] != cell for v in start.values()):
                out.append({**start, name: (*cell, 0)})
    return out


@checker("robot_program")
def check_robot_program(scene: dict[str, Any], texts: list[str]) -> tuple[Any, ...]:
    """The steps follow the rules from the true starting table, or, for a corrupted trajectory, from one
    misreading of it (every step then states what the rules give from that reading)."""
    try:
        return check_robot_program_from(scene, texts, _true_start(scene))
    except AssertionError as first:
        for start in _misread_starts(scene):
            try:
                return check_robot_program_from(scene, texts, start)
            except AssertionError:
                continue
        raise first


def check_robot_program_from(scene: dict[str, Any], texts: list[str], start: State) -> tuple[Any, ...]:
    size = (int(scene["size"][0]), int(scene["size"][1]))
    state: State = dict(start)
    program = scene["program"]
    assert len(texts) == len(program), "one step per action"
    for i, (act, text) in enumerate(zip(program, texts, strict=True), start=1):
        m = _match(_PROGRAM_STEP, text)
        assert int(m.group(1)) == i and m.group(2) == _action_text(act), f"the question's action {i}: {text}"
        x, below, col, row = m.group(10), m.group(11), m.group(12), m.group(13)
        assert x == act["block"], f"the step names the block action {i} moves: {text}"
        stated = _place(state, x, below, col, row)
        if act["op"] == "put_on":
            y = act["onto"]
            assert _clear(state, y), f"'put X on Y' needs Y with nothing on it: {text}"
            rule = (state[y][0], state[y][1], state[y][2] + 1)
        elif act["op"] == "put_beside":
            dc, dr = _DIRS[act["dir"]]
            rule = (state[act["onto"]][0] + dc, state[act["onto"]][1] + dr, 0)
        else:
            assert state[x][2] == 0, f"'push X' slides a block standing on the table: {text}"
            dc, dr = _DIRS[act["dir"]]
            rule = (state[x][0] + dc, state[x][1] + dr, 0)
        assert stated == rule, (
            f"action {i} puts the {x} block at {rule} by the question's rules, the step says {stated}: {text}"
        )
        state = _move(state, x, stated, size, text)
    return tuple(sorted(state.items()))


# -- robot_state_change -------------------------------------------------------------------------------------

_CHANGE = rf"the {_COL} block was {_PLACE} and is now {_PLACE}"
_DIFF = rf"Differences \(ringed\): ({_CHANGE}(?:; {_CHANGE})*); no other block moved\."
_ACT = rf"Action (\d+): the {_COL} block moved from cell ([a-h])(\d) and is now {_PLACE}\."


def _reachable(state: State, x: str, new: tuple[int, int, int]) -> bool:
    """Whether one action of the rules takes block x from `state` to `new`."""
    c, r, lv = state[x]
    if new[2] > 0:  # put on: onto a clear block (checked by _place and _move)
        return True
    near = {(new[0] - dc, new[1] - dr) for dc, dr in _DIRS.values()}
    pushed = lv == 0 and (c, r) in near
    beside = any(v[:2] in near for k, v in state.items() if k != x)
    return pushed or beside


@checker("robot_state_change")
def check_robot_state_change(scene: dict[str, Any], texts: list[str]) -> tuple[Any, ...]:
    from vcot.tasks.robot.robot_state_change import run

    size = (int(scene["size"][0]), int(scene["size"][1]))
    before: State = {k: (int(v[0]), int(v[1]), int(v[2])) for k, v in scene["before"].items()}
    n_actions = len(scene["options"][0])
    assert len(texts) == 1 + n_actions, "the differences, then one step per action"
    diff = _match(_DIFF, texts[0])
    state = dict(before)
    for i, text in enumerate(texts[1:], start=1):
        m = _match(_ACT, text)
        assert int(m.group(1)) == i, text
        x = m.group(2)
        assert x in state, text
        assert state[x][:2] == _cell(m.group(3), m.group(4)), f"the {x} block moves from the cell it is in: {text}"
        new = _place(state, x, m.group(5), m.group(6), m.group(7))
        assert new != state[x], f"an action moves its block: {text}"
        assert _reachable(state, x, new), f"no action of the rules puts the {x} block there: {text}"
        state = _move(state, x, new, size, text)
    changes = re.findall(_CHANGE, diff.group(1))
    moved = sorted(k for k in before if state[k] != before[k])
    assert [c[0] for c in changes] == moved, f"the differences name the blocks that moved ({moved}): {texts[0]}"
    for x, was_on, wc, wr, now_on, nc, nr in changes:
        assert (was_on or None, *_cell(wc, wr)) == _where(before, x), f"the {x} block's place in Before: {texts[0]}"
        assert (now_on or None, *_cell(nc, nr)) == _where(state, x), f"the {x} block's place after: {texts[0]}"
    # The stated actions are what one of the question's options does.
    ends = [s[-1] for p in scene["options"] if (s := run(before, p, size)) is not None]
    assert state in ends, "the steps do what none of the options does"
    return tuple(sorted(state.items()))


# -- the tests ----------------------------------------------------------------------------------------------


def corrupting_tasks() -> list[str]:
    return sorted(
        n
        for n in builtin_task_names()
        if get_task_class(n).__module__.startswith(PACKAGES) and get_task_class(n).corrupt is not Task.corrupt
    )


def test_every_corrupting_task_of_these_packages_has_a_checker() -> None:
    tasks = corrupting_tasks()
    assert len(tasks) >= 4
    assert set(tasks) == set(CHECKERS), f"without a checker: {set(tasks) - set(CHECKERS)}"


_CACHE: dict[str, list[tuple[str, dict[str, Any], list[str], list[str], str]]] = {}


def _trajectories(name: str) -> list[tuple[str, dict[str, Any], list[str], list[str], str]]:
    """(id, scene, true texts, corrupted texts, corruption note) for the first instances of every difficulty,
    as `make` accepts them (the rejection loop with the corruption), without encoding pictures."""
    if name not in _CACHE:
        out = []
        for difficulty in get_task_class(name).presets:
            task = get_task(name, difficulty)
            for index in range(PER_DIFFICULTY):
                scene, solution, corruption, _ = task._accept(index, SEED, check_corruption=True)
                assert corruption is not None, f"{name} {difficulty} {index}: no corrupted trajectory"
                right = [text for _, text in task.render(scene, solution).steps]
                wrong = [text for _, text in corruption.steps]
                out.append((f"{name}/{difficulty}/{index}", scene, right, wrong, corruption.description))
        _CACHE[name] = out
    return _CACHE[name]


@pytest.mark.parametrize("name", sorted(CHECKERS))
def test_true_steps_pass_their_checker(name: str) -> None:
    for uid, scene, right, _, _ in _trajectories(name):
        try:
            CHECKERS[name](scene, right)
        except AssertionError as exc:
            raise AssertionError(f"{uid}: the checker rejects the TRUE steps (a checker bug): {exc}") from exc


# robot_program's corruption states the program's action and, in the same sentence, a place the action's rule
# does not give: "(put the green block on the table to the right of the cyan block): the green block is on the
# table in cell b2" with cyan in c2 (a side mirrored), or "(put the purple block on the table just beyond ... the
# green block): ... in cell e3", the green block's STARTING cell, although an earlier step moved it to a1 (the
# partner's starting place, and the block put at that cell rather than beside or on it). Reported in issue 45's
# terms; strict, so this mark must go once the task's corruption is fixed.
KNOWN_VIOLATIONS: dict[str, str] = {}


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(n, marks=pytest.mark.xfail(reason=KNOWN_VIOLATIONS[n], strict=True, raises=AssertionError))
        if n in KNOWN_VIOLATIONS
        else n
        for n in sorted(CHECKERS)
    ],
)
def test_corrupted_steps_obey_the_task_rules(name: str) -> None:
    for uid, scene, right, wrong, note in _trajectories(name):
        assert wrong != right, f"{uid}: the corrupted steps are the true ones"
        try:
            wrong_final = CHECKERS[name](scene, wrong)
        except AssertionError as exc:
            raise AssertionError(f"{uid} ({note}): a corrupted step breaks the task's rules: {exc}") from exc
        assert wrong_final != CHECKERS[name](scene, right), f"{uid}: the corrupted final state equals the true one"


def _stated_tables(scene: dict[str, Any], texts: list[str], start: State | None = None) -> list[State]:
    """The table after each robot_program step, as its text states it (no rule applied)."""
    state: State = dict(start) if start is not None else _true_start(scene)
    out = []
    for text in texts:
        m = _match(_PROGRAM_STEP, text)
        state = {**state, m.group(10): _place(state, m.group(10), m.group(11), m.group(12), m.group(13))}
        out.append(state)
    return out


def _reading(scene: dict[str, Any], texts: list[str]) -> State:
    """The starting table the steps were worked from: the true one, else the misreading they follow."""
    for start in [_true_start(scene), *_misread_starts(scene)]:
        try:
            check_robot_program_from(scene, texts, start)
            return start
        except AssertionError:
            continue
    raise AssertionError("no reading of the starting table gives these steps")


def test_true_robot_program_steps_follow_the_true_start() -> None:
    for uid, scene, right, _, _ in _trajectories("robot_program"):
        check_robot_program_from(scene, right, _true_start(scene))
        assert _reading(scene, right) == _true_start(scene), uid


def test_corrupted_robot_program_steps_keep_the_template() -> None:
    """robot_program's corrupted steps: the template, the program's actions and the blocks they move, one
    misreading of the starting table carried through by the rules, and another final table."""
    for uid, scene, right, wrong, _ in _trajectories("robot_program"):
        assert len(wrong) == len(right), uid
        for r, w in zip(right, wrong, strict=True):
            assert _match(_PROGRAM_STEP, r).group(1, 2, 10) == _match(_PROGRAM_STEP, w).group(1, 2, 10), (r, w)
        misread = _reading(scene, wrong)
        assert misread != _true_start(scene), uid
        assert _stated_tables(scene, right)[-1] != _stated_tables(scene, wrong, misread)[-1], uid


def test_a_corrupted_tower_never_unmoves_a_block() -> None:
    """Hard instance 6 of seed 3: its first corrupted run (block E weighed as 0.1 times its size) said "blocks
    B, C, D, E and F have begun to tip" at 0.47 s, then "blocks A and B have not moved" at 1.43 s: B was dragged
    past the 0.1 threshold and settled back. `corrupt` now passes over a run in which a block it leaves standing
    moves on the way, as the sampler does for the true run."""
    task = get_task("block_tower", "hard")
    scene, _, corruption, _ = task._accept(6, 3, check_corruption=True)
    assert corruption is not None
    check_block_tower(scene, [text for _, text in corruption.steps])


# -- the checkers can fail ----------------------------------------------------------------------------------


def test_checkers_catch_planted_broken_steps() -> None:
    tower = {"blocks": [{"label": c, "x": 0.0, "w": 1.0, "h": 1.0} for c in "ABCDE"]}
    ok = [
        "t = 0.42 s: blocks D and E have begun to tip to the right; blocks A, B and C have not moved.",
        "t = 1.23 s: block E reaches the floor to the right of the tower; blocks A, B and C have not moved.",
        "t = 2.50 s: blocks D and E have toppled to the right (dashed: where they stood and the path of their "
        "centres); blocks A, B and C stand where they were placed.",
    ]
    assert check_block_tower(tower, ok) == ("A", "B", "C")
    with pytest.raises(AssertionError, match="top group"):  # C falls while D, on it, stays
        check_block_tower(tower, [t.replace("D and E", "C and E").replace("A, B and C", "A, B and D") for t in ok])
    with pytest.raises(AssertionError, match="make up the tower"):  # a count that disagrees with the blocks listed
        check_block_tower(tower, [ok[0], ok[1], ok[2].replace("blocks A, B and C stand", "blocks A and B stand")])
    with pytest.raises(AssertionError, match="one side"):
        check_block_tower(tower, [ok[0], ok[1], ok[2].replace("to the right", "to the left")])

    ramps = {
        "width": 16.0,
        "bins": 4,
        "ball": {"x": 5.0, "y": 10.0, "r": 0.25},
        "ramps": [
            {"label": "A", "a": [3.0, 9.0], "b": [7.0, 8.0]},  # lower end right
            {"label": "B", "a": [12.0, 6.0], "b": [8.0, 5.0]},
        ],
    }  # lower end left
    good = [
        "The ball falls from its start (grey circle) and lands on ramp A near its middle.",
        "The ball slides along ramp A, leaves it over its lower (right) end, and lands on ramp B near its lower end.",
        "The ball slides along ramp B, leaves it over its lower (left) end, and drops between the dividers into bin 2.",
    ]
    assert check_ball_bins(ramps, good) == 2
    with pytest.raises(AssertionError, match="other side"):
        check_ball_bins(ramps, [good[0], good[1].replace("lower (right)", "lower (left)"), good[2]])
    with pytest.raises(AssertionError, match="leaves to the left of bin"):
        check_ball_bins(ramps, [*good[:2], good[2].replace("bin 2", "bin 4")])
    with pytest.raises(AssertionError, match="slides along the ramp it landed on"):
        check_ball_bins(
            ramps, [*good[:2], good[2].replace("ramp B", "ramp A").replace("lower (left)", "lower (right)")]
        )

    grid = {
        "size": [4, 4],
        "blocks": {"red": [0, 0, 0], "blue": [2, 1, 0]},
        "program": [{"op": "put_beside", "block": "red", "onto": "blue", "dir": "right"}],
    }
    step = (
        "After action 1 (put the red block on the table to the right of the blue block): the red block is on "
        "the table in cell {}; the other blocks have not moved."
    )
    check_robot_program(grid, [step.format("d2")])
    with pytest.raises(AssertionError, match="by the question's rules"):  # a side mirrored
        check_robot_program(grid, [step.format("b2")])

    change = {
        "size": [4, 4],
        "before": {"red": [0, 0, 0], "blue": [2, 1, 0]},
        "after": {},
        "options": [
            [{"op": "push", "block": "red", "dir": "away"}],
            [{"op": "put_on", "block": "red", "onto": "blue"}],
        ],
    }
    diff = "Differences (ringed): the red block was on the table in cell a1 and is now {}; no other block moved."
    act = "Action 1: the red block moved from cell a1 and is now {}."
    check_robot_state_change(change, [diff.format("on the table in cell a2"), act.format("on the table in cell a2")])
    check_robot_state_change(
        change, [diff.format("on the blue block in cell c2"), act.format("on the blue block in cell c2")]
    )
    with pytest.raises(AssertionError, match="the blue block is not in cell"):
        check_robot_state_change(
            change, [diff.format("on the blue block in cell c3"), act.format("on the blue block in cell c3")]
        )
    with pytest.raises(AssertionError, match="place after"):
        check_robot_state_change(
            change, [diff.format("on the table in cell a3"), act.format("on the table in cell a2")]
        )
    with pytest.raises(AssertionError, match="no action of the rules"):
        check_robot_state_change(
            change, [diff.format("on the table in cell a4"), act.format("on the table in cell a4")]
        )
