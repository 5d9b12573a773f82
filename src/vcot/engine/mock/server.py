"""The mock server itself: connections, routes, request counters, and the chat endpoint that ties
identification, the answer policy and fault injection together.

Endpoints: POST /v1/chat/completions, GET /v1/models, GET /stats (request counters), GET /images (what
record_images kept), GET /health, POST /reset (zero the counters), POST /config (change knobs at run time:
JSON with any MockConfig field). Like vLLM, nothing else answers: another path is a 404 and another method on
a known path a 405, with an OpenAI-style error body, so that a --base-url that would fail against a real
server (one ending in /chat/completions, one without /v1) fails against the mock too. With a suite loaded, a
chat request that matches none of its instances is a 404 as well (MockConfig.unknown), with a warning on
stderr the first time.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import sys
import time
from collections import Counter
from dataclasses import asdict
from pathlib import Path
from typing import Any

from vcot.engine.mock.config import MockConfig
from vcot.engine.mock.faults import FaultInjector, act_out, wait_latency
from vcot.engine.mock.identify import SuiteIndex, identify
from vcot.engine.mock.policies import reply
from vcot.engine.mock.wire import MAX_BODY, parse_head, send

# The routes, by path: the methods each answers (any other path: 404; another method: 405).
ROUTES: dict[str, tuple[str, ...]] = {
    "/v1/chat/completions": ("POST",),
    "/v1/models": ("GET",),
    "/stats": ("GET",),
    "/images": ("GET",),
    "/health": ("GET",),
    "/reset": ("POST",),
    "/config": ("POST",),
}
# The model GET /v1/models lists: what `vcot eval --base-url URL` without --model picks (served_model).
MODEL_ID = "mock"


class UnknownInstance(Exception):
    """A chat request that matches no instance of the loaded suite."""


def _error(message: str, kind: str, code: int) -> dict[str, Any]:
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}


def _question_start(messages: list[Any], n: int = 60) -> str:
    """The start of a request's question (its first user text, from "Question: " when it has one)."""
    first = next((m for m in messages if isinstance(m, dict) and m.get("role") == "user"), {})
    content = first.get("content")
    if isinstance(content, str):
        text = content
    elif isinstance(content, list):
        text = "\n".join(str(p.get("text", "")) for p in content if isinstance(p, dict) and p.get("type") == "text")
    else:
        text = ""
    at = text.find("Question: ")
    text = " ".join((text[at + len("Question: ") :] if at >= 0 else text).split())
    return text[:n] + ("…" if len(text) > n else "")


class MockServer:
    def __init__(self, config: MockConfig, suite_dir: str | Path | None = None) -> None:
        config.validate()
        self.config = config
        self.index = SuiteIndex(suite_dir)
        self._faults = FaultInjector(config.seed)
        self._server: asyncio.base_events.Server | None = None
        self._warned_unknown = False
        self.reset()

    def reset(self) -> None:
        self.requests = 0
        self.inflight = 0
        self.max_inflight = 0
        self.status: Counter[str] = Counter()
        self.faults: Counter[str] = Counter()
        self.by_key: Counter[str] = Counter()
        self.ok_by_key: Counter[str] = Counter()
        # Role sequences seen ("user,assistant,tool,user"): lets tests check how conversations travel.
        self.roles: Counter[str] = Counter()
        self.images: list[dict[str, Any]] = []
        self.started = time.time()
        # Wall-clock times of the first request received and the last reply sent: the harness benchmark
        # measures the client's start-up against them (benchmarks/harness.py).
        self.first_request_at: float | None = None
        self.last_reply_at: float | None = None

    def stats(self) -> dict[str, Any]:
        return {
            "requests": self.requests,
            "max_inflight": self.max_inflight,
            "status": dict(self.status),
            "faults": dict(self.faults),
            "by_key": dict(self.by_key),
            "ok_by_key": dict(self.ok_by_key),
            "roles": dict(self.roles),
            "first_request_at": self.first_request_at,
            "last_reply_at": self.last_reply_at,
            "uptime_s": time.time() - self.started,
        }

    def identify(self, headers: dict[str, str], messages: list[Any]) -> tuple[str | None, str, int, int]:
        """(uid, condition, epoch, turn) of a request."""
        return identify(self.index, headers, messages)

    def completion(self, body: dict[str, Any], headers: dict[str, str]) -> tuple[dict[str, Any], str]:
        """The chat completion for a request body, and the key its counters are kept under."""
        messages = body.get("messages")
        if not isinstance(messages, list) or not messages:
            raise ValueError("'messages' must be a non-empty list")
        uid, cond, epoch, turn = self.identify(headers, messages)
        self._check_known(body, messages, uid, cond, turn)
        self.roles[",".join(str(m.get("role")) if isinstance(m, dict) else "?" for m in messages)] += 1
        n_chars = 0
        n_images = 0
        received: list[str] = []
        texts: list[str] = []
        for m in messages:
            c = m.get("content") if isinstance(m, dict) else None
            if isinstance(c, str):
                n_chars += len(c)
                texts.append(c)
            elif isinstance(c, list):
                for part in c:
                    if isinstance(part, dict) and part.get("type") == "image_url":
                        n_images += 1
                        if self.config.record_images:
                            url = str((part.get("image_url") or {}).get("url", ""))
                            payload = base64.b64decode(url.split(",", 1)[1]) if "," in url else b""
                            received.append(hashlib.sha256(payload).hexdigest())
                    elif isinstance(part, dict):
                        n_chars += len(str(part.get("text", "")))
                        texts.append(str(part.get("text", "")))
        if self.config.record_images and len(self.images) < 100_000:
            self.images.append(
                {
                    "uid": uid,
                    "condition": cond,
                    "epoch": epoch,
                    "turn": turn,
                    "sha256": received,
                    "text": "\n".join(texts),
                }
            )
        msg, finish, out_chars = reply(
            self.index, self.config, body, (uid, cond, epoch, turn), messages, "\n".join(texts)
        )
        resp = {
            "id": f"chatcmpl-mock-{self.requests}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": str(body.get("model", "mock")),
            "choices": [{"index": 0, "message": msg, "finish_reason": finish}],
            "usage": {
                "prompt_tokens": n_chars // 4 + 256 * n_images,
                "completion_tokens": out_chars // 4 + 1,
                "total_tokens": n_chars // 4 + 256 * n_images + out_chars // 4 + 1,
            },
        }
        return resp, headers.get("x-vcot-call") or f"{uid}|{cond}|{epoch}|{turn}"

    def _check_known(self, body: dict[str, Any], messages: list[Any], uid: str | None, cond: str, turn: int) -> None:
        """Raise UnknownInstance for a request the loaded suite has no instance for and that would get a
        final answer (a curation role or a scripted tool call needs none); nothing without a suite, or with
        MockConfig.unknown "answer"."""
        if not self.index.items or uid in self.index.items or self.config.unknown == "answer":
            return
        if cond.startswith("curate.") or (body.get("tools") and turn < len(self.config.script)):
            return
        start = _question_start(messages)
        if not self._warned_unknown:
            self._warned_unknown = True
            print(
                f"mock: a request matched no suite item (question starts {start!r}); answering 404",
                file=sys.stderr,
                flush=True,
            )
        raise UnknownInstance(
            f"the mock server's suite has no instance this request is about (question "
            f"starts {start!r}{f', tagged uid {uid!r}' if uid else ''})"
        )

    # -- HTTP -----------------------------------------------------------------------------------------------

    async def start(self, host: str = "127.0.0.1", port: int = 0) -> int:
        self._server = await asyncio.start_server(self._handle, host, port, backlog=1024)
        return self._server.sockets[0].getsockname()[1]

    async def serve_forever(self) -> None:
        assert self._server is not None
        async with self._server:
            await self._server.serve_forever()

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                try:
                    head = await reader.readuntil(b"\r\n\r\n")
                except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
                    return
                parsed = parse_head(head)
                if parsed is None:
                    await send(writer, 400, {"error": {"message": "bad request line"}}, close=True)
                    return
                method, target, headers = parsed
                length = int(headers.get("content-length", "0") or 0)
                if length > MAX_BODY:
                    await send(writer, 413, {"error": {"message": "body too large"}}, close=True)
                    return
                body = await reader.readexactly(length) if length else b""
                keep = await self._route(method, target.split("?", 1)[0], headers, body, writer)
                if not keep or headers.get("connection", "").lower() == "close":
                    return
        except (ConnectionError, asyncio.IncompleteReadError):
            return
        finally:
            writer.close()

    async def _route(
        self, method: str, path: str, headers: dict[str, str], body: bytes, writer: asyncio.StreamWriter
    ) -> bool:
        """Answer one request; whether the connection stays open."""
        if path not in ROUTES:
            await send(
                writer,
                404,
                _error(
                    f"no route {method} {path}: the mock server, like vLLM, answers "
                    "POST /v1/chat/completions and GET /v1/models (is the --base-url "
                    "the server's root followed by /v1?)",
                    "not_found_error",
                    404,
                ),
            )
            return True
        if method not in ROUTES[path]:
            await send(
                writer,
                405,
                _error(
                    f"method {method} not allowed on {path} (use {' or '.join(ROUTES[path])})",
                    "method_not_allowed",
                    405,
                ),
                extra={"Allow": ", ".join(ROUTES[path])},
            )
            return True
        if path == "/v1/chat/completions":
            return await self._chat(headers, body, writer)
        if path == "/v1/models":
            await send(
                writer, 200, {"object": "list", "data": [{"id": MODEL_ID, "object": "model", "owned_by": "vcot"}]}
            )
        elif path == "/stats":
            await send(writer, 200, self.stats())
        elif path == "/images":
            await send(writer, 200, self.images)
        elif path == "/health":
            await send(writer, 200, {"ok": True})
        elif path == "/reset":
            self.reset()
            await send(writer, 200, {"ok": True})
        else:  # POST /config
            try:
                cfg = self.config.updated(json.loads(body or b"{}"))
            except (ValueError, TypeError) as exc:
                await send(writer, 400, {"error": {"message": str(exc)}})
                return True
            self.config = cfg
            await send(writer, 200, asdict(cfg))
        return True

    async def _chat(self, headers: dict[str, str], body: bytes, writer: asyncio.StreamWriter) -> bool:
        arrived = time.monotonic()
        if self.first_request_at is None:
            self.first_request_at = time.time()
        self.requests += 1
        self.inflight += 1
        self.max_inflight = max(self.max_inflight, self.inflight)
        try:
            cfg = self.config
            try:
                req = json.loads(body)
                resp, key = self.completion(req, headers)
            except UnknownInstance as exc:
                self.status["404"] += 1
                await send(writer, 404, _error(str(exc), "not_found_error", 404))
                return True
            except (ValueError, TypeError, AttributeError, KeyError) as exc:
                self.status["400"] += 1
                await send(
                    writer, 400, {"error": {"message": f"invalid request: {exc}", "type": "invalid_request_error"}}
                )
                return True
            self.by_key[key] += 1
            fault = self._faults.draw(cfg)
            if fault is not None:
                self.faults[fault] += 1
            await wait_latency(cfg, arrived)
            keep = await act_out(fault, resp, cfg, writer, self.status)
            if keep is not None:
                return keep
            await send(writer, 200, None, raw=json.dumps(resp).encode())
            self.last_reply_at = time.time()
            self.status["200"] += 1
            self.ok_by_key[key] += 1
            return True
        finally:
            self.inflight -= 1


async def run_server(
    config: MockConfig,
    suite_dir: str | Path | None,
    host: str,
    port: int,
    port_file: str | Path | None = None,
    announce: Any = print,
) -> None:
    server = MockServer(config, suite_dir)
    bound = await server.start(host, port)
    if port_file:
        tmp = Path(str(port_file) + ".tmp")
        tmp.write_text(str(bound))
        tmp.replace(port_file)
    announce(f"vcot mock server listening on http://{host}:{bound}/v1 ({len(server.index.items)} instances)")
    await server.serve_forever()
