"""The engine through the real openai client over HTTP against the local mock server (clients unpatched)."""

from __future__ import annotations

import math
import os
import re
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pyarrow.parquet as pq
import pytest

from vcot.analysis.build_report import scored
from vcot.analysis.tables import condition_cells
from vcot.analysis.units import to_samples
from vcot.engine.errors import ConfigError
from vcot.engine.results import results_table
from vcot.engine.retry import RetryPolicy
from vcot.engine.runner import EvalSpec, run_eval
from vcot.engine.settings import GenSettings
from vcot.engine.store import STORE_NAME

FAST_RETRY = RetryPolicy(max_attempts=10, initial_s=0.01, max_backoff_s=0.1)
REQUIRED_COLUMNS = {
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
    "suite_name",
    "suite_hash",
    "prompt_version",
    "vcot_version",
    "settings",
}


def _spec(suite: Path, server, run_dir: Path, **kw) -> EvalSpec:
    kw.setdefault("concurrency", 32)
    kw.setdefault("retry", FAST_RETRY)
    return EvalSpec(suite=suite, model="mock-model", base_url=server.base_url, run_dir=run_dir, tag_requests=True, **kw)


def test_accuracy_matches_policy_within_sampling_error(suite_large, server, tmp_path):
    p = {"direct": 0.3, "visual_cot": 0.8}
    server.configure(p_by_condition=p, seed=11)
    result = run_eval(_spec(suite_large, server, tmp_path / "run", conditions=list(p)))
    assert result.progress.done == 600 and result.progress.errors == 0
    cells = {
        cond: c
        for (_, cond), c in condition_cells(to_samples(scored(results_table(tmp_path / "run").to_pylist()))).items()
    }
    for cond, target in p.items():
        n = cells[cond].n
        assert n == 300
        assert abs(cells[cond].acc - target) < 3 * math.sqrt(target * (1 - target) / n), cells[cond]
    assert server.stats()["requests"] == 600
    table = pq.read_table(tmp_path / "run" / "results.parquet")
    assert REQUIRED_COLUMNS <= set(table.column_names)
    assert table.num_rows == 600
    # DuckDB reads it; usage comes from the server's report.
    con = duckdb.connect()
    n, tokens = con.execute(
        f"SELECT count(DISTINCT (condition, uid, epoch)), min(input_tokens) "
        f"FROM '{tmp_path / 'run' / 'results.parquet'}'"
    ).fetchone()
    assert n == 600 and tokens > 0


def _answers(run_dir: Path) -> list[tuple]:
    table = pq.read_table(run_dir / "results.parquet").to_pylist()
    return sorted((r["condition"], r["uid"], r["epoch"], r["response"], r["error"]) for r in table)


def test_faults_lose_nothing_and_change_nothing(suite_large, server, tmp_path):
    conds = ["direct", "text_cot"]
    spec = dict(conditions=conds, limit=75, settings=GenSettings(timeout_s=0.5))
    server.configure(p=0.5, seed=5)
    clean = run_eval(_spec(suite_large, server, tmp_path / "clean", **spec))
    assert clean.progress.done == 300 and clean.progress.retries == 0
    server.configure(fault_rate=0.2, hang_s=1.0, retry_after_s=0.02)
    server.reset()
    faulty = run_eval(_spec(suite_large, server, tmp_path / "faulty", **spec))
    stats = server.stats()
    assert set(stats["faults"]) == {"429", "500", "timeout", "malformed", "truncated", "drop"}
    assert sum(stats["faults"].values()) >= 30
    assert faulty.progress.retries == sum(stats["faults"].values())
    assert faulty.progress.done == 300 and faulty.progress.errors == 0
    got = _answers(tmp_path / "faulty")
    assert len({r[:3] for r in got}) == len(got) == 300
    assert got == _answers(tmp_path / "clean")
    # Every sample reached the server as one successful response, whatever failed around it.
    assert sum(stats["ok_by_key"].values()) == 300 and set(stats["ok_by_key"].values()) == {1}


def test_retry_after_is_honoured_and_retries_are_bounded(suite_large, server, tmp_path):
    server.configure(fault_rate=1.0, faults=["429"], retry_after_s=0.3)
    t0 = time.perf_counter()
    result = run_eval(
        _spec(
            suite_large,
            server,
            tmp_path / "run",
            conditions=["direct"],
            limit=1,
            tasks=["overlap"],
            retry=RetryPolicy(max_attempts=3, initial_s=0.001, max_backoff_s=0.001),
        )
    )
    elapsed = time.perf_counter() - t0
    assert result.progress.errors == 1 and result.progress.retries == 2
    assert server.stats()["requests"] == 3
    assert elapsed >= 0.6  # two waits of the server's Retry-After, not the 1 ms backoff
    (row,) = pq.read_table(tmp_path / "run" / "results.parquet").to_pylist()
    assert row["error"].startswith("429") and row["response"] is None


def _eval_cmd(suite: Path, server, run_dir: Path, *extra: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "vcot.cli",
        "eval",
        "--suite",
        str(suite),
        "--model",
        "mock-model",
        "--base-url",
        server.base_url,
        "--run",
        str(run_dir),
        "--conditions",
        "direct",
        "--tag-requests",
        "--concurrency",
        "4",
        "--no-progress",
        *extra,
    ]


def _ok_keys(run_dir: Path) -> set[tuple]:
    conn = sqlite3.connect(f"file:{run_dir / STORE_NAME}?mode=ro", uri=True)
    try:
        return set(conn.execute("SELECT run_id, uid, condition, epoch FROM samples WHERE status = 'ok'"))
    finally:
        conn.close()


def test_sigkill_then_rerun_completes_exactly_once(suite_large, server, tmp_path):
    server.configure(latency_s=0.03)
    run_dir = tmp_path / "run"
    proc = subprocess.Popen(
        _eval_cmd(suite_large, server, run_dir, "--limit", "100"), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    deadline = time.monotonic() + 60
    done_before: set[tuple] = set()
    while time.monotonic() < deadline:
        if (run_dir / STORE_NAME).exists():
            try:
                done_before = _ok_keys(run_dir)
            except sqlite3.OperationalError:
                pass
        if len(done_before) >= 40:
            break
        time.sleep(0.02)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    done_before = _ok_keys(run_dir)  # what was committed when the process died
    assert 40 <= len(done_before) < 200, "the kill must land mid-run"
    at_kill = server.stats()["by_key"]
    rerun = subprocess.run(
        _eval_cmd(suite_large, server, run_dir, "--limit", "100"), capture_output=True, text=True, timeout=120
    )
    assert rerun.returncode == 0, rerun.stderr
    after = server.stats()["by_key"]
    for run_id, uid, cond, epoch in done_before:
        key = f"{run_id}|{uid}|{cond}|{epoch}|0"
        assert after[key] == at_kill[key], f"finished call {key} was sent again"
    rows = pq.read_table(run_dir / "results.parquet").to_pylist()
    keys = [(r["uid"], r["condition"], r["epoch"]) for r in rows]
    assert len(keys) == len(set(keys)) == 200 and all(r["error"] is None for r in rows)
    # Only the missing calls (plus any in flight at the kill) were sent on the rerun.
    assert sum(after.values()) - sum(at_kill.values()) <= 200 - len(done_before) + 4


def test_requests_per_minute_paces_calls(suite_small, server, tmp_path):
    t0 = time.perf_counter()
    result = run_eval(
        EvalSpec(
            suite=suite_small,
            model="m",
            base_url=server.base_url,
            conditions=["direct"],
            run_dir=tmp_path / "run",
            requests_per_minute=600,
            concurrency=12,
        )
    )
    assert result.progress.done == 12
    assert time.perf_counter() - t0 >= 1.0  # 12 calls at 10 per second, despite 12 slots


def test_resume_of_a_finished_run_sends_nothing(suite_small, server, tmp_path):
    spec = EvalSpec(
        suite=suite_small,
        model="m",
        base_url=server.base_url,
        conditions=["direct", "visual_cot"],
        run_dir=tmp_path / "run",
        retry=FAST_RETRY,
    )
    assert run_eval(spec).progress.done == 24
    n = server.stats()["requests"]
    again = run_eval(spec)
    assert again.progress.done == 0 and again.progress.resumed == 24
    assert server.stats()["requests"] == n
    changed = EvalSpec(**{**spec.__dict__, "settings": GenSettings(temperature=0.7)})
    with pytest.raises(ConfigError, match="different generation"):
        run_eval(changed)


def test_keys_never_reach_the_store_or_results(suite_small, server, tmp_path, monkeypatch):
    secret = "sk-test-DO-NOT-STORE-4b1d9e"
    monkeypatch.setenv("VCOT_TEST_KEY", secret)
    spec = EvalSpec(
        suite=suite_small,
        model="m",
        base_url=server.base_url,
        api_key_env="VCOT_TEST_KEY",
        conditions=["direct"],
        run_dir=tmp_path / "run",
        retry=FAST_RETRY,
    )
    assert run_eval(spec).progress.done == 12
    files = list((tmp_path / "run").iterdir())
    assert any(f.name == STORE_NAME for f in files) and any(f.name == "results.parquet" for f in files)
    for f in files:
        assert secret.encode() not in f.read_bytes(), f.name
    settings = sqlite3.connect(tmp_path / "run" / STORE_NAME).execute("SELECT settings FROM runs").fetchone()[0]
    assert "VCOT_TEST_KEY" in settings  # the variable's name is recorded, never its value


def test_missing_api_key_names_the_variable(suite_small, monkeypatch, tmp_path):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ConfigError, match="OPENAI_API_KEY"):
        run_eval(EvalSpec(suite=suite_small, model="openai/gpt-4o", run_dir=tmp_path / "r"))
    monkeypatch.delenv("MY_ENDPOINT_KEY", raising=False)
    with pytest.raises(ConfigError, match="MY_ENDPOINT_KEY"):
        run_eval(
            EvalSpec(
                suite=suite_small,
                model="m",
                base_url="http://127.0.0.1:9/v1",
                api_key_env="MY_ENDPOINT_KEY",
                run_dir=tmp_path / "r",
            )
        )


def test_unknown_provider_and_model(suite_small, tmp_path):
    with pytest.raises(ConfigError, match="unknown provider 'acme'"):
        run_eval(EvalSpec(suite=suite_small, model="acme/model-1", run_dir=tmp_path / "r"))
    with pytest.raises(ConfigError, match="unknown model 'gpt-4o'"):
        run_eval(EvalSpec(suite=suite_small, model="gpt-4o", run_dir=tmp_path / "r"))


def test_unreachable_endpoint_fails_early_without_retries(suite_small, tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again: nothing listens there
    t0 = time.perf_counter()
    with pytest.raises(ConfigError, match=rf"connection refused: nothing listens at http://127.0.0.1:{port}/v1"):
        run_eval(EvalSpec(suite=suite_small, model="m", base_url=f"http://127.0.0.1:{port}/v1", run_dir=tmp_path / "r"))
    assert time.perf_counter() - t0 < 5
    assert not (tmp_path / "r").exists()


def test_condition_the_suite_cannot_serve_errors_before_any_call(tmp_path, server):
    from engine_fixtures import make_samples

    from vcot.suite import write_suite

    samples = make_samples(4, seed=9)
    samples[2].instance.steps.clear()
    write_suite(tmp_path / "s", "partial", samples)
    with pytest.raises(ConfigError, match=rf"'visual_cot' cannot be served for 1 of 4 .*{samples[2].instance.uid}"):
        run_eval(
            EvalSpec(
                suite=tmp_path / "s",
                model="m",
                base_url=server.base_url,
                conditions=["direct", "visual_cot"],
                run_dir=tmp_path / "r",
            )
        )
    assert server.stats()["requests"] == 0
    # Defaulted conditions skip what cannot be served instead.
    result = run_eval(EvalSpec(suite=tmp_path / "s", run_dir=tmp_path / "r2"))
    assert "visual_cot" in result.skipped_conditions and "direct" in result.conditions


def test_optional_provider_sdks_fail_clearly(monkeypatch):
    import importlib.util

    from vcot.engine.clients import make_client

    monkeypatch.setenv("ANTHROPIC_API_KEY", "x")
    monkeypatch.setenv("GEMINI_API_KEY", "x")
    for model, module, extra in (
        ("anthropic/claude-x", "anthropic", "vcot[anthropic]"),
        ("google/gemini-x", "google.genai", "vcot[google]"),
    ):
        try:
            installed = importlib.util.find_spec(module) is not None
        except ModuleNotFoundError:
            installed = False
        if installed:
            assert make_client(model).provider == model.split("/")[0]
        else:
            with pytest.raises(ConfigError, match=re.escape(extra)):
                make_client(model)
    monkeypatch.delenv("GEMINI_API_KEY")
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    with pytest.raises(ConfigError, match="GEMINI_API_KEY or GOOGLE_API_KEY"):
        make_client("google/gemini-x")
