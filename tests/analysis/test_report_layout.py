"""The report's layout: a summary first (accuracy against chance, significant paired comparisons in words,
engine failures, where to look next), sticky navigation, sections in reading order, long tables and the
audit collapsed, and no sideways scroll at 1,280 px in headless Chromium."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from browser_support import launch, require_browser
from vcot.analysis import write_report
from vcot.analysis.audit import audit_suite
from vcot.scoring import score_records
from vcot.suite import read_suite

XSS = "<script>alert(1)</script>"
SCREENSHOT = Path("/tmp/vcot-report-layout-1280.png")


def _rows(suite):
    """model-a: visual_cot right on every problem, direct on none (a significant paired difference);
    chance: right on every other problem under every condition (none)."""
    rows = []
    for i, inst in enumerate(suite.instances):
        for model in ("model-a", "chance"):
            for cond in ("direct", "text_cot", "visual_cot"):
                if model == "model-a":
                    ok = cond == "visual_cot" or (cond == "text_cot" and i % 2 == 0)
                else:
                    ok = i % 2 == 0
                text = f"Counting.\n<answer>{inst.answer if ok else XSS}</answer>"
                rows.append(
                    dict(
                        run_id=f"run-{model}",
                        model=model,
                        condition=cond,
                        uid=inst.uid,
                        task=inst.task,
                        domain=inst.domain,
                        answer_type=inst.answer_type.value,
                        gold=inst.answer,
                        options=None,
                        epoch=0,
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
    return write_report(_rows(suite), tmp_path / "rep", suite=suite, n_boot=200, extra_tables=[audit_suite(suite)])


def test_summary_comes_first_and_says_the_findings(report):
    html = report.html.read_text(encoding="utf-8")
    ids = re.findall(r'<section class="part" id="([a-z-]+)"', html)
    assert ids[0] == "summary"
    order = ["summary", "accuracy", "per-task", "failures", "audit", "figures", "browser"]
    assert [i for i in ids if i in order] == order
    summary = html[html.index('id="summary"') : html.index('id="accuracy"')]
    assert re.search(r"model-a: visual_cot beats direct by \+\d+\.\d points \[[^\]]+\], sign test p = 0\.0\d+", summary)
    assert "chance (built-in baseline): " in summary and "above chance in" in summary
    assert "No engine errors, timeouts or truncated responses" in summary
    assert "accuracy % [95% CI]" in summary  # the run summary table
    assert "docs/report.md" in summary
    for target in ("accuracy", "per-task", "failures", "audit", "figures", "browser"):
        assert f'href="#{target}"' in summary
    # The audit starts collapsed.
    audit = html[html.index('id="audit"') : html.index('id="figures"')]
    assert '<details class="long"' in audit and '<details class="long" open' not in audit
    # Model text stays escaped and nothing points outside the page.
    assert XSS not in html
    assert not re.search(r"(src|href)=\"(?!data:|#)", html)
    md = report.markdown.read_text(encoding="utf-8")
    assert md.index("## Summary") < md.index("## Results")
    assert "visual_cot beats direct" in md


def test_no_paired_difference_is_said_too(toy_suite, tmp_path):
    suite = read_suite(toy_suite)
    rows = [r for r in _rows(suite) if r["model"] == "chance"]
    html = write_report(rows, tmp_path / "rep", suite=suite, n_boot=100).html.read_text(encoding="utf-8")
    assert "No paired difference is significant at p &lt; 0.05." in html


def test_layout_at_1280_in_headless_chromium(report):
    require_browser()
    from playwright.sync_api import sync_playwright

    problems = []
    with sync_playwright() as p:
        browser = launch(p)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            page.on(
                "console", lambda m: problems.append(f"{m.type}: {m.text}") if m.type in ("error", "warning") else None
            )
            page.on("pageerror", lambda e: problems.append(f"pageerror: {e}"))
            page.goto(report.html.as_uri())
            page.wait_for_load_state("load")
            page.screenshot(path=str(SCREENSHOT))
            assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
            # The first section after the header is the summary.
            assert page.evaluate("document.querySelector('header ~ main section.part').id") == "summary"
            assert (
                page.evaluate("""(() => {
                const all = Array.from(document.querySelectorAll('body *'));
                const header = document.querySelector('header');
                return all.filter(el => el.tagName === 'SECTION' && all.indexOf(el) > all.indexOf(header))[0].id;
            })()""")
                == "summary"
            )
            # Navigation: present, sticky, and still at the top after scrolling.
            assert page.evaluate("getComputedStyle(document.querySelector('nav#toc')).position") == "sticky"
            assert page.locator("nav#toc a").count() >= 6
            page.evaluate("window.scrollTo(0, document.body.scrollHeight / 2)")
            assert page.evaluate("Math.round(document.querySelector('nav#toc').getBoundingClientRect().top)") == 0
            # Every image is loaded and fits: displayed no wider than its box, and the box inside the page.
            bad = page.evaluate("""Array.from(document.images).filter(i => {
                const box = i.parentElement.getBoundingClientRect();
                const r = i.getBoundingClientRect();
                return !(i.complete && i.naturalWidth > 0) || r.width > box.width + 0.5
                       || box.right > window.innerWidth + 0.5;
            }).map(i => i.alt)""")
            assert bad == []
            # The figures are shown whole, at their natural size (no figure wider than the page).
            figs = page.evaluate("""Array.from(document.querySelectorAll('figure img'))
                .map(i => [i.naturalWidth, i.getBoundingClientRect().width])""")
            assert figs and all(natural <= shown + 0.5 for natural, shown in figs), figs
            # The per-task heat maps (one per model) are shown unscaled, inside the page: their 10 pt labels
            # stay at least 9 pt on screen.
            heat = page.evaluate("""Array.from(document.querySelectorAll('figure img'))
                .filter(i => i.alt.includes('heat map'))
                .map(i => [i.naturalWidth, i.getBoundingClientRect().width, i.getBoundingClientRect().right])""")
            assert len(heat) == 2, heat
            assert all(abs(natural - shown) <= 0.5 and right <= 1280 for natural, shown, right in heat), heat
            # Every table scrolls inside its own box.
            assert page.evaluate("""Array.from(document.querySelectorAll('table')).every(t =>
                getComputedStyle(t.parentElement).overflowX === 'auto')""")
            # A navigation link reaches its section below the bar.
            page.click("nav#toc a[href='#figures']")
            top = page.evaluate("document.getElementById('figures').getBoundingClientRect().top")
            nav_bottom = page.evaluate("document.querySelector('nav#toc').getBoundingClientRect().bottom")
            assert top >= nav_bottom - 1
        finally:
            browser.close()
    assert problems == []
