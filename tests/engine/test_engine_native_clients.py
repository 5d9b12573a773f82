"""The Anthropic and Google clients through their real SDKs over HTTP, against tiny local stand-ins.

Each stand-in speaks just enough of the provider's REST API (Anthropic: POST /v1/messages; Gemini:
POST /v1beta/models/{model}:generateContent) to answer a text+image prompt, report usage, ask for a tool
call and take its result, and inject faults. The SDKs are pointed at 127.0.0.1 through the base-URL
variables they read themselves (ANTHROPIC_BASE_URL, GOOGLE_GEMINI_BASE_URL); nothing is patched.
"""

from __future__ import annotations

import asyncio
import base64
import json
import re
import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from email.utils import formatdate
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from engine_fixtures import ToolEpisode

from vcot.conditions import REGISTRY, Condition
from vcot.engine.clients import make_client
from vcot.engine.errors import ConfigError
from vcot.engine.retry import RetryPolicy
from vcot.engine.runner import EvalSpec, run_eval
from vcot.engine.store import STORE_NAME
from vcot.messages import ToolSpec

IN_TOKENS, OUT_TOKENS = 1234, 56
ANSWER = "The die ends with 3 on top. <answer>3</answer>"
FAST_RETRY = RetryPolicy(max_attempts=4, initial_s=0.001, max_backoff_s=0.01)
MAGIC = {"image/png": b"\x89PNG\r\n\x1a\n", "image/jpeg": b"\xff\xd8\xff", "image/webp": b"RIFF"}
TOOL = ToolSpec(
    "draw_line",
    "Draw a line on the image.",
    {"type": "object", "properties": {"x": {"type": "number"}}, "required": ["x"]},
)


# ---------------------------------------------------------------- the stand-in servers


@dataclass
class Fault:
    status: int
    retry_after: str | None = None


class FakeAPI:
    """One provider's API on 127.0.0.1; records every request (path, lower-cased headers, JSON body)."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.requests: list[dict[str, Any]] = []
        self.faults: list[Fault] = []
        self.lock = threading.Lock()
        self.n_tool_calls = 0
        self.parallel = 1  # tool calls per model turn
        self.signatures: dict[str, str] = {}  # Gemini: function call id -> the thought signature sent with it
        api = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                raw = self.rfile.read(int(self.headers.get("content-length") or 0))
                try:
                    body = json.loads(raw)
                except ValueError:
                    body = None
                with api.lock:
                    api.requests.append(
                        {"path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()}, "body": body}
                    )
                    fault = api.faults.pop(0) if api.faults else None
                if fault is not None and fault.status:  # Fault(0): this request passes
                    status, out, headers = fault.status, api.error_body(fault.status), {}
                    if fault.retry_after is not None:
                        headers["Retry-After"] = fault.retry_after
                else:
                    status, out = api.reply(self.path, body)
                    headers = {}
                data = json.dumps(out).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for k, v in headers.items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_port}"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def next_call_id(self) -> str:
        with self.lock:
            self.n_tool_calls += 1
            return f"toolu_{self.n_tool_calls:04d}"

    def error_body(self, status: int) -> dict[str, Any]:
        if self.kind == "anthropic":
            kind = {429: "rate_limit_error", 401: "authentication_error", 400: "invalid_request_error"}.get(
                status, "api_error"
            )
            return {"type": "error", "error": {"type": kind, "message": f"injected {status}"}}
        name = {429: "RESOURCE_EXHAUSTED", 401: "UNAUTHENTICATED", 400: "INVALID_ARGUMENT"}.get(status, "INTERNAL")
        return {"error": {"code": status, "message": f"injected {status}", "status": name}}

    def reply(self, path: str, body: Any) -> tuple[int, dict[str, Any]]:
        if not isinstance(body, dict):
            return 400, self.error_body(400)
        return self._anthropic(path, body) if self.kind == "anthropic" else self._gemini(path, body)

    def _anthropic(self, path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        if path != "/v1/messages" or not body.get("messages") or "max_tokens" not in body:
            return 404 if path != "/v1/messages" else 400, self.error_body(400)
        last = body["messages"][-1]
        answered = any(isinstance(b, dict) and b.get("type") == "tool_result" for b in last.get("content", []))
        usage = {"input_tokens": IN_TOKENS, "output_tokens": OUT_TOKENS}
        base = {
            "id": "msg_01",
            "type": "message",
            "role": "assistant",
            "model": body["model"],
            "stop_sequence": None,
            "usage": usage,
        }
        if body.get("tools") and not answered:
            calls = [
                {"type": "tool_use", "id": self.next_call_id(), "name": body["tools"][0]["name"], "input": {"x": 2 + k}}
                for k in range(self.parallel)
            ]
            return 200, {
                **base,
                "content": [{"type": "text", "text": "Let me draw."}, *calls],
                "stop_reason": "tool_use",
            }
        return 200, {**base, "content": [{"type": "text", "text": ANSWER}], "stop_reason": "end_turn"}

    def _gemini(self, path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        if not re.fullmatch(r"/v1beta/models/[^/:]+:generateContent", path) or not body.get("contents"):
            return 404, self.error_body(404)
        last = body["contents"][-1]
        answered = any("functionResponse" in p for p in last.get("parts", []))
        usage = {
            "promptTokenCount": IN_TOKENS,
            "candidatesTokenCount": OUT_TOKENS,
            "totalTokenCount": IN_TOKENS + OUT_TOKENS,
        }
        for content in body["contents"]:
            for part in content.get("parts", []):
                # As Gemini 3 does: a resent function call must carry the signature it was issued with.
                call = part.get("functionCall")
                if call is not None and self.signatures.get(call.get("id")) != (
                    part.get("thoughtSignature") or part.get("thought_signature")
                ):
                    return 400, self.error_body(400)
                answer = part.get("functionResponse")
                if answer is not None and answer.get("id") not in self.signatures:
                    return 400, self.error_body(400)
        if body.get("tools") and not answered:
            name = body["tools"][0]["functionDeclarations"][0]["name"]
            parts = [{"text": "Let me draw."}]
            for k in range(self.parallel):
                call_id = self.next_call_id().replace("toolu_", "fc_")
                self.signatures[call_id] = base64.b64encode(f"signature of {call_id}".encode()).decode()
                parts.append(
                    {
                        "functionCall": {"id": call_id, "name": name, "args": {"x": 2 + k}},
                        "thoughtSignature": self.signatures[call_id],
                    }
                )
        else:
            parts = [{"text": ANSWER}]
        return 200, {
            "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}],
            "usageMetadata": usage,
            "modelVersion": "test-model",
        }


# ---------------------------------------------------------------- per-provider knowledge


@dataclass
class Provider:
    name: str
    sdk: str
    base_env: str
    key_envs: tuple[str, ...]
    finish: str
    key_of: Callable[[dict[str, str]], str | None]


PROVIDERS = {
    "anthropic": Provider(
        "anthropic",
        "anthropic",
        "ANTHROPIC_BASE_URL",
        ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"),
        "end_turn",
        lambda h: h.get("x-api-key") or (h.get("authorization") or "").removeprefix("Bearer ") or None,
    ),
    "google": Provider(
        "google",
        "google.genai",
        "GOOGLE_GEMINI_BASE_URL",
        ("GEMINI_API_KEY", "GOOGLE_API_KEY"),
        "STOP",
        lambda h: h.get("x-goog-api-key"),
    ),
}


def user_parts(kind: str, message: dict[str, Any]) -> list[tuple[str, Any]]:
    """A request message's parts in order: ("text", str) or ("image", (media_type, decoded bytes))."""
    out: list[tuple[str, Any]] = []
    if kind == "anthropic":
        for b in message["content"]:
            if b["type"] == "text":
                out.append(("text", b["text"]))
            elif b["type"] == "image":
                assert b["source"]["type"] == "base64"
                out.append(("image", (b["source"]["media_type"], base64.b64decode(b["source"]["data"]))))
            elif b["type"] == "tool_result":
                out.extend(user_parts(kind, {"content": b["content"]}))
    else:
        for p in message["parts"]:
            if "text" in p:
                out.append(("text", p["text"]))
            elif "inlineData" in p:
                # Protobuf JSON accepts either field spelling; SDK releases differ in which they send.
                blob = p["inlineData"]
                mime = blob.get("mimeType") or blob.get("mime_type")
                out.append(("image", (mime, b64decode_any(blob["data"]))))
    return out


def b64decode_any(data: str) -> bytes:
    """Standard or URL-safe base64, padded or not: what protobuf JSON (the Gemini API) accepts for bytes."""
    data = data.replace("-", "+").replace("_", "/")
    return base64.b64decode(data + "=" * (-len(data) % 4), validate=True)


def assert_real_image(media_type: str, data: bytes) -> None:
    assert media_type in MAGIC, media_type
    assert data.startswith(MAGIC[media_type]), (media_type, data[:8])
    assert len(data) > 100


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from vcot.build import TaskPlan, build_suite

    out = tmp_path_factory.mktemp("native") / "s"
    build_suite(out, "s", [TaskPlan("rolling_dice_top", 2, 0)])
    return out


@pytest.fixture(params=sorted(PROVIDERS))
def api(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch):
    """(provider, server, key variable, secret): the SDK reaches only the local server, keyed from one variable."""
    prov = PROVIDERS[request.param]
    pytest.importorskip(prov.sdk)
    server = FakeAPI(prov.name)
    for env in (*prov.key_envs, "ANTHROPIC_PROFILE", "GOOGLE_GENAI_API_VERSION", "GOOGLE_GENAI_USE_VERTEXAI"):
        monkeypatch.delenv(env, raising=False)
    monkeypatch.setenv(prov.base_env, server.url)
    secret = f"sk-{prov.name}-test-DO-NOT-STORE-7f3a91"
    key_env = f"VCOT_TEST_{prov.name.upper()}_KEY"
    monkeypatch.setenv(key_env, secret)
    # Guard: the SDK client resolves to the local server, never to the real provider.
    client = make_client(f"{prov.name}/test-model", api_key_env=key_env)
    assert base_url_of(client).startswith(server.url), base_url_of(client)
    asyncio.run(client.aclose())
    yield prov, server, key_env, secret
    server.close()


def base_url_of(client: Any) -> str:
    if client.provider == "anthropic":
        return str(client._client.base_url)
    return str(client._client._api_client._http_options.base_url)


# ---------------------------------------------------------------- tests


def test_text_image_usage_retries_and_key(api, suite, tmp_path):
    prov, server, key_env, secret = api
    # Retry-After as seconds, then as an HTTP date (already due: no wait).
    server.faults = [Fault(429, retry_after="1"), Fault(500), Fault(429, retry_after=formatdate(usegmt=True))]
    run_dir = tmp_path / "run"
    t0 = time.perf_counter()
    result = run_eval(
        EvalSpec(
            suite=suite,
            model=f"{prov.name}/test-model",
            api_key_env=key_env,
            conditions=["direct"],
            run_dir=run_dir,
            retry=FAST_RETRY,
            concurrency=1,
        )
    )
    elapsed = time.perf_counter() - t0
    assert result.progress.done == 2 and result.progress.errors == 0
    # Two 429s and one 500, each retried once by the runner (the SDK's own retries are off).
    assert result.progress.retries == 3
    assert len(server.requests) == 5
    assert elapsed >= 1.0, "the server's Retry-After: 1 must be honoured over the 1 ms backoff"

    instances = [json.loads(line) for line in (suite / "instances.jsonl").read_text().splitlines()]
    questions = {i["question"] for i in instances}
    for req in server.requests:
        assert prov.key_of(req["headers"]) == secret
        if prov.name == "anthropic":
            assert req["path"] == "/v1/messages"
            assert req["body"]["model"] == "test-model" and req["body"]["max_tokens"] > 0
            (message,) = req["body"]["messages"]
        else:
            assert req["path"] == "/v1beta/models/test-model:generateContent"
            (message,) = req["body"]["contents"]
        assert message["role"] == "user"
        parts = user_parts(prov.name, message)
        kinds = [k for k, _ in parts]
        assert "image" in kinds and "text" in kinds
        assert max(i for i, k in enumerate(kinds) if k == "image") < min(i for i, k in enumerate(kinds) if k == "text")
        for kind, value in parts:
            if kind == "image":
                assert_real_image(*value)
        text = "".join(v for k, v in parts if k == "text")
        assert any(q in text for q in questions)

    rows = pq.read_table(run_dir / "results.parquet").to_pylist()
    assert len(rows) == 2
    for row in rows:
        assert row["error"] is None and row["response"] == ANSWER
        assert (row["input_tokens"], row["output_tokens"]) == (IN_TOKENS, OUT_TOKENS)
        assert row["finish_reason"] == prov.finish
        assert row["model"] == f"{prov.name}/test-model" or row["model"] == "test-model"
    assert result.progress.input_tokens == 2 * IN_TOKENS and result.progress.output_tokens == 2 * OUT_TOKENS

    files = [f for f in run_dir.rglob("*") if f.is_file()]
    assert any(f.name == STORE_NAME for f in files) and any(f.name == "results.parquet" for f in files)
    for f in files:
        assert secret.encode() not in f.read_bytes(), f.name
    settings = sqlite3.connect(run_dir / STORE_NAME).execute("SELECT settings FROM runs").fetchone()[0]
    assert key_env in settings  # the variable's name is recorded, never its value


REGISTRY.register(
    Condition(
        "native_tool_loop",
        lambda inst, cond, epoch, images: ToolEpisode(inst, images, [TOOL]),
        lambda inst: None if inst.steps else "no steps",
        "test: a scripted tool loop",
        default=False,
    )
)


def test_tool_call_round_trip_with_image_result(api, suite, tmp_path):
    prov, server, key_env, _ = api
    run_dir = tmp_path / "run"
    result = run_eval(
        EvalSpec(
            suite=suite,
            model=f"{prov.name}/test-model",
            api_key_env=key_env,
            conditions=["native_tool_loop"],
            run_dir=run_dir,
            retry=FAST_RETRY,
            concurrency=1,
        )
    )
    assert result.progress.done == 2 and result.progress.errors == 0 and result.progress.retries == 0
    assert len(server.requests) == 4
    # Samples interleave (a slot is held per call), so pair each follow-up turn with its opening turn.
    field = "messages" if prov.name == "anthropic" else "contents"
    openers = [r["body"] for r in server.requests if len(r["body"][field]) == 1]
    followups = [r["body"] for r in server.requests if len(r["body"][field]) == 3]
    assert len(openers) == len(followups) == 2
    second = followups[0]
    (first,) = [b for b in openers if b[field][0] == second[field][0]]
    call_id = second[field][1]["content"][1]["id"] if prov.name == "anthropic" else None

    if prov.name == "anthropic":
        (tool,) = first["tools"]
        assert tool == {"name": TOOL.name, "description": TOOL.description, "input_schema": TOOL.parameters}
        user0, assistant, result_msg = second["messages"]
        assert user0 == first["messages"][0]
        assert assistant["role"] == "assistant"
        uses = [b for b in assistant["content"] if b["type"] == "tool_use"]
        assert re.fullmatch(r"toolu_\d{4}", call_id)
        assert uses == [{"type": "tool_use", "id": call_id, "name": TOOL.name, "input": {"x": 2}}]
        assert result_msg["role"] == "user"
        (block,) = result_msg["content"]
        assert block["type"] == "tool_result" and block["tool_use_id"] == call_id
    else:
        (decl,) = first["tools"][0]["functionDeclarations"]
        assert decl["name"] == TOOL.name and decl["description"] == TOOL.description
        assert (decl.get("parametersJsonSchema") or decl.get("parameters_json_schema")) == TOOL.parameters
        user0, model_turn, result_msg = second["contents"]
        assert user0 == first["contents"][0]
        assert model_turn["role"] == "model"
        (call_part,) = [p for p in model_turn["parts"] if "functionCall" in p]
        call = call_part["functionCall"]
        assert (call["name"], call["args"]) == (TOOL.name, {"x": 2}) and re.fullmatch(r"fc_\d{4}", call["id"])
        signature = call_part.get("thoughtSignature") or call_part.get("thought_signature")
        assert b64decode_any(signature) == f"signature of {call['id']}".encode()
        assert result_msg["role"] == "user"
        responses = [p["functionResponse"] for p in result_msg["parts"] if "functionResponse" in p]
        assert len(responses) == 1 and responses[0]["name"] == TOOL.name and responses[0]["id"] == call["id"]
        assert "drew draw_line" in json.dumps(responses[0]["response"])
    parts = user_parts(prov.name, result_msg)
    images = [v for k, v in parts if k == "image"]
    assert len(images) == 1
    assert_real_image(*images[0])
    if prov.name == "anthropic":
        assert any(k == "text" and v.startswith("drew draw_line") for k, v in parts)
        assert json.loads(next(v for k, v in parts if k == "text").split(" ", 2)[2]) == {"x": 2}

    rows = pq.read_table(run_dir / "results.parquet").to_pylist()
    assert {r["n_turns"] for r in rows} == {2}
    assert all(r["response"] == ANSWER and r["input_tokens"] == 2 * IN_TOKENS for r in rows)
    db = sqlite3.connect(run_dir / STORE_NAME)
    (calls,) = db.execute("SELECT tool_calls FROM calls WHERE turn = 0 LIMIT 1").fetchone()
    assert json.loads(json.loads(calls)[0]["arguments"]) == {"x": 2}


def test_tool_episode_resumed_in_a_new_process_resends_the_stored_call_data(api, suite, tmp_path):
    """An episode interrupted after its first tool call and resumed by a fresh client (another process)
    must resend the call as the provider issued it: Gemini 3 rejects a call without its thought signature,
    so the signature travels through the run store, not the client's memory."""
    prov, server, key_env, _ = api
    run_dir = tmp_path / "run"
    spec = EvalSpec(
        suite=suite,
        model=f"{prov.name}/test-model",
        api_key_env=key_env,
        limit=1,
        conditions=["native_tool_loop"],
        run_dir=run_dir,
        concurrency=1,
        retry=RetryPolicy(max_attempts=1, initial_s=0.01, max_backoff_s=0.01),
    )
    server.faults = [Fault(0), Fault(400)]  # turn 0 answers with a tool call; turn 1 is rejected
    first = run_eval(spec)
    assert (first.progress.done, first.progress.errors) == (0, 1)
    assert len(server.requests) == 2
    second = run_eval(spec)  # a new client: nothing of the first run is left in memory
    assert (second.progress.done, second.progress.errors) == (1, 0), second.progress
    assert len(server.requests) == 3  # only the missing turn is sent again
    rows = pq.read_table(run_dir / "results.parquet").to_pylist()
    assert len(rows) == 1 and rows[0]["error"] is None and rows[0]["response"] == ANSWER
    if prov.name == "google":
        resent = server.requests[-1]["body"]["contents"][1]
        (call_part,) = [p for p in resent["parts"] if "functionCall" in p]
        signature = call_part.get("thoughtSignature") or call_part.get("thought_signature")
        assert b64decode_any(signature) == f"signature of {call_part['functionCall']['id']}".encode()


def test_parallel_tool_calls_answer_in_one_turn(api, suite, tmp_path):
    prov, server, key_env, _ = api
    server.parallel = 2
    result = run_eval(
        EvalSpec(
            suite=suite,
            model=f"{prov.name}/test-model",
            api_key_env=key_env,
            conditions=["native_tool_loop"],
            run_dir=tmp_path / "run",
            retry=FAST_RETRY,
            limit=1,
        )
    )
    assert result.progress.done == 1 and result.progress.errors == 0 and len(server.requests) == 2
    body = server.requests[1]["body"]
    if prov.name == "anthropic":
        assert [m["role"] for m in body["messages"]] == ["user", "assistant", "user"]
        asked = [b["id"] for b in body["messages"][1]["content"] if b["type"] == "tool_use"]
        answered = [b["tool_use_id"] for b in body["messages"][2]["content"] if b["type"] == "tool_result"]
    else:
        assert [c["role"] for c in body["contents"]] == ["user", "model", "user"]
        asked = [p["functionCall"]["id"] for p in body["contents"][1]["parts"] if "functionCall" in p]
        answered = [p["functionResponse"]["id"] for p in body["contents"][2]["parts"] if "functionResponse" in p]
    assert len(asked) == 2 and answered == asked
    images = [
        v
        for k, v in user_parts(prov.name, body["messages" if prov.name == "anthropic" else "contents"][2])
        if k == "image"
    ]
    assert len(images) == 2


def test_rejected_key_and_bad_request(api, suite, tmp_path):
    prov, server, key_env, _ = api
    server.faults = [Fault(400)]
    result = run_eval(
        EvalSpec(
            suite=suite,
            model=f"{prov.name}/test-model",
            api_key_env=key_env,
            conditions=["direct"],
            run_dir=tmp_path / "bad",
            retry=FAST_RETRY,
            concurrency=1,
            limit=1,
        )
    )
    assert result.progress.errors == 1 and result.progress.retries == 0 and len(server.requests) == 1
    (row,) = pq.read_table(tmp_path / "bad" / "results.parquet").to_pylist()
    assert "400" in row["error"] and row["response"] is None

    server.faults = [Fault(401)] * 3
    with pytest.raises(ConfigError, match=key_env):
        run_eval(
            EvalSpec(
                suite=suite,
                model=f"{prov.name}/test-model",
                api_key_env=key_env,
                conditions=["direct"],
                run_dir=tmp_path / "auth",
                retry=FAST_RETRY,
                concurrency=1,
                limit=1,
            )
        )
    assert len(server.requests) == 2  # stopped at the first rejection; no retry
