"""Fault injection: which requests fail and how (a 429 with Retry-After, a 500, a hang past the client's
timeout, malformed JSON, a body cut short, a dropped connection, a hostile reply), and the latency.

Faults are drawn from their own RNG, seeded once per server, so that they do not change what the answer
policy decides for a sample: a run with faults scores what a run without them does.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections import Counter
from typing import TYPE_CHECKING, Any

from vcot.engine.mock.wire import response_head, send
from vcot.seeding import derive_seed

if TYPE_CHECKING:
    from vcot.engine.mock.config import MockConfig

# Well-formed 200 replies of the wrong shape, each breaking one field a client reads (an attack campaign
# on loopback found each of them ending a run): what the client must refuse, naming the field.
HOSTILE_SHAPES = (
    "usage_list",
    "message_str",
    "tokens_str",
    "tokens_huge",
    "finish_object",
    "parts_nonstr",
    "deep_nesting",
    "huge_header",
)
FAULT_KINDS = ("429", "500", "timeout", "malformed", "truncated", "drop", "hostile", *HOSTILE_SHAPES)
# "hostile" is a well-formed 200 reply whose text attacks the consumer (control bytes, a lone surrogate,
# markup, a huge line); it and the hostile shapes are off unless asked for, so a fault rate does not change
# what a run scores.
DEFAULT_FAULTS = FAULT_KINDS[:6]
HOSTILE_TEXT = (
    "\x00\x1b[31m<script>alert('x')</script>\ud800 {{7*7}} ${env:OPENAI_API_KEY} "
    + "A" * 20_000
    + "\n<answer>\x00\x1b]0;owned\x07</answer>"
)
DEEP_NESTING = 100_000  # levels of the array a deep_nesting reply puts in its usage
HUGE_HEADER = 64 * 1024  # bytes of the header line a huge_header reply carries


class FaultInjector:
    def __init__(self, seed: int) -> None:
        self._rng = random.Random(derive_seed("faults", seed))

    def draw(self, cfg: MockConfig) -> str | None:
        """The fault this request gets, or None. The RNG is drawn whenever the rate is non-zero, even with no
        kinds enabled, so that enabling kinds later does not shift which requests fail."""
        if cfg.fault_rate and self._rng.random() < cfg.fault_rate and cfg.faults:
            return self._rng.choice(cfg.faults)
        return None


async def wait_latency(cfg: MockConfig, arrived: float) -> None:
    """Sleep out the configured latency, counted from the request's arrival (a `time.monotonic()`), so the
    server's own work (parsing a body of images, matching them) is inside it: the harness's ideal N·L/C
    assumes exactly L per request."""
    if cfg.latency_s:
        await asyncio.sleep(max(0.0, cfg.latency_s - (time.monotonic() - arrived)))


async def act_out(
    fault: str | None, resp: dict[str, Any], cfg: MockConfig, writer: asyncio.StreamWriter, status: Counter[str]
) -> bool | None:
    """Play `fault` on the connection: whether the connection stays open, or None when the caller is still
    to send `resp` normally (a hostile fault has replaced its text in place). Counts what it sends in
    `status`."""
    if fault == "429":
        status["429"] += 1
        await send(
            writer,
            429,
            {"error": {"message": "rate limited (injected)", "type": "rate_limit"}},
            extra={"Retry-After": f"{cfg.retry_after_s:g}"},
        )
        return True
    if fault == "500":
        status["500"] += 1
        await send(writer, 500, {"error": {"message": "server error (injected)"}})
        return True
    if fault == "timeout":
        await asyncio.sleep(cfg.hang_s)
        return False
    if fault == "drop":
        return False
    if fault == "hostile" and resp["choices"][0]["message"].get("content") is not None:
        resp["choices"][0]["message"]["content"] = HOSTILE_TEXT
        status["200-hostile"] += 1
    if fault in HOSTILE_SHAPES:
        status[f"200-{fault}"] += 1
        await send_hostile_shape(fault, resp, writer)
        return True
    if fault not in ("malformed", "truncated"):
        return None
    data = json.dumps(resp).encode()
    if fault == "malformed":
        status["200-malformed"] += 1
        await send(writer, 200, None, raw=data[: len(data) // 2])
        return True
    # Truncated: the head promises the whole body, half of it comes, and the connection closes.
    writer.write(response_head(200, len(data)) + data[: len(data) // 2])
    await writer.drain()
    return False


def hostile_shape(fault: str, resp: dict[str, Any]) -> tuple[bytes, dict[str, str]]:
    """The body and extra headers of the hostile shape `fault` made from the good reply `resp`."""
    choice = resp["choices"][0]
    extra: dict[str, str] = {}
    if fault == "usage_list":
        resp["usage"] = [resp["usage"]["prompt_tokens"], resp["usage"]["completion_tokens"]]
    elif fault == "message_str":
        choice["message"] = str(choice["message"].get("content"))
    elif fault == "tokens_str":
        resp["usage"] = {k: str(v) for k, v in resp["usage"].items()}
    elif fault == "tokens_huge":
        resp["usage"] = {k: 10**30 for k in resp["usage"]}
    elif fault == "finish_object":
        choice["finish_reason"] = {"reason": choice["finish_reason"], "nested": [1, {"x": None}]}
    elif fault == "parts_nonstr":
        choice["message"]["content"] = [{"type": "text", "text": 42}, 7, None, ["<answer>1</answer>"]]
    elif fault == "huge_header":
        extra["X-Filler"] = "a" * HUGE_HEADER
    elif fault == "deep_nesting":
        # Spliced into the text: the encoder itself refuses to nest this deep.
        resp["usage"] = "__deep__"
        data = json.dumps(resp).encode().replace(b'"__deep__"', b"[" * DEEP_NESTING + b"]" * DEEP_NESTING)
        return data, extra
    else:
        raise ValueError(f"not a hostile shape: {fault!r}")
    return json.dumps(resp).encode(), extra


async def send_hostile_shape(fault: str, resp: dict[str, Any], writer: asyncio.StreamWriter) -> None:
    data, extra = hostile_shape(fault, resp)
    await send(writer, 200, None, extra=extra, raw=data)
