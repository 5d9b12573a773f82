"""The report: files written, all model text escaped, self-contained, and clean in headless Chromium."""

from __future__ import annotations

import re
import shutil

import pytest

from vcot.analysis import write_report
from vcot.scoring import score_records
from vcot.suite import read_suite

XSS = "<script>alert(1)</script>"
EVIL_MODEL = 'evil"><img src=x onerror=alert(2)>'


def _rows(suite):
    rows = []
    for i, inst in enumerate(suite.instances):
        for model in ("model-a", EVIL_MODEL):
            for cond in ("direct", "text_cot", "visual_cot"):
                for epoch in range(2):
                    ok = (i + epoch) % 2 == 0
                    text = f"Counting.\n<answer>{inst.answer if ok else XSS}</answer>"
                    rows.append(
                        dict(
                            run_id="run1",
                            model=model,
                            condition=cond,
                            uid=inst.uid,
                            task=inst.task,
                            domain=inst.domain,
                            answer_type=inst.answer_type.value,
                            gold=inst.answer,
                            options=None,
                            epoch=epoch,
                            response=text,
                            error=None,
                            suite_name="toy",
                            suite_hash="abc",
                            prompt_version="1",
                            vcot_version="0.1.0",
                            settings='{"temperature": 0}',
                        )
                    )
    return score_records(rows)


@pytest.fixture
def report(toy_suite, tmp_path):
    suite = read_suite(toy_suite)
    rows = _rows(suite)
    paths = write_report(rows, tmp_path / "rep", suite=suite, n_boot=200)
    paths.n_with_wrong = len({r["uid"] for r in rows if not r["correct"]})
    return paths


def test_report_files_and_escaping(report):
    html = report.html.read_text(encoding="utf-8")
    md = report.markdown.read_text(encoding="utf-8")
    assert XSS not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "onerror=alert(2)>" not in html
    # Only our own inline script exists, and nothing is loaded from outside.
    assert html.count("<script>") == 1
    assert not re.search(r"(src|href)=\"(?!data:|#)", html)
    assert "Content-Security-Policy" in html
    for needle in (
        "MIRA Table 1 layout",
        "pass@k",
        "Paired condition comparisons",
        "Instance browser",
        "data:image/png;base64,",
        "Step 1:",
    ):
        assert needle in html
    assert "MIRA Table 1 layout" in md and "plots/bars.png" in md
    assert XSS not in md
    assert (report.markdown.parent / "plots" / "bars.png").stat().st_size > 1000


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (apt-get install chromium)")
def test_report_in_headless_chromium(report):
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright (pip) is not installed")
    problems, requests, dialogs = [], [], []
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            page = browser.new_page()
            page.on(
                "console", lambda m: problems.append(f"{m.type}: {m.text}") if m.type in ("error", "warning") else None
            )
            page.on("pageerror", lambda e: problems.append(f"pageerror: {e}"))
            page.on("request", lambda r: requests.append(r.url))
            page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
            page.goto(report.html.as_uri())
            page.wait_for_load_state("load")
            # The script payload is visible as text, not executed.
            assert page.get_by_text(XSS).count() > 0
            assert page.locator("details.inst").count() == 8
            page.fill("#q", "no-such-task")
            assert page.text_content("#count") == "0 shown"
            page.fill("#q", "")
            page.check("#wrong")
            assert page.text_content("#count") == f"{report.n_with_wrong} shown"
            assert page.evaluate("document.querySelectorAll('img').length") > 8
            assert page.evaluate("Array.from(document.images).every(i => i.complete && i.naturalWidth > 0)")
        finally:
            browser.close()
    assert problems == []
    assert dialogs == []
    assert all(u.startswith(("file:", "data:")) for u in requests), requests
