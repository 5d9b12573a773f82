"""HTTP/1.1 framing on asyncio streams, by hand rather than through a framework so that the fault
injection can break it exactly (a body cut short of its Content-Length, a dropped connection)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

MAX_BODY = 256 * 1024 * 1024
_REASONS = {
    200: "OK",
    400: "Bad Request",
    404: "Not Found",
    405: "Method Not Allowed",
    413: "Payload Too Large",
    429: "Too Many Requests",
    500: "Internal Server Error",
}


def parse_head(head: bytes) -> tuple[str, str, dict[str, str]] | None:
    """(method, target, headers with lower-case names) of a request head, or None for a bad request line."""
    lines = head.decode("latin-1").split("\r\n")
    try:
        method, target, _ = lines[0].split(" ", 2)
    except ValueError:
        return None
    headers = {}
    for line in lines[1:]:
        if ":" in line:
            k, v = line.split(":", 1)
            headers[k.strip().lower()] = v.strip()
    return method, target, headers


def response_head(status: int, length: int, close: bool = False, extra: dict[str, str] | None = None) -> bytes:
    hdrs = {
        "Content-Type": "application/json",
        "Content-Length": str(length),
        "Connection": "close" if close else "keep-alive",
        **(extra or {}),
    }
    reason = _REASONS.get(status, "Status")
    return (f"HTTP/1.1 {status} {reason}\r\n" + "".join(f"{k}: {v}\r\n" for k, v in hdrs.items()) + "\r\n").encode()


async def send(
    writer: asyncio.StreamWriter,
    status: int,
    obj: Any,
    extra: dict[str, str] | None = None,
    close: bool = False,
    raw: bytes | None = None,
) -> None:
    """Write one JSON response (`obj`, or the bytes `raw` as they are) and wait until it is flushed."""
    data = raw if raw is not None else json.dumps(obj).encode()
    writer.write(response_head(status, len(data), close, extra) + data)
    await writer.drain()
