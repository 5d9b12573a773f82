"""LLM judges against a tiny local OpenAI-compatible server (real HTTP): verdicts, caching, logging."""

from __future__ import annotations

import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from vcot.schema import AnswerType, Instance
from vcot.scoring import LLMJudge, score_fields, score_response
from vcot.scoring.judge import parse_verdict


class _Handler(BaseHTTPRequestHandler):
    """Answers Correct when the gold string appears in the response (answer judge) or when the candidate
    shares the reference's last word (equivalence judge); model "broken" gets HTTP 500."""

    def do_POST(self):  # noqa: N802 (http.server API)
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.requests.append(body)
        if body["model"] == "broken":
            self.send_response(500)
            self.end_headers()
            self.wfile.write(b'{"error": {"message": "boom"}}')
            return
        prompt = body["messages"][0]["content"]
        if "Candidate Answer" in prompt:
            ref = re.search(r'Reference Answer: "(.*)"', prompt).group(1)
            cand = re.search(r'Candidate Answer: "(.*)"', prompt).group(1)
            ok = ref.split()[-1].lower() in cand.lower()
        else:
            gold = re.search(r'Ground Truth Answer: "(.*)"', prompt).group(1)
            resp = prompt.split("---")[1]
            ok = gold.lower() in resp.lower()
        payload = {
            "id": "x",
            "object": "chat.completion",
            "created": 0,
            "model": body["model"],
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "stop",
                    "message": {"role": "assistant", "content": "Correct" if ok else "Incorrect."},
                }
            ],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }
        data = json.dumps(payload).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):  # keep test output quiet
        pass


@pytest.fixture
def server():
    srv = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    srv.requests = []
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    yield srv
    srv.shutdown()
    srv.server_close()


def _url(srv) -> str:
    return f"http://127.0.0.1:{srv.server_address[1]}/v1"


def _inst() -> Instance:
    return Instance(
        uid="g1",
        task="gear_rotation",
        domain="CT",
        question="Which way does gear E turn?",
        image="g.png",
        answer="clockwise",
        answer_type=AnswerType.TEXT,
    )


def test_answer_judge_only_when_rules_find_nothing(server, tmp_path):
    judge = LLMJudge(
        "judge-mini",
        base_url=_url(server),
        api_key="test",
        cache_path=tmp_path / "c.sqlite",
        log_path=tmp_path / "judge.jsonl",
        max_retries=0,
    )
    # Rules decide: no request is sent.
    s = score_response("<answer>CW</answer>", _inst(), judge)
    assert (s.tier, s.correct) == ("tag", True)
    assert server.requests == []
    # No extractable answer: the answer judge decides, with MIRA's wording.
    resp = "Tracing the belts, gear E ends up turning clockwise as seen from the front of the machine."
    s = score_response(resp, _inst(), judge)
    assert (s.extracted, s.tier, s.correct) == (None, "judge", True)
    assert "judge-mini" in s.reason and s.judge_model == "judge-mini"
    assert len(server.requests) == 1
    prompt = server.requests[0]["messages"][0]["content"]
    assert "focus exclusively on the answer contained within the <answer></answer> tags" in prompt
    assert "'Correct' or 'Incorrect'" in prompt
    assert server.requests[0]["temperature"] == 0
    # Same prompt again: served from the cache, logged as cached.
    s2 = score_response(resp, _inst(), judge)
    assert s2.correct is True and len(server.requests) == 1
    judge.close()
    # A new judge object on the same cache file does not call the server either.
    judge2 = LLMJudge(
        "judge-mini", base_url=_url(server), api_key="test", cache_path=tmp_path / "c.sqlite", max_retries=0
    )
    assert score_response(resp, _inst(), judge2).correct is True
    assert len(server.requests) == 1
    # A different judge model is a different cache key.
    judge3 = LLMJudge(
        "judge-large", base_url=_url(server), api_key="test", cache_path=tmp_path / "c.sqlite", max_retries=0
    )
    score_response(resp, _inst(), judge3)
    assert len(server.requests) == 2
    lines = [json.loads(x) for x in (tmp_path / "judge.jsonl").read_text().splitlines()]
    assert [x["cached"] for x in lines] == [False, True]
    assert all(x["judge_model"] == "judge-mini" and x["kind"] == "answer" for x in lines)
    assert "test" not in (tmp_path / "judge.jsonl").read_text().replace("prompt_sha256", "")


def test_incorrect_verdict(server):
    judge = LLMJudge("judge-mini", base_url=_url(server), api_key="k", max_retries=0)
    s = score_response("Hard to say, the gears seem to go the other way round overall.", _inst(), judge)
    assert (s.tier, s.correct) == ("judge", False)


def test_equivalence_judge_for_free_text(server):
    judge = LLMJudge("judge-mini", base_url=_url(server), api_key="k", max_retries=0)
    s = score_fields("<answer>a ripe red apple</answer>", "an apple", "text", None, "What fruit?", judge)
    assert (s.extracted, s.tier, s.correct) == ("a ripe red apple", "judge", True)
    assert "Candidate Answer" in server.requests[-1]["messages"][0]["content"]
    s = score_fields("<answer>a banana</answer>", "an apple", "text", None, "What fruit?", judge)
    assert (s.tier, s.correct) == ("judge", False)
    # Without a judge the same answer is wrong and says why.
    s = score_fields("<answer>a ripe red apple</answer>", "an apple", "text")
    assert (s.tier, s.correct) == ("tag", False) and "no judge" in s.reason


def test_server_error_is_wrong_and_not_cached(server, tmp_path):
    judge = LLMJudge("broken", base_url=_url(server), api_key="k", cache_path=tmp_path / "c.sqlite", max_retries=0)
    v = judge.judge_answer("q", "7", "seven-ish")
    assert v.error and not v.correct
    judge.judge_answer("q", "7", "seven-ish")
    assert len(server.requests) == 2  # retried, since errors are never cached


@pytest.mark.parametrize(
    ("raw", "verdict"),
    [
        ("Correct", True),
        ("Incorrect.", False),
        ("**correct**", True),
        ("incorrect", False),
        ("The answer is correct", True),
        ("???", None),
    ],
)
def test_parse_verdict(raw, verdict):
    assert parse_verdict(raw) is verdict
