"""Throughput of the chemistry tasks (docs/tasks/longest_carbon_chain.md, docs/tasks/hbond_donors.md).

Per task and difficulty, problems/second on one core (CPU time) of `vcot.rl.stream(task)` with the input
picture only (condition direct), as `benchmarks/rl_stream.py` measures every task, and instances/second of
`Task.make` with all step pictures and the corrupted trajectory plus PNG encoding (what `vcot generate` does).
Where a medium stream problem's time goes: scene (sampling, RDKit's layout, solving, rejected draws included)
and picture (RDKit's SVG drawing and its rasterisation). Target: a medium stream of at least 50 problems/s per
task.

    python benchmarks/chem_throughput.py [--n 200] [--tasks longest_carbon_chain,hbond_donors]
"""

from __future__ import annotations

import argparse

from task_throughput import generate_rate, stream_rate

TASKS = ("longest_carbon_chain", "hbond_donors")
TARGET = 50.0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=200, help="problems per measurement")
    ap.add_argument("--tasks", default=",".join(TASKS))
    args = ap.parse_args()
    print(
        f"one core, CPU time, {args.n} problems per cell; stream = input picture only (condition direct); "
        "generate = make with steps and corruption + PNG encoding"
    )
    print(f"  {'task':22s} {'level':7s} {'stream p/s':>10s} {'scene ms':>8s} {'picture ms':>10s} {'generate i/s':>12s}")
    verdicts = []
    for name in args.tasks.split(","):
        for level in ("easy", "medium", "hard"):
            rate, parts = stream_rate(name, level, args.n)
            gen = generate_rate(name, level, max(10, args.n // 5))
            print(
                f"  {name:22s} {level:7s} {rate:10.1f} {1000 * parts['scene']:8.1f} "
                f"{1000 * parts['picture']:10.1f} {gen:12.1f}",
                flush=True,
            )
            if level == "medium":
                verdicts.append((name, rate))
    for name, rate in verdicts:
        verdict = "met" if rate >= TARGET else f"MISSED by {100 * (1 - rate / TARGET):.0f} %"
        print(f"  {name}: medium stream {rate:.1f} problems/s (target {TARGET:.0f}): {verdict}")


if __name__ == "__main__":
    main()
