"""Kill -9 during the caption filter, then rerun: no committed call is sent again and nothing is lost."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from urllib.parse import quote

from curate_fixtures import make_config
from typer.testing import CliRunner

from vcot.cli import app

runner = CliRunner()


def _committed(db) -> set[str]:
    """Mock-server keys (the X-Vcot-Call tag) of every call whose sample row is committed."""
    if not db.exists():
        return set()
    con = sqlite3.connect(db, timeout=10)
    try:
        rows = con.execute("SELECT run_id, uid, condition, epoch FROM samples WHERE status='ok'").fetchall()
    except sqlite3.OperationalError:  # the schema is not written yet
        return set()
    finally:
        con.close()
    return {"|".join(quote(str(x), safe="") for x in (r, u, c, e, 0)) for r, u, c, e in rows}


def test_sigkill_during_filter_then_rerun(mock, tmp_path):
    config = make_config(tmp_path, mock.base_url)
    data = json.loads(config.read_text())
    data["concurrency"] = 4
    config.write_text(json.dumps(data))
    for stage in ("ingest", "sample"):
        assert runner.invoke(app, ["curate", stage, str(config)]).exit_code == 0
    mock.reset()
    mock.configure(latency_s=0.03)
    db = tmp_path / "work" / "curate.sqlite"
    proc = subprocess.Popen(
        [sys.executable, "-m", "vcot.cli", "curate", "filter", str(config), "--tag-requests"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 120
        while len(_committed(db)) < 150 and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert proc.poll() is None, "the filter finished before the kill point"
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    finally:
        if proc.poll() is None:
            proc.kill()
    at_kill = _committed(db)
    assert 150 <= len(at_kill) < 720
    sent_before = dict(mock.stats()["by_key"])
    mock.configure(latency_s=0.0)
    r = runner.invoke(app, ["curate", "filter", str(config), "--json", "--tag-requests"])
    assert r.exit_code == 0, r.output
    summary = json.loads(next(line for line in r.output.splitlines() if line.startswith("{")))
    assert summary["kept"] + summary["removed"] == 120 and summary["calls_sent"] == 720 - len(at_kill)
    by_key = mock.stats()["by_key"]
    # no call committed before the kill was sent again; at most the calls in flight at the kill were
    assert all(by_key[k] == 1 for k in at_kill), [k for k in at_kill if by_key[k] != 1][:5]
    in_flight = [k for k, n in by_key.items() if n > 1]
    assert len(in_flight) <= 4 and all(sent_before.get(k) == 1 for k in in_flight)
    # nothing lost: every call is stored once, every candidate decided
    assert _committed(db) == set(by_key) and len(by_key) == 720
