"""robot_program (See2Think's Robot Manipulation): a Franka Panda at a table of coloured blocks on a labelled grid
of cells; the question gives a short program (put on, put beside, push) and asks in which cell a block ends.
The blocks' starting cells are only in the picture, and the program names no cell, so the answer needs both.
Every accepted scene is replayed in Bullet, plainly and from jittered starts (`_sim.check`).
docs/tasks/robot_program.md has the details.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from PIL import Image

from vcot.schema import AnswerType, Instance
from vcot.tasks import register
from vcot.tasks.answer_space import AnswerSpace, finite
from vcot.tasks.base import Choices, Corruption, GenContext, Limit, Reject, Rendering, Solution, Task
from vcot.tasks.robot import _draw, _sim
from vcot.tasks.robot._world import (
    COLOURS,
    DIRS,
    RULES,
    Action,
    Blocks,
    Illegal,
    action_text,
    apply,
    as_blocks,
    cell_name,
    clear,
    occupied,
    random_action,
    sample_blocks,
    where_text,
)

OPS = ("put_on", "put_beside", "push")
# The side a slip mixes up with each direction (`RobotProgram.slip`).
MIRRORED = {"left": "right", "right": "left", "away": "towards", "towards": "away"}
MAX_LEVEL = 2  # blocks stand at most three high: the arm's carrying height stays in reach


@dataclass(frozen=True)
class RobotProgramConfig:
    cols: int = 5
    rows: int = 5
    min_blocks: int = 4
    max_blocks: int = 5
    stacked: int = 1
    min_actions: int = 3
    max_actions: int = 3
    jitters: int = 3
    ops: list[str] = field(default_factory=lambda: list(OPS))


def replay(blocks: Blocks, program: list[Action]) -> list[Blocks]:
    out = []
    state = blocks
    for act in program:
        state = apply(state, act)
        out.append(state)
    return out


def own_moves_only(blocks: Blocks, program: list[Action], name: str) -> str | None:
    """The asked block's cell if only its own actions ran (the others' moves ignored): the shortcut the
    sampler rules out, so that the answer needs the whole program."""
    state = dict(blocks)
    for act in program:
        if act["block"] == name:
            try:
                state = apply(state, act)
            except Illegal:
                return None
    c, r, _ = state[name]
    return cell_name(c, r)


def last_move_on_start(blocks: Blocks, program: list[Action], name: str) -> str:
    """The asked block's last action read against the starting picture (on or beside its partner's starting
    cell, or one cell on from its own): the other shortcut the sampler rules out."""
    act = [a for a in program if a["block"] == name][-1]
    c, r, _ = blocks[act.get("onto", name)]
    dc, dr = DIRS[act["dir"]] if act["op"] != "put_on" else (0, 0)
    return cell_name(c + dc, r + dr) if 0 <= c + dc < 8 and 0 <= r + dr < 8 else "?"


@register
class RobotProgram(Task):
    name = "robot_program"
    domain = "robot"
    answer_type = AnswerType.TEXT
    config_cls = RobotProgramConfig
    presets = {
        "easy": RobotProgramConfig(cols=4, rows=4, min_blocks=3, max_blocks=4, stacked=0, min_actions=2, max_actions=2),
        "medium": RobotProgramConfig(
            cols=5, rows=5, min_blocks=4, max_blocks=5, stacked=1, min_actions=3, max_actions=3
        ),
        "hard": RobotProgramConfig(cols=5, rows=5, min_blocks=5, max_blocks=6, stacked=1, min_actions=4, max_actions=5),
    }
    version = "1"
    description = "A robot arm runs a short pick/place/push program on coloured blocks; where does a block end?"
    final_state_shows = "the asked block in its final cell, in the last step's picture"
    limits = {
        "cols": Limit(3, 5, "columns of cells; the Panda's inverse kinematics reaches 5 columns of 7 cm"),
        "rows": Limit(3, 5, "rows of cells; the farthest of 5 rows is at the edge of the Panda's reach"),
        "min_blocks": Limit(2, 6, "blocks of distinct colours (six colours)"),
        "max_blocks": Limit(2, 6, "blocks of distinct colours (six colours)"),
        "stacked": Limit(0, 2, "blocks that start on another block"),
        "min_actions": Limit(2, 6, "actions in the program: two at least, so that the answer needs a chain"),
        "max_actions": Limit(2, 6, "actions in the program; each costs a Bullet replay per jitter"),
        "jitters": Limit(1, 6, "jittered Bullet replays every accepted scene must survive"),
        "ops": Choices(OPS, "the kinds of action a program may use"),
    }
    colour_pools = (COLOURS,)

    @property
    def size(self) -> tuple[int, int]:
        return self.config.cols, self.config.rows

    # -- sampling and solving --------------------------------------------------------------------------------

    def sample_scene(self, ctx: GenContext) -> dict[str, Any]:
        cfg, rng = self.config, ctx.rng
        n = rng.randint(cfg.min_blocks, cfg.max_blocks)
        if n > cfg.cols * cfg.rows - 2:
            raise Reject("too many blocks for the grid")
        blocks = sample_blocks(rng, n, self.size, min(cfg.stacked, n - 1))
        k = rng.randint(cfg.min_actions, cfg.max_actions)
        program: list[Action] = []
        state = blocks
        for _ in range(k):
            act = random_action(rng, state, self.size, MAX_LEVEL, tuple(cfg.ops))
            if act is None:
                raise Reject("no legal action")
            program.append(act)
            state = apply(state, act, self.size, MAX_LEVEL)
        moved = sorted({a["block"] for a in program})
        asked = rng.choice(moved)
        start, end = blocks[asked], state[asked]
        if start[:2] == end[:2]:
            raise Reject("the asked block ends where it started")
        if cell_name(*end[:2]) in (own_moves_only(blocks, program, asked), last_move_on_start(blocks, program, asked)):
            raise Reject("the asked block's own actions alone give the answer")
        scene = {
            "size": list(self.size),
            "blocks": {k2: list(v) for k2, v in blocks.items()},
            "program": program,
            "asked": asked,
        }
        try:
            _sim.check(blocks, program, self.size, rng.getrandbits(32), cfg.jitters)
        except _sim.Unstable as exc:
            raise Reject(f"Bullet: {exc}") from None
        return scene

    def solve(self, scene: dict[str, Any]) -> Solution:
        blocks = as_blocks(scene["blocks"])
        states = replay(blocks, scene["program"])
        c, r, _ = states[-1][scene["asked"]]
        return Solution(answer=cell_name(c, r), states=[{k: list(v) for k, v in s.items()} for s in states])

    def question(self, scene: dict[str, Any]) -> str:
        lines = " ".join(f"({i}) {action_text(a)}." for i, a in enumerate(scene["program"], start=1))
        return (
            f"The picture shows a robot arm at a table seen from above: coloured blocks (each marked with its "
            f"colour's initial) stand on a grid of cells, columns lettered and rows numbered; a block drawn "
            f"shifted up over another stands on it. {RULES} The robot runs this program in order: {lines} "
            f"In which cell is the {scene['asked']} block at the end? Answer with the cell's name: its "
            f"column letter, then its row number."
        )

    def answer_space(self, instance: Instance) -> AnswerSpace:
        cols, rows = self.size
        cells = [cell_name(c, r) for c in range(cols) for r in range(rows)]
        return finite(cells, f"the {len(cells)} cells of the grid", lambda a: a.strip().lower())

    # -- pictures ---------------------------------------------------------------------------------------------

    def render_input(self, scene: dict[str, Any], solution: Solution) -> Image.Image:
        return _draw.draw_table(as_blocks(scene["blocks"]), tuple(scene["size"]), "Start")

    def render(self, scene: dict[str, Any], solution: Solution) -> Rendering:
        states = [as_blocks(s) for s in solution.states]
        return Rendering(image=self.render_input(scene, solution), steps=self.steps(scene, states))

    def steps(self, scene: dict[str, Any], states: list[Blocks]) -> list[tuple[Image.Image, str]]:
        size = tuple(scene["size"])
        before = as_blocks(scene["blocks"])
        out = []
        for i, (act, state) in enumerate(zip(scene["program"], states, strict=True), start=1):
            x = act["block"]
            img = _draw.draw_table(
                state, size, f"After action {i}", reach=x, marked=(x,), was={x: _draw.block_px(before, x, size)}
            )
            out.append(
                (
                    img,
                    f"After action {i} ({action_text(act)}): the {x} block is {where_text(state, x)}; "
                    "the other blocks have not moved.",
                )
            )
            before = state
        return out

    def corrupt(self, scene: dict[str, Any], solution: Solution, rng: random.Random) -> Corruption | None:
        """The starting picture misread: one block that stands alone on the table is taken to stand in a
        neighbouring free cell, and the whole program is then carried out by its rules from that reading (every
        step states what the rules give from it, in the true steps' words). Only a misreading under which every
        action stays possible and the asked block ends elsewhere is used; a scene with none is rejected."""
        blocks = as_blocks(scene["blocks"])
        program = scene["program"]
        true_states = [as_blocks(s) for s in solution.states]
        asked = scene["asked"]
        cols, rows = self.size
        candidates = []
        for name, (c, r, level) in sorted(blocks.items()):
            if level != 0 or not clear(blocks, name):
                continue
            for dc, dr in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                if 0 <= c + dc < cols and 0 <= r + dr < rows and not occupied(blocks, c + dc, r + dr):
                    candidates.append((name, (c + dc, r + dr)))
        rng.shuffle(candidates)
        for name, (c, r) in candidates:
            state = {**blocks, name: (c, r, 0)}
            bad = []
            try:
                for act in program:
                    state = apply(state, act, self.size, MAX_LEVEL)
                    bad.append(state)
            except Illegal:
                continue
            if bad[-1][asked][:2] == true_states[-1][asked][:2]:
                continue
            # The answer is the asked block's cell in the last wrong state (the last step's picture); the scene
            # as read is the start with the misread block moved, from which the oracle replays the program.
            read = {**scene, "blocks": {k: list(v) for k, v in {**blocks, name: (c, r, 0)}.items()}}
            return Corruption(
                steps=lambda bad=bad: self.steps(scene, bad),
                description=f"the {name} block read as standing in {cell_name(c, r)}",
                answer=cell_name(*bad[-1][asked][:2]),
                scene=read,
            )
        return None

    def slip(self, scene: dict[str, Any], solution: Solution, rng: random.Random) -> Corruption | None:
        """The starting picture read right, one action carried out wrongly, in a seeded order of two kinds:

        - on the mirrored side: a push or a 'put beside' to the left taken to the right (or away from the
          robot taken towards it, and back), which the question's left and right "as the picture shows them"
          invite;
        - on a stale table: a 'put beside' whose partner an earlier action moved, carried out beside the cell
          the partner stood in before that move (the earlier move forgotten).

        Either way the block lands on a free table cell, as the rules let some action put it, and every later
        action is carried out by the rules from that wrong table. Only a slip under which every action stays
        possible and the asked block ends elsewhere is used."""
        program = scene["program"]
        true_states = [as_blocks(s) for s in solution.states]
        before = [as_blocks(scene["blocks"]), *true_states[:-1]]
        asked = scene["asked"]
        slips: list[tuple[int, str]] = []
        for k, act in enumerate(program):
            if act["op"] in ("push", "put_beside"):
                slips.append((k, "mirrored"))
            if act["op"] == "put_beside" and any(a["block"] == act["onto"] for a in program[:k]):
                slips.append((k, "stale"))
        rng.shuffle(slips)
        for k, kind in slips:
            act = program[k]
            try:
                if kind == "mirrored":
                    state = apply(before[k], {**act, "dir": MIRRORED[act["dir"]]}, self.size, MAX_LEVEL)
                    why = f"action {k + 1} carried out {MIRRORED[act['dir']]} instead of {act['dir']}"
                else:
                    j = max(i for i, a in enumerate(program[:k]) if a["block"] == act["onto"])
                    # The partner where it stood before action j moved it; the rest of the table as it is now.
                    remembered = {**before[k], act["onto"]: before[j][act["onto"]]}
                    c, r, _ = apply(remembered, act, self.size, MAX_LEVEL)[act["block"]]
                    if occupied(before[k], c, r):
                        continue
                    state = {**before[k], act["block"]: (c, r, 0)}
                    why = (
                        f"action {k + 1} puts the {act['block']} block beside the cell the {act['onto']} block "
                        f"stood in before action {j + 1} moved it"
                    )
                bad = [state]
                for later in program[k + 1 :]:
                    state = apply(state, later, self.size, MAX_LEVEL)
                    bad.append(state)
            except Illegal:
                continue
            if bad[-1][asked][:2] == true_states[-1][asked][:2]:
                continue
            states = true_states[:k] + bad
            # As a scene for the oracle: the table right after the slip, and the program's later actions.
            after = {**scene, "blocks": {n: list(v) for n, v in bad[0].items()}, "program": program[k + 1 :]}
            return Corruption(
                steps=lambda states=states: self.steps(scene, states),
                description=f"{why}; the later actions follow the rules from there",
                answer=cell_name(*states[-1][asked][:2]),
                scene=after,
            )
        return None
