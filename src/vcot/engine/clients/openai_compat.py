"""Any OpenAI-compatible chat endpoint (OpenAI, vLLM, SGLang, Ollama, LM Studio, llama.cpp, OpenRouter, …)
through the official `openai` SDK.

The SDK's own retries are off: the runner retries (it honours Retry-After and counts retries). The raw
body is parsed here rather than by the SDK's models — it is kept verbatim in the run store anyway, and
skipping the model layer keeps per-request CPU low.
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import re
import secrets
import time
from collections.abc import Sequence
from typing import Any

import httpx2
import openai
from openai import AsyncOpenAI

from vcot.engine.clients.base import CallContext, ModelClient
from vcot.engine.errors import AuthError, ConfigError, FatalCallError, RetryableError
from vcot.engine.settings import GenSettings
from vcot.messages import ImagePart, Message, ModelResponse, TextPart, ToolCall, ToolSpec

# Header carrying (run, uid, condition, epoch, turn) when tagging is on; lets a server (our mock, a proxy)
# attribute requests. Off by default: real providers need not learn benchmark identifiers.
TAG_HEADER = "X-Vcot-Call"
_MAX_ERROR_BODY = 300


def to_openai_messages(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """Provider-neutral messages → Chat Completions messages.

    Images returned by tools travel in a user message right after the run of tool messages, because
    some servers (vLLM) reject images inside tool results and all tool answers must directly follow the
    assistant message that called them.
    """
    out: list[dict[str, Any]] = []
    pending: list[dict[str, Any]] = []

    def flush() -> None:
        if pending:
            out.append({"role": "user", "content": list(pending)})
            pending.clear()

    for m in messages:
        if m.role == "tool":
            imgs = m.images
            text = m.text or ("The resulting image is shown in the next message." if imgs else "")
            out.append({"role": "tool", "tool_call_id": m.tool_call_id or "", "content": text})
            if imgs:
                pending.append({"type": "text", "text": f"Image returned by tool call {m.tool_call_id}:"})
                pending.extend({"type": "image_url", "image_url": {"url": i.data_uri}} for i in imgs)
            continue
        flush()
        if m.role == "assistant":
            msg: dict[str, Any] = {"role": "assistant", "content": m.text or None}
            if m.tool_calls:
                msg["tool_calls"] = [{"id": c.id, "type": "function",
                                      "function": {"name": c.name, "arguments": c.arguments}}
                                     for c in m.tool_calls]
            out.append(msg)
        elif m.role == "system":
            out.append({"role": "system", "content": m.text})
        else:
            content: list[dict[str, Any]] = []
            for p in m.parts:
                if isinstance(p, TextPart):
                    content.append({"type": "text", "text": p.text})
                elif isinstance(p, ImagePart):
                    content.append({"type": "image_url", "image_url": {"url": p.image.data_uri}})
            out.append({"role": "user", "content": content})
    flush()
    return out


# Image URLs are spliced into the JSON body where this token stands; random per process, so no text holds it.
_SLOT = f"vcot-image-{secrets.token_hex(8)}-"
_SLOT_RE = re.compile(rf'"{_SLOT}(\d+)"')


_URI_CHARS = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=:;,-._"


def _splices(url: str) -> bool:
    # Only characters JSON leaves as they are (a data URI of base64 has no others); deleting them all in C is
    # ten times faster than str.isprintable on a 40 KB URI.
    return url.isascii() and not url.encode("ascii").translate(None, _URI_CHARS)


def encode_body(body: dict[str, Any]) -> bytes:
    """The request body as JSON bytes, equal in meaning to `json.dumps(body)`.

    Image data URIs are most of a request's bytes, and the JSON encoder scans every character of a string
    for escapes; base64 needs none, so the URIs are left out of the encoding and spliced into its text.
    """
    uris: list[str] = []
    messages = []
    for m in body.get("messages", []):
        content = m.get("content")
        if isinstance(content, list):
            parts = []
            for part in content:
                url = part.get("image_url", {}).get("url") if part.get("type") == "image_url" else None
                if isinstance(url, str) and _splices(url):
                    part = {**part, "image_url": {**part["image_url"], "url": f"{_SLOT}{len(uris)}"}}
                    uris.append(url)
                parts.append(part)
            m = {**m, "content": parts}
        messages.append(m)
    text = json.dumps({**body, "messages": messages} if "messages" in body else body)
    if uris:
        text = _SLOT_RE.sub(lambda mo: f'"{uris[int(mo.group(1))]}"', text)
    return text.encode("utf-8")


def to_openai_tools(tools: Sequence[ToolSpec]) -> list[dict[str, Any]]:
    return [{"type": "function", "function": {"name": t.name, "description": t.description,
                                              "parameters": t.parameters}} for t in tools]


def parse_retry_after(headers: Any) -> float | None:
    """Seconds from Retry-After / retry-after-ms (delta seconds or an HTTP date)."""
    if headers is None:
        return None
    ms = headers.get("retry-after-ms")
    if ms:
        try:
            return max(0.0, float(ms) / 1000)
        except ValueError:
            pass
    ra = headers.get("retry-after")
    if not ra:
        return None
    try:
        return max(0.0, float(ra))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(ra)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def parse_completion(body: str) -> ModelResponse:
    """A Chat Completions body → ModelResponse. Malformed bodies are transient (truncation, proxies)."""
    try:
        data = json.loads(body)
        choice = data["choices"][0]
        msg = choice.get("message") or {}
    except (ValueError, KeyError, IndexError, TypeError, AttributeError) as exc:
        raise RetryableError(f"malformed response body ({type(exc).__name__})", kind="malformed") from None
    content = msg.get("content")
    if isinstance(content, list):  # some servers return content parts
        content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
    calls = []
    for i, c in enumerate(msg.get("tool_calls") or []):
        if not isinstance(c, dict):
            continue
        fn = c.get("function") if isinstance(c.get("function"), dict) else {}
        args = fn.get("arguments", "")
        calls.append(ToolCall(id=str(c.get("id") or f"call_{i}"), name=str(fn.get("name", "")),
                              arguments=args if isinstance(args, str) else json.dumps(args)))
    usage = data.get("usage") or {}
    return ModelResponse(
        text=content if isinstance(content, str) else "",
        tool_calls=calls,
        finish_reason=choice.get("finish_reason"),
        input_tokens=usage.get("prompt_tokens"),
        output_tokens=usage.get("completion_tokens"),
        raw=body,
    )


def _error_text(exc: openai.APIStatusError) -> str:
    # The body is server text: shortened, and never the request (which could echo headers).
    try:
        body = exc.response.text[:_MAX_ERROR_BODY]
    except Exception:  # noqa: BLE001 - a broken body must not hide the status
        body = ""
    return f"HTTP {exc.status_code}: {body}".strip()


def _http_client(limits: httpx2.Limits) -> httpx2.AsyncClient:
    """The SDK's aiohttp transport when aiohttp is installed, else its httpx default.

    httpx's connection pool checks every pooled connection on every request, which at 64–256 connections
    was a quarter of the engine's CPU (docs/evaluation.md, "Engine"); aiohttp's pool is a free list.
    """
    try:
        return openai.DefaultAioHttpClient(limits=limits)
    except RuntimeError:  # the SDK raises this when its aiohttp extra is missing
        return openai.DefaultAsyncHttpxClient(limits=limits)


class OpenAICompatClient(ModelClient):
    def __init__(self, model: str, base_url: str | None, api_key: str | None, *, provider: str = "openai",
                 key_env: str | None = None, tag_requests: bool = False, max_connections: int = 256) -> None:
        self.provider = provider
        self.model = model
        self.base_url = base_url
        self.key_env = key_env
        self.tag_requests = tag_requests
        # The official API renamed max_tokens for reasoning models; compatible servers accept max_tokens.
        self._max_tokens_field = "max_completion_tokens" if provider == "openai" and base_url is None \
            else "max_tokens"
        limits = httpx2.Limits(max_connections=max_connections, max_keepalive_connections=max_connections)
        self._client = AsyncOpenAI(api_key=api_key or "EMPTY", base_url=base_url, max_retries=0,
                                   http_client=_http_client(limits))

    def describe(self) -> dict[str, Any]:
        return {"provider": self.provider, "model": self.model, "base_url": str(self._client.base_url),
                "api_key_env": self.key_env}

    async def preflight(self, attempts: int = 3, timeout: float = 10.0) -> None:
        last = ""
        for attempt in range(attempts):
            try:
                await self._client.models.with_raw_response.list(timeout=timeout)
                return
            except (openai.AuthenticationError, openai.PermissionDeniedError) as exc:
                raise AuthError(f"{self._client.base_url} rejected the credentials ({_error_text(exc)}); "
                                f"check the API key in {self.key_env or 'the key variable'}") from None
            except openai.APIStatusError:
                return  # reachable; some servers simply do not list models
            except (openai.APIConnectionError, Exception) as exc:  # noqa: BLE001 - any transport failure
                last = f"{type(exc).__name__}: {exc}"
            if attempt + 1 < attempts:
                await asyncio.sleep(0.5 * 2**attempt)
        raise ConfigError(f"cannot reach the endpoint {self._client.base_url} after {attempts} attempts "
                          f"({last}); is the server running and the --base-url right?")

    async def complete(self, messages: Sequence[Message], tools: Sequence[ToolSpec] | None,
                       settings: GenSettings, ctx: CallContext) -> ModelResponse:
        body: dict[str, Any] = {}
        if settings.max_tokens is not None:
            body[self._max_tokens_field] = settings.max_tokens
        if settings.temperature is not None:
            body["temperature"] = settings.temperature
        if settings.top_p is not None:
            body["top_p"] = settings.top_p
        if settings.seed is not None:
            body["seed"] = settings.seed + ctx.epoch
        if tools:
            body["tools"] = to_openai_tools(tools)
        options: dict[str, Any] = {"timeout": settings.timeout_s}
        if self.tag_requests:
            options["headers"] = {TAG_HEADER: ctx.tag()}
        body["model"] = self.model
        body["messages"] = to_openai_messages(messages)
        try:
            # The SDK's generic POST: same auth, errors and transport as chat.completions.create, without
            # its per-field request transformation, which costs milliseconds of CPU on image-heavy bodies; the
            # body goes as bytes (encode_body), which the SDK sends as they are, as JSON.
            resp = await self._client.post("/chat/completions", cast_to=httpx2.Response, content=encode_body(body),
                                           options=options)  # type: ignore[arg-type]
            text = resp.text
        except openai.RateLimitError as exc:
            raise RetryableError(_error_text(exc), parse_retry_after(exc.response.headers), kind="429") from None
        except (openai.AuthenticationError, openai.PermissionDeniedError) as exc:
            raise AuthError(f"credentials rejected ({_error_text(exc)}); check {self.key_env or 'the API key'}") \
                from None
        except openai.APIStatusError as exc:
            if exc.status_code >= 500 or exc.status_code in (408, 409):
                raise RetryableError(_error_text(exc), parse_retry_after(exc.response.headers),
                                     kind=str(exc.status_code)) from None
            raise FatalCallError(_error_text(exc)) from None
        except openai.APITimeoutError:
            raise RetryableError(f"no response within {settings.timeout_s:g} s", kind="timeout") from None
        except openai.APIConnectionError as exc:
            cause = exc.__cause__ or exc
            raise RetryableError(f"connection failed ({type(cause).__name__})", kind="connection") from None
        except openai.APIResponseValidationError:
            raise RetryableError("malformed response body", kind="malformed") from None
        except Exception as exc:  # noqa: BLE001 - transport errors surfacing from body reads
            if type(exc).__module__.startswith(("httpx", "httpcore", "h11", "anyio")) or isinstance(
                    exc, (ConnectionError, asyncio.IncompleteReadError, ValueError)):
                raise RetryableError(f"transport error ({type(exc).__name__})", kind="connection") from None
            raise
        return parse_completion(text)

    async def aclose(self) -> None:
        await self._client.close()
