"""The drawing tool: `DrawingTool`, a `verl.tools.base_tool.BaseTool` per VAoT action, built on first access by
the package's `__getattr__` (`_build_drawing_tool`), with the per-trajectory drawings it shares between the
action tools and the checks on a call's arguments."""

from __future__ import annotations

import asyncio
import functools
import json
import threading
import uuid
import weakref
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from vcot.rl.verl.errors import VerlExportError
from vcot.rl.verl.tool_schema import DEFAULT_TOOL_CALLS, _check_tool_options, verl_tool_schema

if TYPE_CHECKING:
    from vcot.rl.problems import Problem

# verl truncates a tool text past rollout.multi_turn.max_tool_response_length (256 characters by default).
MAX_TOOL_TEXT = 240


@functools.lru_cache(maxsize=64)
def _problem(spec_json: str) -> Problem:
    # The n rollouts of one prompt and its validation passes ask for the same problem: regenerate it once.
    from vcot.rl import problem_from_row

    return problem_from_row(json.loads(spec_json))


def _spec_json(spec: Any) -> str:
    if not isinstance(spec, Mapping):
        raise ValueError("the row's tools_kwargs carry no create_kwargs for this tool")
    keys = ("task", "uid", "seed", "index", "difficulty", "params", "condition", "variant")
    missing = [k for k in ("task", "seed", "index") if spec.get(k) is None]
    if missing:
        raise ValueError(f"create_kwargs lack {', '.join(missing)}")
    clean = {k: spec[k] for k in keys if spec.get(k) is not None}
    if isinstance(clean.get("params"), str):
        clean["params"] = json.loads(clean["params"])
    return json.dumps(clean, sort_keys=True)


def _safe_text(text: Any) -> str:
    # The decoded response that compute_score grades contains the tool turns too: an instruction quoting
    # "<answer></answer>" there would be read as the model's (empty) answer.
    s = str(text)
    s = s.replace("<answer>", "‹answer›").replace("</answer>", "‹/answer›")
    return s if len(s) <= MAX_TOOL_TEXT else s[: MAX_TOOL_TEXT - 1] + "…"


class _Trajectory:
    """One trajectory's drawing: its problem spec, the environment core once built (`vcot.rl.env.VcotEnv`,
    which holds the drawing session), and a lock (parallel calls of one turn would otherwise draw on the same
    picture at once)."""

    def __init__(self, spec_json: str) -> None:
        self.spec_json = spec_json
        self.session: Any = None  # the VcotEnv
        self.lock = asyncio.Lock()
        self.calls = 0
        self.errors = 0


# Sessions keyed by verl's per-trajectory AgentData: verl 0.9's tool agent loop creates and releases a tool
# instance around every single call (and the actions are separate tools), so an instance cannot hold a
# drawing; the AgentData lives exactly as long as the trajectory. Not kept in AgentData.extra_fields:
# those are copied into the batch and shipped to the reward workers.
_BY_TRAJECTORY: weakref.WeakKeyDictionary[Any, _Trajectory] = weakref.WeakKeyDictionary()
_BY_TRAJECTORY_LOCK = threading.Lock()


def _build_drawing_tool() -> type:
    from verl.tools.base_tool import BaseTool
    from verl.tools.schemas import OpenAIFunctionToolSchema, ToolResponse

    from vcot.vaot.actions import MAX_RAW_ARGUMENTS, action_names, tool_definitions

    class DrawingTool(BaseTool):
        """One vcot visual action as a verl tool (`tool_config.yaml` lists one per action).

        `config`: `max_calls` (the actions one trajectory may take over all drawing tools, 1–64, default the
        prompt's budget of 6: each call is a turn of `vcot.vaot.session.DrawingSession`), `corruption` (null,
        "modify_key" or "modify_non_key": vcot.vaot.corrupt) and `invalid_penalty` (0–10, default 0). The
        problem comes from the row's `tools_kwargs[<action>].create_kwargs`. `execute` returns the new picture
        and a short text, or an error text and no picture for an invalid action — it never raises — and the
        per-call step reward `vcot.rl.env.VcotEnv.act` gives: 0.0 for a drawn action, `-invalid_penalty` for a
        refused one (verl collects it in `tool_rewards`). The outcome reward is `compute_score`'s."""

        def __init__(self, config: dict | None, tool_schema: OpenAIFunctionToolSchema | None = None) -> None:
            config = dict(config or {})
            if tool_schema is None:
                name = config.get("action")
                defs = {d["function"]["name"]: d for d in tool_definitions()}
                if name not in defs:
                    raise ValueError(
                        f"DrawingTool: config.action must name an action ({', '.join(defs)}), got {name!r}"
                    )
                tool_schema = OpenAIFunctionToolSchema.model_validate(verl_tool_schema(defs[name]))
            super().__init__(config, tool_schema)
            if self.name not in action_names():
                raise ValueError(f"DrawingTool: {self.name!r} is not a vcot action ({', '.join(action_names())})")
            max_calls = config.get("max_calls", DEFAULT_TOOL_CALLS)
            corruption = config.get("corruption")
            try:
                _check_tool_options(max_calls, corruption)
            except VerlExportError as exc:
                raise ValueError(f"DrawingTool {self.name}: {exc}") from None
            self.max_calls: int = max_calls
            self.corruption: str | None = corruption
            penalty = config.get("invalid_penalty", 0.0)
            if not isinstance(penalty, int | float) or isinstance(penalty, bool) or not 0 <= penalty <= 10:
                raise ValueError(
                    f"DrawingTool {self.name}: invalid_penalty must be a number from 0 to 10, got {penalty!r}"
                )
            self.invalid_penalty = float(penalty)
            self._instances: dict[str, _Trajectory | str] = {}

        async def create(self, instance_id: str | None = None, **kwargs: Any) -> tuple[str, ToolResponse]:
            """Record the problem spec (`create_kwargs`) for this instance; the picture is built on first use."""
            instance_id = instance_id or str(uuid.uuid4())
            try:
                self._instances[instance_id] = _spec_json(kwargs.get("create_kwargs"))
            except (ValueError, TypeError) as exc:
                self._instances[instance_id] = f"error: {exc}"
            return instance_id, ToolResponse()

        def _trajectory(self, instance_id: str, agent_data: Any) -> _Trajectory | str:
            entry = self._instances.get(instance_id)
            if entry is None:
                return "error: unknown tool instance (create was not called)"
            if isinstance(entry, _Trajectory):
                return entry
            if entry.startswith("error: "):
                return entry
            if agent_data is None:  # a caller that keeps one instance per trajectory (no AgentData)
                traj = _Trajectory(entry)
                self._instances[instance_id] = traj
                return traj
            with _BY_TRAJECTORY_LOCK:
                traj = _BY_TRAJECTORY.get(agent_data)
                if traj is None:
                    traj = _BY_TRAJECTORY[agent_data] = _Trajectory(entry)
            return traj

        async def execute(
            self, instance_id: str, parameters: dict[str, Any], **kwargs: Any
        ) -> tuple[ToolResponse, float, dict]:
            """Run this action on the trajectory's drawing: (ToolResponse with the picture and a text, 0.0,
            metrics) or, for an invalid action or an exhausted budget, (ToolResponse with the error text, 0.0,
            metrics)."""
            agent_data = kwargs.get("agent_data")
            try:
                traj = self._trajectory(instance_id, agent_data)
            except TypeError:  # an AgentData stand-in that cannot be weakly referenced
                traj = self._trajectory(instance_id, None)
            if isinstance(traj, str):
                return ToolResponse(text=_safe_text(traj)), 0.0, {"valid": False}
            error = _check_parameters(parameters, MAX_RAW_ARGUMENTS)
            loop = asyncio.get_running_loop()
            async with traj.lock:
                if error is None and traj.session is None:
                    try:
                        traj.session = await loop.run_in_executor(None, self._new_session, traj.spec_json)
                    except Exception as exc:  # the problem cannot be rebuilt: say so to the model
                        error = f"error: the picture could not be rebuilt ({type(exc).__name__})"
                if error is None:
                    try:
                        image, text, step = await loop.run_in_executor(
                            None, traj.session.act, self.name, dict(parameters)
                        )
                    except Exception as exc:  # VcotEnv.act promises not to raise; a bug must not end a rollout
                        image, text, step = None, f"error: {self.name} failed ({type(exc).__name__})", None
                else:
                    image, text, step = None, error, None
                if step is None:
                    step = -self.invalid_penalty
                traj.calls += 1
                traj.errors += image is None
                if agent_data is not None and isinstance(getattr(agent_data, "extra_fields", None), dict):
                    # Small numbers only (extra_fields go into the batch): compute_score reports the count.
                    agent_data.extra_fields["vcot_draw_calls"] = traj.calls - traj.errors
            if image is None:
                return ToolResponse(text=_safe_text(text)), float(step), {"valid": False, "action": self.name}
            return (
                ToolResponse(text=_safe_text(text), image=[image]),
                float(step),
                {"valid": True, "action": self.name},
            )

        def _new_session(self, spec_json: str) -> Any:
            from vcot.rl.env import VcotEnv
            from vcot.vaot.episode import drawing_condition

            condition = drawing_condition(self.corruption)
            env = VcotEnv(condition=condition, max_turns=self.max_calls, invalid_penalty=self.invalid_penalty)
            problem = _problem(spec_json)
            if problem.condition != condition:  # a row posed as another drawing condition: same scene
                problem = _problem(json.dumps({**json.loads(spec_json), "condition": condition}, sort_keys=True))
            env.reset(options={"problem": problem})
            return env

        async def calc_reward(self, instance_id: str, **kwargs: Any) -> float:
            """0.0: the drawing itself is not graded here; the per-call step reward comes with each `execute`,
            the outcome reward from `compute_score`."""
            return 0.0

        async def release(self, instance_id: str, **kwargs: Any) -> None:
            """Forget the instance; the trajectory's drawing lives on with verl's AgentData."""
            self._instances.pop(instance_id, None)

    return DrawingTool


def _check_parameters(parameters: Any, limit: int) -> str | None:
    if not isinstance(parameters, Mapping):
        return "error: the arguments must be a JSON object"
    from vcot.vaot.actions import oversized

    too_big = oversized(dict(parameters))  # counted before json.dumps walks a million elements
    if too_big is not None:
        return f"error: {too_big}"
    try:
        size = len(json.dumps(parameters, default=str))
    except (TypeError, ValueError, RecursionError):
        return "error: the arguments are not plain JSON"
    if size > limit:
        return f"error: the arguments are {size} characters long (limit {limit})"
    return None
