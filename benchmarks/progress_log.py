"""Progress in a log (issue 26): `vcot eval` with its output in a file, against a mock server answering after
0.5 s at concurrency 2 for about 60 s, must write a progress line at least every 30 s (the default interval;
docs/evaluation.md, "Progress in a log").

`vcot eval ... > LOG 2>&1` runs as it would under nohup or a batch scheduler; meanwhile this script tails LOG
and stamps every new line with the time it appeared (polled every 0.1 s), because the lines themselves carry
only the elapsed time to the second. Printed: the progress lines, the gaps between them (from the start of
the command to the first line, between lines, from the last line to the exit) by arrival time and by their
own "elapsed" field, and the largest gap against the 30 s bound. The default workload is
mini suite × direct × `--epochs` 4 (276 samples, 276 × 0.5 s / 2 = 69 s); there a tenth of the work takes
about 7 s, so the lines come from the tenths. `--stall` instead sends 2 samples that take 45 s each, so no
tenth is reached for 45 s and only the 30 s timer can print a line.

    python benchmarks/progress_log.py                 # about 80 s
    python benchmarks/progress_log.py --stall         # about 50 s: the timer alone
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

BOUND_S = 30.0
MODEL = "m"
ELAPSED = re.compile(r"(\d+):(\d\d):(\d\d) elapsed")


def _vcot(*args: str, env: dict[str, str] | None = None, **kw) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "vcot.cli", *args], check=True, text=True, capture_output=True, env=env, **kw
    )


def _tail(path: Path, stop: threading.Event, t0: float, out: list[tuple[float, str]]) -> None:
    """Append (seconds since t0, line) for every complete line as it appears in `path`."""
    pos, partial = 0, ""
    while True:
        done = stop.is_set()  # read once more after the command ended
        if path.exists():
            with path.open(encoding="utf-8", errors="replace") as fh:
                fh.seek(pos)
                chunk = fh.read()
                pos = fh.tell()
            now = time.monotonic() - t0
            partial += chunk
            *lines, partial = partial.split("\n")
            out += [(now, line) for line in lines]
        if done:
            if partial:
                out.append((time.monotonic() - t0, partial))
            return
        time.sleep(0.1)


def _gaps(times: list[float], end: float) -> list[float]:
    marks = [0.0, *times, end]
    return [b - a for a, b in zip(marks, marks[1:], strict=False)]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--latency", type=float, default=0.5, help="mock server latency per request, seconds")
    ap.add_argument("--concurrency", type=int, default=2)
    ap.add_argument("--epochs", type=int, default=4, help="epochs of mini × direct (69 problems each)")
    ap.add_argument("--stall", action="store_true", help="2 samples of 45 s each: only the timer prints")
    ap.add_argument("--keep", type=Path, help="keep the log here")
    a = ap.parse_args()

    from vcot.engine.mock import spawn_mock_server

    env = {k: v for k, v in os.environ.items() if k not in ("VCOT_PROGRESS_EVERY", "COLUMNS")}
    with tempfile.TemporaryDirectory(prefix="vcot-progress-") as tmp:
        root = Path(tmp)
        suite = root / "mini"
        _vcot("generate", "--preset", "mini", "--out", str(suite), "--no-progress", env=env)
        latency = 45.0 if a.stall else a.latency
        mock = spawn_mock_server(suite, "--latency", str(latency))
        log = root / "eval.log"
        args = [
            "eval",
            str(suite),
            "--base-url",
            mock.base_url,
            "--model",
            MODEL,
            "-c",
            "direct",
            "--concurrency",
            str(a.concurrency),
            "--run",
            str(root / "run"),
            *(
                ["--tasks", "convex_hull", "--limit", "2", "--timeout", "120"]
                if a.stall
                else ["--epochs", str(a.epochs)]
            ),
        ]
        stamped: list[tuple[float, str]] = []
        stop = threading.Event()
        t0 = time.monotonic()
        tail = threading.Thread(target=_tail, args=(log, stop, t0, stamped))
        tail.start()
        try:
            with log.open("w", encoding="utf-8") as fh:  # `vcot eval ... > LOG 2>&1`
                code = subprocess.run(
                    [sys.executable, "-m", "vcot.cli", *args], stdout=fh, stderr=subprocess.STDOUT, env=env
                ).returncode
            end = time.monotonic() - t0
        finally:
            stop.set()
            tail.join()
            mock.stop()
        if a.keep:
            a.keep.write_text(log.read_text(encoding="utf-8"), encoding="utf-8")

    progress = [(t, line) for t, line in stamped if line.startswith(f"{MODEL}: ")]
    print(f"vcot eval exit {code}, {end:.1f} s; {len(progress)} progress lines (default interval, output in a file)")
    for t, line in progress:
        print(f"  {t:6.1f} s  {line}")
    by_arrival = _gaps([t for t, _ in progress], end)
    elapsed = []
    for _, line in progress:
        m = ELAPSED.search(line)
        if m:
            elapsed.append(int(m[1]) * 3600 + int(m[2]) * 60 + int(m[3]))
    by_field = [b - a for a, b in zip(elapsed, elapsed[1:], strict=False)]
    print(
        f"gaps by arrival (start → first, between lines, last → exit), s: {', '.join(f'{g:.1f}' for g in by_arrival)}"
    )
    print(f"gaps by the lines' own elapsed field, s: {', '.join(str(g) for g in by_field) or '—'}")
    worst = max(by_arrival[:-1]) if len(by_arrival) > 1 else end  # the exit needs no line after it
    verdict = "ok" if worst <= BOUND_S + 1.0 and progress else "TOO LONG"
    print(f"max gap between progress lines: {worst:.1f} s (bound {BOUND_S:g} s + 1 s of polling): {verdict}")
    return 0 if verdict == "ok" and code == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
