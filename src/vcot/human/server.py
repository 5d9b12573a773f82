"""The study page over HTTP: routes onto `HumanApp`, with the checks every local vcot page makes
(`vcot.local_site`: loopback Host or access token, same-origin form posts, bounded bodies, security headers).

Routes: `/` start page, `/start?participant=ID`, `/p/ID/` (on to the next item), `/p/ID/N` (item N: GET
shows it, POST answers it), `/p/ID/N/seen` (the timing script's report), `/p/ID/N/image`,
`/p/ID/N/step/K`, `/p/ID/done`, and the script at /static/timing.js.
"""

from __future__ import annotations

import errno
import re
import sqlite3
from urllib.parse import unquote, urlsplit

from vcot.html import NONE, SELF, content_security_policy
from vcot.human.app import HumanApp, Response
from vcot.human.page import TIMING_PATH, error_html
from vcot.local_site import LocalSite, SiteHandler

MAX_BODY = 8 * 1024
# One script, served by this server; `connect-src 'self'` lets it send its timing reports here (default-src
# 'none' would block them, and `vcot.html.content_security_policy` has no such directive).
CSP = (
    content_security_policy(img_src=SELF, script_src=SELF, form_action=SELF, frame_ancestors=NONE)
    + f"; connect-src {SELF}"
)
TOKEN_COOKIE = "vcot_human_token"
_ITEM = re.compile(
    r"/p/([A-Za-z0-9][A-Za-z0-9_.-]{0,39})/(?:(done)|([1-9][0-9]{0,5})(?:/(image|seen|step/([1-9][0-9]{0,2})))?)?/?"
)


class _Handler(SiteHandler):
    server_version = "vcot-human"
    csp = CSP
    token_cookie = TOKEN_COOKIE
    tool_name = "vcot human"

    def error_html(self, status: int, message: str) -> str:
        return error_html(status, message)

    def _answer(self, resp: Response) -> None:
        if resp.location is not None:
            self.redirect(resp.location)
        else:
            self.send_body(resp.status, resp.body, resp.ctype)

    def do_GET(self) -> None:  # noqa: N802 - http.server naming
        app: HumanApp = self.server.app
        if not self.allowed():
            return
        try:
            path, query = self.route()
            m = _ITEM.fullmatch(unquote(path))
            if path == "/":
                self._answer(app.start_page())
            elif path == "/start":
                self._answer(app.start((query.get("participant") or [""])[0][:200]))
            elif path == TIMING_PATH:
                self._answer(app.script())
            elif path == "/favicon.ico":
                self.send_body(204, b"", "image/x-icon")
            elif m is None:
                self.send_error_page(404, "not found")
            elif m.group(2):
                self._answer(app.done_page(m.group(1)))
            elif m.group(3) is None:
                self._answer(app.resume(m.group(1)))
            elif m.group(4) is None:
                self._answer(app.item_page(m.group(1), int(m.group(3))))
            elif m.group(4) == "image":
                self._answer(app.image(m.group(1), int(m.group(3))))
            elif m.group(5):
                self._answer(app.step_image(m.group(1), int(m.group(3)), int(m.group(5))))
            else:
                self.send_error_page(405, "use POST")
        except ValueError as exc:  # e.g. a query string with too many fields
            self.send_error_page(400, str(exc))

    def do_POST(self) -> None:  # noqa: N802 - http.server naming
        app: HumanApp = self.server.app
        if not self.allowed():
            return
        m = _ITEM.fullmatch(unquote(urlsplit(self.path).path))
        if m is None or m.group(3) is None or m.group(4) not in (None, "seen"):
            self.send_error_page(404, "not found")
            return
        body = self.read_form(MAX_BODY)
        if body is None:
            return
        participant, position = m.group(1), int(m.group(3))
        try:
            if m.group(4) == "seen":
                self._answer(app.seen(participant, position, body))
            else:
                self._answer(app.submit(participant, position, body))
        except (OSError, sqlite3.Error) as exc:
            # An error escaping the handler closes the connection without a reply: the participant would see
            # a browser error and not know whether the answer counted. Nothing was stored (one transaction).
            if _disk_full(exc):
                self.send_error_page(
                    507,
                    "The study could not save your answer: the disk of the computer "
                    "running it is full. Nothing was recorded; tell the person running "
                    "the study, and submit again once they have made room.",
                )
            else:
                self.send_error_page(
                    500,
                    f"The study could not save your answer ({exc}). Nothing was "
                    "recorded; tell the person running the study.",
                )


def _disk_full(exc: BaseException) -> bool:
    if isinstance(exc, OSError):
        return exc.errno == errno.ENOSPC
    return getattr(exc, "sqlite_errorcode", None) == 13 or "disk is full" in str(exc)  # SQLITE_FULL


class StudyServer(LocalSite[HumanApp]):
    """The study page on a background thread: `with StudyServer(app) as srv: srv.url`.

    Bound to a loopback address it answers requests for a loopback host only; bound to any other address
    every request needs the access token that `url` carries.
    """

    handler = _Handler
    thread_name = "vcot-human"
