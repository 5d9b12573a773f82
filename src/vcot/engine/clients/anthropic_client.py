"""Anthropic's native Messages API (optional extra: `pip install 'vcot[anthropic]'`)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from typing import Any

from vcot.engine.clients.base import CallContext, ModelClient
from vcot.engine.clients.openai_compat import (
    ACCEPT_ENCODING,
    ReplyGuard,
    ReplyRejected,
    finish_reason,
    kind_of,
    malformed,
    parse_retry_after,
    token_count,
    transport_error,
)
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
            out.append({"type": "image", "source": {"type": "base64", "media_type": p.image.mime, "data": p.image.b64}})
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
            raise ConfigError(
                f"model anthropic/{model} needs the anthropic SDK: pip install 'vcot[anthropic]'"
            ) from None
        self._sdk = anthropic
        self.model = model
        self.key_env = key_env
        # The SDK's own httpx2 client with the reply bound of the OpenAI-compatible client (ReplyGuard).
        self._guard = ReplyGuard()
        http = anthropic.DefaultAsyncHttpxClient(
            event_hooks={"response": [self._guard]}, headers={"Accept-Encoding": ACCEPT_ENCODING}
        )
        self._client = anthropic.AsyncAnthropic(api_key=api_key, max_retries=0, http_client=http)

    def describe(self) -> dict[str, Any]:
        return {"provider": self.provider, "model": self.model, "api_key_env": self.key_env}

    async def complete(
        self, messages: Sequence[Message], tools: Sequence[ToolSpec] | None, settings: GenSettings, ctx: CallContext
    ) -> ModelResponse:
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
            kwargs["tools"] = [
                {"name": t.name, "description": t.description, "input_schema": t.parameters} for t in tools
            ]
        self._guard.limit = settings.max_reply_bytes
        try:
            async with asyncio.timeout(settings.timeout_s):  # one deadline however slowly the body comes
                resp = await self._client.messages.create(
                    model=self.model, messages=msgs, timeout=settings.timeout_s, **kwargs
                )
        except ReplyRejected as exc:
            raise RetryableError(str(exc), kind=exc.kind) from None
        except sdk.RateLimitError as exc:
            # Retry-After may be seconds or an HTTP date; retry-after-ms is honoured too.
            raise RetryableError(
                f"HTTP 429: {str(exc)[:300]}", parse_retry_after(exc.response.headers), kind="429"
            ) from None
        except (sdk.AuthenticationError, sdk.PermissionDeniedError):
            raise AuthError(f"Anthropic rejected the credentials; check {self.key_env}") from None
        except sdk.APIStatusError as exc:
            if exc.status_code >= 500 or exc.status_code in (408, 409, 529):
                raise RetryableError(
                    f"HTTP {exc.status_code}", parse_retry_after(exc.response.headers), kind=str(exc.status_code)
                ) from None
            raise FatalCallError(f"HTTP {exc.status_code}: {str(exc)[:300]}") from None
        except (sdk.APITimeoutError, TimeoutError):
            raise RetryableError(f"no complete response within {settings.timeout_s:g} s", kind="timeout") from None
        except sdk.APIConnectionError as exc:
            cause = exc.__cause__
            if isinstance(cause, ReplyRejected):  # this SDK wraps whatever its transport raises
                raise RetryableError(str(cause), kind=cause.kind) from None
            raise RetryableError(f"connection failed ({type(exc).__name__})", kind="connection") from None
        except sdk.APIResponseValidationError:
            raise malformed("the SDK refused the response", well_formed=False) from None
        except RecursionError:
            raise malformed("nested too deeply to parse", well_formed=False) from None
        except Exception as exc:  # noqa: BLE001 - the HTTP stack's own errors, a body that is not JSON
            mapped = transport_error(exc)
            if mapped is None:
                raise
            raise mapped from None
        try:
            return _parse_message(resp)
        except RecursionError:
            raise malformed("nested too deeply") from None

    async def aclose(self) -> None:
        await self._client.close()


def _get(obj: Any, name: str) -> Any:
    # The SDK builds its models without validation, so a field of an unexpected shape stays a plain dict.
    return obj.get(name) if isinstance(obj, dict) else getattr(obj, name, None)


def _record(value: Any, where: str) -> Any:
    """`value` when it is an object (the SDK's model, or a dict it left as it was), else a malformed reply."""
    if value is None or isinstance(value, dict) or hasattr(value, "model_fields_set"):
        return value
    raise malformed(f"{where} is {kind_of(value)}")


def _parse_message(resp: Any) -> ModelResponse:
    """The SDK's Message → ModelResponse, every field read type-checked (the SDK does not check them)."""
    content = _get(resp, "content")
    if type(content) is not list:
        raise malformed(f"content is {kind_of(content)}")
    texts: list[str] = []
    calls: list[ToolCall] = []
    for i, block in enumerate(content):
        kind = _get(_record(block, f"content[{i}]"), "type")
        if kind == "text":
            text = _get(block, "text")
            if type(text) is not str:
                raise malformed(f"content[{i}].text is {kind_of(text)}")
            texts.append(text)
        elif kind == "tool_use":
            call_id, name, args = _get(block, "id"), _get(block, "name"), _get(block, "input")
            for field, value, want in (("id", call_id, str), ("name", name, str), ("input", args, dict)):
                if type(value) is not want:
                    raise malformed(f"content[{i}].{field} is {kind_of(value)}")
            calls.append(ToolCall(id=call_id, name=name, arguments=json.dumps(args)))
    usage = _record(_get(resp, "usage"), "usage")
    try:
        raw = resp.model_dump_json(warnings=False)
    except (ValueError, TypeError, AttributeError) as exc:
        raise malformed(f"the reply cannot be stored ({type(exc).__name__})") from None
    return ModelResponse(
        text="".join(texts),
        tool_calls=calls,
        finish_reason=finish_reason(_get(resp, "stop_reason"), "stop_reason"),
        input_tokens=token_count(_get(usage, "input_tokens"), "usage.input_tokens"),
        output_tokens=token_count(_get(usage, "output_tokens"), "usage.output_tokens"),
        raw=raw,
    )
