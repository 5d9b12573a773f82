"""What a person reads when samples of a run failed: the most frequent causes (the results' `error` column)
with their counts, and a hint for the causes whose fix is known."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

CHAT_ROUTE_HINT = "--base-url should end in /v1, not /chat/completions"
_STATUS = re.compile(r"\bHTTP (\d{3})\b")


def names_chat_route(url: str | None) -> bool:
    """Whether a base URL names the chat route itself, to which the SDK appends /chat/completions again."""
    return bool(url) and str(url).rstrip("/").endswith("/chat/completions")


def error_causes(errors: Iterable[str | None], top: int = 5) -> list[tuple[int, str]]:
    """(count, error) of the `top` most frequent errors, most frequent first; whitespace (server bodies hold
    newlines) is collapsed so that each cause is one line."""
    counts = Counter(" ".join(e.split()) for e in errors if e)
    return [(n, text) for text, n in counts.most_common(top)]


def http_status(causes: list[tuple[int, str]]) -> str | None:
    """The HTTP status of the most frequent cause that names one ("404")."""
    for _, text in causes:
        m = _STATUS.search(text)
        if m:
            return m.group(1)
    return None


def hints(causes: list[tuple[int, str]], base_url: str | None, model: str | None) -> list[str]:
    """One line per known fix among `causes`."""
    out: list[str] = []
    texts = [text for _, text in causes]
    if any("HTTP 404" in t for t in texts):
        if names_chat_route(base_url):
            out.append(CHAT_ROUTE_HINT)
        elif base_url and any("model" in t.lower() for t in texts if "HTTP 404" in t):
            out.append(
                f"is {model!r} the name {base_url} serves? without --model, vcot eval takes the one model it lists"
            )
    if base_url and any("connection refused" in t for t in texts):
        out.append(f"nothing listens at {base_url}: is the server running, on that host and port?")
    return out


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: max(1, width - 1)] + "…"


def failure_lines(
    errors: Iterable[str | None], base_url: str | None, model: str | None, width: int = 160, top: int = 5
) -> list[str]:
    """The closing lines of a run with failures: `12 × rejected: HTTP 404: …` per frequent cause, each cut to
    `width` columns, then `hint: …` lines."""
    causes = error_causes(errors, top)
    lines = [_clip(f"  {n} × {text}", width) for n, text in causes]
    lines += [_clip(f"  hint: {h}", width) for h in hints(causes, base_url, model)]
    return lines
