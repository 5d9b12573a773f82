"""Harness benchmark (docs/evaluation.md, "Engine"): wall time against the ideal N·L/C and the harness's CPU per request.

N visual_cot requests (input image + two step images each) go through the real engine and the official
openai client over HTTP to the local mock server, which runs in another process with a fixed latency L.
CPU time is this process's (all its threads), from the start of the run (suite read, client set-up) to
the results table; module imports happen before and the server's CPU is not counted.

    python benchmarks/harness.py                      # 2,000 requests, L = 1 s, C = 64
    python benchmarks/harness.py --requests 500 --latency 0.5 --concurrency 32
"""

from __future__ import annotations

import argparse
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

from PIL import Image, ImageDraw

import vcot.engine.clients.openai_compat  # noqa: F401 - import cost is once per process, not per request
from vcot.engine.mock_server import spawn_mock_server
from vcot.engine.runner import EvalSpec, run_eval
from vcot.schema import AnswerType, Instance, Step
from vcot.suite import write_suite
from vcot.tasks.base import Sample


def _picture(rng: random.Random, size: tuple[int, int]) -> Image.Image:
    """A scene-like picture (flat background, shapes, lines) so PNG sizes resemble generated suites."""
    img = Image.new("RGB", size, (245, 245, 240))
    d = ImageDraw.Draw(img)
    for _ in range(30):
        x, y = rng.randrange(size[0]), rng.randrange(size[1])
        r = rng.randrange(5, 40)
        colour = (rng.randrange(256), rng.randrange(256), rng.randrange(256))
        if rng.random() < 0.5:
            d.ellipse([x - r, y - r, x + r, y + r], fill=colour, outline=(0, 0, 0))
        else:
            d.line([x, y, rng.randrange(size[0]), rng.randrange(size[1])], fill=colour, width=3)
    return img


def build_suite(out: Path, n_instances: int, size: tuple[int, int]) -> Path:
    rng = random.Random(7)
    samples = []
    for i in range(n_instances):
        uid = f"bench-{i:05d}"
        stem = f"images/rolling_dice_top/{uid}"
        images = {f"{stem}.png": _picture(rng, size), f"{stem}_step1.png": _picture(rng, size),
                  f"{stem}_step2.png": _picture(rng, size)}
        inst = Instance(uid=uid, task="rolling_dice_top", domain="CT",
                        question=f"The die rolls along path {i}. Which number is on top at the end?",
                        image=f"{stem}.png", answer=str(rng.randint(1, 6)), answer_type=AnswerType.INTEGER,
                        steps=[Step(image=f"{stem}_step1.png", text="after the first roll"),
                               Step(image=f"{stem}_step2.png", text="after the second roll")])
        samples.append(Sample(inst, images))
    write_suite(out, "harness-bench", samples)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--requests", type=int, default=2000)
    ap.add_argument("--latency", type=float, default=1.0)
    ap.add_argument("--concurrency", type=int, default=64)
    ap.add_argument("--instances", type=int, default=200, help="distinct instances; epochs cover the rest")
    ap.add_argument("--size", type=int, nargs=2, default=(1024, 768), metavar=("W", "H"))
    args = ap.parse_args(argv)
    if args.requests % args.instances:
        ap.error("--requests must be a multiple of --instances")
    epochs = args.requests // args.instances

    work = Path(tempfile.mkdtemp(prefix="vcot-harness-"))
    try:
        suite = build_suite(work / "suite", args.instances, tuple(args.size))
        nbytes = sum(p.stat().st_size for p in (suite / "images").rglob("*.png"))
        server = spawn_mock_server(suite, "--latency", str(args.latency), "--p", "0.5")
        try:
            spec = EvalSpec(suite=suite, model="mock", base_url=server.base_url, conditions=["visual_cot"],
                            epochs=epochs, concurrency=args.concurrency, run_dir=work / "run", tag_requests=True)
            wall0, cpu0 = time.perf_counter(), time.process_time()
            result = run_eval(spec)
            wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
            stats = server.stats()
        finally:
            server.stop()
    finally:
        shutil.rmtree(work, ignore_errors=True)

    n = result.progress.done
    ideal = args.requests * args.latency / args.concurrency
    print(f"requests        {n} answered, {result.progress.errors} failed (visual_cot: 3 images each, "
          f"{nbytes / (3 * args.instances) / 1024:.0f} KiB per PNG on average)")
    print(f"server          {stats['requests']} requests received, peak {stats['max_inflight']} in flight")
    print(f"wall time       {wall:.2f} s   ideal N·L/C = {ideal:.2f} s   overhead {100 * (wall / ideal - 1):+.1f}%"
          f"   (target within 10%)")
    print(f"harness CPU     {1000 * cpu / max(n, 1):.2f} ms per request   (target ≤ 5 ms; {cpu:.2f} s total)")
    ok = n == args.requests and wall <= 1.10 * ideal and 1000 * cpu / max(n, 1) <= 5.0
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
