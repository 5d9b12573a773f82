"""Provider-neutral conversation types: what conditions produce and what every model client consumes.

Kept free of any SDK so that conditions, VAoT and tests can build conversations without a provider.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from vcot.images import EncodedImage

Role = Literal["system", "user", "assistant", "tool"]


@dataclass(frozen=True, slots=True)
class TextPart:
    text: str


@dataclass(frozen=True, slots=True)
class ImagePart:
    image: EncodedImage


Part = TextPart | ImagePart


@dataclass(frozen=True, slots=True)
class ToolCall:
    """A tool call requested by the model. `arguments` is the model's raw JSON text: untrusted.

    `provider_data` is opaque JSON a provider needs to see again when the call is resent (Gemini's server
    call id and thought signature). It is stored with the call in the run store, so a resumed episode sends
    it back unchanged; it is not part of the request digest.
    """

    id: str
    name: str
    arguments: str
    provider_data: str | None = None

    def record(self) -> dict[str, str]:
        """The JSON-able form stored in the run store."""
        out = {"id": self.id, "name": self.name, "arguments": self.arguments}
        if self.provider_data is not None:
            out["provider_data"] = self.provider_data
        return out


@dataclass(slots=True)
class Message:
    role: Role
    parts: list[Part] = field(default_factory=list)
    # Assistant messages may carry tool calls; tool messages answer one call by id.
    tool_calls: list[ToolCall] = field(default_factory=list)
    tool_call_id: str | None = None

    @property
    def text(self) -> str:
        return "".join(p.text for p in self.parts if isinstance(p, TextPart))

    @property
    def images(self) -> list[EncodedImage]:
        return [p.image for p in self.parts if isinstance(p, ImagePart)]


def user(*parts: Part | str) -> Message:
    return Message("user", [TextPart(p) if isinstance(p, str) else p for p in parts])


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """A tool offered to the model; `parameters` is a JSON Schema object."""

    name: str
    description: str
    parameters: dict[str, Any]


@dataclass(slots=True)
class ModelResponse:
    """One assistant turn as reported by the provider. Everything in it is untrusted model output."""

    text: str
    tool_calls: list[ToolCall] = field(default_factory=list)
    finish_reason: str | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    raw: str | None = None  # the provider's response body as JSON text, kept verbatim for audits

    def as_message(self) -> Message:
        parts: list[Part] = [TextPart(self.text)] if self.text else []
        return Message("assistant", parts, tool_calls=list(self.tool_calls))

    def scrubbed(self) -> ModelResponse:
        """This response with lone surrogates replaced (see `scrub_surrogates`), or itself when it has none."""
        calls = [
            ToolCall(
                scrub_surrogates(c.id),
                scrub_surrogates(c.name),
                scrub_surrogates(c.arguments),
                None if c.provider_data is None else scrub_surrogates(c.provider_data),
            )
            for c in self.tool_calls
        ]
        texts = (self.text, self.finish_reason, self.raw)
        clean = tuple(scrub_surrogates(t) if isinstance(t, str) else t for t in texts)
        if clean == texts and calls == self.tool_calls:
            return self
        return ModelResponse(clean[0] or "", calls, clean[1], self.input_tokens, self.output_tokens, clean[2])


def scrub_surrogates(text: str) -> str:
    """`text` with every lone surrogate replaced by U+FFFD (surrogate pairs are joined).

    A JSON body may carry an escaped lone surrogate (`"\\ud800"`); Python decodes it into a str that cannot
    be encoded as UTF-8, so storing, hashing or printing it fails. Model output is scrubbed once, where
    it enters, so that everything downstream sees the same text.
    """
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return text


def request_digest(
    messages: Sequence[Message], tools: Sequence[ToolSpec] | None, model: str, settings: dict[str, Any]
) -> str:
    """A stable fingerprint of a request; images enter by content digest, so hashing stays cheap."""
    h = hashlib.sha256()
    h.update(json.dumps({"model": model, "settings": settings}, sort_keys=True).encode())
    for m in messages:
        h.update(f"\x1e{m.role}\x1f{m.tool_call_id or ''}".encode())
        for p in m.parts:
            if isinstance(p, TextPart):
                h.update(b"\x1dT" + p.text.encode())
            else:
                h.update(b"\x1dI" + p.image.digest.encode())
        for c in m.tool_calls:
            h.update(f"\x1dC{c.id}\x1f{c.name}\x1f{c.arguments}".encode())
    for t in tools or ():
        h.update(json.dumps([t.name, t.description, t.parameters], sort_keys=True).encode())
    return h.hexdigest()
