"""Google's native Gemini API through `google-genai` (optional extra: `pip install 'vcot[google]'`).

Gemini is also reachable through its OpenAI-compatible endpoint with --base-url; this client exists for
features only the native API offers.
"""

from __future__ import annotations

import asyncio
import base64
import json
from collections.abc import Sequence
from typing import Any

from vcot.engine.clients.base import CallContext, ModelClient
from vcot.engine.clients.openai_compat import (
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

_TRANSPORT_MODULES = ("httpx", "httpx2", "httpcore", "aiohttp", "h11", "anyio")


def _retry_after(exc: Any) -> float | None:
    return parse_retry_after(getattr(getattr(exc, "response", None), "headers", None))


class GoogleClient(ModelClient):
    provider = "google"

    def __init__(self, model: str, api_key: str, key_env: str) -> None:
        try:
            from google import genai
            from google.genai import errors, types
        except ImportError:
            raise ConfigError(f"model google/{model} needs the google-genai SDK: pip install 'vcot[google]'") from None
        self._types = types
        self._errors = errors
        self.model = model
        self.key_env = key_env
        # v1beta is the version Google documents generateContent (tools, system instructions) against; SDK
        # releases differ in their default. The base URL is the SDK's own (GOOGLE_GEMINI_BASE_URL overrides it).
        self._client = genai.Client(api_key=api_key, http_options=types.HttpOptions(api_version="v1beta"))

    def describe(self) -> dict[str, Any]:
        return {"provider": self.provider, "model": self.model, "api_key_env": self.key_env}

    def _parts(self, m: Message) -> list[Any]:
        types = self._types
        out = []
        for p in m.parts:
            if isinstance(p, TextPart) and p.text:
                out.append(types.Part.from_text(text=p.text))
            elif isinstance(p, ImagePart):
                out.append(types.Part.from_bytes(data=base64.b64decode(p.image.b64), mime_type=p.image.mime))
        return out

    def _contents(self, messages: Sequence[Message]) -> tuple[str | None, list[Any]]:
        types = self._types
        system = None
        names: dict[str, str] = {}
        server_ids: dict[str, str | None] = {}
        contents: list[Any] = []
        tool_turn = False  # the last content holds function responses (parallel calls share one turn)
        for m in messages:
            if m.role == "system":
                system = m.text
                continue
            if m.role == "assistant":
                parts = self._parts(m)
                for c in m.tool_calls:
                    names[c.id] = c.name
                    try:
                        args = json.loads(c.arguments or "{}")
                    except ValueError:
                        args = {}
                    server_id, signature = _call_data(c.provider_data)
                    server_ids[c.id] = server_id
                    # Gemini 3 rejects a follow-up whose function calls lack the thought signature it sent.
                    parts.append(
                        types.Part(
                            function_call=types.FunctionCall(id=server_id, name=c.name, args=args),
                            thought_signature=signature,
                        )
                    )
                contents.append(types.Content(role="model", parts=parts))
                tool_turn = False
            elif m.role == "tool":
                call_id = m.tool_call_id or ""
                server_id = server_ids.get(call_id)
                parts = [
                    types.Part(
                        function_response=types.FunctionResponse(
                            id=server_id, name=names.get(call_id, "tool"), response={"result": m.text}
                        )
                    )
                ]
                # Returned images follow the function response as inline data in the same user turn.
                parts += [p for p in self._parts(m) if getattr(p, "inline_data", None) is not None]
                if tool_turn:
                    contents[-1].parts.extend(parts)
                else:
                    contents.append(types.Content(role="user", parts=parts))
                tool_turn = True
            else:
                contents.append(types.Content(role="user", parts=self._parts(m)))
                tool_turn = False
        return system, contents

    async def complete(
        self, messages: Sequence[Message], tools: Sequence[ToolSpec] | None, settings: GenSettings, ctx: CallContext
    ) -> ModelResponse:
        types = self._types
        system, contents = self._contents(messages)
        config = types.GenerateContentConfig(
            system_instruction=system,
            max_output_tokens=settings.max_tokens,
            temperature=settings.temperature,
            top_p=settings.top_p,
            seed=None if settings.seed is None else settings.seed + ctx.epoch,
            tools=[
                types.Tool(
                    function_declarations=[
                        types.FunctionDeclaration(
                            name=t.name, description=t.description, parameters_json_schema=t.parameters
                        )
                        for t in tools
                    ]
                )
            ]
            if tools
            else None,
            http_options=types.HttpOptions(timeout=int(settings.timeout_s * 1000)),
        )
        try:
            async with asyncio.timeout(settings.timeout_s):  # one deadline however slowly the body comes
                resp = await self._client.aio.models.generate_content(
                    model=self.model, contents=contents, config=config
                )
        except self._errors.APIError as exc:
            code = getattr(exc, "code", 0) or 0
            if code in (401, 403):
                raise AuthError(f"Google rejected the credentials; check {self.key_env}") from None
            if code == 429 or code >= 500 or code == 408:
                raise RetryableError(f"HTTP {code}: {str(exc)[:300]}", _retry_after(exc), kind=str(code)) from None
            raise FatalCallError(f"HTTP {code}: {str(exc)[:300]}") from None
        except TimeoutError:
            raise RetryableError(f"no complete response within {settings.timeout_s:g} s", kind="timeout") from None
        except RecursionError:
            raise malformed("nested too deeply to parse", well_formed=False) from None
        except Exception as exc:
            # Transport failures surface as the SDK's HTTP library's own errors (httpx or aiohttp); a body the
            # SDK's models refuse, as pydantic's ValidationError (a ValueError), or as whatever its converters
            # raise on a field of the wrong type (a finish reason that is an object: AttributeError).
            if (
                isinstance(exc, (ValueError, TypeError, AttributeError, KeyError, IndexError))
                and type(exc).__module__.split(".")[0] not in _TRANSPORT_MODULES
            ):
                raise malformed(f"the SDK refused the response ({type(exc).__name__})", well_formed=False) from None
            mapped = transport_error(exc)
            if mapped is None:
                raise
            raise mapped from None
        try:
            return _parse_response(resp, ctx, settings.max_reply_bytes)
        except RecursionError:
            raise malformed("nested too deeply") from None

    async def aclose(self) -> None:
        aclose = getattr(self._client.aio, "aclose", None)  # absent from older google-genai releases
        if aclose is not None:
            await aclose()


def _parse_response(resp: Any, ctx: CallContext, max_bytes: int) -> ModelResponse:
    """The SDK's GenerateContentResponse → ModelResponse. The SDK validates types, not ranges: token counts
    and the finish reason are checked here, and the size of the reply as stored (the SDK reads the body whole,
    so the bound applies after the fact)."""
    text_parts: list[str] = []
    calls: list[ToolCall] = []
    candidates = resp.candidates or []
    cand = candidates[0] if candidates else None
    for i, part in enumerate(getattr(getattr(cand, "content", None), "parts", None) or []):
        text = getattr(part, "text", None)
        if text is not None and type(text) is not str:
            raise malformed(f"candidates[0].content.parts[{i}].text is {kind_of(text)}")
        if text and not getattr(part, "thought", None):
            text_parts.append(text)
        fc = getattr(part, "function_call", None)
        if fc is not None:
            call_id = fc.id or f"call_{ctx.turn}_{i}"
            # Later turns resend this call with the server's id and signature; stored with the call, so
            # a resumed episode (another process) can too.
            signature = getattr(part, "thought_signature", None)
            data = json.dumps(
                {"id": fc.id, "thought_signature": base64.b64encode(signature).decode("ascii") if signature else None}
            )
            calls.append(
                ToolCall(id=call_id, name=fc.name or "", arguments=json.dumps(dict(fc.args or {})), provider_data=data)
            )
    usage = resp.usage_metadata
    finish = getattr(cand, "finish_reason", None)
    finish = getattr(finish, "value", finish)  # the SDK's enum: "STOP", not "FinishReason.STOP"
    raw = resp.model_dump_json(exclude_none=True)
    if len(raw) > max_bytes:
        raise RetryableError(f"reply too large: more than {max_bytes / 2**20:g} MiB (--max-reply-mb)", kind="too_large")
    return ModelResponse(
        text="".join(text_parts),
        tool_calls=calls,
        finish_reason=finish_reason(finish or None, "candidates[0].finish_reason"),
        input_tokens=token_count(getattr(usage, "prompt_token_count", None), "usageMetadata.promptTokenCount"),
        output_tokens=token_count(getattr(usage, "candidates_token_count", None), "usageMetadata.candidatesTokenCount"),
        raw=raw,
    )


def _call_data(provider_data: str | None) -> tuple[str | None, bytes | None]:
    """(server call id, thought signature) from a stored call's provider data."""
    if not provider_data:
        return None, None
    try:
        data = json.loads(provider_data)
        sig = data.get("thought_signature")
        return data.get("id"), base64.b64decode(sig) if sig else None
    except (ValueError, TypeError, AttributeError):
        return None, None
