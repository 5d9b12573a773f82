"""Generation settings: options of a run, recorded with it and sent to providers that support them."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

# Bytes of one reply body, as decoded, beyond which the call fails: a chat completion is a few kilobytes (a
# reply of 8192 tokens some 40 KB), so a server that sends megabytes is broken or hostile, not verbose.
DEFAULT_MAX_REPLY_BYTES = 8 * 2**20


@dataclass(frozen=True)
class GenSettings:
    max_tokens: int | None = 8192
    temperature: float | None = None
    top_p: float | None = None
    # Per-request seed; providers that support it get `seed + epoch` so epochs differ but stay reproducible.
    seed: int | None = None
    # A deadline for each attempt as a whole, however slowly the body arrives.
    timeout_s: float = 600.0
    max_reply_bytes: int = DEFAULT_MAX_REPLY_BYTES

    def __post_init__(self) -> None:
        if self.max_tokens is not None and self.max_tokens < 1:
            raise ValueError("max_tokens must be positive")
        if self.temperature is not None and not 0 <= self.temperature <= 2:
            raise ValueError("temperature must be within 0..2")
        if self.top_p is not None and not 0 < self.top_p <= 1:
            raise ValueError("top_p must be within (0, 1]")
        if not self.timeout_s > 0:  # also refuses NaN, which would never expire
            raise ValueError("timeout_s must be positive")
        if (
            isinstance(self.max_reply_bytes, bool)
            or not isinstance(self.max_reply_bytes, int)
            or self.max_reply_bytes < 1
        ):
            raise ValueError(f"max_reply_bytes must be a positive integer, got {self.max_reply_bytes!r}")

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def sampling(self) -> dict[str, Any]:
        """The settings that change what the model produces (not how long we wait for it, nor how much we
        accept): they make the run's identity and request digests, so the bounds stay out of them."""
        d = self.as_dict()
        d.pop("timeout_s")
        d.pop("max_reply_bytes")
        return d
