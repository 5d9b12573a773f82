"""Generation settings: options of a run, recorded with it and sent to providers that support them."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True)
class GenSettings:
    max_tokens: int | None = 8192
    temperature: float | None = None
    top_p: float | None = None
    # Per-request seed; providers that support it get `seed + epoch` so epochs differ but stay reproducible.
    seed: int | None = None
    timeout_s: float = 600.0

    def __post_init__(self) -> None:
        if self.max_tokens is not None and self.max_tokens < 1:
            raise ValueError("max_tokens must be positive")
        if self.temperature is not None and not 0 <= self.temperature <= 2:
            raise ValueError("temperature must be within 0..2")
        if self.top_p is not None and not 0 < self.top_p <= 1:
            raise ValueError("top_p must be within (0, 1]")
        if self.timeout_s <= 0:
            raise ValueError("timeout_s must be positive")

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def sampling(self) -> dict[str, Any]:
        """The settings that change what the model produces (not how long we wait for it)."""
        d = self.as_dict()
        d.pop("timeout_s")
        return d
