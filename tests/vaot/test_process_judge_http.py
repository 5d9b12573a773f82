"""Process judge over real HTTP on a finished VAoT run: blind inputs, caching, calibration, CLI."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from typer.testing import CliRunner

from vcot.cli import app
from vcot.engine.trajectories import read_trajectories, rebuild_trajectories
from vcot.scoring.process_judge import judge_trajectories, rf_calibration
from vcot.suite import read_suite

VERDICT = {
    "key_step": 1,
    "key_action": 0,
    "action_relevance": 1,
    "render_faithfulness": 1,
    "feedback_uptake": 0.5,
    "rationale": "the line marks the path",
}


class _Judge(BaseHTTPRequestHandler):
    bodies: list[dict] = []

    def do_POST(self):  # noqa: N802 - http.server naming
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).bodies.append(body)
        out = json.dumps(
            {
                "id": "j",
                "object": "chat.completion",
                "created": 0,
                "model": body["model"],
                "choices": [
                    {
                        "index": 0,
                        "finish_reason": "stop",
                        "message": {"role": "assistant", "content": json.dumps(VERDICT)},
                    }
                ],
                "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
            }
        ).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)

    def log_message(self, *args):
        pass


@pytest.fixture
def judge_url():
    _Judge.bodies = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Judge)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()


def _texts(body: dict) -> str:
    return "\n".join(p.get("text", "") for m in body["messages"] for p in m["content"] if p["type"] == "text")


def test_judge_is_blind_cached_and_calibrated(vaot_run, judge_url):
    suite_dir, result, _ = vaot_run
    suite = read_suite(suite_dir)
    rebuild_trajectories(result.run_dir, suite)
    trajs = read_trajectories(result.run_dir)
    scores = judge_trajectories(trajs, result.run_dir, suite, "judge-x", base_url=judge_url)
    assert len(scores) == 6 and not any(s.error for s in scores)
    assert len(_Judge.bodies) == 6
    for body in _Judge.bodies:
        text = _texts(body)
        # Model identity, condition, corruption and correctness labels are withheld.
        for secret in ("mock", "vaot_wrongrender", "vaot_norender", "modify_key", "corruption"):
            assert secret not in text
        assert "Reference answer:" in text
        n_images = sum(1 for m in body["messages"] for p in m["content"] if p["type"] == "image_url")
        assert n_images in (1, 5)  # the input, plus four returned images unless nothing was rendered
    # Re-scoring a finished run sends nothing new: verdicts come from the cache.
    again = judge_trajectories(trajs, result.run_dir, suite, "judge-x", base_url=judge_url)
    assert len(_Judge.bodies) == 6 and all(s.cached for s in again)
    # A judge that always says "faithful" is right on vaot and wrong on modify_key corruptions.
    cal = rf_calibration(trajs, scores)
    assert cal["by_condition"]["vaot"]["strict"] == 1.0
    assert cal["by_condition"]["vaot_wrongrender"]["strict"] == 0.0
    assert cal["n"] == 4 and cal["strict"] == 0.5


def test_cli_trajectories_and_judge(vaot_run, judge_url):
    suite_dir, result, _ = vaot_run
    runner = CliRunner()
    r = runner.invoke(app, ["trajectories", str(result.run_dir), "--suite", str(suite_dir)])
    assert r.exit_code == 0, r.output
    r = runner.invoke(
        app,
        [
            "judge-process",
            str(result.run_dir),
            "--suite",
            str(suite_dir),
            "--judge-model",
            "judge-y",
            "--judge-base-url",
            judge_url,
        ],
    )
    assert r.exit_code == 0, r.output
    assert "Judge accu" in r.output and "vaot_wrongrender" in r.output
    lines = (result.run_dir / "process_scores.jsonl").read_text().splitlines()
    assert len(lines) == 6 and json.loads(lines[0])["judge_model"] == "judge-y"
