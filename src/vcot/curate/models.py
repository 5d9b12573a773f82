"""Model calls of the curation stages: one role (captioner, reasoner, judge, rewriter) = one model spec, any
client the engine knows (`vcot.engine.clients.make_client`: chance, openai/…, anthropic/…, google/…, or any
OpenAI-compatible server by base URL), retried as the engine retries, stored once in the curation store."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from vcot.curate import checks
from vcot.curate.store import CurationStore
from vcot.engine.clients import make_client
from vcot.engine.clients.base import CallContext, ModelClient
from vcot.engine.errors import EngineError, RetryableError
from vcot.engine.retry import RetryPolicy, call_with_retries
from vcot.engine.settings import GenSettings
from vcot.messages import Message, request_digest
from vcot.schema import Instance

ROLES = ("captioner", "reasoner", "judge", "rewriter")


@dataclass(frozen=True)
class ModelSpec:
    """Which model plays a role. `api_key_env` names a variable; the key itself is never stored."""

    model: str
    base_url: str | None = None
    api_key_env: str | None = None
    temperature: float | None = None
    max_tokens: int = 2048

    @classmethod
    def from_config(cls, value: Any, where: str = "model spec") -> ModelSpec:
        """A role's model from its config entry; ValueError naming the entry and key for anything malformed."""
        if isinstance(value, str):
            return cls(checks.text(value, where, ValueError))
        if not isinstance(value, dict) or "model" not in value:
            raise ValueError(f"{where}: a model spec is a name or a mapping with 'model', got {checks.kind(value)}")
        checks.unknown_keys(value, ("model", "base_url", "api_key_env", "temperature", "max_tokens"), where, ValueError)
        model = checks.text(value["model"], f"{where}.model", ValueError)
        base_url = value.get("base_url")
        if base_url is not None:
            checks.text(base_url, f"{where}.base_url", ValueError)
            if not base_url.startswith(("http://", "https://")):
                raise ValueError(f"{where}.base_url must start with http:// or https://, got {base_url[:80]!r}")
        key_env = value.get("api_key_env")
        if key_env is not None:
            checks.text(key_env, f"{where}.api_key_env", ValueError)
        temperature = value.get("temperature")
        if temperature is not None:
            temperature = checks.number(temperature, f"{where}.temperature", ValueError, 0.0, 2.0)
        max_tokens = checks.integer(value.get("max_tokens", 2048), f"{where}.max_tokens", ValueError, 1, 1_000_000)
        return cls(model, base_url, key_env, temperature, max_tokens)

    def identity(self) -> dict[str, Any]:
        """What a rerun must match: the model and its sampling, not the endpoint (docs/evaluation.md)."""
        return {"model": self.model, "temperature": self.temperature, "max_tokens": self.max_tokens}


class CallFailed(RuntimeError):
    """A call that failed after its retries; it is stored with its error and retried by the next run."""


class Caller:
    """Sends (role, stage, candidate, trial) calls, each at most once across runs, with bounded concurrency."""

    def __init__(
        self,
        store: CurationStore,
        specs: dict[str, ModelSpec],
        concurrency: int = 8,
        retry: RetryPolicy | None = None,
        tag_requests: bool = False,
        progress: Callable[..., None] | None = None,
    ) -> None:
        self.store = store
        self.specs = specs
        self.retry = retry or RetryPolicy(max_attempts=4, initial_s=0.2, max_backoff_s=5.0)
        self.sem = asyncio.Semaphore(concurrency)
        self.tag_requests = tag_requests
        self.clients: dict[str, ModelClient] = {}
        self.run_ids: dict[str, str] = {}
        self.sent = 0  # calls actually sent by this process (the rest came from the store)
        self.retries = 0
        # (items done, items, failed=…, retries=…) as a stage's items finish (`gather`); failed items stay pending.
        self.progress = progress

    def _client(self, role: str) -> tuple[ModelClient, str]:
        if role not in self.clients:
            spec = self.specs.get(role)
            if spec is None:
                raise ValueError(f"no model configured for role {role!r}")
            self.run_ids[role] = self.store.init_role(role, spec.identity())
            self.clients[role] = make_client(
                spec.model, spec.base_url, spec.api_key_env, tag_requests=self.tag_requests
            )
        return self.clients[role], self.run_ids[role]

    async def ask(self, role: str, stage: str, inst: Instance, trial: int, messages: Sequence[Message]) -> str:
        """The reply text: from the store when this call finished before, else from the model (then stored)."""
        client, run_id = self._client(role)
        done = self.store.done(run_id, stage, inst.uid, trial)
        if done is not None:
            return str(done["text"])
        spec = self.specs[role]
        settings = GenSettings(
            max_tokens=spec.max_tokens, temperature=spec.temperature, seed=trial if spec.temperature else None
        )
        ctx = CallContext(run_id, stage, inst.uid, trial, 0, inst)
        digest = request_digest(messages, None, spec.model, asdict(settings))
        async with self.sem:
            started, t0 = time.time(), time.perf_counter()
            self.sent += 1
            try:
                resp, attempts = await call_with_retries(
                    lambda: client.complete(messages, None, settings, ctx), self.retry, on_retry=self._retried
                )
            except (RetryableError, EngineError) as exc:
                self.store.record_call(
                    run_id,
                    spec.model,
                    stage,
                    inst.uid,
                    trial,
                    {
                        "request_digest": digest,
                        "error": f"{type(exc).__name__}: {exc}",
                        "started_at": started,
                        "finished_at": time.time(),
                    },
                    ok=False,
                )
                raise CallFailed(f"{role} call for {inst.uid} ({stage}, trial {trial}) failed: {exc}") from exc
        call = {
            "request_digest": digest,
            "request": json.dumps({"role": role}),
            "response": resp.raw,
            "text": resp.text,
            "finish_reason": resp.finish_reason,
            "input_tokens": resp.input_tokens,
            "output_tokens": resp.output_tokens,
            "latency_s": time.perf_counter() - t0,
            "attempts": attempts,
            "started_at": started,
            "finished_at": time.time(),
        }
        self.store.record_call(run_id, spec.model, stage, inst.uid, trial, call, ok=True)
        return resp.text

    def _retried(self, exc: RetryableError) -> None:
        self.retries += 1

    async def gather(self, items: Iterable[Awaitable[dict[str, Any]]]) -> list[dict[str, Any]]:
        """A stage's per-item results in order, each reported to `progress` as it finishes."""
        waiting = list(items)
        done = pending = 0
        if self.progress is not None:  # a line as the stage starts, however long its first item takes
            self.progress(0, len(waiting), failed=0, retries=self.retries)

        async def tracked(item: Awaitable[dict[str, Any]]) -> dict[str, Any]:
            nonlocal done, pending
            result = await item
            done += 1
            pending += result.get("verdict") == "pending"
            if self.progress is not None:
                self.progress(done, len(waiting), failed=pending, retries=self.retries)
            return result

        return list(await asyncio.gather(*(tracked(i) for i in waiting)))

    async def aclose(self) -> None:
        for c in self.clients.values():
            await c.aclose()
