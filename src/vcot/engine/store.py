"""The run store: one SQLite file (WAL) per run folder.

Tables:
- `runs`: the run's identity and settings, written once (suite hash, vcot/prompt version, model,
  generation settings, image policy). Never credentials.
- `calls`: one row per (run, model, condition, uid, epoch, turn): request digest and record, raw response,
  usage, latency, attempts, error, timestamps.
- `samples`: one row per (run, model, condition, uid, epoch) once the sample is finished (answered or
  failed), with what the results table needs.
- `endpoints`: with several endpoints, one row per (run, invocation, endpoint): its URL without credentials
  and its figures (requests, answered, errors by kind, mean and median latency, times taken out). Provenance
  only: nothing resumes from it.

Every finished call is committed before its worker moves on, and a sample's last call and its `samples`
row are in one transaction (the runner commits the calls that finish in the same event-loop turn together), so a
process killed at any moment leaves either a complete sample or one the
next run resumes. In WAL mode with synchronous=NORMAL a commit survives the process being killed.
"""

from __future__ import annotations

import errno
import json
import os
import sqlite3
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vcot.engine.errors import ConfigError
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
CREATE TABLE IF NOT EXISTS endpoints (
    run_id TEXT NOT NULL, session REAL NOT NULL, position INTEGER NOT NULL, url TEXT NOT NULL,
    stats TEXT NOT NULL,
    PRIMARY KEY (run_id, session, position)
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


class StoreDamaged(ConfigError, ValueError):
    """A run store that cannot be trusted: not SQLite, cut short, emptied or missing a table. A ConfigError so
    that `vcot eval` stops before sending anything, a ValueError so that the report commands say it in one
    line; the message names the file and what to do."""

    what: str = ""


class NotARunFolder(FileNotFoundError):
    """The folder given as a run folder is none (missing, a file, a suite, or no run store in it)."""


# Tables a store has had since its first version; `endpoints` came later, so it may be missing.
_REQUIRED_TABLES = ("meta", "runs", "calls", "samples")
_SQLITE_MAGIC = b"SQLite format 3\x00"
_SQLITE_FULL = 13  # sqlite3 result code of a write that found the disk full


def damaged(path: Path, what: str) -> StoreDamaged:
    exc = StoreDamaged(
        f"{path}: the run store is damaged ({what}); restore it from a backup, or rerun into a "
        "new folder (--run NEW_DIR)"
    )
    exc.what = what  # for stores of other commands, which say it in their own words
    return exc


def parse_settings(path: Path, run_id: str, text: Any) -> dict[str, Any]:
    """A run's stored settings as the JSON object `init_run` wrote; anything else (edited, cut short) is a
    damaged store, said in one line instead of a JSONDecodeError."""
    try:
        settings = json.loads(text)
    except (TypeError, ValueError, RecursionError):
        settings = None
    if not isinstance(settings, dict):
        raise damaged(path, f"the settings of run {run_id} are not a JSON object")
    return settings


def check_store_file(path: Path) -> None:
    """Refuse a store file that is empty, not SQLite, or shorter than its own header says (a truncated copy
    reads as a smaller run without any error from SQLite until a lost page is touched). Reads 100 bytes."""
    try:
        with open(path, "rb") as fh:
            size = os.fstat(fh.fileno()).st_size
            head = fh.read(100)
    except OSError as exc:
        raise damaged(path, f"cannot be read: {exc.strerror or exc}") from None
    if size == 0:
        raise damaged(path, "the file is empty (0 bytes)")
    if len(head) < 100 or head[:16] != _SQLITE_MAGIC:
        raise damaged(path, "it is not an SQLite database: its header is overwritten")
    page = int.from_bytes(head[16:18], "big")
    page = 65536 if page == 1 else page
    pages = int.from_bytes(head[28:32], "big")
    # The page count in the header is valid only when its version number matches the change counter.
    if head[24:28] == head[92:96] and pages and size < pages * page:
        raise damaged(path, f"truncated: {size} bytes of the {pages * page} its header records")


def check_tables(conn: sqlite3.Connection, path: Path) -> None:
    try:
        found = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    except sqlite3.DatabaseError as exc:
        raise damaged(path, str(exc)) from None
    missing = [t for t in _REQUIRED_TABLES if t not in found]
    if missing:
        raise damaged(path, f"table {', '.join(missing)} missing")


def open_readonly(run_dir: str | Path) -> sqlite3.Connection:
    """The run folder's store, read-only, checked: NotARunFolder when `run_dir` holds none, StoreDamaged when
    it is damaged."""
    run_dir = Path(run_dir)
    path = run_dir / STORE_NAME
    if not run_dir.exists():
        raise NotARunFolder(f"{run_dir}: not found; give a run folder (vcot eval SUITE --run DIR writes one)")
    if not run_dir.is_dir():
        raise NotARunFolder(f"{run_dir}: is a file, not a run folder (vcot eval SUITE --run DIR writes one)")
    if (run_dir / "manifest.json").is_file() and (run_dir / "instances.jsonl").is_file():
        raise NotARunFolder(
            f"{run_dir} is a suite (it has manifest.json and instances.jsonl); pass a run folder "
            f"(vcot eval {run_dir} --run DIR writes one)"
        )
    if not path.is_file():
        raise NotARunFolder(f"{path}: no run store (is {run_dir} a vcot run folder?)")
    check_store_file(path)
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    except sqlite3.DatabaseError as exc:
        raise damaged(path, str(exc)) from None
    try:
        check_tables(conn, path)
    except BaseException:
        conn.close()
        raise
    return conn


def disk_full(exc: sqlite3.Error, path: Path) -> OSError | None:
    """The OSError (ENOSPC, naming the file) of a write SQLite refused for want of space, else None."""
    if getattr(exc, "sqlite_errorcode", None) == _SQLITE_FULL or "disk is full" in str(exc):
        return OSError(errno.ENOSPC, "No space left on device", str(path))
    return None


@dataclass(frozen=True, slots=True)
class SampleKey:
    condition: str
    uid: str
    epoch: int


class RunStore:
    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # A store that exists is checked before anything is written to it: `CREATE TABLE IF NOT EXISTS` would
        # silently replace a lost table, and SQLite would make an emptied file a new, empty run.
        existing = self.path.exists()
        if existing:
            check_store_file(self.path)
        try:
            # Autocommit mode: transactions are explicit, so each commit point is visible in the code.
            self.conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        except sqlite3.DatabaseError as exc:
            raise damaged(self.path, str(exc)) from None
        try:
            if existing:
                check_tables(self.conn, self.path)
            self.conn.execute("PRAGMA journal_mode=WAL")
            self.conn.execute("PRAGMA synchronous=NORMAL")
            self.conn.execute("PRAGMA busy_timeout=10000")
            self.conn.executescript(_SCHEMA)
            cols = {r[1] for r in self.conn.execute("PRAGMA table_info(samples)")}
            if "episode" not in cols:  # stores written before episodes were recorded
                self.conn.execute("ALTER TABLE samples ADD COLUMN episode TEXT")
            self.conn.execute("INSERT OR IGNORE INTO meta VALUES ('schema_version', ?)", (SCHEMA_VERSION,))
        except sqlite3.DatabaseError as exc:
            self.conn.close()
            full = disk_full(exc, self.path)
            if full is not None:
                raise full from None
            raise damaged(self.path, str(exc)) from None
        except StoreDamaged:
            self.conn.close()
            raise

    def close(self) -> None:
        self.conn.close()

    # -- run settings ----------------------------------------------------------------------------------

    def run_settings(self, run_id: str | None = None) -> dict[str, Any] | None:
        sql = "SELECT settings FROM runs" + (" WHERE run_id = ?" if run_id else " ORDER BY created_at LIMIT 1")
        row = self.conn.execute(sql, (run_id,) if run_id else ()).fetchone()
        return parse_settings(self.path, run_id or "(first)", row[0]) if row else None

    def run_ids(self) -> list[str]:
        return [r[0] for r in self.conn.execute("SELECT run_id FROM runs ORDER BY created_at")]

    def init_run(self, run_id: str, settings: dict[str, Any]) -> None:
        self.conn.execute(
            "INSERT OR IGNORE INTO runs VALUES (?, ?, ?)", (run_id, time.time(), json.dumps(settings, sort_keys=True))
        )

    # -- resume ------------------------------------------------------------------------------------------

    def finished(self, run_id: str, model: str, include_errors: bool = False) -> set[SampleKey]:
        sql = "SELECT condition, uid, epoch FROM samples WHERE run_id = ? AND model = ?"
        if not include_errors:
            sql += " AND status = 'ok'"
        return {SampleKey(c, u, e) for c, u, e in self.conn.execute(sql, (run_id, model))}

    def started(self, run_id: str, model: str) -> set[SampleKey]:
        """Samples with any stored call: those a resumed run must replay or clean up first."""
        return {
            SampleKey(c, u, e)
            for c, u, e in self.conn.execute(
                "SELECT DISTINCT condition, uid, epoch FROM calls WHERE run_id = ? AND model = ?", (run_id, model)
            )
        }

    def done_turns(self, run_id: str, model: str, key: SampleKey) -> list[dict[str, Any]]:
        """Successful turns of a sample, in order (a resumed multi-turn sample replays them)."""
        cur = self.conn.execute(
            "SELECT turn, request_digest, text, tool_calls, finish_reason, input_tokens, output_tokens, response, "
            "latency_s FROM calls WHERE run_id=? AND model=? AND condition=? AND uid=? AND epoch=? AND error IS NULL "
            "ORDER BY turn",
            (run_id, model, key.condition, key.uid, key.epoch),
        )
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
                    c.execute(
                        f"INSERT OR REPLACE INTO calls ({', '.join(call)}) VALUES ({', '.join('?' * len(call))})",
                        _storable(call.values()),
                    )
                if sample is not None:
                    c.execute(
                        f"INSERT OR REPLACE INTO samples ({', '.join(sample)}) VALUES ({', '.join('?' * len(sample))})",
                        _storable(sample.values()),
                    )
            c.execute("COMMIT")
        except BaseException as exc:
            c.execute("ROLLBACK")
            full = disk_full(exc, self.path) if isinstance(exc, sqlite3.Error) else None
            if full is not None:
                raise full from None
            raise

    def record_endpoints(self, run_id: str, session: float, rows: list[dict[str, Any]]) -> None:
        """One invocation's per-endpoint figures (`session`: when it started), in the order given."""
        c = self.conn
        c.execute("BEGIN IMMEDIATE")
        try:
            c.executemany(
                "INSERT OR REPLACE INTO endpoints VALUES (?, ?, ?, ?, ?)",
                [(run_id, session, i, str(r.get("url", "")), _json_text(r)) for i, r in enumerate(rows)],
            )
            c.execute("COMMIT")
        except BaseException:
            c.execute("ROLLBACK")
            raise

    def discard_failed(self, run_id: str, model: str, key: SampleKey) -> None:
        """Forget a failed attempt at a sample before retrying it (its successful turns stay)."""
        c = self.conn
        c.execute("BEGIN IMMEDIATE")
        c.execute(
            "DELETE FROM samples WHERE run_id=? AND model=? AND condition=? AND uid=? AND epoch=? AND status != 'ok'",
            (run_id, model, key.condition, key.uid, key.epoch),
        )
        c.execute(
            "DELETE FROM calls WHERE run_id=? AND model=? AND condition=? AND uid=? AND epoch=? AND error IS NOT NULL",
            (run_id, model, key.condition, key.uid, key.epoch),
        )
        c.execute("COMMIT")
