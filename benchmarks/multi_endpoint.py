"""One evaluation over three inference servers (issue 30; docs/evaluation.md, "Several servers for one model").

Three local mock servers of latency L, `vcot eval` over all three (`--base-url` three times) at concurrency C
on a synthetic suite of N single-request instances:

1. all three up: the request phase (first request received to last reply sent, over the three servers) against
   the ideal N·L/C, and each server's share;
2. one server killed (SIGKILL) once a third of the requests have been received: samples lost (expected minus
   answered in the store), samples duplicated (answered calls stored twice), finished calls paid twice (a call
   whose full reply some server sent, sent again and answered: counted at the servers, the killed one's counts
   read just before the kill), and each server's share.

With `--floor`, first the same requests from a bare aiohttp client (one POST per instance, least-loaded over the
three servers, no store, no SDK): what the machine and the servers allow, since the client and the three servers
share its cores.

    python benchmarks/multi_endpoint.py                  # N = 2000, L = 0.5 s, C = 192
    python benchmarks/multi_endpoint.py --n 600 --latency 0.2 --concurrency 96
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import math
import os
import resource
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import _vcot_command, fresh_suite  # noqa: E402

from vcot.engine.mock import MockHandle, spawn_mock_server  # noqa: E402


def _command(suite: Path, servers: list[MockHandle], concurrency: int, run: Path) -> list[str]:
    urls = [a for s in servers for a in ("--base-url", s.base_url)]
    return [
        *_vcot_command(None),
        "eval",
        str(suite),
        "--model",
        "mock",
        *urls,
        "-c",
        "direct",
        "--concurrency",
        str(concurrency),
        "--run",
        str(run),
        "--tag-requests",
        "--no-progress",
    ]


def _store_counts(run: Path) -> tuple[int, int]:
    """(samples answered, samples with more than one answered call) in the run's store."""
    conn = sqlite3.connect(run / "run.sqlite")
    try:
        answered = conn.execute("SELECT count(*) FROM samples WHERE status = 'ok'").fetchone()[0]
        twice = conn.execute(
            "SELECT count(*) FROM (SELECT 1 FROM calls WHERE error IS NULL GROUP BY condition, "
            "uid, epoch HAVING count(*) > 1)"
        ).fetchone()[0]
    finally:
        conn.close()
    return answered, twice


def _shares(stats: list[dict[str, Any]]) -> str:
    total = sum(s["requests"] for s in stats) or 1
    return ", ".join(
        f"server {i + 1}: {s['requests']} requests ({100 * s['requests'] / total:.0f}%), "
        f"{s['status'].get('200', 0)} answered"
        for i, s in enumerate(stats)
    )


def _request_phase(stats: list[dict[str, Any]]) -> tuple[float, float]:
    """(first request received, last reply sent) over the servers, in wall-clock seconds."""
    return (
        min(s["first_request_at"] for s in stats if s["first_request_at"]),
        max(s["last_reply_at"] for s in stats if s["last_reply_at"]),
    )


def run_all_up(suite: Path, n: int, latency: float, concurrency: int, work: Path, n_servers: int = 3) -> None:
    servers = [spawn_mock_server(suite, "--latency", str(latency)) for _ in range(n_servers)]
    try:
        t0 = time.time()
        proc = subprocess.run(
            _command(suite, servers, concurrency, work / f"run-up-{n_servers}"), capture_output=True, text=True
        )
        wall = time.time() - t0
        if proc.returncode != 0:
            raise RuntimeError(proc.stderr[-2000:])
        stats = [s.stats() for s in servers]
    finally:
        for s in servers:
            s.stop()
    first, last = _request_phase(stats)
    ideal = n * latency / concurrency
    requests = sum(s["requests"] for s in stats)
    print(
        f"{'all up:' if n_servers > 1 else 'one:':8} servers={n_servers} N={requests} L={latency:g} "
        f"C={concurrency}  request phase {last - first:.2f} s = "
        f"{(last - first) / ideal:.2f}× N·L/C ({ideal:.2f} s; target ≤ 1.10×); command wall {wall:.2f} s, "
        f"start-up {first - t0:.2f} s",
        flush=True,
    )
    print(f"         {_shares(stats)}", flush=True)
    print(
        "         " + " | ".join(line.strip() for line in proc.stderr.splitlines() if line.startswith("  http")),
        flush=True,
    )


def run_floor(suite: Path, n: int, latency: float, concurrency: int) -> None:
    """The bare client: each instance's question and picture POSTed to the least-loaded of three servers."""
    import aiohttp

    servers = [spawn_mock_server(suite, "--latency", str(latency)) for _ in range(3)]
    instances = [json.loads(line) for line in (suite / "instances.jsonl").read_text().splitlines() if line.strip()]

    def body(inst: dict[str, Any]) -> bytes:
        url = "data:image/png;base64," + base64.b64encode((suite / inst["image"]).read_bytes()).decode()
        return json.dumps(
            {
                "model": "mock",
                "messages": [
                    {
                        "role": "user",
                        "content": [
                            {"type": "text", "text": inst["question"]},
                            {"type": "image_url", "image_url": {"url": url}},
                        ],
                    }
                ],
            }
        ).encode()

    async def run() -> None:
        queue = iter(instances)
        inflight = [0] * len(servers)
        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=2 * concurrency)) as session:

            async def worker() -> None:
                for inst in queue:
                    i = min(range(len(servers)), key=inflight.__getitem__)
                    inflight[i] += 1
                    async with session.post(
                        f"{servers[i].base_url}/chat/completions",
                        data=body(inst),
                        headers={"Content-Type": "application/json"},
                    ) as resp:
                        if resp.status != 200:
                            raise RuntimeError(f"floor: server {i + 1} answered HTTP {resp.status}")
                        json.loads(await resp.read())
                    inflight[i] -= 1

            await asyncio.gather(*(worker() for _ in range(concurrency)))

    try:
        before = resource.getrusage(resource.RUSAGE_SELF)
        asyncio.run(run())
        after = resource.getrusage(resource.RUSAGE_SELF)
        stats = [s.stats() for s in servers]
    finally:
        for s in servers:
            s.stop()
    first, last = _request_phase(stats)
    ideal = n * latency / concurrency
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    print(
        f"floor:   bare aiohttp client, servers=3 N={n} L={latency:g} C={concurrency}  request phase "
        f"{last - first:.2f} s = {(last - first) / ideal:.2f}× N·L/C",
        flush=True,
    )
    print(
        f"         client CPU {1000 * cpu / n:.2f} ms per request; a partial last wave alone: "
        f"{math.ceil(n / concurrency) * concurrency / n:.2f}×",
        flush=True,
    )


def run_one_killed(suite: Path, n: int, latency: float, concurrency: int, work: Path) -> None:
    servers = [spawn_mock_server(suite, "--latency", str(latency)) for _ in range(3)]
    run = work / "run-kill"
    try:
        proc = subprocess.Popen(
            _command(suite, servers, concurrency, run), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
        )
        victim = servers[0]
        while sum(s.stats()["requests"] for s in servers) < n // 3 and proc.poll() is None:
            time.sleep(0.02)
        before = victim.stats()  # its last words: what it had answered, then SIGKILL at once
        os.kill(victim.proc.pid, 9)
        victim.proc.wait(5)
        _, err = proc.communicate()
        if proc.returncode not in (0, 3):
            raise RuntimeError(err[-2000:])
        stats = [before, *(s.stats() for s in servers[1:])]
    finally:
        for s in servers:
            s.stop()
    answered, duplicated = _store_counts(run)
    served: Counter[str] = Counter()
    for s in stats:
        served.update(s["ok_by_key"])
    paid_twice = sum(c - 1 for c in served.values() if c > 1)
    resent = sum(s["requests"] for s in stats) - n
    print(
        f"killed:  server 1 killed after {before['requests']} of its requests; samples expected {n}, lost "
        f"{n - answered}, duplicated {duplicated}; finished calls paid twice {paid_twice}; requests sent again "
        f"(in flight at the kill, or unanswered) at least {resent}",
        flush=True,
    )
    print(f"         {_shares(stats)} (server 1 as counted just before the kill)", flush=True)
    print("         " + " | ".join(line.strip() for line in err.splitlines() if line.startswith("  http")), flush=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=2000, help="requests (single-request instances)")
    ap.add_argument("--latency", type=float, default=0.5)
    ap.add_argument("--concurrency", type=int, default=192)
    ap.add_argument("--skip", choices=("up", "kill"), help="leave one of the two runs out")
    ap.add_argument(
        "--floor",
        action="store_true",
        help="first the same requests from a bare aiohttp client (what the machine allows)",
    )
    ap.add_argument(
        "--single",
        action="store_true",
        help="also the same run against one server (what the machine allows without the pool)",
    )
    args = ap.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="vcot-multi-"))
    try:
        suite = fresh_suite(work / "suite", args.n, size=(64, 48), steps=0)
        if args.floor:
            run_floor(suite, args.n, args.latency, args.concurrency)
        if args.single:
            run_all_up(suite, args.n, args.latency, args.concurrency, work, n_servers=1)
        if args.skip != "up":
            run_all_up(suite, args.n, args.latency, args.concurrency, work)
        if args.skip != "kill":
            run_one_killed(suite, args.n, args.latency, args.concurrency, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
