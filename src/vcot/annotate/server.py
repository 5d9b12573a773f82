"""The annotation site over HTTP: routing, request checks and the security headers on every response.

Meant to run on the annotator's own machine; it still treats every request as hostile, because any web page
the annotator opens could send requests to it.
"""

from __future__ import annotations

import hmac
import json
import re
import secrets
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

from vcot.annotate.app import AnnotationApp
from vcot.annotate.page import MAX_ANNOTATOR, error_html
from vcot.annotate.sampling import item_key
from vcot.html import NONE, SELF, content_security_policy
from vcot.net import is_loopback
from vcot.suite import SuiteError

MAX_BODY = 64 * 1024
_KEY_RE = re.compile(r"[0-9a-f]{16}")
# No script-src: pages carry no script, so an escaping slip still cannot run code. Images come from this
# server; frame-ancestors (header-only) keeps other sites from framing the form.
CSP = content_security_policy(img_src=SELF, form_action=SELF, frame_ancestors=NONE)
TOKEN_COOKIE = "vcot_annotate_token"


def _host_of(header: str) -> str:
    """The host part of a Host header value (`name`, `name:port`, `[v6]:port`)."""
    header = header.strip()
    if header.startswith("["):
        return header[1:header.find("]")] if "]" in header else header
    return header.rsplit(":", 1)[0] if header.count(":") == 1 else header


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    server_version = "vcot-annotate"
    sys_version = ""
    _set_cookie = ""

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - signature of the base class
        if self.server.verbose:
            super().log_message(format, *args)

    def _send(self, status: int, body: bytes, ctype: str, extra: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Content-Security-Policy", CSP)
        self.send_header("X-Content-Type-Options", "nosniff")
        # Not "no-referrer": Chromium then sends `Origin: null` on our own form posts, which the origin check
        # must refuse (a sandboxed foreign frame sends the same).
        self.send_header("Referrer-Policy", "same-origin")
        self.send_header("Cache-Control", "no-store")
        if self._set_cookie:
            self.send_header("Set-Cookie", self._set_cookie)
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _html(self, status: int, text: str) -> None:
        self._send(status, text.encode("utf-8"), "text/html; charset=utf-8")

    def _error(self, status: int, message: str) -> None:
        self._html(status, error_html(status, message))

    def _route(self) -> tuple[str, dict[str, list[str]]]:
        parts = urlsplit(self.path)
        return parts.path, parse_qs(parts.query, max_num_fields=20)

    def _cookie_token(self) -> str:
        for item in (self.headers.get("Cookie") or "").split(";"):
            name, _, value = item.strip().partition("=")
            if name == TOKEN_COOKIE:
                return value
        return ""

    def _allowed(self) -> bool:
        """Refuse (and answer) a request that is not for this server or lacks the access token.

        On a loopback address the Host header must name a loopback host too: a web page whose domain is
        re-pointed at 127.0.0.1 (DNS rebinding) sends its own name. On any other address the page is
        reachable from the network, so every request must carry the token, in the query (the printed URL)
        or in the cookie set on the first visit.
        """
        token = self.server.token
        if token is None:
            if not is_loopback(_host_of(self.headers.get("Host") or "")):
                self._error(403, "request for another host refused (this server answers to localhost only)")
                return False
            return True
        offered = (parse_qs(urlsplit(self.path).query, max_num_fields=20).get("token") or [""])[0] \
            or self._cookie_token()
        if not hmac.compare_digest(offered.encode(), token.encode()):
            self._error(403, "access token missing or wrong: open the URL printed by vcot annotate")
            return False
        self._set_cookie = f"{TOKEN_COOKIE}={token}; Path=/; HttpOnly; SameSite=Strict"
        return True

    def do_HEAD(self) -> None:  # noqa: N802 - http.server naming
        self.do_GET()

    def do_GET(self) -> None:  # noqa: N802 - http.server naming
        app = self.server.app
        if not self._allowed():
            return
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
        if not self._allowed():
            return
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

    def __init__(self, address: tuple[str, int], app: AnnotationApp, verbose: bool = False,
                 token: str | None = None) -> None:
        self.app = app
        self.verbose = verbose
        self.token = token
        super().__init__(address, _Handler)


class AnnotationServer:
    """The annotation site on a background thread: `with AnnotationServer(app) as srv: srv.url`.

    Bound to a loopback address it answers requests for a loopback host only. Bound to any other address
    it requires an access token (`token`, generated when not given), which `url` carries.
    """

    def __init__(self, app: AnnotationApp, host: str = "127.0.0.1", port: int = 0, verbose: bool = False,
                 token: str | None = None) -> None:
        self.app = app
        self.token = None if is_loopback(host) and token is None else (token or secrets.token_urlsafe(24))
        self.httpd = _Server((host, port), app, verbose, self.token)
        self.host = host
        self.port = int(self.httpd.server_address[1])
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}/" + (f"?token={self.token}" if self.token else "")

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
