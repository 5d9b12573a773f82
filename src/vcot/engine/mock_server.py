"""A local OpenAI-compatible server with a scripted policy, latency and fault injection (`vcot serve-mock`).

Real HTTP/1.1 on asyncio streams (no framework), so that faults can be exact: a 429 with Retry-After, a
500, a hang past the client's timeout, malformed JSON, a body cut short of its Content-Length, a dropped
connection.

Endpoints: POST /v1/chat/completions, GET /v1/models, GET /stats (request counters), POST /reset (zero
the counters), POST /config (change knobs at run time: JSON with any MockConfig field).

How the policy knows the instance: requests tagged by the engine (`--tag-requests`; header X-Vcot-Call =
run|uid|condition|epoch|turn) are exact. Untagged requests are matched by the first image's bytes against
the suite's input images (works when images are sent unresized), then by question text when it is unique
in the suite, then by the first image's pixels (a harness that re-encodes PNGs); the condition is then
guessed from MIRA's wording (visual_cot_corrupted reads as visual_cot). Unidentified requests get a wrong
answer.

Policy: the answer is correct with probability p (per condition if given), decided by a RNG seeded with
(seed, uid, condition, epoch) — deterministic, so retries and resumed runs get the same answer. With a
script, a request that offers tools and has had k assistant turns gets the script's k-th tool calls until
the script runs out; then the final answer.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import random
import re
import time
from collections import Counter
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from vcot.seeding import derive_seed

FAULT_KINDS = ("429", "500", "timeout", "malformed", "truncated", "drop", "hostile")
# "hostile" is a well-formed 200 reply whose text attacks the consumer (control bytes, a lone surrogate,
# markup, a huge line); it is off unless asked for, so a fault rate does not change what a run scores.
DEFAULT_FAULTS = FAULT_KINDS[:-1]
HOSTILE_TEXT = ("\x00\x1b[31m<script>alert('x')</script>\ud800 {{7*7}} ${env:OPENAI_API_KEY} "
                + "A" * 20_000 + "\n<answer>\x00\x1b]0;owned\x07</answer>")
_MAX_BODY = 256 * 1024 * 1024


@dataclass
class MockConfig:
    p: float = 0.5
    p_by_condition: dict[str, float] = field(default_factory=dict)
    # Issue 20, difficulty sweeps: "NAME=VALUE" of a generator parameter (meta.generator.params) -> P, so a
    # model can be scripted whose accuracy falls with a knob (`vcot sweep`, docs/evaluation.md).
    p_by_param: dict[str, float] = field(default_factory=dict)
    seed: int = 0
    latency_s: float = 0.0
    fault_rate: float = 0.0
    faults: list[str] = field(default_factory=lambda: list(DEFAULT_FAULTS))
    retry_after_s: float = 0.05
    hang_s: float = 30.0
    # Tool-call script: list of turns, each a list of {"name": str, "arguments": object}.
    script: list[list[dict[str, Any]]] = field(default_factory=list)
    # Keep the sha256 of every image received and the text of every request (GET /images): lets tests check
    # the exact bytes and words sent.
    record_images: bool = False
    # Fraction of answers cut off by the token limit (finish_reason "length"): the text stops mid-reasoning
    # on a line that names the gold answer without an answer tag, the trap a last-line fallback falls into.
    truncate_rate: float = 0.0
    # Issue 20 (docs/evaluation.md, "Mock server"): state_probe replies right on the first j steps and wrong
    # after (the final answer right only when every step is), and a policy that reads only the last image sent:
    # right exactly when it is the instance's last step picture.
    probe_right_steps: int | None = None
    last_image_only: bool = False
    # Curation roles (docs/curation.md, "Offline: the mock server's curation roles"): requests tagged with a
    # `curate.*` stage get scripted replies; the rewriter leaks the answer for these uids, and the judge fails
    # these uids' quality checks.
    curation_leak_uids: list[str] = field(default_factory=list)
    curation_fail_uids: list[str] = field(default_factory=list)

    def validate(self) -> None:
        bad = [f for f in self.faults if f not in FAULT_KINDS]
        if bad:
            raise ValueError(f"unknown fault kind(s) {bad}; known: {', '.join(FAULT_KINDS)}")
        for name, p in [("p", self.p), *self.p_by_condition.items(), *self.p_by_param.items()]:
            if not 0 <= p <= 1:
                raise ValueError(f"probability {name}={p} outside 0..1")
        if not 0 <= self.fault_rate <= 1:
            raise ValueError("fault_rate outside 0..1")
        if not 0 <= self.truncate_rate <= 1:
            raise ValueError("truncate_rate outside 0..1")


@dataclass
class _Item:
    uid: str
    answer: str
    answer_type: str
    options: list[str] | None


class SuiteIndex:
    """What the policy needs from a suite: gold answers by uid, image digests, unique questions."""

    def __init__(self, suite_dir: str | Path | None) -> None:
        self.items: dict[str, _Item] = {}
        self.by_image: dict[str, str] = {}
        self.by_question: dict[str, str | None] = {}
        self.instances: dict[str, Any] = {}
        self.suite: Any = None
        self._input_images: list[tuple[Any, str, str]] = []  # (suite, image path, uid)
        self._by_pixels: dict[str, str] | None = None
        if suite_dir is None:
            return
        from vcot.prompts.templates import format_question
        from vcot.suite import read_suite

        root = Path(suite_dir)
        # A folder of suites (the `suites/` folder of `vcot sweep`) is served as one: uids differ across them.
        roots = [root] if (root / "manifest.json").is_file() or not root.is_dir() else \
            sorted(p.parent for p in root.glob("*/manifest.json")) or [root]
        for one in roots:
            self._add(read_suite(one, check_images="none"), format_question)

    def _add(self, suite: Any, format_question: Any) -> None:
        for inst in suite.instances:
            self.items[inst.uid] = _Item(inst.uid, inst.answer, str(inst.answer_type), inst.options)
            self.instances[inst.uid] = inst
            self.suite = suite
            self._input_images.append((suite, inst.image, inst.uid))
            try:
                b64 = base64.b64encode(suite.image_path(inst.image).read_bytes())
                self.by_image.setdefault(hashlib.sha256(b64).hexdigest(), inst.uid)
            except OSError:
                pass
            q = format_question(inst)
            self.by_question[q] = None if q in self.by_question else inst.uid


    def uid_by_pixels(self, data: bytes) -> str | None:
        """The instance whose input image has these pixels, whatever the encoding (a harness that decodes and
        re-encodes every PNG, as lmms-eval and the official MIRA scripts do); None for lossy or resized copies.
        The suite's images are decoded once, the first time a request needs it."""
        if self._by_pixels is None:
            self._by_pixels = {}
            for suite, rel, uid in self._input_images:
                try:
                    self._by_pixels.setdefault(_pixel_key(suite.image_path(rel).read_bytes()), uid)
                except (OSError, ValueError):
                    continue
        try:
            return self._by_pixels.get(_pixel_key(data))
        except (OSError, ValueError):
            return None


def _pixel_key(data: bytes) -> str:
    import io

    from PIL import Image

    with Image.open(io.BytesIO(data)) as im:
        rgb = im.convert("RGB")
        return f"{rgb.size}:{hashlib.sha256(rgb.tobytes()).hexdigest()}"


def _guess_condition(text: str, n_images: int) -> str:
    if "questions about the intermediate states" in text:
        return "state_probe"
    if "some described in words below" in text:
        return "visual_cot_mixed"
    if "intermediate reasoning image(s)" in text:
        return "visual_cot"
    if "intermediate reasoning step(s) described" in text:
        return "text_state_cot"
    if text.startswith("Image description:"):
        return "caption_only"
    if "provide the final answer directly" in text:
        return "direct"
    if "Work through it like this." in text:
        return "text_cot_spec"
    if n_images == 0:  # question_only: text_cot's words without the picture
        return "question_only"
    return "text_cot"


def _wrong_answer(item: _Item, rng: random.Random) -> str:
    gold = item.answer
    if item.options:
        letters = [chr(65 + i) for i in range(len(item.options)) if chr(65 + i) != gold]
        return rng.choice(letters)
    if gold.lstrip("-").isdigit():
        return str(int(gold) + rng.randint(1, 3))
    return f"not-{gold}"


_GIVEN = re.compile(r"the answer is ([^.\n()]+)", re.I)


def curation_reply(stage: str, uid: str | None, text: str, cfg: MockConfig) -> str:
    """A scripted curation role: the reasoner answers only what the text states ("the answer is X"), the
    captioner describes without answering, the rewriter drops the options, the judges pass unless told not to."""
    if stage in ("curate.reason", "curate.leak"):
        m = _GIVEN.search(text)
        return f"Reading the text.\n<answer>{m.group(1).strip() if m else 'unknown'}</answer>"
    if stage == "curate.caption":
        return "The picture shows the objects the question mentions; their details are visible only in the picture."
    if stage == "curate.rewrite":
        q = re.search(r"Question: (.*?)\nOptions:", text, re.S)
        c = re.search(r"Correct option: [A-Z]\. (.*)", text)
        question, answer = (q.group(1).strip() if q else ""), (c.group(1).strip() if c else "")
        if uid in cfg.curation_leak_uids:
            question += f" (Hint: the answer is {answer}.)"
        return json.dumps({"question": question, "answer": answer})
    fail = uid in cfg.curation_fail_uids and stage.startswith("curate.qc")
    return json.dumps({"verdict": "fail" if fail else "pass",
                       "reason": "scripted failure" if fail else "scripted pass"})


class MockServer:
    def __init__(self, config: MockConfig, suite_dir: str | Path | None = None) -> None:
        config.validate()
        self.config = config
        self.index = SuiteIndex(suite_dir)
        self._fault_rng = random.Random(derive_seed("faults", config.seed))
        self._server: asyncio.base_events.Server | None = None
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
        return {"requests": self.requests, "max_inflight": self.max_inflight, "status": dict(self.status),
                "faults": dict(self.faults), "by_key": dict(self.by_key), "ok_by_key": dict(self.ok_by_key),
                "roles": dict(self.roles), "first_request_at": self.first_request_at,
                "last_reply_at": self.last_reply_at, "uptime_s": time.time() - self.started}

    # -- policy -------------------------------------------------------------------------------------------

    def identify(self, headers: dict[str, str], messages: list[Any]) -> tuple[str | None, str, int, int]:
        """(uid, condition, epoch, turn) of a request."""
        tag = headers.get("x-vcot-call")
        turn = sum(1 for m in messages if isinstance(m, dict) and m.get("role") == "assistant")
        if tag:
            parts = [unquote(p) for p in tag.split("|")]
            if len(parts) == 5:
                _, uid, cond, epoch, _turn = parts
                return uid, cond, int(epoch) if epoch.isdigit() else 0, turn
        first = next((m for m in messages if isinstance(m, dict) and m.get("role") == "user"), {})
        content = first.get("content")
        texts, images = [], []
        if isinstance(content, str):
            texts.append(content)
        elif isinstance(content, list):
            for part in content:
                if isinstance(part, dict) and part.get("type") == "text":
                    texts.append(str(part.get("text", "")))
                elif isinstance(part, dict) and part.get("type") == "image_url":
                    images.append(str((part.get("image_url") or {}).get("url", "")))
        text = "\n".join(texts)
        cond = _guess_condition(text, len(images))
        uid = None
        if images and "," in images[0]:
            uid = self.index.by_image.get(hashlib.sha256(images[0].split(",", 1)[1].encode()).hexdigest())
        if uid is None:
            for q, u in self.index.by_question.items():
                if u is not None and f"Question: {q}\n\n" in text:
                    uid = u
                    break
        if uid is None and images and "," in images[0]:
            try:
                uid = self.index.uid_by_pixels(base64.b64decode(images[0].split(",", 1)[1], validate=True))
            except ValueError:
                uid = None
        return uid, cond, 0, turn

    def answer(self, uid: str | None, condition: str, epoch: int) -> tuple[str, str]:
        """(text, finish_reason) of the final answer for this sample."""
        item = self.index.items.get(uid or "")
        if item is None:
            return "I cannot tell.\n<answer>unknown</answer>", "stop"
        rng = random.Random(derive_seed("mock", self.config.seed, uid, condition, epoch))
        p = self.config.p_by_condition.get(condition, self.config.p)
        if self.config.p_by_param and uid in self.index.instances:
            params = self.index.instances[uid].meta.get("generator", {}).get("params", {})
            for name_value, p_param in self.config.p_by_param.items():
                name, _, value = name_value.partition("=")
                if name in params and json.dumps(params[name]) == value:
                    p = p_param
        correct = rng.random() < p
        ans = item.answer if correct else _wrong_answer(item, rng)
        if rng.random() < self.config.truncate_rate:
            return f"Working through the problem step by step.\nA first guess would be {item.answer}", "length"
        return f"Working through the problem step by step.\n<answer>{ans}</answer>", "stop"

    def completion(self, body: dict[str, Any], headers: dict[str, str]) -> tuple[dict[str, Any], str]:
        messages = body.get("messages")
        if not isinstance(messages, list) or not messages:
            raise ValueError("'messages' must be a non-empty list")
        uid, cond, epoch, turn = self.identify(headers, messages)
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
            self.images.append({"uid": uid, "condition": cond, "epoch": epoch, "turn": turn, "sha256": received,
                                "text": "\n".join(texts)})
        msg: dict[str, Any] = {"role": "assistant"}
        script = self.config.script
        if body.get("tools") and turn < len(script):
            msg["content"] = None
            msg["tool_calls"] = [{"id": f"call_{turn}_{i}", "type": "function",
                                  "function": {"name": c["name"], "arguments": json.dumps(c.get("arguments", {}))}}
                                 for i, c in enumerate(script[turn])]
            finish = "tool_calls"
            out_chars = sum(len(c["function"]["arguments"]) for c in msg["tool_calls"])
        elif cond.startswith("curate."):
            msg["content"], finish = curation_reply(cond, uid, "\n".join(texts), self.config), "stop"
            out_chars = len(msg["content"])
        else:
            msg["content"], finish = self.scripted_answer(uid, cond, epoch, messages) or self.answer(uid, cond, epoch)
            out_chars = len(msg["content"])
        resp = {
            "id": f"chatcmpl-mock-{self.requests}", "object": "chat.completion", "created": int(time.time()),
            "model": str(body.get("model", "mock")),
            "choices": [{"index": 0, "message": msg, "finish_reason": finish}],
            "usage": {"prompt_tokens": n_chars // 4 + 256 * n_images, "completion_tokens": out_chars // 4 + 1,
                      "total_tokens": n_chars // 4 + 256 * n_images + out_chars // 4 + 1},
        }
        return resp, headers.get("x-vcot-call") or f"{uid}|{cond}|{epoch}|{turn}"

    def scripted_answer(self, uid: str | None, condition: str, epoch: int, messages: list[Any]
                        ) -> tuple[str, str] | None:
        """The issue-20 policies (MockConfig.probe_right_steps, last_image_only), or None when neither applies."""
        from vcot.engine.mock_policies import last_image_reply, probe_reply

        inst = self.index.instances.get(uid or "")
        if inst is None:
            return None
        rng = random.Random(derive_seed("mock-probe", self.config.seed, uid, condition, epoch))
        if self.config.probe_right_steps is not None and condition == "state_probe":
            return probe_reply(inst, self.config.probe_right_steps, rng), "stop"
        if self.config.last_image_only:
            return last_image_reply(inst, self.index.suite, messages, rng), "stop"
        return None

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
                lines = head.decode("latin-1").split("\r\n")
                try:
                    method, target, _ = lines[0].split(" ", 2)
                except ValueError:
                    await self._send(writer, 400, {"error": {"message": "bad request line"}}, close=True)
                    return
                headers = {}
                for line in lines[1:]:
                    if ":" in line:
                        k, v = line.split(":", 1)
                        headers[k.strip().lower()] = v.strip()
                length = int(headers.get("content-length", "0") or 0)
                if length > _MAX_BODY:
                    await self._send(writer, 413, {"error": {"message": "body too large"}}, close=True)
                    return
                body = await reader.readexactly(length) if length else b""
                keep = await self._route(method, target.split("?", 1)[0], headers, body, writer)
                if not keep or headers.get("connection", "").lower() == "close":
                    return
        except (ConnectionError, asyncio.IncompleteReadError):
            return
        finally:
            writer.close()

    async def _send(self, writer: asyncio.StreamWriter, status: int, obj: Any, extra: dict[str, str] | None = None,
                    close: bool = False, raw: bytes | None = None) -> None:
        data = raw if raw is not None else json.dumps(obj).encode()
        reason = {200: "OK", 400: "Bad Request", 404: "Not Found", 413: "Payload Too Large",
                  429: "Too Many Requests", 500: "Internal Server Error"}.get(status, "Status")
        hdrs = {"Content-Type": "application/json", "Content-Length": str(len(data)),
                "Connection": "close" if close else "keep-alive", **(extra or {})}
        head = f"HTTP/1.1 {status} {reason}\r\n" + "".join(f"{k}: {v}\r\n" for k, v in hdrs.items()) + "\r\n"
        writer.write(head.encode() + data)
        await writer.drain()

    async def _route(self, method: str, path: str, headers: dict[str, str], body: bytes,
                     writer: asyncio.StreamWriter) -> bool:
        if method == "GET" and path in ("/v1/models", "/models"):
            await self._send(writer, 200, {"object": "list", "data": [{"id": "mock", "object": "model",
                                                                       "owned_by": "vcot"}]})
            return True
        if method == "GET" and path == "/stats":
            await self._send(writer, 200, self.stats())
            return True
        if method == "GET" and path == "/images":
            await self._send(writer, 200, self.images)
            return True
        if method == "GET" and path == "/health":
            await self._send(writer, 200, {"ok": True})
            return True
        if method == "POST" and path == "/reset":
            self.reset()
            await self._send(writer, 200, {"ok": True})
            return True
        if method == "POST" and path == "/config":
            try:
                updates = json.loads(body or b"{}")
                known = {f.name for f in fields(MockConfig)}
                cfg = MockConfig(**{**asdict(self.config), **{k: v for k, v in updates.items() if k in known}})
                cfg.validate()
            except (ValueError, TypeError) as exc:
                await self._send(writer, 400, {"error": {"message": str(exc)}})
                return True
            self.config = cfg
            await self._send(writer, 200, asdict(cfg))
            return True
        if method == "POST" and path in ("/v1/chat/completions", "/chat/completions"):
            return await self._chat(headers, body, writer)
        await self._send(writer, 404, {"error": {"message": f"no route {method} {path}"}})
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
            except (ValueError, TypeError, AttributeError, KeyError) as exc:
                self.status["400"] += 1
                await self._send(writer, 400, {"error": {"message": f"invalid request: {exc}",
                                                         "type": "invalid_request_error"}})
                return True
            self.by_key[key] += 1
            fault = None
            if cfg.fault_rate and self._fault_rng.random() < cfg.fault_rate and cfg.faults:
                fault = self._fault_rng.choice(cfg.faults)
                self.faults[fault] += 1
            if cfg.latency_s:
                # The latency counts from the request's arrival, so the server's own work (parsing a body of
                # images, matching them) is inside it: the harness's ideal N·L/C assumes exactly L per request.
                await asyncio.sleep(max(0.0, cfg.latency_s - (time.monotonic() - arrived)))
            if fault == "429":
                self.status["429"] += 1
                await self._send(writer, 429, {"error": {"message": "rate limited (injected)", "type": "rate_limit"}},
                                 extra={"Retry-After": f"{cfg.retry_after_s:g}"})
                return True
            if fault == "500":
                self.status["500"] += 1
                await self._send(writer, 500, {"error": {"message": "server error (injected)"}})
                return True
            if fault == "timeout":
                await asyncio.sleep(cfg.hang_s)
                return False
            if fault == "drop":
                return False
            if fault == "hostile" and resp["choices"][0]["message"].get("content") is not None:
                resp["choices"][0]["message"]["content"] = HOSTILE_TEXT
                self.status["200-hostile"] += 1
            data = json.dumps(resp).encode()
            if fault == "malformed":
                self.status["200-malformed"] += 1
                await self._send(writer, 200, None, raw=data[: len(data) // 2])
                return True
            if fault == "truncated":
                head = (f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {len(data)}\r\n"
                        "Connection: keep-alive\r\n\r\n").encode()
                writer.write(head + data[: len(data) // 2])
                await writer.drain()
                return False
            await self._send(writer, 200, None, raw=data)
            self.last_reply_at = time.time()
            self.status["200"] += 1
            self.ok_by_key[key] += 1
            return True
        finally:
            self.inflight -= 1


async def run_server(config: MockConfig, suite_dir: str | Path | None, host: str, port: int,
                     port_file: str | Path | None = None, announce: Any = print) -> None:
    server = MockServer(config, suite_dir)
    bound = await server.start(host, port)
    if port_file:
        tmp = Path(str(port_file) + ".tmp")
        tmp.write_text(str(bound))
        tmp.replace(port_file)
    announce(f"vcot mock server listening on http://{host}:{bound}/v1 ({len(server.index.items)} instances)")
    await server.serve_forever()


class MockHandle:
    """A mock server running in a child process (tests, benchmarks): its URL and control endpoints."""

    def __init__(self, proc: Any, port: int) -> None:
        self.proc = proc
        self.port = port
        self.root = f"http://127.0.0.1:{port}"
        self.base_url = f"{self.root}/v1"

    def _call(self, method: str, path: str, payload: dict[str, Any] | None = None) -> Any:
        import urllib.request

        data = json.dumps(payload).encode() if payload is not None else None
        req = urllib.request.Request(self.root + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=30) as r:
            return json.loads(r.read())

    def stats(self) -> dict[str, Any]:
        return self._call("GET", "/stats")

    def reset(self) -> None:
        self._call("POST", "/reset", {})

    def images(self) -> list[dict[str, Any]]:
        """Per request: uid, condition, epoch, turn, the sha256 of each image received and the request's text
        (record_images)."""
        return self._call("GET", "/images")

    def configure(self, **changes: Any) -> dict[str, Any]:
        return self._call("POST", "/config", changes)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except Exception:  # noqa: BLE001 - escalate when terminate is ignored
                self.proc.kill()
                self.proc.wait(5)


def spawn_mock_server(suite_dir: str | Path | None, *args: str, timeout: float = 30.0) -> MockHandle:
    """Start `vcot serve-mock` on a free port of 127.0.0.1 in a child process; `args` are extra CLI flags."""
    import subprocess
    import sys
    import tempfile

    port_file = Path(tempfile.mkdtemp(prefix="vcot-mock-")) / "port"
    cmd = [sys.executable, "-m", "vcot.cli", "serve-mock", "--port", "0", "--port-file", str(port_file),
           *(["--suite", str(suite_dir)] if suite_dir else []), *args]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + timeout
    while not port_file.exists():
        if proc.poll() is not None:
            err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
            raise RuntimeError(f"mock server exited with {proc.returncode}: {err[-2000:]}")
        if time.monotonic() > deadline:
            proc.kill()
            raise RuntimeError("mock server did not start in time")
        time.sleep(0.02)
    return MockHandle(proc, int(port_file.read_text()))
