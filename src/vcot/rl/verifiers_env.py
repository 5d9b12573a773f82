"""verifiers adapter (Prime Intellect's environment library, 0.4: the `verifiers.v1` stack): vcot's problems
as an infinite taskset, its drawing episode as the agent's harness, its grader as the task's reward.

verifiers 0.4 splits an environment into a taskset (data in, typed tasks out), a harness (the program that
talks to the model through verifiers' interception server) and an `Env` that runs one task as an episode.
Each piece here is a thin layer over `vcot.rl.env.VcotEnv`, the core every trainer adapter speaks:

- `VcotTaskset` (`INFINITE`): its `load()` draws from a `VcotEnv`'s own seeded stream (curriculum and
  exclusions applied); each `VcotTask` carries the episode's first messages as its prompt (pictures as PNG
  data URIs, which is how verifiers' typed messages hold images), the drawing tools as OpenAI function
  definitions, and the row that regenerates the problem on another machine.
- `VcotTask.setup` opens the rollout's own `VcotEnv` on that problem; `VcotHarness` plays the episode
  in-process: each model reply goes through the interception endpoint (so verifiers records, limits and, for
  training, tokenises every turn) and then to `VcotEnv.step`, whose observation (tool results with the
  pictures drawn) is the next request's tail. Tool pictures travel as `vcot eval` sends them over
  chat-completions (`vcot.rl.formats.to_openai`): a text tool message, then a user message with the
  pictures, because vLLM refuses images inside tool results.
- Rewards (verifiers 0.4 scores a rollout as a whole; the trace's reward is their sum, the episode's return):
  `final`, `VcotEnv.step`'s reward of the last reply (the grader's, `VcotEnv.grade`, plus that turn's step
  reward), and `steps`, its rewards of the replies before (step rewards, refused-action penalties; 0 by
  default). A rollout that verifiers stops before the model answers (its turn or token limits, a timeout)
  has its last reply graded as cut off.

`load_environment(**kwargs)` builds the whole `Env` from `VcotEnv`'s keyword arguments. verifiers resolves a
taskset or harness id by importing a top-level module of that name (0.4's loader cannot import a dotted id),
so importing this module registers it as `vcot_verifiers` too; `vf-eval` and prime-rl, which import by id
in fresh processes, need a one-line package of that name (`from vcot.rl.verifiers_env import *`).

`run_scripted` drives one episode through verifiers' real rollout (serving, interception, scoring) against a
scripted chat-completions server on loopback (`scripted_policy`); `doctor_trace` is `vcot rl doctor`'s
episode on it (`vcot.rl.conformance`).

Only this module imports verifiers. verifiers 0.4.0 pins `openai<3`, but uses only the SDK's types, errors and
client, which vcot's openai 3 still has: install it with `--no-deps` and its imported
dependencies beside it (the "rl-verifiers" extra).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
import time
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import httpx
import verifiers.v1 as vf
from pydantic import ConfigDict, Field
from verifiers.v1.runtimes import ProgramResult, SubprocessConfig
from verifiers.v1.types import content_text

from vcot.vaot.actions import MAX_TURNS

if TYPE_CHECKING:
    from vcot.rl.curriculum import Curriculum
    from vcot.rl.env import VcotEnv
    from vcot.rl.problems import Problem

__all__ = [
    "TASKSET_ID",
    "VcotHarness",
    "VcotHarnessConfig",
    "VcotState",
    "VcotTask",
    "VcotTaskConfig",
    "VcotTaskData",
    "VcotTaskset",
    "VcotTasksetConfig",
    "doctor_trace",
    "load_environment",
    "run_scripted",
    "scripted_policy",
    "task_for",
    "to_wire",
]

# The id verifiers resolves to this module (see the module docstring).
TASKSET_ID = "vcot_verifiers"
# The columns `vcot.rl.problem_from_row` regenerates a problem from.
ROW_KEYS = ("task", "difficulty", "params", "seed", "index", "condition", "variant")


# -- messages ---------------------------------------------------------------------------------------------------


def to_wire(messages: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """`VcotEnv` observations (Hugging Face form) as chat-completions messages, pictures as PNG data URIs."""
    from vcot.rl.formats import from_hf, to_openai

    return to_openai(from_hf(messages))


def _reply(message: Mapping[str, Any]) -> dict[str, Any]:
    """A chat-completions assistant message, kept as the model sent it (None fields dropped) so the next
    request repeats it verbatim: verifiers matches each request's prefix against the turns it recorded."""
    return {k: v for k, v in message.items() if v is not None}


# -- taskset and tasks ------------------------------------------------------------------------------------------


class VcotTaskData(vf.TaskData):
    """One vcot problem as verifiers carries it (on every trace as `trace.task.data`). `id` is the problem's
    uid, `name` its task; `row` regenerates the problem (`vcot.rl.problem_from_row`)."""

    row: dict[str, Any]
    answer: str = ""
    answer_type: str = ""
    tools: list[dict[str, Any]] | None = None
    """The drawing actions as OpenAI function definitions (None for the single-turn conditions)."""


class VcotTaskConfig(vf.TaskConfig):
    """The reward's and the episode's knobs (`VcotEnv`'s): all 0 by default, so the reward is the grader's
    0/1 (`invalid_penalty` is due per refused drawing action); `max_turns` is the drawing budget the prompt
    states."""

    step_weight: float = Field(0.0, ge=0, le=10)
    invalid_penalty: float = Field(0.0, ge=0, le=10)
    format_weight: float = Field(0.0, ge=0, le=10)
    max_turns: int = Field(MAX_TURNS, ge=0, le=64)


class VcotState(vf.State):
    """What one rollout's episode did, for the reward and for inspection (never serialised with a trace)."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    env: Any = Field(None, exclude=True)
    """The rollout's `VcotEnv` (opened by `VcotTask.setup`, driven by `VcotHarness`)."""
    rewards: list[float] = Field(default_factory=list)
    """`VcotEnv.step`'s reward for each reply: step rewards, then the grader's at the end."""
    terminated: bool = False
    truncated: bool = False
    returned: list[str] = Field(default_factory=list)
    """Pixel digests of the pictures the drawing tools returned, in order."""

    def env_done(self) -> bool:
        """Whether the episode ended in the env (the model answered, or the env's own budget ran out)."""
        return self.terminated or self.truncated


class VcotTask(vf.Task[VcotTaskData, VcotState, VcotTaskConfig]):
    """A vcot problem: opens the rollout's `VcotEnv` and scores the rollout with it."""

    def __init__(
        self,
        data: VcotTaskData,
        config: VcotTaskConfig | None = None,
        *,
        problem: Problem | None = None,
        curriculum: Curriculum | None = None,
    ) -> None:
        super().__init__(data, config)
        # The taskset's own objects, when the task was drawn in this process: the problem (not regenerated)
        # and the curriculum its grades feed. A task rebuilt from its wire data regenerates the problem from
        # `row` and feeds no curriculum.
        self._problem = problem
        self._curriculum = curriculum

    @property
    def key(self) -> str:
        return f"{self.data.id}/{self.data.row.get('condition', '')}"

    def problem(self) -> Problem:
        if self._problem is None:
            from vcot.rl.problems import problem_from_row

            self._problem = problem_from_row(self.data.row)
        return self._problem

    def open_env(self) -> VcotEnv:
        """A `VcotEnv` reset onto this task's problem (each rollout gets its own)."""
        from vcot.rl.env import VcotEnv

        cfg = self.config
        env = VcotEnv(
            condition=str(self.data.row["condition"]),
            curriculum=self._curriculum,
            step_weight=cfg.step_weight,
            invalid_penalty=cfg.invalid_penalty,
            format_weight=cfg.format_weight,
            max_turns=cfg.max_turns,
        )
        env.reset(options={"problem": self.problem()})
        return env

    async def setup(self, trace: vf.Trace, runtime: vf.Runtime) -> None:
        trace.state.env = self.open_env()

    @vf.reward
    async def steps(self, trace: vf.Trace) -> float:
        """`VcotEnv.step`'s rewards of the replies before the last (step rewards, refused-action penalties).
        verifiers 0.4 scores a rollout as a whole, so the episode's return is this plus `final`."""
        return float(sum(trace.state.rewards[:-1] if trace.state.env_done() else trace.state.rewards))

    @vf.reward
    async def final(self, trace: vf.Trace) -> float:
        """`VcotEnv.step`'s reward of the last reply: the grader's (`VcotEnv.grade`) plus that turn's step
        reward. A rollout verifiers stopped before the episode ended (its turn or token limits, a timeout)
        has its last reply graded as cut off."""
        state: VcotState = trace.state
        if state.env_done():
            return float(state.rewards[-1])
        env = state.env if state.env is not None else self.open_env()
        last = next((m for m in reversed(trace.messages) if m.role == "assistant"), None)
        return env.grade(content_text(last.content) if last and last.content else "", truncated=True)

    @vf.metric
    async def correct(self, trace: vf.Trace) -> float:
        env = trace.state.env
        details = getattr(env, "details", None)
        return float(bool(details and details.correct))

    @vf.metric
    async def pictures_returned(self, trace: vf.Trace) -> float:
        return float(len(trace.state.returned))


class VcotTasksetConfig(vf.TasksetConfig):
    """The problem stream's settings (`vcot.rl.stream` via `VcotEnv`). `curriculum`: keyword arguments of
    `vcot.rl.Curriculum` (its `tasks` default to `tasks`); `load_environment` also takes a built one."""

    id: str = TASKSET_ID
    task: VcotTaskConfig = VcotTaskConfig()
    tasks: list[str] | None = None
    preset: str | None = None
    condition: str = "vaot"
    difficulty: str | dict[str, str] | None = None
    params: dict[str, Any] | None = None
    seed: int = 0
    exclude: list[str] | None = None
    curriculum: dict[str, Any] | None = None


class VcotTaskset(vf.Taskset[VcotTask, VcotTasksetConfig]):
    """vcot's infinite, seeded problem stream as tasks; each iteration restarts it at `seed`."""

    INFINITE = True

    def __init__(self, config: VcotTasksetConfig) -> None:
        super().__init__(config)
        self.curriculum: Curriculum | None = None
        if config.curriculum is not None:
            from vcot.rl.curriculum import Curriculum

            spec = dict(config.curriculum)
            tasks = spec.pop("tasks", None) or config.tasks
            if not tasks:
                raise ValueError("a curriculum needs its tasks: set curriculum.tasks or tasks")
            self.curriculum = Curriculum(tasks, **spec)

    def source(self) -> VcotEnv:
        """A `VcotEnv` over this taskset's stream, from its start."""
        from vcot.rl.env import VcotEnv

        c = self.config
        return VcotEnv(
            c.tasks,
            condition=c.condition,
            preset=c.preset,
            difficulty=c.difficulty,
            params=c.params,
            seed=c.seed,
            exclude=c.exclude,
            curriculum=self.curriculum,
            max_turns=c.task.max_turns,
        )

    def load(self) -> Iterator[VcotTask]:
        env = self.source()
        while True:
            observation, info = env.reset()
            yield _task(observation, info, self.config.task, self.curriculum)


def _task(
    observation: list[dict[str, Any]],
    info: Mapping[str, Any],
    config: VcotTaskConfig,
    curriculum: Curriculum | None = None,
) -> VcotTask:
    """The task of a `VcotEnv.reset`'s observation and info."""
    problem: Problem = info["problem"]
    row = {k: v for k, v in problem.row().items() if k in ROW_KEYS}
    data = VcotTaskData(
        id=problem.uid,
        name=problem.task,
        prompt=to_wire(observation),
        row=row,
        answer=problem.answer,
        answer_type=problem.answer_type,
        tools=info["tools"],
    )
    return VcotTask(data, config, problem=problem, curriculum=curriculum)


def task_for(problem: Problem, config: VcotTaskConfig | None = None) -> VcotTask:
    """The task of one given problem (a suite instance, a row a trainer names), outside any stream."""
    from vcot.rl.env import VcotEnv

    config = config or VcotTaskConfig()
    env = VcotEnv(condition=problem.condition, max_turns=config.max_turns)
    observation, info = env.reset(options={"problem": problem})
    return _task(observation, info, config)


# -- harness ----------------------------------------------------------------------------------------------------


class VcotHarnessConfig(vf.HarnessConfig):
    id: str = TASKSET_ID
    connect_timeout: float = Field(30.0, gt=0)
    """Seconds to reach the interception endpoint; a turn itself is bounded by the agent's timeouts."""


class VcotHarness(vf.Harness[VcotHarnessConfig]):
    """Plays a `VcotTask`'s episode in-process: verifiers 0.4 allows a harness loop in the host process as
    long as every model call goes through the rollout's interception endpoint, which this one does. Nothing
    runs in the runtime (no program, no code execution), so the local subprocess runtime is enough."""

    APPENDS_SYSTEM_PROMPT = True
    EXECUTES_CODE = False
    NEEDS_CONTAINER = False

    async def launch(
        self,
        ctx: vf.ModelContext,
        trace: vf.Trace,
        runtime: vf.Runtime,
        endpoint: str,
        secret: str,
        mcp_urls: dict[str, str],
        data: vf.TaskData,
    ) -> ProgramResult:
        state = trace.state
        env: VcotEnv | None = getattr(state, "env", None)
        if env is None or not isinstance(data, VcotTaskData):
            return ProgramResult(1, "", "the vcot harness plays vcot tasks only (VcotTask.setup opens the env)")
        messages: list[dict[str, Any]] = []
        if data.system_prompt:
            messages.append({"role": "system", "content": data.system_prompt})
        if isinstance(data.prompt, str):
            messages.append({"role": "user", "content": data.prompt})
        else:
            messages.extend(m.model_dump(mode="json", exclude_none=True) for m in data.prompt or [])
        body: dict[str, Any] = {"model": ctx.model}
        if data.tools:
            body["tools"] = data.tools
        timeout = httpx.Timeout(None, connect=self.config.connect_timeout)
        async with httpx.AsyncClient(timeout=timeout) as client:
            while not env.done:
                r = await client.post(
                    f"{endpoint.rstrip('/')}/chat/completions",
                    json={**body, "messages": messages},
                    headers={"Authorization": f"Bearer {secret}"},
                )
                if r.status_code != 200:
                    # A refused turn (a limit or @stop ended the rollout) is recorded on the trace, which
                    # `_check_result` reads; anything else fails the rollout with the server's words.
                    return ProgramResult(1, "", f"interception {r.status_code}: {r.text[-2000:]}")
                choice = r.json()["choices"][0]
                reply = _reply(choice["message"])
                messages.append(reply)
                if choice.get("finish_reason") == "length":
                    # Cut off by the token limit: its actions are not run, and it is graded as the grader
                    # grades a cut-off completion (only a complete <answer> tag counts).
                    state.rewards.append(env.grade(reply.get("content") or "", truncated=True))
                    state.truncated = True
                    break
                observation, reward, terminated, truncated, info = env.step(reply)
                state.rewards.append(float(reward))
                state.returned.extend(info.get("returned", []))
                state.terminated, state.truncated = terminated, truncated
                messages.extend(to_wire(observation))
        return ProgramResult(0, "", "")


# -- the environment --------------------------------------------------------------------------------------------


def load_environment(
    tasks: str | list[str] | None = None,
    *,
    condition: str = "vaot",
    preset: str | None = None,
    difficulty: str | Mapping[str, str] | None = None,
    params: Mapping[str, Any] | None = None,
    seed: int = 0,
    exclude: Sequence[str] | None = None,
    curriculum: Curriculum | Mapping[str, Any] | None = None,
    step_weight: float = 0.0,
    invalid_penalty: float = 0.0,
    format_weight: float = 0.0,
    max_turns: int = MAX_TURNS,
    agent: Mapping[str, Any] | None = None,
) -> vf.Env:
    """The verifiers `Env` over `VcotEnv`'s stream (its keyword arguments): one agent seat played by
    `VcotHarness` on the local subprocess runtime. `agent`: verifiers `AgentConfig` fields to override
    (`max_turns`, `timeout`, `sampling`, ...). Run it with `env.serving()` and `env.run_episode(task, ctx)`
    (or `vf.Env.run_slot`), tasks from `env.taskset`."""
    built = curriculum if curriculum is not None and not isinstance(curriculum, Mapping) else None
    taskset = VcotTasksetConfig(
        tasks=[tasks] if isinstance(tasks, str) else tasks,
        condition=condition,
        preset=preset,
        difficulty=dict(difficulty) if isinstance(difficulty, Mapping) else difficulty,
        params=dict(params) if params is not None else None,
        seed=seed,
        exclude=[str(e) for e in exclude] if exclude is not None else None,
        curriculum=dict(curriculum) if isinstance(curriculum, Mapping) else None,
        task=VcotTaskConfig(
            step_weight=step_weight, invalid_penalty=invalid_penalty, format_weight=format_weight, max_turns=max_turns
        ),
    )
    seat = {"harness": VcotHarnessConfig(), "runtime": SubprocessConfig(), **dict(agent or {})}
    env = vf.load_environment(vf.SingleAgentEnvConfig(taskset=taskset, agent=vf.AgentConfig(**seat)))
    if built is not None:
        env.taskset.curriculum = built
    return env


# -- a scripted policy, and the model doctor's episode ---------------------------------------------------------


@contextlib.asynccontextmanager
async def scripted_policy(replies: Sequence[Mapping[str, Any]]) -> AsyncIterator[tuple[str, list[dict[str, Any]]]]:
    """A chat-completions server on 127.0.0.1 (a free port) whose k-th answer is `replies[k]` (an assistant
    message: `content`, `tool_calls`; `finish_reason` to override the one implied): yields (its base URL, the request
    bodies it received). For checks that
    drive verifiers' real rollout (its interception relays to this over HTTP) without a model."""
    from aiohttp import web

    seen: list[dict[str, Any]] = []

    async def chat(request: web.Request) -> web.Response:
        body = await request.json()
        seen.append(body)
        if len(seen) > len(replies):
            return web.json_response(
                {"error": {"message": "the script has ended", "type": "invalid_request_error"}}, status=400
            )
        message = {"role": "assistant", "content": None, **replies[len(seen) - 1]}
        finish = message.pop("finish_reason", None) or ("tool_calls" if message.get("tool_calls") else "stop")
        return web.json_response(
            {
                "id": f"chatcmpl-{len(seen)}",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": body.get("model", "scripted"),
                "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
            }
        )

    app = web.Application(client_max_size=256 * 2**20)
    app.router.add_post("/v1/chat/completions", chat)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    try:
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        yield f"http://127.0.0.1:{runner.addresses[0][1]}/v1", seen
    finally:
        await runner.cleanup()


def run_scripted(
    env: vf.Env, task: VcotTask, replies: Sequence[Mapping[str, Any]], *, timeout: float = 120.0
) -> tuple[vf.Episode, list[dict[str, Any]]]:
    """One episode of `task` through verifiers (`Env.serving`, `Env.run_episode`) against `scripted_policy`:
    (the episode, the request bodies the policy received)."""

    async def run() -> tuple[vf.Episode, list[dict[str, Any]]]:
        async with scripted_policy(replies) as (url, seen):
            ctx = vf.ModelContext(
                model="scripted", client=vf.EvalClientConfig(base_url=url, api_key_var="VCOT_SCRIPTED_POLICY_KEY")
            )
            async with env.serving():
                episode = await asyncio.wait_for(env.run_episode(task, ctx), timeout)
            return episode, seen

    return asyncio.run(run())


def _call(name: str, arguments: Mapping[str, Any], k: int) -> dict[str, Any]:
    return {"id": f"call_{k}", "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}


def doctor_trace(processor: Any) -> Any:
    """`vcot rl doctor`'s episode through verifiers (`vcot.rl.conformance`): the scripted 3-turn drawing
    episode through `run_scripted`; the conversations are what the policy received before turns 2 and 3."""
    from vcot.rl import conformance as c

    problem = c._problem()
    env = load_environment(problem.task, invalid_penalty=c.PENALTY)
    task = task_for(problem, env.taskset.config.task)
    replies = [
        {"content": "", "tool_calls": [_call("draw_line", c.LINE, 1)]},
        {"content": "", "tool_calls": [_call("draw_circle", c.BAD, 2), _call("crop_zoom", c.ZOOM, 3)]},
        {"content": f"<answer>{problem.answer}</answer>"},
    ]
    episode, seen = run_scripted(env, task, replies)
    if not episode.traces:
        raise RuntimeError(f"verifiers ran no rollout: {episode.errors}")
    trace = episode.traces[0]
    if trace.last_error is not None:
        raise RuntimeError(f"the rollout failed: {trace.last_error.message}")
    out = c.Trace(tools=seen[-1].get("tools") if seen else None)
    out.conversations = [c._hf(body["messages"]) for body in seen[1:]]
    out.sent = c._replayed(problem)
    got = {name: (r.score if r is not None else None) for name, r in trace.rewards.items()}
    out.rewards = [("steps", -c.PENALTY, got.get("steps")), ("final", 1.0, got.get("final"))]
    return out


# verifiers imports a taskset/harness id as a top-level module name (see the module docstring).
sys.modules.setdefault(TASKSET_ID, sys.modules[__name__])
