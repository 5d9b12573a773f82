"""HTML of the review page. Everything from a dataset or a model goes through `escape` (docs/design.md)."""

from __future__ import annotations

from typing import Any

from vcot.html import escape, page

CSS = (
    "body{font-family:system-ui,sans-serif;margin:1.5rem;max-width:70rem} img{max-width:100%;max-height:30rem;"
    "border:1px solid #ccc} table{border-collapse:collapse} td,th{border:1px solid #ddd;padding:.25rem .5rem;"
    "vertical-align:top} .q{white-space:pre-wrap} textarea{width:100%} .removed{color:#a00} "
    ".approved,.edited{color:#070} fieldset{margin:1rem 0}"
)


def index(rows: list[tuple[str, Any, str]]) -> str:
    done = sum(1 for _, _, v in rows if v)
    body = [
        f"<h1>Curation review</h1><p id='progress'>{done} of {len(rows)} items reviewed.</p>",
        "<table><tr><th>item</th><th>category</th><th>question</th><th>review</th></tr>",
    ]
    for key, it, verdict in rows:
        q = it.inst.question
        body.append(
            f"<tr><td><a href='/i/{key}'>{escape(it.inst.uid)}</a></td><td>{escape(it.category)}</td>"
            f"<td>{escape(q[:120] + ('…' if len(q) > 120 else ''))}</td>"
            f"<td class='{escape(verdict)}'>{escape(verdict or '—')}</td></tr>"
        )
    body.append("</table>")
    return page("Curation review", "".join(body), css=CSS)


def _decision(title: str, d: dict[str, Any] | None) -> str:
    if not d:
        return f"<p><b>{escape(title)}:</b> —</p>"
    return f"<p><b>{escape(title)}:</b> {escape(d['verdict'])} — {escape(d['reason'])}</p>"


def item(key: str, it: Any, stages: dict[str, dict[str, Any] | None], nxt: str) -> str:
    inst, orig = it.inst, it.original
    parts = [
        f"<p><a href='/'>all items</a> · <a href='/i/{nxt}'>next</a></p>",
        f"<h1>{escape(inst.uid)}</h1><p>category: {escape(it.category)} · source: "
        f"{escape(orig.meta.get('provenance', {}).get('source', ''))} · original id: "
        f"{escape(orig.meta.get('provenance', {}).get('original_id', ''))}</p>",
        f"<img alt='input image' src='/img/{key}.png'>",
        f"<h2>Question</h2><p class='q' id='question'>{escape(inst.question)}</p>",
    ]
    if inst.options:
        parts.append("<ol type='A'>" + "".join(f"<li>{escape(o)}</li>" for o in inst.options) + "</ol>")
    parts.append(f"<p><b>Answer:</b> <span id='answer'>{escape(inst.answer)}</span></p>")
    if inst.question != orig.question:
        parts.append(
            f"<h2>Original (before the rewrite)</h2><p class='q'>{escape(orig.question)}</p>"
            + ("<ol type='A'>" + "".join(f"<li>{escape(o)}</li>" for o in orig.options or []) + "</ol>")
            + f"<p>Original answer: {escape(orig.answer)}</p>"
        )
    f = stages.get("filter")
    if f:
        det = f["details"]
        trials = "".join(
            f"<tr><td>{t['trial'] + 1}</td><td>{escape(t.get('answer') or '—')}</td>"
            f"<td>{'right' if t['correct'] else 'wrong'}</td></tr>"
            for t in det.get("trials", [])
        )
        parts.append(
            f"<h2>Caption filter</h2>{_decision('verdict', f)}<p><b>Caption:</b></p>"
            f"<p class='q' id='caption'>{escape(det.get('caption', ''))}</p>"
            f"<table><tr><th>trial</th><th>text-only answer</th><th></th></tr>{trials}</table>"
        )
    parts.append(
        "<h2>Automatic checks</h2>"
        + _decision("rewrite", stages.get("rewrite"))
        + _decision("quality control", stages.get("qc"))
        + _decision("review so far", stages.get("review"))
    )
    review = stages.get("review")
    if review and review["verdict"] == "edited":
        d = review["details"]
        parts.append(f"<p id='edited'>Edited question: {escape(d['question'])} · answer: {escape(d['answer'])}</p>")
    parts.append(
        f"<form method='post' action='/i/{key}'><fieldset><legend>Your decision</legend>"
        "<label><input type='radio' name='action' value='approve' checked> approve</label> "
        "<label><input type='radio' name='action' value='edit'> edit</label> "
        "<label><input type='radio' name='action' value='remove'> remove</label>"
        f"<p><label>Question (for an edit)<br><textarea name='question' rows='4'>{escape(inst.question)}</textarea>"
        f"</label></p><p><label>Answer (for an edit) <input name='answer' value='{escape(inst.answer)}'></label></p>"
        "<p><label>Note <input name='note' size='60'></label></p>"
        "<button type='submit' id='submit'>Save and go to the next item</button></fieldset></form>"
    )
    return page(f"Review {inst.uid}", "".join(parts), css=CSS)
