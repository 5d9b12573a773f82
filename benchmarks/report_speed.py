"""Command speed (issue 19): `vcot report` against the number of responses, and `vcot quickstart`.

Each figure is the wall time of the real command in a child process (interpreter start and imports
included), on runs of the built-in chance model over mira-synth under `direct` with as many epochs as the
response count needs, with and without `--suite` (which adds the suite's audit and the thumbnails of the
instance browser; twice: with an empty thumbnail cache, then with the cache the first filled). Quickstart
starts with an empty cache; its own split between its steps is printed beside its time. Targets: a report of 567
responses in ≤ 2 s, growing linearly; quickstart ≤ 10 s.

    python benchmarks/report_speed.py                         # 566, 5,660 and 50,374 responses; quickstart
    python benchmarks/report_speed.py --suite SUITE --responses 566 --no-quickstart
"""

from __future__ import annotations

import argparse
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

VCOT = [sys.executable, "-m", "vcot.cli"]


def timed(cmd: list[str], cwd: Path | None = None, cache: Path | None = None) -> float:
    """Wall time of `cmd`; its thumbnail cache (vcot.analysis.thumbnails) is `cache`, or none at all."""
    env = {**os.environ, "VCOT_CACHE_DIR": str(cache) if cache is not None else ""}
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=cwd, env=env)
    return time.perf_counter() - t0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--suite", type=Path, help="a mira-synth suite folder (default: generate one)")
    ap.add_argument("--responses", type=int, nargs="+", default=[566, 5660, 50374])
    ap.add_argument("--no-quickstart", action="store_true")
    args = ap.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="vcot-report-speed-"))
    try:
        suite = args.suite
        if suite is None:
            suite = work / "mira-synth"
            subprocess.run(
                [*VCOT, "generate", "--preset", "mira-synth", "-j", "2", "--no-progress", "--out", str(suite)],
                check=True,
                stdout=subprocess.DEVNULL,
            )
        n_instances = sum(1 for line in (suite / "instances.jsonl").read_text().splitlines() if line.strip())
        for n in args.responses:
            epochs = max(1, math.ceil(n / n_instances))
            run = work / f"run-{n}"
            subprocess.run(
                [
                    *VCOT,
                    "eval",
                    str(suite),
                    "--model",
                    "chance",
                    "-c",
                    "direct",
                    "--epochs",
                    str(epochs),
                    "--run",
                    str(run),
                    "--no-progress",
                ],
                check=True,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            got = n_instances * epochs
            wall = timed([*VCOT, "report", str(run), "--out", str(work / f"report-{n}")])
            print(f"report  {got:6d} responses  {wall:6.2f} s  ({1e3 * wall / got:.3f} ms per response)", flush=True)
            # With --suite the report also audits the suite and embeds thumbnails of up to 300 instances: made
            # on a first report (an empty cache), read from the cache on the next ones.
            cache = work / f"cache-{n}"
            for state in ("made", "cached"):
                wall = timed(
                    [*VCOT, "report", str(run), "--suite", str(suite), "--out", str(work / f"report-s-{n}")],
                    cache=cache,
                )
                print(
                    f"report  {got:6d} responses  {wall:6.2f} s  with --suite (audit and instance browser; "
                    f"thumbnails {state})",
                    flush=True,
                )
        if not args.no_quickstart:
            qs = work / "qs"
            qs.mkdir()
            t0 = time.perf_counter()
            done = subprocess.run(
                [*VCOT, "quickstart", "--no-progress"],
                check=True,
                capture_output=True,
                text=True,
                cwd=qs,
                env={**os.environ, "VCOT_CACHE_DIR": str(work / "cache-qs")},
            )
            wall = time.perf_counter() - t0
            # Its last line splits the time between its steps (interpreter start and imports come on top).
            split = [line for line in done.stdout.splitlines() if line.startswith("took ")]
            print(f"quickstart          {wall:6.2f} s  (target ≤ 10 s)  {split[-1] if split else ''}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
