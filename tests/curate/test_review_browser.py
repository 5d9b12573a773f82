"""The review page in Debian's chromium: open an item, see its image, caption and trials, edit one (with markup
in the new question), remove one, approve one; the decisions are stored and the freeze takes exactly the
approved and edited items. Skipped when chromium or playwright is missing, unless VCOT_REQUIRE_BROWSER=1."""

from __future__ import annotations

from pathlib import Path

from curate_fixtures import make_config

from browser_support import launch, require_browser
from vcot.curate.freeze import freeze
from vcot.curate.pipeline import Curation, CurationConfig
from vcot.curate.review.app import ReviewApp, item_key
from vcot.curate.review.server import ReviewServer


def test_review_page_in_a_browser(mock, tmp_path: Path) -> None:
    require_browser()
    from playwright.sync_api import sync_playwright

    cur = Curation(CurationConfig.load(make_config(tmp_path, mock.base_url, n=12)), tag_requests=True)
    cur.run()
    app = ReviewApp(cur)
    uids = [it.inst.uid for it in app.items]
    assert len(uids) == 7 and "toy-q010" not in uids and "toy-q000" not in uids
    problems: list[str] = []
    with ReviewServer(app) as srv, sync_playwright() as pw:
        browser = launch(pw)
        page = browser.new_page()
        page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
        page.on("request", lambda r: None if r.url.startswith(srv.url.rstrip("/")) else problems.append(r.url))
        page.goto(srv.url)
        assert page.locator("#progress").inner_text() == "0 of 7 items reviewed."
        with page.expect_navigation():
            page.click(f"a[href='/i/{item_key(uids[0])}']")
        assert page.evaluate("document.querySelector('img').naturalWidth") == 64
        assert page.locator("#caption").inner_text().startswith("The picture shows")
        assert page.locator("table tr").count() == 6  # header + five trials
        page.check("input[value='edit']")
        page.fill("textarea[name='question']", "What colour is the <b>shape</b>?")
        page.fill("input[name='answer']", "teal")
        with page.expect_navigation():
            page.click("#submit")
        assert page.url.endswith(f"/i/{item_key(uids[1])}")
        page.check("input[value='remove']")
        page.fill("input[name='note']", "blurry")
        with page.expect_navigation():
            page.click("#submit")
        with page.expect_navigation():
            page.click("#submit")  # approve, the default
        page.goto(srv.url)
        assert page.locator("#progress").inner_text() == "3 of 7 items reviewed."
        page.goto(srv.url.rstrip("/") + f"/i/{item_key(uids[0])}")
        assert (
            page.locator("#edited").inner_text() == "Edited question: What colour is the <b>shape</b>? · answer: teal"
        )
        assert page.locator("#edited b").count() == 0  # shown as text, never as markup
        browser.close()
    assert not problems, problems
    reviews = cur.store.decisions("review")
    assert reviews[uids[0]]["verdict"] == "edited" and reviews[uids[0]]["details"]["answer"] == "teal"
    assert reviews[uids[1]] == {"verdict": "removed", "reason": "blurry", "details": {}}
    assert reviews[uids[2]]["verdict"] == "approved"
    manifest = freeze(cur, tmp_path / "frozen")
    assert manifest["total"] == 2
    from vcot.suite import read_suite

    frozen = read_suite(tmp_path / "frozen").get(uids[0])
    assert frozen.question == "What colour is the <b>shape</b>?" and frozen.answer == "teal"
    cur.close()
