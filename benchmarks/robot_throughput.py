"""Throughput of the robot tasks (docs/tasks/robot_program.md, "Speed"), on one core (CPU time):

1. the training stream, `vcot.rl.stream(task, difficulty="medium")` with the input picture only: problems/s
   (target: at least 20), and where the time goes (scene = sampling, the Bullet replays and rejected draws;
   picture = `render_input`);
2. generation with steps, `Task.make` (input, step and corrupted pictures) plus PNG encoding, at easy, medium
   and hard: instances/s (target: at least 5);
3. acceptance: the share of drawn scenes rejected per difficulty, and of those the share the Bullet check
   rejected (a replay that leaves its plan, plain or jittered, or a pose out of the arm's reach);
4. the jitter test: accepted scenes replayed in Bullet again from 5 fresh jitter seeds (never the ones acceptance
   used): how many end in another state after any action, so that their answer could change (target: 0).

    python benchmarks/robot_throughput.py [--n 100]
"""

from __future__ import annotations

import argparse
import random
from collections import Counter

from task_throughput import generate_rate, stream_rate

from vcot.tasks import get_task
from vcot.tasks.base import GenContext, Reject

TASKS = ("robot_program", "robot_state_change")
STREAM_TARGET, GEN_TARGET = 20.0, 5.0


def _stream(name: str, n: int) -> None:
    rate, parts = stream_rate(name, "medium", n)
    print(
        f"  stream {name:20s} medium {rate:7.1f} problems/s (target {STREAM_TARGET:.0f}: "
        f"{'met' if rate >= STREAM_TARGET else 'MISSED'}); scene {100 * parts['scene'] * rate:.0f} %, "
        f"picture {100 * parts['picture'] * rate:.0f} %",
        flush=True,
    )


def _generate(name: str, level: str, n: int) -> None:
    rate = generate_rate(name, level, n)
    print(
        f"  generate {name:18s} {level:6s} {rate:6.1f} instances/s with steps (target {GEN_TARGET:.0f}: "
        f"{'met' if rate >= GEN_TARGET else 'MISSED'})",
        flush=True,
    )


def _rejections(name: str, level: str, n: int) -> None:
    task = get_task(name, level)
    reasons: Counter[str] = Counter()
    drawn = 0
    for i in range(n):
        ctx = GenContext(random.Random(f"reject:{i}"), task.name, 0, i)
        while True:
            drawn += 1
            try:
                scene = task.sample_scene(ctx)
                task.solve(scene)
                break
            except Reject as exc:
                reasons["Bullet" if str(exc).startswith("Bullet") else "rules"] += 1
    rejected = sum(reasons.values())
    print(
        f"  rejected {name:18s} {level:6s} {100 * rejected / drawn:5.1f} % of {drawn} draws "
        f"(Bullet check: {100 * reasons['Bullet'] / drawn:.1f} %, other rules: {100 * reasons['rules'] / drawn:.1f} %)",
        flush=True,
    )


def _jitter_test(name: str, level: str, n: int, seeds: int = 5) -> None:
    from vcot.tasks.robot import _sim
    from vcot.tasks.robot._world import as_blocks

    task = get_task(name, level)
    changed = 0
    for i in range(n):
        scene, solution = task.solved_scene(i, 21)
        if name == "robot_program":
            start, program = as_blocks(scene["blocks"]), scene["program"]
        else:
            start, program = as_blocks(scene["before"]), scene["options"]["ABCD".index(solution.answer)]
        planned = [as_blocks(s) for s in solution.states]
        for k in range(seeds):
            try:
                got = _sim.replay(start, program, tuple(scene["size"]), random.Random(f"fresh:{i}:{k}"))
            except _sim.Unstable:
                got = None
            if got != planned:
                changed += 1
                break
    print(
        f"  jitter test {name:18s} {level:6s} {changed} of {n} accepted scenes change under {seeds} fresh "
        f"jittered replays",
        flush=True,
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=100)
    args = ap.parse_args()
    for name in TASKS:
        _stream(name, args.n)
        for level in ("easy", "medium", "hard"):
            _generate(name, level, max(10, args.n // 4))
        for level in ("easy", "medium", "hard"):
            _rejections(name, level, args.n)
        for level in ("easy", "medium", "hard"):
            _jitter_test(name, level, args.n)


if __name__ == "__main__":
    main()
