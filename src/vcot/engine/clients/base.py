"""The one small interface every model client implements."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from vcot.engine.settings import GenSettings
from vcot.messages import Message, ModelResponse, ToolSpec
from vcot.schema import Instance


def display_url(url: str) -> str:
    """The URL as it may be printed and stored: without user:password and without query or fragment (where
    some gateways take a key)."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return "<unparsable url>"
    netloc = parts.netloc
    if parts.username is not None or parts.password is not None:
        host = parts.hostname or ""
        if ":" in host:  # an IPv6 literal loses its brackets in hostname
            host = f"[{host}]"
        netloc = host + (f":{port}" if port is not None else "")
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


@dataclass(frozen=True, slots=True)
class CallContext:
    """Which sample a call belongs to. Remote clients never send the instance; the chance model reads it."""

    run_id: str
    condition: str
    uid: str
    epoch: int
    turn: int
    instance: Instance

    def tag(self) -> str:
        from urllib.parse import quote

        return "|".join(quote(str(x), safe="") for x in (self.run_id, self.uid, self.condition, self.epoch, self.turn))


class ModelClient(ABC):
    """A model behind some API. Implementations raise the errors in `vcot.engine.errors`."""

    provider: str
    model: str

    def describe(self) -> dict[str, Any]:
        """What identifies the model in the run record. Never includes credentials."""
        return {"provider": self.provider, "model": self.model}

    async def preflight(self) -> None:
        """Fail fast (ConfigError) when the endpoint is unreachable or rejects the credentials."""
        return None

    @abstractmethod
    async def complete(
        self, messages: Sequence[Message], tools: Sequence[ToolSpec] | None, settings: GenSettings, ctx: CallContext
    ) -> ModelResponse:
        """One model turn."""

    async def aclose(self) -> None:
        """Release connections."""
        return None
