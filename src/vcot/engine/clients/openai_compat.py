"""Any OpenAI-compatible chat endpoint (OpenAI, vLLM, SGLang, Ollama, LM Studio, llama.cpp, OpenRouter, …)
through the official `openai` SDK.

The SDK's own retries are off: the runner retries (it honours Retry-After and counts retries). The raw
body is parsed here rather than by the SDK's models — it is kept verbatim in the run store anyway, and
skipping the model layer keeps per-request CPU low.

A reply is untrusted end to end: its body is bounded while it is read (`ReplyGuard`), each attempt has one
deadline however slowly the body drips, and every field is type-checked where it is read; whatever does not
fit fails the call with a RetryableError naming it ("malformed reply: usage is a list").
"""

from __future__ import annotations

import asyncio
import email.utils
import errno
import json
import os
import re
import secrets
import socket
import time
import zlib
from collections.abc import Sequence
from typing import Any

import httpx2
import openai
from openai import AsyncOpenAI

from vcot.engine.clients.base import CallContext, ModelClient, display_url
from vcot.engine.diagnose import CHAT_ROUTE_HINT, names_chat_route
from vcot.engine.errors import AuthError, ConfigError, FatalCallError, NoModelList, RetryableError
from vcot.engine.settings import DEFAULT_MAX_REPLY_BYTES, GenSettings
from vcot.messages import ImagePart, Message, ModelResponse, TextPart, ToolCall, ToolSpec

# Header carrying (run, uid, condition, epoch, turn) when tagging is on; lets a server (our mock, a proxy)
# attribute requests. Off by default: real providers need not learn benchmark identifiers.
TAG_HEADER = "X-Vcot-Call"
_MAX_ERROR_BODY = 300
# Bounds on what a reply may hold, beyond the body size: no model reports a billion tokens for one reply
# (and sums of such counts stay far inside SQLite's and Arrow's 64-bit integers), no episode uses more than
# a few tool calls per turn, and a finish reason is a word.
MAX_TOKEN_COUNT = 10**9
MAX_TOOL_CALLS = 128
MAX_FINISH_REASON = 64
# The only codings advertised, because they are the ones ReplyGuard can inflate under its bound.
ACCEPT_ENCODING = "gzip, deflate"


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
                msg["tool_calls"] = [
                    {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
                    for c in m.tool_calls
                ]
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
    return [
        {"type": "function", "function": {"name": t.name, "description": t.description, "parameters": t.parameters}}
        for t in tools
    ]


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


_JSON_KINDS: dict[type, str] = {
    dict: "an object",
    list: "a list",
    str: "a string",
    int: "an integer",
    float: "a number",
    bool: "a boolean",
    type(None): "null",
}


def kind_of(value: Any) -> str:
    """What a decoded JSON value is, in JSON's words ("a list", "an object"), for error messages."""
    return _JSON_KINDS.get(type(value)) or f"a {type(value).__name__}"


def malformed(what: str, well_formed: bool = True) -> RetryableError:
    """The error of a reply that cannot be used. Retried: one reply cannot tell a faulty replica or proxy
    from a server that always answers so, and the error stored when attempts run out names what was wrong.
    A body that is not JSON (cut short, garbled) is retried like a 5xx, up to --max-attempts; a whole JSON
    reply vcot cannot use (`well_formed`) most often comes back the same, so it is retried up to
    --malformed-attempts (RetryPolicy.malformed_attempts)."""
    return RetryableError(f"malformed reply: {what}", kind="malformed", well_formed=well_formed)


def token_count(value: Any, where: str) -> int | None:
    """A reported token count as an int within 0..MAX_TOKEN_COUNT (an integral float is accepted), or None
    when it is absent; anything else is a malformed reply."""
    if value is None:
        return None
    if type(value) is int:
        if 0 <= value <= MAX_TOKEN_COUNT:
            return value
    elif type(value) is float:
        if not value.is_integer():
            raise malformed(f"{where} is not a whole number")
        if 0 <= value <= MAX_TOKEN_COUNT:
            return int(value)
    else:
        raise malformed(f"{where} is {kind_of(value)}")
    raise malformed(f"{where} is out of range (0..{MAX_TOKEN_COUNT:.0e})")


def finish_reason(value: Any, where: str) -> str | None:
    if value is None or (type(value) is str and len(value) <= MAX_FINISH_REASON):
        return value
    if type(value) is str:
        raise malformed(f"{where} is {len(value)} characters long (limit {MAX_FINISH_REASON})")
    raise malformed(f"{where} is {kind_of(value)}")


def _content_text(content: Any) -> str:
    if content is None:
        return ""
    if type(content) is str:
        return content
    if type(content) is not list:
        raise malformed(f"message.content is {kind_of(content)}")
    texts = []
    for i, part in enumerate(content):  # some servers return content parts
        if type(part) is not dict:
            raise malformed(f"message.content[{i}] is {kind_of(part)}")
        text = part.get("text")
        if text is None:
            continue  # a part of another kind (an image, a refusal) carries no answer text
        if type(text) is not str:
            raise malformed(f"message.content[{i}].text is {kind_of(text)}")
        texts.append(text)
    return "".join(texts)


def _tool_calls(raw: Any) -> list[ToolCall]:
    if raw is None:
        return []
    if type(raw) is not list:
        raise malformed(f"message.tool_calls is {kind_of(raw)}")
    if len(raw) > MAX_TOOL_CALLS:
        raise malformed(f"message.tool_calls has {len(raw)} entries (limit {MAX_TOOL_CALLS})")
    calls = []
    for i, c in enumerate(raw):
        where = f"message.tool_calls[{i}]"
        if type(c) is not dict:
            raise malformed(f"{where} is {kind_of(c)}")
        fn = c.get("function")
        if type(fn) is not dict:
            raise malformed(f"{where}.function is {kind_of(fn)}")
        name = fn.get("name", "")
        if type(name) is not str:
            raise malformed(f"{where}.function.name is {kind_of(name)}")
        args = fn.get("arguments")
        if args is None:
            args = ""
        elif type(args) is dict or type(args) is list:  # some servers send the arguments decoded
            args = json.dumps(args)
        elif type(args) is not str:
            raise malformed(f"{where}.function.arguments is {kind_of(args)}")
        call_id = c.get("id")
        if call_id is None or call_id == "":
            call_id = f"call_{i}"
        elif type(call_id) is not str:
            raise malformed(f"{where}.id is {kind_of(call_id)}")
        calls.append(ToolCall(id=call_id, name=name, arguments=args))
    return calls


def parse_completion(body: str) -> ModelResponse:
    """A Chat Completions body → ModelResponse; a body that is not a well-typed completion raises the
    RetryableError of `malformed`, naming the first field that is wrong."""
    try:
        data = json.loads(body)
    except ValueError as exc:  # not JSON, or a number of more digits than Python converts
        raise malformed(f"not JSON ({type(exc).__name__})", well_formed=False) from None
    except RecursionError:
        raise malformed("nested too deeply to parse", well_formed=False) from None
    try:
        return _completion(data, body)
    except RecursionError:  # encoding tool arguments sent as an object nested near the parser's limit
        raise malformed("nested too deeply") from None


def _completion(data: Any, body: str) -> ModelResponse:
    if type(data) is not dict:
        raise malformed(f"the body is {kind_of(data)}, not an object")
    choices = data.get("choices")
    if type(choices) is not list or not choices:
        raise malformed(
            "choices is missing"
            if choices is None
            else "choices is an empty list"
            if type(choices) is list
            else f"choices is {kind_of(choices)}"
        )
    choice = choices[0]
    if type(choice) is not dict:
        raise malformed(f"choices[0] is {kind_of(choice)}")
    msg = choice.get("message")
    if type(msg) is not dict:
        raise malformed(f"choices[0].message is {kind_of(msg)}")
    usage = data.get("usage")
    if usage is None:
        usage = {}
    elif type(usage) is not dict:
        raise malformed(f"usage is {kind_of(usage)}")
    return ModelResponse(
        text=_content_text(msg.get("content")),
        tool_calls=_tool_calls(msg.get("tool_calls")),
        finish_reason=finish_reason(choice.get("finish_reason"), "choices[0].finish_reason"),
        input_tokens=token_count(usage.get("prompt_tokens"), "usage.prompt_tokens"),
        output_tokens=token_count(usage.get("completion_tokens"), "usage.completion_tokens"),
        raw=body,
    )


class ReplyRejected(Exception):
    """Raised while a reply is read (by ReplyGuard): `kind` as in RetryableError."""

    def __init__(self, message: str, kind: str) -> None:
        super().__init__(message)
        self.kind = kind


def _too_large(limit: int) -> ReplyRejected:
    return ReplyRejected(f"reply too large: more than {limit / 2**20:g} MiB (--max-reply-mb)", "too_large")


class ReplyGuard:
    """An httpx2 response hook bounding each reply body, as decoded, to `limit` bytes while it arrives: a
    100 MB reply costs at most `limit` bytes before the call fails, and a gzip bomb is cut off as it
    inflates. It runs before the client reads the body, error bodies included; `limit` may be changed
    between requests."""

    def __init__(self, limit: int = DEFAULT_MAX_REPLY_BYTES) -> None:
        self.limit = limit

    async def __call__(self, response: httpx2.Response) -> None:
        limit = self.limit
        length = response.headers.get("content-length")
        if length is not None and length.isdigit() and (len(length) > 18 or int(length) > limit):
            raise _too_large(limit)
        wbits = None
        coding = response.headers.get("content-encoding")
        if coding is not None:
            coding = coding.strip().lower()
            if coding in ("gzip", "x-gzip"):
                wbits = zlib.MAX_WBITS | 16
            elif coding == "deflate":
                wbits = zlib.MAX_WBITS
            elif coding not in ("", "identity"):
                raise ReplyRejected(f"malformed reply: content-encoding {coding[:40]!r} was not offered", "malformed")
            # Inflated below, under the bound; httpx2 would inflate it whole.
            del response.headers["content-encoding"]
        response.stream = _BoundedStream(response.stream, limit, wbits)


class _BoundedStream(httpx2.AsyncByteStream):
    def __init__(self, inner: Any, limit: int, wbits: int | None) -> None:
        self._inner = inner
        self._limit = limit
        self._wbits = wbits

    async def __aiter__(self) -> Any:
        left = self._limit
        wbits = self._wbits
        inflater = None if wbits is None else zlib.decompressobj(wbits)
        first = True
        async for chunk in self._inner:
            if inflater is not None:
                try:
                    data = inflater.decompress(chunk, left + 1)
                except zlib.error:
                    if not (first and wbits == zlib.MAX_WBITS):
                        raise ReplyRejected("malformed reply: the body does not inflate", "malformed") from None
                    # "deflate" sent as a raw stream without its zlib header, as some servers do.
                    inflater = zlib.decompressobj(-zlib.MAX_WBITS)
                    data = inflater.decompress(chunk, left + 1)
                if inflater.unconsumed_tail:
                    raise _too_large(self._limit)
                chunk = data
            first = False
            left -= len(chunk)
            if left < 0:
                raise _too_large(self._limit)
            if chunk:
                yield chunk
        if inflater is not None and len(inflater.flush()) > left:
            raise _too_large(self._limit)

    async def aclose(self) -> None:
        await self._inner.aclose()


def _error_text(exc: openai.APIStatusError) -> str:
    # The body is server text: shortened, and never the request (which could echo headers).
    try:
        body = exc.response.text[:_MAX_ERROR_BODY]
    except Exception:  # noqa: BLE001 - a broken body must not hide the status
        body = ""
    return f"HTTP {exc.status_code}: {body}".strip()


def _url_hint(url: str) -> str:
    """'; --base-url should end in /v1, …' when the URL names the chat route itself: the SDK appends
    /chat/completions (and /models) to the base URL, so every request then gets a 404."""
    return f"; {CHAT_ROUTE_HINT}" if names_chat_route(url) else ""


def needs_tls_context(base_url: str | None) -> bool:
    """Whether the client for an endpoint needs a certificate-verifying TLS context: not for a plain-http URL
    reached without a proxy, which never speaks TLS.

    Building the context loads the system's certificates, about 30 ms per endpoint before the first request
    (docs/engine.md, "Performance"). A plain-http server that redirects to https is answered unverified, as
    the plain-http reply itself is; a proxy in the environment (HTTP_PROXY, ALL_PROXY, ...; NO_PROXY names
    none) keeps the context.
    """
    if base_url is None or base_url[:7].lower() != "http://":
        return True
    return any(
        name.lower().endswith("_proxy") and name.lower() != "no_proxy" and value for name, value in os.environ.items()
    )


def _http_client(limits: httpx2.Limits, guard: ReplyGuard, verify: bool = True) -> httpx2.AsyncClient:
    """The SDK's aiohttp transport when aiohttp is installed, else its httpx default.

    httpx's connection pool checks every pooled connection on every request, which at 64–256 connections
    was a quarter of the engine's CPU (docs/evaluation.md, "Engine"); aiohttp's pool is a free list.
    """
    kwargs: dict[str, Any] = {
        "limits": limits,
        "event_hooks": {"response": [guard]},
        "headers": {"Accept-Encoding": ACCEPT_ENCODING},
        "verify": verify,
    }
    try:
        return openai.DefaultAioHttpClient(**kwargs)
    except RuntimeError:  # the SDK raises this when its aiohttp extra is missing
        return openai.DefaultAsyncHttpxClient(**kwargs)


def transport_error(exc: Exception) -> RetryableError | None:
    """The RetryableError for an exception of the HTTP stack that escaped the SDK's own mapping, or None
    when it is not one. aiohttp refuses a response head it cannot parse (a 64 KiB header line, a garbled
    status line) with ClientResponseError, which the SDK's transport passes through as it is."""
    module = type(exc).__module__
    if module.startswith("aiohttp") and type(exc).__name__ == "ClientResponseError":
        detail = " ".join(str(getattr(exc, "message", "") or "").split())[:120]
        return malformed(f"the response head was refused ({detail})")
    if isinstance(exc, json.JSONDecodeError):  # an SDK decoding the body itself
        return malformed("not JSON (JSONDecodeError)")
    if module.startswith(("httpx", "httpcore", "h11", "anyio", "aiohttp")) or isinstance(
        exc, (ConnectionError, asyncio.IncompleteReadError, ValueError)
    ):
        return RetryableError(f"transport error ({type(exc).__name__})", kind="connection")
    return None


def unreachable(exc: BaseException, url: str) -> str | None:
    """Why nothing at all answers at `url`, when the exception's chain says so: a refused connection or a host
    name that does not resolve. The HTTP stack reports either as a connect failure, and the aiohttp transport
    as a connect *time-out*, though both are known at once; the cause is found down `__cause__`."""
    seen = 0
    cause: BaseException | None = exc
    while cause is not None and seen < 16:
        if isinstance(cause, ConnectionRefusedError) or getattr(cause, "errno", None) == errno.ECONNREFUSED:
            return f"connection refused: nothing listens at {url}"
        if isinstance(cause, socket.gaierror):
            return f"cannot resolve the host of {url} ({cause.strerror or cause})"
        cause = cause.__cause__ or cause.__context__
        seen += 1
    return None


class OpenAICompatClient(ModelClient):
    def __init__(
        self,
        model: str,
        base_url: str | None,
        api_key: str | None,
        *,
        provider: str = "openai",
        key_env: str | None = None,
        tag_requests: bool = False,
        max_connections: int = 256,
    ) -> None:
        self.provider = provider
        self.model = model
        self.base_url = base_url
        self.key_env = key_env
        self.tag_requests = tag_requests
        # The official API renamed max_tokens for reasoning models; compatible servers accept max_tokens.
        self._max_tokens_field = "max_completion_tokens" if provider == "openai" and base_url is None else "max_tokens"
        limits = httpx2.Limits(max_connections=max_connections, max_keepalive_connections=max_connections)
        self._guard = ReplyGuard()
        self._client = AsyncOpenAI(
            api_key=api_key or "EMPTY",
            base_url=base_url,
            max_retries=0,
            http_client=_http_client(limits, self._guard, verify=needs_tls_context(base_url)),
        )

    def describe(self) -> dict[str, Any]:
        return {
            "provider": self.provider,
            "model": self.model,
            "base_url": display_url(str(self._client.base_url)),
            "api_key_env": self.key_env,
        }

    @property
    def url(self) -> str:
        """The endpoint as the user gave it (the SDK's own form has a trailing slash added), without the
        credentials a URL can carry, since it is printed and stored in error messages."""
        return display_url(self.base_url or str(self._client.base_url))

    async def preflight(self, attempts: int = 3, timeout: float = 10.0) -> None:
        last = ""
        for attempt in range(attempts):
            try:
                async with asyncio.timeout(timeout):  # however slowly the listing drips
                    # The generic GET (as list_models): the SDK's models resource costs 8 ms to import.
                    await self._client.get("/models", cast_to=httpx2.Response, options={"timeout": timeout})  # type: ignore[arg-type]
                return
            except (openai.AuthenticationError, openai.PermissionDeniedError) as exc:
                raise AuthError(
                    f"{display_url(str(self._client.base_url))} rejected the credentials ({_error_text(exc)}); "
                    f"check the API key in {self.key_env or 'the key variable'}"
                ) from None
            except openai.APIStatusError:
                return  # reachable; some servers simply do not list models
            except (openai.APIConnectionError, Exception) as exc:  # noqa: BLE001 - any transport failure
                why = unreachable(exc, self.url)
                if why is not None:
                    # Not retried: a second or two of retries cannot outlast a server still starting (vLLM
                    # takes minutes), and a wrong port or host never starts answering.
                    raise ConfigError(why) from None
                last = f"{type(exc).__name__}: {exc}"
            if attempt + 1 < attempts:
                await asyncio.sleep(0.5 * 2**attempt)
        raise ConfigError(
            f"cannot reach the endpoint {display_url(str(self._client.base_url))} after {attempts} attempts "
            f"({last}); is the server running and the --base-url right?"
        )

    async def list_models(self, timeout: float = 10.0) -> list[str]:
        """The ids of the models the endpoint lists (GET /models); ConfigError saying why when there is no
        readable list (nothing listens, an HTTP error, a body that is not a model list)."""
        try:
            async with asyncio.timeout(timeout):
                resp = await self._client.get("/models", cast_to=httpx2.Response, options={"timeout": timeout})  # type: ignore[arg-type]
                text = resp.content.decode("utf-8", "replace")
        except (openai.AuthenticationError, openai.PermissionDeniedError) as exc:
            raise AuthError(
                f"{self.url} rejected the credentials ({_error_text(exc)}); check the API key in "
                f"{self.key_env or 'the variable named by --api-key-env'}"
            ) from None
        except openai.APIStatusError as exc:
            reason = f"{self.url} did not list its models ({_error_text(exc)[:120]}){_url_hint(self.url)}"
            raise NoModelList(f"{reason}; name the served model with --model", reason) from None
        except Exception as exc:  # noqa: BLE001 - any transport failure
            raise ConfigError(
                unreachable(exc, self.url)
                or f"cannot list the models of {self.url} ({type(exc).__name__}); name the served model with --model"
            ) from None
        try:
            data = json.loads(text).get("data")
            ids = [m["id"] for m in data if isinstance(m, dict) and isinstance(m.get("id"), str)]
        except (ValueError, AttributeError, TypeError, RecursionError):
            reason = f"{self.url}/models is not a model list"
            raise NoModelList(f"{reason}; name the served model with --model", reason) from None
        return ids

    async def complete(
        self, messages: Sequence[Message], tools: Sequence[ToolSpec] | None, settings: GenSettings, ctx: CallContext
    ) -> ModelResponse:
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
        self._guard.limit = settings.max_reply_bytes
        t0 = time.monotonic()
        try:
            # The SDK's timeout bounds each phase (connect, each read) on its own, so a body dripping a byte
            # at a time never trips it; this deadline holds for the attempt as a whole.
            async with asyncio.timeout(settings.timeout_s):
                # The SDK's generic POST: same auth, errors and transport as chat.completions.create, without
                # its per-field request transformation, which costs milliseconds of CPU on image-heavy
                # bodies; the body goes as bytes (encode_body), which the SDK sends as they are, as JSON.
                resp = await self._client.post(
                    "/chat/completions", cast_to=httpx2.Response, content=encode_body(body), options=options
                )  # type: ignore[arg-type]
            # JSON travels as UTF-8 (RFC 8259); a charset naming another encoding (utf-16 without a BOM
            # raises even with errors="replace") is not obeyed.
            text = resp.content.decode("utf-8", "replace")
        except ReplyRejected as exc:
            raise RetryableError(str(exc), kind=exc.kind) from None
        except openai.RateLimitError as exc:
            raise RetryableError(_error_text(exc), parse_retry_after(exc.response.headers), kind="429") from None
        except (openai.AuthenticationError, openai.PermissionDeniedError) as exc:
            raise AuthError(
                f"credentials rejected ({_error_text(exc)}); check {self.key_env or 'the API key'}"
            ) from None
        except openai.APIStatusError as exc:
            if exc.status_code >= 500 or exc.status_code in (408, 409):
                raise RetryableError(
                    _error_text(exc), parse_retry_after(exc.response.headers), kind=str(exc.status_code)
                ) from None
            raise FatalCallError(_error_text(exc)) from None
        except (openai.APITimeoutError, TimeoutError) as exc:
            # Retried, unlike at the preflight: mid-run, a refused connection is most often a server restarting.
            why = unreachable(exc, self.url)
            if why is not None:
                raise RetryableError(why, kind="connection") from None
            if time.monotonic() - t0 < settings.timeout_s:
                # The aiohttp transport reports a connection the server closed or reset mid-request (a server
                # killed under load) as a time-out, at once; no deadline can have passed yet.
                raise RetryableError("connection closed by the server before its reply", kind="connection") from None
            raise RetryableError(f"no complete response within {settings.timeout_s:g} s", kind="timeout") from None
        except openai.APIConnectionError as exc:
            cause = exc.__cause__ or exc
            if isinstance(cause, ReplyRejected):
                raise RetryableError(str(cause), kind=cause.kind) from None
            why = unreachable(exc, self.url)
            raise RetryableError(why or f"connection failed ({type(cause).__name__})", kind="connection") from None
        except openai.APIResponseValidationError:
            raise malformed("the SDK refused the response") from None
        except RecursionError:
            raise malformed("nested too deeply") from None
        except Exception as exc:  # noqa: BLE001 - transport errors surfacing from body reads
            mapped = transport_error(exc)
            if mapped is None:
                raise
            raise mapped from None
        return parse_completion(text)

    async def aclose(self) -> None:
        await self._client.close()
