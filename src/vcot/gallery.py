"""A self-contained HTML gallery of a suite: question, input image, steps with texts, answer."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from vcot.html import escape, page, thumbnail_data_uri
from vcot.suite import Suite

THUMB_MAX_SIDE = 512

_CSS = """
body{font-family:system-ui,sans-serif;margin:1.5em;background:#fafafa;color:#222}
h1{font-size:1.4em} h2{font-size:1.1em;margin:.2em 0}
nav a{margin-right:.8em}
.inst{background:#fff;border:1px solid #ddd;border-radius:6px;padding:1em;margin:1em 0}
.meta{color:#666;font-size:.85em}
.row{display:flex;flex-wrap:wrap;gap:12px;align-items:flex-start}
figure{margin:0;max-width:520px} figcaption{font-size:.85em;white-space:pre-wrap}
img{max-width:100%;border:1px solid #ccc}
.q{white-space:pre-wrap} .ans{font-weight:bold;color:#064}
details{margin-top:.5em}
"""


def _figure(suite: Suite, rel: str, caption: str) -> str:
    # Every image of the suite is embedded, so encoding speed matters more than file size here.
    uri = thumbnail_data_uri(suite.load_image(rel), THUMB_MAX_SIDE)
    return f'<figure><img src="{uri}" alt="{escape(rel)}"><figcaption>{escape(caption)}</figcaption></figure>'


def render_gallery(suite: Suite, uids: Iterable[str] | None = None, title: str | None = None) -> str:
    chosen = [suite.get(u) for u in uids] if uids is not None else suite.instances
    tasks = sorted({i.task for i in chosen}, key=lambda t: [i.task for i in chosen].index(t))
    parts = [f"<h1>{escape(title or 'Suite ' + suite.name)}</h1>",
             f"<p class='meta'>{len(chosen)} instances · content hash {escape(suite.content_hash)}</p>",
             "<nav>" + "".join(f"<a href='#task-{escape(t)}'>{escape(t)}</a>" for t in tasks) + "</nav>"]
    current = None
    for inst in chosen:
        if inst.task != current:
            current = inst.task
            parts.append(f"<h2 id='task-{escape(inst.task)}'>{escape(inst.task)} ({escape(inst.domain)})</h2>")
        options = ""
        if inst.options:
            options = "<ol type='A'>" + "".join(f"<li>{escape(o)}</li>" for o in inst.options) + "</ol>"
        figs = [_figure(suite, inst.image, "input")]
        figs += [_figure(suite, s.image, f"step {k}: {s.text}") for k, s in enumerate(inst.steps, 1)]
        corrupted = ""
        if inst.corrupted_steps:
            cfigs = [_figure(suite, s.image, f"corrupted {k}: {s.text}") for k, s in enumerate(inst.corrupted_steps, 1)]
            note = escape(str(inst.meta.get("corruption", "")))
            corrupted = (f"<details><summary>corrupted trajectory — {note}</summary>"
                         f"<div class='row'>{''.join(cfigs)}</div></details>")
        parts.append(
            f"<div class='inst' id='{escape(inst.uid)}'><div class='meta'>{escape(inst.uid)} · {escape(inst.answer_type)}</div>"
            f"<p class='q'>{escape(inst.question)}</p>{options}"
            f"<div class='row'>{''.join(figs)}</div>"
            f"<p>Answer: <span class='ans'>{escape(inst.answer)}</span></p>{corrupted}</div>"
        )
    # No lang, viewport or policy: the gallery's head is kept as it has always been; adding them is a
    # visible change of its own.
    return page(title or suite.name, "\n".join(parts), css=_CSS, lang=None, viewport=False)


def write_gallery(suite: Suite, out: str | Path, uids: Iterable[str] | None = None) -> Path:
    path = Path(out)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_gallery(suite, uids), encoding="utf-8")
    return path
