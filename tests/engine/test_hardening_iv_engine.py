"""Issue 45, "Hardening IV", engine side: a well-formed reply vcot cannot use is retried once by default
(RetryPolicy.malformed_attempts, `vcot eval --malformed-attempts`), not --max-attempts times, and such
retries are counted apart in the closing line."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from vcot.cli import app
from vcot.engine import retry as retry_mod
from vcot.engine.clients.openai_compat import parse_completion
from vcot.engine.errors import RetryableError
from vcot.engine.retry import RetryPolicy, call_with_retries

runner = CliRunner()


@pytest.fixture
def no_waits(monkeypatch: pytest.MonkeyPatch) -> None:
    real_sleep = asyncio.sleep

    async def fake_sleep(delay: float, *a: Any, **k: Any) -> None:
        await real_sleep(0)

    monkeypatch.setattr(retry_mod.asyncio, "sleep", fake_sleep)


def _failing(errors: list[RetryableError]) -> tuple[Any, dict[str, int]]:
    calls = {"n": 0}

    async def fn() -> str:
        calls["n"] += 1
        if errors:
            raise errors.pop(0)
        return "ok"

    return fn, calls


def _unusable() -> RetryableError:
    return RetryableError("malformed reply: message.tool_calls has 2000 entries", kind="malformed", well_formed=True)


@pytest.mark.parametrize(("malformed_attempts", "sent"), [(1, 1), (2, 2), (4, 4)])
def test_an_unusable_reply_is_tried_malformed_attempts_times(
    no_waits: None, malformed_attempts: int, sent: int
) -> None:
    fn, calls = _failing([_unusable() for _ in range(10)])
    retried: list[RetryableError] = []
    with pytest.raises(RetryableError) as info:
        asyncio.run(
            call_with_retries(fn, RetryPolicy(max_attempts=10, malformed_attempts=malformed_attempts), retried.append)
        )
    assert calls["n"] == sent and info.value.attempts == sent and len(retried) == sent - 1


def test_transport_faults_keep_the_full_attempts_and_do_not_use_up_the_malformed_ones(no_waits: None) -> None:
    cut = RetryableError("malformed reply: not JSON", kind="malformed")  # a body cut short: retry helps
    errors = [RetryableError("500", kind="500"), cut, cut, _unusable(), RetryableError("x", kind="timeout")]
    fn, calls = _failing(errors)
    assert asyncio.run(call_with_retries(fn, RetryPolicy(max_attempts=6))) == ("ok", 6)
    fn, calls = _failing([RetryableError("500", kind="500") for _ in range(9)])
    with pytest.raises(RetryableError) as info:
        asyncio.run(call_with_retries(fn, RetryPolicy(max_attempts=6)))
    assert calls["n"] == 6 and info.value.attempts == 6


@pytest.mark.parametrize("bad", [0, -1, 1.5, True])
def test_malformed_attempts_must_be_a_positive_whole_number(bad: Any) -> None:
    with pytest.raises(ValueError, match="--malformed-attempts must be an integer of at least 1"):
        RetryPolicy(malformed_attempts=bad)


def _completion(**message: Any) -> str:
    return json.dumps(
        {
            "choices": [{"message": {"role": "assistant", "content": "", **message}, "finish_reason": "tool_calls"}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1},
        }
    )


@pytest.mark.parametrize(
    "body",
    [
        _completion(
            tool_calls=[
                {"id": f"c{i}", "type": "function", "function": {"name": "mark_point", "arguments": "{}"}}
                for i in range(2000)
            ]
        ),
        _completion(tool_calls=[{"id": "c0", "type": "function", "function": {"name": 7, "arguments": "{}"}}]),
    ],
)
def test_a_whole_json_reply_vcot_rejects_is_well_formed(body: str) -> None:
    with pytest.raises(RetryableError) as info:
        parse_completion(body)
    assert info.value.kind == "malformed" and info.value.well_formed


@pytest.mark.parametrize("body", ['{"choices": [', "<html>502</html>"])
def test_a_body_that_is_not_json_is_not_well_formed(body: str) -> None:
    with pytest.raises(RetryableError) as info:
        parse_completion(body)
    assert info.value.kind == "malformed" and not info.value.well_formed


def test_eval_pays_two_requests_per_unusable_call_and_counts_the_retries(
    suite_large: Path, server, tmp_path: Path
) -> None:
    server.configure(fault_rate=1.0, faults=["usage_list"])  # every reply whole JSON, its usage a list
    run = tmp_path / "run"
    result = runner.invoke(
        app,
        [
            "eval",
            str(suite_large),
            "--run",
            str(run),
            "--no-progress",
            "-c",
            "direct",
            "--model",
            "stub",
            "--base-url",
            server.base_url,
            "--limit",
            "3",
            "--max-attempts",
            "10",
        ],
    )
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    # --limit 3 takes 3 instances per task of the suite's two: 6 samples × 2 attempts, not × 10.
    assert server.stats()["faults"] == {"usage_list": 12}
    assert "6 retries (6 after an unusable reply)" in " ".join(result.output.split()), result.output
    rows = pq.read_table(run / "results.parquet").to_pylist()
    assert len(rows) == 6 and all("(gave up after 2 attempts)" in r["error"] for r in rows), rows[0]["error"]


def test_eval_malformed_attempts_option_allows_more(suite_large: Path, server, tmp_path: Path) -> None:
    server.configure(fault_rate=1.0, faults=["usage_list"])
    result = runner.invoke(
        app,
        [
            "eval",
            str(suite_large),
            "--run",
            str(tmp_path / "run"),
            "--no-progress",
            "-c",
            "direct",
            "--model",
            "stub",
            "--base-url",
            server.base_url,
            "--limit",
            "1",
            "--max-attempts",
            "10",
            "--malformed-attempts",
            "3",
        ],
    )
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert server.stats()["faults"] == {"usage_list": 6}  # 2 samples × 3 attempts
