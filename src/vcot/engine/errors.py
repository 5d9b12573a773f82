"""Error kinds the runner acts on: retry the call, fail the sample, or stop before starting."""

from __future__ import annotations


class EngineError(RuntimeError):
    """Base class for engine errors."""


class ConfigError(EngineError):
    """The run cannot start: unknown model or provider, missing API key, unreachable endpoint, …

    Raised before any sample is sent; the message says what to fix.
    """


class RetryableError(EngineError):
    """A transient failure (429, 5xx, timeout, dropped connection, malformed body): try again.

    `retry_after` is the server's requested delay in seconds (Retry-After), when it sent one.
    """

    def __init__(self, message: str, retry_after: float | None = None, kind: str = "transient") -> None:
        super().__init__(message)
        self.retry_after = retry_after
        self.kind = kind


class FatalCallError(EngineError):
    """The request itself is rejected (400, 404, 422, …): retrying cannot help; the sample records it."""


class AuthError(ConfigError):
    """The provider rejected the credentials (401/403); every further call would fail too."""
