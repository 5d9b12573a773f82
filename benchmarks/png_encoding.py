"""PNG encoding per task: Pillow's encoder (adaptive filtering) against vcot's fast writer (one fixed Up
filter, ISA-L level 1), on every picture of a few instances per task (question, step and corrupted-step
pictures). Every fast-written file is decoded and compared with the source pixels.

    python benchmarks/png_encoding.py [--n 5]
"""

from __future__ import annotations

import argparse
import time

from vcot.draw import png
from vcot.tasks import get_task, task_names


def _time(fn, images) -> tuple[float, int]:
    t0 = time.process_time()
    size = sum(len(fn(im)) for im in images)
    return time.process_time() - t0, size


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=5)
    args = parser.parse_args()
    if not png.fast_png_available():
        raise SystemExit("isal is not installed: only Pillow's encoder is available")
    print(f"{args.n} instances per task, every picture, CPU ms per picture; size = fast / Pillow bytes")
    print(f"  {'task':24s} {'pics':>5s} {'Pillow':>7s} {'fast':>6s} {'speed-up':>8s} {'size':>6s}  lossless")
    totals = {"pics": 0, "slow": 0.0, "fast": 0.0, "slow_b": 0, "fast_b": 0}
    worst = 0.0
    for name in task_names():
        task = get_task(name)
        images = [im for i in range(args.n) for im in task.make(i, 1).images.values()]
        slow, slow_b = _time(png.encode_png_pillow, images)
        fast, fast_b = _time(png.encode_png, images)
        lossless = all(png.decode_png(png.encode_png(im)).tobytes() == im.tobytes() for im in images)
        worst = max(worst, fast_b / slow_b)
        for key, value in (
            ("pics", len(images)),
            ("slow", slow),
            ("fast", fast),
            ("slow_b", slow_b),
            ("fast_b", fast_b),
        ):
            totals[key] += value
        print(
            f"  {name:24s} {len(images):5d} {1000 * slow / len(images):7.1f} {1000 * fast / len(images):6.1f} "
            f"{slow / fast:7.1f}x {fast_b / slow_b:6.2f}  {'yes' if lossless else 'NO'}",
            flush=True,
        )
    n = totals["pics"]
    print(
        f"  {'all':24s} {n:5d} {1000 * totals['slow'] / n:7.1f} {1000 * totals['fast'] / n:6.1f} "
        f"{totals['slow'] / totals['fast']:7.1f}x {totals['fast_b'] / totals['slow_b']:6.2f}"
    )
    print(f"  largest per-task size ratio: {worst:.2f}")


if __name__ == "__main__":
    main()
