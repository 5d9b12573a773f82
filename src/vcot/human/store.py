"""The study's SQLite store (`study.sqlite`, WAL): the assignment, every display of an item, every answer.

Each answer is committed once: the row's key is (participant, position), a second submission of the same
item is ignored and reported as such, and the timing is computed in the same transaction as the insert.
Every write opens its own short connection under one lock, so the store is safe across server threads and
readable (WAL) by `vcot report` while the server runs.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from vcot.human.assign import Job

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS assignments (participant TEXT NOT NULL, position INTEGER NOT NULL, uid TEXT NOT "
    "NULL, condition TEXT NOT NULL, PRIMARY KEY (participant, position), UNIQUE (participant, uid))",
    # One row per time an item page was sent; visible_ms is what the page's script reported for that view.
    "CREATE TABLE IF NOT EXISTS views (participant TEXT NOT NULL, position INTEGER NOT NULL, view INTEGER NOT "
    "NULL, shown_at REAL NOT NULL, visible_ms INTEGER, PRIMARY KEY (participant, position, view))",
    "CREATE TABLE IF NOT EXISTS answers (participant TEXT NOT NULL, position INTEGER NOT NULL, uid TEXT NOT NULL, "
    "condition TEXT NOT NULL, answer TEXT NOT NULL, first_shown REAL NOT NULL, submitted_at REAL NOT NULL, "
    "raw_ms INTEGER NOT NULL, active_ms INTEGER NOT NULL, idle_ms INTEGER, timing TEXT NOT NULL, views INTEGER "
    "NOT NULL, extracted TEXT, correct INTEGER, PRIMARY KEY (participant, position))",
    # Refused submissions, kept so the organiser can see what participants tried (nothing typed is lost).
    "CREATE TABLE IF NOT EXISTS rejected (participant TEXT NOT NULL, position INTEGER NOT NULL, at REAL NOT NULL, "
    "value TEXT NOT NULL, reason TEXT NOT NULL)",
)
T = TypeVar("T")
# Kept in the store so a value typed by a participant never grows it without bound.
MAX_REJECTED_VALUE = 500


@dataclass(frozen=True, slots=True)
class Timing:
    """Time on an item, from its first display to its submission (docs/human.md, "Time on item")."""

    first_shown: float
    raw_ms: int  # server clock: first display → submission
    active_ms: int  # raw minus idle; equal to raw when no script reported
    idle_ms: int | None  # time no view of the item was visible (tab hidden, browser closed); None without script
    timing: str  # "script" or "raw"
    views: int


class StudyStore:
    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        conn = self._connect()
        try:
            # WAL is a property of the file: set once, kept by every later connection.
            conn.execute("PRAGMA journal_mode=WAL")
            for sql in _SCHEMA:
                conn.execute(sql)
            conn.commit()
        finally:
            conn.close()

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, timeout=10.0, isolation_level=None)
        # An acknowledged answer must survive a power cut: FULL syncs the WAL on every commit.
        conn.execute("PRAGMA synchronous=FULL")
        return conn

    def _read(self, sql: str, args: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        conn = self._connect()
        try:
            return conn.execute(sql, args).fetchall()
        finally:
            conn.close()

    def _write(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """Run fn(conn) in one IMMEDIATE transaction (the write lock taken up front, so a check and the insert
        it guards cannot interleave with another writer)."""
        with self._lock:
            conn = self._connect()
            try:
                conn.execute("BEGIN IMMEDIATE")
                try:
                    result = fn(conn)
                except BaseException:
                    conn.execute("ROLLBACK")
                    raise
                conn.execute("COMMIT")
                return result
            finally:
                conn.close()

    # ------------------------------------------------------------------------------------------ assignment

    def add_assignments(self, jobs: Iterable[Job]) -> None:
        rows = [(j.participant, j.position, j.uid, j.condition) for j in jobs]
        self._write(lambda c: c.executemany("INSERT INTO assignments VALUES (?, ?, ?, ?)", rows))

    def has_assignments(self) -> bool:
        return bool(self._read("SELECT 1 FROM assignments LIMIT 1"))

    def jobs(self, participant: str) -> list[Job]:
        return [
            Job(*r)
            for r in self._read(
                "SELECT participant, position, uid, condition FROM assignments WHERE participant=? ORDER BY position",
                (participant,),
            )
        ]

    def all_jobs(self) -> list[Job]:
        return [
            Job(*r)
            for r in self._read(
                "SELECT participant, position, uid, condition FROM assignments ORDER BY participant, position"
            )
        ]

    # --------------------------------------------------------------------------------------------- views

    def open_view(self, participant: str, position: int, now: float) -> int:
        """Record a display of the item; returns its view number (1 for the first display)."""

        def fn(c: sqlite3.Connection) -> int:
            (n,) = c.execute(
                "SELECT COALESCE(MAX(view), 0) + 1 FROM views WHERE participant=? AND position=?",
                (participant, position),
            ).fetchone()
            c.execute("INSERT INTO views VALUES (?, ?, ?, ?, NULL)", (participant, position, n, now))
            return int(n)

        return self._write(fn)

    @staticmethod
    def _report(c: sqlite3.Connection, participant: str, position: int, view: int, visible_ms: int, now: float) -> bool:
        row = c.execute(
            "SELECT shown_at FROM views WHERE participant=? AND position=? AND view=?", (participant, position, view)
        ).fetchone()
        if row is None:
            return False
        # A view cannot have been visible for longer than it existed (a page may send any number).
        cap = max(0, round((now - row[0]) * 1000))
        c.execute(
            "UPDATE views SET visible_ms = MAX(COALESCE(visible_ms, 0), ?) WHERE participant=? AND "
            "position=? AND view=?",
            (min(max(0, visible_ms), cap), participant, position, view),
        )
        return True

    def report_view(self, participant: str, position: int, view: int, visible_ms: int, now: float) -> bool:
        """A page's report of how long it has been visible; ignored once the item is answered."""

        def fn(c: sqlite3.Connection) -> bool:
            if c.execute(
                "SELECT 1 FROM answers WHERE participant=? AND position=?", (participant, position)
            ).fetchone():
                return False
            return self._report(c, participant, position, view, visible_ms, now)

        return self._write(fn)

    # ------------------------------------------------------------------------------------------- answers

    def submit(
        self,
        job: Job,
        answer: str,
        now: float,
        view: int | None,
        visible_ms: int | None,
        extracted: str | None,
        correct: bool | None,
    ) -> Timing | None:
        """Store the answer once, with its timing; None when the item was already answered (the earlier
        answer stays). `visible_ms` is None when the page's script did not run. Raises ValueError when the
        item was never shown."""

        def fn(c: sqlite3.Connection) -> Timing | None:
            key = (job.participant, job.position)
            if c.execute("SELECT 1 FROM answers WHERE participant=? AND position=?", key).fetchone():
                return None
            if view is not None and visible_ms is not None:
                self._report(c, job.participant, job.position, view, visible_ms, now)
            first, n_views, visible = c.execute(
                "SELECT MIN(shown_at), COUNT(*), SUM(COALESCE(visible_ms, 0)) FROM views WHERE participant=? AND "
                "position=?",
                key,
            ).fetchone()
            if first is None:
                raise ValueError("this item was never shown; open it from the study page")
            raw = max(0, round((now - first) * 1000))
            if visible_ms is not None:
                active = min(raw, int(visible))
                timing = Timing(first, raw, active, raw - active, "script", int(n_views))
            else:
                timing = Timing(first, raw, raw, None, "raw", int(n_views))
            c.execute(
                "INSERT INTO answers VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    job.participant,
                    job.position,
                    job.uid,
                    job.condition,
                    answer,
                    first,
                    now,
                    timing.raw_ms,
                    timing.active_ms,
                    timing.idle_ms,
                    timing.timing,
                    timing.views,
                    extracted,
                    None if correct is None else int(correct),
                ),
            )
            return timing

        return self._write(fn)

    def reject(self, participant: str, position: int, value: str, reason: str, now: float) -> None:
        self._write(
            lambda c: c.execute(
                "INSERT INTO rejected VALUES (?, ?, ?, ?, ?)",
                (participant, position, now, value[:MAX_REJECTED_VALUE], reason),
            )
        )

    def answered(self, participant: str) -> set[int]:
        return {r[0] for r in self._read("SELECT position FROM answers WHERE participant=?", (participant,))}

    def answer(self, participant: str, position: int) -> dict[str, Any] | None:
        rows = self._dicts("SELECT * FROM answers WHERE participant=? AND position=?", (participant, position))
        return rows[0] if rows else None

    def answers(self) -> list[dict[str, Any]]:
        return self._dicts("SELECT * FROM answers ORDER BY participant, position")

    def rejections(self) -> list[dict[str, Any]]:
        return self._dicts("SELECT * FROM rejected ORDER BY at")

    def views(self, participant: str, position: int) -> list[dict[str, Any]]:
        return self._dicts(
            "SELECT * FROM views WHERE participant=? AND position=? ORDER BY view", (participant, position)
        )

    def _dicts(self, sql: str, args: tuple[Any, ...] = ()) -> list[dict[str, Any]]:
        conn = self._connect()
        try:
            cur = conn.execute(sql, args)
            names = [d[0] for d in cur.description]
            return [dict(zip(names, r, strict=True)) for r in cur.fetchall()]
        finally:
            conn.close()
