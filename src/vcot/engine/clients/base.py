"""The one small interface every model client implements."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from vcot.engine.settings import GenSettings
from vcot.messages import Message, ModelResponse, ToolSpec
from vcot.schema import Instance


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

        return "|".join(quote(str(x), safe="") for x in (self.run_id, self.uid, self.condition, self.epoch,
                                                          self.turn))


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
    async def complete(self, messages: Sequence[Message], tools: Sequence[ToolSpec] | None,
                       settings: GenSettings, ctx: CallContext) -> ModelResponse:
        """One model turn."""

    async def aclose(self) -> None:
        """Release connections."""
        return None
