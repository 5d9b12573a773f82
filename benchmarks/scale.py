"""Sharded generation at scale (docs/scale.md): instances/s and peak RSS of a mixed plan of cheap tasks
streamed to Parquet shards at each size, and the speed-up from 1 to 2 processes.

Every measurement runs in a fresh Python process, so one run's memory cannot leak into the next; peak RSS
is the largest resident set of any one process of the run (the driver or a shard worker). Shards hold a
fixed number of instances (`--shard-size`), so a larger N means more shards, not larger ones.

    nice -n 10 python benchmarks/scale.py [--sizes 10000 100000] [--speedup-n 10000] [--processes 2]
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# Cheap tasks (tens of ms per instance, benchmarks/generation.py) with large scene spaces, mixed evenly.
MIX = (("localizer", "easy"), ("mirror_pattern", "easy"), ("defuse_a_bomb", "medium"), ("multi_piece_puzzle", "easy"))


def plans(n: int, seed: int = 0) -> list:
    from vcot.build import TaskPlan

    share, extra = divmod(n, len(MIX))
    return [TaskPlan(task, share + (k < extra), seed, difficulty) for k, (task, difficulty) in enumerate(MIX)]


def one(n: int, processes: int, shard_size: int, out: str, fmt: str) -> dict:
    """One run in this process: generate, then report wall time and peak RSS (this process and its children)."""
    from vcot.shards import generate_shards

    shards = max(1, -(-n // shard_size))
    t0 = time.perf_counter()
    manifest = generate_shards(out, "scale-bench", plans(n), shards, fmt, processes=processes)
    wall = time.perf_counter() - t0
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    self_kib, child_kib = me.ru_maxrss, kids.ru_maxrss
    cpu = me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime
    size = sum(e["bytes"] for e in manifest["shards"])
    return {
        "n": manifest["total"],
        "processes": processes,
        "shards": shards,
        "wall_s": wall,
        "inst_per_s": manifest["total"] / wall,
        "cpu_s": cpu,
        "peak_rss_mib": max(self_kib, child_kib) / 1024,
        "driver_rss_mib": self_kib / 1024,
        "bytes": size,
        "shard_hashes": [e["sha256"] for e in manifest["shards"]],
    }


def measure(n: int, processes: int, shard_size: int, fmt: str) -> dict:
    tmp = Path(tempfile.mkdtemp(prefix="vcot-scale-"))
    try:
        cmd = [sys.executable, __file__, "--one", str(n), str(processes), str(shard_size), str(tmp / "set"), fmt]
        res = subprocess.run(cmd, capture_output=True, text=True, check=True)
        return json.loads(res.stdout.strip().splitlines()[-1])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def report(r: dict) -> None:
    print(
        f"  N={r['n']:>7} processes={r['processes']} shards={r['shards']:>4}: {r['wall_s']:8.1f} s, "
        f"{r['inst_per_s']:6.1f} inst/s, {r['cpu_s']:.0f} CPU-s, peak RSS {r['peak_rss_mib']:6.1f} MiB (driver "
        f"{r['driver_rss_mib']:.1f}), "
        f"{r['bytes'] / 1e6:.0f} MB",
        flush=True,
    )


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--one":
        n, processes, shard_size, out, fmt = sys.argv[2:7]
        print(json.dumps(one(int(n), int(processes), int(shard_size), out, fmt)))
        return
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="*", default=[10_000, 100_000])
    parser.add_argument("--speedup-n", type=int, default=10_000, help="N for the 1 → 2 process comparison (0: skip)")
    parser.add_argument("--processes", type=int, default=2, help="processes for the size runs")
    parser.add_argument("--shard-size", type=int, default=1250)
    parser.add_argument("--format", default="parquet")
    parser.add_argument("--json", type=Path, help="also write the results here")
    args = parser.parse_args()
    mix = ", ".join(f"{t} ({d})" for t, d in MIX)
    print(f"mixed plan: {mix}; {args.format} shards of {args.shard_size} instances", flush=True)
    results: dict = {"sizes": [], "speedup": None}
    if args.speedup_n:
        print(f"1 → 2 processes at N={args.speedup_n}:", flush=True)
        runs = [measure(args.speedup_n, p, args.shard_size, args.format) for p in (1, 2)]
        for r in runs:
            report(r)
        same = runs[0]["shard_hashes"] == runs[1]["shard_hashes"]
        speedup = runs[0]["wall_s"] / runs[1]["wall_s"]
        print(f"  speed-up {speedup:.2f}x; identical shard hashes on 1 and 2 processes: {same}", flush=True)
        results["speedup"] = {"runs": runs, "speedup": speedup, "identical": same}
    print(f"sizes on {args.processes} processes:", flush=True)
    for n in args.sizes:
        done = [
            r for r in (results["speedup"] or {}).get("runs", []) if (r["n"], r["processes"]) == (n, args.processes)
        ]
        r = done[0] if done else measure(n, args.processes, args.shard_size, args.format)
        report(r)
        results["sizes"].append(r)
    if len(results["sizes"]) >= 2:
        rss = [r["peak_rss_mib"] for r in results["sizes"]]
        print(f"  peak RSS, largest / smallest N: {max(rss[1:]) / rss[0]:.3f}", flush=True)
    if args.json:
        for r in results["sizes"] + (results["speedup"] or {}).get("runs", []):
            r.pop("shard_hashes", None)
        args.json.write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
