"""Issue 19, the request path: the body spliced from pre-encoded images means what `json.dumps` would, travels
as JSON over real HTTP, a truncated image fails only its own sample (images are checked on first use, not
all before the first request), and nothing heavy is imported before the first request."""

from __future__ import annotations

import base64
import json
import os
import random
import shutil
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
from typer.testing import CliRunner

from vcot.cli import app
from vcot.engine.clients.openai_compat import encode_body

runner = CliRunner()
REPLY = (
    '{"id": "x", "object": "chat.completion", "created": 0, "model": "stub", "choices": [{"index": 0, '
    '"message": {"role": "assistant", "content": "<answer>3</answer>"}, "finish_reason": "stop"}], '
    '"usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}'
)


def _random_text(rng: random.Random) -> str:
    alphabet = 'ab "\\\n\t\x00\x1f/é中😀<>&' + "vcot-image-0"
    return "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 30)))


def test_encoded_body_means_what_json_dumps_means_for_hostile_texts_and_urls() -> None:
    rng = random.Random(3)
    for _ in range(300):
        content: list[dict[str, Any]] = []
        for _ in range(rng.randrange(1, 5)):
            if rng.random() < 0.5:
                content.append({"type": "text", "text": _random_text(rng)})
            else:
                url = "data:image/png;base64," + "".join(rng.choice("AZaz09+/=") for _ in range(40))
                if rng.random() < 0.3:
                    url += _random_text(rng)  # not spliceable: must go through the encoder
                content.append({"type": "image_url", "image_url": {"url": url}})
        body = {
            "model": _random_text(rng),
            "max_tokens": 9,
            "messages": [
                {"role": "system", "content": _random_text(rng)},
                {"role": "user", "content": content},
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}],
                },
            ],
        }
        assert json.loads(encode_body(body)) == body


class _Recorder:
    """An OpenAI-compatible endpoint recording each chat request's headers and parsed body."""

    def __init__(self) -> None:
        self.requests: list[tuple[dict[str, str], Any]] = []
        rec = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _send(self, text: str) -> None:
                data = text.encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:  # noqa: N802
                self._send('{"object": "list", "data": []}')

            def do_POST(self) -> None:  # noqa: N802
                raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                rec.requests.append(({k.lower(): v for k, v in self.headers.items()}, json.loads(raw)))
                self._send(REPLY)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def test_a_truncated_image_fails_its_own_sample_by_name_and_the_others_are_sent_intact(
    suite_small: Path, tmp_path: Path
) -> None:
    suite = tmp_path / "suite"
    shutil.copytree(suite_small, suite)
    lines = [json.loads(line) for line in (suite / "instances.jsonl").read_text().splitlines()]
    # The first picture is over the size limit (decoded and resized), the second is sent as it is.
    for inst in lines[:2]:
        broken = suite / inst["image"]
        broken.write_bytes(broken.read_bytes()[:-40])
    rec = _Recorder()
    try:
        result = runner.invoke(
            app,
            [
                "eval",
                str(suite),
                "--run",
                str(tmp_path / "r"),
                "--no-progress",
                "-c",
                "direct",
                "--base-url",
                rec.url,
                "--model",
                "stub",
            ],
        )
    finally:
        rec.close()
    assert result.exit_code == 3, result.output  # some samples failed, the run finished
    rows = pq.read_table(tmp_path / "r" / "results.parquet").to_pylist()
    failed = [r for r in rows if r["error"]]
    assert sorted(r["uid"] for r in failed) == sorted(i["uid"] for i in lines[:2])
    for row, inst in zip(
        sorted(failed, key=lambda r: r["uid"]), sorted(lines[:2], key=lambda i: i["uid"]), strict=True
    ):
        assert inst["image"] in row["error"] and "truncated" in row["error"]
    assert len(rec.requests) == len(rows) - 2
    for headers, body in rec.requests:
        assert headers["content-type"] == "application/json"
        urls = [p["image_url"]["url"] for p in body["messages"][-1]["content"] if p["type"] == "image_url"]
        assert urls and all(u.startswith("data:image/png;base64,") for u in urls)
    sent = {
        u
        for _, body in rec.requests
        for p in body["messages"][-1]["content"]
        if p["type"] == "image_url"
        for u in [p["image_url"]["url"]]
    }
    third = lines[2]
    assert "data:image/png;base64," + base64.b64encode((suite / third["image"]).read_bytes()).decode() in sent


def test_nothing_heavy_is_imported_before_the_first_request(suite_small: Path) -> None:
    # Start-up time is mostly imports: the suite, the conditions and the episodes need no generator, no numpy,
    # scipy, shapely, pyarrow, pandas or matplotlib (benchmarks/harness.py measures the time to the first request).
    code = (
        "import sys\n"
        "from vcot.cli import app\n"
        "from vcot.engine.runner import EvalSpec, resolve_conditions, select_instances\n"
        "from vcot.images import SuiteImages\n"
        "from vcot.conditions import REGISTRY\n"
        "from vcot.suite import read_suite\n"
        f"s = read_suite({str(suite_small)!r}, check_images='none')\n"
        "insts = select_instances(s.instances, None, None)\n"
        "conds, _ = resolve_conditions(insts, ['direct', 'text_cot', 'visual_cot'])\n"
        "imgs = SuiteImages(s)\n"
        "for c in conds:\n"
        "    REGISTRY.make_episode(insts[0], c, 0, imgs).first_messages()\n"
        "heavy = ('numpy', 'scipy', 'shapely', 'pyarrow', 'pandas', 'matplotlib', 'duckdb', 'vcot.tasks.ct')\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in heavy or m.startswith('vcot.tasks.ct')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout


def test_a_jpeg_with_bytes_after_its_end_marker_is_sent_and_a_cut_one_is_not() -> None:
    import io

    import pytest
    from PIL import Image

    from vcot.images import ImageError, ImagePolicy, encode_image_bytes

    buf = io.BytesIO()
    Image.new("RGB", (40, 20), "red").save(buf, format="JPEG")
    jpeg = buf.getvalue()
    sent = encode_image_bytes(jpeg + b"\0" * 16 + b"appended by an editor", ImagePolicy(), "a.jpg")
    assert sent.mime == "image/jpeg" and (sent.width, sent.height) == (40, 20)
    with pytest.raises(ImageError, match="a.jpg"):
        encode_image_bytes(jpeg[: len(jpeg) // 2], ImagePolicy(), "a.jpg")


def test_a_plain_http_endpoint_reached_directly_builds_no_certificate_context(monkeypatch) -> None:
    # Loading the system's certificates costs about 30 ms per endpoint before the first request; a plain-http
    # endpoint never speaks TLS, unless a proxy in the environment is in the way.
    import ssl

    from vcot.engine.clients.openai_compat import OpenAICompatClient, needs_tls_context

    for name in [k for k in os.environ if k.lower().endswith("_proxy")]:
        monkeypatch.delenv(name)
    assert not needs_tls_context("http://127.0.0.1:8000/v1")
    assert not needs_tls_context("HTTP://gpu-7:8000/v1")
    assert needs_tls_context("https://api.example.com/v1")
    assert needs_tls_context(None)  # the provider's own API
    monkeypatch.setenv("NO_PROXY", "localhost")
    assert not needs_tls_context("http://127.0.0.1:8000/v1")
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy:3128")
    assert needs_tls_context("http://127.0.0.1:8000/v1")
    monkeypatch.delenv("HTTPS_PROXY")

    def verify_mode(url: str) -> ssl.VerifyMode:
        client = OpenAICompatClient("m", url, None)
        return client._client._client._transport.ssl_context.verify_mode  # the SDK's transport's own context

    assert verify_mode("https://api.example.com/v1") == ssl.CERT_REQUIRED
    assert verify_mode("http://127.0.0.1:8000/v1") == ssl.CERT_NONE
