"""Retry policy: exponential backoff with jitter, or the server's Retry-After when it names one."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

from tenacity import AsyncRetrying, RetryCallState, retry_if_exception_type, stop_after_attempt
from tenacity.wait import wait_random_exponential

from vcot.engine.errors import RetryableError

T = TypeVar("T")


@dataclass(frozen=True)
class RetryPolicy:
    max_attempts: int = 6
    initial_s: float = 0.5
    max_backoff_s: float = 30.0
    # A server asking for longer than this is capped, so one bad header cannot stall a run for hours.
    max_retry_after_s: float = 120.0

    def __post_init__(self) -> None:
        if isinstance(self.max_attempts, bool) or not isinstance(self.max_attempts, int) or self.max_attempts < 1:
            raise ValueError(f"--max-attempts must be an integer of at least 1, got {self.max_attempts!r}")
        for name in ("initial_s", "max_backoff_s", "max_retry_after_s"):
            value = getattr(self, name)
            if not value >= 0:  # also refuses NaN
                raise ValueError(f"{name} must be at least 0, got {value!r}")


def _waiter(policy: RetryPolicy) -> Callable[[RetryCallState], float]:
    backoff = wait_random_exponential(multiplier=policy.initial_s, max=policy.max_backoff_s)

    def wait(state: RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome else None
        if isinstance(exc, RetryableError) and exc.retry_after is not None:
            return min(exc.retry_after, policy.max_retry_after_s)
        return backoff(state)

    return wait


async def call_with_retries(fn: Callable[[], Awaitable[T]], policy: RetryPolicy,
                            on_retry: Callable[[RetryableError], None] | None = None) -> tuple[T, int]:
    """Run `fn` until it succeeds or attempts run out; returns (result, attempts used).

    Only RetryableError is retried; the last one is re-raised when attempts run out.
    """

    def before_sleep(state: RetryCallState) -> None:
        exc = state.outcome.exception() if state.outcome else None
        if on_retry is not None and isinstance(exc, RetryableError):
            on_retry(exc)

    attempts = 0
    async for attempt in AsyncRetrying(stop=stop_after_attempt(policy.max_attempts), wait=_waiter(policy),
                                       retry=retry_if_exception_type(RetryableError), reraise=True,
                                       before_sleep=before_sleep):
        with attempt:
            attempts = attempt.retry_state.attempt_number
            result = await fn()
    return result, attempts
