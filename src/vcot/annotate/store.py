"""Human scores in `annotations.sqlite` inside the run folder: one row per (annotator, trajectory)."""

from __future__ import annotations

import dataclasses
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

import pandas as pd

ANNOTATIONS_DB = "annotations.sqlite"
# Exact strings accepted from the form: a lenient float parse would let "1e0" or " 1" through and hide
# a broken client.
SCORE_VALUES: dict[str, float] = {"0": 0.0, "0.5": 0.5, "1": 1.0}


@dataclasses.dataclass
class Annotation:
    annotator: str
    trajectory_id: str
    ar: float
    rf: float
    fu: float
    note: str
    timestamp: float


class AnnotationStore:
    """SQLite table of human scores; a short-lived connection per call keeps it safe across server threads."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        with self._connect() as conn:
            conn.execute(
                "CREATE TABLE IF NOT EXISTS annotations (annotator TEXT NOT NULL, trajectory_id TEXT "
                "NOT NULL, ar REAL NOT NULL, rf REAL NOT NULL, fu REAL NOT NULL, note TEXT NOT NULL "
                "DEFAULT '', timestamp REAL NOT NULL, PRIMARY KEY (annotator, trajectory_id))"
            )

    def _connect(self) -> sqlite3.Connection:
        return sqlite3.connect(self.path, timeout=10.0)

    def _query(self, sql: str, args: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        conn = self._connect()
        try:
            return conn.execute(sql, args).fetchall()
        finally:
            conn.close()

    def put(
        self,
        annotator: str,
        trajectory_id: str,
        ar: float,
        rf: float,
        fu: float,
        note: str = "",
        timestamp: float | None = None,
    ) -> None:
        """Store a score; re-submitting for the same (annotator, trajectory) replaces the row."""
        for dim, v in (("ar", ar), ("rf", rf), ("fu", fu)):
            if v not in SCORE_VALUES.values():
                raise ValueError(f"{dim} must be 0, 0.5 or 1, got {v!r}")
        if not annotator.strip():
            raise ValueError("annotator name is empty")
        with self._lock:
            conn = self._connect()
            try:
                with conn:
                    conn.execute(
                        "INSERT INTO annotations VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT(annotator, trajectory_id) "
                        "DO UPDATE SET ar=excluded.ar, rf=excluded.rf, fu=excluded.fu, note=excluded.note, "
                        "timestamp=excluded.timestamp",
                        (annotator, trajectory_id, ar, rf, fu, note, time.time() if timestamp is None else timestamp),
                    )
            finally:
                conn.close()

    def get(self, annotator: str, trajectory_id: str) -> Annotation | None:
        rows = self._query(
            "SELECT * FROM annotations WHERE annotator=? AND trajectory_id=?", (annotator, trajectory_id)
        )
        return Annotation(*rows[0]) if rows else None

    def all(self) -> list[Annotation]:
        return [Annotation(*r) for r in self._query("SELECT * FROM annotations ORDER BY annotator, trajectory_id")]

    def frame(self) -> pd.DataFrame:
        rows = [dataclasses.asdict(a) for a in self.all()]
        return pd.DataFrame(rows, columns=[f.name for f in dataclasses.fields(Annotation)])
