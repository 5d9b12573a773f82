"""One evaluation over several mock servers of one model (issue 30): the work is shared, a server that dies
mid-run loses no sample and answers none twice, an endpoint that does not serve the model is refused at
start, and the closing output gives each endpoint's figures."""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from vcot.cli import app
from vcot.engine.mock import MockHandle, spawn_mock_server
from vcot.engine.runner import EvalSpec, Progress, run_eval

N_INSTANCES = 60  # of suite_large (300), one condition, one epoch


@pytest.fixture
def three(suite_large: Path) -> Iterator[list[MockHandle]]:
    servers = [spawn_mock_server(suite_large, "--latency", "0.05") for _ in range(3)]
    yield servers
    for s in servers:
        s.stop()


def _spec(suite: Path, servers: list[MockHandle], run: Path, **extra: Any) -> EvalSpec:
    from vcot.engine.retry import RetryPolicy

    return EvalSpec(
        suite=suite,
        model="mock",
        base_url=[s.base_url for s in servers],
        conditions=["direct"],
        limit=N_INSTANCES // 2,
        concurrency=12,
        run_dir=run,
        tag_requests=True,
        retry=RetryPolicy(initial_s=0.05, max_backoff_s=0.2),
        **extra,
    )


def _answered(run: Path) -> dict[tuple[str, str, int], int]:
    """Per sample, how many answered calls the store holds for it."""
    conn = sqlite3.connect(run / "run.sqlite")
    try:
        return {
            (c, u, e): n
            for c, u, e, n in conn.execute(
                "SELECT condition, uid, epoch, count(*) FROM calls WHERE error IS NULL GROUP BY condition, uid, epoch"
            )
        }
    finally:
        conn.close()


def _served(server: MockHandle) -> dict[str, int]:
    return {k: v for k, v in server.stats()["ok_by_key"].items()}


def test_three_endpoints_share_the_work(suite_large: Path, three: list[MockHandle], tmp_path: Path) -> None:
    result = run_eval(_spec(suite_large, three, tmp_path / "run"))
    assert result.progress.done == N_INSTANCES and result.progress.errors == 0
    shares = [s.stats()["requests"] for s in three]
    assert sum(shares) == N_INSTANCES
    assert min(shares) >= N_INSTANCES / 3 * 0.6, shares  # least-loaded: roughly even
    assert result.endpoints is not None
    assert [e["requests"] for e in result.endpoints] == shares
    assert all(e["p50_s"] >= 0.05 for e in result.endpoints)
    assert set(_answered(tmp_path / "run").values()) == {1}


def test_an_endpoint_killed_mid_run_loses_nothing_and_duplicates_nothing(
    suite_large: Path, three: list[MockHandle], tmp_path: Path
) -> None:
    victim = three[0]
    before: dict[str, int] = {}

    def on_progress(p: Progress) -> None:
        if p.done == N_INSTANCES // 4 and not before:
            before.update(_served(victim))  # what it answered, then at once dead (SIGKILL: no goodbye)
            victim.proc.kill()
            victim.proc.wait(5)

    run = tmp_path / "run"
    result = run_eval(_spec(suite_large, three, run), on_progress=on_progress)
    assert before, "the kill never happened"
    assert result.progress.done == N_INSTANCES and result.progress.errors == 0  # 0 lost
    answered = _answered(run)
    assert len(answered) == N_INSTANCES and set(answered.values()) == {1}  # each sample answered once
    served = [before, _served(three[1]), _served(three[2])]
    keys = [k for counts in served for k, n in counts.items() for _ in range(n)]
    assert len(keys) == len(set(keys)), "a call was answered by two servers"
    survivors = sum(sum(c.values()) for c in served[1:])
    assert survivors > N_INSTANCES * 2 / 3  # the victim's remaining share went to the others
    figures = result.endpoints or []
    assert figures[0]["taken_out"] >= 1 and figures[0]["errors"] >= 1
    assert figures[1]["errors"] == figures[2]["errors"] == 0


class _Lister:
    """An OpenAI-compatible stand-in on a thread whose GET /v1/models lists `models` (and nothing else)."""

    def __init__(self, models: list[str]) -> None:
        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:  # noqa: N802
                data = json.dumps({"object": "list", "data": [{"id": m, "object": "model"} for m in models]})
                self.send_response(200 if self.path.rstrip("/") == "/v1/models" else 404)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data.encode())

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def _eval_cli(suite: Path, run: Path, urls: list[str], *extra: str) -> Any:
    args = ["eval", str(suite), "--run", str(run), "--no-progress", "-c", "direct", "--limit", "5"]
    for u in urls:
        args += ["--base-url", u]
    return CliRunner().invoke(app, [*args, *extra])


def test_an_endpoint_without_the_model_is_refused_at_start(
    suite_large: Path, three: list[MockHandle], tmp_path: Path
) -> None:
    other = _Lister(["another-model"])
    try:
        urls = [three[0].base_url, other.url]
        r = _eval_cli(suite_large, tmp_path / "run", urls, "--model", "mock")
        without = _eval_cli(suite_large, tmp_path / "run2", urls)
    finally:
        other.close()
    out = " ".join(r.output.split())
    assert r.exit_code == 2, r.output
    assert f"{other.url} does not list the model 'mock' (it lists: another-model)" in out
    assert not (tmp_path / "run").exists() and three[0].stats()["requests"] == 0
    assert without.exit_code == 2, without.output
    assert "the endpoints serve different models" in " ".join(without.output.split())


def test_the_closing_output_gives_each_endpoint(suite_large: Path, three: list[MockHandle], tmp_path: Path) -> None:
    r = _eval_cli(suite_large, tmp_path / "run", [s.base_url for s in three], "--concurrency", "6")
    assert r.exit_code == 0, r.output
    out = " ".join(r.output.split())
    assert "using model mock, the only one each of the 3 endpoints lists" in out
    assert "endpoints:" in out
    for s in three:
        n = s.stats()["requests"]
        assert f"{s.base_url}: {n} requests" in out
    from vcot.engine.results import results_table

    figures = json.loads(results_table(tmp_path / "run").column("endpoints")[0].as_py())
    assert [f["url"] for f in figures] == [s.base_url for s in three]
    report = CliRunner().invoke(app, ["report", str(tmp_path / "run"), "--out", str(tmp_path / "report")])
    assert report.exit_code == 0, report.output
    md = (tmp_path / "report" / "report.md").read_text()
    assert "Endpoints" in md and all(s.base_url in md for s in three)


def test_credentials_in_a_url_are_never_shown() -> None:
    from vcot.engine.clients.base import display_url

    assert display_url("http://user:sk-secret@host:8000/v1?key=sk-2") == "http://host:8000/v1"
    assert display_url("http://127.0.0.1:8000/v1") == "http://127.0.0.1:8000/v1"
