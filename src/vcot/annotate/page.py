"""The annotation pages as HTML strings: index, item (trajectory and score form), agreement, errors.

Pages stay blind: they show a trajectory's question, reference, turns, requested actions and returned
images, never the model, the condition, the corruption applied or whether the answer was right. They
carry no script (the server's policy forbids scripts), and every piece of model text goes through
`escape`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from http import HTTPStatus
from typing import Any
from urllib.parse import quote

from vcot.analysis.see2think import DIMENSIONS
from vcot.annotate.sampling import item_key
from vcot.annotate.store import SCORE_VALUES, Annotation
from vcot.engine.trajectories import Trajectory
from vcot.html import escape, page

# The form's limits; posts are checked against the same ones, since a client need not honour maxlength.
MAX_NOTE = 4000
MAX_ANNOTATOR = 80

DIMENSION_HELP = {
    "ar": ("Action Relevance", "Does the requested operation target visual evidence that is relevant to the question?"),
    "rf": (
        "Render Faithfulness",
        "Does the returned image correctly realise the requested operation (right "
        "place, right shape, nothing else changed)? If nothing was returned, score 0.",
    ),
    "fu": (
        "Feedback Uptake",
        "Does the reasoning after the step use information that is actually present in the returned image?",
    ),
}

CSS = """
body{font-family:system-ui,sans-serif;margin:0 auto;max-width:1100px;padding:1rem 1.5rem;color:#222;line-height:1.4}
h1{font-size:1.4rem}h2{font-size:1.15rem;margin-top:1.6rem}h3{font-size:1rem;margin:.6rem 0}
pre{white-space:pre-wrap;word-break:break-word;background:#f6f6f6;padding:.6rem;border-radius:4px;margin:.3rem 0}
img{max-width:100%;border:1px solid #ccc;image-rendering:pixelated}
.turn{border-left:3px solid #88a;padding-left:.8rem;margin:1rem 0}
.action{display:flex;gap:1rem;flex-wrap:wrap;align-items:flex-start;margin:.5rem 0}
.action pre{flex:1 1 300px}.action .ret{flex:1 1 360px}
.muted{color:#666}.err{color:#a22}
table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.3rem .6rem;text-align:right}
th:first-child,td:first-child{text-align:left}
fieldset{margin:.6rem 0;border:1px solid #bbb}legend{font-weight:600}
label{margin-right:1.2rem}textarea{width:100%;min-height:4rem}
form{background:#f3f6fb;padding:1rem;border-radius:6px;margin-top:1.5rem}
button{font-size:1rem;padding:.4rem 1.2rem}
nav a{margin-right:1rem}
"""


def _document(title: str, body: str) -> str:
    # No <meta> policy: the server sends the policy as a header, where frame-ancestors also works.
    return page(title, body, css=CSS)


def _fmt(v: Any) -> str:
    return "–" if v is None else f"{v:.3f}" if isinstance(v, float) else str(v)


def _score_str(v: float) -> str:
    return next(k for k, x in SCORE_VALUES.items() if x == v)


def _annotator_query(annotator: str) -> str:
    return f"?annotator={quote(annotator)}" if annotator else ""


def index_html(items: Sequence[Trajectory], annotations: Iterable[Annotation], annotator: str) -> str:
    """The sample as a list of numbered items with their status, overall and for `annotator`."""
    done_any: dict[str, int] = {}
    mine: set[str] = set()
    for a in annotations:
        done_any[a.trajectory_id] = done_any.get(a.trajectory_id, 0) + 1
        if a.annotator == annotator:
            mine.add(a.trajectory_id)
    scored = sum(1 for t in items if t.trajectory_id in done_any)
    q = _annotator_query(annotator)
    rows = []
    for i, t in enumerate(items, start=1):
        status = (
            "✓ scored by you"
            if t.trajectory_id in mine
            else (f"{done_any[t.trajectory_id]} annotation(s)" if t.trajectory_id in done_any else "not scored")
        )
        n_actions = sum(len(s.actions) for s in t.steps)
        rows.append(
            f'<tr><td><a href="/t/{item_key(t.trajectory_id)}{q}">Item {i}</a></td>'
            f"<td>{escape(t.task)}</td><td>{len(t.steps)}</td><td>{n_actions}</td>"
            f'<td class="status">{escape(status)}</td></tr>'
        )
    # Annotations made under an earlier sample of the same run are not part of this page's progress.
    in_sample = {t.trajectory_id for t in items}
    mine_line = (
        f'<p id="progress-mine">{len(mine & in_sample)} / {len(items)} scored by {escape(annotator)}.</p>'
        if annotator
        else ""
    )
    body = (
        f'<h1>VAoT trajectory annotation</h1><nav><a href="/agreement">Agreement with the judge</a></nav>'
        f'<p id="progress">{scored} / {len(items)} trajectories scored (by anyone).</p>{mine_line}'
        '<form method="get" action="/"><label>Annotator <input name="annotator" value="'
        f'{escape(annotator)}" maxlength="{MAX_ANNOTATOR}"></label><button>Show my progress</button></form>'
        "<table><thead><tr><th>item</th><th>task</th><th>turns</th><th>actions</th><th>status</th></tr>"
        f"</thead><tbody>{''.join(rows)}</tbody></table>"
    )
    return _document("VAoT annotation", body)


def item_html(
    items: Sequence[Trajectory],
    pos: int,
    annotator: str,
    served_digests: set[str],
    prior: Annotation | None,
    message: str = "",
) -> str:
    """Item `pos` of the sample: question, reference, input image, every turn, final response, score form.

    Returned images are linked only when their digest is in `served_digests` (what the server will send);
    `prior` is `annotator`'s stored score, shown back in the form.
    """
    t = items[pos]
    key = item_key(t.trajectory_id)
    prev = items[pos - 1] if pos > 0 else None
    nxt = items[pos + 1] if pos + 1 < len(items) else None
    q = _annotator_query(annotator)
    nav = [f'<a href="/{q}">Index</a>']
    if prev:
        nav.append(f'<a href="/t/{item_key(prev.trajectory_id)}{q}">← previous</a>')
    if nxt:
        nav.append(f'<a href="/t/{item_key(nxt.trajectory_id)}{q}">next →</a>')
    parts = [f"<nav>{''.join(nav)}</nav><h1>Item {pos + 1} of {len(items)}</h1>"]
    if message:
        parts.append(f'<p class="err">{escape(message)}</p>')
    parts.append(
        f'<h2>Question</h2><pre id="question">{escape(t.question)}</pre>'
        f'<h2>Reference answer</h2><pre id="reference">{escape(t.reference)}</pre>'
        f'<h2>Input image</h2><img id="input-image" src="/input/{key}" alt="input image">'
        "<h2>Trajectory</h2>"
    )
    for step in t.steps:
        turn = [
            f'<div class="turn"><h3>Turn {escape(step.turn)}</h3><div class="muted">Model wrote:</div>'
            f'<pre class="model-text">{escape(step.model_text)}</pre>'
        ]
        for k, act in enumerate(step.actions):
            # Only the requested action: the record's other fields (e.g. `corruption`) would unblind.
            action_json = json.dumps(act.get("action"), sort_keys=True, ensure_ascii=False)
            digest = act.get("returned_image")
            if isinstance(digest, str) and digest in served_digests:
                ret = (
                    f'<div class="ret"><div class="muted">Image returned after action {k}:</div>'
                    f'<img class="returned" src="/img/{digest}.png" alt="returned image {k}"></div>'
                )
            else:
                ret = f'<div class="ret muted">No image was returned after action {k}.</div>'
            turn.append(
                f'<div class="action"><div><div class="muted">Action {k}:</div>'
                f'<pre class="action-json">{escape(action_json)}</pre></div>{ret}</div>'
            )
        if not step.actions:
            turn.append('<div class="muted">No action in this turn.</div>')
        for err in step.errors:
            turn.append(f'<div class="err">Rejected action: {escape(err)}</div>')
        turn.append("</div>")
        parts.append("".join(turn))
    parts.append(f'<h2>Final response</h2><pre id="final-response">{escape(t.final_response)}</pre>')
    parts.append(_form(key, annotator, prior))
    return _document(f"Item {pos + 1}", "".join(parts))


def _form(key: str, annotator: str, prior: Annotation | None) -> str:
    groups = []
    for dim in DIMENSIONS:
        name, help_text = DIMENSION_HELP[dim]
        current = _score_str(getattr(prior, dim)) if prior else None
        radios = "".join(
            f'<label><input type="radio" name="{dim}" id="{dim}-{v.replace(".", "_")}" value="{v}"'
            f"{' checked' if v == current else ''} required> {v}</label>"
            for v in SCORE_VALUES
        )
        groups.append(
            f'<fieldset><legend>{name}</legend><div class="muted">{escape(help_text)}</div>{radios}</fieldset>'
        )
    saved = (
        f'<p class="muted" id="saved">Saved earlier by {escape(annotator)}; submitting again replaces it.</p>'
        if prior
        else ""
    )
    return (
        f'<form method="post" action="/t/{key}"><h2>Your scores</h2>'
        "<p>Choose the single key visual step — the action that matters most for the final reasoning — "
        "and score it.</p>"
        f"{saved}{''.join(groups)}"
        f'<label for="note">Note (optional)</label><textarea id="note" name="note" '
        f'maxlength="{MAX_NOTE}">{escape(prior.note if prior else "")}</textarea>'
        f'<p><label>Annotator <input id="annotator" name="annotator" required maxlength='
        f'"{MAX_ANNOTATOR}" value="{escape(annotator)}"></label>'
        '<button type="submit" id="submit">Save scores</button></p></form>'
    )


def agreement_html(rep: dict[str, Any]) -> str:
    """`rep` from `agreement_report`: one table per judge model and annotator group."""
    parts = [
        '<nav><a href="/">Index</a><a href="/agreement.json">JSON</a></nav>'
        "<h1>Human–judge agreement</h1>"
        f"<p>{rep['n_annotations']} human annotation(s); judge model(s): "
        f"{escape(', '.join(rep['judge_models']) or 'none (no process_scores.jsonl)')}. Strict = same score; "
        "partial = within 0.5.</p>"
    ]
    for tab in rep["tables"]:
        rows = "".join(
            f'<tr data-dim="{escape(r["dimension"])}"><td>{escape(DIMENSION_HELP[r["dimension"]][0])}</td>'
            f'<td class="n">{r["n"]}</td><td class="strict">{_fmt(r["strict"])}</td>'
            f'<td class="partial">{_fmt(r["partial"])}</td></tr>'
            for r in tab["rows"]
        )
        parts.append(
            f"<h2>Judge {escape(tab['judge_model'])} — annotator: {escape(tab['annotator'])}</h2>"
            f'<table class="agreement" data-judge="{escape(tab["judge_model"])}" data-annotator="'
            f'{escape(tab["annotator"])}"><thead><tr><th>dimension</th><th>n</th><th>strict</th>'
            f"<th>partial</th></tr></thead><tbody>{rows}</tbody></table>"
        )
    return _document("Agreement", "".join(parts))


def error_html(status: int, message: str) -> str:
    return _document(
        f"{status}",
        f"<h1>{status} {escape(HTTPStatus(status).phrase)}</h1>"
        f'<p class="err">{escape(message)}</p><p><a href="/">Index</a></p>',
    )
