"""A fingerprint of what `vcot eval` does, to compare two checkouts around a refactor (issue 43).

Builds a small suite (rolling_dice_top, billiards, gear_rotation), serves it with the mock server under a
scripted tool policy (the VAoT loop draws, zooms and meets invalid calls), runs every default condition plus
vaot_wrongrender_nonkey, and prints: the suite's content hash, the prompt version, a digest of every finished
sample (condition, uid, epoch, status, response, error, turns, finish reason, images sent, the episode record
with the digests of returned pictures and corruptions) and a digest of the pictures the server received.
Optionally also the content hash of `vcot generate --preset mira-synth` (slow: --mira).

    python benchmarks/eval_fingerprint.py OUT_DIR [--mira]

Run it in two checkouts (PYTHONPATH=src) and compare the lines; only the prompt version may differ when a
prompt text was added on purpose.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sqlite3
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

COLUMNS = (
    "condition",
    "uid",
    "epoch",
    "status",
    "response",
    "error",
    "n_turns",
    "finish_reason",
    "images",
    "episode",
    "gold",
)


def main() -> None:
    from vaot_fixtures import SCRIPT
    from vcot.build import TaskPlan, build_suite, preset_plans
    from vcot.conditions import PROMPT_VERSION, REGISTRY
    from vcot.engine.mock import spawn_mock_server
    from vcot.engine.runner import EvalSpec, run_eval

    parser = argparse.ArgumentParser()
    parser.add_argument("out", type=Path)
    parser.add_argument("--mira", action="store_true")
    args = parser.parse_args()
    root: Path = args.out
    root.mkdir(parents=True, exist_ok=True)
    suite = root / "suite"
    build_suite(
        suite,
        "fingerprint",
        [TaskPlan("rolling_dice_top", 3, 3), TaskPlan("billiards", 3, 4), TaskPlan("gear_rotation", 3, 5)],
    )
    script = root / "script.json"
    script.write_text(json.dumps(SCRIPT))
    server = spawn_mock_server(suite, "--script", str(script), "--p", "0.6")
    conditions = [*REGISTRY.defaults(), "vaot_wrongrender_nonkey"]
    try:
        server.configure(record_images=True)
        run_eval(
            EvalSpec(
                suite=suite,
                model="mock",
                base_url=server.base_url,
                conditions=conditions,
                run_dir=root / "run",
                concurrency=2,
            )
        )
        received = server.images()
    finally:
        server.stop()
    (root / "received.json").write_text(json.dumps(received, indent=1, sort_keys=True, default=str))
    con = sqlite3.connect(root / "run" / "run.sqlite")
    rows = con.execute(f"select {', '.join(COLUMNS)} from samples order by condition, uid, epoch").fetchall()
    print("suite content hash ", json.loads((suite / "manifest.json").read_text())["content_hash"])
    print("prompt version     ", PROMPT_VERSION)
    print("samples            ", len(rows), hashlib.sha256(json.dumps(rows, default=str).encode()).hexdigest())
    print(
        "pictures received  ",
        len(received),
        hashlib.sha256(json.dumps(sorted(map(str, received))).encode()).hexdigest(),
    )
    if args.mira:
        build_suite(root / "mira", "mira-synth", preset_plans("mira-synth"), processes=2)
        print("mira-synth hash    ", json.loads((root / "mira" / "manifest.json").read_text())["content_hash"])


if __name__ == "__main__":
    main()
