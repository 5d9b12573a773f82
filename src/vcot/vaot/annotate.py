"""Human validation of the process judge: a local web page to score sampled VAoT trajectories.

Annotators score the same three dimensions as the judge (Action Relevance, Render Faithfulness, Feedback
Uptake, each 0 / 0.5 / 1) for one key visual step per trajectory. Scores go to `annotations.sqlite` in the
run folder, one row per (annotator, trajectory); re-submitting replaces the row. Agreement with the judge
(strict = same score, partial = within 0.5) is computed by `vcot.vaot.analysis.agreement`.

Blinding: trajectory ids embed the model and condition, so pages are addressed by an opaque key and never
show the model, the condition, the corruption applied or whether the answer was right. Model text is
untrusted and always escaped; pages carry no script at all and a CSP that forbids it, so an escaping slip
still cannot run code. Nothing is fetched from the network: CSS is inline, images come from this server.
"""

from __future__ import annotations

import dataclasses
import hashlib
import html
import json
import math
import random
import re
import sqlite3
import threading
import time
from collections.abc import Iterable, Sequence
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

import pandas as pd

from vcot.suite import Suite, SuiteError
from vcot.vaot.analysis import DIMENSIONS, agreement
from vcot.vaot.judge import ProcessScore, load_process_scores
from vcot.vaot.trajectory import Trajectory, returned_image_path

ANNOTATIONS_DB = "annotations.sqlite"
SCORES_FILE = "process_scores.jsonl"
# Exact strings accepted from the form: a lenient float parse would let "1e0" or " 1" through and hide
# a broken client.
SCORE_VALUES: dict[str, float] = {"0": 0.0, "0.5": 0.5, "1": 1.0}
MAX_NOTE = 4000
MAX_ANNOTATOR = 80
MAX_BODY = 64 * 1024
_DIGEST_RE = re.compile(r"[0-9a-f]{64}")
_KEY_RE = re.compile(r"[0-9a-f]{16}")
_IMAGE_TYPES = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".webp": "image/webp",
                ".gif": "image/gif"}

DIMENSION_HELP = {
    "ar": ("Action Relevance", "Does the requested operation target visual evidence that is relevant to the "
                               "question?"),
    "rf": ("Render Faithfulness", "Does the returned image correctly realise the requested operation (right "
                                  "place, right shape, nothing else changed)? If nothing was returned, score 0."),
    "fu": ("Feedback Uptake", "Does the reasoning after the step use information that is actually present in "
                              "the returned image?"),
}


# --------------------------------------------------------------------------------------------- judge scores

# ------------------------------------------------------------------------------------------------ sampling

def sample_trajectories(trajectories: Sequence[Trajectory], n: int, seed: int = 0) -> list[Trajectory]:
    """Pick `n` trajectories deterministically, balanced across conditions where the data allows.

    Each condition's trajectories are shuffled by the seed and drawn round-robin, so conditions get equal
    shares until one runs out and the rest is filled from the others. Input order does not matter (ids are
    sorted first). The result is shuffled once more so that annotators do not see conditions in blocks.
    """
    if n <= 0:
        return []
    rng = random.Random(seed)
    by_cond: dict[str, list[Trajectory]] = {}
    for t in sorted(trajectories, key=lambda t: t.trajectory_id):
        by_cond.setdefault(t.condition, []).append(t)
    queues = []
    for cond in sorted(by_cond):
        items = by_cond[cond][:]
        rng.shuffle(items)
        queues.append(items)
    picked: list[Trajectory] = []
    while len(picked) < n and any(queues):
        for q in queues:
            if q and len(picked) < n:
                picked.append(q.pop(0))
    rng.shuffle(picked)
    return picked


def item_key(trajectory_id: str) -> str:
    """Opaque URL key: the id itself would reveal model and condition to the annotator."""
    return hashlib.sha256(trajectory_id.encode("utf-8")).hexdigest()[:16]


# ------------------------------------------------------------------------------------------------- storage

@dataclasses.dataclass
class Annotation:
    annotator: str
    trajectory_id: str
    ar: float
    rf: float
    fu: float
    note: str
    timestamp: float


class AnnotationStore:
    """SQLite table of human scores; a short-lived connection per call keeps it safe across server threads."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        with self._connect() as conn:
            conn.execute("CREATE TABLE IF NOT EXISTS annotations (annotator TEXT NOT NULL, trajectory_id TEXT "
                         "NOT NULL, ar REAL NOT NULL, rf REAL NOT NULL, fu REAL NOT NULL, note TEXT NOT NULL "
                         "DEFAULT '', timestamp REAL NOT NULL, PRIMARY KEY (annotator, trajectory_id))")

    def _connect(self) -> sqlite3.Connection:
        return sqlite3.connect(self.path, timeout=10.0)

    def _query(self, sql: str, args: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        conn = self._connect()
        try:
            return conn.execute(sql, args).fetchall()
        finally:
            conn.close()

    def put(self, annotator: str, trajectory_id: str, ar: float, rf: float, fu: float, note: str = "",
            timestamp: float | None = None) -> None:
        for dim, v in (("ar", ar), ("rf", rf), ("fu", fu)):
            if v not in SCORE_VALUES.values():
                raise ValueError(f"{dim} must be 0, 0.5 or 1, got {v!r}")
        if not annotator.strip():
            raise ValueError("annotator name is empty")
        with self._lock:
            conn = self._connect()
            try:
                with conn:
                    conn.execute(
                        "INSERT INTO annotations VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT(annotator, trajectory_id) "
                        "DO UPDATE SET ar=excluded.ar, rf=excluded.rf, fu=excluded.fu, note=excluded.note, "
                        "timestamp=excluded.timestamp",
                        (annotator, trajectory_id, ar, rf, fu, note, time.time() if timestamp is None else timestamp))
            finally:
                conn.close()

    def get(self, annotator: str, trajectory_id: str) -> Annotation | None:
        rows = self._query("SELECT * FROM annotations WHERE annotator=? AND trajectory_id=?",
                           (annotator, trajectory_id))
        return Annotation(*rows[0]) if rows else None

    def all(self) -> list[Annotation]:
        return [Annotation(*r) for r in self._query("SELECT * FROM annotations ORDER BY annotator, trajectory_id")]

    def frame(self) -> pd.DataFrame:
        rows = [dataclasses.asdict(a) for a in self.all()]
        return pd.DataFrame(rows, columns=[f.name for f in dataclasses.fields(Annotation)])


# ----------------------------------------------------------------------------------------------- agreement

def _nan_to_none(v: Any) -> Any:
    return None if isinstance(v, float) and math.isnan(v) else v


def agreement_report(human: pd.DataFrame, judge_scores: Iterable[ProcessScore]) -> dict[str, Any]:
    """Agreement of human scores with each judge model: all annotators pooled, then per annotator.

    Every (annotator, trajectory) row is compared with the judge's verdict for that trajectory, so with
    several annotators a trajectory counts once per annotator. Failed verdicts (no scores) are left out.
    """
    judged: dict[str, dict[str, ProcessScore]] = {}
    for s in judge_scores:
        if s.error is None and any(getattr(s, d) is not None for d in DIMENSIONS):
            judged.setdefault(s.judge_model, {})[s.trajectory_id] = s  # later lines win (a re-score)
    annotators = sorted(set(human["annotator"])) if len(human) else []
    tables = []
    for model in sorted(judged):
        jdf = pd.DataFrame([{"trajectory_id": s.trajectory_id, **{d: getattr(s, d) for d in DIMENSIONS}}
                            for s in judged[model].values()], columns=["trajectory_id", *DIMENSIONS])
        groups = [("all", human)] + ([(a, human[human["annotator"] == a]) for a in annotators]
                                      if len(annotators) > 1 else [])
        for who, part in groups:
            table = agreement(part[["trajectory_id", *DIMENSIONS]], jdf)
            tables.append({"judge_model": model, "annotator": who,
                           "rows": [{k: _nan_to_none(v) for k, v in r.items()} for r in table.to_dict("records")]})
    return {"n_annotations": int(len(human)), "annotators": annotators, "judge_models": sorted(judged),
            "tables": tables}


# -------------------------------------------------------------------------------------------------- pages

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

_CSP = ("default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; form-action 'self'; base-uri 'none'; "
        "frame-ancestors 'none'")


def _e(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _page(title: str, body: str) -> str:
    return (f"<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{_e(title)}</title>"
            f"<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">"
            f"<style>{CSS}</style></head><body>{body}</body></html>")


def _fmt(v: Any) -> str:
    return "–" if v is None else f"{v:.3f}" if isinstance(v, float) else str(v)


def _score_str(v: float) -> str:
    return next(k for k, x in SCORE_VALUES.items() if x == v)


class AnnotationApp:
    """The state behind the pages: the sampled trajectories, the suite, the store and the judge scores."""

    def __init__(self, run_dir: str | Path, suite: Suite, trajectories: Sequence[Trajectory],
                 judge_scores: Sequence[ProcessScore] | None = None, scores_path: str | Path | None = None) -> None:
        self.run_dir = Path(run_dir)
        self.suite = suite
        self.items = list(trajectories)
        self.by_key = {item_key(t.trajectory_id): t for t in self.items}
        if len(self.by_key) != len(self.items):
            raise ValueError("duplicate trajectory ids in the sample")
        self.order = {t.trajectory_id: i for i, t in enumerate(self.items)}
        # Only images a sampled trajectory references are served: the digest check keeps requests inside the
        # folder, this keeps them inside the sample.
        self.digests = {a["returned_image"] for t in self.items for s in t.steps for a in s.actions
                        if isinstance(a.get("returned_image"), str) and _DIGEST_RE.fullmatch(a["returned_image"])}
        self.store = AnnotationStore(self.run_dir / ANNOTATIONS_DB)
        self._judge_scores = list(judge_scores) if judge_scores is not None else None
        self.scores_path = Path(scores_path) if scores_path else self.run_dir / SCORES_FILE

    def judge_scores(self) -> list[ProcessScore]:
        # Re-read on each request: the judge may be re-run while annotation is under way.
        return self._judge_scores if self._judge_scores is not None else load_process_scores(self.scores_path)

    def agreement(self) -> dict[str, Any]:
        # Every stored annotation counts, also those made under an earlier sample of the same run.
        return agreement_report(self.store.frame(), self.judge_scores())

    # -------------------------------------------------------------------------------------------- pages

    def index_page(self, annotator: str) -> str:
        done_any: dict[str, int] = {}
        mine: set[str] = set()
        for a in self.store.all():
            done_any[a.trajectory_id] = done_any.get(a.trajectory_id, 0) + 1
            if a.annotator == annotator:
                mine.add(a.trajectory_id)
        scored = sum(1 for t in self.items if t.trajectory_id in done_any)
        q = f"?annotator={quote(annotator)}" if annotator else ""
        rows = []
        for i, t in enumerate(self.items, start=1):
            status = "✓ scored by you" if t.trajectory_id in mine else (
                f"{done_any[t.trajectory_id]} annotation(s)" if t.trajectory_id in done_any else "not scored")
            n_actions = sum(len(s.actions) for s in t.steps)
            rows.append(f"<tr><td><a href=\"/t/{item_key(t.trajectory_id)}{q}\">Item {i}</a></td>"
                        f"<td>{_e(t.task)}</td><td>{len(t.steps)}</td><td>{n_actions}</td>"
                        f"<td class=\"status\">{_e(status)}</td></tr>")
        mine_line = (f"<p id=\"progress-mine\">{len(mine & set(self.order))} / {len(self.items)} scored by "
                     f"{_e(annotator)}.</p>" if annotator else "")
        body = (f"<h1>VAoT trajectory annotation</h1><nav><a href=\"/agreement\">Agreement with the judge</a></nav>"
                f"<p id=\"progress\">{scored} / {len(self.items)} trajectories scored (by anyone).</p>{mine_line}"
                "<form method=\"get\" action=\"/\"><label>Annotator <input name=\"annotator\" value=\""
                f"{_e(annotator)}\" maxlength=\"{MAX_ANNOTATOR}\"></label><button>Show my progress</button></form>"
                "<table><thead><tr><th>item</th><th>task</th><th>turns</th><th>actions</th><th>status</th></tr>"
                f"</thead><tbody>{''.join(rows)}</tbody></table>")
        return _page("VAoT annotation", body)

    def item_page(self, key: str, annotator: str, message: str = "") -> str:
        t = self.by_key[key]
        pos = self.order[t.trajectory_id]
        prev = self.items[pos - 1] if pos > 0 else None
        nxt = self.items[pos + 1] if pos + 1 < len(self.items) else None
        q = f"?annotator={quote(annotator)}" if annotator else ""
        nav = [f"<a href=\"/{q}\">Index</a>"]
        if prev:
            nav.append(f"<a href=\"/t/{item_key(prev.trajectory_id)}{q}\">← previous</a>")
        if nxt:
            nav.append(f"<a href=\"/t/{item_key(nxt.trajectory_id)}{q}\">next →</a>")
        parts = [f"<nav>{''.join(nav)}</nav><h1>Item {pos + 1} of {len(self.items)}</h1>"]
        if message:
            parts.append(f"<p class=\"err\">{_e(message)}</p>")
        parts.append(f"<h2>Question</h2><pre id=\"question\">{_e(t.question)}</pre>"
                     f"<h2>Reference answer</h2><pre id=\"reference\">{_e(t.reference)}</pre>"
                     f"<h2>Input image</h2><img id=\"input-image\" src=\"/input/{key}\" alt=\"input image\">"
                     "<h2>Trajectory</h2>")
        for step in t.steps:
            turn = [f"<div class=\"turn\"><h3>Turn {_e(step.turn)}</h3><div class=\"muted\">Model wrote:</div>"
                    f"<pre class=\"model-text\">{_e(step.model_text)}</pre>"]
            for k, act in enumerate(step.actions):
                # Only the requested action: the record's other fields (e.g. `corruption`) would unblind.
                action_json = json.dumps(act.get("action"), sort_keys=True, ensure_ascii=False)
                digest = act.get("returned_image")
                if isinstance(digest, str) and digest in self.digests:
                    ret = (f"<div class=\"ret\"><div class=\"muted\">Image returned after action {k}:</div>"
                           f"<img class=\"returned\" src=\"/img/{digest}.png\" alt=\"returned image {k}\"></div>")
                else:
                    ret = f"<div class=\"ret muted\">No image was returned after action {k}.</div>"
                turn.append(f"<div class=\"action\"><div><div class=\"muted\">Action {k}:</div>"
                            f"<pre class=\"action-json\">{_e(action_json)}</pre></div>{ret}</div>")
            if not step.actions:
                turn.append("<div class=\"muted\">No action in this turn.</div>")
            for err in step.errors:
                turn.append(f"<div class=\"err\">Rejected action: {_e(err)}</div>")
            turn.append("</div>")
            parts.append("".join(turn))
        parts.append(f"<h2>Final response</h2><pre id=\"final-response\">{_e(t.final_response)}</pre>")
        parts.append(self._form(key, t, annotator))
        return _page(f"Item {pos + 1}", "".join(parts))

    def _form(self, key: str, t: Trajectory, annotator: str) -> str:
        prior = self.store.get(annotator, t.trajectory_id) if annotator else None
        groups = []
        for dim in DIMENSIONS:
            name, help_text = DIMENSION_HELP[dim]
            current = _score_str(getattr(prior, dim)) if prior else None
            radios = "".join(
                f"<label><input type=\"radio\" name=\"{dim}\" id=\"{dim}-{v.replace('.', '_')}\" value=\"{v}\""
                f"{' checked' if v == current else ''} required> {v}</label>" for v in SCORE_VALUES)
            groups.append(f"<fieldset><legend>{name}</legend><div class=\"muted\">{_e(help_text)}</div>"
                          f"{radios}</fieldset>")
        saved = (f"<p class=\"muted\" id=\"saved\">Saved earlier by {_e(annotator)}; submitting again replaces "
                 "it.</p>" if prior else "")
        return (f"<form method=\"post\" action=\"/t/{key}\"><h2>Your scores</h2>"
                "<p>Choose the single key visual step — the action that matters most for the final reasoning — "
                "and score it.</p>"
                f"{saved}{''.join(groups)}"
                f"<label for=\"note\">Note (optional)</label><textarea id=\"note\" name=\"note\" "
                f"maxlength=\"{MAX_NOTE}\">{_e(prior.note if prior else '')}</textarea>"
                f"<p><label>Annotator <input id=\"annotator\" name=\"annotator\" required maxlength="
                f"\"{MAX_ANNOTATOR}\" value=\"{_e(annotator)}\"></label>"
                "<button type=\"submit\" id=\"submit\">Save scores</button></p></form>")

    def agreement_page(self) -> str:
        rep = self.agreement()
        parts = ["<nav><a href=\"/\">Index</a><a href=\"/agreement.json\">JSON</a></nav>"
                 "<h1>Human–judge agreement</h1>"
                 f"<p>{rep['n_annotations']} human annotation(s); judge model(s): "
                 f"{_e(', '.join(rep['judge_models']) or 'none (no process_scores.jsonl)')}. Strict = same score; "
                 "partial = within 0.5.</p>"]
        for tab in rep["tables"]:
            rows = "".join(f"<tr data-dim=\"{_e(r['dimension'])}\"><td>{_e(DIMENSION_HELP[r['dimension']][0])}</td>"
                           f"<td class=\"n\">{r['n']}</td><td class=\"strict\">{_fmt(r['strict'])}</td>"
                           f"<td class=\"partial\">{_fmt(r['partial'])}</td></tr>" for r in tab["rows"])
            parts.append(f"<h2>Judge {_e(tab['judge_model'])} — annotator: {_e(tab['annotator'])}</h2>"
                         f"<table class=\"agreement\" data-judge=\"{_e(tab['judge_model'])}\" data-annotator=\""
                         f"{_e(tab['annotator'])}\"><thead><tr><th>dimension</th><th>n</th><th>strict</th>"
                         f"<th>partial</th></tr></thead><tbody>{rows}</tbody></table>")
        return _page("Agreement", "".join(parts))

    # ------------------------------------------------------------------------------------------- submit

    def submit(self, key: str, body: bytes) -> tuple[str, str]:
        """Validate and store a form post; returns (annotator, trajectory_id). Raises ValueError when invalid."""
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError:
            raise ValueError("form body is not UTF-8") from None
        form = parse_qs(text, keep_blank_values=True, strict_parsing=bool(text), max_num_fields=10)
        unknown = set(form) - {"ar", "rf", "fu", "note", "annotator"}
        if unknown:
            raise ValueError(f"unexpected form fields: {', '.join(sorted(unknown))}")
        if any(len(v) != 1 for v in form.values()):
            raise ValueError("each form field must appear once")
        values = {}
        for dim in DIMENSIONS:
            raw = form.get(dim, [None])[0]
            if raw not in SCORE_VALUES:
                raise ValueError(f"{DIMENSION_HELP[dim][0]}: choose 0, 0.5 or 1")
            values[dim] = SCORE_VALUES[raw]
        annotator = form.get("annotator", [""])[0].strip()
        if not annotator or len(annotator) > MAX_ANNOTATOR or not annotator.isprintable():
            raise ValueError(f"annotator name must be 1–{MAX_ANNOTATOR} printable characters")
        note = form.get("note", [""])[0]
        if len(note) > MAX_NOTE:
            raise ValueError(f"note is longer than {MAX_NOTE} characters")
        t = self.by_key[key]
        self.store.put(annotator, t.trajectory_id, values["ar"], values["rf"], values["fu"], note)
        return annotator, t.trajectory_id

    def next_unscored(self, annotator: str, after: str) -> Trajectory | None:
        done = {a.trajectory_id for a in self.store.all() if a.annotator == annotator}
        start = self.order[after] + 1
        for t in self.items[start:] + self.items[:start]:
            if t.trajectory_id not in done:
                return t
        return None

    def input_image(self, key: str) -> tuple[bytes, str]:
        rel = self.by_key[key].input_image
        path = self.suite.image_path(rel)  # raises SuiteError if the stored path leaves the suite folder
        ctype = _IMAGE_TYPES.get(path.suffix.lower())
        if ctype is None or not path.is_file():
            raise FileNotFoundError(rel)
        return path.read_bytes(), ctype

    def returned_image(self, digest: str) -> bytes:
        if not _DIGEST_RE.fullmatch(digest) or digest not in self.digests:
            raise FileNotFoundError(digest)
        path = returned_image_path(self.run_dir, digest)
        if not path.is_file():
            raise FileNotFoundError(digest)
        return path.read_bytes()


# ------------------------------------------------------------------------------------------------- server

class _Handler(BaseHTTPRequestHandler):
    server: _Server
    server_version = "vcot-annotate"
    sys_version = ""

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - signature of the base class
        if self.server.verbose:
            super().log_message(format, *args)

    def _send(self, status: int, body: bytes, ctype: str, extra: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Content-Security-Policy", _CSP)
        self.send_header("X-Content-Type-Options", "nosniff")
        # Not "no-referrer": Chromium then sends `Origin: null` on our own form posts, which the origin check
        # must refuse (a sandboxed foreign frame sends the same).
        self.send_header("Referrer-Policy", "same-origin")
        self.send_header("Cache-Control", "no-store")
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _html(self, status: int, text: str) -> None:
        self._send(status, text.encode("utf-8"), "text/html; charset=utf-8")

    def _error(self, status: int, message: str) -> None:
        self._html(status, _page(f"{status}", f"<h1>{status} {_e(HTTPStatus(status).phrase)}</h1>"
                                             f"<p class=\"err\">{_e(message)}</p><p><a href=\"/\">Index</a></p>"))

    def _route(self) -> tuple[str, dict[str, list[str]]]:
        parts = urlsplit(self.path)
        return parts.path, parse_qs(parts.query, max_num_fields=20)

    def do_HEAD(self) -> None:  # noqa: N802 - http.server naming
        self.do_GET()

    def do_GET(self) -> None:  # noqa: N802 - http.server naming
        app = self.server.app
        try:
            path, query = self._route()
            annotator = (query.get("annotator") or [""])[0].strip()[:MAX_ANNOTATOR]
            if path == "/":
                self._html(200, app.index_page(annotator))
            elif path == "/agreement":
                self._html(200, app.agreement_page())
            elif path == "/agreement.json":
                self._send(200, json.dumps(app.agreement(), indent=2).encode(), "application/json")
            elif path == "/favicon.ico":
                self._send(204, b"", "image/x-icon")
            elif path.startswith("/t/") and _KEY_RE.fullmatch(path[3:]) and path[3:] in app.by_key:
                self._html(200, app.item_page(path[3:], annotator))
            elif path.startswith("/input/") and _KEY_RE.fullmatch(path[7:]) and path[7:] in app.by_key:
                data, ctype = app.input_image(path[7:])
                self._send(200, data, ctype)
            elif path.startswith("/img/") and path.endswith(".png"):
                self._send(200, app.returned_image(path[5:-4]), "image/png")
            else:
                self._error(404, "not found")
        except (FileNotFoundError, SuiteError):
            self._error(404, "not found")
        except ValueError as exc:  # e.g. a query string with too many fields
            self._error(400, str(exc))

    def do_POST(self) -> None:  # noqa: N802 - http.server naming
        app = self.server.app
        path = urlsplit(self.path).path
        key = path[3:] if path.startswith("/t/") else ""
        if not (_KEY_RE.fullmatch(key) and key in app.by_key):
            self._error(404, "not found")
            return
        # A page on another site could post a hidden form to this local server; browsers send Origin.
        origin = self.headers.get("Origin")
        if origin is not None and urlsplit(origin).netloc != self.headers.get("Host", ""):
            self._error(403, "cross-origin form post refused")
            return
        ctype = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        if ctype != "application/x-www-form-urlencoded":
            self._error(400, "expected an application/x-www-form-urlencoded form")
            return
        try:
            length = int(self.headers.get("Content-Length", ""))
        except ValueError:
            self._error(400, "Content-Length required")
            return
        if not 0 <= length <= MAX_BODY:
            self._error(400, "form too large")
            return
        body = self.rfile.read(length)
        try:
            annotator, tid = app.submit(key, body)
        except ValueError as exc:
            self._error(400, str(exc))
            return
        nxt = app.next_unscored(annotator, tid)
        target = f"/t/{item_key(nxt.trajectory_id)}" if nxt else "/"
        self._send(303, b"", "text/plain", {"Location": f"{target}?annotator={quote(annotator)}"})


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, address: tuple[str, int], app: AnnotationApp, verbose: bool = False) -> None:
        self.app = app
        self.verbose = verbose
        super().__init__(address, _Handler)


class AnnotationServer:
    """The annotation site on a background thread: `with AnnotationServer(app) as srv: srv.url`."""

    def __init__(self, app: AnnotationApp, host: str = "127.0.0.1", port: int = 0, verbose: bool = False) -> None:
        self.app = app
        self.httpd = _Server((host, port), app, verbose)
        self.host = host
        self.port = int(self.httpd.server_address[1])
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}/"

    def start(self) -> AnnotationServer:
        self._thread = threading.Thread(target=self.httpd.serve_forever, name="vcot-annotate", daemon=True)
        self._thread.start()
        return self

    def serve_forever(self) -> None:
        self.httpd.serve_forever()

    def close(self) -> None:
        if self._thread is not None:
            self.httpd.shutdown()
            self._thread.join(timeout=5)
        self.httpd.server_close()

    def __enter__(self) -> AnnotationServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

