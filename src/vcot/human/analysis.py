"""A human study in the report: accuracy by task, domain and difficulty, time per item, agreement between
participants, the human–model gap next to every model of the runs, and the items most people got wrong.

Accuracy comes from the same accounting as the models' (`analysis.units.to_samples` → `analysis.tables.cell`):
one sample per participant and problem, Wilson intervals over distinct problems (answers of several people
to one problem are not independent trials, as epochs of one model are not). The gap compares people and
models on the problems people answered, under the same condition, and only with runs of the same suite.
"""

from __future__ import annotations

import math
import os
from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from vcot.analysis.build_report import ReportSection
from vcot.analysis.tables import DOMAINS, Table, cell, group, ordered
from vcot.analysis.units import Sample, pair_key, to_samples
from vcot.html import escape, thumbnail_data_uri
from vcot.human.export import HUMAN_MODEL, study_rows
from vcot.human.study import HUMAN_CONDITIONS, Study

DIFFICULTIES = ("easy", "medium", "hard")
HARD_SHARE = 0.5  # listed when fewer than this share of an item's answers are right
MIN_ANSWERS = 2  # "most people" needs at least two people
THUMB = 384


# ----------------------------------------------------------------------------------------------- statistics


def fleiss_kappa(items: Iterable[Sequence[Hashable]]) -> float:
    """Fleiss' κ over items rated by two or more raters each (the number may vary per item): observed
    agreement P̄ (mean over items of agreeing ordered pairs / all ordered pairs) against the agreement P_e
    expected from the pooled category shares. nan when there is no item or every rating is the same."""
    per_item = [Counter(x) for x in items if len(x) >= 2]
    if not per_item:
        return math.nan
    p_bar = float(
        np.mean(
            [
                (sum(v * v for v in c.values()) - sum(c.values())) / (sum(c.values()) * (sum(c.values()) - 1))
                for c in per_item
            ]
        )
    )
    pooled: Counter[Hashable] = Counter()
    for c in per_item:
        pooled.update(c)
    total = sum(pooled.values())
    p_e = sum((v / total) ** 2 for v in pooled.values())
    return math.nan if p_e >= 1 else (p_bar - p_e) / (1 - p_e)


def pairwise_agreement(items: Iterable[Sequence[Hashable]]) -> float:
    """Share of pairs of answers to the same item that agree, over all such pairs of all items."""
    agree = pairs = 0
    for x in items:
        c = Counter(x)
        n = len(x)
        pairs += n * (n - 1) // 2
        agree += sum(v * (v - 1) // 2 for v in c.values())
    return agree / pairs if pairs else math.nan


def _num(x: float, digits: int = 2) -> str:
    return "—" if x is None or math.isnan(x) else f"{x:.{digits}f}"


def _seconds(ms: Sequence[float]) -> tuple[str, str]:
    """(median, interquartile range "q1–q3") in seconds."""
    if not ms:
        return "—", "—"
    q1, med, q3 = np.percentile(np.asarray(ms, dtype=float) / 1000, [25, 50, 75])
    return f"{med:.1f}", f"{q1:.1f}–{q3:.1f}"


# ------------------------------------------------------------------------------------------------- tables


def accuracy_table(samples: list[Sample], difficulty_of: dict[str, str]) -> Table:
    conds = ordered({s.condition for s in samples}, HUMAN_CONDITIONS)
    t = Table(
        "Human accuracy by task, domain and difficulty (%, Wilson 95% interval)",
        ["by", "group", *conds, "answers", "chance"],
        note="One sample per participant and problem; the interval counts distinct problems, since "
        "answers of several people to one problem are not independent. Chance: the level of the "
        "same problems under the built-in chance baseline.",
    )
    groupings: list[tuple[str, Callable[[Sample], str], Sequence[str]]] = [
        ("task", lambda s: s.task, ()),
        ("domain", lambda s: s.domain, DOMAINS),
        ("difficulty", lambda s: difficulty_of.get(s.unit, "?"), DIFFICULTIES),
    ]
    for by, key, preferred in groupings:
        groups = group(samples, key)
        for name in ordered(groups, preferred):
            ss = groups[name]
            t.rows.append(
                [by, name, *[cell([s for s in ss if s.condition == c]) for c in conds], len(ss), cell(ss).chance]
            )
    t.rows.append(
        [
            "all",
            "",
            *[cell([s for s in samples if s.condition == c]) for c in conds],
            len(samples),
            cell(samples).chance,
        ]
    )
    return t


def time_table(rows: list[dict[str, Any]]) -> Table:
    conds = ordered({r["condition"] for r in rows}, HUMAN_CONDITIONS)
    t = Table(
        "Human time per item (seconds, idle time excluded)",
        ["task", "condition", "answers", "median", "IQR", "idle median", "timed by script"],
        note="From the first display of an item to its answer, minus the time no view of it was visible "
        "(tab hidden, browser closed), as measured by the page's script; an answer given without "
        "the script keeps its raw time ('timed by script' counts the others). IQR: 25th–75th "
        "percentile.",
    )
    for task in [*sorted({r["task"] for r in rows}), "all"]:
        for c in conds:
            rs = [r for r in rows if r["condition"] == c and task in ("all", r["task"])]
            if not rs:
                continue
            med, iqr = _seconds([r["active_ms"] for r in rs])
            idle = [r["idle_ms"] for r in rs if r["idle_ms"] is not None]
            t.rows.append(
                [
                    task,
                    c,
                    len(rs),
                    med,
                    iqr,
                    _seconds(idle)[0],
                    f"{sum(r['timing'] == 'script' for r in rs)} / {len(rs)}",
                ]
            )
    return t


def agreement_table(samples: list[Sample]) -> Table:
    conds = ordered({s.condition for s in samples}, HUMAN_CONDITIONS)
    t = Table(
        "Agreement between participants (problems answered by two or more)",
        ["task", "condition", "problems", "answers", "pairwise agreement", "Fleiss κ answers", "Fleiss κ right/wrong"],
        note="Pairwise agreement: the share of pairs of answers to the same problem that are the same answer "
        "(after the grader's normalisation). Fleiss' κ corrects for agreement by chance, once over the "
        "answers and once over right/wrong; '—' when it is undefined (e.g. everyone right).",
    )
    for task in [*sorted({s.task for s in samples}), "all"]:
        for c in conds:
            ss = [s for s in samples if s.condition == c and task in ("all", s.task)]
            items = [v for v in group(ss, lambda s: s.unit).values() if len(v) >= 2]
            if not items:
                continue
            votes = [[("∅",) if s.vote is None else s.vote for s in v] for v in items]
            right = [[s.correct for s in v] for v in items]
            t.rows.append(
                [
                    task,
                    c,
                    len(items),
                    sum(len(v) for v in items),
                    _num(pairwise_agreement(votes)),
                    _num(fleiss_kappa(votes)),
                    _num(fleiss_kappa(right)),
                ]
            )
    return t


def participant_table(samples: list[Sample], rows: list[dict[str, Any]], names: Sequence[str]) -> Table:
    t = Table(
        "Human accuracy per participant (%, Wilson 95% interval)",
        ["participant", "answers", "accuracy", "median s"],
        note="Participants answer different problems, so their accuracies are not directly comparable.",
    )
    for slot, name in enumerate(names):
        ss = [s for s in samples if s.epoch == slot]
        if ss:
            t.rows.append(
                [name, len(ss), cell(ss), _seconds([r["active_ms"] for r in rows if r["participant"] == name])[0]]
            )
    return t


def gap_tables(human: list[Sample], models: list[Sample]) -> list[Table]:
    """Per condition people answered under: human accuracy per task, and for every model its accuracy on the
    same problems under the same condition and the gap (human minus model, points)."""
    names = sorted({s.model for s in models if s.model != HUMAN_MODEL})
    out = []
    for c in ordered({s.condition for s in human}, HUMAN_CONDITIONS):
        hs = [s for s in human if s.condition == c]
        units = {s.unit for s in hs}
        ms = [s for s in models if s.condition == c and s.unit in units and s.model != HUMAN_MODEL]
        header = ["task", "problems", "human"]
        for m in names:
            header += [m, f"gap vs {m}"]
        t = Table(
            f"Human–model gap, condition {c} (accuracy %, on the problems people answered)",
            header,
            note="Gap: human minus model accuracy in percentage points, on the same problems and condition. "
            "Only runs of the study's suite (same content hash) count; '—': the model has no answer "
            "there under this condition.",
        )
        for task in [*sorted({s.task for s in hs}), "all"]:
            h = [s for s in hs if task in ("all", s.task)]
            hc = cell(h)
            row: list[Any] = [task, hc.n, hc]
            for m in names:
                mc = cell([s for s in ms if s.model == m and task in ("all", s.task)])
                gap = hc.acc - mc.acc
                row += [mc, "—" if math.isnan(gap) else f"{100 * gap:+.1f}"]
            t.rows.append(row)
        out.append(t)
    return out


def hard_items(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Items (rows of the suite) that fewer than half of their answers got right, worst first."""
    out = []
    for uid, rs in group_rows(rows, "uid").items():
        n, right = len(rs), sum(bool(r["correct"]) for r in rs)
        if n >= MIN_ANSWERS and right / n < HARD_SHARE:
            given = Counter(str(r["answer"]) for r in rs).most_common()
            out.append(
                {
                    "uid": uid,
                    "task": rs[0]["task"],
                    "answers": n,
                    "right": right,
                    "gold": rs[0]["gold"],
                    "given": given,
                    "conditions": sorted({r["condition"] for r in rs}),
                }
            )
    return sorted(out, key=lambda x: (x["right"] / x["answers"], -x["answers"], x["uid"]))


def group_rows(rows: Iterable[dict[str, Any]], key: str) -> dict[Any, list[dict[str, Any]]]:
    out: dict[Any, list[dict[str, Any]]] = {}
    for r in rows:
        out.setdefault(r[key], []).append(r)
    return out


def hard_table(items: list[dict[str, Any]], study: Study, out_dir: Path) -> Table:
    t = Table(
        "Items most participants got wrong (check them: they may be flawed)",
        ["item", "task", "answers", "right", "gold", "most given answer", "picture"],
        note="Items with at least two answers of which fewer than half are right. The picture column is the "
        "input image's path relative to the report folder; the HTML report shows each item.",
    )
    for it in items:
        t.rows.append(
            [
                it["uid"],
                it["task"],
                it["answers"],
                it["right"],
                it["gold"],
                it["given"][0][0],
                _relpath(study, study.instance(it["uid"]).image, out_dir),
            ]
        )
    return t


def _relpath(study: Study, rel: str, out_dir: Path) -> str:
    return os.path.relpath(study.suite.image_path(rel), out_dir.resolve())


# ------------------------------------------------------------------------------------------------- section


def _thumb(study: Study, rel: str) -> str:
    try:
        return thumbnail_data_uri(study.suite.load_image(rel), THUMB, mode="RGB", optimize=True)
    except Exception:  # a missing picture must not sink the report; the item says so instead
        return ""


def section_html(study: Study, rows: list[dict[str, Any]], items: list[dict[str, Any]], out_dir: Path) -> str:
    """The report's human-study section: what the study is, and every item most people got wrong, each with
    its picture, question, gold answer and the answers given (the tables are with the other results)."""
    e = escape
    plan = study.plan
    people = sorted({r["participant"] for r in rows})
    assigned = len(study.store.all_jobs())
    parts = [
        '<h2 id="human">Human baseline</h2>',
        f"<p>Study <b>{e(study.name)}</b> on suite <b>{e(plan.suite_name)}</b> (content hash "
        f"<code>{e(plan.suite_hash[:16])}</code>): {len(people)} of {len(plan.participants)} participants "
        f"answered {len(rows)} of {assigned} assigned items ({len(plan.problems)} problems, {plan.k} "
        f"answer(s) per problem and condition, condition(s) {e(', '.join(plan.conditions))}, seed "
        f"{plan.seed}). Answers are graded by vcot's grader as a model's answer tag would be. The study's "
        'tables are with the results above, their titles starting with "Human" (accuracy, gap to each '
        'model, time, agreement, participants) and "Items most participants got wrong".</p>',
    ]
    if not items:
        parts.append(
            '<p id="human-hard-none">No item was answered wrongly by most of its participants '
            f"(items need at least {MIN_ANSWERS} answers to be judged).</p>"
        )
        return "\n".join(parts)
    parts.append(
        f'<h3>Items most participants got wrong ({len(items)})</h3><ol id="human-hard">'
        + "".join(
            f'<li><a href="#human-item-{e(it["uid"])}">{e(it["uid"])}</a> · {e(it["task"])} · '
            f"{it['right']}/{it['answers']} right</li>"
            for it in items
        )
        + "</ol>"
    )
    for it in items:
        inst = study.instance(it["uid"])
        src = _thumb(study, inst.image)
        img = f'<img class="thumb" alt="input image" src="{src}">' if src else '<p class="note">picture unavailable</p>'
        opts = ('<ol type="A">' + "".join(f"<li>{e(o)}</li>" for o in inst.options) + "</ol>") if inst.options else ""
        given = ", ".join(f"<code>{e(a)}</code> ×{n}" for a, n in it["given"])
        parts.append(
            f'<details class="inst" id="human-item-{e(it["uid"])}" open><summary><b>{e(it["uid"])}</b> · '
            f"{e(it['task'])} · gold <code>{e(it['gold'])}</code> · {it['right']}/{it['answers']} right</summary>"
            f"<pre>{e(inst.question)}</pre>{opts}{img}"
            f"<p>Answers given: {given} (condition(s) {e(', '.join(it['conditions']))}). "
            f'<a href="{e(_relpath(study, inst.image, out_dir))}">open the picture</a></p></details>'
        )
    return "\n".join(parts)


def human_section(study: Study) -> Callable[[list[dict[str, Any]], list[Sample], Path], ReportSection]:
    """The builder `analysis.build_report.build_report(sections=[...])` calls with the runs' scored rows,
    their samples and the report folder."""

    def build(model_rows: list[dict[str, Any]], model_samples: list[Sample], out_dir: Path) -> ReportSection:
        rows = study_rows(study)
        if not rows:
            raise ValueError(f"{study.root}: the study has no answers yet")
        instances = {u: study.instance(u) for u in study.plan.uids}
        human = to_samples(rows, instances)
        difficulty_of = {pair_key(r, instances.get(r["uid"])): r["difficulty"] for r in rows}
        same_suite = {
            str(r.get("run_id", "")) for r in model_rows if r.get("suite_hash") in (None, "", study.plan.suite_hash)
        }
        models = [s for s in model_samples if s.run_id in same_suite]
        items = hard_items(rows)
        acc = accuracy_table(human, difficulty_of)
        gaps = gap_tables(human, models)
        tables = [
            acc,
            *gaps,
            time_table(rows),
            agreement_table(human),
            participant_table(human, rows, study.plan.participants),
            hard_table(items, study, out_dir),
        ]
        return ReportSection(tables, section_html(study, rows, items, out_dir), [acc, *gaps])

    return build
