"""OpenEnv adapter (optional extra "rl-openenv"): vcot's environment core served and driven the OpenEnv way.

Built on the contracts of OpenEnv 0.10: the `openenv` distribution, installed on top of the extra with
`pip install --no-deps openenv==0.10.0` (its declared dependencies add gradio, for a web UI this adapter does
not use, which pins pillow<13, and fastmcp<4, whose mcp<2 clashes with the verifiers extra's mcp 2; its
server runs on fastmcp 4). `openenv-core` was the distribution's name up to 0.3 and installs the same `openenv`
package, so only one of the two may be installed.

- `VcotEnvironment`, an `openenv.core.Environment` around one `vcot.rl.env.VcotEnv`. `reset(seed=None,
  episode_id=None, row=None)` starts an episode (`row` puts it on one problem: task, difficulty, params, seed,
  index, variant, posed in the environment's condition; without it the next problem of the core's own
  stream), `step(VcotAction)` plays one assistant turn: drawing tool calls, or the final answer when it calls
  no tool.
- `VcotAction`: the assistant's turn (`content`, `tool_calls`), as the core's `step` takes it.
- `VcotObservation`: the turn's new messages in OpenAI chat form, each picture a PNG data URI so that it
  crosses HTTP, with the pixel digests the server computed of each picture (`digests`, in message order) for
  the client to check what it decoded. `hf_messages()` gives the messages back in Hugging Face form with PIL
  pictures, ready for a processor's chat template, and refuses pictures whose pixels differ from the
  server's.
- `VcotRubric`, the environment's OpenEnv rubric: the reward the core gave the turn, which is vcot's grader
  (`vcot.rl.reward`) on the turn that ends the episode and the step rewards (0 unless weighted) before it.
  The environment sets `observation.reward` through `Environment._apply_rubric`, so trainers that read or
  compose `env.rubric` (its `last_score`, hooks, `WeightedSum`) see the same numbers as the observation.
- `VcotEnvClient`, an `openenv.core.EnvClient`: one WebSocket session per client, `.sync()` for plain code.
- `create_vcot_app(...)` builds the FastAPI app (OpenEnv's `create_fastapi_app`); `serve(...)` runs it with
  uvicorn in a thread for as long as a `with` block lasts (loopback, a free port, yields the base URL);
  `python -m vcot.rl.openenv --port 8000` serves it in the foreground.
- `doctor_trace(processor)`: `vcot rl doctor`'s 3-turn episode (`vcot.rl.conformance`) through a served app
  and `VcotEnvClient`.

An episode lives in one WebSocket session (what `VcotEnvClient` opens). OpenEnv's plain HTTP `/reset` and
`/step` routes build a fresh environment for every request, so they answer a reset but cannot carry an
episode across calls.
"""

from __future__ import annotations

import argparse
import base64
import binascii
import contextlib
import functools
import io
import itertools
import json
import socket
import threading
import time
import uuid
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from openenv.core.client_types import StepResult
from openenv.core.env_client import EnvClient
from openenv.core.env_server.http_server import create_fastapi_app
from openenv.core.env_server.interfaces import Environment
from openenv.core.env_server.types import Action, EnvironmentMetadata, Observation, State
from openenv.core.rubrics import Rubric
from PIL import Image
from pydantic import BaseModel, ConfigDict, Field

from vcot.draw.png import encode_png, pixel_digest

if TYPE_CHECKING:
    from fastapi import FastAPI

    from vcot.rl.env import VcotEnv

PNG_DATA_URI = "data:image/png;base64,"
# Row keys that name a problem (what `VcotEnv.reset(options={"row": ...})` reads).
ROW_KEYS = ("task", "difficulty", "params", "seed", "index", "condition", "variant")
_call_ids = itertools.count(1)


class EpisodeOver(RuntimeError):
    """A step after the episode ended (answered or out of turns): reset first."""


# --- wire form of the messages -----------------------------------------------------------------------------------


def problem_row(problem: Any) -> dict[str, Any]:
    """The keys that name a problem, from a `vcot.rl.Problem` or any row holding them (a dataset row, say):
    small and JSON-ready, what `reset(row=...)` sends."""
    row = problem.row() if hasattr(problem, "row") and callable(problem.row) else problem
    if not isinstance(row, Mapping):
        raise TypeError(f"a problem row must be a mapping or a vcot.rl.Problem, got {type(problem).__name__}")
    return {k: row[k] for k in ROW_KEYS if k in row}


def _png_uri(image: Image.Image) -> str:
    return PNG_DATA_URI + base64.b64encode(encode_png(image)).decode("ascii")


def encode_messages(messages: Sequence[Mapping[str, Any]]) -> tuple[list[dict[str, Any]], list[str]]:
    """Hugging Face chat messages (pictures as PIL parts) → (OpenAI chat form with PNG data URIs, the pixel
    digest of every picture in message order). PNG is lossless, so a client decoding a URI gets the same
    pixels, mode and size, and hence the same digest."""
    out, digests = [], []
    for m in messages:
        msg = {k: v for k, v in m.items() if k != "content"}
        content = m.get("content")
        if isinstance(content, list):
            parts = []
            for part in content:
                image = part.get("image") if isinstance(part, Mapping) else None
                if isinstance(image, Image.Image):
                    parts.append({"type": "image_url", "image_url": {"url": _png_uri(image)}})
                    digests.append(pixel_digest(image))
                else:
                    parts.append(dict(part))
            content = parts
        msg["content"] = content
        out.append(msg)
    return out, digests


def decode_picture(url: str) -> Image.Image:
    """The picture of a PNG data URI, in the mode it was written in (no conversion, so digests compare)."""
    if not url.startswith(PNG_DATA_URI):
        raise ValueError(f"not a PNG data URI: {url[:40]!r}")
    try:
        raw = base64.b64decode(url[len(PNG_DATA_URI) :], validate=True)
    except binascii.Error as exc:
        raise ValueError(f"a picture's data URI is not valid base64: {exc}") from exc
    with Image.open(io.BytesIO(raw)) as im:
        im.load()
        return im.copy()


def decode_messages(messages: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """OpenAI chat form (pictures as PNG data URIs) → Hugging Face form, each picture a
    `{"type": "image", "image": PIL}` part where its `image_url` part was."""
    out = []
    for m in messages:
        msg = dict(m)
        content = m.get("content")
        if isinstance(content, list):
            msg["content"] = [
                {"type": "image", "image": decode_picture(part["image_url"]["url"])}
                if isinstance(part, Mapping) and part.get("type") == "image_url"
                else dict(part)
                for part in content
            ]
        out.append(msg)
    return out


def pictures(messages: Sequence[Mapping[str, Any]]) -> list[Image.Image]:
    """The PIL pictures of Hugging Face form messages, in order (what a processor takes beside the text)."""
    return [
        part["image"]
        for m in messages
        if isinstance(m.get("content"), list)
        for part in m["content"]
        if isinstance(part, Mapping) and part.get("type") == "image"
    ]


# --- action, observation, state ----------------------------------------------------------------------------------


class ToolCall(BaseModel):
    """One drawing tool call: `arguments` a mapping or its JSON text (as a model wrote it)."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(default_factory=lambda: f"call_{next(_call_ids)}", description="The call's id")
    name: str = Field(..., description="The action's name (one of the environment's tools)")
    arguments: dict[str, Any] | str = Field(default_factory=dict, description="The action's arguments")

    def argument_dict(self) -> dict[str, Any]:
        """The arguments as a mapping (JSON text parsed; text that is no JSON object gives {})."""
        if isinstance(self.arguments, dict):
            return self.arguments
        try:
            value = json.loads(self.arguments)
        except ValueError:
            return {}
        return value if isinstance(value, dict) else {}


class VcotAction(Action):
    """One assistant turn: tool calls (drawing actions, rendered and returned) or, with none, the final answer
    in `content`."""

    content: str = Field(default="", description="The assistant's text; the final answer when no tool is called")
    tool_calls: list[ToolCall] = Field(default_factory=list, description="Drawing actions to run this turn")

    @classmethod
    def answer(cls, text: str) -> VcotAction:
        """The final answer (a turn without tool calls)."""
        return cls(content=text)

    @classmethod
    def call(
        cls, name: str, arguments: Mapping[str, Any] | str | None = None, *, content: str = "", id: str | None = None
    ) -> VcotAction:
        """A turn with one tool call."""
        args = arguments if isinstance(arguments, str) else dict(arguments or {})
        fields: dict[str, Any] = {"name": name, "arguments": args}
        if id is not None:
            fields["id"] = id
        return cls(content=content, tool_calls=[ToolCall(**fields)])

    @classmethod
    def from_message(cls, message: Mapping[str, Any]) -> VcotAction:
        """An assistant message as parsed from a model's output: OpenAI form (`tool_calls[i].function.name`)
        or flat (`tool_calls[i].name`), `content` a string or a list of text parts."""
        content = message.get("content") or ""
        if isinstance(content, list):
            content = "".join(str(p.get("text", "")) for p in content if isinstance(p, Mapping))
        calls = []
        for call in message.get("tool_calls") or []:
            fn = call.get("function") or call
            args = fn.get("arguments") or {}
            if not isinstance(args, dict | str):  # model output: a list or a number is passed on as text
                args = json.dumps(args, default=str)
            fields = {"name": str(fn.get("name", "")), "arguments": args}
            if call.get("id"):
                fields["id"] = str(call["id"])
            calls.append(ToolCall(**fields))
        return cls(content=str(content), tool_calls=calls)

    def core(self) -> str | dict[str, Any]:
        """The action in the form `VcotEnv.step` takes."""
        if not self.tool_calls:
            return self.content
        return {
            "content": self.content,
            "tool_calls": [{"id": c.id, "name": c.name, "arguments": c.arguments} for c in self.tool_calls],
        }

    def message(self) -> dict[str, Any]:
        """The turn as a Hugging Face assistant message, for the conversation a processor renders."""
        msg: dict[str, Any] = {
            "role": "assistant",
            "content": [{"type": "text", "text": self.content}] if self.content else [],
        }
        if self.tool_calls:
            msg["tool_calls"] = [
                {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.argument_dict()}}
                for c in self.tool_calls
            ]
        return msg


class VcotObservation(Observation):
    """What a reset or a step returns. `messages` are the new messages only (the prompt at reset, the tool
    results after a drawing turn, none after the answer), in OpenAI chat form with PNG data URIs."""

    messages: list[dict[str, Any]] = Field(default_factory=list, description="New chat messages (OpenAI form)")
    digests: list[str] = Field(
        default_factory=list, description="Server-side pixel digest of every picture in `messages`, in order"
    )
    tools: list[dict[str, Any]] | None = Field(default=None, description="OpenAI function definitions (reset)")
    uid: str = Field(default="", description="The problem's uid")
    task: str = Field(default="", description="The problem's task")
    condition: str = Field(default="", description="The prompt condition")
    turn: int = Field(default=0, ge=0, description="Assistant turns played so far")
    terminated: bool = Field(default=False, description="The model answered")
    truncated: bool = Field(default=False, description="The turn budget ran out")
    turn_reward: float | None = Field(default=None, description="The reward the core's step gave this turn")
    step_rewards: list[float] = Field(
        default_factory=list, description="Per state probe, 1.0 if the replies stated it right (at the end)"
    )
    returned: list[str] = Field(
        default_factory=list, description="The core's pixel digests of the pictures the tools returned"
    )
    reward_details: dict[str, Any] | None = Field(default=None, description="The grader's verdict (at the end)")

    def hf_messages(self, check: bool = True) -> list[dict[str, Any]]:
        """`messages` in Hugging Face form with the pictures decoded to PIL; with `check`, a ValueError when
        a decoded picture's pixel digest is not the one the server sent (a picture lost or altered on the
        way)."""
        messages = decode_messages(self.messages)
        if check:
            got = [pixel_digest(im) for im in pictures(messages)]
            if got != self.digests:
                bad = [i for i, (g, d) in enumerate(zip(got, self.digests, strict=False)) if g != d]
                raise ValueError(
                    f"the observation's pictures differ from the server's: {len(got)} decoded, "
                    f"{len(self.digests)} digests sent, pixels differ at {bad}"
                )
        return messages


class VcotState(State):
    """The session's episode: which problem, how far, how it ended."""

    uid: str | None = None
    task: str | None = None
    condition: str | None = None
    turn: int = 0
    terminated: bool = False
    truncated: bool = False
    reward: float | None = None


# --- reward ------------------------------------------------------------------------------------------------------


class VcotRubric(Rubric):
    """The environment's reward as OpenEnv's rubric: the reward `VcotEnv.step` gave the turn, i.e. vcot's
    grader (`vcot.rl.reward`, plus the format term when weighted) on the turn that ends the episode and the
    step rewards before it. It reads the core's value instead of grading again because `VcotEnv.grade`
    reports every graded episode to the curriculum: a second call would count each episode twice."""

    def forward(self, action: Any, observation: Any) -> float:
        value = getattr(observation, "turn_reward", None)
        return 0.0 if value is None else float(value)


# --- server side -------------------------------------------------------------------------------------------------


def _plain(value: Any) -> Any:
    """A JSON-ready copy of the core's reward details (a dataclass, a pydantic model or a mapping)."""
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if hasattr(value, "model_dump"):
        return _plain(value.model_dump())
    if hasattr(value, "__dataclass_fields__"):
        import dataclasses

        return _plain(dataclasses.asdict(value))
    return str(value)


class VcotEnvironment(Environment[VcotAction, VcotObservation, VcotState]):
    """One OpenEnv session's environment: a `VcotEnv` built from `env_kwargs` (tasks, condition, difficulty,
    seed, exclude, curriculum, step_weight; see `vcot.rl.env.VcotEnv`)."""

    # Every session builds its own VcotEnv: problems, drawing state and stream are per instance. A curriculum
    # passed in env_kwargs is one object shared by all sessions, though.
    SUPPORTS_CONCURRENT_SESSIONS = True

    def __init__(self, env: VcotEnv | None = None, **env_kwargs: Any) -> None:
        if env is None:
            from vcot.rl.env import VcotEnv

            env = VcotEnv(**env_kwargs)
        elif env_kwargs:
            raise TypeError("pass either a VcotEnv or the arguments to build one, not both")
        self.env = env
        super().__init__(rubric=VcotRubric())
        self._state = VcotState()
        self._done = True

    def reset(
        self,
        seed: int | None = None,
        episode_id: str | None = None,
        row: Mapping[str, Any] | None = None,
        **kwargs: Any,
    ) -> VcotObservation:
        """A new episode: on the problem `row` names, else the next of the stream (`seed` restarts it)."""
        options = kwargs.pop("options", None)
        if kwargs:
            raise TypeError(f"unknown reset arguments: {', '.join(sorted(kwargs))}")
        if row is not None:
            options = {**(options or {}), "row": problem_row(row)}
        self._reset_rubric()
        messages, info = self.env.reset(seed=seed, options=options)
        wire, digests = encode_messages(messages)
        self._state = VcotState(
            episode_id=episode_id or str(uuid.uuid4()),
            step_count=0,
            uid=info.get("uid"),
            task=info.get("task"),
            condition=info.get("condition"),
        )
        self._done = False
        return VcotObservation(
            messages=wire,
            digests=digests,
            tools=info.get("tools"),
            uid=info.get("uid", ""),
            task=info.get("task", ""),
            condition=info.get("condition", ""),
            done=False,
            reward=None,
        )

    def step(self, action: VcotAction, timeout_s: float | None = None, **kwargs: Any) -> VcotObservation:
        """One assistant turn; the reward comes from the rubric (`VcotRubric`)."""
        if self._done:
            raise EpisodeOver("no episode is running (none was started, or it ended): call reset() first")
        messages, core_reward, terminated, truncated, info = self.env.step(action.core())
        wire, digests = encode_messages(messages)
        s = self._state
        s.step_count += 1
        s.turn = int(info.get("turn", s.step_count))
        s.terminated, s.truncated = bool(terminated), bool(truncated)
        self._done = s.terminated or s.truncated
        observation = VcotObservation(
            messages=wire,
            digests=digests,
            uid=s.uid or "",
            task=s.task or "",
            condition=s.condition or "",
            turn=s.turn,
            terminated=s.terminated,
            truncated=s.truncated,
            done=self._done,
            turn_reward=float(core_reward),
            step_rewards=[float(r) for r in info.get("step_rewards") or []],
            returned=list(info.get("returned") or []),
            reward_details=_plain(info.get("reward_details")),
        )
        observation.reward = self._apply_rubric(action, observation)
        s.reward = observation.reward
        return observation

    @property
    def state(self) -> VcotState:
        return self._state

    def get_metadata(self) -> EnvironmentMetadata:
        return EnvironmentMetadata(
            name="vcot",
            description="vcot's visual chain-of-thought problems: a picture, "
            "a question, drawing tools (VAoT) and vcot's grader as the reward.",
        )

    def close(self) -> None:
        close = getattr(self.env, "close", None)
        if callable(close):
            close()


def create_vcot_app(*, max_concurrent_envs: int = 1, **env_kwargs: Any) -> FastAPI:
    """The FastAPI app serving `VcotEnvironment(**env_kwargs)`, one environment per WebSocket session (up to
    `max_concurrent_envs` at once)."""
    return create_fastapi_app(
        functools.partial(VcotEnvironment, **env_kwargs),
        VcotAction,
        VcotObservation,
        max_concurrent_envs=max_concurrent_envs,
        env_name="vcot",
        state_cls=VcotState,
    )


# --- client side -------------------------------------------------------------------------------------------------


class VcotEnvClient(EnvClient[VcotAction, VcotObservation, VcotState]):
    """The client of a vcot OpenEnv server: `reset(row=...)`, `step(VcotAction)`, `state()`; async by default,
    `.sync()` for plain code. Each client is one session on the server."""

    async def _reset_async(self, **kwargs: Any) -> StepResult[VcotObservation]:
        # `row` may be a Problem or a whole dataset row (pictures included): only its naming keys travel.
        if kwargs.get("row") is not None:
            kwargs["row"] = problem_row(kwargs["row"])
        return await super()._reset_async(**kwargs)

    def _step_payload(self, action: VcotAction) -> dict[str, Any]:
        return action.model_dump(mode="json")

    def _parse_result(self, payload: dict[str, Any]) -> StepResult[VcotObservation]:
        data = {**payload.get("observation", {}), "reward": payload.get("reward"), "done": payload.get("done", False)}
        observation = VcotObservation.model_validate(data)
        return StepResult(
            observation=observation,
            reward=payload.get("reward"),
            done=observation.done,
            metadata=payload.get("metadata"),
        )

    def _parse_state(self, payload: dict[str, Any]) -> VcotState:
        return VcotState.model_validate(payload)


# --- serving -----------------------------------------------------------------------------------------------------


@contextlib.contextmanager
def serve(
    app: FastAPI | None = None,
    *,
    host: str = "127.0.0.1",
    port: int = 0,
    start_timeout_s: float = 30.0,
    **env_kwargs: Any,
) -> Iterator[str]:
    """Serve `app` (by default `create_vcot_app(**env_kwargs)`) with uvicorn in a background thread while the
    `with` block runs; yields the base URL (`http://host:port`). `port=0` takes a free port: the socket is
    bound here and handed to uvicorn, so no other process can take it in between."""
    import uvicorn

    if app is None:
        app = create_vcot_app(**env_kwargs)
    elif env_kwargs:
        raise TypeError("pass either an app or the arguments to build one, not both")
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
        thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, name="vcot-openenv", daemon=True)
        thread.start()
        deadline = time.monotonic() + start_timeout_s
        while not server.started:
            if not thread.is_alive() or time.monotonic() > deadline:
                server.should_exit = True
                raise RuntimeError("the OpenEnv server did not start")
            time.sleep(0.02)
        try:
            yield f"http://{host}:{sock.getsockname()[1]}"
        finally:
            server.should_exit = True
            thread.join(timeout=start_timeout_s)
    finally:
        sock.close()


def doctor_trace(processor: Any) -> Any:
    """`vcot rl doctor`'s episode through OpenEnv (`vcot.rl.conformance`): the app served on loopback, the
    scripted 3-turn drawing episode sent through `VcotEnvClient`; the conversations are what the client holds
    before turns 2 and 3, pictures decoded from the wire (unchecked here: the doctor compares them)."""
    from vcot.rl import conformance as c

    problem = c._problem()
    trace = c.Trace()
    conversation: list[dict[str, Any]] = []
    with (
        serve(tasks=[problem.task], condition="vaot", invalid_penalty=c.PENALTY) as url,
        VcotEnvClient(base_url=url).sync() as client,
    ):
        first = client.reset(row=problem).observation
        trace.tools = first.tools
        conversation += first.hf_messages(check=False)
        for turn, calls in enumerate(
            ([("draw_line", c.LINE)], [("draw_circle", c.BAD), ("crop_zoom", c.ZOOM)]), start=1
        ):
            action = VcotAction(
                tool_calls=[
                    ToolCall(id=f"call_{turn}_{i}", name=name, arguments=args) for i, (name, args) in enumerate(calls)
                ]
            )
            result = client.step(action)
            conversation += [action.message(), *result.observation.hf_messages(check=False)]
            trace.conversations.append(c._hf(conversation))
            trace.rewards.append((f"turn {turn}", -c.PENALTY * sum(a is c.BAD for _, a in calls), result.reward))
        final = client.step(VcotAction.answer(f"<answer>{problem.answer}</answer>"))
        trace.rewards.append(("final", 1.0, final.reward))
    trace.sent = c._replayed(problem)
    return trace


def main(argv: Sequence[str] | None = None) -> None:
    """`python -m vcot.rl.openenv`: serve the environment with uvicorn."""
    parser = argparse.ArgumentParser(prog="python -m vcot.rl.openenv", description=main.__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--tasks", default=None, help="comma-separated task names (default: the core's)")
    parser.add_argument("--condition", default="vaot")
    parser.add_argument("--difficulty", default=None, help="preset level (default: the core's)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-concurrent-envs", type=int, default=1)
    args = parser.parse_args(argv)

    import uvicorn

    env_kwargs: dict[str, Any] = {"condition": args.condition, "seed": args.seed}
    if args.tasks:
        env_kwargs["tasks"] = [t for t in args.tasks.split(",") if t]
    if args.difficulty:
        env_kwargs["difficulty"] = args.difficulty
    app = create_vcot_app(max_concurrent_envs=args.max_concurrent_envs, **env_kwargs)
    uvicorn.run(app, host=args.host, port=args.port)


if __name__ == "__main__":
    main()
