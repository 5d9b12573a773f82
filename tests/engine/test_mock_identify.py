"""How the mock server tells which instance an untagged request is about: by the input image's bytes, by a
question unique in the suite, and by the image's pixels when a harness re-encoded it (lmms-eval and the official
MIRA scripts decode and re-encode every PNG)."""

from __future__ import annotations

import base64
import io
from pathlib import Path

from engine_fixtures import write_test_suite
from PIL import Image

from vcot.engine.mock import MockConfig, MockServer
from vcot.suite import read_suite


def _request(question: str, png: bytes) -> list[dict]:
    url = "data:image/png;base64," + base64.b64encode(png).decode()
    return [
        {
            "role": "user",
            "content": [
                {"type": "image_url", "image_url": {"url": url}},
                {"type": "text", "text": f"Question: {question}\n\nAnswer directly."},
            ],
        }
    ]


def _reencoded(png: bytes) -> bytes:
    buf = io.BytesIO()
    with Image.open(io.BytesIO(png)) as im:
        im.convert("RGB").save(buf, format="PNG", compress_level=9, optimize=True)
    return buf.getvalue()


def test_untagged_requests_are_identified_by_bytes_question_or_pixels(tmp_path: Path) -> None:
    suite_dir = write_test_suite(tmp_path / "s", 6)
    suite = read_suite(suite_dir)
    server = MockServer(MockConfig(), suite_dir)
    inst = suite.instances[2]
    png = suite.image_path(inst.image).read_bytes()
    again = _reencoded(png)
    assert again != png  # other bytes, same pixels
    # Exact bytes, under a question no instance has.
    assert server.identify({}, _request("nothing like it", png))[0] == inst.uid
    # Re-encoded bytes: found by the question when it is unique ...
    assert server.identify({}, _request(inst.question, again))[0] == inst.uid
    # ... and by the pixels when the question says nothing.
    assert server.identify({}, _request("nothing like it", again))[0] == inst.uid
    # A picture of no instance (other pixels) stays unidentified, and so gets a wrong answer.
    other = io.BytesIO()
    Image.new("RGB", (64, 64), (1, 2, 3)).save(other, format="PNG")
    assert server.identify({}, _request("nothing like it", other.getvalue()))[0] is None
    # Not base64 at all: unidentified, not an error.
    bad = [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "data:image/png;base64,@@"}}]}]
    assert server.identify({}, bad)[0] is None
