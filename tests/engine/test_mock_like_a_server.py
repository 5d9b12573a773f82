"""The mock server fails where vLLM would: only its routes answer (a --base-url ending in /chat/completions,
or without /v1, is a 404 as it would be against a real server), and with a suite loaded a request about no
instance of it is a 404 too, with one warning on stderr, rather than a plausible wrong answer."""

from __future__ import annotations

import asyncio
import base64
import json
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from engine_fixtures import write_test_suite

from vcot.engine.mock import MockConfig, MockServer
from vcot.suite import read_suite


class _Running:
    """A MockServer in a thread of this process (so that capsys sees its stderr)."""

    def __init__(self, config: MockConfig, suite_dir: Path | None) -> None:
        self.server = MockServer(config, suite_dir)
        self.loop = asyncio.new_event_loop()
        self.port = asyncio.run_coroutine_threadsafe(self.server.start(), self._start_loop()).result(10)
        self.root = f"http://127.0.0.1:{self.port}"

    def _start_loop(self) -> asyncio.AbstractEventLoop:
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        return self.loop

    def call(
        self, method: str, path: str, payload: Any = None, headers: dict[str, str] | None = None
    ) -> tuple[int, Any, dict[str, str]]:
        data = json.dumps(payload).encode() if payload is not None else None
        req = urllib.request.Request(
            self.root + path, data=data, method=method, headers={"Content-Type": "application/json", **(headers or {})}
        )
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                return r.status, json.loads(r.read()), dict(r.headers)
        except urllib.error.HTTPError as exc:
            return exc.code, json.loads(exc.read()), dict(exc.headers)

    def stop(self) -> None:
        asyncio.run_coroutine_threadsafe(self.server.close(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        self.loop.close()


@pytest.fixture(scope="module")
def suite_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_test_suite(tmp_path_factory.mktemp("like-a-server") / "s", 4)


@pytest.fixture
def running(suite_dir: Path) -> Iterator[_Running]:
    r = _Running(MockConfig(p=1.0), suite_dir)
    yield r
    r.stop()


def _chat(question: str) -> dict[str, Any]:
    return {"model": "mock", "messages": [{"role": "user", "content": f"Question: {question}\n\nAnswer directly."}]}


def _tagged(uid: str) -> dict[str, str]:
    return {"X-Vcot-Call": f"run|{uid}|direct|0|0"}


def _is_not_found(status: int, body: Any) -> bool:
    return status == 404 and body["error"]["type"] == "not_found_error" and isinstance(body["error"]["message"], str)


def test_chat_and_models_answer_under_v1(running: _Running, suite_dir: Path) -> None:
    uid = read_suite(suite_dir).instances[0].uid
    status, body, _ = running.call("POST", "/v1/chat/completions", _chat("x"), _tagged(uid))
    assert status == 200 and body["choices"][0]["message"]["content"]
    status, body, _ = running.call("GET", "/v1/models")
    # The one model listed is what `vcot eval --base-url URL` without --model picks (clients.served_model).
    assert status == 200 and [m["id"] for m in body["data"]] == ["mock"]


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("POST", "/v1/chat/completions/chat/completions"),  # a --base-url that already ends in /chat/completions
        ("POST", "/chat/completions"),  # a --base-url without /v1
        ("GET", "/models"),
        ("POST", "/v1/completions"),
        ("GET", "/v1/models/extra"),
        ("POST", "/v1/chat/completions/"),
        ("GET", "/"),
        ("GET", "/v1/stats"),  # the control routes live at the root, not under /v1
    ],
)
def test_any_other_path_is_an_openai_style_404(running: _Running, suite_dir: Path, method: str, path: str) -> None:
    uid = read_suite(suite_dir).instances[0].uid
    status, body, _ = running.call(method, path, _chat("x") if method == "POST" else None, _tagged(uid))
    assert _is_not_found(status, body), (status, body)
    assert path in body["error"]["message"]
    assert running.server.requests == 0  # not counted as a chat request


def test_a_known_path_with_another_method_is_a_405(running: _Running) -> None:
    status, body, headers = running.call("GET", "/v1/chat/completions")
    assert status == 405 and body["error"]["type"] == "method_not_allowed"
    assert headers.get("Allow") == "POST"
    status, _, _ = running.call("POST", "/v1/models", {})
    assert status == 405


def test_the_control_routes_keep_their_paths(running: _Running) -> None:
    assert running.call("GET", "/health")[:2] == (200, {"ok": True})
    assert running.call("GET", "/stats")[0] == 200
    assert running.call("GET", "/images")[:2] == (200, [])
    assert running.call("POST", "/reset", {})[:2] == (200, {"ok": True})
    status, body, _ = running.call("POST", "/config", {"p": 0.25})
    assert status == 200 and body["p"] == 0.25
    assert running.call("POST", "/config", {"unknown": "sometimes"})[0] == 400


def test_an_unknown_instance_is_a_404_with_one_warning(running: _Running, capsys: pytest.CaptureFixture[str]) -> None:
    status, body, _ = running.call("POST", "/v1/chat/completions", _chat("What colour is the moon tonight?"))
    assert _is_not_found(status, body), (status, body)
    assert "What colour is the moon tonight?" in body["error"]["message"]
    # A second unknown request (here a tagged one whose uid the suite lacks): a 404 again, no second warning.
    status, body, _ = running.call("POST", "/v1/chat/completions", _chat("Another one?"), _tagged("no-such-uid"))
    assert _is_not_found(status, body) and "no-such-uid" in body["error"]["message"]
    err = capsys.readouterr().err
    assert err.count("mock: a request matched no suite item") == 1
    assert "question starts 'What colour is the moon tonight?" in err and "answering 404" in err
    stats = running.server.stats()
    assert stats["status"] == {"404": 2} and stats["ok_by_key"] == {}


def test_a_known_instance_is_still_answered_untagged(
    running: _Running, suite_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    suite = read_suite(suite_dir)
    inst = suite.instances[1]
    url = "data:image/png;base64," + base64.b64encode(suite.image_path(inst.image).read_bytes()).decode()
    req = _chat("nothing like it")
    req["messages"][0]["content"] = [
        {"type": "image_url", "image_url": {"url": url}},
        {"type": "text", "text": req["messages"][0]["content"]},
    ]
    status, body, _ = running.call("POST", "/v1/chat/completions", req)  # found by the image's bytes
    assert status == 200, body
    assert f"<answer>{inst.answer}</answer>" in body["choices"][0]["message"]["content"]
    assert "matched no suite item" not in capsys.readouterr().err


def test_unknown_answer_keeps_the_old_reply(running: _Running, capsys: pytest.CaptureFixture[str]) -> None:
    assert running.call("POST", "/config", {"unknown": "answer"})[0] == 200
    status, body, _ = running.call("POST", "/v1/chat/completions", _chat("What colour is the moon tonight?"))
    assert status == 200 and "<answer>unknown</answer>" in body["choices"][0]["message"]["content"]
    assert "matched no suite item" not in capsys.readouterr().err


def test_without_a_suite_every_request_is_answered(capsys: pytest.CaptureFixture[str]) -> None:
    r = _Running(MockConfig(), None)
    try:
        status, body, _ = r.call("POST", "/v1/chat/completions", _chat("What colour is the moon tonight?"))
        assert status == 200 and "<answer>unknown</answer>" in body["choices"][0]["message"]["content"]
        # The curation roles need no suite: a tagged curation stage is answered as before.
        status, body, _ = r.call("POST", "/v1/chat/completions", _chat("x"), {"X-Vcot-Call": "r|u1|curate.qc|0|0"})
        assert status == 200 and json.loads(body["choices"][0]["message"]["content"])["verdict"] == "pass"
        assert r.call("POST", "/chat/completions", _chat("x"))[0] == 404  # the route rule holds all the same
    finally:
        r.stop()
    assert "matched no suite item" not in capsys.readouterr().err


def test_a_curation_stage_or_scripted_tool_turn_needs_no_instance(running: _Running) -> None:
    status, _, _ = running.call("POST", "/v1/chat/completions", _chat("x"), {"X-Vcot-Call": "r|u1|curate.qc|0|0"})
    assert status == 200
    running.call("POST", "/config", {"script": [[{"name": "zoom", "arguments": {"x": 1}}]]})
    tools = [{"type": "function", "function": {"name": "zoom", "parameters": {"type": "object"}}}]
    status, body, _ = running.call("POST", "/v1/chat/completions", {**_chat("nothing like it"), "tools": tools})
    assert status == 200 and body["choices"][0]["finish_reason"] == "tool_calls"
