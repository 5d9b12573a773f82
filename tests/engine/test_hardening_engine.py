"""Issue 18, engine and evaluation commands: keys never sent to a named URL implicitly, a lone surrogate in a
reply, option validation (--rpm, --max-attempts), exit codes for failed samples, resume across endpoint
changes, and Ctrl-C during a run. A small stub server stands in for an OpenAI-compatible endpoint."""

from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from vcot.cli import app

runner = CliRunner()
SECRET = "sk-must-not-travel"


class Stub:
    """An OpenAI-compatible endpoint: `/v1/models` and `/v1/chat/completions`, answering from `reply(n)`
    (n counts chat requests from 1), which returns (status, raw JSON text). Records Authorization headers."""

    def __init__(self, reply: Any, delay: float = 0.0) -> None:
        self.reply = reply
        self.delay = delay
        self.requests = 0
        self.auth: list[str | None] = []
        self.lock = threading.Lock()
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _send(self, status: int, text: str) -> None:
                data = text.encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:  # noqa: N802
                self._send(200, '{"object": "list", "data": []}')

            def do_POST(self) -> None:  # noqa: N802
                self.rfile.read(int(self.headers.get("Content-Length", "0")))
                with stub.lock:
                    stub.requests += 1
                    n = stub.requests
                    stub.auth.append(self.headers.get("Authorization"))
                time.sleep(stub.delay)
                self._send(*stub.reply(n))

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def url(self, host: str = "127.0.0.1") -> str:
        return f"http://{host}:{self.port}/v1"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def completion(content_json: str) -> tuple[int, str]:
    """A chat completion whose message content is the JSON string literal `content_json`, verbatim."""
    return 200, (
        '{"id": "x", "object": "chat.completion", "created": 0, "model": "stub", "choices": [{"index": 0, '
        '"message": {"role": "assistant", "content": ' + content_json + '}, "finish_reason": "stop"}], '
        '"usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}'
    )


def answer(n: int) -> tuple[int, str]:
    return completion('"<answer>3</answer>"')


@pytest.fixture
def stub() -> Iterator[Stub]:
    s = Stub(answer)
    yield s
    s.close()


def _eval(suite: Path, run: Path, *extra: str) -> Any:
    return runner.invoke(
        app, ["eval", "--suite", str(suite), "--run", str(run), "--no-progress", "-c", "direct", *extra]
    )


def _no_traceback(result: Any) -> None:
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)


# -------------------------------------------------------------------------------- 2. keys and base URLs


def test_judge_process_sends_no_key_to_a_base_url_unless_named(
    suite_small: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import vcot.engine.trajectories as trajectories
    import vcot.scoring.process_judge as process_judge

    seen: list[str | None] = []
    monkeypatch.setattr(trajectories, "read_trajectories", lambda run_dir: [])
    monkeypatch.setattr(process_judge, "judge_trajectories", lambda *a, api_key=None, **k: seen.append(api_key) or [])
    monkeypatch.setattr(process_judge, "write_process_scores", lambda run_dir, scores: tmp_path / "scores.jsonl")
    monkeypatch.setattr(process_judge, "rf_calibration", lambda t, s: {"n": 0, "strict": None, "by_condition": {}})
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.setenv("MY_JUDGE_KEY", "sk-named")
    base = [
        "judge-process",
        str(tmp_path),
        "--suite",
        str(suite_small),
        "--judge-model",
        "j",
        "--judge-base-url",
        "http://judge.example/v1",
    ]
    assert runner.invoke(app, base).exit_code == 0
    assert runner.invoke(app, [*base, "--api-key-env", "MY_JUDGE_KEY"]).exit_code == 0
    assert seen == [None, "sk-named"]
    # Without a base URL the provider's variable is used, as `vcot eval --model openai/...` does.
    assert runner.invoke(app, base[:-2]).exit_code == 0
    assert seen[-1] == SECRET
    unset = runner.invoke(app, [*base, "--api-key-env", "NOT_SET_ANYWHERE"])
    assert unset.exit_code == 2 and "NOT_SET_ANYWHERE" in unset.output


def test_llm_judge_with_a_base_url_does_not_fall_back_to_the_provider_key(
    stub: Stub, monkeypatch: pytest.MonkeyPatch
) -> None:
    from vcot.scoring.judge import LLMJudge

    stub.reply = lambda n: completion('"Correct"')
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    verdict = LLMJudge("j", base_url=stub.url(), max_retries=0).judge_answer("q", "3", "<answer>3</answer>")
    assert verdict.correct
    assert stub.auth and all(SECRET not in (a or "") for a in stub.auth), stub.auth
    LLMJudge("j", base_url=stub.url(), api_key="sk-given", max_retries=0).judge_answer("q", "3", "x")
    assert stub.auth[-1] == "Bearer sk-given"


def test_eval_and_judge_process_share_the_api_key_env_option() -> None:
    import inspect

    from vcot.cli.evaluate import eval_command
    from vcot.cli.report import judge_process

    a = inspect.signature(eval_command).parameters["api_key_env"]
    b = inspect.signature(judge_process).parameters["api_key_env"]
    assert a.default is None and b.default is None


# ------------------------------------------------------------------------------- 5. a lone surrogate


def test_a_lone_surrogate_in_a_reply_is_stored_and_the_run_finishes(
    suite_small: Path, tmp_path: Path, stub: Stub
) -> None:
    # "\ud800" escaped in the JSON body: Python decodes it into a str that UTF-8 cannot encode.
    stub.reply = lambda n: completion(
        '"I think \\ud800 so <answer>3</answer> \\ud83d\\ude00"' if n % 3 == 1 else '"<answer>4</answer>"'
    )
    run = tmp_path / "run"
    result = _eval(suite_small, run, "--base-url", stub.url(), "--model", "stub")
    _no_traceback(result)
    assert result.exit_code == 0, result.output
    rows = pq.read_table(run / "results.parquet").to_pylist()
    assert len(rows) == 12 and all(r["error"] is None for r in rows)
    odd = [r["response"] for r in rows if "\ufffd" in r["response"]]
    assert odd and all(r == "I think \ufffd so <answer>3</answer> \U0001f600" for r in odd)
    sent = stub.requests
    again = _eval(suite_small, run, "--base-url", stub.url(), "--model", "stub")
    assert again.exit_code == 0 and stub.requests == sent  # resumed: nothing re-sent, nothing lost
    assert runner.invoke(app, ["report", str(run)]).exit_code == 0


# ---------------------------------------------------------------------------- 4. control bytes in HTML


def test_report_shows_nul_and_esc_of_a_hostile_response(tmp_path: Path, suite_small: Path, stub: Stub) -> None:
    stub.reply = lambda n: completion('"\\u0000\\u001b[31m\\u0007 <answer>3</answer>"')
    run = tmp_path / "run"
    assert _eval(suite_small, run, "--base-url", stub.url(), "--model", "stub").exit_code == 0
    result = runner.invoke(app, ["report", str(run), "--suite", str(suite_small)])
    _no_traceback(result)
    assert result.exit_code == 0, result.output
    html = (run / "report" / "report.html").read_text(encoding="utf-8")
    assert "\x00" not in html and "\x1b" not in html
    assert "\u2400\u241b[31m\u2407 &lt;answer&gt;3&lt;/answer&gt;" in html


# -------------------------------------------------------------------------------- 8. option validation


def test_negative_rpm_is_refused_instead_of_hanging(suite_small: Path, tmp_path: Path) -> None:
    cmd = [
        sys.executable,
        "-m",
        "vcot.cli",
        "eval",
        "--suite",
        str(suite_small),
        "--run",
        str(tmp_path / "r"),
        "--no-progress",
        "-c",
        "direct",
        "--rpm",
        "-5",
    ]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail("vcot eval --rpm -5 hung")
    assert done.returncode == 2 and "--rpm must be a positive number" in done.stderr, done.stderr
    for rpm in ("0", "nan"):
        result = _eval(suite_small, tmp_path / "r", "--rpm", rpm)
        assert result.exit_code == 2 and "--rpm" in result.output


@pytest.mark.parametrize("attempts", ["0", "-1"])
def test_max_attempts_must_be_positive(suite_small: Path, tmp_path: Path, attempts: str) -> None:
    result = _eval(suite_small, tmp_path / "r", "--max-attempts", attempts)
    _no_traceback(result)
    assert result.exit_code == 2 and "--max-attempts must be an integer of at least 1" in result.output
    assert not (tmp_path / "r").exists()


# ------------------------------------------------------------------------------------- 9. exit codes


def test_exit_code_when_every_sample_failed(suite_small: Path, tmp_path: Path, stub: Stub) -> None:
    stub.reply = lambda n: (400, '{"error": {"message": "bad request"}}')
    result = _eval(suite_small, tmp_path / "r", "--base-url", stub.url(), "--model", "stub", "--max-attempts", "1")
    _no_traceback(result)
    assert result.exit_code == 4 and "every sample(s) failed (12 of 12)" in result.output, result.output


def test_exit_code_when_some_samples_failed_and_zero_after_a_clean_rerun(
    suite_small: Path, tmp_path: Path, stub: Stub
) -> None:
    stub.reply = lambda n: (400, '{"error": {"message": "bad"}}') if n % 4 == 0 else answer(n)
    run = tmp_path / "r"
    result = _eval(suite_small, run, "--base-url", stub.url(), "--model", "stub", "--max-attempts", "1")
    assert result.exit_code == 3 and "some sample(s) failed (3 of 12)" in result.output, result.output
    stub.reply = answer
    again = _eval(suite_small, run, "--base-url", stub.url(), "--model", "stub", "--max-attempts", "1")
    assert again.exit_code == 0, again.output  # the failed ones retried and answered


# ------------------------------------------------------------------------ 10. resume across endpoints


def test_resume_survives_a_new_port_and_localhost(suite_small: Path, tmp_path: Path, stub: Stub) -> None:
    run = tmp_path / "r"
    first = _eval(suite_small, run, "--base-url", stub.url(), "--model", "stub", "--limit", "2")
    assert first.exit_code == 0, first.output
    other = Stub(answer)
    try:
        # Restarted on another port, reached by name: same run, only the missing samples are sent.
        second = _eval(suite_small, run, "--base-url", other.url("localhost"), "--model", "stub")
        assert second.exit_code == 0, second.output
        assert other.requests == 12 - 4
    finally:
        other.close()
    rows = pq.read_table(run / "results.parquet").to_pylist()
    assert len(rows) == 12 and len({r["run_id"] for r in rows}) == 1


def test_resume_of_a_run_recorded_with_its_endpoint_in_the_identity(
    suite_small: Path, tmp_path: Path, stub: Stub
) -> None:
    run = tmp_path / "r"
    assert _eval(suite_small, run, "--base-url", stub.url(), "--model", "stub").exit_code == 0
    # Rewrite the store as vcot before this change wrote it: the endpoint inside the model record and an
    # id hashed over it.
    conn = sqlite3.connect(run / "run.sqlite")
    (settings,) = conn.execute("SELECT settings FROM runs").fetchone()
    old = json.loads(settings)
    old["model"].update(old.pop("endpoint"))
    old["run_id"] = "0123456789ab"
    with conn:
        conn.execute("UPDATE runs SET run_id = ?, settings = ?", (old["run_id"], json.dumps(old)))
        conn.execute("UPDATE calls SET run_id = ?", (old["run_id"],))
        conn.execute("UPDATE samples SET run_id = ?", (old["run_id"],))
    conn.close()
    sent = stub.requests
    again = _eval(suite_small, run, "--base-url", stub.url("localhost"), "--model", "stub")
    assert again.exit_code == 0, again.output
    assert stub.requests == sent


def test_a_different_model_is_still_refused_with_its_name(suite_small: Path, tmp_path: Path, stub: Stub) -> None:
    run = tmp_path / "r"
    assert _eval(suite_small, run, "--base-url", stub.url(), "--model", "stub").exit_code == 0
    other = _eval(suite_small, run, "--base-url", stub.url(), "--model", "another")
    assert other.exit_code == 2 and "'stub'" in other.output and "another" in other.output, other.output


# ------------------------------------------------------------------------------- 11. Ctrl-C during eval


def test_ctrl_c_during_eval_says_how_to_resume(suite_small: Path, tmp_path: Path) -> None:
    slow = Stub(answer, delay=0.3)
    try:
        cmd = [
            sys.executable,
            "-m",
            "vcot.cli",
            "eval",
            "--suite",
            str(suite_small),
            "--run",
            str(tmp_path / "r"),
            "--no-progress",
            "-c",
            "direct",
            "--base-url",
            slow.url(),
            "--model",
            "stub",
            "--concurrency",
            "1",
        ]
        # A terminal's Ctrl-C, even when this test session was started in the background (which leaves SIGINT
        # ignored for every child; Python then installs no KeyboardInterrupt handler).
        proc = subprocess.Popen(
            cmd,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        )
        deadline = time.monotonic() + 60
        while slow.requests < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        proc.send_signal(signal.SIGINT)
        _, stderr = proc.communicate(timeout=60)
    finally:
        slow.close()
    assert proc.returncode == 130, stderr
    assert "rerun the same command to resume" in stderr and "Traceback" not in stderr
