"""The study page over HTTP: nothing secret reaches a participant, errors are clear and lose nothing, the
request checks of every local vcot page hold, and a restarted server resumes where each participant was."""

from __future__ import annotations

import http.client
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest
from human_fixtures import CORRUPT_TEXT, ITEMS, SECRET_META, step_text, wrong_answer

from vcot.human import CSP, HumanApp, StudyServer, open_study, prepare_study
from vcot.human.page import TIMING_PATH

# Gold answers distinctive enough to scan for (a choice letter is not).
GOLDS = [i["answer"] for i in ITEMS if i["answer_type"] != "choice"]
TASKS = sorted({i["task"] for i in ITEMS})
UIDS = [i["uid"] for i in ITEMS]


def _request(
    port: int, method: str, path: str, headers: dict[str, str] | None = None, body: str | None = None
) -> tuple[int, dict[str, str], bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        hdrs = {"Host": f"127.0.0.1:{port}", **(headers or {})}
        if body is not None:
            hdrs.setdefault("Content-Type", "application/x-www-form-urlencoded")
        conn.request(method, path, body=body, headers=hdrs)
        resp = conn.getresponse()
        return resp.status, dict(resp.getheaders()), resp.read()
    finally:
        conn.close()


@pytest.fixture
def server(tmp_path: Path, suite_dir: Path) -> Iterator[StudyServer]:
    study, _ = prepare_study(tmp_path / "st", suite_dir, "3", 1, ["direct", "visual_cot", "text_state_cot"], None, 2)
    with StudyServer(HumanApp(study)) as srv:
        yield srv


def test_no_gold_meta_uid_or_hidden_step_reaches_the_participant(server: StudyServer) -> None:
    port, study = server.port, server.app.study
    served: list[tuple[str, bytes]] = []

    def get(path: str) -> tuple[int, dict[str, str], bytes]:
        status, headers, body = _request(port, "GET", path)
        served.append((path, body))
        return status, headers, body

    status, headers, _ = get("/")
    assert status == 200 and headers["Content-Security-Policy"] == CSP
    assert "script-src 'self'" in CSP and "connect-src 'self'" in CSP and "default-src 'none'" in CSP
    assert get(TIMING_PATH)[1]["Content-Type"].startswith("text/javascript")
    seen_conditions = set()
    for pid in study.plan.participants:
        status, headers, _ = get(f"/start?participant={pid}")
        assert status == 303
        for job in study.jobs(pid):
            status, headers, page = get(f"/p/{pid}/{job.position}")
            assert status == 200, (pid, job)
            text = page.decode()
            inst = study.instance(job.uid)
            seen_conditions.add(job.condition)
            assert get(f"/p/{pid}/{job.position}/image")[0] == 200
            step_ok = get(f"/p/{pid}/{job.position}/step/1")[0]
            assert step_ok == (200 if job.condition == "visual_cot" else 404)
            assert get(f"/p/{pid}/{job.position}/step/3")[0] == 404
            for k in (1, 2):
                assert (step_text(inst.uid, k) in text) == (job.condition == "text_state_cot")
            assert ('class="step-image"' in text) == (job.condition == "visual_cot")
            # The answer given is wrong on purpose: the next page must not say so.
            wrong = wrong_answer(inst.answer_type)
            status, headers, _ = _request(
                port, "POST", f"/p/{pid}/{job.position}", body=f"answer={quote(wrong)}&view=1&visible_ms=&timing="
            )
            assert status == 303
        assert get(f"/p/{pid}/done")[0] == 200
    assert seen_conditions == {"direct", "visual_cot", "text_state_cot"}
    for path, body in served:
        for secret in [SECRET_META, CORRUPT_TEXT, *UIDS, *TASKS, "images/", "instances.jsonl"]:
            assert secret.encode() not in body, (path, secret)
        if not path.endswith(("/image", "/step/1")):
            for gold in GOLDS:
                assert gold.encode() not in body, (path, gold)
            for word in ("correct", "wrong", "gold"):
                assert word.encode() not in body.lower(), (path, word)
    assert len(study.store.answers()) == len(study.store.all_jobs())


def test_unknown_participant_and_malformed_answer_are_refused_and_lose_nothing(server: StudyServer) -> None:
    port, study = server.port, server.app.study
    status, _, body = _request(port, "GET", "/start?participant=Mallory")
    assert status == 404 and b"not part of this study" in body and b'value="Mallory"' in body
    assert _request(port, "GET", "/p/Mallory/1")[0] == 404
    assert _request(port, "POST", "/p/Mallory/1", body="answer=1")[0] == 404
    job = next(j for j in study.jobs("P1") if study.instance(j.uid).answer_type.value == "integer")
    # Answer everything before it, then send a malformed number.
    for j in study.jobs("P1")[: job.position - 1]:
        _request(port, "GET", f"/p/P1/{j.position}")
        answer = quote(study.instance(j.uid).answer)
        assert _request(port, "POST", f"/p/P1/{j.position}", body=f"answer={answer}&view=1")[0] == 303
    _request(port, "GET", f"/p/P1/{job.position}")
    n = len(study.store.answers())
    status, _, body = _request(port, "POST", f"/p/P1/{job.position}", body="answer=four%20hundred&view=1")
    assert status == 400 and b"whole number" in body and b'value="four hundred"' in body
    assert len(study.store.answers()) == n
    assert study.store.rejections()[-1]["value"] == "four hundred"
    for bad in (
        "answer=1&view=x",
        "answer=1&extra=1",
        "answer=1&answer=2",
        "answer=1&timing=fast",
        "answer=1&visible_ms=99999999999",
    ):
        assert _request(port, "POST", f"/p/P1/{job.position}", body=bad)[0] == 400, bad
    assert len(study.store.answers()) == n
    assert _request(port, "POST", f"/p/P1/{job.position}", body="answer=417&view=2")[0] == 303
    assert study.store.answer("P1", job.position)["answer"] == "417"


def test_items_come_in_order_and_later_pictures_stay_unsent(server: StudyServer) -> None:
    port = server.port
    status, headers, _ = _request(port, "GET", "/p/P2/3")
    assert status == 303 and headers["Location"] == "/p/P2/1"
    assert _request(port, "GET", "/p/P2/3/image")[0] == 404
    assert _request(port, "POST", "/p/P2/3", body="answer=1&view=1")[0] == 303  # not due: sent to item 1
    assert server.app.study.store.answers() == []
    assert _request(port, "GET", "/p/P2/done")[1]["Location"] == "/p/P2/1"
    assert _request(port, "GET", "/p/P2/99")[0] == 303
    assert _request(port, "GET", "/etc/passwd")[0] == 404
    assert _request(port, "GET", "/p/../../x")[0] == 404


def test_request_checks_of_a_local_page(server: StudyServer, tmp_path: Path, suite_dir: Path) -> None:
    port = server.port
    _request(port, "GET", "/p/P1/1")
    for host in (f"evil.example:{port}", "", f"127.0.0.1.nip.io:{port}"):
        assert _request(port, "GET", "/", {"Host": host})[0] == 403, host
        assert _request(port, "POST", "/p/P1/1", {"Host": host}, "answer=A&view=1")[0] == 403, host
    assert _request(port, "POST", "/p/P1/1", {"Origin": "http://evil.example"}, "answer=A&view=1")[0] == 403
    assert _request(port, "POST", "/p/P1/1", {"Origin": "null"}, "answer=A&view=1")[0] == 403
    assert _request(port, "POST", "/p/P1/1", {"Content-Type": "application/json"}, "{}")[0] == 400
    assert _request(port, "POST", "/p/P1/1", body="answer=" + "x" * 9000)[0] == 400
    assert server.app.study.store.answers() == []
    # The beacon endpoint takes the same checks and answers 204.
    assert _request(port, "POST", "/p/P1/1/seen", body="view=1&visible_ms=10")[0] == 204
    assert _request(port, "POST", "/p/P1/1/seen", {"Origin": "http://evil.example"}, "view=1&visible_ms=10")[0] == 403


def test_token_mode_and_restart(server: StudyServer, tmp_path: Path) -> None:
    study = server.app.study
    _request(server.port, "GET", "/p/P3/1")
    inst = study.instance(study.jobs("P3")[0].uid)
    assert _request(server.port, "POST", "/p/P3/1", body=f"answer={quote(inst.answer)}&view=1")[0] == 303
    server.close()
    # A restarted server (a new process: the study opened again) with an access token.
    with StudyServer(HumanApp(open_study(study.root)), token="t" * 24) as srv:
        port = srv.port
        host = {"Host": f"192.0.2.7:{port}"}
        assert _request(port, "GET", "/", host)[0] == 403
        assert _request(port, "GET", "/?token=wrong", host)[0] == 403
        status, headers, _ = _request(port, "GET", f"/?token={'t' * 24}", host)
        assert status == 200 and "HttpOnly" in headers["Set-Cookie"]
        cookie = {"Cookie": headers["Set-Cookie"].split(";")[0], **host}
        status, headers, _ = _request(port, "GET", "/p/P3/", cookie)
        assert status == 303 and headers["Location"] == "/p/P3/2"  # resumed after the answered item
        assert _request(port, "POST", "/p/P3/2", host, "answer=1&view=1")[0] == 403
        assert _request(port, "GET", "/p/P3/2", cookie)[0] == 200


def test_a_full_disk_on_submit_gets_a_507_page(server: StudyServer, monkeypatch: pytest.MonkeyPatch) -> None:
    import errno

    from vcot.human.store import StudyStore

    def full(*args: object, **kwargs: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(StudyStore, "submit", full)
    port = server.port
    _request(port, "GET", "/p/P1/1")
    first = server.app.study.instance(server.app.jobs("P1")[0].uid)
    status, _, body = _request(port, "POST", "/p/P1/1", body=f"answer={quote(first.answer)}&view=1")
    assert status == 507
    assert b"disk" in body and b"Nothing was recorded" in body
