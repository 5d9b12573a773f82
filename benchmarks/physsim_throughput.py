"""Throughput of the Intuitive Physics tasks (docs/tasks/block_tower.md, docs/tasks/ball_bins.md), on one core
(CPU time):

1. the training stream, `vcot.rl.stream(task, difficulty="medium")` with the input picture only: problems/s
   (target: at least 20), and where the time goes (scene = sampling, the pymunk runs, the jitter re-runs and
   rejected draws; picture = `render_input`);
2. generation with steps, `Task.make` (input, step and corrupted pictures) plus PNG encoding, at easy, medium
   and hard: instances/s (target: at least 5);
3. the jitter test: accepted scenes re-run from 5 fresh jitters (never the ones acceptance drew): how many give
   another answer (target: 0), and the share of scenes that reached the generator's own jitter test and failed it.

    python benchmarks/physsim_throughput.py [--n 40] [--tasks block_tower,ball_bins]
"""

from __future__ import annotations

import argparse
import random
from collections import Counter

from task_throughput import generate_rate, stream_rate

from vcot.tasks import get_task
from vcot.tasks.physsim._engine import simulate_ball, simulate_tower
from vcot.tasks.physsim.ball_bins import bin_of
from vcot.tasks.physsim.block_tower import outcome

TASKS = ("block_tower", "ball_bins")
STREAM_TARGET, GEN_TARGET = 20.0, 5.0


def _stream(name: str, n: int) -> None:
    rate, parts = stream_rate(name, "medium", n)
    print(
        f"  stream {name:12s} medium {rate:7.1f} problems/s (target {STREAM_TARGET:.0f}: "
        f"{'met' if rate >= STREAM_TARGET else 'MISSED'}); scene {100 * parts['scene'] * rate:.0f} %, "
        f"picture {100 * parts['picture'] * rate:.0f} %",
        flush=True,
    )


def _generate(name: str, level: str, n: int) -> None:
    rate = generate_rate(name, level, n)
    print(
        f"  generate {name:12s} {level:6s} {rate:6.1f} instances/s with steps (target {GEN_TARGET:.0f}: "
        f"{'met' if rate >= GEN_TARGET else 'MISSED'})",
        flush=True,
    )


def _jitter(name: str, level: str, n: int) -> None:
    task = get_task(name, level)
    reasons: Counter[str] = Counter()
    original = task.sample_scene

    def counted(ctx):
        try:
            return original(ctx)
        except Exception as exc:
            reasons[str(exc)] += 1
            raise

    task.sample_scene = counted  # type: ignore[method-assign]
    rng = random.Random(99)
    changed = 0
    for i in range(n):
        scene, sol = task.solved_scene(i, 1)
        for _ in range(5):
            if name == "block_tower":
                fell = outcome(
                    simulate_tower(scene["blocks"], shifts=[rng.uniform(-0.03, 0.03) for _ in scene["blocks"]])
                )
                ok = fell is not None and str(fell.count(False)) == sol.answer
            else:
                run = simulate_ball(scene, dx=rng.uniform(-0.04, 0.04), dy=rng.uniform(-0.04, 0.04))
                ok = run.landing_x is not None and str(bin_of(scene, run.landing_x) + 1) == sol.answer
            changed += not ok
    jit = sum(v for k, v in reasons.items() if "jitter" in k)
    print(
        f"  jitter {name:12s} {level:6s} {n} accepted; generator's jitter test rejected {jit} "
        f"({100 * jit / (jit + n):.1f} % of the scenes reaching it); fresh re-runs with another answer "
        f"{changed}/{5 * n} (target 0)",
        flush=True,
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=40)
    ap.add_argument("--tasks", default=",".join(TASKS))
    args = ap.parse_args()
    names = args.tasks.split(",")
    print("stream (input picture only):")
    for name in names:
        _stream(name, args.n)
    print("generation with steps:")
    for name in names:
        for level in ("easy", "medium", "hard"):
            _generate(name, level, max(5, args.n // 4))
    print("jitter test:")
    for name in names:
        for level in ("easy", "medium", "hard"):
            _jitter(name, level, args.n)


if __name__ == "__main__":
    main()
