"""The annotation site over HTTP: routing, request checks and the security headers on every response.

Meant to run on the annotator's own machine; it still treats every request as hostile, because any web page
the annotator opens could send requests to it.
"""

from __future__ import annotations

import json
import re
from urllib.parse import quote, urlsplit

from vcot.annotate.app import AnnotationApp
from vcot.annotate.page import MAX_ANNOTATOR, error_html
from vcot.annotate.sampling import item_key
from vcot.html import NONE, SELF, content_security_policy
from vcot.local_site import MAX_BODY, LocalSite, SiteHandler
from vcot.suite import SuiteError

__all__ = ["CSP", "MAX_BODY", "TOKEN_COOKIE", "AnnotationServer"]

_KEY_RE = re.compile(r"[0-9a-f]{16}")
# No script-src: pages carry no script, so an escaping slip still cannot run code. Images come from this
# server; frame-ancestors (header-only) keeps other sites from framing the form.
CSP = content_security_policy(img_src=SELF, form_action=SELF, frame_ancestors=NONE)
TOKEN_COOKIE = "vcot_annotate_token"


class _Handler(SiteHandler):
    server_version = "vcot-annotate"
    csp = CSP
    token_cookie = TOKEN_COOKIE
    tool_name = "vcot annotate"

    def error_html(self, status: int, message: str) -> str:
        return error_html(status, message)

    def do_GET(self) -> None:  # noqa: N802 - http.server naming
        app: AnnotationApp = self.server.app
        if not self.allowed():
            return
        try:
            path, query = self.route()
            annotator = (query.get("annotator") or [""])[0].strip()[:MAX_ANNOTATOR]
            if path == "/":
                self.send_html(200, app.index_page(annotator))
            elif path == "/agreement":
                self.send_html(200, app.agreement_page())
            elif path == "/agreement.json":
                self.send_body(200, json.dumps(app.agreement(), indent=2).encode(), "application/json")
            elif path == "/favicon.ico":
                self.send_body(204, b"", "image/x-icon")
            elif path.startswith("/t/") and _KEY_RE.fullmatch(path[3:]) and path[3:] in app.by_key:
                self.send_html(200, app.item_page(path[3:], annotator))
            elif path.startswith("/input/") and _KEY_RE.fullmatch(path[7:]) and path[7:] in app.by_key:
                data, ctype = app.input_image(path[7:])
                self.send_body(200, data, ctype)
            elif path.startswith("/img/") and path.endswith(".png"):
                self.send_body(200, app.returned_image(path[5:-4]), "image/png")
            else:
                self.send_error_page(404, "not found")
        except (FileNotFoundError, SuiteError):
            self.send_error_page(404, "not found")
        except ValueError as exc:  # e.g. a query string with too many fields
            self.send_error_page(400, str(exc))

    def do_POST(self) -> None:  # noqa: N802 - http.server naming
        app: AnnotationApp = self.server.app
        if not self.allowed():
            return
        path = urlsplit(self.path).path
        key = path[3:] if path.startswith("/t/") else ""
        if not (_KEY_RE.fullmatch(key) and key in app.by_key):
            self.send_error_page(404, "not found")
            return
        body = self.read_form(MAX_BODY)
        if body is None:
            return
        try:
            annotator, tid = app.submit(key, body)
        except ValueError as exc:
            self.send_error_page(400, str(exc))
            return
        nxt = app.next_unscored(annotator, tid)
        target = f"/t/{item_key(nxt.trajectory_id)}" if nxt else "/"
        self.redirect(f"{target}?annotator={quote(annotator)}")


class AnnotationServer(LocalSite[AnnotationApp]):
    """The annotation site on a background thread: `with AnnotationServer(app) as srv: srv.url`.

    Bound to a loopback address it answers requests for a loopback host only. Bound to any other address
    it requires an access token (`token`, generated when not given), which `url` carries.
    """

    handler = _Handler
    thread_name = "vcot-annotate"
