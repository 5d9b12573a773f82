"""The suite gallery: linked index and task pages (links and images resolve, pagination, counts, escaping),
the embedded single file and its size limit, the command, and the pages in Debian's headless chromium."""

from __future__ import annotations

import re
import time
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import pytest
from PIL import Image
from typer.testing import CliRunner

from browser_support import launch, require_browser
from vcot.cli import app
from vcot.gallery import (
    GalleryError,
    estimate_embedded_bytes,
    pages_dir,
    plan_pages,
    render_gallery,
    write_gallery,
)
from vcot.html import escape
from vcot.schema import AnswerType, Instance, Step
from vcot.suite import Suite, SuiteError, read_suite, write_suite
from vcot.tasks import MIRA_TASKS, get_task
from vcot.tasks.base import Sample

runner = CliRunner()
HOSTILE = "<script>alert(1)</script><img src=x onerror=alert(2)>"
TOY_EASY, TOY_HARD = 4, 3


def _picture(w: int, h: int, k: int) -> Image.Image:
    return Image.new("RGB", (w, h), ((37 * k) % 256, (91 * k) % 256, 200))


def _synthetic(task: str, k: int, question: str = "Which one?") -> Sample:
    """One instance of a MIRA task name (declared in the manifest, not generated), with a step and a corrupted
    step, so that a test suite has the catalog's 20 real task names at little cost."""
    stem = f"images/{task}/{task}-{k}"
    sizes = {f"{stem}.png": (220, 140), f"{stem}_step1.png": (180, 180), f"{stem}_corrupt1.png": (160, 100)}
    inst = Instance(
        uid=f"{task}-{k}",
        task=task,
        domain=MIRA_TASKS[task][0],
        question=question,
        image=f"{stem}.png",
        answer="B",
        answer_type=AnswerType.CHOICE,
        options=["left", "right"],
        steps=[Step(image=f"{stem}_step1.png", text=f"a step of {task}")],
        corrupted_steps=[Step(image=f"{stem}_corrupt1.png", text="a wrong step")],
        meta={"corruption": "a corrupted step"},
    )
    return Sample(inst, {rel: _picture(w, h, i + k) for i, (rel, (w, h)) in enumerate(sizes.items())})


def _make_suite(root: Path) -> Suite:
    """toy_dots (generated: 4 easy, 3 hard instances) and one instance of each MIRA task name, the first with a
    hostile question, option and step text."""
    samples = [get_task("toy_dots", "easy").make(i, 5) for i in range(TOY_EASY)]
    samples += [get_task("toy_dots", "hard").make(i, 5) for i in range(TOY_EASY, TOY_EASY + TOY_HARD)]
    for n, task in enumerate(MIRA_TASKS):
        samples.append(_synthetic(task, n, HOSTILE if n == 0 else "Which one?"))
    first = samples[TOY_EASY + TOY_HARD].instance
    first.options = [HOSTILE, "right"]
    first.steps = [Step(image=first.steps[0].image, text=HOSTILE)]
    write_suite(root, "gallery <test>", samples)
    return read_suite(root)


@pytest.fixture
def suite(tmp_path: Path) -> Suite:
    # A space and a '#' in the folder name: image paths must be URL-quoted to resolve.
    return _make_suite(tmp_path / "my suite #1")


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.hrefs: list[str] = []
        self.imgs: list[dict[str, str | None]] = []
        self.data: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "a" and a.get("href"):
            self.hrefs.append(str(a["href"]))
        if tag == "img":
            self.imgs.append(a)

    def handle_data(self, data: str) -> None:
        self.data.append(data)


def _parse(path: Path) -> _Links:
    parser = _Links()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser


def _target(page: Path, url: str) -> Path:
    parts = urlsplit(url)
    assert not parts.scheme and not parts.netloc, url  # relative links only
    return (page.parent / unquote(parts.path)).resolve()


# ------------------------------------------------------------------------------------------------ linked


def test_pages_written_links_and_images_resolve(suite: Suite, tmp_path: Path) -> None:
    index = tmp_path / "out dir" / "g.html"
    files = write_gallery(suite, index, per_page=3)
    assert files.index == index and files.pages_dir == tmp_path / "out dir" / "g_pages"
    assert len(files.pages) == len(MIRA_TASKS) + 3  # toy_dots: 7 instances on pages of 3
    assert all(p.parent == files.pages_dir and p.is_file() for p in files.pages)

    reached = {_target(index, h) for h in _parse(index).hrefs}
    assert reached == {p.resolve() for p in files.pages}  # the index links every task page, and only those
    root = suite.root.resolve()
    seen_images = set()
    for page_file in files.pages:
        links = _parse(page_file)
        for href in links.hrefs:
            assert _target(page_file, href).is_file(), (page_file.name, href)
        assert _target(page_file, links.hrefs[0]) == index.resolve()  # first link: back to the index
        for img in links.imgs:
            path = _target(page_file, str(img["src"]))
            assert path.suffix == ".png" and root in path.parents and path.is_file(), img
            with Image.open(path) as im:
                assert (img["width"], img["height"]) == (str(im.width), str(im.height))
            assert img["loading"] == "lazy"
            seen_images.add(path)
    expected = {(root / rel).resolve() for inst in suite.instances for rel in inst.image_paths()}
    assert seen_images == expected
    assert files.total_bytes < 200_000  # no image inside the HTML


def test_every_instance_on_exactly_one_page(suite: Suite, tmp_path: Path) -> None:
    files = write_gallery(suite, tmp_path / "g.html", per_page=2)
    ids = [m for p in files.pages for m in re.findall(r"<section class='inst' id='([^']+)'", p.read_text())]
    assert sorted(ids) == sorted(i.uid for i in suite.instances)


def test_pagination_splits_and_links_neighbours(suite: Suite, tmp_path: Path) -> None:
    plan = plan_pages(suite.instances, per_page=3)
    toy = plan["toy_dots"]
    assert [len(p.instances) for p in toy] == [3, 3, 1]
    assert [p.filename for p in toy] == ["toy_dots.html", "toy_dots~2.html", "toy_dots~3.html"]
    assert [i.uid for p in toy for i in p.instances] == [i.uid for i in suite.instances if i.task == "toy_dots"]
    assert all(len(plan[t]) == 1 for t in MIRA_TASKS)
    assert len(plan_pages(suite.instances, per_page=50)["toy_dots"]) == 1
    with pytest.raises(GalleryError):
        plan_pages(suite.instances, per_page=0)

    files = write_gallery(suite, tmp_path / "g.html", per_page=3)
    second = (files.pages_dir / "toy_dots~2.html").read_text()
    assert "href='toy_dots.html' rel='prev'" in second and "href='toy_dots~3.html' rel='next'" in second
    assert "showing 4–6" in second and "page 2 of 3" in second
    last = (files.pages_dir / "toy_dots~3.html").read_text()
    assert "rel='next'" not in last and "showing 7–7" in last
    assert "class='pages'" not in (files.pages_dir / "puzzle.html").read_text()  # one page: no page links


def _cards(html: str) -> dict[str, str]:
    return dict(re.findall(r"<article class='card' id='card-([^']+)'>(.*?)</article>", html))


def test_index_counts_per_difficulty(suite: Suite, tmp_path: Path) -> None:
    index = write_gallery(suite, tmp_path / "g.html").index
    html = index.read_text()
    cards = _cards(html)
    counts = {
        task: dict(re.findall(r"<li class='(?:n|zero)'>([a-z]+) <b>(\d+)</b></li>", body))
        for task, body in cards.items()
    }
    # Every card lists the suite's difficulty levels in the same order, zeros included.
    assert all(list(c) == ["easy", "hard", "unspecified"] for c in counts.values())
    assert counts["toy_dots"] == {"easy": str(TOY_EASY), "hard": str(TOY_HARD), "unspecified": "0"}
    assert all(counts[t] == {"easy": "0", "hard": "0", "unspecified": "1"} for t in MIRA_TASKS)
    assert f"{TOY_EASY + TOY_HARD} instances" in cards["toy_dots"]
    assert f"{TOY_EASY + TOY_HARD + len(MIRA_TASKS)} instances of {len(MIRA_TASKS) + 1} tasks" in html


def test_index_has_one_card_per_task_with_thumbnail_description_and_link(suite: Suite, tmp_path: Path) -> None:
    from vcot.tasks import task_infos

    files = write_gallery(suite, tmp_path / "g.html", per_page=3)
    html = files.index.read_text()
    cards = _cards(html)
    assert list(cards) == ["toy_dots", *MIRA_TASKS]  # one card per task, in suite order
    about = {t.name: t.description for t in task_infos()}
    for task, body in cards.items():
        thumbs = re.findall(r'<img src="(data:image/png;base64,[^"]+)"', body)
        assert len(thumbs) == 1, task  # embedded: the index loads nothing from outside
        assert f"href='g_pages/{task}.html'" in body and f">{task}</a></h2>" in body
        domain = next(i.domain for i in suite.instances if i.task == task)
        assert f"domain {domain} ·" in body
        if about.get(task):
            assert escape(about[task]) in body
    assert "pages <a href='g_pages/toy_dots.html'>1</a> <a href='g_pages/toy_dots~2.html'>2</a>" in cards["toy_dots"]
    assert "<table" not in html  # no bare table any more
    assert not re.search(r"(src|href)=[\"'](?!data:|g_pages/)", html)
    assert "img-src data:" in html


def test_hostile_text_is_escaped_everywhere(suite: Suite, tmp_path: Path) -> None:
    files = write_gallery(suite, tmp_path / "g.html")
    embedded = render_gallery(suite)
    page = (files.pages_dir / f"{next(iter(MIRA_TASKS))}.html").read_text()
    for html in (page, embedded):
        assert "<script>" not in html and "<img src=x" not in html
        assert html.count("&lt;script&gt;alert(1)&lt;/script&gt;") >= 3  # question, option, step text
    # The suite's name (with '<' and '>') is escaped on the index and in titles too.
    for path in (files.index, *files.pages):
        assert "gallery <test>" not in path.read_text()


def test_file_names_are_built_defensively(suite: Suite) -> None:
    inst = suite.instances[0]
    a, b = (inst.model_copy(update={"task": t, "uid": t}) for t in ("Foo", "foo"))
    plan = plan_pages([a, b])
    assert {p.filename.casefold() for pages in plan.values() for p in pages} == {"foo.html", "foo~t2.html"}
    with pytest.raises(SuiteError):
        plan_pages([a.model_copy(update={"task": "../up"})])


def test_pages_never_go_into_the_suite_folder(tmp_path: Path) -> None:
    s = _make_suite(tmp_path / "x_pages")
    with pytest.raises(GalleryError, match="suite folder"):
        write_gallery(s, tmp_path / "x.html")


# ---------------------------------------------------------------------------------------------- embedded


def test_embedded_gallery_is_self_contained(suite: Suite, tmp_path: Path) -> None:
    files = write_gallery(suite, tmp_path / "one.html", embed=True)
    assert files.pages == [] and not pages_dir(files.index).exists()
    links = _parse(files.index)
    assert links.imgs and all(str(i["src"]).startswith("data:image/png;base64,") for i in links.imgs)
    assert len(links.imgs) == sum(len(i.image_paths()) for i in suite.instances)
    assert all(h.startswith("#task-") for h in links.hrefs)


def test_embedded_gallery_refused_above_its_limit(suite: Suite, tmp_path: Path) -> None:
    guess = estimate_embedded_bytes(suite, suite.instances)
    assert guess > 0
    with pytest.raises(GalleryError, match="estimated"):  # refused before encoding anything
        render_gallery(suite, max_bytes=guess - 1)
    size = len(render_gallery(suite, max_bytes=None))
    assert size > guess  # the guess is low: the check while encoding is the one that holds
    with pytest.raises(GalleryError, match="passed the limit after"):
        render_gallery(suite, max_bytes=guess + 1)
    assert len(render_gallery(suite, max_bytes=size)) == size


# ------------------------------------------------------------------------------------------------ command


def test_command_defaults_out_and_per_task(tmp_path: Path) -> None:
    out = tmp_path / "s"
    r = runner.invoke(app, ["generate", "--task", "toy_dots", "--n", "5", "--seed", "2", "--out", str(out)])
    assert r.exit_code == 0, r.output
    r = runner.invoke(app, ["gallery", str(out)])
    assert r.exit_code == 0, r.output
    page = (out / "gallery_pages" / "toy_dots.html").read_text()
    assert "How many dots" in page and page.count("<section class='inst'") == 5
    assert "toy_dots.html" in (out / "gallery.html").read_text()

    r = runner.invoke(
        app, ["gallery", str(out), "--out", str(tmp_path / "o" / "g.html"), "--per-task", "2", "--per-page", "1"]
    )
    assert r.exit_code == 0, r.output
    assert sorted(p.name for p in (tmp_path / "o" / "g_pages").iterdir()) == ["toy_dots.html", "toy_dots~2.html"]

    r = runner.invoke(app, ["gallery", str(out), "--out", str(tmp_path / "o")])  # a folder: refused, nothing written
    assert r.exit_code == 2 and "directory" in r.output
    assert not (tmp_path / "o_pages").exists()

    r = runner.invoke(app, ["gallery", str(out), "--embed", "--out", str(tmp_path / "one.html")])
    assert r.exit_code == 0, r.output
    assert (tmp_path / "one.html").read_text().count("data:image/png;base64,") >= 15


def test_command_reports_a_refused_embedding(suite: Suite, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import vcot.gallery

    monkeypatch.setattr(vcot.gallery, "estimate_embedded_bytes", lambda *_: 10**12)  # as a suite of 1 TB
    r = runner.invoke(app, ["gallery", str(suite.root), "--embed", "--out", str(tmp_path / "one.html")])
    assert r.exit_code == 2 and "refused" in r.output
    assert not (tmp_path / "one.html").exists()


# ------------------------------------------------------------------------------------------------ browser

WIDTH, HEIGHT = 1400, 900


def _wait_until(tab: Any, predicate: str, seconds: float = 10.0) -> None:
    # Polled from here: wait_for_function evaluates its text with eval, which the pages' policy forbids.
    deadline = time.monotonic() + seconds
    while not tab.evaluate(predicate):
        assert time.monotonic() < deadline, f"not true after {seconds} s: {predicate}"
        tab.wait_for_timeout(100)


def test_gallery_in_headless_chromium(suite: Suite, tmp_path: Path) -> None:
    """At 1400×900 every task link is inside the viewport (the navigation wraps); a task link leads to its page,
    whose images (also the corrupted ones, once opened) load from the suite folder under the page's policy."""
    require_browser()
    from playwright.sync_api import sync_playwright

    files = write_gallery(suite, tmp_path / "out" / "gallery.html", per_page=3)
    shots = tmp_path / "screenshots"
    shots.mkdir()
    problems: list[str] = []
    requests: list[str] = []
    with sync_playwright() as p:
        browser = launch(p)
        try:
            tab = browser.new_page(viewport={"width": WIDTH, "height": HEIGHT})
            tab.on(
                "console", lambda m: problems.append(f"{m.type}: {m.text}") if m.type in ("error", "warning") else None
            )
            tab.on("pageerror", lambda e: problems.append(f"pageerror: {e}"))
            tab.on("request", lambda r: requests.append(r.url))
            tab.goto(files.index.as_uri())
            tab.wait_for_load_state("load")
            tab.screenshot(path=str(shots / "index.png"))
            boxes = tab.eval_on_selector_all(
                "nav.tasks a",
                "els => els.map(e => { const r = e.getBoundingClientRect(); "
                "return [e.textContent, r.left, r.right, r.top]; })",
            )
            assert [b[0] for b in boxes] == ["toy_dots", *MIRA_TASKS]
            assert all(0 <= left and right <= WIDTH for _, left, right, _top in boxes), boxes
            assert len({round(top) for *_, top in boxes}) > 1  # the names do not fit one row: it wrapped

            tab.click("nav.tasks a:text-is('toy_dots')")
            tab.wait_for_load_state("load")
            assert tab.url.endswith("/gallery_pages/toy_dots.html")
            assert tab.locator("section.inst").count() == 3
            tab.screenshot(path=str(shots / "task-top.png"))
            for _ in range(20):  # lazy images load as they come near the viewport
                tab.mouse.wheel(0, HEIGHT)
                tab.wait_for_timeout(50)
            _wait_until(
                tab,
                "() => Array.from(document.querySelectorAll('.row:not(details .row) img'))"
                ".every(i => i.complete && i.naturalWidth > 0)",
            )
            tab.screenshot(path=str(shots / "task-scrolled.png"))
            tab.eval_on_selector_all("details", "ds => ds.forEach(d => d.open = true)")
            _wait_until(tab, "() => Array.from(document.images).every(i => i.complete && i.naturalWidth > 0)")
            assert tab.evaluate("document.images.length") == 3 * 3
            tab.click("a[rel=next]")
            tab.wait_for_load_state("load")
            assert tab.url.endswith("/gallery_pages/toy_dots~2.html")
            tab.click("nav.tasks a:text-is('↑ index')")
            assert tab.url == files.index.as_uri()
        finally:
            browser.close()
    assert problems == []
    assert all(u.startswith("file:") for u in requests), requests
    assert all((shots / n).stat().st_size > 5000 for n in ("index.png", "task-top.png", "task-scrolled.png"))
