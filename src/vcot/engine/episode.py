"""The multi-turn loop's plug-in point: an Episode decides what to send and what to do with each reply.

Single-turn conditions are an Episode that finishes after the first reply. VAoT conditions register an
episode that executes the model's tool calls and answers with tool messages (text and images).

Episodes must be deterministic given the replies they receive: a resumed run rebuilds a half-finished
conversation by replaying the stored replies through a fresh episode, and checks each rebuilt request
against the stored request digest.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from vcot.conditions import CONDITIONS, ImageSource, build_prompt, unservable_reason
from vcot.engine.messages import Message, ModelResponse, ToolSpec
from vcot.schema import Instance


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


EpisodeFactory = Callable[[Instance, str, int, ImageSource], Episode]
ServeCheck = Callable[[Instance], "str | None"]

_REGISTRY: dict[str, tuple[EpisodeFactory, ServeCheck]] = {}


def _single_turn(instance: Instance, condition: str, epoch: int, images: ImageSource) -> Episode:
    prompt = build_prompt(instance, condition, images)
    return SingleTurn(prompt.messages, {"images": prompt.images})


_DEFAULT: list[str] = []


def register_condition(name: str, factory: EpisodeFactory, unservable: ServeCheck | None = None,
                       default: bool = False) -> None:
    """Make `name` available to the runner (VAoT calls this for vaot, vaot_norender, vaot_wrongrender).

    `default` conditions run when a user names none (the built-ins and VAoT); others only on request.
    """
    _REGISTRY[name] = (factory, unservable or (lambda inst: None))
    if default and name not in _DEFAULT:
        _DEFAULT.append(name)


for _cond in CONDITIONS:
    register_condition(_cond, _single_turn, lambda inst, c=_cond: unservable_reason(inst, c), default=True)


def known_conditions() -> list[str]:
    _load_plugins()
    return list(_REGISTRY)


def default_conditions() -> list[str]:
    _load_plugins()
    return list(_DEFAULT)


def condition_unservable(instance: Instance, condition: str) -> str | None:
    _load_plugins()
    if condition not in _REGISTRY:
        return f"unknown condition {condition!r}; known: {', '.join(_REGISTRY)}"
    return _REGISTRY[condition][1](instance)


def make_episode(instance: Instance, condition: str, epoch: int, images: ImageSource) -> Episode:
    _load_plugins()
    return _REGISTRY[condition][0](instance, condition, epoch, images)


_plugins_loaded = False


def _load_plugins() -> None:
    """Import `vcot.vaot.conditions` if it exists, so its conditions register themselves."""
    global _plugins_loaded
    if _plugins_loaded:
        return
    _plugins_loaded = True
    import importlib

    try:
        importlib.import_module("vcot.vaot.conditions")
    except ModuleNotFoundError as exc:
        if exc.name not in ("vcot.vaot.conditions", "vcot.vaot"):
            raise
