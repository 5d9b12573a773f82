"""The official MIRA evaluation script as a reference for the harness benchmark (issue 19; benchmarks/harness.py).

Runs THEIR `eval_api.py` (aiming-lab/MIRA, a checkout given with `--official PATH`; nothing of it is copied
here) in a child process against vcot's mock server, at the same settings and over the same requests as the
harness benchmark's `mira` workload, and prints the same columns in the same format, so the two can be read
line by line (rows labelled `offic`; `--compare` also runs `vcot eval` through harness.py at each setting).

How it maps onto the harness benchmark:

- the suite (mira-synth, generated as harness.py does, or `--suite`) is exported with
  `vcot export suite SUITE -f mira` (docs/exporters.md) into the official layout `<task>/<task>.jsonl`, `image/`,
  `cot/`;
- scenarios: their script runs every instance under its three prompt templates `direct_answer`, `text_cot`
  and `visual_cot` — vcot's `direct`, `text_cot`, `visual_cot` (the mock recognises their wording; the status
  line shows the requests per condition it read). 566 instances × 3 = 1,698 requests, as in the harness;
- concurrency C: their `-w/--workers-per-model`, the size of the one thread pool of the one model we leave in
  MODEL_CONFIG. Each worker decodes and re-encodes the request's PNGs and then waits for the reply, so at
  most C requests are in flight (the status line shows the server's maximum);
- latency L: the mock server's `--latency`, as in the harness (`--correct-rate 0.5` too).

Their file is not edited: a `python -c` runner imports it from PATH under another module name, replaces
MODEL_CONFIG by one entry pointing at the mock server's base URL with a dummy key (otherwise it runs every model
listed there), and calls their `main()` with their own arguments `-b DIR -o DIR -w C`. Their script needs
openai, tqdm and Pillow (their requirements.txt; huggingface_hub only for their downloader).

Columns (harness.py): start-up = the command's start to the first request the server receives; wall against
the ideal N·L/C; CPU ms/request from the child's wait4 rusage (all threads, imports included); peak RSS; the
server's CPU per request. The mock matches requests by the first image's bytes, then by question text: their
script re-encodes every PNG, so part of the requests may go unidentified and get a wrong answer — irrelevant
for speed; what matters is that every request gets a 200 (the status line).

    python benchmarks/official_mira.py --official /path/to/MIRA --suite SUITE --setting 0.5,64 --setting 0,64
    python benchmarks/official_mira.py --official /path/to/MIRA --compare     # also vcot eval, same settings
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

# Run as a script (`python benchmarks/official_mira.py`), its folder is on sys.path: the measures and the row
# format are harness.py's own, so the two benchmarks print comparable lines.
from harness import SETTINGS, _process_cpu, measures, mira_suite, report, run_command

from vcot.engine.mock import spawn_mock_server

# Imports their module from PATH without touching it; argv: PATH BASE_URL BENCH_DIR OUT_DIR WORKERS.
RUNNER = """
import importlib.util, sys
official, base_url, bench, out, workers = sys.argv[1:6]
sys.path.insert(0, official)
spec = importlib.util.spec_from_file_location("mira_official_eval_api", official + "/eval_api.py")
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
mod.MODEL_CONFIG.clear()
mod.MODEL_CONFIG["mock"] = {"model_name": "mock", "api_key": "dummy", "base_url": base_url, "organization": None}
sys.argv = [official + "/eval_api.py", "-b", bench, "-o", out, "-w", workers]
mod.main()
"""
REQUIREMENTS = ("openai", "tqdm", "PIL")


def check_official(path: Path) -> Path:
    """The folder holding their eval_api.py, or SystemExit with a message saying what is wrong."""
    script = path / "eval_api.py"
    if not script.is_file():
        raise SystemExit(
            f"--official {path}: no eval_api.py there; give a checkout of aiming-lab/MIRA "
            "(a folder holding eval_api.py), e.g. `git clone https://github.com/aiming-lab/MIRA`"
        )
    missing = [m for m in REQUIREMENTS if importlib.util.find_spec(m) is None]
    if missing:
        raise SystemExit(
            f"their script needs {', '.join(missing)}, missing from this Python ({sys.executable}); "
            f"see {path / 'requirements.txt'}"
        )
    return path.resolve()


def export_mira(suite: Path, out: Path) -> Path:
    subprocess.run(
        [sys.executable, "-m", "vcot.cli", "export", str(suite), "-f", "mira", "-o", str(out)],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    return out


def run_official(
    official: Path, bench: Path, suite: Path, latency: float, concurrency: int, work: Path
) -> dict[str, float]:
    """Their script in a child process against a fresh mock server; the same measures as harness.run_command."""
    server = spawn_mock_server(suite, "--latency", str(latency), "--correct-rate", "0.5")
    out = work / f"official-{time.monotonic_ns()}"
    # stderr to a file, not a pipe: their progress bar and per-request warnings could fill a pipe's buffer
    # and stall the child while we wait for it.
    log = work / f"{out.name}.log"
    cmd = [sys.executable, "-c", RUNNER, str(official), server.base_url, str(bench), str(out), str(concurrency)]
    try:
        with log.open("wb") as err:
            t0 = time.time()
            proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err)
            _, status, usage = os.wait4(proc.pid, 0)
            wall = time.time() - t0
        if os.waitstatus_to_exitcode(status) != 0:
            raise RuntimeError(f"their eval_api.py failed: {log.read_text(errors='replace')[-2000:]}")
        stats = server.stats()
        server_cpu = _process_cpu(server.proc.pid)
        failed = sum(f.read_text().count('"API_CALL_FAILED"') for f in out.glob("*.jsonl"))
    finally:
        server.stop()
        shutil.rmtree(out, ignore_errors=True)
    return {
        **measures(t0, wall, usage, stats, server_cpu),
        "status": stats["status"],
        "max_inflight": stats["max_inflight"],
        "by_key": stats["by_key"],
        "failed": failed,
    }


def status_line(m: dict) -> str:
    """What the mock saw: HTTP statuses, the most requests in flight, requests per condition it read from
    their wording, how many it could match to an instance, and their script's API_CALL_FAILED results."""
    by_cond: Counter[str] = Counter()
    unmatched = 0
    for key, n in m["by_key"].items():
        uid, cond = key.split("|")[:2]
        by_cond[cond] += n
        unmatched += n if uid == "None" else 0
    conds = ", ".join(f"{c} {n}" for c, n in sorted(by_cond.items()))
    return (
        f"       statuses {dict(m['status'])}  max in flight {m['max_inflight']}  conditions: {conds}  "
        f"matched to an instance {m['requests'] - unmatched}/{m['requests']}  "
        f"API_CALL_FAILED {m['failed']}"
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument(
        "--official", type=Path, required=True, help="a checkout of aiming-lab/MIRA: the folder holding eval_api.py"
    )
    ap.add_argument("--suite", type=Path, help="a mira-synth suite folder (default: generate one)")
    ap.add_argument(
        "--setting",
        action="append",
        metavar="L,C",
        help="latency (s) and concurrency; repeatable (default: 0.5,64  2,256  0,64)",
    )
    ap.add_argument("--compare", action="store_true", help="also run `vcot eval` (harness.py) at each setting")
    args = ap.parse_args(argv)
    official = check_official(args.official)
    settings = [tuple(float(x) for x in s.split(",")) for s in args.setting] if args.setting else SETTINGS
    work = Path(tempfile.mkdtemp(prefix="vcot-official-mira-"))
    try:
        suite = args.suite or mira_suite(work / "mira-synth")
        bench = export_mira(suite, work / "mira-layout")
        for latency, conc in settings:
            m = run_official(official, bench, suite, latency, int(conc), work)
            report("offic", m["requests"], latency, int(conc), m)
            print(status_line(m), flush=True)
            if args.compare:
                v = run_command(suite, "direct,text_cot,visual_cot", latency, int(conc), work)
                report("mira", v["requests"], latency, int(conc), v)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
