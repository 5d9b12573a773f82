"""The study's pages as HTML strings, and the one script they load.

A page shows what a model is shown under the same condition and nothing more: the picture, the question,
the options, and — under `visual_cot` or `text_state_cot` only — the step pictures or the step texts. It
never shows the uid, the task, the gold answer, `meta`, the corrupted steps or whether an answer was right
(`tests/human/test_app.py` scans every served page for them). Suite text is escaped like model output.

The script (`TIMING_JS`, served as /static/timing.js so the policy can stay `script-src 'self'`) only
measures how long the page was visible; everything works without it, and the answer is then stored with
its raw time (docs/human.md, "Time on item").
"""

from __future__ import annotations

from http import HTTPStatus
from urllib.parse import quote

from vcot.conditions import REGISTRY
from vcot.html import escape, page
from vcot.human.answers import MAX_ANSWER, hint
from vcot.schema import AnswerType, Instance, option_letters

TIMING_PATH = "/static/timing.js"
MAX_PARTICIPANT = 40
ZOOMS = (("fit", ""), ("100", "1"), ("150", "1.5"), ("200", "2"), ("300", "3"))
DEFAULT_ZOOM = "100"

CSS = """
body{font-family:system-ui,sans-serif;margin:0 auto;max-width:1200px;padding:1rem 1.5rem;color:#222;line-height:1.45}
h1{font-size:1.35rem}h2{font-size:1.1rem;margin-top:1.4rem}
header{display:flex;justify-content:space-between;color:#555;border-bottom:1px solid #ddd;padding-bottom:.4rem}
.question{white-space:pre-wrap;font-size:1.08rem;background:#f6f7f9;padding:.7rem;border-radius:4px}
.viewer{overflow:auto;max-height:85vh;border:1px solid #bbb;margin-top:.4rem;background:#fff}
.viewer img{display:block;width:var(--w);max-width:none;height:auto}
#zoom-fit:checked~.viewer img{width:auto;max-width:100%}
#zoom-150:checked~.viewer img{width:calc(var(--w)*1.5)}
#zoom-200:checked~.viewer img{width:calc(var(--w)*2)}
#zoom-300:checked~.viewer img{width:calc(var(--w)*3)}
.zoomable{margin-top:.8rem}.zoomable label{margin-right:.7rem}.zoomable a{margin-left:.5rem}
.steps{display:flex;flex-wrap:wrap;gap:1rem}.step{max-width:100%}.step img{max-width:100%;border:1px solid #ccc}
.steptexts li{margin:.3rem 0}
form{background:#eef3fa;padding:1rem;border-radius:6px;margin-top:1.2rem}
.options{display:flex;flex-wrap:wrap;gap:.6rem}
button{font-size:1.05rem;padding:.5rem 1.2rem;cursor:pointer}
button.option{min-width:4rem;text-align:left}
input[type=text],input[type=number],input[type=time]{font-size:1.1rem;padding:.3rem;min-width:12rem}
.muted{color:#666;font-size:.9rem}.err{color:#a22;font-weight:600}
"""

# Counts the time this page is visible (not the time its tab is hidden) and reports it: with the answer, and
# in between (tab hidden, page left, every 10 s) so that a view closed without answering still counts.
TIMING_JS = """\
(function () {
  "use strict";
  var form = document.getElementById("answer-form");
  if (!form || !window.performance) { return; }
  var visibleMs = 0;
  var since = document.visibilityState === "hidden" ? null : performance.now();
  function total() { return Math.round(visibleMs + (since === null ? 0 : performance.now() - since)); }
  function report() {
    if (!navigator.sendBeacon) { return; }
    var body = new URLSearchParams();
    body.set("view", form.elements["view"].value);
    body.set("visible_ms", String(total()));
    navigator.sendBeacon(form.getAttribute("action") + "/seen", body);
  }
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "hidden") {
      if (since !== null) { visibleMs += performance.now() - since; since = null; }
      report();
    } else if (since === null) {
      since = performance.now();
    }
  });
  window.addEventListener("pagehide", report);
  setInterval(function () { if (since !== null) { report(); } }, 10000);
  form.addEventListener("submit", function () {
    form.elements["visible_ms"].value = String(total());
    form.elements["timing"].value = "script";
  });
})();
"""


def _document(title: str, body: str) -> str:
    # No <meta> policy: the server sends it as a header, where frame-ancestors also works.
    return page(title, body, css=CSS)


def start_html(n_participants: int, participant: str = "", message: str = "") -> str:
    err = f'<p class="err" id="message">{escape(message)}</p>' if message else ""
    body = (
        "<h1>Visual reasoning study</h1>"
        "<p>You will be shown pictures with a question each. Answer each question as well as you can; "
        "there is no time limit, but please work on one question at a time and do not look answers up.</p>"
        "<p>You can close the browser at any time: enter your participant id again to continue where you "
        "left off.</p>"
        f'{err}<form method="get" action="/start"><label>Participant id '
        f'<input id="participant" name="participant" required maxlength="{MAX_PARTICIPANT}" '
        f'value="{escape(participant)}" autocomplete="off"></label> '
        '<button type="submit" id="start">Start</button></form>'
        f'<p class="muted">{n_participants} participant id(s) were handed out for this study.</p>'
    )
    return _document("Study", body)


def _zoomable(src: str, width: int, height: int) -> str:
    radios = "".join(
        f'<input type="radio" name="zoom" id="zoom-{name}"{" checked" if name == DEFAULT_ZOOM else ""}>'
        f'<label for="zoom-{name}">{"fit" if name == "fit" else name + "%"}</label>'
        for name, _ in ZOOMS
    )
    # The radios sit outside the form (they are never sent) and before the viewer, whose size CSS sets from
    # the checked one: zoom without a script.
    return (
        f'<div class="zoomable"><span class="muted">Zoom: </span>{radios}'
        f'<a href="{src}" target="_blank" rel="noopener">open the picture alone</a>'
        f'<div class="viewer"><img id="input-image" src="{src}" alt="the picture" width="{width}" '
        f'height="{height}" style="--w:{width}px"></div></div>'
    )


def _steps(inst: Instance, condition: str, base: str) -> str:
    if condition == "visual_cot":
        steps = "".join(
            f'<figure class="step"><figcaption>Step {k}</figcaption><a href="{base}/step/{k}" '
            f'target="_blank" rel="noopener"><img class="step-image" src="{base}/step/{k}" '
            f'alt="step {k}"></a></figure>'
            for k in range(1, len(inst.steps) + 1)
        )
        return f'<h2>Intermediate steps</h2><div class="steps">{steps}</div>'
    if condition == "text_state_cot":
        items = "".join(f'<li class="step-text">{escape(s.text.strip())}</li>' for s in inst.steps)
        return f'<h2>Intermediate steps</h2><ol class="steptexts">{items}</ol>'
    return ""


def yes_no_pair(inst: Instance) -> tuple[str, str] | None:
    """The two words of a yes/no (or true/false) question, by its gold answer's vocabulary (what the grader
    uses to grade it as one: `scoring.grade`); both words are always offered, so the choice shows nothing."""
    if inst.answer_type != AnswerType.TEXT:
        return None
    gold = inst.answer.strip().lower()
    if gold in ("yes", "no"):
        return ("yes", "no")
    if gold in ("true", "false"):
        return ("true", "false")
    return None


def _control(inst: Instance, value: str) -> str:
    at = inst.answer_type
    if at == AnswerType.CHOICE:
        opts = inst.options or []
        letters = option_letters(len(opts))
        bare = [o.strip() for o in opts] == letters  # the options are the picture's own panel letters
        buttons = "".join(
            f'<button type="submit" class="option" name="answer" value="{a}" id="option-{a}">'
            f"<b>{a}</b>{'' if bare else ' ' + escape(o)}</button>"
            for a, o in zip(letters, opts, strict=True)
        )
        return f'<p>Choose one option:</p><div class="options">{buttons}</div>'
    pair = yes_no_pair(inst)
    if pair is not None:
        # A yes/no question answered in a text box invites "Yes." or "y"; two buttons send the grader's words.
        buttons = "".join(
            f'<button type="submit" class="option" name="answer" value="{w}" id="option-{w}">'
            f"<b>{w.capitalize()}</b></button>"
            for w in pair
        )
        return f'<p>Choose one:</p><div class="options">{buttons}</div>'
    if at == AnswerType.INTEGER:
        field = (
            f'<input type="number" step="1" inputmode="numeric" id="answer" name="answer" required '
            f'value="{escape(value)}">'
        )
    elif at == AnswerType.NUMBER:
        field = (
            f'<input type="number" step="any" inputmode="decimal" id="answer" name="answer" required '
            f'value="{escape(value)}">'
        )
    elif at == AnswerType.TIME:
        field = f'<input type="time" id="answer" name="answer" required value="{escape(value)}">'
    else:
        field = (
            f'<input type="text" id="answer" name="answer" required maxlength="{MAX_ANSWER}" '
            f'autocomplete="off" value="{escape(value)}">'
        )
    return (
        f'<p><label for="answer">Your answer</label><br>{field} '
        '<button type="submit" id="submit">Submit and continue</button></p>'
        f'<p class="muted">{escape(hint(at))}</p>'
    )


def item_html(
    participant: str,
    position: int,
    total: int,
    inst: Instance,
    condition: str,
    view: int,
    size: tuple[int, int],
    value: str = "",
    message: str = "",
) -> str:
    """Item `position` of `total` for `participant`, shown under `condition`; `view` numbers this display
    (the page's script reports its visible time under it); `value` and `message` re-show a refused answer."""
    base = f"/p/{quote(participant)}/{position}"
    err = f'<p class="err" id="message">{escape(message)}</p>' if message else ""
    body = (
        f'<header><span id="progress">Item {position} of {total}</span>'
        f'<span>Participant <b id="who">{escape(participant)}</b></span></header>'
        f"<p>{escape(REGISTRY.get(condition).human_instruction)}</p>"
        f'<div class="question" id="question">{escape(inst.question.strip())}</div>'
        f"{_zoomable(base + '/image', *size)}"
        f"{_steps(inst, condition, base)}"
        f'<form id="answer-form" method="post" action="{base}">{err}'
        f'<input type="hidden" name="view" value="{view}">'
        '<input type="hidden" name="visible_ms" value=""><input type="hidden" name="timing" value="">'
        f"{_control(inst, value)}</form>"
        f'<script src="{TIMING_PATH}"></script>'
    )
    return _document(f"Item {position} of {total}", body)


def done_html(participant: str, total: int) -> str:
    body = (
        f'<h1>Thank you, {escape(participant)}</h1><p id="done">All {total} items are answered. You can '
        "close this window.</p>"
    )
    return _document("Done", body)


def error_html(status: int, message: str) -> str:
    return _document(
        f"{status}",
        f"<h1>{status} {escape(HTTPStatus(status).phrase)}</h1>"
        f'<p class="err">{escape(message)}</p><p><a href="/">Start page</a></p>',
    )
