"""Freeze: approved items become a versioned vcot suite whose manifest and instances record provenance and every
stage's decision, plus a curation report (Markdown + HTML) with counts per stage and category, removal reasons,
examples and the cost of the model calls (docs/curation.md, "Stages")."""

from __future__ import annotations

import datetime as _dt
from collections import Counter
from pathlib import Path
from typing import Any

from PIL import Image

from vcot.curate.categories import MIRA_DOMAINS, level_of
from vcot.curate.checks import edit_problem
from vcot.html import NONE, content_security_policy, escape, page
from vcot.schema import AnswerType, Instance
from vcot.suite import write_suite
from vcot.tasks.base import Sample

DECISION_STAGES = ("sample", "filter", "rewrite", "qc", "review")
REPORT_MD = "curation_report.md"
REPORT_HTML = "curation_report.html"


class FreezeError(ValueError):
    """Nothing to freeze, or the freeze would be ambiguous."""


def _edited(inst: Instance, review: dict[str, Any] | None) -> Instance:
    if not review or review["verdict"] != "edited":
        return inst
    d = review["details"]
    question, answer = d.get("question"), d.get("answer")
    if not isinstance(question, str) or not isinstance(answer, str):
        raise FreezeError(
            f"review edit of {inst.uid!r}: the stored edit has no question and answer text; edit it "
            "again in `vcot curate review`"
        )
    problem = edit_problem(question, answer)
    if problem:
        # The store may have been written by an older vcot, or by hand: what the review page refuses is
        # refused here too rather than frozen into a suite.
        raise FreezeError(f"review edit of {inst.uid!r}: {problem}; edit it again in `vcot curate review`")
    atype = inst.answer_type
    if atype == AnswerType.CHOICE and d["answer"] not in [chr(65 + i) for i in range(len(inst.options or []))]:
        atype = AnswerType.TEXT  # a reviewer who writes the answer out turns the item into a free-form one
    options = inst.options if atype == AnswerType.CHOICE else None
    meta = {k: v for k, v in inst.meta.items() if k != "scene"}
    return inst.model_copy(
        update={
            "question": d["question"],
            "answer": d["answer"],
            "answer_type": atype,
            "options": options,
            "meta": meta,
        }
    )


def freeze(curation: Any, out: str | Path, version: int = 1, auto_approve: bool = False) -> dict[str, Any]:
    """Write the approved items as suite `<name>-v<version>` in `out`; returns the manifest.

    Without `auto_approve`, only items a reviewer approved or edited go in; with it, unreviewed survivors
    count as approved (the review stage skipped on purpose, recorded as such).
    """
    store = curation.store
    suite = curation.candidates()
    name = f"{curation.cfg.name}-v{version}"
    reviews = store.decisions("review")
    samples: list[Sample] = []
    for inst, cat in curation.survivors():
        review = reviews.get(inst.uid)
        if review is None and auto_approve:
            review = {"verdict": "approved", "reason": "auto-approved (no review)", "details": {}}
        if review is None or review["verdict"] not in ("approved", "edited"):
            continue
        final = _edited(inst, review)
        decisions = {s: _brief(store.decision(s, inst.uid)) for s in DECISION_STAGES}
        decisions["review"] = _brief(review)
        meta = dict(final.meta)
        filt = store.decision("filter", inst.uid)
        if filt and filt["details"].get("caption"):
            meta["caption"] = filt["details"]["caption"]  # caption_only then replays the filter's evidence
        meta["curation"] = {"suite": name, "category": cat, "level": level_of(cat), "decisions": decisions}
        rel = f"images/{final.task}/{final.uid}.png"
        image = Image.open(suite.image_path(inst.image)).convert("RGB")
        # MIRA items keep their domain (MIRA's tables group by it); others take their See2Think level.
        domain = final.domain if cat in MIRA_DOMAINS else level_of(cat)
        samples.append(Sample(final.model_copy(update={"image": rel, "meta": meta, "domain": domain}), {rel: image}))
    if not samples:
        raise FreezeError("no approved items to freeze: review them (vcot curate review) or pass --auto-approve")
    counts = stage_counts(curation)
    counts["frozen"] = len(samples)
    extra = {
        "curation": {
            "version": version,
            "frozen_at": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
            "candidates_hash": suite.content_hash,
            "auto_approve": auto_approve,
            "sources": [s.__dict__ for s in curation.cfg.sources],
            "counts": counts,
            "filter": curation.cfg.filter.__dict__,
            "models": {r: m.identity() for r, m in curation.cfg.models.items()},
        }
    }
    manifest = write_suite(out, name, samples, extra=extra)
    write_report(curation, Path(out), name, counts, [s.instance for s in samples])
    return manifest


def _brief(d: dict[str, Any] | None) -> dict[str, str] | None:
    return None if d is None else {"verdict": d["verdict"], "reason": d["reason"]}


def stage_counts(curation: Any) -> dict[str, Any]:
    store = curation.store
    out: dict[str, Any] = {"candidates": len(curation.candidates())}
    for stage in DECISION_STAGES:
        out[stage] = dict(sorted(Counter(d["verdict"] for d in store.decisions(stage).values()).items()))
    return out


def _per_category(curation: Any) -> dict[str, Counter[str]]:
    store = curation.store
    table: dict[str, Counter[str]] = {}
    for uid, d in store.decisions("sample").items():
        if d["verdict"] != "chosen":
            continue
        c = table.setdefault(d["details"]["category"], Counter())
        c["chosen"] += 1
        for stage in ("filter", "rewrite", "qc", "review"):
            s = store.decision(stage, uid)
            if s is not None:
                c[f"{stage}:{s['verdict']}"] += 1
    return table


def _reasons(curation: Any) -> list[tuple[str, str, int, list[str]]]:
    """(stage, reason kind, count, example uids) of every removal or rejection."""
    out = []
    for stage in ("sample", "filter", "rewrite", "qc", "review"):
        groups: dict[str, list[str]] = {}
        for uid, d in curation.store.decisions(stage).items():
            if d["verdict"] in ("removed", "rejected", "left_out"):
                groups.setdefault(d["reason"].split(":")[0], []).append(uid)
        out += [(stage, k, len(v), v[:3]) for k, v in sorted(groups.items())]
    return out


def write_report(curation: Any, out: Path, name: str, counts: dict[str, Any], frozen: list[Instance]) -> None:
    per_cat = _per_category(curation)
    reasons = _reasons(curation)
    usage = curation.store.usage()
    cols = [
        "chosen",
        "filter:kept",
        "filter:removed",
        "rewrite:rewritten",
        "rewrite:unchanged",
        "rewrite:rejected",
        "qc:passed",
        "qc:flagged",
        "qc:removed",
        "review:approved",
        "review:edited",
        "review:removed",
    ]
    frozen_by_cat = Counter(i.meta["curation"]["category"] for i in frozen)
    md = [
        f"# Curation report: {name}",
        "",
        f"{counts['candidates']} candidates → {counts['frozen']} frozen items.",
        "",
        "## Counts per stage",
        "",
        "| stage | verdicts |",
        "|---|---|",
    ]
    md += [f"| {s} | {', '.join(f'{k} {v}' for k, v in counts[s].items()) or '—'} |" for s in DECISION_STAGES]
    md += [
        "",
        "## Per category",
        "",
        "| category | level | " + " | ".join(cols) + " | frozen |",
        "|" + "---|" * (len(cols) + 3),
    ]
    md += [
        f"| {c} | {level_of(c)} | "
        + " | ".join(str(per_cat[c].get(k, 0)) for k in cols)
        + f" | {frozen_by_cat.get(c, 0)} |"
        for c in sorted(per_cat)
    ]
    md += ["", "## Removal reasons", "", "| stage | reason | items | examples |", "|---|---|---|---|"]
    md += [f"| {s} | {_md(k)} | {n} | {', '.join(_md(u) for u in ex)} |" for s, k, n, ex in reasons]
    md += ["", "## Examples of removed items", ""]
    by_uid = {i.uid: i for i in curation.candidates().instances}
    for s, k, _, ex in reasons[:6]:
        for uid in ex[:1]:
            md.append(
                f"- **{s}** ({_md(k)}): `{_md(uid)}` — {_md(by_uid[uid].question[:200]) if uid in by_uid else ''}"
            )
    md += [
        "",
        "## Model calls (cost)",
        "",
        "| stage/role | calls | input tokens | output tokens | seconds |",
        "|---|---|---|---|---|",
    ]
    md += [
        f"| {k} | {v['calls']} | {v['input_tokens']} | {v['output_tokens']} | {v['latency_s']:.1f} |"
        for k, v in usage.items()
    ]
    (out / REPORT_MD).write_text("\n".join(md) + "\n", encoding="utf-8")
    (out / REPORT_HTML).write_text(_html(name, md), encoding="utf-8")


def _md(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _html(title: str, md: list[str]) -> str:
    """The Markdown report as a page: headings, tables and lines, every text escaped."""
    body, table = [], False
    for line in md:
        if line.startswith("|"):
            cells = [c.strip().replace("\\|", "|") for c in line.strip("|").split(" | ")]
            if set("".join(cells)) <= set("-|"):
                continue
            body.append(
                ("<table>" if not table else "") + "<tr>" + "".join(f"<td>{escape(c)}</td>" for c in cells) + "</tr>"
            )
            table = True
            continue
        if table:
            body.append("</table>")
            table = False
        if line.startswith("#"):
            level = len(line) - len(line.lstrip("#"))
            body.append(f"<h{level}>{escape(line.lstrip('#').strip())}</h{level}>")
        elif line:
            body.append(f"<p>{escape(line)}</p>")
    if table:
        body.append("</table>")
    css = "body{font-family:system-ui,sans-serif;margin:2rem} td{border:1px solid #ddd;padding:.2rem .4rem}"
    return page(title, "".join(body), css=css, csp=content_security_policy(img_src=NONE))
