"""Issue 31 (review edits checked, call tags off by default) and issue 26 (curate's terminal output: summaries,
progress lines, quota warnings) for `vcot curate`."""

from __future__ import annotations

import http.client
import json
import os
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlencode

import pytest
from curate_fixtures import make_config
from typer.testing import CliRunner

from vcot.cli import app
from vcot.curate.checks import MAX_ANSWER_CHARS, edit_problem
from vcot.curate.freeze import FreezeError, freeze
from vcot.curate.pipeline import Curation, CurationConfig
from vcot.curate.review.app import ReviewApp, item_key
from vcot.curate.review.server import ReviewServer

runner = CliRunner()

BAD_EDITS = [
    ("nul-in-answer", "What colour?", "red\x00", "control character"),
    ("esc-in-question", "What \x1b[31mcolour?", "red", "control character"),
    ("bell-in-answer", "What colour?", "re\x07d", "control character"),
    ("newline-in-answer", "What colour?", "red\nblue", "control character"),
    ("answer-tag-in-answer", "What colour?", "<answer>red</answer>", "answer tag"),
    ("closing-tag-in-question", "What colour? </answer>", "red", "answer tag"),
    ("escaped-tag-in-answer", "What colour?", "&lt;answer&gt;red", "answer tag"),
    ("spaced-tag-in-question", "Say < ANSWER > first", "red", "answer tag"),
    ("numeric-entity-tag", "What colour? &#60;/answer&#62;", "red", "answer tag"),
    ("answer-5000-chars", "What colour?", "r" * 5000, "character limit"),
    ("question-too-long", "q" * 5000, "red", "character limit"),
    ("empty-answer", "What colour?", "  ", "both a question and an answer"),
]


@pytest.mark.parametrize(("question", "answer", "why"), [pytest.param(q, a, w, id=i) for i, q, a, w in BAD_EDITS])
def test_edit_problem_refuses(question: str, answer: str, why: str) -> None:
    problem = edit_problem(question, answer)
    assert problem and why in problem


def test_edit_problem_accepts_plain_edits() -> None:
    assert edit_problem("Which colour?\nLook closely.", "dark red") is None
    assert edit_problem("Is 3 < 4?", "yes") is None
    assert edit_problem("q", "a" * MAX_ANSWER_CHARS) is None


@pytest.fixture(scope="module")
def reviewed(mock, tmp_path_factory):
    cur = Curation(
        CurationConfig.load(make_config(tmp_path_factory.mktemp("review"), mock.base_url, n=6)), tag_requests=True
    )
    cur.run()
    yield cur
    cur.close()


def test_review_refuses_bad_edits_with_400_and_a_readable_message(reviewed):
    app = ReviewApp(reviewed)
    key = item_key(app.items[0].inst.uid)
    with ReviewServer(app) as srv:

        def post(fields: dict[str, str]) -> tuple[int, str]:
            conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=10)
            conn.request(
                "POST",
                f"/i/{key}",
                body=urlencode(fields),
                headers={"Host": f"127.0.0.1:{srv.port}", "Content-Type": "application/x-www-form-urlencoded"},
            )
            resp = conn.getresponse()
            body = resp.read().decode()
            conn.close()
            return resp.status, body

        for _, question, answer, why in BAD_EDITS:
            status, body = post({"action": "edit", "question": question, "answer": answer})
            assert status == 400 and "edit not saved" in body and why in body, (question[:20], answer[:20], body)
        status, body = post({"action": "approve", "note": "ok\x1b[2J"})
        assert status == 400 and "note" in body
        assert reviewed.store.decisions("review") == {}
        # a textarea's CRLF line breaks are plain newlines, not control characters
        status, _ = post({"action": "edit", "question": "Which colour?\r\nLook again.", "answer": "red"})
        assert status == 303
    edit = reviewed.store.decision("review", app.items[0].inst.uid)
    assert edit["details"] == {"question": "Which colour?\nLook again.", "answer": "red"}


def test_freeze_refuses_a_bad_stored_edit(reviewed, tmp_path):
    uid = reviewed.survivors()[1][0].uid
    reviewed.store.decide("review", uid, "edited", "by hand", {"question": "What colour?", "answer": "<answer>x"})
    with pytest.raises(FreezeError, match=f"{uid}.*answer tag"):
        freeze(reviewed, tmp_path / "out", auto_approve=True)
    assert not (tmp_path / "out" / "manifest.json").exists()
    reviewed.store.decide("review", uid, "edited", "by hand", {"question": "What colour?", "answer": "red\x00"})
    with pytest.raises(FreezeError, match="control character"):
        freeze(reviewed, tmp_path / "out", auto_approve=True)
    reviewed.store.decide("review", uid, "edited", "fixed", {"question": "What colour?", "answer": "red"})
    assert freeze(reviewed, tmp_path / "out", auto_approve=True)["total"] >= 1


class _Recorder(BaseHTTPRequestHandler):
    """An OpenAI-compatible endpoint that records every request's headers and answers with a fixed reply."""

    seen: list[dict[str, str]] = []

    def do_POST(self) -> None:  # noqa: N802 - http.server naming
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        _Recorder.seen.append({k.lower(): v for k, v in self.headers.items()})
        body = json.dumps(
            {
                "id": "x",
                "object": "chat.completion",
                "created": 0,
                "model": "m",
                "choices": [
                    {"index": 0, "message": {"role": "assistant", "content": "A red square."}, "finish_reason": "stop"}
                ],
                "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
            }
        ).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def recorder():
    srv = ThreadingHTTPServer(("127.0.0.1", 0), _Recorder)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    _Recorder.seen = []
    yield f"http://127.0.0.1:{srv.server_address[1]}/v1"
    srv.shutdown()
    srv.server_close()


@pytest.mark.parametrize("tagged", [False, True])
def test_call_tags_are_sent_only_when_asked(recorder, tmp_path, tagged):
    config = make_config(tmp_path, recorder, n=3)
    args = ["curate", "filter", str(config)] + (["--tag-requests"] if tagged else [])
    for stage in ("ingest", "sample"):
        assert runner.invoke(app, ["curate", stage, str(config)]).exit_code == 0
    r = runner.invoke(app, args)
    assert r.exit_code == 0, r.output
    assert len(_Recorder.seen) == 3 * 6
    tags = [h.get("x-vcot-call") for h in _Recorder.seen]
    if tagged:
        assert all(t and "curate" in t for t in tags), tags
    else:
        assert tags == [None] * len(tags)


def test_run_prints_a_summary_per_stage_and_progress_lines_in_a_log(mock, tmp_path):
    config = make_config(tmp_path, mock.base_url, n=12)
    data = json.loads(config.read_text())
    data["quotas"]["Geometry"] = 5  # a quota whose category no candidate falls into
    config.write_text(json.dumps(data))
    mock.reset()
    env = {**os.environ, "COLUMNS": "100", "VCOT_PROGRESS_EVERY": "30"}
    r = subprocess.run(
        [sys.executable, "-m", "vcot.cli", "curate", "run", str(config), "--tag-requests"],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        stdin=subprocess.DEVNULL,
    )
    assert r.returncode == 0, r.stderr
    out = r.stdout.splitlines()
    assert out[0] == "ingest: 12 candidates"
    assert out[1].startswith("sample: 12 chosen, 0 left out — Object Attributes 6, Visual Commonsense 6")
    assert out[2] == "filter: 12 items — kept 8, removed 4; 72 calls sent"
    assert out[3].startswith("rewrite: 8 items — ") and out[4].startswith("qc: 8 items — ")
    assert not any(line.startswith("{") for line in out)
    err = r.stderr
    assert "warning: quota 'Geometry' (5) matches no candidate" in err and "Object Attributes" in err
    # a plain line at the start and at every tenth: done/total, failures, retries, elapsed, ETA
    filt = [line for line in err.splitlines() if line.startswith("curate filter:")]
    assert filt[0].startswith("curate filter: 0/12 (0%), failed 0, retries 0, 0:00:00 elapsed")
    assert filt[-1].startswith("curate filter: 12/12 (100%)") and len(filt) >= 10
    assert any("ETA" in line for line in filt)


def test_json_output_keeps_one_line_per_stage(mock, tmp_path):
    config = make_config(tmp_path, mock.base_url, n=6)
    r = runner.invoke(app, ["curate", "run", str(config), "--json", "--tag-requests"])
    assert r.exit_code == 0, r.output
    stages = [json.loads(line)["stage"] for line in r.output.splitlines() if line.startswith("{")]
    assert stages == ["ingest", "sample", "filter", "rewrite", "qc"]
