"""Harness benchmark (docs/engine.md, "Performance"): the `vcot eval` command against the ideal wall time N·L/C.

Each measurement runs the real command (`python -m vcot.cli eval ...`) in a child process against the local
mock server (another process) with a fixed latency L and C requests in flight, and reports:

- start-up: from the command's start to the first request the server receives, printed beside the time a
  fresh interpreter takes to import the `openai` SDK (median of three), the floor it cannot go under (target:
  first request within the SDK's import + 0.3 s);
- CPU per request: the command's user + system CPU (all threads, imports and start-up included) / N;
- wall against ideal: the command's wall time (start-up and the results file included) / (N·L/C);
- peak RSS of the command.

Two workloads, both N = 1,698 requests by default:

- `mira`: the mira-synth suite under direct, text_cot and visual_cot (566 × 3; an input image is sent under
  each condition, so two of its three encodings are cache hits, as in a real run);
- `fresh`: a synthetic suite of N instances (input + two step pictures, 768×576, shapes and lines like
  generated pictures) under visual_cot only: every request carries three images never sent before.

    python benchmarks/harness.py                                  # both workloads, the three (L, C) settings
    python benchmarks/harness.py --workload fresh --setting 0.5,64
    python benchmarks/harness.py --startup-instances 100000       # also: start-up on a 100,000-instance suite
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from PIL import Image, ImageDraw

from vcot.engine.mock import spawn_mock_server
from vcot.schema import AnswerType, Instance, Step
from vcot.suite import write_suite
from vcot.tasks.base import Sample

SETTINGS = ((0.5, 64), (2.0, 256), (0.0, 64))


def _picture(rng: random.Random, size: tuple[int, int]) -> Image.Image:
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


def fresh_suite(out: Path, n: int, size: tuple[int, int] = (768, 576), steps: int = 2) -> Path:
    """N instances whose pictures are all distinct."""
    rng = random.Random(7)

    def samples():
        for i in range(n):
            uid = f"bench-{i:06d}"
            stem = f"images/rolling_dice_top/{uid}"
            images = {f"{stem}.png": _picture(rng, size)}
            step_list = []
            for k in range(1, steps + 1):
                images[f"{stem}_step{k}.png"] = _picture(rng, size)
                step_list.append(Step(image=f"{stem}_step{k}.png", text=f"after roll {k}"))
            yield Sample(
                Instance(
                    uid=uid,
                    task="rolling_dice_top",
                    domain="CT",
                    question=f"The die rolls along path {i}. Which number is on top at the end?",
                    image=f"{stem}.png",
                    answer=str(rng.randint(1, 6)),
                    answer_type=AnswerType.INTEGER,
                    steps=step_list,
                ),
                images,
            )

    write_suite(out, "harness-fresh", samples())
    return out


def mira_suite(out: Path) -> Path:
    subprocess.run(
        [*_vcot_command(None), "generate", "--preset", "mira-synth", "-j", "2", "--no-progress", "--out", str(out)],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    return out


def _process_cpu(pid: int) -> float:
    """User + system CPU seconds of a running process (Linux /proc; NaN elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return float("nan")


def _vcot_command(vcot_src: Path | None) -> list[str]:
    # `python -m vcot` is the console entry (imports with the collector paused); older checkouts lack it.
    src = vcot_src or Path(__file__).resolve().parents[1] / "src"
    return [sys.executable, "-m", "vcot" if (src / "vcot" / "__main__.py").exists() else "vcot.cli"]


def run_command(
    suite: Path,
    conditions: str,
    latency: float,
    concurrency: int,
    work: Path,
    stop_after_first: bool = False,
    vcot_src: Path | None = None,
    limit: int | None = None,
) -> dict[str, float]:
    """One `vcot eval` in a child process; its rusage comes from wait4. `vcot_src` runs the command from
    another checkout's `src` folder (a before/after comparison in one sitting; the mock server stays this one)."""
    server = spawn_mock_server(suite, "--latency", str(latency), "--correct-rate", "0.5")
    run_dir = work / f"run-{time.monotonic_ns()}"
    cmd = [
        *_vcot_command(vcot_src),
        "eval",
        str(suite),
        "--model",
        "mock",
        "--base-url",
        server.base_url,
        "-c",
        conditions,
        "--concurrency",
        str(concurrency),
        "--run",
        str(run_dir),
        "--tag-requests",
        "--no-progress",
        *(["--limit", str(limit)] if limit else []),
    ]
    try:
        t0 = time.time()
        env = {**os.environ, "PYTHONPATH": str(vcot_src)} if vcot_src else None
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
        if stop_after_first:
            while server.stats()["first_request_at"] is None and proc.poll() is None:
                time.sleep(0.01)
            proc.kill()
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.time() - t0
        err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
        if not stop_after_first and os.waitstatus_to_exitcode(status) not in (0, 1):
            raise RuntimeError(f"vcot eval failed: {err[-2000:]}")
        stats = server.stats()
        server_cpu = _process_cpu(server.proc.pid)
    finally:
        server.stop()
        shutil.rmtree(run_dir, ignore_errors=True)
    return measures(t0, wall, usage, stats, server_cpu)


def measures(t0: float, wall: float, usage: Any, stats: dict[str, Any], server_cpu: float) -> dict[str, Any]:
    """One command's figures from its start time, wall time and wait4 rusage and the mock server's stats."""
    first, last = stats["first_request_at"], stats.get("last_reply_at")
    return {
        "startup": (first - t0) if first else float("nan"),
        "wall": wall,
        "closing": (t0 + wall - last) if last else float("nan"),
        "cpu": usage.ru_utime + usage.ru_stime,
        "rss_mb": usage.ru_maxrss / 1024,
        "requests": stats["requests"],
        "ok": stats["status"].get("200", 0),
        "server_cpu": server_cpu,
    }


def sdk_import_time(runs: int = 3) -> float:
    """Seconds a fresh interpreter takes to import the openai SDK (median of `runs`): every OpenAI-compatible
    request needs it, so the start-up to the first request is measured against it."""
    code = "import time; t = time.perf_counter(); import openai; print(time.perf_counter() - t)"
    times = sorted(
        float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)
        for _ in range(runs)
    )
    return times[len(times) // 2]


def compile_sources(vcot_src: Path | None) -> None:
    """Write the bytecode of the vcot being timed, as an installed package has it: with PYTHONDONTWRITEBYTECODE
    set (as on some machines) an editable checkout is compiled from source at every start, 80 ms or more."""
    import compileall

    compileall.compile_dir(str((vcot_src or Path(__file__).resolve().parents[1] / "src") / "vcot"), quiet=1)


def paired_startup(suite: Path, runs: int, work: Path, vcot_src: Path | None) -> None:
    """`runs` pairs of (SDK import in a fresh interpreter, the command's start-up to its first request), one
    right after the other, so both see the same state of a shared machine; the margin over the SDK's import
    is given per pair, with its median and minimum."""
    margins = []
    for _ in range(runs):
        sdk_s = sdk_import_time(1)
        m = run_command(suite, "direct", 1.0, 64, work, stop_after_first=True, vcot_src=vcot_src)
        margins.append(m["startup"] - sdk_s)
        print(
            f"start  SDK import {sdk_s:.2f} s, first request at {m['startup']:.2f} s: {m['startup'] - sdk_s:+.2f}",
            flush=True,
        )
    ordered = sorted(margins)
    print(
        f"start  first request after the SDK's import, {runs} pairs: median {ordered[len(ordered) // 2]:+.2f} s, "
        f"minimum {ordered[0]:+.2f} s (target ≤ +0.30)",
        flush=True,
    )


def report(
    name: str, n: int, latency: float, concurrency: int, m: dict[str, float], sdk_s: float | None = None
) -> None:
    ideal = n * latency / concurrency
    # The wall splits into start-up (to the first request), the requests (to the last reply) and the closing
    # (results file, summary table, exit); the requests alone against the ideal are what the request path costs.
    requests = m["wall"] - m["startup"] - m["closing"]
    vs = (
        (
            f"{m['wall'] / ideal:.2f}× ideal ({ideal:.2f} s; requests {requests / ideal:.2f}×, closing "
            f"{m['closing']:.2f} s)"
        )
        if ideal
        else f"no ideal at L = 0 (closing {m['closing']:.2f} s)"
    )
    per = 1000 / max(m["requests"], 1)
    sdk = f" (SDK import {sdk_s:.2f} s, {m['startup'] - sdk_s:+.2f})" if sdk_s is not None else ""
    print(
        f"{name:6} L={latency:<4g} C={concurrency:<4d} N={m['requests']:<5d} ok={m['ok']:<5d} "
        f"start-up {m['startup']:5.2f} s{sdk}  wall {m['wall']:6.2f} s = {vs:44}  "
        f"CPU {per * m['cpu']:5.2f} ms/request (server {per * m['server_cpu']:4.2f})  "
        f"peak RSS {m['rss_mb']:5.0f} MB",
        flush=True,
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workload", choices=("mira", "fresh", "both"), default="both")
    ap.add_argument("--suite", type=Path, help="a mira-synth suite folder (default: generate one)")
    ap.add_argument(
        "--setting",
        action="append",
        metavar="L,C",
        help="latency (s) and concurrency; repeatable (default: 0.5,64  2,256  0,64)",
    )
    ap.add_argument("--fresh-requests", type=int, default=1698)
    ap.add_argument("--fresh-suite", type=Path, help="reuse a fresh-workload suite written by an earlier run")
    ap.add_argument("--vcot-src", type=Path, help="run `vcot eval` from this checkout's src folder (before/after)")
    ap.add_argument("--startup-suite", type=Path, help="measure the start-up on this (large) suite too")
    ap.add_argument(
        "--startup-instances",
        type=int,
        default=0,
        help="also measure start-up on a synthetic suite of this many instances (e.g. 100000)",
    )
    ap.add_argument(
        "--startup-runs",
        type=int,
        default=0,
        metavar="K",
        help="also K paired start-up measurements on the mira suite: the SDK's import in a fresh "
        "interpreter, then the command to its first request (a shared machine's noise is "
        "larger than the margin)",
    )
    ap.add_argument(
        "--marginal",
        action="store_true",
        help="also the marginal CPU per request of the fresh workload (two runs, N/2 and N)",
    )
    args = ap.parse_args(argv)
    settings = [tuple(float(x) for x in s.split(",")) for s in args.setting] if args.setting else SETTINGS
    work = Path(tempfile.mkdtemp(prefix="vcot-harness-"))
    compile_sources(args.vcot_src)
    sdk_s = sdk_import_time()
    print(
        f"openai SDK import in a fresh interpreter: {sdk_s:.2f} s (median of 3); target: first request "
        f"within {sdk_s + 0.3:.2f} s",
        flush=True,
    )
    try:
        if args.workload in ("mira", "both"):
            suite = args.suite or mira_suite(work / "mira-synth")
            for latency, conc in settings:
                m = run_command(suite, "direct,text_cot,visual_cot", latency, int(conc), work, vcot_src=args.vcot_src)
                report("mira", m["requests"], latency, int(conc), m, sdk_s)
        if args.startup_runs:
            suite = args.suite or mira_suite(work / "mira-synth")
            paired_startup(suite, args.startup_runs, work, args.vcot_src)
        if args.workload in ("fresh", "both"):
            suite = args.fresh_suite or fresh_suite(work / "fresh", args.fresh_requests)
            for latency, conc in settings:
                m = run_command(suite, "visual_cot", latency, int(conc), work, vcot_src=args.vcot_src)
                report("fresh", m["requests"], latency, int(conc), m, sdk_s)
        if args.marginal:
            # The slope between a run of half the requests and the full run: CPU per request without the
            # start-up and the closing work, which do not grow with N.
            suite = args.fresh_suite or fresh_suite(work / "fresh", args.fresh_requests)
            n_full = sum(1 for line in (suite / "instances.jsonl").read_text().splitlines() if line.strip())
            half = run_command(suite, "visual_cot", 0.0, 64, work, vcot_src=args.vcot_src, limit=n_full // 2)
            full = run_command(suite, "visual_cot", 0.0, 64, work, vcot_src=args.vcot_src)
            slope = (full["cpu"] - half["cpu"]) / max(full["requests"] - half["requests"], 1)
            fixed = full["cpu"] - slope * full["requests"]
            print(
                f"fresh  marginal CPU {1000 * slope:.2f} ms/request (L=0, C=64, N={half['requests']} and "
                f"{full['requests']}); fixed part {fixed:.2f} s (start-up and closing)",
                flush=True,
            )
        if args.startup_suite:
            m = run_command(args.startup_suite, "direct", 1.0, 64, work, stop_after_first=True, vcot_src=args.vcot_src)
            print(
                f"large  start-up to the first request on {args.startup_suite.name}: {m['startup']:.2f} s "
                f"(SDK import {sdk_s:.2f} s)"
            )
        if args.startup_instances:
            t0 = time.perf_counter()
            suite = fresh_suite(work / "large", args.startup_instances, size=(64, 48), steps=0)
            print(f"large suite of {args.startup_instances} instances written in {time.perf_counter() - t0:.0f} s")
            m = run_command(suite, "direct", 1.0, 64, work, stop_after_first=True, vcot_src=args.vcot_src)
            print(f"large  start-up to the first request: {m['startup']:.2f} s (target ≤ 2 s)")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
