"""Several OpenAI-compatible servers of one model as one client (issue 30; docs/evaluation.md, "Several servers
for one model").

`EndpointPool` is a `ModelClient` over one `OpenAICompatClient` per endpoint. Each attempt at a call goes to
the least-loaded healthy endpoint (fewest requests in flight; ties to the one that has served fewest, so a
slow run still spreads evenly). The runner's retry loop is unchanged: an attempt is one request to one
endpoint, and the next attempt is made only after this one has failed, so no call is ever in flight twice and
the run store's exactly-once guarantee holds as with one server. The retry of a failed attempt avoids the
endpoint it failed on whenever another can take it.

An endpoint that keeps failing with errors of the server rather than of the reply (connection refused or
reset, 5xx, 408, time-outs) is taken out: at once when nothing listens, else after `failure_threshold` such
failures in a row. It is probed (GET /models must still list the model) after a backoff that doubles while the
probes fail, and put back when one succeeds. While every endpoint is out, attempts go to them anyway, so the
retry policy decides, as it does with one server, when a call is given up.
"""

from __future__ import annotations

import asyncio
import logging
import statistics
import time
from collections import Counter, deque
from collections.abc import Sequence
from typing import Any

from vcot.engine.clients.base import CallContext, ModelClient, display_url
from vcot.engine.errors import ConfigError, EngineError, FatalCallError, NoModelList, RetryableError
from vcot.engine.settings import GenSettings
from vcot.messages import Message, ModelResponse, ToolSpec

_log = logging.getLogger(__name__)

# RetryableError kinds that say the server is in trouble; a malformed or oversized reply, or a 429, says
# nothing about whether the next request there would be answered.
_SERVER_FAULTS = frozenset({"connection", "timeout", "408"})


def is_server_fault(exc: RetryableError) -> bool:
    return exc.kind in _SERVER_FAULTS or exc.kind.startswith("5")


class Endpoint:
    """One server of the pool: its client, load, health and counters."""

    __slots__ = (
        "client",
        "url",
        "inflight",
        "healthy",
        "failures",
        "outs",
        "requests",
        "ok",
        "errors",
        "kinds",
        "latencies",
        "taken_out",
        "probe",
        "unlisted",
    )

    def __init__(self, client: Any, url: str) -> None:
        self.client = client
        self.url = url
        self.inflight = 0
        self.healthy = True
        self.failures = 0  # server faults in a row
        self.outs = 0  # times taken out since its last answered call: the probe backoff's exponent
        self.requests = 0
        self.ok = 0
        self.errors = 0
        self.kinds: Counter[str] = Counter()
        self.latencies: list[float] = []
        self.taken_out = 0
        self.probe: asyncio.Task[None] | None = None
        self.unlisted = False  # it gives no model list (GET /models); used for --model's model unchecked

    def stats(self) -> dict[str, Any]:
        lat = self.latencies
        return {
            "url": self.url,
            "requests": self.requests,
            "ok": self.ok,
            "errors": self.errors,
            "error_kinds": dict(self.kinds),
            "mean_s": statistics.fmean(lat) if lat else None,
            "p50_s": statistics.median(lat) if lat else None,
            "taken_out": self.taken_out,
        }


class EndpointPool(ModelClient):
    """One model served by several OpenAI-compatible endpoints (see the module's docstring)."""

    provider = "openai-compatible"

    def __init__(
        self,
        model: str,
        base_urls: Sequence[str],
        api_key: str | None,
        *,
        key_env: str | None = None,
        tag_requests: bool = False,
        max_connections: int = 256,
        per_endpoint_limit: int | None = None,
        failure_threshold: int = 3,
        backoff_initial_s: float = 1.0,
        backoff_max_s: float = 60.0,
        probe_timeout_s: float = 5.0,
    ) -> None:
        from vcot.engine.clients.openai_compat import OpenAICompatClient

        if len(base_urls) < 2:
            raise ConfigError("an endpoint pool needs at least two --base-url")
        shown = [display_url(u) for u in base_urls]
        twice = sorted({u for u in shown if shown.count(u) > 1})
        if twice:
            raise ConfigError(f"--base-url {twice[0]} is given twice")
        if per_endpoint_limit is not None and per_endpoint_limit < 1:
            raise ConfigError("--endpoint-concurrency must be at least 1")
        self.model = model
        self.key_env = key_env
        self.endpoints = [
            Endpoint(
                OpenAICompatClient(
                    model,
                    url,
                    api_key,
                    provider=self.provider,
                    key_env=key_env,
                    tag_requests=tag_requests,
                    max_connections=max_connections,
                ),
                display,
            )
            for url, display in zip(base_urls, shown, strict=True)
        ]
        self.limit = per_endpoint_limit
        self.warnings: list[str] = []  # said at preflight (an endpoint used without a model list)
        self.failure_threshold = failure_threshold
        self.backoff_initial_s = backoff_initial_s
        self.backoff_max_s = backoff_max_s
        self.probe_timeout_s = probe_timeout_s
        # The endpoint each call's last attempt failed on, by the id of its CallContext (the runner passes the
        # same context to every attempt of a call); the context is held, so the id is not reused meanwhile.
        self._failed_at: dict[int, tuple[CallContext, Endpoint]] = {}
        self._waiters: deque[asyncio.Future[None]] = deque()
        self._closed = False

    def describe(self) -> dict[str, Any]:
        # base_url as a single-endpoint run records it, so both kinds of run read alike; neither is identity.
        urls = [e.url for e in self.endpoints]
        return {
            "provider": self.provider,
            "model": self.model,
            "base_url": urls[0],
            "base_urls": urls,
            "api_key_env": self.key_env,
        }

    def endpoint_stats(self) -> list[dict[str, Any]]:
        return [e.stats() for e in self.endpoints]

    async def preflight(self) -> None:
        """Every endpoint must list the model (GET /models), checked together; ConfigError naming each one
        that does not. An endpoint that answers but lists no models at all (some servers have no GET /models)
        is used for the model --model named, with a warning (logged, `warnings`): refusing it said "name the
        served model with --model" to a user who had."""
        unlisted: dict[int, str] = {}

        async def check(ep: Endpoint) -> str | None:
            try:
                ids = await ep.client.list_models()
            except NoModelList as exc:
                try:
                    await ep.client.preflight()  # it answers at all: else the reason it cannot be reached
                except ConfigError as unreachable:
                    return str(unreachable)
                ep.unlisted = True
                unlisted[id(ep)] = (
                    f"warning: {exc.reason}; sending it requests for {self.model!r} as --model names, unchecked"
                )
                return None
            except ConfigError as exc:
                return str(exc)
            if self.model not in ids:
                listed = ", ".join(ids[:10]) + (" …" if len(ids) > 10 else "") if ids else "none"
                return (
                    f"{ep.url} does not list the model {self.model!r} (it lists: {listed}); every --base-url "
                    "must serve the same model"
                )
            return None

        problems = [p for p in await asyncio.gather(*(check(e) for e in self.endpoints)) if p]
        for ep in self.endpoints:  # in --base-url order, however the checks finished
            if id(ep) in unlisted:
                self.warnings.append(unlisted[id(ep)])
                _log.warning("%s", unlisted[id(ep)])
        if problems:
            raise ConfigError("; ".join(problems))

    # -- choosing an endpoint ---------------------------------------------------------------------------------

    def _pick(self, avoid: Endpoint | None) -> Endpoint | None:
        """The least-loaded healthy endpoint with a free slot (other than `avoid` when there is one); while none
        is healthy, the least loaded of all; None when every candidate is at its limit."""
        limit = self.limit
        best: Endpoint | None = None
        best_key: tuple[bool, bool, int, int] | None = None
        for ep in self.endpoints:
            if limit is not None and ep.inflight >= limit:
                continue
            key = (not ep.healthy, ep is avoid, ep.inflight, ep.requests)
            if best_key is None or key < best_key:
                best, best_key = ep, key
        if best is not None and not best.healthy and limit is not None and any(e.healthy for e in self.endpoints):
            return None  # a healthy endpoint is only full: wait for its slot rather than send to a failing one
        return best

    async def _acquire(self, avoid: Endpoint | None) -> Endpoint:
        ep = self._pick(avoid)
        while ep is None:
            fut = asyncio.get_running_loop().create_future()
            self._waiters.append(fut)
            try:
                await fut
            except asyncio.CancelledError:
                if fut.done() and not fut.cancelled():
                    self._wake()  # pass on the slot this waiter was given
                raise
            ep = self._pick(avoid)
        return ep

    def _wake(self) -> None:
        while self._waiters:
            fut = self._waiters.popleft()
            if not fut.done():
                fut.set_result(None)
                return

    # -- calls ------------------------------------------------------------------------------------------------

    async def complete(
        self, messages: Sequence[Message], tools: Sequence[ToolSpec] | None, settings: GenSettings, ctx: CallContext
    ) -> ModelResponse:
        failed = self._failed_at.pop(id(ctx), None)
        avoid = failed[1] if failed is not None and failed[0] is ctx else None
        ep = self._pick(avoid) if not self._waiters else None
        if ep is None:
            ep = await self._acquire(avoid)
        ep.inflight += 1
        ep.requests += 1
        t0 = time.perf_counter()
        try:
            resp = await ep.client.complete(messages, tools, settings, ctx)
        except RetryableError as exc:
            self._failed_at[id(ctx)] = (ctx, ep)
            self._on_failure(ep, exc)
            raise
        except (FatalCallError, EngineError) as exc:
            ep.errors += 1
            ep.kinds["rejected" if isinstance(exc, FatalCallError) else type(exc).__name__] += 1
            raise
        except Exception as exc:
            ep.errors += 1
            ep.kinds[type(exc).__name__] += 1
            raise
        finally:
            ep.inflight -= 1
            if self._waiters:
                self._wake()
        ep.latencies.append(time.perf_counter() - t0)
        ep.ok += 1
        ep.failures = 0
        if ep.healthy:
            ep.outs = 0
        return resp

    def _on_failure(self, ep: Endpoint, exc: RetryableError) -> None:
        ep.errors += 1
        ep.kinds[exc.kind] += 1
        if not is_server_fault(exc):
            return
        ep.failures += 1
        if ep.healthy and (ep.failures >= self.failure_threshold or "connection refused" in str(exc)):
            self._take_out(ep)

    def _take_out(self, ep: Endpoint) -> None:
        # With every other endpoint already out, this one stays in: taking the last one out would change
        # nothing (attempts go to the out ones anyway) but start a probe loop for it.
        if not any(e.healthy for e in self.endpoints if e is not ep):
            return
        ep.healthy = False
        ep.taken_out += 1
        if ep.probe is None or ep.probe.done():
            ep.probe = asyncio.get_running_loop().create_task(self._probe(ep))

    async def _probe(self, ep: Endpoint) -> None:
        """Wait, ask the endpoint for its models, put it back when it lists the model; wait twice as long after
        each failed probe."""
        while not self._closed:
            ep.outs += 1
            await asyncio.sleep(min(self.backoff_max_s, self.backoff_initial_s * 2 ** (ep.outs - 1)))
            try:
                if ep.unlisted:  # it has no model list to check: that it answers again must do
                    await ep.client.preflight(attempts=1, timeout=self.probe_timeout_s)
                    listed = True
                else:
                    listed = self.model in await ep.client.list_models(self.probe_timeout_s)
            except Exception:  # noqa: BLE001 - any failure of the probe keeps the endpoint out
                listed = False
            if listed:
                ep.healthy = True
                ep.failures = 0
                if self._waiters:
                    self._wake()
                return

    async def aclose(self) -> None:
        self._closed = True
        probes = [e.probe for e in self.endpoints if e.probe is not None and not e.probe.done()]
        for t in probes:
            t.cancel()
        await asyncio.gather(*probes, return_exceptions=True)
        await asyncio.gather(*(e.client.aclose() for e in self.endpoints), return_exceptions=True)


def base_urls(value: str | Sequence[str] | None) -> list[str]:
    """--base-url as a list: one URL, several, or none."""
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    return list(value)
