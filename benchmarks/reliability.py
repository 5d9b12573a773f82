"""Reliability benchmark (issue 18, docs/engine.md): a run under a fault matrix, killed with
SIGKILL several times and resumed, must finish every sample exactly once and never pay twice for a call
whose answer was already stored.

The local mock server (`vcot serve-mock`, real HTTP) injects, at the given rate, 429 with Retry-After, 500,
hangs past the client timeout, malformed JSON, bodies cut mid-way, dropped connections and hostile reply
texts (control bytes, a lone surrogate, markup, a 20,000-character line). `vcot eval` runs as a
subprocess; after a share of the samples is committed it is killed with SIGKILL, then rerun, `--kills`
times, and a last rerun finishes the job. Printed:

- samples expected / finished / lost / duplicated (finished once each: lost = duplicated = 0);
- for each kill: samples committed, calls in flight (sent but not committed: these may be sent again),
  and calls re-paid beyond those (a committed sample's call sent again after the kill: must be 0);
- hostile replies received, and whether the report shows any raw control byte or live markup (must not).

    python benchmarks/reliability.py                    # mini suite x 3 conditions x 2 epochs, 20% faults, 3 kills
    python benchmarks/reliability.py --epochs 1 --kills 1 --conditions direct   # quick
"""

from __future__ import annotations

import argparse
import os
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import pyarrow.parquet as pq

from vcot.build import build_suite, preset_plans
from vcot.engine.mock import FAULT_KINDS, spawn_mock_server
from vcot.engine.store import STORE_NAME
from vcot.tasks.catalog import MIRA_TASKS


def committed(run_dir: Path) -> set[tuple]:
    """(run_id, uid, condition, epoch) of every sample the store has committed as answered."""
    if not (run_dir / STORE_NAME).exists():
        return set()
    for _ in range(50):
        try:
            conn = sqlite3.connect(f"file:{run_dir / STORE_NAME}?mode=ro", uri=True, timeout=5)
            try:
                return set(conn.execute("SELECT run_id, uid, condition, epoch FROM samples WHERE status = 'ok'"))
            finally:
                conn.close()
        except sqlite3.OperationalError:  # the writer holds the database for a moment
            time.sleep(0.05)
    raise RuntimeError(f"cannot read {run_dir / STORE_NAME}")


def call_key(sample: tuple) -> str:
    run_id, uid, cond, epoch = sample
    return f"{run_id}|{uid}|{cond}|{epoch}|0"  # single-turn conditions: one call, turn 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--conditions", default="direct,text_cot,visual_cot")
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--fault-rate", type=float, default=0.2)
    ap.add_argument("--kills", type=int, default=3)
    ap.add_argument("--concurrency", type=int, default=16)
    ap.add_argument("--latency", type=float, default=0.05, help="server seconds per request")
    ap.add_argument("--timeout", type=float, default=1.0, help="client per-request timeout, seconds")
    ap.add_argument("--max-attempts", type=int, default=15)
    ap.add_argument("--work", type=Path, default=None, help="working folder (default: a temporary one)")
    args = ap.parse_args(argv)

    work = args.work or Path(tempfile.mkdtemp(prefix="vcot-reliability-"))
    suite = work / "suite"
    if not (suite / "manifest.json").exists():
        # The built-in tasks only: a task registered in this process (a plugin, a test's toy task) is unknown
        # to the server and eval processes.
        build_suite(suite, "mini", [p for p in preset_plans("mini", 0, "medium") if p.task in MIRA_TASKS])
    conds = [c for c in args.conditions.split(",") if c]
    n_instances = sum(1 for line in (suite / "instances.jsonl").open() if line.strip())
    expected = n_instances * len(conds) * args.epochs

    server = spawn_mock_server(suite)
    server.configure(
        fault_rate=args.fault_rate,
        faults=list(FAULT_KINDS),
        hang_s=args.timeout * 3,
        retry_after_s=0.05,
        latency_s=args.latency,
    )
    run_dir = work / "run"
    cmd = [
        sys.executable,
        "-m",
        "vcot.cli",
        "eval",
        str(suite),
        "--model",
        "mock-model",
        "--base-url",
        server.base_url,
        "--run",
        str(run_dir),
        "-c",
        ",".join(conds),
        "--epochs",
        str(args.epochs),
        "--tag-requests",
        "--concurrency",
        str(args.concurrency),
        "--no-progress",
        "--timeout",
        str(args.timeout),
        "--max-attempts",
        str(args.max_attempts),
        # The server's unusable-but-whole replies are transient here (one request in five is a fault of
        # some kind), so they get the full retry budget: this run measures exactly-once, not retry cost.
        "--malformed-attempts",
        str(args.max_attempts),
    ]
    kills = []
    t0 = time.monotonic()
    try:
        for k in range(args.kills):
            target = expected * (k + 1) // (args.kills + 1)
            before = committed(run_dir)
            proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            deadline = time.monotonic() + 600
            while time.monotonic() < deadline and proc.poll() is None and len(committed(run_dir)) < target:
                time.sleep(0.05)
            if proc.poll() is not None:
                print(
                    f"kill {k + 1}: the run ended before the kill point ({len(committed(run_dir))} of "
                    f"{expected} committed); use more samples or fewer kills",
                    file=sys.stderr,
                )
                return 2
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait()
            time.sleep(args.latency + 0.2)  # let the server count the requests that were on the wire
            done = committed(run_dir)
            sent = Counter(server.stats()["by_key"])
            prev = kills[-1]["sent"] if kills else Counter()
            done_keys = {call_key(s) for s in done}
            # Sent during this attempt and not committed when it died: these calls may be paid again.
            inflight = {key for key, n in sent.items() if n > prev[key] and key not in done_keys}
            kills.append(
                {
                    "committed_before": len(before),
                    "committed": done,
                    "sent": sent,
                    "new": len(done - before),
                    "inflight": inflight,
                }
            )
        final = subprocess.run(cmd, capture_output=True, text=True, timeout=1800)
        wall = time.monotonic() - t0
        stats = server.stats()
    finally:
        server.stop()

    after = Counter(stats["by_key"])
    rows = pq.read_table(run_dir / "results.parquet").to_pylist()
    keys = [(r["uid"], r["condition"], r["epoch"]) for r in rows]
    finished = sum(1 for r in rows if r["error"] is None)
    hostile = stats["status"].get("200-hostile", 0)
    report = subprocess.run(
        [
            sys.executable,
            "-m",
            "vcot.cli",
            "report",
            str(run_dir),
            "--suite",
            str(suite),
            "--out",
            str(work / "report"),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    html = (work / "report" / "report.html").read_bytes() if report.returncode == 0 else b""
    raw_control = sum(html.count(bytes([b])) for b in (0, 0x1B, 0x07))
    live_markup = html.count(b"<script>alert")

    print(
        f"fault matrix: {', '.join(FAULT_KINDS)} at {100 * args.fault_rate:.0f}% of requests; "
        f"{args.kills} SIGKILLs; {len(conds)} conditions x {args.epochs} epochs x {n_instances} instances"
    )
    print(f"requests sent: {stats['requests']}  faults injected: {dict(sorted(stats['faults'].items()))}")
    print(
        f"{'kill':>4} {'committed before':>16} {'committed at kill':>17} {'in flight':>9} "
        f"{'re-paid beyond in flight':>24}"
    )
    for k, info in enumerate(kills, 1):
        nxt = kills[k]["sent"] if k < len(kills) else after
        repaid = sum(1 for s in info["committed"] if nxt[call_key(s)] > info["sent"][call_key(s)])
        print(
            f"{k:>4} {info['committed_before']:>16} {len(info['committed']):>17} {len(info['inflight']):>9} "
            f"{repaid:>24}"
        )
    lost = expected - len(set(keys) & {k for k, r in zip(keys, rows, strict=True) if r["error"] is None})
    print(
        f"samples expected {expected}  finished {finished}  lost {lost}  duplicated {len(keys) - len(set(keys))}"
        f"  (final exit code {final.returncode}, wall {wall:.1f} s)"
    )
    print(
        f"hostile replies received {hostile}; report.html: exit {report.returncode}, raw control bytes "
        f"{raw_control}, live markup {live_markup}"
    )
    ok = (
        lost == 0
        and len(keys) == len(set(keys))
        and final.returncode == 0
        and raw_control == 0
        and live_markup == 0
        and report.returncode == 0
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
