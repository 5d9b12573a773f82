"""The environment core every trainer adapter wraps (docs/rl.md, "The environment"), Gymnasium-style.

`VcotEnv.reset(seed, options)` poses a problem and returns its observation: the first messages of the very
episode `vcot eval` runs for the condition (`vcot.conditions.REGISTRY`), pictures as PIL images
(`vcot.rl.formats.to_hf`). `step(action)` takes the model's reply (text, or text and tool calls) and returns
`(observation, reward, terminated, truncated, info)`: the episode's answer to it (tool results with the
pictures drawn by `vcot.vaot.session.DrawingSession`), and the reward.

The environment owns its data and its reward:
- Data: its own problem stream (`vcot.rl.stream`: seeded, with a curriculum's settings and the scenes of
  evaluation suites excluded), or the problem a trainer's row names (`options={"row": ...}`).
- Reward: the grader at the end (`vcot.rl.reward`, fed to the curriculum), and step rewards from the
  solver's states where the condition asks for them: each `<stepK>` answer the reply states correctly for
  the first time earns `step_weight / K_total` (state_probe tasks; 0 elsewhere), and each refused action
  `-invalid_penalty` (0 by default), in `step` and in the per-call `act` alike — a drawing has no ground
  truth of its own. `dense_weight` adds the dense process reward (`vcot.rl.rewards.dense_turn_rewards`,
  documented as `vcot.process.dense`): each reply earns `dense_weight` times the dense rewards of the step
  answers it settles (1/K per step of the right prefix, -1/K for the first wrong one, 0 after it; a step is
  graded by its first statement), in `step`.

Termination: `terminated` when the reply makes no action (the model has answered); `truncated` when the
episode's turn budget is spent and the model still acts. Either way the last reply is graded.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from PIL import Image

from vcot.messages import ModelResponse, ToolCall
from vcot.vaot.actions import MAX_TURNS

if TYPE_CHECKING:
    from vcot.conditions import Episode
    from vcot.rl.curriculum import Curriculum
    from vcot.rl.problems import Problem
    from vcot.rl.rewards import RewardDetails
    from vcot.rl.streams import ProblemStream
    from vcot.vaot.session import DrawingSession

# A reply longer than this is cut before grading and parsing (model output is untrusted).
MAX_REPLY_CHARS = 200_000
MAX_TOOL_CALLS_PER_REPLY = 64


class EnvError(ValueError):
    """The environment cannot be built or reset as asked (the message names what)."""


def _response(action: Any) -> ModelResponse:
    """The model's reply as the episode reads it: a str, or {"content", "tool_calls": [{"id", "name",
    "arguments"}]} (OpenAI's nested {"function": {...}} form too)."""
    if isinstance(action, ModelResponse):
        return action
    if isinstance(action, str) or action is None:
        return ModelResponse(text=(action or "")[:MAX_REPLY_CHARS])
    if not isinstance(action, Mapping):
        raise EnvError(f"an action is the model's reply (a str or a mapping), got {type(action).__name__}")
    text = action.get("content")
    text = text if isinstance(text, str) else ""
    calls = []
    raw = action.get("tool_calls") or []
    if not isinstance(raw, list | tuple):
        raise EnvError("tool_calls must be a list")
    for i, call in enumerate(raw[:MAX_TOOL_CALLS_PER_REPLY]):
        if not isinstance(call, Mapping):
            raise EnvError(f"tool call {i} is not a mapping")
        fn = call.get("function") if isinstance(call.get("function"), Mapping) else call
        args = fn.get("arguments", {})
        if not isinstance(args, str):
            try:
                args = json.dumps(args)
            except (TypeError, ValueError):
                args = "<not JSON>"
        calls.append(ToolCall(str(call.get("id") or f"call_{i}"), str(fn.get("name", ""))[:64], args))
    return ModelResponse(text=text[:MAX_REPLY_CHARS], tool_calls=calls)


class VcotEnv:
    """One vcot problem at a time, as an environment (see the module docstring).

    `tasks`, `preset`, `difficulty`, `params`, `seed`, `exclude`, `curriculum`: the problem stream's
    (`vcot.rl.stream`). `condition`: any trainable condition of the registry. `max_turns`: the drawing
    budget (turns of a whole reply; the prompt states it). `step_weight`, `dense_weight`, `invalid_penalty`,
    `format_weight`: the reward's knobs (all 0 by default: the reward is the grader's 0/1).
    """

    def __init__(
        self,
        tasks: Any = None,
        *,
        condition: str = "vaot",
        preset: str | None = None,
        difficulty: Any = None,
        params: Mapping[str, Any] | None = None,
        seed: int = 0,
        exclude: Any = None,
        curriculum: Curriculum | None = None,
        step_weight: float = 0.0,
        invalid_penalty: float = 0.0,
        format_weight: float = 0.0,
        max_turns: int = MAX_TURNS,
        dense_weight: float = 0.0,
    ) -> None:
        from vcot.conditions import REGISTRY
        from vcot.vaot.session import whole_number

        reason = REGISTRY.untrainable_reason(condition)
        if reason is not None:
            raise EnvError(reason)
        self.condition = condition
        self.episodic = REGISTRY.get(condition).trainable == "episode"
        self.max_turns = whole_number("max_turns", max_turns)
        if not 0 <= self.max_turns <= 64:
            raise EnvError(f"max_turns must be 0 to 64, got {self.max_turns}")
        for name, value in (
            ("step_weight", step_weight),
            ("invalid_penalty", invalid_penalty),
            ("format_weight", format_weight),
            ("dense_weight", dense_weight),
        ):
            if not isinstance(value, int | float) or isinstance(value, bool) or not 0 <= value <= 10:
                raise EnvError(f"{name} must be a number from 0 to 10, got {value!r}")
        self.step_weight, self.invalid_penalty = float(step_weight), float(invalid_penalty)
        self.format_weight, self.dense_weight = float(format_weight), float(dense_weight)
        self.curriculum = curriculum
        self._stream_args = {
            "tasks": tasks,
            "preset": preset,
            "difficulty": difficulty,
            "params": params,
            "seed": seed,
            "exclude": exclude,
            "curriculum": curriculum,
        }
        self._stream: ProblemStream | None = None
        if tasks is not None or preset is not None:
            # Built now, so that an unknown task, a bad setting or an `exclude` suite that does not exist fails
            # here and not at the first rollout (a row-driven environment names no tasks and builds none).
            self._stream = self.stream
        self.problem: Problem | None = None
        self.episode: Episode | None = None
        self.turn = 0
        self.done = False
        self._replies: list[str] = []
        self._steps_paid = 0
        self.details: RewardDetails | None = None

    # -- data -----------------------------------------------------------------------------------------------

    @property
    def stream(self) -> ProblemStream:
        """The environment's own problem stream (built on first use, so a row-driven env never builds one)."""
        if self._stream is None:
            from vcot.rl.streams import stream

            self._stream = stream(condition=self.condition, **self._stream_args)
        return self._stream

    def _problem(self, seed: int | None, options: Mapping[str, Any] | None) -> Problem:
        options = dict(options or {})
        if options.get("problem") is not None:
            problem = options["problem"]
            if problem.condition != self.condition:
                raise EnvError(
                    f"problem {problem.uid} is posed as {problem.condition!r}, the environment as {self.condition!r}"
                )
            return problem
        if options.get("row") is not None:
            from vcot.rl.problems import problem_from_row

            row = dict(options["row"])
            missing = [k for k in ("task", "seed", "index") if row.get(k) is None]
            if missing:
                raise EnvError(f"reset: the row lacks {', '.join(missing)}")
            row["condition"] = self.condition
            return problem_from_row(row)
        if seed is not None:
            self._stream_args["seed"] = int(seed)
            self._stream = None
        return next(self.stream)

    # -- Gymnasium API --------------------------------------------------------------------------------------

    def reset(
        self, seed: int | None = None, options: Mapping[str, Any] | None = None
    ) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        """Pose the next problem (or `options["problem"]` / `options["row"]`; `seed` restarts the stream).
        Returns (observation: the first messages in HF chat form, info)."""
        from vcot.conditions import REGISTRY
        from vcot.images import InMemoryPictures
        from vcot.rl.formats import to_hf, tool_dicts

        self.problem = self._problem(seed, options)
        episode = REGISTRY.make_episode(
            self.problem.instance, self.condition, 0, InMemoryPictures(self.problem.pictures)
        )
        if self.episodic:
            episode.budget = self.max_turns  # type: ignore[attr-defined]
        self.episode = episode
        observation = to_hf(episode.first_messages())
        self.turn, self.done, self._replies, self._steps_paid, self.details = 0, False, [], 0, None
        info = {
            "uid": self.problem.uid,
            "task": self.problem.task,
            "condition": self.condition,
            "tools": tool_dicts(episode.tools),
            "problem": self.problem,
        }
        return observation, info

    def step(self, action: Any) -> tuple[list[dict[str, Any]], float, bool, bool, dict[str, Any]]:
        """The episode's answer to the model's reply: (observation, reward, terminated, truncated, info)."""
        from vcot.rl.formats import to_hf

        if self.episode is None:
            raise EnvError("step() before reset()")
        if self.done:
            raise EnvError("step() after the episode ended; call reset()")
        response = _response(action)
        self.turn += 1
        self._replies.append(response.text or "")
        before = len(getattr(self.episode, "returned", []))
        nxt = self.episode.on_response(response)
        returned = [r.digest for r in getattr(self.episode, "returned", [])[before:]]
        reward = self._step_reward() - self.invalid_penalty * self._refused_this_turn()
        info: dict[str, Any] = {"turn": self.turn, "returned": returned}
        terminated = nxt is None
        truncated = not terminated and self.episodic and self.turn > self.max_turns
        reward += self._dense_reward(ended=terminated or truncated)
        if terminated or truncated:
            self.done = True
            reward += self.grade(response.text or "", truncated=truncated)
            info["reward_details"] = self.details
            info["step_rewards"] = self._step_list()
            if self.dense_weight:
                from vcot.rl.rewards import episode_dense_rewards

                info["dense_rewards"] = episode_dense_rewards(self._replies, self.problem)
            return [], reward, terminated, truncated, info
        return to_hf(nxt or []), reward, False, False, info

    # -- per-call tools -------------------------------------------------------------------------------------

    @property
    def session(self) -> DrawingSession | None:
        """The episode's drawing session (None before reset and for single-turn conditions)."""
        return getattr(self.episode, "session", None)

    @property
    def tools(self) -> list[dict[str, Any]] | None:
        from vcot.rl.formats import tool_dicts

        return tool_dicts(self.episode.tools) if self.episode is not None else None

    def act(self, name: Any, arguments: Any) -> tuple[Image.Image | None, str, float]:
        """One tool call, for trainers that call tools one by one (each call is then a turn of the budget):
        (picture to show or None, text, step reward). Never raises on the model's input."""
        session = self.session
        if session is None:
            return None, "Action rejected: no drawing problem is loaded", -self.invalid_penalty
        out = session.run(name, arguments)
        return out.view, out.text, (0.0 if out.ok else -self.invalid_penalty)

    # -- reward ---------------------------------------------------------------------------------------------

    def grade(self, completion: Any, *, truncated: bool = False) -> float:
        """The final reward of `completion` (the grader's, plus the format term when weighted); reported to the
        curriculum. A trainer that sees the whole completion but not the turns calls this instead of step."""
        from vcot.rl.rewards import reward_details

        if self.problem is None:
            raise EnvError("grade() before reset()")
        self.details = reward_details(completion, self.problem, truncated=truncated)
        value = self.details.reward + self.format_weight * (1.0 if self.details.format_ok else 0.0)
        if self.curriculum is not None:
            self.curriculum.observe(self.problem.task, self.details.reward)
        self.done = True
        return float(value)

    def _refused_this_turn(self) -> int:
        # The episode records this reply's refused actions: parse errors and actions the session refused.
        steps = getattr(self.episode, "steps", None) or []
        if not steps or steps[-1].get("turn") != getattr(self.episode, "turn", None):
            return 0
        last = steps[-1]
        return len(last.get("errors") or []) + sum(1 for a in last.get("actions") or [] if "error" in a)

    def _step_list(self) -> list[float]:
        from vcot.rl.rewards import step_rewards

        if self.problem is None:
            return []
        return step_rewards("\n".join(self._replies), self.problem)

    def _step_reward(self) -> float:
        # Pays each correct <stepK> once, when it first appears, so the episode's step rewards sum to
        # step_weight × the share of probes answered right whatever the number of turns.
        if not self.step_weight:
            return 0.0
        steps = self._step_list()
        if not steps:
            return 0.0
        right = int(sum(steps))
        new, self._steps_paid = max(0, right - self._steps_paid), max(right, self._steps_paid)
        return self.step_weight * new / len(steps)

    def _dense_reward(self, ended: bool) -> float:
        # The turns' dense rewards are settled once known (a step graded by its first statement, paid when it
        # and the steps before it are stated), so this reply's share is the last turn's entry.
        if not self.dense_weight or self.problem is None:
            return 0.0
        from vcot.rl.rewards import dense_turn_rewards

        paid = dense_turn_rewards(self._replies, self.problem, ended=ended)
        return self.dense_weight * paid[-1] if paid else 0.0
