"""Generation throughput: instances/second on one core per task, and whole-suite wall time on 1 and 2
processes (including PNG encoding and writing).

    python benchmarks/generation.py [--n 20] [--suite mira-synth] [--skip-suite]
"""

from __future__ import annotations

import argparse
import resource
import tempfile
import time
from pathlib import Path

from vcot.build import build_suite, preset_plans
from vcot.draw.png import _digest, encode_png_and_digest
from vcot.tasks import get_task, task_names


class _Clock:
    """CPU seconds spent in each part of making an instance, by wrapping the task's methods."""

    PARTS = ("sample", "solve", "draw", "encode", "digest")

    def __init__(self, task) -> None:
        self.spent = dict.fromkeys(self.PARTS, 0.0)
        for method, part in (("sample_scene", "sample"), ("solve", "solve"), ("render", "draw"), ("corrupt", "draw")):
            setattr(task, method, self._timed(getattr(task, method), part))

    def _timed(self, fn, part: str):
        def wrapper(*args, **kwargs):
            t0 = time.process_time()
            try:
                return fn(*args, **kwargs)
            finally:
                self.spent[part] += time.process_time() - t0

        return wrapper


def per_task(n: int) -> None:
    # sample: scene sampling, rejected attempts included; solve: the solver; draw: the input, step and
    # corrupted-step pictures (a task's `corrupt` also re-solves, counted here); encode: PNG encoding as a
    # suite writes it (`encode_png_and_digest`: the pixels copied out of Pillow once, filtered, compressed);
    # digest: the SHA-256 of those pixels that suite hashes are built on, timed again on its own and taken out
    # of the pair (the second timing is left out of the total).
    # Tasks spending over 30 % of their time outside encoding are flagged; docs/tasks/README.md ("Generation
    # time") says why each is as it is.
    print(f"per task, one core, {n} instances each (CPU time):")
    print(f"  {'task':24s} {'inst/s':>8s} {'ms/inst':>8s}  " + " ".join(f"{p:>7s}" for p in _Clock.PARTS))
    for name in task_names():
        task = get_task(name)
        task.make(0, 999)  # warm fonts and caches
        clock = _Clock(task)
        untimed = 0.0
        t0 = time.process_time()
        for i in range(n):
            sample = task.make(i, 1)
            for img in sample.images.values():
                t1 = time.process_time()
                encode_png_and_digest(img)
                t2 = time.process_time()
                rgb = img if img.mode == "RGB" else img.convert("RGB")
                raw = rgb.tobytes()
                t3 = time.process_time()
                _digest(rgb.mode, rgb.width, rgb.height, raw)
                t4 = time.process_time()
                clock.spent["encode"] += (t2 - t1) - (t4 - t3)
                clock.spent["digest"] += t4 - t3
                untimed += t4 - t2  # the copy and digest made only to time the digest apart
        dt = time.process_time() - t0 - untimed
        share = {k: 100 * v / dt for k, v in clock.spent.items()}
        flag = "  encoding over 25 %" if share["encode"] > 25 else ""
        print(
            f"  {name:24s} {n / dt:8.1f} {1000 * dt / n:8.1f}  "
            + " ".join(f"{share[k]:6.0f}%" for k in _Clock.PARTS)
            + flag,
            flush=True,
        )


def whole_suite(suite: str) -> None:
    plans = preset_plans(suite)
    total = sum(p.n for p in plans)
    print(f"suite {suite}: {total} instances over {len(plans)} tasks")
    hashes = []
    for processes in (1, 2):
        with tempfile.TemporaryDirectory() as tmp:
            t0 = time.perf_counter()
            manifest = build_suite(Path(tmp) / suite, suite, plans, processes=processes)
            wall = time.perf_counter() - t0
            hashes.append(manifest["content_hash"])
            print(f"  {processes} process(es): {wall:7.1f} s wall, {total / wall:6.1f} inst/s")
    print(f"  identical hash on 1 and 2 processes: {hashes[0] == hashes[1]}")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"  peak RSS of the main process: {peak:.0f} MiB")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=20)
    parser.add_argument("--suite", default="mira-synth")
    parser.add_argument("--skip-suite", action="store_true")
    args = parser.parse_args()
    per_task(args.n)
    if not args.skip_suite:
        whole_suite(args.suite)


if __name__ == "__main__":
    main()
