"""The multi-turn loop's plug-in point: an Episode decides what to send and what to do with each reply.

Single-turn conditions are an Episode that finishes after the first reply. VAoT conditions use an
episode that executes the model's tool calls and answers with tool messages (text and images).

Episodes must be deterministic given the replies they receive: a resumed run rebuilds a half-finished
conversation by replaying the stored replies through a fresh episode, and checks each rebuilt request
against the stored request digest.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from vcot.messages import Message, ModelResponse, ToolSpec


class Episode(Protocol):
    tools: Sequence[ToolSpec] | None

    def first_messages(self) -> list[Message]:
        """The opening messages."""
        ...

    def on_response(self, response: ModelResponse) -> list[Message] | None:
        """Messages to append after the model's reply (tool results, …), or None when the episode is done."""
        ...

    def record(self) -> dict[str, Any]:
        """JSON-able facts about the request worth keeping (images sent and their sizes, …)."""
        ...


@dataclass
class SingleTurn:
    """One user message, one answer."""

    messages: list[Message]
    info: dict[str, Any] = field(default_factory=dict)
    tools: Sequence[ToolSpec] | None = None

    def first_messages(self) -> list[Message]:
        return list(self.messages)

    def on_response(self, response: ModelResponse) -> list[Message] | None:
        return None

    def record(self) -> dict[str, Any]:
        return self.info
