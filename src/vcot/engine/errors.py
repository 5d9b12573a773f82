"""Error kinds the runner acts on: retry the call, fail the sample, or stop before starting."""

from __future__ import annotations


class EngineError(RuntimeError):
    """Base class for engine errors."""


class ConfigError(EngineError):
    """The run cannot start: unknown model or provider, missing API key, unreachable endpoint, …

    Raised before any sample is sent; the message says what to fix.
    """


class NoModelList(ConfigError):
    """The endpoint answers but gives no model list (GET /models is missing or not a list). `reason` says so
    without advice: the message adds "name the served model with --model", which is wrong where it was named
    (issue 45: an endpoint pool given --model uses such a server with a warning)."""

    def __init__(self, message: str, reason: str) -> None:
        super().__init__(message)
        self.reason = reason


class RetryableError(EngineError):
    """A transient failure (429, 5xx, timeout, dropped connection, malformed body): try again.

    `retry_after` is the server's requested delay in seconds (Retry-After), when it sent one. `well_formed`
    marks a reply that arrived whole, as valid JSON, and that vcot cannot use (2,000 tool calls, a tool name
    that is a number): asking again most often gets the same reply, so the retry policy gives it fewer
    attempts (`RetryPolicy.malformed_attempts`). `attempts` is set when the error is the last one of a call.
    """

    def __init__(
        self, message: str, retry_after: float | None = None, kind: str = "transient", well_formed: bool = False
    ) -> None:
        super().__init__(message)
        self.retry_after = retry_after
        self.kind = kind
        self.well_formed = well_formed
        self.attempts: int | None = None


class FatalCallError(EngineError):
    """The request itself is rejected (400, 404, 422, …): retrying cannot help; the sample records it."""


class AuthError(ConfigError):
    """The provider rejected the credentials (401/403); every further call would fail too."""
