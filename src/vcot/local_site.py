"""What vcot's local web pages (the annotation page, the human-study page) share over HTTP: the security
headers on every response, the Host / access-token check, the checks on a form post, and the server on a
background thread.

Such a page runs on the user's own machine (or a lab network) and still treats every request as hostile,
because any web page its user opens could send requests to it (docs/design.md, "A new page").
"""

from __future__ import annotations

import hmac
import secrets
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Generic, TypeVar
from urllib.parse import parse_qs, urlsplit

from vcot.html import escape, page
from vcot.net import is_loopback

MAX_BODY = 64 * 1024
# Fields a query string may carry: more is refused with a 400 (parse_qs raises past the limit).
MAX_QUERY_FIELDS = 20
# Seconds a connection may sit idle mid-request: idle connections would otherwise each hold a thread for ever.
READ_TIMEOUT = 30.0
# Connections waiting to be accepted: 20 reviewers posting at once overflowed the default of 5 (resets).
LISTEN_BACKLOG = 128
FORM_TYPE = "application/x-www-form-urlencoded"

AppT = TypeVar("AppT")


def host_of(header: str) -> str:
    """The host part of a Host header value (`name`, `name:port`, `[v6]:port`)."""
    header = header.strip()
    if header.startswith("["):
        return header[1 : header.find("]")] if "]" in header else header
    return header.rsplit(":", 1)[0] if header.count(":") == 1 else header


class SiteHandler(BaseHTTPRequestHandler):
    """A request handler with the checks every local page needs; subclasses route GET and POST.

    Subclasses set `csp` (sent as a header, where frame-ancestors also works), `token_cookie`, and
    `tool_name` (the command named in the access-token error), and may override `error_html`.
    """

    server: SiteServer[Any]
    sys_version = ""
    csp = ""
    token_cookie = "vcot_token"
    tool_name = "vcot"
    _set_cookie = ""
    timeout = READ_TIMEOUT  # StreamRequestHandler sets it on the socket: an idle client is dropped, not waited on

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - signature of the base class
        if self.server.verbose:
            super().log_message(format, *args)

    def error_html(self, status: int, message: str) -> str:
        from http import HTTPStatus

        return page(
            f"{status}",
            f"<h1>{status} {escape(HTTPStatus(status).phrase)}</h1><p>{escape(message)}</p>",
            css="body{font-family:system-ui,sans-serif;margin:2rem}",
        )

    def send_body(self, status: int, body: bytes, ctype: str, extra: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Content-Security-Policy", self.csp)
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

    def send_html(self, status: int, text: str) -> None:
        self.send_body(status, text.encode("utf-8"), "text/html; charset=utf-8")

    def send_error_page(self, status: int, message: str) -> None:
        self.send_html(status, self.error_html(status, message))

    def redirect(self, location: str) -> None:
        self.send_body(303, b"", "text/plain", {"Location": location})

    def route(self) -> tuple[str, dict[str, list[str]]]:
        parts = urlsplit(self.path)
        return parts.path, parse_qs(parts.query, max_num_fields=MAX_QUERY_FIELDS)

    def _cookie_token(self) -> str:
        for item in (self.headers.get("Cookie") or "").split(";"):
            name, _, value = item.strip().partition("=")
            if name == self.token_cookie:
                return value
        return ""

    def query_ok(self) -> bool:
        """Whether the query string parses within the field limit; else answered with a 400 (parse_qs raising
        inside a handler closed the connection without a reply)."""
        try:
            parse_qs(urlsplit(self.path).query, max_num_fields=MAX_QUERY_FIELDS)
        except ValueError:
            self.send_error_page(400, f"the query string has more than {MAX_QUERY_FIELDS} fields")
            return False
        return True

    def allowed(self) -> bool:
        """Refuse (and answer) a request that is not for this server or lacks the access token.

        On a loopback address the Host header must name a loopback host too: a web page whose domain is
        re-pointed at 127.0.0.1 (DNS rebinding) sends its own name. On any other address the page is
        reachable from the network, so every request must carry the token, in the query (the printed URL)
        or in the cookie set on the first visit.
        """
        token = self.server.token
        if token is None:
            if not is_loopback(host_of(self.headers.get("Host") or "")):
                self.send_error_page(403, "request for another host refused (this server answers to localhost only)")
                return False
            return self.query_ok()
        try:
            query = parse_qs(urlsplit(self.path).query, max_num_fields=MAX_QUERY_FIELDS)
        except ValueError:
            self.send_error_page(400, f"the query string has more than {MAX_QUERY_FIELDS} fields")
            return False
        offered = (query.get("token") or [""])[0] or self._cookie_token()
        if not hmac.compare_digest(offered.encode(), token.encode()):
            self.send_error_page(403, f"access token missing or wrong: open the URL printed by {self.tool_name}")
            return False
        self._set_cookie = f"{self.token_cookie}={token}; Path=/; HttpOnly; SameSite=Strict"
        return True

    def read_form(self, max_body: int = MAX_BODY) -> bytes | None:
        """The body of a same-origin form post, or None after answering with the reason it was refused."""
        # A page on another site could post a hidden form to this local server; browsers send Origin.
        origin = self.headers.get("Origin")
        if origin is not None and urlsplit(origin).netloc != self.headers.get("Host", ""):
            self.send_error_page(403, "cross-origin form post refused")
            return None
        ctype = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        if ctype != FORM_TYPE:
            self.send_error_page(400, f"expected an {FORM_TYPE} form")
            return None
        try:
            length = int(self.headers.get("Content-Length", ""))
        except ValueError:
            self.send_error_page(400, "Content-Length required")
            return None
        if not 0 <= length <= max_body:
            self.send_error_page(400, "form too large")
            return None
        return self.rfile.read(length)

    def do_HEAD(self) -> None:  # noqa: N802 - http.server naming
        self.do_GET()

    def do_GET(self) -> None:  # noqa: N802 - http.server naming
        self.send_error_page(404, "not found")


class SiteServer(ThreadingHTTPServer, Generic[AppT]):
    daemon_threads = True
    request_queue_size = LISTEN_BACKLOG

    def __init__(
        self,
        address: tuple[str, int],
        handler: type[SiteHandler],
        app: AppT,
        verbose: bool = False,
        token: str | None = None,
    ) -> None:
        self.app = app
        self.verbose = verbose
        self.token = token
        super().__init__(address, handler)


class LocalSite(Generic[AppT]):
    """A page's server on a background thread: `with Site(app) as srv: srv.url`.

    Bound to a loopback address it answers requests for a loopback host only. Bound to any other address
    it requires an access token (`token`, generated when not given), which `url` carries.
    """

    handler: type[SiteHandler] = SiteHandler
    thread_name = "vcot-site"

    def __init__(
        self, app: AppT, host: str = "127.0.0.1", port: int = 0, verbose: bool = False, token: str | None = None
    ) -> None:
        self.app = app
        self.token = None if is_loopback(host) and token is None else (token or secrets.token_urlsafe(24))
        self.httpd: SiteServer[AppT] = SiteServer((host, port), self.handler, app, verbose, self.token)
        self.host = host
        self.port = int(self.httpd.server_address[1])
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}/" + (f"?token={self.token}" if self.token else "")

    def start(self) -> LocalSite[AppT]:
        self._thread = threading.Thread(target=self.httpd.serve_forever, name=self.thread_name, daemon=True)
        self._thread.start()
        return self

    def serve_forever(self) -> None:
        self.httpd.serve_forever()

    def close(self) -> None:
        if self._thread is not None:
            self.httpd.shutdown()
            self._thread.join(timeout=5)
        self.httpd.server_close()

    def __enter__(self) -> LocalSite[AppT]:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()
