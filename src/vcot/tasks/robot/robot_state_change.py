"""robot_state_change (See2Think's Robot State Change): one picture with two panels, the robot's table before and
after it acted (one action; two in order at hard); which of four descriptions says what the robot did? Every
option names blocks and sides, never cells, so only the two panels tell them apart. The true program is replayed
in Bullet, plainly and from jittered starts (`_sim.check`). docs/tasks/robot_state_change.md has the details.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from PIL import Image

from vcot.schema import AnswerType, option_letters
from vcot.tasks import register
from vcot.tasks.base import Choices, Corruption, GenContext, Limit, Reject, Rendering, Solution, Task
from vcot.tasks.robot import _draw, _sim
from vcot.tasks.robot._world import (
    COLOURS,
    RULES,
    Action,
    Blocks,
    Illegal,
    action_text,
    apply,
    as_blocks,
    cell_name,
    random_action,
    sample_blocks,
    where_text,
)

OPS = ("put_on", "put_beside", "push")
MAX_LEVEL = 2
N_OPTIONS = 4


@dataclass(frozen=True)
class RobotStateChangeConfig:
    cols: int = 5
    rows: int = 5
    min_blocks: int = 4
    max_blocks: int = 5
    stacked: int = 1
    actions: int = 1
    jitters: int = 3
    ops: list[str] = field(default_factory=lambda: list(OPS))


def run(blocks: Blocks, program: list[Action], size: tuple[int, int]) -> list[Blocks] | None:
    """The states after each action, or None when the program is not possible from `blocks`."""
    out, state = [], blocks
    try:
        for act in program:
            state = apply(state, act, size, MAX_LEVEL)
            out.append(state)
    except Illegal:
        return None
    return out


def option_text(program: list[Action]) -> str:
    text = ", then ".join(action_text(a) for a in program)
    return text[0].upper() + text[1:] + "."


@register
class RobotStateChange(Task):
    name = "robot_state_change"
    domain = "robot"
    answer_type = AnswerType.CHOICE
    config_cls = RobotStateChangeConfig
    presets = {
        "easy": RobotStateChangeConfig(cols=4, rows=4, min_blocks=3, max_blocks=4, stacked=0, actions=1),
        "medium": RobotStateChangeConfig(cols=5, rows=5, min_blocks=4, max_blocks=5, stacked=1, actions=1),
        "hard": RobotStateChangeConfig(cols=5, rows=5, min_blocks=5, max_blocks=6, stacked=1, actions=2),
    }
    version = "1"
    description = "Before and after pictures of a robot's table: which description says what the robot did?"
    limits = {
        "cols": Limit(3, 5, "columns of cells; the Panda's inverse kinematics reaches 5 columns of 7 cm"),
        "rows": Limit(3, 5, "rows of cells; the farthest of 5 rows is at the edge of the Panda's reach"),
        "min_blocks": Limit(3, 6, "blocks of distinct colours (six colours); distractors need three"),
        "max_blocks": Limit(3, 6, "blocks of distinct colours (six colours)"),
        "stacked": Limit(0, 2, "blocks that start on another block"),
        "actions": Limit(1, 2, "actions between the two pictures; with more, several orders fit one change"),
        "jitters": Limit(1, 6, "jittered Bullet replays every accepted scene must survive"),
        "ops": Choices(OPS, "the kinds of action a program may use"),
    }
    colour_pools = (COLOURS,)

    @property
    def size(self) -> tuple[int, int]:
        return self.config.cols, self.config.rows

    def _program(self, rng: random.Random, blocks: Blocks) -> list[Action]:
        program, state = [], blocks
        for _ in range(self.config.actions):
            act = random_action(rng, state, self.size, MAX_LEVEL, tuple(self.config.ops))
            if act is None:
                raise Reject("no legal action")
            program.append(act)
            state = apply(state, act, self.size, MAX_LEVEL)
        return program

    def sample_scene(self, ctx: GenContext) -> dict[str, Any]:
        cfg, rng = self.config, ctx.rng
        n = rng.randint(cfg.min_blocks, cfg.max_blocks)
        blocks = sample_blocks(rng, n, self.size, min(cfg.stacked, n - 1))
        program = self._program(rng, blocks)
        after = run(blocks, program, self.size)
        assert after is not None
        if after[-1] == blocks:
            raise Reject("the program changes nothing")
        # Distractors: other possible programs moving the same blocks in the same order. The After panel shows
        # whether each moved block ended on a block or on the table; at least two distractors do as the true
        # program does, so that this alone leaves three options (or four) to choose from. Each is drawn as the
        # true program is: a kind of action first, uniformly among the kinds possible, then one of that kind.
        shape = [a["op"] == "put_on" for a in program]
        pool = [
            c
            for c in self._same_blocks(blocks, [a["block"] for a in program])
            if c != program and (states := run(blocks, c, self.size)) is not None and states[-1] != after[-1]
        ]
        pool.sort(key=option_text)
        same = [c for c in pool if [a["op"] == "put_on" for a in c] == shape]
        other = [c for c in pool if c not in same]
        distractors: list[list[Action]] = []
        for k in range(N_OPTIONS - 1):
            source = same if k < 2 or not other or (same and rng.random() < 0.5) else other
            kinds = sorted({tuple(a["op"] for a in c) for c in source})
            if not kinds:
                raise Reject("too few distractors")
            kind = rng.choice(kinds)
            pick = rng.choice([c for c in source if tuple(a["op"] for a in c) == kind])
            distractors.append(pick)
            source.remove(pick)
        slot = ctx.balanced(N_OPTIONS)
        options = list(distractors)
        options.insert(slot, program)
        scene = {
            "size": list(self.size),
            "before": {k: list(v) for k, v in blocks.items()},
            "after": {k: list(v) for k, v in after[-1].items()},
            "options": options,
        }
        try:
            _sim.check(blocks, program, self.size, rng.getrandbits(32), cfg.jitters)
        except _sim.Unstable as exc:
            raise Reject(f"Bullet: {exc}") from None
        return scene

    def _same_blocks(self, blocks: Blocks, movers: list[str]) -> list[list[Action]]:
        """Every possible program whose k-th action moves movers[k] (any kind, partner and side)."""
        programs: list[tuple[list[Action], Blocks]] = [([], blocks)]
        for mover in movers:
            nxt = []
            for prog, state in programs:
                for act in self._actions_of(state, mover):
                    try:
                        nxt.append(([*prog, act], apply(state, act, self.size, MAX_LEVEL)))
                    except Illegal:
                        continue
            programs = nxt
        return [prog for prog, _ in programs]

    def _actions_of(self, state: Blocks, mover: str) -> list[Action]:
        others = sorted(n for n in state if n != mover)
        sides = ("left", "right", "away", "towards")
        acts: list[Action] = []
        if "put_on" in self.config.ops:
            acts += [{"op": "put_on", "block": mover, "onto": y} for y in others]
        if "put_beside" in self.config.ops:
            acts += [{"op": "put_beside", "block": mover, "onto": y, "dir": d} for y in others for d in sides]
        if "push" in self.config.ops:
            acts += [{"op": "push", "block": mover, "dir": d} for d in sides]
        return acts

    def solve(self, scene: dict[str, Any]) -> Solution:
        before, after = as_blocks(scene["before"]), as_blocks(scene["after"])
        fits = [
            i
            for i, prog in enumerate(scene["options"])
            if (states := run(before, prog, self.size_of(scene))) is not None and states[-1] == after
        ]
        if len(fits) != 1:
            raise Reject(f"{len(fits)} options fit the change")
        states = run(before, scene["options"][fits[0]], self.size_of(scene))
        assert states is not None
        return Solution(
            answer=option_letters(N_OPTIONS)[fits[0]], states=[{k: list(v) for k, v in s.items()} for s in states]
        )

    @staticmethod
    def size_of(scene: dict[str, Any]) -> tuple[int, int]:
        return int(scene["size"][0]), int(scene["size"][1])

    def question(self, scene: dict[str, Any]) -> str:
        what = "one action" if len(scene["options"][0]) == 1 else f"{len(scene['options'][0])} actions, in order"
        return (
            f"The picture shows a robot arm's table seen from above, in two panels: Before (left) and After "
            f"(right). Coloured blocks (each marked with its colour's initial) stand on a grid of cells; a "
            f"block drawn shifted up over another stands on it. Between the two panels the robot did {what}. "
            f"{RULES.replace(' Every action of the program is possible.', '')} Which option describes what "
            f"the robot did? Answer with the option's letter."
        )

    def options(self, scene: dict[str, Any]) -> list[str]:
        return [option_text(p) for p in scene["options"]]

    # -- pictures ---------------------------------------------------------------------------------------------

    def render_input(self, scene: dict[str, Any], solution: Solution) -> Image.Image:
        size = self.size_of(scene)
        return _draw.panels(
            _draw.draw_table(as_blocks(scene["before"]), size, "Before"),
            _draw.draw_table(as_blocks(scene["after"]), size, "After"),
        )

    def render(self, scene: dict[str, Any], solution: Solution) -> Rendering:
        states = [as_blocks(s) for s in solution.states]
        prog = scene["options"][option_letters(N_OPTIONS).index(solution.answer)]
        return Rendering(image=self.render_input(scene, solution), steps=self.steps(scene, prog, states))

    def steps(
        self, scene: dict[str, Any], program: list[Action], states: list[Blocks]
    ) -> list[tuple[Image.Image, str]]:
        """The differences marked in both panels, then each action's result from the Before panel on."""
        size = self.size_of(scene)
        before = as_blocks(scene["before"])
        moved = tuple(sorted(k for k in before if states[-1][k] != before[k]))
        diff = _draw.panels(
            _draw.draw_table(before, size, "Before", marked=moved),
            _draw.draw_table(states[-1], size, "After", marked=moved),
        )
        changes = "; ".join(
            f"the {k} block was {where_text(before, k)} and is now {where_text(states[-1], k)}" for k in moved
        )
        out = [(diff, f"Differences (ringed): {changes}; no other block moved.")]
        prev = before
        for i, (act, state) in enumerate(zip(program, states, strict=True), start=1):
            x = act["block"]
            img = _draw.draw_table(
                state, size, f"After action {i}", reach=x, marked=(x,), was={x: _draw.block_px(prev, x, size)}
            )
            c, r, _ = prev[x]
            out.append(
                (img, f"Action {i}: the {x} block moved from cell {cell_name(c, r)} and is now {where_text(state, x)}.")
            )
            prev = state
        return out

    def corrupt(self, scene: dict[str, Any], solution: Solution, rng: random.Random) -> Corruption | None:
        """The trajectory of a reader who took a distractor for what happened: its moved blocks ringed as the
        differences and its actions' results drawn."""
        before = as_blocks(scene["before"])
        size = self.size_of(scene)
        wrong = [i for i, letter in enumerate(option_letters(N_OPTIONS)) if letter != solution.answer]
        i = rng.choice(wrong)
        states = run(before, scene["options"][i], size)
        if states is None:
            return None
        prog = scene["options"][i]
        # The trajectory concludes the option it took for what happened. Read as a scene, its After panel is
        # that option's end state; set only when no other option reaches the same end (else the oracle, which
        # asks for exactly one fitting option, could not re-derive the letter from it).
        fits = [
            j
            for j, p in enumerate(scene["options"])
            if (end := run(before, p, size)) is not None and end[-1] == states[-1]
        ]
        read = {**scene, "after": {k: list(v) for k, v in states[-1].items()}} if fits == [i] else None
        return Corruption(
            steps=lambda: self.steps(scene, prog, states),
            description=f"option {option_letters(N_OPTIONS)[i]} taken for what happened",
            answer=option_letters(N_OPTIONS)[i],
            scene=read,
        )
