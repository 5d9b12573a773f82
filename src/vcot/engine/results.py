"""The tidy results table: one row per (run, model, condition, uid, epoch) final answer, from the store.

Parquet on disk (`results.parquet` in the run folder), readable by DuckDB, pandas or `datasets`. The
scoring step adds its columns to this table; nothing here interprets the model's text.
"""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from vcot.engine.store import STORE_NAME, StoreDamaged, damaged, open_readonly, parse_settings

RESULTS_NAME = "results.parquet"

SCHEMA = pa.schema(
    [
        ("run_id", pa.string()),
        ("model", pa.string()),
        ("condition", pa.string()),
        ("uid", pa.string()),
        ("task", pa.string()),
        ("domain", pa.string()),
        ("answer_type", pa.string()),
        ("gold", pa.string()),
        ("options", pa.string()),
        ("epoch", pa.int32()),
        ("response", pa.string()),
        ("error", pa.string()),
        ("n_turns", pa.int32()),
        ("input_tokens", pa.int64()),
        ("output_tokens", pa.int64()),
        ("latency_s", pa.float64()),
        ("finish_reason", pa.string()),
        ("images", pa.string()),
        ("episode", pa.string()),
        ("suite_name", pa.string()),
        ("suite_hash", pa.string()),
        ("prompt_version", pa.string()),
        ("vcot_version", pa.string()),
        ("settings", pa.string()),
        # Issue 20: state_probe rows name their probe count; intervention rows the steps sent (JSON list, 1-based,
        # in the order sent). Per-step correctness is scoring's (vcot.scoring.probes.add_probe_columns).
        ("probe_n", pa.int32()),
        ("steps_sent", pa.string()),
        # Issue 30: with several endpoints, the run's per-endpoint figures (JSON list, one entry per invocation and
        # endpoint: session, url, requests, ok, errors, error_kinds, mean_s, p50_s, taken_out); else null.
        ("endpoints", pa.string()),
    ]
)


def _episode_columns(episode: str | None) -> tuple[int | None, str | None]:
    try:
        rec = json.loads(episode) if episode else None
    except ValueError:
        return None, None
    if not isinstance(rec, dict):
        return None, None
    probes = rec.get("probes")
    sent = (rec.get("intervention") or {}).get("steps_sent") if isinstance(rec.get("intervention"), dict) else None
    return (len(probes) if isinstance(probes, list) else None), (json.dumps(sent) if sent is not None else None)


_SAMPLE_COLS = [
    "run_id",
    "model",
    "condition",
    "uid",
    "task",
    "domain",
    "answer_type",
    "gold",
    "options",
    "epoch",
    "response",
    "error",
    "n_turns",
    "input_tokens",
    "output_tokens",
    "latency_s",
    "finish_reason",
    "images",
    "episode",
]


def results_table(run_dir: str | Path) -> pa.Table:
    """Every finished sample of the run folder's store, with the run's settings on each row."""
    path = Path(run_dir) / STORE_NAME
    # Read-only so exporting never contends with (or alters) a running evaluation.
    conn = open_readonly(run_dir)
    try:
        runs = {rid: parse_settings(path, rid, s) for rid, s in conn.execute("SELECT run_id, settings FROM runs")}
        rows = conn.execute(
            f"SELECT {', '.join(_SAMPLE_COLS)} FROM samples ORDER BY run_id, model, condition, uid, epoch"
        ).fetchall()
        endpoints = _endpoint_figures(conn)
    except sqlite3.DatabaseError as exc:  # a page lost inside the file, a column dropped
        raise damaged(path, str(exc)) from None
    except StoreDamaged:  # already said in one line (parse_settings)
        raise
    except ValueError as exc:  # an endpoint record that is not JSON
        raise damaged(path, f"a stored record is not JSON: {exc}") from None
    finally:
        conn.close()
    cols: dict[str, list] = {name: [] for name in SCHEMA.names}
    settings_json: dict[str, str] = {}
    for row in rows:
        rec = dict(zip(_SAMPLE_COLS, row, strict=True))
        s = runs.get(rec["run_id"], {})
        for k in _SAMPLE_COLS:
            cols[k].append(rec[k])
        cols["suite_name"].append(s.get("suite_name"))
        cols["suite_hash"].append(s.get("suite_hash"))
        cols["prompt_version"].append(s.get("prompt_version"))
        cols["vcot_version"].append(s.get("vcot_version"))
        probe_n, steps_sent = _episode_columns(rec["episode"])
        cols["probe_n"].append(probe_n)
        cols["steps_sent"].append(steps_sent)
        if rec["run_id"] not in settings_json:
            settings_json[rec["run_id"]] = json.dumps(
                {
                    "generation": s.get("generation"),
                    "image_policy": s.get("image_policy"),
                    "model": s.get("model"),
                    "timeout_s": s.get("timeout_s"),
                    "max_turns": s.get("max_turns"),
                },
                sort_keys=True,
            )
        cols["settings"].append(settings_json[rec["run_id"]])
        cols["endpoints"].append(endpoints.get(rec["run_id"]))
    return pa.table(cols, schema=SCHEMA)


def _endpoint_figures(conn: sqlite3.Connection) -> dict[str, str]:
    """Per run, its per-endpoint figures as one JSON list (stores written before issue 30 have none)."""
    try:
        found = conn.execute("SELECT run_id, session, stats FROM endpoints ORDER BY run_id, session, position")
        by_run: dict[str, list[dict]] = {}
        for run_id, session, stats in found:
            by_run.setdefault(run_id, []).append({"session": session, **json.loads(stats)})
    except (sqlite3.OperationalError, ValueError, TypeError):
        return {}
    return {run_id: json.dumps(figures) for run_id, figures in by_run.items()}


def write_results(run_dir: str | Path, table: pa.Table | None = None) -> Path:
    """The results file of the run folder; `table` is its `results_table` when the caller already has it."""
    out = Path(run_dir) / RESULTS_NAME
    tmp = out.with_name(out.name + ".tmp")
    pq.write_table(results_table(run_dir) if table is None else table, tmp)
    os.replace(tmp, out)
    return out
