"""Retry policy: exponential backoff with jitter, or the server's Retry-After when it names one."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

from vcot.engine.errors import RetryableError

if TYPE_CHECKING:
    from tenacity import RetryCallState

T = TypeVar("T")


@dataclass(frozen=True)
class RetryPolicy:
    max_attempts: int = 6
    initial_s: float = 0.5
    max_backoff_s: float = 30.0
    # A server asking for longer than this is capped, so one bad header cannot stall a run for hours.
    max_retry_after_s: float = 120.0
    # Attempts (within max_attempts) for a call whose replies arrive whole but are unusable (RetryableError
    # `well_formed`): a model that answered with 2,000 tool calls mostly does so again, and every attempt is
    # a paid request, so such a reply is retried once by default (docs/engine.md, "Concurrency and retries").
    malformed_attempts: int = 2

    def __post_init__(self) -> None:
        if isinstance(self.max_attempts, bool) or not isinstance(self.max_attempts, int) or self.max_attempts < 1:
            raise ValueError(f"--max-attempts must be an integer of at least 1, got {self.max_attempts!r}")
        if (
            isinstance(self.malformed_attempts, bool)
            or not isinstance(self.malformed_attempts, int)
            or self.malformed_attempts < 1
        ):
            raise ValueError(f"--malformed-attempts must be an integer of at least 1, got {self.malformed_attempts!r}")
        for name in ("initial_s", "max_backoff_s", "max_retry_after_s"):
            value = getattr(self, name)
            if not value >= 0:  # also refuses NaN
                raise ValueError(f"{name} must be at least 0, got {value!r}")


def _wait_s(policy: RetryPolicy, attempt_number: int, exc: BaseException | None) -> float:
    """Seconds before the attempt after `attempt_number`: the server's Retry-After (capped), else a random
    exponential backoff, as tenacity's wait_random_exponential computes it."""
    if isinstance(exc, RetryableError) and exc.retry_after is not None:
        return min(exc.retry_after, policy.max_retry_after_s)
    from tenacity.wait import wait_random_exponential

    backoff = wait_random_exponential(multiplier=policy.initial_s, max=policy.max_backoff_s)
    return backoff(_AttemptNumber(attempt_number))


class _AttemptNumber:
    # The one field of tenacity's RetryCallState that its wait strategies read.
    __slots__ = ("attempt_number",)

    def __init__(self, attempt_number: int) -> None:
        self.attempt_number = attempt_number


async def call_with_retries(
    fn: Callable[[], Awaitable[T]], policy: RetryPolicy, on_retry: Callable[[RetryableError], None] | None = None
) -> tuple[T, int]:
    """Run `fn` until it succeeds or attempts run out; returns (result, attempts used).

    Only RetryableError is retried; the last one is re-raised when attempts run out (`max_attempts` in all,
    `malformed_attempts` of them ending in a well-formed but unusable reply), with `attempts` set on it.
    """
    made = 0
    unusable = 0

    async def attempt() -> T:
        nonlocal made, unusable
        made += 1
        try:
            return await fn()
        except RetryableError as exc:
            if exc.well_formed:
                unusable += 1
            exc.attempts = made
            raise

    def more(exc: BaseException) -> bool:
        return isinstance(exc, RetryableError) and unusable < policy.malformed_attempts

    # Nearly every call succeeds at once: the first attempt is made directly, since setting up tenacity's
    # machinery for it cost a tenth of a request's CPU (docs/evaluation.md, "Engine").
    try:
        return await attempt(), 1
    except RetryableError as exc:
        if policy.max_attempts == 1 or not more(exc):
            raise
        if on_retry is not None:
            on_retry(exc)
        await asyncio.sleep(_wait_s(policy, 1, exc))
    # Imported here: a run whose calls all succeed at once never loads tenacity (7 ms of start-up).
    from tenacity import AsyncRetrying, retry_if_exception, stop_after_attempt

    def wait(state: RetryCallState) -> float:
        return _wait_s(policy, state.attempt_number + 1, state.outcome.exception() if state.outcome else None)

    def before_sleep(state: RetryCallState) -> None:
        exc = state.outcome.exception() if state.outcome else None
        if on_retry is not None and isinstance(exc, RetryableError):
            on_retry(exc)

    async for state in AsyncRetrying(
        stop=stop_after_attempt(policy.max_attempts - 1),
        wait=wait,
        retry=retry_if_exception(more),
        reraise=True,
        before_sleep=before_sleep,
    ):
        with state:
            result = await attempt()
    return result, made
