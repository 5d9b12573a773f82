"""The report: Markdown, one self-contained HTML file (inline CSS, PNG plots and thumbnails as data: URIs, no
network at view time — enforced by a Content-Security-Policy), and an instance browser.

Model output is untrusted (docs/vaot.md, "Bounds"): every piece of it goes through `vcot.html.escape`, and the
page's policy forbids external loads, so even a missed escape could not fetch anything.
"""

from __future__ import annotations

import datetime as _dt
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vcot.analysis import plots
from vcot.analysis.interventions import intervention_table
from vcot.analysis.learning import before_after
from vcot.analysis.probes import first_wrong_plots, probe_tables, step_curve_plots
from vcot.analysis.render import md_text, to_html, to_markdown
from vcot.analysis.tables import (
    CONDITIONS,
    Table,
    condition_cells,
    condition_overview,
    is_baseline,
    paired_tests,
    pass_at_k_table,
    per_task_tables,
    relative_gains,
    run_summary,
    see2think_table,
    table1,
    table2,
    tier_table,
)
from vcot.analysis.thumbnails import Thumbnails
from vcot.analysis.units import Sample, to_samples
from vcot.analysis.without_picture import without_picture_table
from vcot.html import UNSAFE_INLINE, content_security_policy, escape, page, png_data_uri

# Responses in the browser keep their head and their tail (where the answer is); the page must stay openable
# for a full suite with several models, conditions and epochs.
RESPONSE_HEAD = 4_000
RESPONSE_TAIL = 2_000
MAX_ROWS_PER_INSTANCE = 80


@dataclass
class Analysis:
    samples: list[Sample]
    tables: list[tuple[str, Table]]  # (anchor, table)


def analyse(
    rows: list[dict[str, Any]], instances: dict | None = None, groups: dict[str, str] | None = None, n_boot: int = 2000
) -> Analysis:
    samples = to_samples(rows, instances)
    tables: list[tuple[str, Table | None]] = [
        ("overview", condition_overview(samples)),
        ("table1", table1(samples, groups, n_boot=n_boot)),
        ("see2think-categories", see2think_table(samples)),
        ("gain-visual", relative_gains(samples, "direct", "visual_cot", n_boot=n_boot)),
        ("gain-text", relative_gains(samples, "direct", "text_cot", n_boot=n_boot)),
        ("table2", table2(samples)),
        ("passk", pass_at_k_table(samples)),
        ("paired", paired_tests(samples, n_boot=n_boot)),
        ("before-after", before_after(samples, rows, instances, n_boot=n_boot)),
        ("tiers", tier_table(samples)),
        ("without-picture", without_picture_table(samples)),
    ]
    tables += [(f"tasks-{i}", t) for i, t in enumerate(per_task_tables(samples))]
    # Issue 20: the "First wrong step" tables (state_probe rows) and the interventions' paired effects.
    tables += [*probe_tables(rows), ("interventions", intervention_table(samples, n_boot=n_boot))]
    return Analysis(samples, [(a, t) for a, t in tables if t is not None])


@dataclass
class ReportPaths:
    markdown: Path
    html: Path


def _provenance(rows: list[dict[str, Any]]) -> list[dict[str, str]]:
    seen: dict[tuple, dict[str, str]] = {}
    for r in rows:
        rec = {
            k: str(r.get(k, "") or "")
            for k in ("run_id", "model", "suite_name", "suite_hash", "prompt_version", "vcot_version", "settings")
        }
        seen.setdefault(tuple(rec.values()), rec)
    return list(seen.values())


def _endpoint_table(rows: Sequence[dict[str, Any]]) -> Table | None:
    """Per run over several endpoints, each invocation's figures per endpoint (results column `endpoints`,
    issue 30); None when no run had several."""
    import json

    seen: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in rows:
        text = r.get("endpoints")
        key = (str(r.get("run_id") or ""), str(text or ""))
        if text and key not in seen:
            try:
                figures = json.loads(text)
            except ValueError:
                continue
            seen[key] = [f for f in figures if isinstance(f, dict)] if isinstance(figures, list) else []

    def secs(v: Any) -> str:
        return f"{v:.3f}" if isinstance(v, (int, float)) else "-"

    out = []
    for (run_id, _), figures in seen.items():
        for f in figures:
            started = f.get("session")
            when = (
                _dt.datetime.fromtimestamp(started, _dt.UTC).strftime("%Y-%m-%d %H:%M")
                if isinstance(started, (int, float))
                else ""
            )
            kinds = f.get("error_kinds") if isinstance(f.get("error_kinds"), dict) else {}
            out.append(
                [
                    run_id,
                    when,
                    str(f.get("url", "")),
                    str(f.get("requests", "")),
                    str(f.get("ok", "")),
                    str(f.get("errors", ""))
                    + (f" ({', '.join(f'{n} {k}' for k, n in kinds.items())})" if kinds else ""),
                    secs(f.get("mean_s")),
                    secs(f.get("p50_s")),
                    str(f.get("taken_out", "")),
                ]
            )
    if not out:
        return None
    return Table(
        "Endpoints",
        ["run", "started (UTC)", "endpoint", "requests", "ok", "errors", "mean s", "p50 s", "taken out"],
        out,
    )


def write_report(
    rows: list[dict[str, Any]],
    out_dir: str | Path,
    suite: Any = None,
    groups: dict[str, str] | None = None,
    max_instances: int = 300,
    title: str = "vcot report",
    n_boot: int = 2000,
    extra_tables: Sequence[Table] = (),
    analysis: Analysis | None = None,
    extra_html: Sequence[str] = (),
    thumbnails: Thumbnails | None = None,
) -> ReportPaths:
    """Write report.md (+ plots/*.png) and report.html (self-contained) into out_dir from scored rows.

    `extra_tables` are appended to the results (e.g. the MIRA side-by-side); `analysis` skips recomputation
    when the caller already ran analyse() on the same rows; `thumbnails` are the browser's, started early by
    the caller (by default they are made here, beside the plots)."""
    if thumbnails is None and suite is not None:
        with Thumbnails(suite) as made:
            made.start(browser_images(rows, suite, max_instances))
            return write_report(
                rows,
                out_dir,
                suite=suite,
                groups=groups,
                max_instances=max_instances,
                title=title,
                n_boot=n_boot,
                extra_tables=extra_tables,
                analysis=analysis,
                extra_html=extra_html,
                thumbnails=made,
            )
    out = Path(out_dir)
    (out / "plots").mkdir(parents=True, exist_ok=True)
    if analysis is None:
        instances = {i.uid: i for i in suite.instances} if suite is not None else None
        analysis = analyse(rows, instances, groups, n_boot=n_boot)
    if extra_tables:
        analysis = Analysis(
            analysis.samples, [*analysis.tables, *((f"extra-{i}", t) for i, t in enumerate(extra_tables))]
        )
    figures: list[tuple[str, str, bytes]] = [
        (
            "bars",
            "Accuracy by domain and condition (bars: Wilson 95%; black ticks: chance)",
            plots.domain_bars(analysis.samples),
        )
    ]
    curves = plots.pass_curves(analysis.samples)
    if curves:
        figures.append(("passk", "pass@k", curves))
    for i, (model, png) in enumerate(plots.task_heatmaps(analysis.samples)):
        figures.append((f"heatmap-{i}", f"Task × condition heat map: {model} (accuracy %; n: problems per task)", png))
    for i, (model, png) in enumerate(step_curve_plots(rows)):
        figures.append((f"probe-steps-{i}", f"First wrong step: state-probe accuracy by step, {model}", png))
    for i, (model, png) in enumerate(first_wrong_plots(rows)):
        figures.append((f"first-wrong-{i}", f"First wrong step: distribution per task, {model}", png))
    for name, _, png in figures:
        (out / "plots" / f"{name}.png").write_bytes(png)
    prov = _provenance(rows)
    md = _markdown(title, analysis, figures, prov, rows)
    (out / "report.md").write_text(md, encoding="utf-8")
    page = _html(title, analysis, figures, prov, rows, suite, max_instances, extra_html, thumbnails)
    (out / "report.html").write_text(page, encoding="utf-8")
    return ReportPaths(out / "report.md", out / "report.html")


def _markdown(title: str, analysis: Analysis, figures, prov, rows: Sequence[dict[str, Any]] = ()) -> str:
    facts = _summary(analysis, len(rows) or None)
    parts = [
        f"# {escape(title, quote=False)}",
        "",
        f"Generated {_dt.datetime.now(_dt.UTC).isoformat(timespec='seconds')}.",
        "",
        "## Summary",
        "",
        f"Reading guide: {READING_GUIDE}.",
        "",
    ]
    parts += [
        f"- {md_text(line)}".replace("\n", " ") for line in [facts.counts, *facts.chance, *facts.paired, facts.failures]
    ]
    parts += ["", to_markdown(facts.table), "## Runs", ""]
    parts.append(
        to_markdown(
            Table(
                "Provenance",
                ["run", "model", "suite", "suite hash", "prompt", "vcot", "settings"],
                [list(p.values()) for p in prov],
            )
        )
    )
    if (endpoints := _endpoint_table(rows)) is not None:
        parts.append(to_markdown(endpoints))
    parts += ["## Results", ""]
    parts += [
        to_markdown(t)
        for a, t in analysis.tables
        if not (a.startswith("extra-") and t.title == facts.table.title and t.header == facts.table.header)
    ]
    parts += ["## Figures", ""]
    parts += [f"![{escape(cap)}](plots/{name}.png)\n" for name, cap, _ in figures]
    return "\n".join(parts)


_CSS = """
*,*::before,*::after{box-sizing:border-box}
html{scroll-behavior:auto}
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0 auto;padding:0 1.5rem 2rem;color:#222;
max-width:1400px;overflow-wrap:anywhere}
header h1{font-size:1.6rem;margin:1rem 0 .3rem} header p{margin:0 0 .5rem}
h2{border-bottom:1px solid #ccc;padding-bottom:.2rem;margin-top:2rem} h3{font-size:1.05rem}
section.part,section.table,details.long{scroll-margin-top:3.5rem}
table{border-collapse:collapse;font-size:.82rem} th,td{border:1px solid #ddd;padding:.2rem .4rem;text-align:right}
th{background:#f3f3f3;position:sticky;top:0} td:first-child,th:first-child{text-align:left}
.table td{white-space:nowrap} .scroll{overflow-x:auto;max-width:100%}
th{overflow-wrap:normal;word-break:normal;hyphens:none}
.scroll{background:linear-gradient(to right,#fff 30%,rgba(255,255,255,0)) left/2.5rem 100% no-repeat local,
linear-gradient(to left,#fff 30%,rgba(255,255,255,0)) right/2.5rem 100% no-repeat local,
radial-gradient(farthest-side at 0 50%,rgba(0,0,0,.28),rgba(0,0,0,0)) left/1rem 100% no-repeat scroll,
radial-gradient(farthest-side at 100% 50%,rgba(0,0,0,.28),rgba(0,0,0,0)) right/1rem 100% no-repeat scroll}
.scroll-cue{font-size:.78rem;color:#0550ae;margin:.1rem 0}
.ci{color:#888;font-size:.72rem;margin-left:.25rem} .note{color:#555;font-size:.8rem}
.fail{color:#a40;font-size:.72rem;margin-left:.25rem}
nav#toc{position:sticky;top:0;z-index:10;background:#fff;border-bottom:1px solid #ccc;padding:.45rem 0;
display:flex;flex-wrap:wrap;gap:.3rem 1rem;font-size:.9rem}
nav#toc a{text-decoration:none;color:#0550ae} nav#toc a:hover{text-decoration:underline}
.summary ul{margin:.3rem 0 .8rem;padding-left:1.3rem} .summary li{margin:.15rem 0}
.next a{margin-right:.8rem}
details.long{border:1px solid #e3e3e3;border-radius:4px;margin:.6rem 0;padding:.3rem .6rem}
details.long>summary{cursor:pointer;font-weight:600}
figure{margin:1rem 0;max-width:100%} figcaption{font-size:.85rem;color:#444}
img{max-width:100%;height:auto}
details.inst{border:1px solid #ddd;border-radius:4px;margin:.3rem 0;padding:.3rem .6rem}
details.inst>summary{cursor:pointer} .ok{color:#1a7f37;font-weight:600} .bad{color:#c62828;font-weight:600}
pre{white-space:pre-wrap;word-break:break-word;background:#f8f8f8;padding:.5rem;max-height:30rem;overflow:auto}
.steps{display:flex;flex-wrap:wrap;gap:.8rem} .step{max-width:400px;font-size:.8rem}
img.thumb{max-width:min(384px,100%);border:1px solid #ccc} .answers td{text-align:left;vertical-align:top}
#filters{margin:.5rem 0} #filters input{margin-right:1rem}
"""

# Filtering only toggles the hidden attribute of rows that already exist, and the scroll cues that of the
# cue above each table wider than the page; it reads no model text.
_JS = """
(function(){
  var box=document.getElementById('q'), wrong=document.getElementById('wrong');
  function apply(){
    var q=box.value.toLowerCase(), only=wrong.checked, shown=0;
    var items=document.querySelectorAll('details.inst');
    for(var i=0;i<items.length;i++){
      var el=items[i], hit=el.getAttribute('data-search').indexOf(q)>=0;
      if(only&&el.getAttribute('data-wrong')!=='1'){hit=false;}
      el.hidden=!hit; if(hit){shown++;}
    }
    document.getElementById('count').textContent=shown+' shown';
  }
  box.addEventListener('input',apply); wrong.addEventListener('change',apply); apply();
  function cues(){
    var cs=document.querySelectorAll('.scroll-cue');
    for(var i=0;i<cs.length;i++){
      var sc=cs[i].nextElementSibling;
      if(sc){cs[i].hidden=!(sc.scrollWidth>sc.clientWidth+1);}
    }
  }
  window.addEventListener('resize',cues); document.addEventListener('toggle',cues,true); cues();
})();
"""

# Opened from disk, the page has no origin to load from, so its images are data: URIs. The filter script is
# inline; script_hash(_JS) would be stricter than 'unsafe-inline', which is kept until that change is made on
# its own.
_CSP = content_security_policy(img_src="data:", script_src=UNSAFE_INLINE)


def browser_images(rows: Sequence[dict[str, Any]], suite: Any, max_instances: int) -> list[str]:
    """The images the instance browser shows for these rows, in page order, each once."""
    uids, inst_of = _shown(rows, suite)
    return instance_images([inst_of[uid] for uid in uids[:max_instances] if uid in inst_of])


def instance_images(instances: Sequence[Any]) -> list[str]:
    """The images of these instances (the input's, then its steps'), in order, each once."""
    return list(dict.fromkeys(rel for i in instances for rel in [i.image, *(st.image for st in i.steps)]))


def _shown(rows: Sequence[dict[str, Any]], suite: Any) -> tuple[list[str], dict[str, Any]]:
    """All uids of the rows in browser order (the suite's, then the rest sorted) and the suite's instances."""
    seen = {str(r["uid"]) for r in rows}
    order = [i for i in suite.instances if i.uid in seen] if suite is not None else []
    inst_of = {i.uid: i for i in order}
    return [i.uid for i in order] + sorted(seen - inst_of.keys()), inst_of


# The report's sections, in the order a reader asks: (id, navigation label, heading).
SECTIONS = (
    ("summary", "Summary", "Summary"),
    ("accuracy", "Accuracy", "Accuracy"),
    ("per-task", "Per task", "Per task"),
    ("failures", "Failure analysis", "Failure analysis"),
    ("audit", "Audit", "Audit of the suite"),
    ("figures", "Figures", "Figures"),
    ("more", "More", "More"),
    ("browser", "Instances", "Instance browser"),
    ("runs", "Runs", "Runs"),
)
READING_GUIDE = "docs/report.md in the vcot repository says what each section answers and how to read it"
# A table with more rows than this starts collapsed.
LONG_TABLE = 12
ALPHA = 0.05
_FAILURE_ANCHORS = ("see2think-categories", "tiers", "without-picture", "interventions", "probe-", "first-wrong")
_FAILURE_TITLES = ("failure", "process", "semantic", "first wrong", "judge")


@dataclass
class _Summary:
    table: Table  # tables.run_summary
    chance: list[str]  # one line per model, the user's before the built-in baselines: its verdict against chance
    paired: list[str]  # the significant paired comparisons, in words
    failures: str  # errors, timeouts and truncations
    counts: str = ""  # how responses, samples and problems relate (the three counts a reader meets first)


def _chance_line(model: str, cells: list[tuple[str, Any]]) -> str:
    """One short line: in how many conditions the model is above, at or below chance, and its best condition
    (the per-condition figures are in the table below it)."""
    known = [(cond, c) for cond, c in cells if not math.isnan(c.acc)]
    if not known:
        return f"{model}: no scored samples"
    verdicts = {"above": 0, "at": 0, "below": 0, "unknown": 0}
    for _, c in known:
        verdicts[
            "unknown" if math.isnan(c.chance) else "above" if c.lo > c.chance else "below" if c.hi < c.chance else "at"
        ] += 1
    n = len(known)
    said = [
        f"{k} chance in {v} of {n} condition{'s' if n > 1 else ''}"
        if k != "unknown"
        else f"chance level unknown in {v}"
        for k, v in verdicts.items()
        if v
    ]
    best_cond, best = max(known, key=lambda kc: kc[1].acc)
    level = "" if math.isnan(best.chance) else f" vs {100 * best.chance:.1f}% chance"
    kind = " (built-in baseline)" if is_baseline(model) else ""
    return (
        f"{model}{kind}: {', '.join(said)}; best {best_cond} {100 * best.acc:.1f}% "
        f"[{100 * best.lo:.1f}, {100 * best.hi:.1f}]{level}"
    )


def _counts(analysis: Analysis, n_rows: int) -> str:
    """The three counts of the first screen in one sentence, so that they read as one accounting."""
    samples = analysis.samples
    problems = len({s.unit for s in samples})
    models = len({s.model for s in samples})
    conds = len({s.condition for s in samples})
    epochs = len({s.epoch for s in samples})
    paired_rows = sum(s.n_rows for s in samples if s.n_rows > 1)
    rows_note = (
        f"; the {paired_rows} responses to paired problems (two questions about one picture, right only "
        "when both are) make one sample per pair"
        if paired_rows
        else ""
    )

    def n_of(n: int, word: str) -> str:
        return f"{n} {word}{'s' if n != 1 else ''}"

    return (
        f"{n_rows} scored responses make {len(samples)} samples: {problems} problems, each answered under "
        f"{'up to ' if conds > 1 else ''}{n_of(conds, 'condition')} by {n_of(models, 'model')} in "
        f"{n_of(epochs, 'epoch')}{rows_note}. The tables count problems."
    )


def _summary(analysis: Analysis, n_rows: int | None = None) -> _Summary:
    cells = condition_cells(analysis.samples)
    by_model: dict[str, list[tuple[str, Any]]] = {}
    for (m, cond), c in cells.items():  # the user's models first, then the baselines (tables.model_order)
        by_model.setdefault(m, []).append((cond, c))
    chance = [_chance_line(m, cs) for m, cs in by_model.items()]
    paired_table = dict(analysis.tables).get("paired")
    paired = []
    for row in paired_table.rows if paired_table is not None else []:
        model, pair, delta, p = str(row[0]), str(row[1]), str(row[5]), str(row[8])
        try:
            p_value = float(p)
        except ValueError:
            continue
        if p_value >= ALPHA:
            continue
        base, _, treat = pair.partition(" → ")
        verb = "trails" if delta.startswith("-") else "beats"
        head, _, interval = delta.partition(" ")
        paired.append(f"{model}: {treat} {verb} {base} by {head} points {interval}, sign test p = {p}")
    if not paired:
        paired = [
            f"No paired difference is significant at p < {ALPHA:g}."
            if paired_table is not None
            else "No paired comparison could be made (no problem was run under two compared conditions)."
        ]
    n = sum(c.samples for c in cells.values())
    err, tmo, trunc = (sum(getattr(c, k) for c in cells.values()) for k in ("errors", "timeouts", "truncated"))
    if err or tmo or trunc:
        failures = (
            f"Engine failures: {err} errors, {tmo} timeouts and {trunc} truncated responses among {n} "
            "samples (counted as wrong; see the errors / timeouts / truncated columns)."
        )
    else:
        failures = f"No engine errors, timeouts or truncated responses among {n} samples."
    counts = _counts(analysis, n_rows if n_rows is not None else sum(s.n_rows for s in analysis.samples))
    return _Summary(run_summary(analysis.samples), chance, paired, failures, counts)


def _section_of(anchor: str, t: Table) -> str:
    title = t.title.lower()
    if anchor.startswith("tasks-"):
        return "per-task"
    if title.startswith("audit"):
        return "audit"
    if anchor.startswith(_FAILURE_ANCHORS) or (
        anchor.startswith("extra-") and any(w in title for w in _FAILURE_TITLES)
    ):
        return "failures"
    return "accuracy"


def _table_html(anchor: str, t: Table, collapsed: bool) -> str:
    if not collapsed:
        return to_html(t, anchor)
    e = escape
    return (
        f'<details class="long" id="{e(anchor)}"><summary>{e(t.title)} ({len(t.rows)} rows)</summary>'
        f"{to_html(t)}</details>"
    )


def _html(
    title: str,
    analysis: Analysis,
    figures,
    prov,
    rows,
    suite,
    max_instances: int,
    extra_html: Sequence[str] = (),
    thumbnails: Thumbnails | None = None,
) -> str:
    """`extra_html` sections are trusted markup built by vcot (e.g. the VAoT trajectory viewer), which
    escapes all model text itself."""
    e = escape
    facts = _summary(analysis, len(rows))
    summary_headers = facts.table.header
    body: dict[str, list[str]] = {sid: [] for sid, _, _ in SECTIONS}
    for anchor, t in analysis.tables:
        if anchor.startswith("extra-") and t.header == summary_headers and t.title == facts.table.title:
            continue  # the run summary, already at the top
        where = _section_of(anchor, t)
        body[where].append(_table_html(anchor, t, where == "audit" or len(t.rows) > LONG_TABLE))
    for name, cap, png in figures:
        body["figures"].append(
            f'<figure id="fig-{e(name)}"><img alt="{e(cap)}" src="{png_data_uri(png)}">'
            f"<figcaption>{e(cap)}</figcaption></figure>"
        )
    body["more"] += list(extra_html)
    body["runs"].append(
        to_html(
            Table(
                "Provenance",
                ["run", "model", "suite", "suite hash", "prompt", "vcot", "settings"],
                [list(p.values()) for p in prov],
            )
        )
    )
    if (endpoints := _endpoint_table(rows)) is not None:
        body["runs"].append(to_html(endpoints))
    present = [s for s in SECTIONS if s[0] in ("summary", "browser") or body[s[0]]]
    nexts = " ".join(f'<a href="#{sid}">{e(label)}</a>' for sid, label, _ in present if sid != "summary")
    body["summary"] = [
        '<div class="summary">',
        f'<p class="note">{e(facts.counts)}</p>',
        "<h3>Accuracy against chance (95% Wilson intervals)</h3>",
        "<ul>" + "".join(f"<li>{e(line)}</li>" for line in facts.chance) + "</ul>",
        "<h3>Paired comparisons</h3>",
        "<ul>" + "".join(f"<li>{e(line)}</li>" for line in facts.paired) + "</ul>",
        f"<h3>Errors and truncations</h3><p>{e(facts.failures)}</p>",
        to_html(facts.table, "run-summary"),
        f'<p class="next"><b>Where to look next:</b> {nexts}</p>',
        f'<p class="note">Reading guide: {e(READING_GUIDE)}.</p>',
        "</div>",
    ]
    nav = "".join(f'<a href="#{sid}">{e(label)}</a>' for sid, label, _ in present)
    parts = [
        "<header>",
        f"<h1>{e(title)}</h1>",
        f"<p>Generated {e(_dt.datetime.now(_dt.UTC).isoformat(timespec='seconds'))} from "
        f"{len({str(r.get('run_id') or '') for r in rows})} run(s), {len(rows)} scored responses (see the summary "
        "for how they are counted).</p>",
        "</header>",
        f'<nav id="toc" aria-label="Sections">{nav}</nav>',
        "<main>",
    ]
    for sid, _, heading in present:
        if sid == "browser":
            parts.append(
                f'<section class="part" id="browser">{_browser(rows, suite, max_instances, thumbnails)}</section>'
            )
            continue
        parts.append(f'<section class="part" id="{sid}"><h2>{e(heading)}</h2>')
        parts += body[sid]
        parts.append("</section>")
    parts.append("</main>")
    parts.append(f"<script>{_JS}</script>")
    return page(title, "\n".join(parts), css=_CSS, csp=_CSP)


def _cond_key(c: str) -> int:
    return CONDITIONS.index(c) if c in CONDITIONS else len(CONDITIONS)


def _browser(rows: list[dict[str, Any]], suite: Any, max_instances: int, thumbnails: Thumbnails | None) -> str:
    e = escape
    by_uid: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        by_uid.setdefault(str(r["uid"]), []).append(r)
    uids, inst_of = _shown(rows, suite)
    shown = uids[:max_instances]
    parts = [
        "<h2>Instance browser</h2>",
        '<div id="filters"><input id="q" type="search" placeholder="filter by uid, task, domain">'
        '<label><input id="wrong" type="checkbox"> only with wrong answers</label> <span id="count"></span></div>',
    ]
    if len(uids) > len(shown):
        parts.append(
            f'<p class="note">Showing the first {len(shown)} of {len(uids)} instances '
            "(raise --max-instances for more).</p>"
        )
    rels = browser_images(rows, suite, max_instances)
    if thumbnails is not None:
        thumbs = thumbnails.get(rels)
    else:
        with Thumbnails(suite) as made:
            thumbs = made.get(rels)
    for uid in shown:
        rs = sorted(
            by_uid[uid], key=lambda r: (str(r["model"]), _cond_key(str(r["condition"])), int(r.get("epoch") or 0))
        )
        first = rs[0]
        inst = inst_of.get(uid)
        n_ok = sum(bool(r.get("correct")) for r in rs)
        search = " ".join([uid, str(first.get("task", "")), str(first.get("domain", ""))]).lower()
        parts.append(
            f'<details class="inst" data-search="{e(search)}" data-wrong="{1 if n_ok < len(rs) else 0}">'
            f"<summary><b>{e(uid)}</b> · {e(str(first.get('task', '')))} · {e(str(first.get('domain', '')))}"
            f" · gold <code>{e(str(first.get('gold', '')))}</code> · {n_ok}/{len(rs)} right</summary>"
        )
        if inst is not None:
            parts.append(f"<pre>{e(inst.question)}</pre>")
            if inst.options:
                parts.append(_options_html(inst.options))
            src = thumbs.get(inst.image)
            parts.append(
                f'<img class="thumb" alt="input image" src="{src}">'
                if src
                else f'<p class="note">input image {e(inst.image)} unavailable</p>'
            )
            if inst.steps:
                parts.append('<div class="steps">')
                for k, st in enumerate(inst.steps, 1):
                    s_src = thumbs.get(st.image)
                    img = f'<img class="thumb" alt="step {k}" src="{s_src}">' if s_src else ""
                    parts.append(f'<div class="step">{img}<div>Step {k}: {e(st.text)}</div></div>')
                parts.append("</div>")
        if len(rs) > MAX_ROWS_PER_INSTANCE:
            # Later epochs are dropped first, so epoch 0 of every model and condition stays visible.
            kept = sorted(rs, key=lambda r: int(r.get("epoch") or 0))[:MAX_ROWS_PER_INSTANCE]
            parts.append(f'<p class="note">{len(rs) - len(kept)} more samples (later epochs) omitted.</p>')
            rs = sorted(kept, key=lambda r: (str(r["model"]), _cond_key(str(r["condition"])), int(r.get("epoch") or 0)))
        parts.append(f'<div class="scroll">{_answers_table(rs)}</div>')
        parts.append("</details>")
    return "\n".join(parts)


def _options_html(options: Sequence[str]) -> str:
    """A choice question's options. Where every option is its own letter (the candidates are drawn in the
    picture: billiards' pockets, puzzle pieces) a lettered list read "A. A / B. B" (issue 45): one line then."""
    e = escape
    letters = [chr(ord("A") + k) for k in range(len(options))]
    if [str(o).strip() for o in options] == letters:
        return f'<p class="note">Options: {e(", ".join(letters))} (labelled in the picture)</p>'
    return '<ol type="A">' + "".join(f"<li>{e(o)}</li>" for o in options) + "</ol>"


def _answers_table(rs: Sequence[dict[str, Any]]) -> str:
    e = escape
    out = [
        '<table class="answers"><thead><tr><th>model</th><th>condition</th><th>epoch</th><th>extracted</th>'
        "<th>tier</th><th>verdict</th><th>response</th></tr></thead><tbody>"
    ]
    for r in rs:
        ok = bool(r.get("correct"))
        resp = str(r.get("response") or "")
        if len(resp) > RESPONSE_HEAD + RESPONSE_TAIL:
            cut = len(resp) - RESPONSE_HEAD - RESPONSE_TAIL
            resp = f"{resp[:RESPONSE_HEAD]}\n… [{cut} characters omitted] …\n{resp[-RESPONSE_TAIL:]}"
        err = r.get("error")
        body = f"<pre>{e(resp)}</pre>" + (f'<p class="bad">error: {e(str(err))}</p>' if err else "")
        reason = str(r.get("score_reason") or "")
        out.append(
            f"<tr><td>{e(str(r['model']))}</td><td>{e(str(r['condition']))}</td><td>{e(str(r.get('epoch', 0)))}</td>"
            f"<td><code>{e(str(r.get('extracted') if r.get('extracted') is not None else '—'))}</code></td>"
            f"<td>{e(str(r.get('tier', '')))}</td>"
            f'<td class="{"ok" if ok else "bad"}" title="{e(reason)}">{"right" if ok else "wrong"}</td>'
            f"<td><details><summary>{len(str(r.get('response') or ''))} chars</summary>{body}</details></td></tr>"
        )
    out.append("</tbody></table>")
    return "".join(out)
