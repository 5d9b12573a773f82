"""Run an evaluation: suite × conditions × epochs against one model, resumable and exactly-once.

Re-running the same command with the same run folder resumes: samples finished in the store are skipped,
failed ones are tried again, half-finished multi-turn samples are replayed from their stored turns and
continued. Workers pull samples lazily, so memory stays flat however large the suite.
"""

from __future__ import annotations

import asyncio
import fcntl
import hashlib
import json
import math
import re
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aiolimiter import AsyncLimiter

from vcot.conditions import PROMPT_VERSION, REGISTRY
from vcot.conditions.episode import Episode
from vcot.engine.clients import CallContext, ModelClient, make_client
from vcot.engine.errors import AuthError, ConfigError, EngineError, FatalCallError, RetryableError
from vcot.engine.retry import RetryPolicy, call_with_retries
from vcot.engine.settings import GenSettings
from vcot.engine.store import STORE_NAME, RunStore, SampleKey
from vcot.gcpause import paused_gc
from vcot.images import ImageCache, ImagePolicy, SuiteImages
from vcot.messages import Message, ModelResponse, ToolCall, request_digest
from vcot.schema import Instance
from vcot.version import __version__


@dataclass
class EvalSpec:
    """What one evaluation asks: the suite, the model (and its endpoint and key variable), the conditions,
    epochs and instance selection, concurrency and rate limit, generation settings, image policy, retries and
    the run folder. `vcot eval`'s options and `vcot.evaluate`'s arguments map onto these fields."""

    suite: str | Path
    model: str = "chance"
    # One OpenAI-compatible endpoint, or several serving the same model (engine/endpoints.py).
    base_url: str | Sequence[str] | None = None
    api_key_env: str | None = None
    # None: every default condition (conditions.REGISTRY) that all selected instances can serve.
    conditions: Sequence[str] | None = None
    epochs: int = 1
    limit: int | None = None  # at most this many instances per task (suite order)
    tasks: Sequence[str] | None = None
    concurrency: int = 8
    # With several endpoints: at most this many requests in flight at each (None: only --concurrency bounds
    # them, and the least-loaded choice spreads them evenly).
    endpoint_concurrency: int | None = None
    requests_per_minute: float | None = None
    settings: GenSettings = field(default_factory=GenSettings)
    image_policy: ImagePolicy = field(default_factory=ImagePolicy)
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    run_dir: str | Path | None = None
    runs_root: str | Path = "runs"
    max_turns: int = 10
    tag_requests: bool = False
    write_results: bool = True
    # Modules the caller needs once the run ends (its summary); imported in the background while the run
    # waits on the network, so the closing does not pay for them (the results writer's are added).
    warm_modules: tuple[str, ...] = ()


@dataclass
class Progress:
    total: int = 0
    resumed: int = 0
    done: int = 0
    errors: int = 0
    retries: int = 0
    # Of `retries`, those after a well-formed reply vcot could not use (RetryPolicy.malformed_attempts): each
    # is a paid request that most often brings the same reply.
    malformed_retries: int = 0
    input_tokens: int = 0
    output_tokens: int = 0


@dataclass
class RunResult:
    run_id: str
    run_dir: Path
    conditions: list[str]
    progress: Progress
    skipped_conditions: dict[str, str]
    results_path: Path | None
    # What the run read and wrote, so the caller's summary need not read the suite and the store again (kept
    # out of the repr: asyncio formats a finished task's result, and a suite's repr lists every instance).
    suite: Any = field(default=None, repr=False)
    table: Any = field(default=None, repr=False)
    # With several endpoints, this invocation's figures per endpoint (EndpointPool.endpoint_stats); else None.
    endpoints: list[dict[str, Any]] | None = None


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("_")[:60] or "model"


def select_instances(instances: Sequence[Instance], tasks: Sequence[str] | None, limit: int | None) -> list[Instance]:
    if tasks:
        present = {i.task for i in instances}
        unknown = [t for t in tasks if t not in present]
        if unknown:
            raise ConfigError(f"task(s) {', '.join(unknown)} not in the suite; it has: {', '.join(sorted(present))}")
        wanted = set(tasks)
        instances = [i for i in instances if i.task in wanted]
    if limit is not None:
        if limit < 1:
            raise ConfigError("--limit must be at least 1")
        seen: dict[str, int] = {}
        kept = []
        for inst in instances:
            if seen.get(inst.task, 0) < limit:
                seen[inst.task] = seen.get(inst.task, 0) + 1
                kept.append(inst)
        instances = kept
    if not instances:
        raise ConfigError("no instances selected")
    return list(instances)


def resolve_conditions(
    instances: Sequence[Instance], conditions: Sequence[str] | None
) -> tuple[list[str], dict[str, str]]:
    """The conditions to run, and (when defaulted) those skipped with the reason."""
    if conditions:
        unknown = [c for c in conditions if not REGISTRY.known(c)]
        if unknown:
            raise ConfigError(REGISTRY.unknown_message(unknown))
        for cond in conditions:
            why_not = REGISTRY.get(cond).why_not  # once, not through the registry per instance
            bad = [(i.uid, r) for i in instances if (r := why_not(i)) is not None]
            if bad:
                shown = "; ".join(f"{u}: {r}" for u, r in bad[:3])
                raise ConfigError(
                    f"condition {cond!r} cannot be served for {len(bad)} of {len(instances)} "
                    f"selected instances ({shown}{' …' if len(bad) > 3 else ''})"
                )
        return list(dict.fromkeys(conditions)), {}
    chosen, skipped = [], {}
    for cond in REGISTRY.defaults(instances):
        why_not = REGISTRY.get(cond).why_not
        reason = next((r for i in instances if (r := why_not(i)) is not None), None)
        if reason is None:
            chosen.append(cond)
        else:
            skipped[cond] = reason
    if not chosen:
        raise ConfigError(f"the suite cannot serve any condition: {skipped}")
    return chosen, skipped


# Where a model is served and which variable holds its key do not change what it answers, so they are not
# part of a run's identity: a server restarted on another port, or reached as localhost instead of
# 127.0.0.1, resumes the run (docs/evaluation.md, "Resuming after the endpoint changed").
ENDPOINT_FIELDS = ("base_url", "base_urls", "api_key_env")
IDENTITY_FIELDS = ("suite_hash", "model", "prompt_version", "generation", "image_policy")


def model_identity(described: dict[str, Any]) -> dict[str, Any]:
    """A client's description without its endpoint fields."""
    return {k: v for k, v in described.items() if k not in ENDPOINT_FIELDS}


def _identity_differences(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """The identity fields in which two settings records differ (the model compared without its endpoint,
    so that runs recorded before endpoints left the identity still match)."""
    diff = []
    for key in IDENTITY_FIELDS:
        a, b = old.get(key), new.get(key)
        if key == "model" and isinstance(a, dict) and isinstance(b, dict):
            a, b = model_identity(a), model_identity(b)
        if a != b:
            diff.append(key)
    return diff


def run_identity(suite: Any, client: ModelClient, spec: EvalSpec) -> tuple[str, dict[str, Any]]:
    """The run id (a hash of what makes results comparable) and the full settings record."""
    described = client.describe()
    core = {
        "suite_hash": suite.content_hash,
        "model": model_identity(described),
        "prompt_version": PROMPT_VERSION,
        "generation": spec.settings.sampling(),
        "image_policy": spec.image_policy.as_dict(),
    }
    run_id = hashlib.sha256(json.dumps(core, sort_keys=True).encode()).hexdigest()[:12]
    settings = {
        **core,
        "run_id": run_id,
        "suite_name": suite.name,
        "suite_path": str(Path(suite.root).resolve()),
        "vcot_version": __version__,
        "timeout_s": spec.settings.timeout_s,
        "max_reply_bytes": spec.settings.max_reply_bytes,
        "max_turns": spec.max_turns,
        # The endpoint of the invocation that created the run; later ones may use another.
        "endpoint": {k: described[k] for k in ENDPOINT_FIELDS if k in described},
    }
    return run_id, settings


class _RunLock:
    """One runner per run folder at a time: two would each send the same missing calls."""

    def __init__(self, path: Path) -> None:
        self.fh = open(path, "w")  # noqa: SIM115 - held for the run's lifetime
        try:
            fcntl.flock(self.fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self.fh.close()
            raise ConfigError(f"another vcot eval is running on {path.parent}") from None

    def release(self) -> None:
        fcntl.flock(self.fh, fcntl.LOCK_UN)
        self.fh.close()


class Runner:
    def __init__(
        self,
        spec: EvalSpec,
        suite: Any,
        instances: list[Instance],
        conditions: list[str],
        client: ModelClient,
        store: RunStore,
        run_id: str,
        on_progress: Callable[[Progress], None] | None = None,
    ) -> None:
        self.spec = spec
        self.suite = suite
        self.instances = instances
        self.conditions = conditions
        self.client = client
        self.store = store
        self.run_id = run_id
        self.model_name = spec.model
        self.images = SuiteImages(suite, cache=ImageCache(spec.image_policy))
        self.progress = Progress()
        self.on_progress = on_progress or (lambda p: None)
        self.sampling = spec.settings.sampling()
        self._sem = asyncio.Semaphore(spec.concurrency)
        rpm = spec.requests_per_minute
        # One request per 60/rpm seconds, no burst: providers count per minute but punish bursts.
        self._limiter = AsyncLimiter(1, 60.0 / rpm) if rpm else None
        self._fatal: BaseException | None = None
        self._started: set[SampleKey] = set()
        self._batch: list[tuple[dict[str, Any] | None, dict[str, Any] | None]] = []
        self._batch_done: asyncio.Future[None] | None = None
        self._warmed = False
        self._warm_thread: Any = None

    def pending(self) -> tuple[int, Iterator[tuple[Instance, SampleKey]]]:
        """How many samples are still to run, and those samples in order (made as the workers take them: a
        list of every key cost a third of a second of start-up on a 100,000-instance suite)."""
        done = self.store.finished(self.run_id, self.model_name)
        self._started = self.store.started(self.run_id, self.model_name) - done
        epochs = self.spec.epochs
        total = len(self.instances) * len(self.conditions) * epochs
        resumed = 0
        if done:
            conds, uids = set(self.conditions), {i.uid for i in self.instances}
            resumed = sum(1 for k in done if k.condition in conds and k.uid in uids and 0 <= k.epoch < epochs)
        self.progress.total = total
        self.progress.resumed = resumed

        def keys() -> Iterator[tuple[Instance, SampleKey]]:
            for inst in self.instances:
                for cond in self.conditions:
                    for epoch in range(epochs):
                        key = SampleKey(cond, inst.uid, epoch)
                        if key not in done:
                            yield inst, key

        return total - resumed, keys()

    async def run(self) -> Progress:
        with paused_gc():
            n_pending, it = self.pending()
        self.on_progress(self.progress)
        # A few more workers than slots, so that episode work between calls (building prompts, running
        # tools) overlaps with requests in flight.
        n_workers = min(n_pending, self.spec.concurrency + max(2, self.spec.concurrency // 4))

        async def worker() -> None:
            for inst, key in it:
                if self._fatal is not None:
                    return
                await self._run_sample(inst, key)

        tasks: list[asyncio.Task[None]] = []
        try:
            # One worker more per turn of the loop, so that each request leaves as soon as its connection is
            # up: created together, every worker built its request before the loop next polled its sockets
            # (at --concurrency 192 the first request left alone and the other 191 0.16 s later, a tenth of
            # a second lost to each worker's whole chain of requests; docs/engine.md, "Performance").
            for _ in range(n_workers):
                tasks.append(asyncio.create_task(worker()))
                await asyncio.sleep(0)
            await asyncio.gather(*tasks)
        except BaseException:
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            raise
        if self._fatal is not None:
            raise self._fatal
        return self.progress

    async def _record(self, call: dict[str, Any], sample: dict[str, Any] | None) -> None:
        """Commit a finished call (and its sample row) before the worker moves on.

        The calls that finish in the same turn of the event loop share one transaction, written at the start
        of the next turn: a commit per call was most of the store's cost per request. Each worker still waits
        for its commit, so no more calls are unstored at any moment than before (at most one per worker).
        """
        if not self._warmed:
            self._warm_closing_imports()
        self._batch.append((call, sample))
        if self._batch_done is None:
            loop = asyncio.get_running_loop()
            self._batch_done = loop.create_future()
            loop.call_soon(self._commit_batch)
        await asyncio.shield(self._batch_done)

    def _warm_closing_imports(self) -> None:
        """Import what the closing needs (pyarrow for the results file, the caller's summary) on a thread, once
        the first answer is in: nothing heavy before the first request, and no second of imports after the last
        reply. A module that fails to import here fails again, with its error, where it is used."""
        import importlib
        import threading

        self._warmed = True
        names = (*(("vcot.engine.results",) if self.spec.write_results else ()), *self.spec.warm_modules)

        def warm() -> None:
            for name in names:
                try:
                    importlib.import_module(name)
                except Exception:  # noqa: BLE001, S110 - only a head start; the real import reports the error
                    pass

        if names:
            self._warm_thread = threading.Thread(target=warm, name="vcot-warm-imports", daemon=True)
            self._warm_thread.start()

    def join_warm_imports(self) -> None:
        """Wait for the import thread: no thread of the run outlives it, since a process forked while a thread
        holds an import lock (a library caller's next build on worker processes) can deadlock its child."""
        if self._warm_thread is not None:
            self._warm_thread.join()
            self._warm_thread = None

    def _commit_batch(self) -> None:
        batch, done = self._batch, self._batch_done
        self._batch, self._batch_done = [], None
        try:
            self.store.record_many(batch)
        except Exception as exc:  # noqa: BLE001 - handed to every worker waiting on this commit
            if done is not None and not done.done():
                done.set_exception(exc)
            return
        if done is not None and not done.done():
            done.set_result(None)

    def _on_retry(self, exc: RetryableError) -> None:
        self.progress.retries += 1
        if exc.well_formed:
            self.progress.malformed_retries += 1
        self.on_progress(self.progress)

    async def _call(self, messages: list[Any], tools: Any, ctx: CallContext) -> ModelResponse:
        if self._limiter is not None:
            await self._limiter.acquire()
        resp = await self.client.complete(messages, tools, self.spec.settings, ctx)
        # Scrubbed before the episode, the request digest or the store sees it, so a resumed run rebuilds
        # the same conversation from what was stored.
        return resp.scrubbed()

    async def _run_sample(self, inst: Instance, key: SampleKey) -> None:
        base = {
            "run_id": self.run_id,
            "model": self.model_name,
            "condition": key.condition,
            "uid": key.uid,
            "epoch": key.epoch,
        }
        resuming = self._reopen_started(key)
        episode = self._build_episode(inst, key, base)
        if episode is None:
            return
        history = episode.first_messages()
        tools = episode.tools
        info = episode.record()
        totals = {"in": 0, "out": 0, "lat": 0.0}
        turn = self._replay_stored_turns(inst, key, base, episode, history, tools, info, totals) if resuming else 0
        if turn is None:
            return
        # The steps of a turn are plain methods, not coroutines: an await each would be paid on every request.
        while True:
            ctx = CallContext(self.run_id, key.condition, key.uid, key.epoch, turn, inst)
            digest = request_digest(history, tools, self.model_name, self.sampling)
            started = time.time()
            t0 = time.perf_counter()
            error = None
            attempts = 0
            resp: ModelResponse | None = None
            async with self._sem:
                try:
                    resp, attempts = await call_with_retries(
                        lambda c=ctx: self._call(history, tools, c), self.spec.retry, self._on_retry
                    )
                except AuthError as exc:
                    # Every later call would be refused too: the run stops, and this sample stays unrecorded
                    # so that a rerun with a good key sends it.
                    self._fatal = exc
                    return
                except EngineError as exc:
                    error, attempts = self._call_failure(exc)
                except Exception as exc:  # noqa: BLE001 - an error a client failed to map fails this sample only
                    error, attempts = f"client: {type(exc).__name__}: {str(exc)[:200]}", 1
            call = self._call_row(base, turn, digest, info, started, t0, attempts)
            if resp is None:
                self._record_call_failure(inst, base, turn, error, info, totals, call)
                return
            self._add_reply(resp, call, totals)
            try:
                nxt = episode.on_response(resp)
            except Exception as exc:  # noqa: BLE001 - an episode bug fails this sample only
                self._record_failure(
                    inst,
                    base,
                    turn,
                    f"episode: {type(exc).__name__}: {exc}",
                    info.get("images", []),
                    resp.text,
                    totals["lat"],
                    call,
                )
                return
            if nxt is None or turn + 1 >= self.spec.max_turns:
                await self._record(call, self._finished_row(inst, base, episode, resp, nxt, turn + 1, totals, info))
                self._count_done()
                return
            await self._record(call, None)
            history.append(resp.as_message())
            history.extend(nxt)
            turn += 1

    def _reopen_started(self, key: SampleKey) -> bool:
        """Whether a previous run started this sample. Its failed rows are dropped first, before this try can
        record a failure of its own; its finished turns stay, to be replayed."""
        if key not in self._started:
            return False
        self.store.discard_failed(self.run_id, self.model_name, key)
        return True

    def _build_episode(self, inst: Instance, key: SampleKey, base: dict[str, Any]) -> Episode | None:
        """The sample's episode, or None when it cannot be built (the failure is recorded)."""
        try:
            return REGISTRY.make_episode(inst, key.condition, key.epoch, self.images)
        except Exception as exc:  # noqa: BLE001 - a broken image fails this sample, not the run
            self._record_failure(inst, base, 0, f"prompt: {exc}", [], "", 0)
            return None

    def _replay_stored_turns(
        self,
        inst: Instance,
        key: SampleKey,
        base: dict[str, Any],
        episode: Episode,
        history: list[Message],
        tools: Any,
        info: dict[str, Any],
        totals: dict[str, Any],
    ) -> int | None:
        """Feed the turns a previous run finished (a multi-turn sample interrupted mid-way) through the fresh
        episode, extending `history` and `totals`, without sending them again. Returns the turn to go on from,
        or None when the sample is settled here: the stored turns already finish the episode (the sample is
        recorded), or they do not match the rebuilt conversation (the sample fails)."""
        turn = 0
        for row in self.store.done_turns(self.run_id, self.model_name, key):
            if row["turn"] != turn or row["request_digest"] != request_digest(
                history, tools, self.model_name, self.sampling
            ):
                self._record_failure(
                    inst,
                    base,
                    turn,
                    "resume: stored turns do not match the rebuilt conversation (prompts or episode changed)",
                    info.get("images", []),
                    "",
                    0,
                )
                return None
            last = _stored_reply(row)
            totals["in"] += row["input_tokens"] or 0
            totals["out"] += row["output_tokens"] or 0
            totals["lat"] += row["latency_s"] or 0.0
            nxt = episode.on_response(last)
            history.append(last.as_message())
            turn += 1
            if nxt is None or turn >= self.spec.max_turns:
                self.store.record(None, self._finished_row(inst, base, episode, last, nxt, turn, totals, info))
                self._count_done()
                return None
            history.extend(nxt)
        return turn

    def _call_failure(self, exc: EngineError) -> tuple[str, int]:
        """The error and attempt count recorded for a call that raised (a rejected key is not one of them: it
        stops the run instead)."""
        if isinstance(exc, RetryableError):
            attempts = exc.attempts or self.spec.retry.max_attempts
            return f"{exc.kind}: {exc} (gave up after {attempts} attempt{'s' * (attempts != 1)})", attempts
        if isinstance(exc, FatalCallError):
            return f"rejected: {exc}", 1
        return f"engine: {exc}", 0

    def _call_row(
        self,
        base: dict[str, Any],
        turn: int,
        digest: str,
        info: dict[str, Any],
        started: float,
        t0: float,
        attempts: int,
    ) -> dict[str, Any]:
        """The store's row for one turn's call, timed up to now; the caller adds its reply or error."""
        latency = time.perf_counter() - t0
        return {
            **base,
            "turn": turn,
            "request_digest": digest,
            "request": json.dumps(info) if turn == 0 else None,
            "latency_s": latency,
            "attempts": attempts,
            "started_at": started,
            "finished_at": time.time(),
        }

    def _add_reply(self, resp: ModelResponse, call: dict[str, Any], totals: dict[str, Any]) -> None:
        """Put a reply into its call row, and its tokens and latency into the sample's and the run's totals."""
        totals["in"] += resp.input_tokens or 0
        totals["out"] += resp.output_tokens or 0
        totals["lat"] += call["latency_s"]
        self.progress.input_tokens += resp.input_tokens or 0
        self.progress.output_tokens += resp.output_tokens or 0
        call.update(
            response=resp.raw,
            text=resp.text,
            finish_reason=resp.finish_reason,
            input_tokens=resp.input_tokens,
            output_tokens=resp.output_tokens,
            tool_calls=json.dumps([c.record() for c in resp.tool_calls]) if resp.tool_calls else None,
        )

    def _finished_row(
        self,
        inst: Instance,
        base: dict[str, Any],
        episode: Episode,
        last: ModelResponse,
        nxt: list[Message] | None,
        n_turns: int,
        totals: dict[str, Any],
        info: dict[str, Any],
    ) -> dict[str, Any]:
        """The sample row of an episode that is over: it ended (`nxt` is None) or ran out of turns."""
        return self._sample_row(
            inst,
            base,
            "ok",
            last.text,
            None,
            n_turns,
            totals,
            last.finish_reason if nxt is None else "max_turns",
            info.get("images", []),
            episode,
        )

    def _count_done(self) -> None:
        self.progress.done += 1
        self.on_progress(self.progress)

    def _sample_row(
        self,
        inst: Instance,
        base: dict[str, Any],
        status: str,
        response: str | None,
        error: str | None,
        n_turns: int,
        totals: dict[str, Any],
        finish_reason: str | None,
        images: list[Any],
        episode: Any = None,
    ) -> dict[str, Any]:
        # What the episode learned while running (VAoT: actions, corruptions applied, returned images).
        record = episode.record() if episode is not None else None
        return {
            **base,
            "task": inst.task,
            "domain": inst.domain,
            "answer_type": str(inst.answer_type),
            "gold": inst.answer,
            "options": json.dumps(inst.options) if inst.options is not None else None,
            "status": status,
            "response": response,
            "error": error,
            "n_turns": n_turns,
            "input_tokens": totals["in"],
            "output_tokens": totals["out"],
            "latency_s": totals["lat"],
            "finish_reason": finish_reason,
            "images": json.dumps(images),
            "episode": json.dumps(record, sort_keys=True) if record else None,
            "finished_at": time.time(),
        }

    def _record_call_failure(
        self,
        inst: Instance,
        base: dict[str, Any],
        turn: int,
        error: str | None,
        info: dict[str, Any],
        totals: dict[str, Any],
        call: dict[str, Any],
    ) -> None:
        """Record the sample as failed by its call's error, the call's time counted in the sample's latency."""
        call["error"] = error
        self._record_failure(
            inst,
            base,
            turn,
            error or "unknown error",
            info.get("images", []),
            "",
            totals["lat"] + call["latency_s"],
            call,
        )

    def _record_failure(
        self,
        inst: Instance,
        base: dict[str, Any],
        turn: int,
        error: str,
        images: list[Any],
        response: str,
        latency: float,
        call: dict[str, Any] | None = None,
    ) -> None:
        """Record the sample as failed at `turn` (with the failed call's row, or a stand-in when no call was
        made) and count it."""
        call = call or {
            **base,
            "turn": turn,
            "request_digest": "",
            "error": error,
            "started_at": time.time(),
            "finished_at": time.time(),
        }
        call.setdefault("error", error)
        sample = self._sample_row(
            inst, base, "error", response or None, error, turn + 1, {"in": 0, "out": 0, "lat": latency}, None, images
        )
        self.store.record(call, sample)
        self.progress.errors += 1
        self.on_progress(self.progress)


def _stored_reply(row: Any) -> ModelResponse:
    """A stored turn's reply, as the model gave it."""
    return ModelResponse(
        text=row["text"] or "",
        finish_reason=row["finish_reason"],
        tool_calls=[ToolCall(**c) for c in json.loads(row["tool_calls"] or "[]")],
        input_tokens=row["input_tokens"],
        output_tokens=row["output_tokens"],
    )


async def arun_eval(
    spec: EvalSpec,
    on_progress: Callable[[Progress], None] | None = None,
    on_start: Callable[[dict[str, Any]], None] | None = None,
) -> RunResult:
    """Validate everything that can fail early, then run. Raises ConfigError (clear message) or SuiteError."""
    from vcot.suite import read_suite

    if spec.epochs < 1:
        raise ConfigError("--epochs must be at least 1")
    if spec.concurrency < 1:
        raise ConfigError("--concurrency must be at least 1")
    rpm = spec.requests_per_minute
    if rpm is not None and not (rpm > 0 and math.isfinite(rpm)):
        # A negative rate made the limiter wait forever after the first request.
        raise ConfigError(f"--rpm must be a positive number of requests per minute, got {rpm}")
    with paused_gc():
        # Images are checked when first encoded (images.py), not all before the first request
        # (docs/evaluation.md).
        suite = read_suite(spec.suite, check_images="none")
        instances = select_instances(suite.instances, spec.tasks, spec.limit)
        conditions, skipped = resolve_conditions(instances, spec.conditions)
        client = make_client(
            spec.model,
            spec.base_url,
            spec.api_key_env,
            tag_requests=spec.tag_requests,
            max_connections=max(16, spec.concurrency * 2),
            endpoint_concurrency=spec.endpoint_concurrency,
        )
    endpoints: list[dict[str, Any]] | None = None
    try:
        # Before the run folder is made: an endpoint where nothing listens leaves nothing behind.
        await client.preflight()
        run_id, settings = run_identity(suite, client, spec)
        run_dir = (
            Path(spec.run_dir)
            if spec.run_dir
            else Path(spec.runs_root) / f"{_slug(suite.name)}-{_slug(spec.model)}-{run_id}"
        )
        run_dir.mkdir(parents=True, exist_ok=True)
        lock = _RunLock(run_dir / ".lock")
        try:
            store = RunStore(run_dir / STORE_NAME)
            try:
                existing = store.run_ids()
                if existing and run_id not in existing:
                    old = store.run_settings(existing[0]) or {}
                    diff = _identity_differences(old, settings)
                    if diff:
                        held = old.get("model")
                        held = held.get("model", "?") if isinstance(held, dict) else held
                        raise ConfigError(
                            f"{run_dir} holds a run of model {held!r} with different "
                            f"{', '.join(diff)} than this one ({spec.model}); choose another "
                            "--run folder"
                        )
                    # A run recorded when the endpoint was part of the id: same run, keep its id.
                    run_id = existing[0]
                    settings = {**settings, "run_id": run_id}
                store.init_run(run_id, settings)
                if on_start is not None:
                    on_start(
                        {
                            **settings,
                            "conditions": conditions,
                            "skipped_conditions": skipped,
                            "run_dir": str(run_dir),
                            "instances": len(instances),
                            "selected": instances,
                        }
                    )
                runner = Runner(spec, suite, instances, conditions, client, store, run_id, on_progress)
                session = time.time()
                try:
                    progress = await runner.run()
                finally:
                    runner.join_warm_imports()
                    endpoints = _record_endpoints(store, run_id, session, client)
            finally:
                store.close()
        finally:
            lock.release()
    finally:
        await client.aclose()
    results_path = table = None
    if spec.write_results:
        from vcot.engine.results import results_table, write_results

        table = results_table(run_dir)
        results_path = write_results(run_dir, table)
    return RunResult(run_id, run_dir, conditions, progress, skipped, results_path, suite, table, endpoints)


def _record_endpoints(store: RunStore, run_id: str, session: float, client: ModelClient) -> list[dict[str, Any]] | None:
    """Store this invocation's per-endpoint figures (a client over several endpoints has them), an interrupted
    run's too; they are provenance, so a store that cannot take them does not fail the run."""
    stats = getattr(client, "endpoint_stats", None)
    if stats is None:
        return None
    rows = stats()
    try:
        store.record_endpoints(run_id, session, rows)
    except Exception:  # noqa: BLE001, S110 - the samples are stored; only the figures are lost
        pass
    return rows


def run_eval(
    spec: EvalSpec,
    on_progress: Callable[[Progress], None] | None = None,
    on_start: Callable[[dict[str, Any]], None] | None = None,
) -> RunResult:
    """Run `spec` to the end in a fresh event loop (see `arun_eval`): every call and finished sample is stored
    in the run folder's store as it happens, so a rerun resumes; returns the RunResult with the results
    table. `on_start` gets the run's plan once it is checked (with the selected instances as "selected"),
    `on_progress` the counts as they change."""
    return asyncio.run(arun_eval(spec, on_progress, on_start))
