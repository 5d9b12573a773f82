"""The state behind the study's pages, independent of HTTP: who is asked what, which item comes next, the
checks on every form, the timing, and the images a participant may be sent.

Every method answers with a `Response`; `vcot.human.server` only maps requests onto them. Nothing a
participant sends is trusted: the participant id must be on the study's roster, the item must be theirs and
the next one they have not answered, and numbers are bounded.
"""

from __future__ import annotations

import io
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import parse_qs, quote

from PIL import Image

from vcot.human.answers import AnswerError, check_answer, grade
from vcot.human.assign import Job
from vcot.human.page import TIMING_JS, done_html, error_html, item_html, start_html
from vcot.human.study import PARTICIPANT_RE, Study
from vcot.schema import Instance

HTML = "text/html; charset=utf-8"
_FORM_FIELDS = {"answer", "view", "visible_ms", "timing"}
_MAX_MS = 10**9  # about 11 days: no view lasts longer, and a bound keeps SQLite integers small
_IMAGE_CACHE = 64


@dataclass(frozen=True)
class Response:
    status: int
    body: bytes = b""
    ctype: str = HTML
    location: str | None = None  # set for a redirect (303)

    @classmethod
    def html(cls, status: int, text: str) -> Response:
        return cls(status, text.encode("utf-8"))

    @classmethod
    def redirect(cls, location: str) -> Response:
        return cls(303, b"", "text/plain", location)


@dataclass
class _Images:
    """PNG bytes re-encoded from the decoded pixels (no text chunks of the source file reach the page), with
    their sizes, for the most recently served pictures."""

    load: Callable[[str], Image.Image]
    cache: dict[str, tuple[bytes, tuple[int, int]]] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def get(self, rel: str) -> tuple[bytes, tuple[int, int]]:
        with self.lock:
            hit = self.cache.get(rel)
        if hit is not None:
            return hit
        img = self.load(rel)
        buf = io.BytesIO()
        img.save(buf, format="PNG")
        entry = (buf.getvalue(), img.size)
        with self.lock:
            if len(self.cache) >= _IMAGE_CACHE:
                self.cache.pop(next(iter(self.cache)))
            self.cache[rel] = entry
        return entry


def _int_field(raw: str, name: str) -> int | None:
    if raw == "":
        return None
    if not raw.isdigit() or len(raw) > 10 or int(raw) > _MAX_MS:
        raise ValueError(f"form field {name} must be a whole number of at most {_MAX_MS}")
    return int(raw)


class HumanApp:
    """Pages and form handling for one open study; `clock` is injectable so tests can control time."""

    def __init__(self, study: Study, clock: Callable[[], float] = time.time) -> None:
        self.study = study
        self.clock = clock
        self.roster = set(study.plan.participants)
        self._jobs: dict[str, list[Job]] = {}
        self._images = _Images(study.suite.load_image)

    # ----------------------------------------------------------------------------------------- helpers

    def jobs(self, participant: str) -> list[Job]:
        if participant not in self._jobs:
            self._jobs[participant] = self.study.jobs(participant)
        return self._jobs[participant]

    def known(self, participant: str) -> bool:
        return bool(PARTICIPANT_RE.fullmatch(participant)) and participant in self.roster

    def next_position(self, participant: str) -> int | None:
        done = self.study.store.answered(participant)
        return next((j.position for j in self.jobs(participant) if j.position not in done), None)

    def _base(self, participant: str) -> str:
        return f"/p/{quote(participant)}"

    def _job(self, participant: str, position: int) -> Job | None:
        jobs = self.jobs(participant)
        return jobs[position - 1] if 1 <= position <= len(jobs) else None

    def _unknown(self, participant: str) -> Response:
        return Response.html(
            404,
            start_html(
                len(self.roster),
                participant,
                (
                    f"The participant id {participant!r} is not part of this study. Check the id you were given (it is "
                    "case-sensitive); nothing was recorded."
                ),
            ),
        )

    # ------------------------------------------------------------------------------------------- pages

    def start_page(self) -> Response:
        return Response.html(200, start_html(len(self.roster)))

    def start(self, participant: str) -> Response:
        participant = participant.strip()
        if not self.known(participant):
            return self._unknown(participant)
        return Response.redirect(self._base(participant) + "/")

    def resume(self, participant: str) -> Response:
        """The participant's next unanswered item, or the closing page."""
        if not self.known(participant):
            return self._unknown(participant)
        nxt = self.next_position(participant)
        return Response.redirect(f"{self._base(participant)}/{nxt}" if nxt else f"{self._base(participant)}/done")

    def item_page(self, participant: str, position: int) -> Response:
        if not self.known(participant):
            return self._unknown(participant)
        nxt = self.next_position(participant)
        if position != nxt:
            # Items come in the participant's order, one at a time: an answered or later item sends them to
            # the one that is due, so no item is shown before its turn (its time would start too early).
            return self.resume(participant)
        return self._render(participant, position)

    def _render(
        self, participant: str, position: int, value: str = "", message: str = "", status: int = 200
    ) -> Response:
        job = self._job(participant, position)
        assert job is not None
        inst = self.study.instance(job.uid)
        _, size = self._images.get(inst.image)
        view = self.study.store.open_view(participant, position, self.clock())
        return Response.html(
            status,
            item_html(
                participant, position, len(self.jobs(participant)), inst, job.condition, view, size, value, message
            ),
        )

    def done_page(self, participant: str) -> Response:
        if not self.known(participant):
            return self._unknown(participant)
        if self.next_position(participant) is not None:
            return self.resume(participant)
        return Response.html(200, done_html(participant, len(self.jobs(participant))))

    # ------------------------------------------------------------------------------------------- forms

    @staticmethod
    def _form(body: bytes, allowed: set[str]) -> dict[str, str]:
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError:
            raise ValueError("form body is not UTF-8") from None
        form = parse_qs(text, keep_blank_values=True, strict_parsing=bool(text), max_num_fields=10)
        unknown = set(form) - allowed
        if unknown:
            raise ValueError(f"unexpected form fields: {', '.join(sorted(unknown))}")
        if any(len(v) != 1 for v in form.values()):
            raise ValueError("each form field must appear once")
        return {k: v[0] for k, v in form.items()}

    def submit(self, participant: str, position: int, body: bytes) -> Response:
        """Store an answer (once) and send the participant on; a refused answer re-shows the item with the
        reason and what was typed. A second submission of an answered item is ignored."""
        if not self.known(participant):
            return self._unknown(participant)
        job = self._job(participant, position)
        if job is None:
            return Response.html(404, error_html(404, "no such item for this participant"))
        try:
            form = self._form(body, _FORM_FIELDS)
            view = _int_field(form.get("view", ""), "view")
            visible = _int_field(form.get("visible_ms", ""), "visible_ms")
            if form.get("timing", "") not in ("", "script"):
                raise ValueError("form field timing must be empty or 'script'")
        except ValueError as exc:
            return Response.html(400, error_html(400, str(exc)))
        if self.study.store.answer(participant, position) is not None:
            return self.resume(participant)  # a double submit: the first answer stands
        if position != self.next_position(participant):
            return self.resume(participant)
        inst = self.study.instance(job.uid)
        raw = form.get("answer", "")
        now = self.clock()
        try:
            answer = check_answer(inst, raw)
        except AnswerError as exc:
            if view is not None and visible is not None:
                self.study.store.report_view(participant, position, view, visible, now)
            self.study.store.reject(participant, position, raw, str(exc), now)
            return self._render(participant, position, raw, str(exc), status=400)
        score = grade(inst, answer)
        script = form.get("timing") == "script" and visible is not None
        try:
            self.study.store.submit(job, answer, now, view, visible if script else None, score.extracted, score.correct)
        except ValueError as exc:
            return Response.html(400, error_html(400, str(exc)))
        return self.resume(participant)

    def seen(self, participant: str, position: int, body: bytes) -> Response:
        """The page's report of its visible time (a beacon); answered with 204 and no body."""
        if not self.known(participant) or self._job(participant, position) is None:
            return Response.html(404, error_html(404, "no such item for this participant"))
        try:
            form = self._form(body, {"view", "visible_ms"})
            view = _int_field(form.get("view", ""), "view")
            visible = _int_field(form.get("visible_ms", ""), "visible_ms")
        except ValueError as exc:
            return Response.html(400, error_html(400, str(exc)))
        if view is None or visible is None:
            return Response.html(400, error_html(400, "view and visible_ms are required"))
        self.study.store.report_view(participant, position, view, visible, self.clock())
        return Response(204, b"", "text/plain")

    # ------------------------------------------------------------------------------------------ assets

    def _current(self, participant: str, position: int) -> tuple[Job, Instance] | None:
        """The participant's item at `position` if they have reached it (images of later items stay unsent)."""
        if not self.known(participant):
            return None
        job = self._job(participant, position)
        nxt = self.next_position(participant)
        if job is None or (nxt is not None and position > nxt):
            return None
        return job, self.study.instance(job.uid)

    def image(self, participant: str, position: int) -> Response:
        found = self._current(participant, position)
        if found is None:
            return Response.html(404, error_html(404, "not found"))
        return Response(200, self._images.get(found[1].image)[0], "image/png")

    def step_image(self, participant: str, position: int, k: int) -> Response:
        found = self._current(participant, position)
        # Step pictures exist for a participant only under the condition that shows them.
        if found is None or found[0].condition != "visual_cot" or not 1 <= k <= len(found[1].steps):
            return Response.html(404, error_html(404, "not found"))
        return Response(200, self._images.get(found[1].steps[k - 1].image)[0], "image/png")

    @staticmethod
    def script() -> Response:
        return Response(200, TIMING_JS.encode("utf-8"), "text/javascript; charset=utf-8")
