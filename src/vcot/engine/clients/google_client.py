"""Google's native Gemini API through `google-genai` (optional extra: `pip install 'vcot[google]'`).

Gemini is also reachable through its OpenAI-compatible endpoint with --base-url; this client exists for
features only the native API offers.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Sequence
from typing import Any

from vcot.engine.clients.base import CallContext, ModelClient
from vcot.engine.errors import AuthError, ConfigError, FatalCallError, RetryableError
from vcot.engine.messages import ImagePart, Message, ModelResponse, TextPart, ToolCall, ToolSpec
from vcot.engine.settings import GenSettings


class GoogleClient(ModelClient):
    provider = "google"

    def __init__(self, model: str, api_key: str, key_env: str) -> None:
        try:
            from google import genai
            from google.genai import errors, types
        except ImportError:
            raise ConfigError(f"model google/{model} needs the google-genai SDK: pip install 'vcot[google]'") \
                from None
        self._types = types
        self._errors = errors
        self.model = model
        self.key_env = key_env
        self._client = genai.Client(api_key=api_key)

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
        contents: list[Any] = []
        for m in messages:
            if m.role == "system":
                system = m.text
            elif m.role == "assistant":
                parts = self._parts(m)
                for c in m.tool_calls:
                    names[c.id] = c.name
                    try:
                        args = json.loads(c.arguments or "{}")
                    except ValueError:
                        args = {}
                    parts.append(types.Part.from_function_call(name=c.name, args=args))
                contents.append(types.Content(role="model", parts=parts))
            elif m.role == "tool":
                name = names.get(m.tool_call_id or "", "tool")
                parts = [types.Part.from_function_response(name=name, response={"result": m.text})]
                # Returned images follow as user content, as for OpenAI-compatible servers.
                imgs = [p for p in self._parts(m) if getattr(p, "inline_data", None) is not None]
                contents.append(types.Content(role="user", parts=parts + imgs))
            else:
                contents.append(types.Content(role="user", parts=self._parts(m)))
        return system, contents

    async def complete(self, messages: Sequence[Message], tools: Sequence[ToolSpec] | None,
                       settings: GenSettings, ctx: CallContext) -> ModelResponse:
        types = self._types
        system, contents = self._contents(messages)
        config = types.GenerateContentConfig(
            system_instruction=system, max_output_tokens=settings.max_tokens, temperature=settings.temperature,
            top_p=settings.top_p, seed=None if settings.seed is None else settings.seed + ctx.epoch,
            tools=[types.Tool(function_declarations=[types.FunctionDeclaration(
                name=t.name, description=t.description, parameters_json_schema=t.parameters) for t in tools])]
            if tools else None,
            http_options=types.HttpOptions(timeout=int(settings.timeout_s * 1000)),
        )
        try:
            resp = await self._client.aio.models.generate_content(model=self.model, contents=contents,
                                                                  config=config)
        except self._errors.APIError as exc:
            code = getattr(exc, "code", 0) or 0
            if code in (401, 403):
                raise AuthError(f"Google rejected the credentials; check {self.key_env}") from None
            if code == 429 or code >= 500 or code == 408:
                raise RetryableError(f"HTTP {code}", kind=str(code)) from None
            raise FatalCallError(f"HTTP {code}: {str(exc)[:300]}") from None
        except (ConnectionError, TimeoutError) as exc:
            raise RetryableError(f"connection failed ({type(exc).__name__})", kind="connection") from None
        text_parts: list[str] = []
        calls: list[ToolCall] = []
        cand = (resp.candidates or [None])[0]
        for i, part in enumerate(getattr(getattr(cand, "content", None), "parts", None) or []):
            if getattr(part, "text", None):
                text_parts.append(part.text)
            fc = getattr(part, "function_call", None)
            if fc is not None:
                calls.append(ToolCall(id=fc.id or f"call_{i}", name=fc.name or "",
                                      arguments=json.dumps(dict(fc.args or {}))))
        usage = resp.usage_metadata
        return ModelResponse(
            text="".join(text_parts), tool_calls=calls,
            finish_reason=str(getattr(cand, "finish_reason", None) or "") or None,
            input_tokens=getattr(usage, "prompt_token_count", None),
            output_tokens=getattr(usage, "candidates_token_count", None),
            raw=resp.model_dump_json(exclude_none=True))
