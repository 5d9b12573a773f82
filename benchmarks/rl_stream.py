"""Training-stream throughput and exclusion audit (docs/rl.md).

1. Per task, problems/second on one core (CPU time) of `vcot.rl.stream(task)` with the input picture only
   (condition direct), against `vcot generate`'s per-instance time as `benchmarks/generation.py` measures it
   (`Task.make` plus PNG encoding). Targets: the median 2D task at least 100 problems/s, the 3D tasks
   (object_attributes, compositional_3d) at least 10/s. Where a problem's time goes: scene (sampling and
   solving, rejected draws included), picture (the task's renderer) and the rest (instance and prompt).
2. Exclusion: the `mira-synth` suite is built (or read with --suite), then the first N problems (default
   100,000) of a stream over the same tasks with `exclude=` that suite are audited without rendering: how many
   draws hit a suite scene and were drawn again, and how many streamed scenes are suite scenes (must be 0).
   A sample of fully made problems is checked against `vcot.validate.scene_keys` of the suite independently.

3. With --rows: per task, a trainer's row against the stream problem it wraps (CPU ms per problem): TRL's
   streaming dataset, the environment core's reset, TRL's fixed-size Arrow dataset and verl's Parquet row.
   Target: a streaming row at most 1.25x its problem.

    python benchmarks/rl_stream.py [--n 20] [--tasks a,b] [--audit 100000] [--suite DIR] [--processes 2]
                                   [--skip-audit] [--skip-speed] [--profile TASK] [--rows [--rows-condition C]]
"""

from __future__ import annotations

import argparse
import cProfile
import multiprocessing as mp
import pstats
import statistics
import tempfile
import time
from collections import Counter
from pathlib import Path

from vcot.build import build_suite, preset_plans
from vcot.rl import excluded_keys, stream
from vcot.rl.problems import configured_task
from vcot.suite import EncodedSample, read_suite
from vcot.tasks import get_task, task_names

THREE_D = ("object_attributes", "compositional_3d")
TARGET_2D, TARGET_3D = 100.0, 10.0


class _Parts:
    """CPU seconds in the task's scene drawing and picture drawing, by wrapping the configured task's methods
    (the stream's task objects are cached, so the wrappers see every draw)."""

    def __init__(self, task) -> None:
        self.spent = {"scene": 0.0, "picture": 0.0}
        self._task = task
        # The rejection loop (sampling and solving, rejected draws included) and the input picture; wrapping
        # sample_scene and solve instead would count a solve called inside sample_scene twice.
        self._methods = {"_accept": "scene", "render_input": "picture"}
        for method, part in self._methods.items():
            setattr(task, method, self._timed(getattr(task, method), part))

    def _timed(self, fn, part):
        def wrapper(*args, **kwargs):
            t0 = time.process_time()
            try:
                return fn(*args, **kwargs)
            finally:
                self.spent[part] += time.process_time() - t0

        return wrapper

    def restore(self) -> None:
        for method in self._methods:
            delattr(self._task, method)  # the class's own method shows through again


def speed(names: list[str], n: int) -> dict[str, float]:
    print(f"per task, one core, {n} problems each (CPU time); picture = input only (condition direct)")
    print(
        f"  {'task':24s} {'rl p/s':>8s} {'ms/prob':>8s} {'gen i/s':>8s} {'ratio':>6s}   {'scene':>6s} "
        f"{'picture':>7s} {'rest':>6s}"
    )
    rates = {}
    for name in names:
        s = stream(name, seed=1)
        s[0]  # warm fonts, caches and the configured task
        task = configured_task(name)
        parts = _Parts(task)
        t0 = time.process_time()
        for i in range(1, n + 1):
            s[i]
        dt = time.process_time() - t0
        parts.restore()
        gen = get_task(name)
        gen.make(0, 999)
        t1 = time.process_time()
        for i in range(n):
            EncodedSample.from_sample(gen.make(i, 1))
        gdt = time.process_time() - t1
        share = {k: 100 * v / dt for k, v in parts.spent.items()}
        rest = 100 - share["scene"] - share["picture"]
        rates[name] = n / dt
        print(
            f"  {name:24s} {n / dt:8.1f} {1000 * dt / n:8.1f} {n / gdt:8.1f} {gdt / dt:5.1f}x   "
            f"{share['scene']:5.0f}% {share['picture']:6.0f}% {rest:5.0f}%",
            flush=True,
        )
    two_d = [r for t, r in rates.items() if t not in THREE_D]
    if two_d:
        med = statistics.median(two_d)
        verdict = "met" if med >= TARGET_2D else f"MISSED by {100 * (1 - med / TARGET_2D):.0f} %"
        print(f"  median 2D task: {med:.1f} problems/s (target {TARGET_2D:.0f}): {verdict}")
    for t in THREE_D:
        if t in rates:
            r = rates[t]
            verdict = "met" if r >= TARGET_3D else f"MISSED by {100 * (1 - r / TARGET_3D):.0f} %"
            print(f"  {t}: {r:.1f} problems/s (target {TARGET_3D:.0f}): {verdict}")
    return rates


def _audit_part(args: tuple[dict, list[str], int, int, int]) -> tuple[int, int, Counter[str]]:
    keys, names, start, stop, seed = args
    s = stream(names, seed=seed, exclude=keys)
    hits = 0
    redraws: Counter[str] = Counter()
    for i in range(start, stop):
        task, key, r = s.audit(i)
        hits += key in keys.get(task, ())
        redraws[task] += r
    return stop - start, hits, redraws


def audit(suite_dir: Path | None, n: int, processes: int, seed: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        if suite_dir is None:
            suite_dir = Path(tmp) / "mira-synth"
            t0 = time.perf_counter()
            build_suite(suite_dir, "mira-synth", preset_plans("mira-synth"), processes=processes)
            print(f"built mira-synth in {time.perf_counter() - t0:.0f} s")
        suite = read_suite(suite_dir, check_images="none")
        names = sorted({i.task for i in suite.instances}, key=task_names().index)
        keys = excluded_keys(suite, names)
        print(
            f"exclusion audit: {sum(map(len, keys.values()))} scenes of {suite_dir.name} over {len(names)} tasks; "
            f"{n} streamed problems (seed {seed}) of the same tasks with exclude="
        )
        bounds = [n * k // (processes * 8) for k in range(processes * 8 + 1)]
        jobs = [(keys, names, a, b, seed) for a, b in zip(bounds, bounds[1:], strict=False) if b > a]
        t0 = time.perf_counter()
        if processes > 1:
            with mp.get_context().Pool(processes) as pool:
                results = pool.map(_audit_part, jobs)
        else:
            results = [_audit_part(j) for j in jobs]
        done = sum(r[0] for r in results)
        hits = sum(r[1] for r in results)
        redraws = sum((r[2] for r in results), Counter())
        print(
            f"  {done} problems audited in {time.perf_counter() - t0:.0f} s: {sum(redraws.values())} draws hit a "
            f"suite scene and were drawn again; streamed problems sharing a scene with the suite: {hits}"
        )
        if redraws:
            print("  redrawn per task: " + ", ".join(f"{t} {k}" for t, k in redraws.most_common() if k))
        # Independent check on fully made problems: keys as `vcot overlap` computes them.
        from vcot.validate import scene_keys

        overlap = {key for (_, key) in scene_keys(suite)} | {k for v in keys.values() for k in v}
        s = stream(names, seed=seed, exclude=suite)
        sample = min(n, 10 * len(names))
        shared = sum(get_task(p.task).scene_key(p.instance.meta["scene"]) in overlap for p in s.take(sample))
        print(f"  {sample} fully made problems: {shared} share a scene with the suite")


def profile(name: str, n: int) -> None:
    s = stream(name, seed=1)
    s[0]
    pr = cProfile.Profile()
    pr.enable()
    for i in range(1, n + 1):
        s[i]
    pr.disable()
    print(f"profile of {n} problems of {name} (cumulative, top 18):")
    pstats.Stats(pr).sort_stats("cumulative").print_stats(18)


ROW_TARGET = 1.25  # a trainer's row may cost at most this many times the stream problem it wraps (issue 43)


def rows(names: list[str], n: int, condition: str) -> None:
    """Per task, CPU time of a stream problem against the rows wrapping it: TRL's streaming dataset (what
    GRPOTrainer reads), the environment core's reset on it (`VcotEnv`), TRL's fixed-size Arrow dataset and verl's
    Parquet row (both encode each picture to PNG, which Arrow needs)."""
    print(f"rows against stream problems, {n} problems per task, condition {condition} (CPU ms per problem)")
    print(f"  {'task':24s} {'stream':>7s} {'trl it':>7s} {'env':>7s} {'trl ds':>7s} {'verl':>7s}   trl it/stream")
    # trl it: vcot.rl.trl.iterable_dataset; env: VcotEnv.reset; trl ds: vcot.rl.trl.dataset; verl: verl_row
    worst = dict.fromkeys(("trl it", "env", "trl ds", "verl"), 0.0)
    for name in names:
        base, *costs = _row_costs(name, n, condition)
        for key, cost in zip(worst, costs, strict=True):
            worst[key] = max(worst[key], cost / base)
        print(f"  {name:24s} {base:7.1f} " + " ".join(f"{c:7.1f}" for c in costs) + f"   {costs[0] / base:5.2f}x")
    for key, ratio in worst.items():
        verdict = "met" if ratio <= ROW_TARGET else "NOT met"
        print(f"  {key:7s} row at most {ratio:.2f}x its stream problem (target {ROW_TARGET}x): {verdict}")


def _row_costs(name: str, n: int, condition: str) -> tuple[float, float, float, float, float]:
    import itertools

    from vcot.rl.env import VcotEnv
    from vcot.rl.trl import dataset, iterable_dataset
    from vcot.rl.verl import verl_row

    def clock(fn) -> float:
        t0 = time.process_time()
        fn()
        return 1000 * (time.process_time() - t0) / n

    def env_resets() -> None:
        env = VcotEnv([name], condition=condition, seed=1)
        for _ in range(n):
            env.reset()

    # Warm the task's caches and datasets' first-use set-up, so neither is charged to one column.
    clock(lambda: stream(name, seed=1, condition=condition).take(2))
    clock(lambda: list(itertools.islice(iter(iterable_dataset([name], seed=2, condition=condition)), 2)))
    base = clock(lambda: stream(name, seed=1, condition=condition).take(n))
    it = clock(lambda: list(itertools.islice(iter(iterable_dataset([name], seed=1, condition=condition)), n)))
    env_ms = clock(env_resets)
    fixed = clock(lambda: dataset(n, [name], seed=1, condition=condition))
    problems = stream(name, seed=1, condition=condition).take(n)
    verl_ms = base + clock(lambda: [verl_row(p, split="train", index=i) for i, p in enumerate(problems)])
    return base, it, env_ms, fixed, verl_ms


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=20)
    parser.add_argument("--tasks", default="")
    parser.add_argument("--audit", type=int, default=100_000)
    parser.add_argument("--suite", type=Path, default=None)
    parser.add_argument("--processes", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--skip-audit", action="store_true")
    parser.add_argument("--skip-speed", action="store_true")
    parser.add_argument("--profile", default="")
    parser.add_argument("--rows", action="store_true", help="also time trainer rows against stream problems")
    parser.add_argument("--rows-condition", default="vaot")
    args = parser.parse_args()
    names = [t for t in args.tasks.split(",") if t] or [t for t in task_names() if t != "toy_dots"]
    if not args.skip_speed:
        speed(names, args.n)
    if args.rows:
        rows(names, args.n, args.rows_condition)
    if args.profile:
        profile(args.profile, args.n)
    if not args.skip_audit:
        audit(args.suite, args.audit, args.processes, args.seed)


if __name__ == "__main__":
    main()
