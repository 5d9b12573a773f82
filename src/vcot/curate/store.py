"""The curation store: the engine's run store (`vcot.engine.store.RunStore`) plus a table of decisions.

Every model call of a stage is one engine `calls` row and one `samples` row, committed together as the engine
does (docs/engine.md, "Run store"): run id `curate-<role>`, condition `<stage>`, uid the
candidate, epoch the trial. A rerun asks `done()` first and sends only the calls that have no row, so a process
killed at any moment loses at most the calls in flight. Decisions (one per stage and candidate, with the
reason) live in `decisions`, written after the calls they rest on.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from pathlib import Path
from typing import Any

from vcot.curate import checks
from vcot.engine.store import RunStore, StoreDamaged

STORE_NAME = "curate.sqlite"

_DECISIONS = """
CREATE TABLE IF NOT EXISTS decisions (
    stage TEXT NOT NULL, uid TEXT NOT NULL, verdict TEXT NOT NULL, reason TEXT, details TEXT, decided_at REAL,
    PRIMARY KEY (stage, uid)
);
"""


class StoreError(ValueError):
    """The work folder's store cannot be opened."""


class SettingsMismatch(ValueError):
    """A role's model or settings differ from what the work folder's store was made with."""


class CurationStore:
    def __init__(self, work: str | Path) -> None:
        self.work = Path(work)
        if os.path.lexists(self.work / STORE_NAME):  # SQLite would block on a FIFO left in its place
            checks.regular_file(self.work / STORE_NAME, "curation store", StoreError)
        try:
            self.runs = RunStore(self.work / STORE_NAME)
            self.conn = self.runs.conn
            self.conn.executescript(_DECISIONS)
        except StoreDamaged as exc:
            raise StoreError(
                f"{self.work / STORE_NAME}: not a usable curation store ({exc.what}); restore it "
                "from a backup, or curate into a new work folder"
            ) from None
        except sqlite3.Error as exc:  # a damaged or foreign file where the store should be
            raise StoreError(f"{self.work / STORE_NAME}: not a usable curation store ({exc})") from None

    def close(self) -> None:
        self.runs.close()

    # -- roles and calls -------------------------------------------------------------------------------------

    def init_role(self, role: str, settings: dict[str, Any]) -> str:
        """The run id of a role; refuses a different model or settings for a role already used here."""
        run_id = f"curate-{role}"
        old = self.runs.run_settings(run_id)
        if old is not None and old != json.loads(json.dumps(settings, sort_keys=True)):
            raise SettingsMismatch(
                f"role {role!r} was run with {old}, now {settings}: use a new work folder, or the "
                "stored calls would mix two models"
            )
        self.runs.init_run(run_id, settings)
        return run_id

    def done(self, run_id: str, stage: str, uid: str, trial: int) -> dict[str, Any] | None:
        """The stored reply of a finished call (text, tokens, latency), or None."""
        row = self.conn.execute(
            "SELECT c.text, c.input_tokens, c.output_tokens, c.latency_s FROM samples s JOIN calls c ON "
            "c.run_id=s.run_id AND c.model=s.model AND c.condition=s.condition AND c.uid=s.uid AND c.epoch=s.epoch "
            "WHERE s.run_id=? AND s.condition=? AND s.uid=? AND s.epoch=? AND s.status='ok' AND c.turn=0",
            (run_id, stage, uid, trial),
        ).fetchone()
        if row is None:
            return None
        return {"text": row[0] or "", "input_tokens": row[1], "output_tokens": row[2], "latency_s": row[3]}

    def record_call(
        self, run_id: str, model: str, stage: str, uid: str, trial: int, call: dict[str, Any], ok: bool
    ) -> None:
        """One call and its sample row, atomically (RunStore.record)."""
        base = {"run_id": run_id, "model": model, "condition": stage, "uid": uid, "epoch": trial}
        sample = None
        if ok:
            sample = {
                **base,
                "status": "ok",
                "response": call.get("text"),
                "n_turns": 1,
                "input_tokens": call.get("input_tokens"),
                "output_tokens": call.get("output_tokens"),
                "latency_s": call.get("latency_s"),
                "finished_at": time.time(),
            }
        self.runs.record({**base, "turn": 0, **call}, sample)

    def calls_of(self, stage: str, uid: str) -> list[dict[str, Any]]:
        """Every finished call of a stage for one candidate: role, trial and reply."""
        cur = self.conn.execute(
            "SELECT run_id, epoch, text FROM calls WHERE condition=? AND uid=? AND error IS NULL ORDER BY run_id, "
            "epoch",
            (stage, uid),
        )
        return [{"role": r[0].removeprefix("curate-"), "trial": r[1], "text": r[2] or ""} for r in cur]

    def usage(self) -> dict[str, dict[str, float]]:
        """Calls, tokens and latency per role and stage (the cost accounting of the curation report)."""
        out: dict[str, dict[str, float]] = {}
        for run_id, stage, n, tin, tout, lat in self.conn.execute(
            "SELECT run_id, condition, count(*), sum(input_tokens), sum(output_tokens), sum(latency_s) FROM "
            "calls WHERE error IS NULL GROUP BY run_id, condition ORDER BY run_id, condition"
        ):
            out[f"{stage}/{run_id.removeprefix('curate-')}"] = {
                "calls": n,
                "input_tokens": tin or 0,
                "output_tokens": tout or 0,
                "latency_s": lat or 0.0,
            }
        return out

    # -- decisions ---------------------------------------------------------------------------------------------

    def decide(self, stage: str, uid: str, verdict: str, reason: str, details: dict[str, Any] | None = None) -> None:
        self.conn.execute(
            "INSERT OR REPLACE INTO decisions VALUES (?, ?, ?, ?, ?, ?)",
            (stage, uid, verdict, reason, json.dumps(details or {}, sort_keys=True), time.time()),
        )

    def decision(self, stage: str, uid: str) -> dict[str, Any] | None:
        row = self.conn.execute(
            "SELECT verdict, reason, details FROM decisions WHERE stage=? AND uid=?", (stage, uid)
        ).fetchone()
        return None if row is None else {"verdict": row[0], "reason": row[1], "details": json.loads(row[2] or "{}")}

    def decisions(self, stage: str) -> dict[str, dict[str, Any]]:
        return {
            u: {"verdict": v, "reason": r, "details": json.loads(d or "{}")}
            for u, v, r, d in self.conn.execute(
                "SELECT uid, verdict, reason, details FROM decisions WHERE stage=? ORDER BY uid", (stage,)
            )
        }
