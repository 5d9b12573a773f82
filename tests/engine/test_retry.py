"""call_with_retries: attempts counted, waits chosen, errors kept (the first attempt bypasses tenacity)."""

from __future__ import annotations

import asyncio

import pytest

from vcot.engine import retry as retry_mod
from vcot.engine.errors import FatalCallError, RetryableError
from vcot.engine.retry import RetryPolicy, call_with_retries


def _flaky(failures: list[BaseException], value: str = "ok"):
    calls = {"n": 0}

    async def fn() -> str:
        calls["n"] += 1
        if failures:
            raise failures.pop(0)
        return value

    return fn, calls


@pytest.fixture
def waits(monkeypatch):
    slept: list[float] = []
    real_sleep = asyncio.sleep

    async def fake_sleep(delay, *a, **k):
        slept.append(delay)
        await real_sleep(0)

    monkeypatch.setattr(retry_mod.asyncio, "sleep", fake_sleep)
    return slept


def test_first_attempt_success_counts_one(waits):
    fn, calls = _flaky([])
    assert asyncio.run(call_with_retries(fn, RetryPolicy())) == ("ok", 1)
    assert calls["n"] == 1 and waits == []


def test_retries_count_attempts_and_report_each_retry(waits):
    seen: list[str] = []
    fn, calls = _flaky(
        [
            RetryableError("a", kind="500"),
            RetryableError("b", kind="500"),
            RetryableError("c", retry_after=7.0, kind="429"),
        ]
    )
    policy = RetryPolicy(max_attempts=5, initial_s=0.5, max_backoff_s=30.0)
    result, attempts = asyncio.run(call_with_retries(fn, policy, lambda e: seen.append(str(e))))
    assert (result, attempts, calls["n"]) == ("ok", 4, 4)
    assert seen == ["a", "b", "c"]
    # Backoff is random but bounded by initial·2^(n-1); the server's Retry-After is obeyed exactly.
    assert len(waits) == 3 and 0 <= waits[0] <= 0.5 and 0 <= waits[1] <= 1.0 and waits[2] == 7.0


def test_retry_after_is_capped(waits):
    fn, _ = _flaky([RetryableError("slow down", retry_after=9999.0, kind="429")])
    asyncio.run(call_with_retries(fn, RetryPolicy(max_retry_after_s=120.0)))
    assert waits == [120.0]


@pytest.mark.parametrize("max_attempts", [1, 2, 3])
def test_last_error_reraised_when_attempts_run_out(waits, max_attempts):
    errors = [RetryableError(f"e{i}", kind="500") for i in range(max_attempts)]
    fn, calls = _flaky(list(errors))
    with pytest.raises(RetryableError, match=f"e{max_attempts - 1}"):
        asyncio.run(call_with_retries(fn, RetryPolicy(max_attempts=max_attempts, initial_s=0.01)))
    assert calls["n"] == max_attempts and len(waits) == max_attempts - 1


def test_other_errors_are_not_retried(waits):
    fn, calls = _flaky([FatalCallError("HTTP 400")])
    with pytest.raises(FatalCallError):
        asyncio.run(call_with_retries(fn, RetryPolicy()))
    assert calls["n"] == 1 and waits == []
