"""The run store: one SQLite file (WAL) per run folder.

Tables:
- `runs`: the run's identity and settings, written once (suite hash, vcot/prompt version, model,
  generation settings, image policy). Never credentials.
- `calls`: one row per (run, model, condition, uid, epoch, turn): request digest and record, raw response,
  usage, latency, attempts, error, timestamps.
- `samples`: one row per (run, model, condition, uid, epoch) once the sample is finished (answered or
  failed), with what the results table needs.

Every finished call is committed before its worker moves on, and a sample's last call and its `samples`
row are in one transaction (the runner commits the calls that finish in the same event-loop turn together), so a process killed at any moment leaves either a complete sample or one the
next run resumes. In WAL mode with synchronous=NORMAL a commit survives the process being killed.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vcot.messages import scrub_surrogates

SCHEMA_VERSION = "1"
STORE_NAME = "run.sqlite"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
    run_id TEXT PRIMARY KEY, created_at REAL NOT NULL, settings TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS calls (
    run_id TEXT NOT NULL, model TEXT NOT NULL, condition TEXT NOT NULL, uid TEXT NOT NULL,
    epoch INTEGER NOT NULL, turn INTEGER NOT NULL,
    request_digest TEXT NOT NULL, request TEXT, response TEXT, text TEXT, tool_calls TEXT,
    finish_reason TEXT, input_tokens INTEGER, output_tokens INTEGER, latency_s REAL, attempts INTEGER,
    error TEXT, started_at REAL, finished_at REAL,
    PRIMARY KEY (run_id, model, condition, uid, epoch, turn)
);
CREATE TABLE IF NOT EXISTS samples (
    run_id TEXT NOT NULL, model TEXT NOT NULL, condition TEXT NOT NULL, uid TEXT NOT NULL,
    epoch INTEGER NOT NULL, task TEXT, domain TEXT, answer_type TEXT, gold TEXT, options TEXT,
    status TEXT NOT NULL, response TEXT, error TEXT, n_turns INTEGER, input_tokens INTEGER,
    output_tokens INTEGER, latency_s REAL, finish_reason TEXT, images TEXT, episode TEXT, finished_at REAL,
    PRIMARY KEY (run_id, model, condition, uid, epoch)
);
"""


_INT64 = 2**63
# Characters of the JSON text stored for a value that SQLite cannot bind as it is.
MAX_STORED_JSON = 1 << 20


def _storable(values: Iterable[Any]) -> tuple[Any, ...]:
    """The values as SQLite can bind them, so that no value (of a client that let one through) aborts the
    run at the same sample on every rerun. A str loses its lone surrogates (SQLite stores UTF-8: model text
    quoted in an error message, say); an integer beyond SQLite's 64 bits becomes NULL (unknown, not a false
    count); anything else but a number, bytes or NULL is stored as its JSON text, bounded."""
    out = []
    for v in values:
        t = type(v)
        if t is str:
            v = scrub_surrogates(v)
        elif t is int:
            if not -_INT64 <= v < _INT64:
                v = None
        elif v is not None and t is not float and not isinstance(v, (int, float, bytes)):
            v = _json_text(v)
        out.append(v)
    return tuple(out)


def _json_text(value: Any) -> str:
    try:
        text = json.dumps(value, default=repr)
    except (ValueError, TypeError, RecursionError):  # a cycle, a nesting too deep to encode
        text = json.dumps(f"<unstorable {type(value).__name__}>")
    if len(text) > MAX_STORED_JSON:
        text = json.dumps({"truncated_json": text[:MAX_STORED_JSON], "length": len(text)})
    return scrub_surrogates(text)


@dataclass(frozen=True, slots=True)
class SampleKey:
    condition: str
    uid: str
    epoch: int


class RunStore:
    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # Autocommit mode: transactions are explicit, so each commit point is visible in the code.
        self.conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        self.conn.execute("PRAGMA journal_mode=WAL")
        self.conn.execute("PRAGMA synchronous=NORMAL")
        self.conn.execute("PRAGMA busy_timeout=10000")
        self.conn.executescript(_SCHEMA)
        cols = {r[1] for r in self.conn.execute("PRAGMA table_info(samples)")}
        if "episode" not in cols:  # stores written before episodes were recorded
            self.conn.execute("ALTER TABLE samples ADD COLUMN episode TEXT")
        self.conn.execute("INSERT OR IGNORE INTO meta VALUES ('schema_version', ?)", (SCHEMA_VERSION,))

    def close(self) -> None:
        self.conn.close()

    # -- run settings ----------------------------------------------------------------------------------

    def run_settings(self, run_id: str | None = None) -> dict[str, Any] | None:
        sql = "SELECT settings FROM runs" + (" WHERE run_id = ?" if run_id else " ORDER BY created_at LIMIT 1")
        row = self.conn.execute(sql, (run_id,) if run_id else ()).fetchone()
        return json.loads(row[0]) if row else None

    def run_ids(self) -> list[str]:
        return [r[0] for r in self.conn.execute("SELECT run_id FROM runs ORDER BY created_at")]

    def init_run(self, run_id: str, settings: dict[str, Any]) -> None:
        self.conn.execute("INSERT OR IGNORE INTO runs VALUES (?, ?, ?)",
                          (run_id, time.time(), json.dumps(settings, sort_keys=True)))

    # -- resume ------------------------------------------------------------------------------------------

    def finished(self, run_id: str, model: str, include_errors: bool = False) -> set[SampleKey]:
        sql = "SELECT condition, uid, epoch FROM samples WHERE run_id = ? AND model = ?"
        if not include_errors:
            sql += " AND status = 'ok'"
        return {SampleKey(c, u, e) for c, u, e in self.conn.execute(sql, (run_id, model))}

    def started(self, run_id: str, model: str) -> set[SampleKey]:
        """Samples with any stored call: those a resumed run must replay or clean up first."""
        return {SampleKey(c, u, e) for c, u, e in self.conn.execute(
            "SELECT DISTINCT condition, uid, epoch FROM calls WHERE run_id = ? AND model = ?", (run_id, model))}

    def done_turns(self, run_id: str, model: str, key: SampleKey) -> list[dict[str, Any]]:
        """Successful turns of a sample, in order (a resumed multi-turn sample replays them)."""
        cur = self.conn.execute(
            "SELECT turn, request_digest, text, tool_calls, finish_reason, input_tokens, output_tokens, response, "
            "latency_s FROM calls WHERE run_id=? AND model=? AND condition=? AND uid=? AND epoch=? AND error IS NULL "
            "ORDER BY turn", (run_id, model, key.condition, key.uid, key.epoch))
        names = [d[0] for d in cur.description]
        return [dict(zip(names, row, strict=True)) for row in cur]

    # -- writes ------------------------------------------------------------------------------------------

    def record(self, call: dict[str, Any] | None, sample: dict[str, Any] | None = None) -> None:
        """Store one call and, when the sample ends with it, the sample row — atomically."""
        self.record_many([(call, sample)])

    def record_many(self, items: list[tuple[dict[str, Any] | None, dict[str, Any] | None]]) -> None:
        """Store several (call, sample row) pairs in one transaction: all of them or none."""
        c = self.conn
        c.execute("BEGIN IMMEDIATE")
        try:
            for call, sample in items:
                if call is not None:
                    c.execute(f"INSERT OR REPLACE INTO calls ({', '.join(call)}) "
                              f"VALUES ({', '.join('?' * len(call))})", _storable(call.values()))
                if sample is not None:
                    c.execute(f"INSERT OR REPLACE INTO samples ({', '.join(sample)}) "
                              f"VALUES ({', '.join('?' * len(sample))})", _storable(sample.values()))
            c.execute("COMMIT")
        except BaseException:
            c.execute("ROLLBACK")
            raise

    def discard_failed(self, run_id: str, model: str, key: SampleKey) -> None:
        """Forget a failed attempt at a sample before retrying it (its successful turns stay)."""
        c = self.conn
        c.execute("BEGIN IMMEDIATE")
        c.execute("DELETE FROM samples WHERE run_id=? AND model=? AND condition=? AND uid=? AND epoch=? "
                  "AND status != 'ok'", (run_id, model, key.condition, key.uid, key.epoch))
        c.execute("DELETE FROM calls WHERE run_id=? AND model=? AND condition=? AND uid=? AND epoch=? "
                  "AND error IS NOT NULL", (run_id, model, key.condition, key.uid, key.epoch))
        c.execute("COMMIT")
