"""The review page over HTTP, through `vcot.local_site` (Host and token checks, form-post checks, headers)."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from vcot.curate.review.app import ReviewApp
from vcot.html import NONE, SELF, content_security_policy
from vcot.local_site import LocalSite, SiteHandler

_KEY = re.compile(r"[0-9a-f]{16}")
CSP = content_security_policy(img_src=SELF, form_action=SELF, frame_ancestors=NONE)


class _Handler(SiteHandler):
    server_version = "vcot-curate-review"
    csp = CSP
    token_cookie = "vcot_review_token"
    tool_name = "vcot curate review"

    def do_GET(self) -> None:  # noqa: N802 - http.server naming
        app: ReviewApp = self.server.app
        if not self.allowed():
            return
        path, _ = self.route()
        if path == "/":
            self.send_html(200, app.index_page())
        elif path.startswith("/i/") and _KEY.fullmatch(path[3:]) and path[3:] in app.by_key:
            self.send_html(200, app.item_page(path[3:]))
        elif path.startswith("/img/") and path.endswith(".png") and path[5:-4] in app.by_key:
            self.send_body(200, app.image(path[5:-4]), "image/png")
        elif path == "/favicon.ico":
            self.send_body(204, b"", "image/x-icon")
        else:
            self.send_error_page(404, "not found")

    def do_POST(self) -> None:  # noqa: N802 - http.server naming
        app: ReviewApp = self.server.app
        if not self.allowed():
            return
        path = urlsplit(self.path).path
        key = path[3:] if path.startswith("/i/") else ""
        if not (_KEY.fullmatch(key) and key in app.by_key):
            self.send_error_page(404, "not found")
            return
        body = self.read_form()
        if body is None:
            return
        try:
            app.submit(key, body)
        except ValueError as exc:
            self.send_error_page(400, str(exc))
            return
        keys = list(app.by_key)
        self.redirect(f"/i/{keys[(keys.index(key) + 1) % len(keys)]}")


class ReviewServer(LocalSite[ReviewApp]):
    """`with ReviewServer(app) as srv: srv.url`."""

    handler = _Handler
    thread_name = "vcot-curate-review"
