"""Several servers, one of which has no GET /v1/models (issue 45): given --model, it is used with a warning,
and no error tells a user who named the model to name it with --model."""

from __future__ import annotations

import asyncio
import json
import logging
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from vcot.engine.endpoints import EndpointPool
from vcot.engine.errors import ConfigError


class _NoList:
    """An OpenAI-compatible stand-in without a model list: GET /v1/models is 404, chat completions are
    answered (with `reply`), and each one is counted."""

    def __init__(self, reply: str = "<answer>1</answer>") -> None:
        self.chats = 0
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _send(self, status: int, body: dict[str, Any]) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:  # noqa: N802
                self._send(404, {"error": {"message": "not found", "type": "not_found", "code": 404}})

            def do_POST(self) -> None:  # noqa: N802
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                owner.chats += 1
                self._send(
                    200,
                    {
                        "id": "x",
                        "object": "chat.completion",
                        "created": 0,
                        "model": "served",
                        "choices": [
                            {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": reply}}
                        ],
                        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
                    },
                )

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def two() -> Iterator[list[_NoList]]:
    servers = [_NoList(), _NoList()]
    yield servers
    for s in servers:
        s.close()


def _closed_port_url() -> str:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def test_servers_without_a_model_list_are_used_with_a_warning(
    two: list[_NoList], caplog: pytest.LogCaptureFixture
) -> None:
    pool = EndpointPool("served", [s.url for s in two], None)

    async def go() -> None:
        try:
            await pool.preflight()
        finally:
            await pool.aclose()

    with caplog.at_level(logging.WARNING, logger="vcot.engine.endpoints"):
        asyncio.run(go())
    assert len(pool.warnings) == 2
    for s, note in zip(two, pool.warnings, strict=True):
        assert s.url in note and "'served'" in note and "--model names" in note
        assert "name the served model" not in note
    assert [r.getMessage() for r in caplog.records] == pool.warnings


def test_an_unreachable_server_is_still_refused_without_asking_for_model(two: list[_NoList]) -> None:
    dead = _closed_port_url()
    pool = EndpointPool("served", [two[0].url, dead], None)

    async def go() -> None:
        try:
            await pool.preflight()
        finally:
            await pool.aclose()

    with pytest.raises(ConfigError) as info:
        asyncio.run(go())
    assert dead in str(info.value) and "name the served model" not in str(info.value)


def test_eval_over_servers_without_a_model_list(two: list[_NoList], tmp_path: Any) -> None:
    """The command as a user runs it (its own process: the warning reaches the terminal through logging's
    last-resort handler, which a test runner's log capture would take over)."""
    import os
    import subprocess
    import sys

    from vcot.build import TaskPlan, build_suite

    build_suite(tmp_path / "s", "s", [TaskPlan("convex_hull", 4, 0)])
    args = [
        sys.executable,
        "-m",
        "vcot.cli",
        "eval",
        str(tmp_path / "s"),
        "--run",
        str(tmp_path / "run"),
        "--no-progress",
        "-c",
        "direct",
        "--model",
        "served",
    ]
    for s in two:
        args += ["--base-url", s.url]
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    r = subprocess.run(args, capture_output=True, text=True, timeout=120, env=env)
    assert r.returncode == 0, r.stderr
    err = " ".join(r.stderr.split())
    assert "name the served model" not in err
    assert err.count("did not list its models") == 2, err
    assert two[0].chats + two[1].chats == 4 and min(two[0].chats, two[1].chats) >= 1
