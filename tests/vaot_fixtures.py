"""A small VAoT run over real HTTP, shared by the VAoT loop and process-judge tests."""

from __future__ import annotations

import json
from pathlib import Path

from vcot.build import TaskPlan, build_suite
from vcot.engine.mock import spawn_mock_server
from vcot.engine.runner import EvalSpec, run_eval

SCRIPT = [
    [
        {"name": "draw_line", "arguments": {"x1": 40, "y1": 60, "x2": 300, "y2": 300, "color": "blue"}},
        {"name": "mark_point", "arguments": {"x": 120, "y": 200, "label": "S"}},
    ],
    [
        {"name": "crop_zoom", "arguments": {"x1": 0, "y1": 0, "x2": 300, "y2": 300}},
        {"name": "teleport", "arguments": {"x": 1}},
        {"name": "draw_line", "arguments": {"x1": "NaN", "y1": 0, "x2": 5, "y2": 5}},
        {"name": "draw_polygon", "arguments": {"points": [[10, 10], [200, 40], [90, 250]]}},
    ],
]
VAOT = ["vaot_norender", "vaot", "vaot_wrongrender"]


def make_vaot_run(root: Path):
    """Two rolling-dice instances × the three VAoT conditions, answered by a scripted tool policy."""
    suite_dir = root / "suite"
    build_suite(suite_dir, "dice", [TaskPlan("rolling_dice_top", 2, 3)])
    script = root / "script.json"
    script.write_text(json.dumps(SCRIPT))
    server = spawn_mock_server(suite_dir, "--script", str(script), "--p", "1")
    try:
        server.configure(record_images=True)
        result = run_eval(
            EvalSpec(
                suite=suite_dir,
                model="mock",
                base_url=server.base_url,
                conditions=VAOT,
                run_dir=root / "run",
                tag_requests=True,
                concurrency=4,
            )
        )
        received = server.images()
    finally:
        server.stop()
    return suite_dir, result, received
