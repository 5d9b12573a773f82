"""The pluggable multi-turn loop: tool calls out, tool results (text + image) back, one store row per turn."""

from __future__ import annotations

import sqlite3

import pyarrow.parquet as pq
from engine_fixtures import ToolEpisode

from vcot.conditions import REGISTRY, Condition
from vcot.engine.retry import RetryPolicy
from vcot.engine.runner import EvalSpec, run_eval
from vcot.engine.store import STORE_NAME
from vcot.messages import ToolSpec

SCRIPT = [
    [{"name": "draw_line", "arguments": {"x": 1}}],
    [{"name": "draw_line", "arguments": {"x": 2}}, {"name": "draw_line", "arguments": {"x": 3}}],
]


DRAW_LINE = ToolSpec(
    "draw_line", "Draw a line on the image.", {"type": "object", "properties": {"x": {"type": "number"}}}
)


REGISTRY.register(
    Condition(
        "test_tool_loop",
        lambda inst, cond, epoch, images: ToolEpisode(inst, images, [DRAW_LINE]),
        lambda inst: None if inst.steps else "no steps",
        "test: a scripted tool loop",
        default=False,
    )
)

TURN_ROLES = ["user", "user,assistant,tool,user", "user,assistant,tool,user,assistant,tool,tool,user"]


def test_tool_loop_runs_turns_and_resumes_mid_episode(suite_large, server, tmp_path):
    server.configure(script=SCRIPT, p=1.0)
    spec = EvalSpec(
        suite=suite_large,
        model="m",
        base_url=server.base_url,
        conditions=["test_tool_loop"],
        limit=6,
        run_dir=tmp_path / "run",
        tag_requests=True,
        retry=RetryPolicy(initial_s=0.01),
    )
    result = run_eval(spec)
    assert result.progress.done == 12 and result.progress.errors == 0
    stats = server.stats()
    assert stats["requests"] == 36
    assert stats["roles"] == {r: 12 for r in TURN_ROLES}
    db = sqlite3.connect(tmp_path / "run" / STORE_NAME)
    turns = db.execute("SELECT turn, count(*) FROM calls GROUP BY turn ORDER BY turn").fetchall()
    assert turns == [(0, 12), (1, 12), (2, 12)]
    tool_calls = db.execute("SELECT tool_calls FROM calls WHERE turn = 1").fetchone()[0]
    assert '"arguments": "{\\"x\\": 2}"' in tool_calls
    rows = pq.read_table(tmp_path / "run" / "results.parquet").to_pylist()
    assert {r["n_turns"] for r in rows} == {3}
    assert all(r["response"].endswith(f"<answer>{r['gold']}</answer>") for r in rows)

    # As if killed after turn 1 was stored: the rerun replays turns 0-1 and sends only turn 2.
    db.execute("DELETE FROM calls WHERE turn = 2")
    db.execute("DELETE FROM samples")
    db.commit()
    db.close()
    server.reset()
    again = run_eval(spec)
    assert again.progress.done == 12
    assert server.stats()["roles"] == {TURN_ROLES[2]: 12}
    assert pq.read_table(tmp_path / "run" / "results.parquet").num_rows == 12
