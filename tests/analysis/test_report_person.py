"""What a person sees of `vcot report`, `vcot tasks` and `vcot audit` (issue 45): a report on the wrong suite is
refused and leaves the good one as it was; the user's models come before the built-in baselines with one line
each against chance; the first screen's counts are one accounting; report.md reads "p < 0.05" as it is; wide
tables say they scroll and headers break between words; the instance browser shows letter-only options once;
`vcot report` in a pipe prints no progress for a quick step and takes --no-progress; `vcot tasks NAME` shows
every preset value whole; `vcot audit` fits 100 columns."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from vcot.build import TaskPlan, build_suite
from vcot.cli import app
from vcot.suite import Suite, read_suite

runner = CliRunner()


@pytest.fixture(scope="module")
def suites(tmp_path_factory: pytest.TempPathFactory) -> tuple[Suite, Suite]:
    """billiards (options that are their own letters: the pockets are labelled in the picture) and another
    suite of other content."""
    root = tmp_path_factory.mktemp("person")
    build_suite(root / "b", "b", [TaskPlan("billiards", 4, 0)])
    build_suite(root / "o", "o", [TaskPlan("overlap", 3, 1)])
    return read_suite(root / "b"), read_suite(root / "o")


def _write_run(folder: Path, suite: Suite, model: str, right_every: int) -> Path:
    """A results table of `model` on `suite` (direct and visual_cot), right on every `right_every`-th problem."""
    rows = []
    for i, inst in enumerate(suite.instances):
        for cond in ("direct", "visual_cot"):
            ok = i % right_every == 0
            wrong = next(o for o in "ABCDEFGH" if o != inst.answer)
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
                    response=f"<answer>{inst.answer if ok else wrong}</answer>",
                    error=None,
                    n_turns=1,
                    finish_reason="stop",
                    suite_name=suite.name,
                    suite_hash=suite.content_hash,
                    prompt_version="1",
                    vcot_version="0.1.0",
                    settings="{}",
                )
            )
    folder.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(rows), folder / "results.parquet")
    return folder


@pytest.fixture(scope="module")
def report(suites: tuple[Suite, Suite], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`vcot report` of a user model (named to sort after "chance") and the chance baseline on billiards."""
    suite, _ = suites
    root = tmp_path_factory.mktemp("runs")
    mine = _write_run(root / "mine", suite, "zeta-model", 1)
    base = _write_run(root / "chance", suite, "chance", 3)
    r = runner.invoke(app, ["report", str(mine), str(base), "--suite", str(suite.root), "--out", str(root / "rep")])
    assert r.exit_code == 0, r.output
    return root / "rep"


def _digest(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in folder.iterdir() if p.is_file()}


def test_a_report_on_another_suite_is_refused_and_the_good_one_kept(suites: tuple[Suite, Suite], report: Path) -> None:
    suite, other = suites
    before = _digest(report)
    runs = [str(report.parent / "mine"), str(report.parent / "chance")]
    r = runner.invoke(app, ["report", *runs, "--suite", str(other.root), "--out", str(report)])
    assert r.exit_code == 2, r.output
    out = " ".join(r.output.split())
    assert "made on another suite" in out and other.content_hash in out and suite.content_hash in out
    assert _digest(report) == before
    # Rows without a recorded hash are held to the suite by their problems.
    rows = pq.read_table(report.parent / "mine" / "results.parquet").to_pylist()
    for row in rows:
        row["suite_hash"] = None
    bare = report.parent / "bare"
    bare.mkdir()
    pq.write_table(pa.Table.from_pylist(rows), bare / "results.parquet")
    r = runner.invoke(app, ["report", str(bare), "--suite", str(other.root), "--out", str(report.parent / "none")])
    assert r.exit_code == 2 and "none of the runs'" in " ".join(r.output.split()), r.output
    assert not (report.parent / "none").exists()


def test_the_users_model_comes_first_with_one_line_each(report: Path) -> None:
    md = (report / "report.md").read_text(encoding="utf-8")
    summary = md.split("## Summary", 1)[1].split("###", 1)[0]
    bullets = [line[2:] for line in summary.splitlines() if line.startswith("- ")]
    mine = [b for b in bullets if b.startswith("zeta-model")]
    base = [b for b in bullets if b.startswith("chance")]
    assert len(mine) == len(base) == 1
    assert bullets.index(mine[0]) < bullets.index(base[0])
    assert mine[0].startswith("zeta-model: above chance in 2 of 2 conditions")
    assert base[0].startswith("chance (built-in baseline):")
    assert all(len(b) < 160 for b in (mine[0], base[0]))  # short: the figures are in the table below
    table = md.split("### Accuracy by condition", 1)[1]
    assert table.index("| zeta-model |") < table.index("| chance |")


def test_the_first_screens_counts_are_explained(suites: tuple[Suite, Suite], report: Path) -> None:
    suite, _ = suites
    md = (report / "report.md").read_text(encoding="utf-8")
    n = len(suite.instances)
    m = re.search(r"(\d+) scored responses make (\d+) samples: (\d+) problems", md)
    assert m is not None, md[:2000]
    assert (int(m[1]), int(m[2]), int(m[3])) == (2 * 2 * n, 2 * 2 * n, n)
    assert f"among {2 * 2 * n} samples" in md  # the failures line counts the same samples
    html = (report / "report.html").read_text(encoding="utf-8")
    assert f"{2 * 2 * n} scored responses make {2 * 2 * n} samples" in html


def test_markdown_keeps_less_than_readable_and_markup_escaped() -> None:
    from vcot.analysis.render import md_text

    assert md_text("n < 30, p < 0.05, a & b") == "n < 30, p < 0.05, a & b"
    assert md_text("<script>x</script> &amp;") == "&lt;script>x&lt;/script> &amp;amp;"


def test_report_md_has_no_escaped_less_than(report: Path) -> None:
    md = (report / "report.md").read_text(encoding="utf-8")
    assert "&lt;" not in md and "n < 30" in md and "p < 0.05" in md


def test_wide_tables_cue_scrolling_and_headers_break_between_words(report: Path) -> None:
    html = (report / "report.html").read_text(encoding="utf-8")
    assert 'class="scroll-cue" hidden' in html and "scroll sideways" in html
    assert re.search(r"th\{[^}]*overflow-wrap:normal", html)


def test_letter_only_options_are_shown_once(suites: tuple[Suite, Suite], report: Path) -> None:
    suite, _ = suites
    assert all(i.options and list(i.options) == [chr(65 + k) for k in range(len(i.options))] for i in suite.instances)
    html = (report / "report.html").read_text(encoding="utf-8")
    assert '<ol type="A"><li>A</li>' not in html
    assert html.count("(labelled in the picture)") == len(suite.instances)


def test_report_in_a_pipe_prints_no_progress_and_takes_no_progress(suites: tuple[Suite, Suite], report: Path) -> None:
    suite, _ = suites
    runs = [str(report.parent / "mine")]
    for extra in ([], ["--no-progress"]):
        r = runner.invoke(
            app,
            ["report", *runs, "--suite", str(suite.root), "--out", str(report.parent / f"pipe{len(extra)}"), *extra],
        )
        assert r.exit_code == 0, r.output
        assert "thumbnails:" not in r.output and "Accuracy by condition" in r.output


def test_unless_quick_forwards_only_a_slow_step(monkeypatch: pytest.MonkeyPatch) -> None:
    from vcot.cli import report as report_cli

    clock = iter([0.0, 0.5, 1.0, 2.5, 3.0])
    monkeypatch.setattr(report_cli.time, "monotonic", lambda: next(clock))
    seen: list[int] = []
    maybe = report_cli._unless_quick(lambda done, total, **_: seen.append(done), 2.0)
    for done in range(5):
        maybe(done, 4)
    assert seen == [3, 4]


def test_heatmap_not_run_is_hatched_not_a_scale_colour() -> None:
    from vcot.analysis.plots import heatmap_figure
    from vcot.analysis.units import Sample

    ms = [
        Sample("r", "m", "direct", "billiards", "PBR", "u1", 0, True, "A", 0.2),
        Sample("r", "m", "visual_cot", "overlap", "EG", "u2", 0, False, "B", 0.25),
    ]
    fig = heatmap_figure("m", ms)
    ax = fig.axes[0]
    hatched = [p for p in ax.patches if p.get_hatch()]
    assert len(hatched) == 2  # billiards × visual_cot and overlap × direct were not run
    assert "hatched" in ax.get_title(loc="left") and "grey" not in ax.get_title(loc="left")
    assert tuple(ax.images[0].get_cmap().get_bad())[:3] == (1.0, 1.0, 1.0)


def test_tasks_name_shows_every_preset_value_whole() -> None:
    from vcot.tasks import get_task_class

    cls = get_task_class("overlap")
    r = runner.invoke(app, ["tasks", "overlap"], env={"COLUMNS": "100"})
    assert r.exit_code == 0, r.output
    assert "…" not in r.output
    flat = re.sub(r"[│┃\s]+", "", r.output)
    for level in ("easy", "medium", "hard"):
        for value in cls.presets[level].kinds:
            assert value in flat
    assert "min_overlapping" in r.output  # a name is never folded
    bad = runner.invoke(app, ["tasks", "overlapp"])
    assert bad.exit_code == 2 and "did you mean overlap" in bad.output
    every = runner.invoke(app, ["tasks"])
    assert every.exit_code == 0 and "…" not in every.output and "vcot tasks NAME" in every.output


def test_audit_fits_100_columns(suites: tuple[Suite, Suite]) -> None:
    import os
    import subprocess
    import sys

    suite, _ = suites
    env = {**os.environ, "COLUMNS": "100"}
    r = subprocess.run(
        [sys.executable, "-m", "vcot.cli", "audit", str(suite.root)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    lines = (r.stdout + r.stderr).splitlines()
    assert r.returncode in (0, 1) and lines, r.stderr
    assert max(len(line) for line in lines) <= 100, [line for line in lines if len(line) > 100]


def test_in_a_browser_headers_keep_their_words_and_wide_tables_say_so(report: Path) -> None:
    """Headless Chromium at 480 px: no header word is broken across lines, and exactly the tables wider than
    the page show the scroll cue."""
    from playwright.sync_api import sync_playwright

    from browser_support import launch, require_browser

    require_browser()
    with sync_playwright() as p:
        browser = launch(p)
        try:
            page = browser.new_page(viewport={"width": 480, "height": 800})
            page.goto((report / "report.html").as_uri())
            broken = page.evaluate("""(() => {
              const out = [], c = document.createElement('canvas').getContext('2d');
              for (const th of document.querySelectorAll('th')) {
                const cs = getComputedStyle(th); c.font = cs.font;
                const room = th.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
                for (const w of th.textContent.split(/\\s+/)) if (w && c.measureText(w).width > room + 0.5) out.push(w);
              }
              return out; })()""")
            cues = page.evaluate("""[...document.querySelectorAll('.scroll-cue')].map(c => {
              const s = c.nextElementSibling; return [!c.hidden, s.scrollWidth > s.clientWidth + 1]; })""")
        finally:
            browser.close()
    assert broken == []
    assert cues and all(shown == wide for shown, wide in cues), cues
    assert any(wide for _, wide in cues)  # at 480 px some table is wider than the page
