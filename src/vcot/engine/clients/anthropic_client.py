"""Anthropic's native Messages API (optional extra: `pip install 'vcot[anthropic]'`)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from vcot.engine.clients.base import CallContext, ModelClient
from vcot.engine.clients.openai_compat import parse_retry_after
from vcot.engine.errors import AuthError, ConfigError, FatalCallError, RetryableError
from vcot.engine.settings import GenSettings
from vcot.messages import ImagePart, Message, ModelResponse, TextPart, ToolCall, ToolSpec


def _blocks(m: Message) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for p in m.parts:
        if isinstance(p, TextPart):
            if p.text:
                out.append({"type": "text", "text": p.text})
        elif isinstance(p, ImagePart):
            out.append({"type": "image", "source": {"type": "base64", "media_type": p.image.mime,
                                                    "data": p.image.b64}})
    return out


def to_anthropic(messages: Sequence[Message]) -> tuple[str | None, list[dict[str, Any]]]:
    """System text plus alternating messages; tool results (images allowed) merge into one user turn."""
    system = None
    out: list[dict[str, Any]] = []
    for m in messages:
        if m.role == "system":
            system = m.text
        elif m.role == "tool":
            block = {"type": "tool_result", "tool_use_id": m.tool_call_id or "", "content": _blocks(m)}
            if out and out[-1]["role"] == "user" and out[-1].get("_tool"):
                out[-1]["content"].append(block)
            else:
                out.append({"role": "user", "content": [block], "_tool": True})
        elif m.role == "assistant":
            content = _blocks(m)
            for c in m.tool_calls:
                try:
                    args = json.loads(c.arguments or "{}")
                except ValueError:
                    args = {}
                content.append({"type": "tool_use", "id": c.id, "name": c.name, "input": args})
            out.append({"role": "assistant", "content": content})
        else:
            out.append({"role": "user", "content": _blocks(m)})
    for msg in out:
        msg.pop("_tool", None)
    return system, out


class AnthropicClient(ModelClient):
    provider = "anthropic"

    def __init__(self, model: str, api_key: str, key_env: str) -> None:
        try:
            import anthropic
        except ImportError:
            raise ConfigError(f"model anthropic/{model} needs the anthropic SDK: pip install 'vcot[anthropic]'") \
                from None
        self._sdk = anthropic
        self.model = model
        self.key_env = key_env
        self._client = anthropic.AsyncAnthropic(api_key=api_key, max_retries=0)

    def describe(self) -> dict[str, Any]:
        return {"provider": self.provider, "model": self.model, "api_key_env": self.key_env}

    async def complete(self, messages: Sequence[Message], tools: Sequence[ToolSpec] | None,
                       settings: GenSettings, ctx: CallContext) -> ModelResponse:
        sdk = self._sdk
        system, msgs = to_anthropic(messages)
        kwargs: dict[str, Any] = {"max_tokens": settings.max_tokens or 8192}
        if system:
            kwargs["system"] = system
        if settings.temperature is not None:
            kwargs["temperature"] = settings.temperature
        if settings.top_p is not None:
            kwargs["top_p"] = settings.top_p
        if tools:
            kwargs["tools"] = [{"name": t.name, "description": t.description, "input_schema": t.parameters}
                               for t in tools]
        try:
            resp = await self._client.messages.create(model=self.model, messages=msgs,
                                                      timeout=settings.timeout_s, **kwargs)
        except sdk.RateLimitError as exc:
            # Retry-After may be seconds or an HTTP date; retry-after-ms is honoured too.
            raise RetryableError(f"HTTP 429: {str(exc)[:300]}", parse_retry_after(exc.response.headers),
                                 kind="429") from None
        except (sdk.AuthenticationError, sdk.PermissionDeniedError):
            raise AuthError(f"Anthropic rejected the credentials; check {self.key_env}") from None
        except sdk.APIStatusError as exc:
            if exc.status_code >= 500 or exc.status_code in (408, 409, 529):
                raise RetryableError(f"HTTP {exc.status_code}", parse_retry_after(exc.response.headers),
                                     kind=str(exc.status_code)) from None
            raise FatalCallError(f"HTTP {exc.status_code}: {str(exc)[:300]}") from None
        except sdk.APIConnectionError as exc:
            raise RetryableError(f"connection failed ({type(exc).__name__})", kind="connection") from None
        text = "".join(b.text for b in resp.content if b.type == "text")
        calls = [ToolCall(id=b.id, name=b.name, arguments=json.dumps(b.input))
                 for b in resp.content if b.type == "tool_use"]
        return ModelResponse(text=text, tool_calls=calls, finish_reason=resp.stop_reason,
                             input_tokens=resp.usage.input_tokens, output_tokens=resp.usage.output_tokens,
                             raw=resp.model_dump_json())

    async def aclose(self) -> None:
        await self._client.close()
