"""A whole study session in Debian's chromium: two participants, every answer control (option buttons, a
number field, a time field, free text), a refused answer, a double submit, a hidden tab, and a browser closed
and reopened in the middle of an item; then the stored answers, their grading and their times are checked.

Skipped when chromium or playwright is missing, unless VCOT_REQUIRE_BROWSER=1 (then it fails).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from browser_support import launch, require_browser
from vcot.human import HumanApp, StudyServer, prepare_study

HIDE = (
    "() => { Object.defineProperty(document, 'visibilityState', {configurable: true, get: () => 'hidden'});"
    " document.dispatchEvent(new Event('visibilitychange')); }"
)
SHOW = (
    "() => { Object.defineProperty(document, 'visibilityState', {configurable: true, get: () => 'visible'});"
    " document.dispatchEvent(new Event('visibilitychange')); }"
)


@pytest.fixture
def server(tmp_path: Path, suite_dir: Path) -> Iterator[StudyServer]:
    require_browser()
    study, _ = prepare_study(tmp_path / "st", suite_dir, "2", 1, ["direct", "visual_cot"], None, 4)
    with StudyServer(HumanApp(study)) as srv:
        yield srv


class Session:
    """One browser for one participant; records page errors and any request that leaves the server."""

    def __init__(self, playwright: Any, server: StudyServer, problems: list[str]) -> None:
        self.browser = launch(playwright)
        self.page = self.browser.new_page()
        self.page.on("console", lambda m: problems.append(f"console {m.type}: {m.text}") if m.type == "error" else None)
        self.page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
        self.page.on(
            "request", lambda r: None if r.url.startswith(server.url) else problems.append(f"external {r.url}")
        )
        self.server = server

    def start(self, participant: str) -> None:
        self.page.goto(self.server.url)
        self.page.fill("#participant", participant)
        with self.page.expect_navigation():
            self.page.click("#start")

    def position(self) -> int:
        text = self.page.locator("#progress").inner_text()  # "Item 3 of 6"
        return int(text.split()[1])

    def answer(self, value: str, kind: str) -> None:
        with self.page.expect_navigation():
            if kind == "choice":
                self.page.click(f"#option-{value}")
            else:
                self.page.fill("#answer", value)
                self.page.click("#submit")


def _kind(inst: Any) -> str:
    return inst.answer_type.value


def _value(inst: Any, right: bool) -> str:
    if inst.answer_type.value == "time":
        return "07:53" if right else "01:00"  # what a time field holds: HH:MM
    if right:
        return inst.answer
    return {"choice": "A", "coordinates": "(0, 0)", "text": "Wombat"}.get(inst.answer_type.value, "1")


def test_two_participants_whole_session_with_a_browser_restart(server: StudyServer) -> None:
    from playwright.sync_api import sync_playwright

    study = server.app.study
    problems: list[str] = []
    expected: dict[tuple[str, int], tuple[str, bool]] = {}  # (participant, position) -> (stored answer, right)
    timings: dict[str, float] = {}
    with sync_playwright() as p:
        # ------------------------------------------------------------------ P1: one browser, whole list
        s = Session(p, server, problems)
        s.start("P1")
        jobs = study.jobs("P1")
        assert {_kind(study.instance(j.uid)) for j in jobs} >= {"choice", "integer", "time", "text", "coordinates"}
        for job in jobs:
            assert s.position() == job.position
            inst = study.instance(job.uid)
            page = s.page
            assert page.locator("script").count() == 1
            w = page.eval_on_selector("#input-image", "e => [e.complete, e.naturalWidth]")
            assert w == [True, 64]
            if job.condition == "visual_cot":
                assert page.locator("img.step-image").count() == 2
            if _kind(inst) == "integer" and "count-1" == job.uid:
                page.click("label[for=zoom-200]")  # zoom without a script
                assert page.eval_on_selector("#input-image", "e => e.getBoundingClientRect().width") == 128
                page.click("label[for=zoom-fit]")
                right = False
            else:
                right = True
            if _kind(inst) == "text":
                # A refused answer comes back with the reason and what was typed; nothing is stored.
                s.answer("a<b", "text")
                assert "cannot be used" in page.locator("#message").inner_text()
                assert page.input_value("#answer") == "a<b" and s.position() == job.position
                assert study.store.answer("P1", job.position) is None
            if _kind(inst) == "coordinates":
                # The tab is hidden for 1.2 s: that time is idle, not time on the item.
                page.evaluate(HIDE)
                time.sleep(1.2)
                page.evaluate(SHOW)
            value = _value(inst, right)
            s.answer(value, _kind(inst))
            stored = "7:53" if value == "07:53" else "1:00" if value == "01:00" else value
            expected[("P1", job.position)] = (stored, right)
            if job.position == 1:
                # A double submit (the same form sent again) is ignored: the first answer stays.
                resp = page.request.post(f"{server.url}p/P1/1", form={"answer": "C", "view": "1"}, max_redirects=0)
                assert resp.status == 303
        assert "All 6 items are answered" in s.page.locator("#done").inner_text()
        s.browser.close()

        # ------------------------------------------------- P2: two items, then the browser is closed mid-item
        s = Session(p, server, problems)
        s.start("P2")
        jobs = study.jobs("P2")
        for job in jobs[:2]:
            inst = study.instance(job.uid)
            s.answer(_value(inst, True), _kind(inst))
            expected[("P2", job.position)] = (inst.answer, True)
        assert s.position() == 3
        timings["shown"] = time.monotonic()
        time.sleep(0.5)
        s.browser.close()
        time.sleep(1.0)
        s = Session(p, server, problems)
        s.start("P2")
        assert s.position() == 3  # resumed where the browser was closed
        for job in jobs[2:]:
            inst = study.instance(job.uid)
            s.answer(_value(inst, True), _kind(inst))
            expected[("P2", job.position)] = ("7:53" if inst.answer_type.value == "time" else inst.answer, True)
            if job.position == 3:
                timings["answered"] = time.monotonic()
        assert s.page.locator("#done").count() == 1
        s.browser.close()
    # The one refused answer is sent back with status 400, which chromium logs for the document.
    refusals = [x for x in problems if "status of 400" in x]
    assert len(refusals) == 1 and not [x for x in problems if x not in refusals], problems

    rows = {(r["participant"], r["position"]): r for r in study.store.answers()}
    assert set(rows) == set(expected) and len(rows) == 12
    for key, (stored, right) in expected.items():
        row = rows[key]  # for ("P1", 1) also: the double submit's "C" did not replace the first answer
        assert (row["answer"], bool(row["correct"])) == (stored, right), (key, row)
        assert row["timing"] == "script" and row["active_ms"] + row["idle_ms"] == row["raw_ms"], row
        assert 0 < row["active_ms"] <= row["raw_ms"]
    hidden = next(
        r for k, r in rows.items() if k[0] == "P1" and study.instance(r["uid"]).answer_type.value == "coordinates"
    )
    assert hidden["idle_ms"] >= 1100 and hidden["views"] == 1
    refused = next(r for k, r in rows.items() if k[0] == "P1" and study.instance(r["uid"]).answer_type.value == "text")
    assert refused["views"] == 2 and study.store.rejections()[0]["value"] == "a<b"
    restarted = rows[("P2", 3)]
    wall = 1000 * (timings["answered"] - timings["shown"])
    assert restarted["views"] == 2 and restarted["raw_ms"] >= 1500 and restarted["raw_ms"] <= wall + 500
    assert restarted["idle_ms"] >= 1000  # the second the browser was closed is not time on the item
