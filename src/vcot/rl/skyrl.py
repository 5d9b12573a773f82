"""SkyRL-gym adapter (optional extra "rl-skyrl"): vcot's environment core (`vcot.rl.env.VcotEnv`) as a SkyRL-gym
environment, registered under the id "vcot".

Built on the contract of skyrl-gym 0.4 and of the SkyRL trainer's generators that drive it (docs/rl.md, "SkyRL"):

- The trainer makes one environment per trajectory, `skyrl_gym.make("vcot", env_config=..., extras=row)`, where
  `row` is the dataset row without its `prompt` and `env_class` columns (plus the trainer's `max_turns`). Rows
  written by `skyrl_row` carry the problem under `extras["vcot"]` (the six fields `vcot.rl.problem_from_row`
  regenerates it from), so every rollout of a row draws on the same problem; a row without it draws the next
  problem of the environment's own stream (`env_config` keys `tasks`, `difficulty`, `condition`, `seed`, ...;
  `extras["seed"]` reseeds it per row).
- `init(prompt)` returns the conversation the model starts from: the problem's first message (picture and
  question) after any system message of the dataset prompt, and, for the drawing condition, a system message
  naming the drawing tools in Qwen's / Hermes' tool-call format (SkyRL renders the conversation without a
  `tools` argument, so the tools must be in the messages; `tools_prompt=False` leaves them out).
- `step(action)` takes the model's reply as text. Tool calls are written as Qwen's / Hermes' blocks,
  one JSON object per block, several blocks per reply allowed::

      <tool_call>
      {"name": "draw_line", "arguments": {"x1": 10, "y1": 20, "x2": 200, "y2": 40}}
      </tool_call>

  (`{"function": {"name", "arguments"}}` is read too, and `arguments` may be a JSON string). A reply without a
  block goes to the core as it is: the core runs the fenced ```json action blocks its prompt describes, or
  grades it as the final answer.
- Observations follow SkyRL's multimodal convention (its VLM generator, `generator.vision_language_generator=
  true`; the VisGym and Geometry-3K examples): OpenAI chat messages whose pictures are `{"type": "image_url",
  "image_url": {"url": "data:image/png;base64,..."}}` parts. By default the results of one turn's tool calls
  come back as one `user` message, each call's text followed by its picture (every VLM chat template renders
  pictures in user turns; Qwen's own templates put tool results in a user turn too). `observation_role="tool"`
  keeps the core's `tool` messages (one per call, with `tool_call_id`) for chat templates that render pictures
  inside tool messages; `image_format="pil"` keeps the pictures as `{"type": "image", "image": PIL}` parts for
  a trainer that runs a Hugging Face processor itself.
- Rewards: the core's step reward at each non-final turn (0.0 unless `step_weight` is set: `<stepK>` answers
  of tasks with state probes), vcot's grader's reward (plus that turn's step reward) at the last one. SkyRL's
  generator puts each turn's reward on that turn's last token. `metadata` holds the turn, the pixel digests
  of the pictures returned this turn (`returned`) and, at the end, the step rewards and the grader's
  `reward_details`.
- Turns: the trainer's cap (`generator.max_turns`, 1 by default: raise it for the drawing condition) sets the
  drawing budget the prompt states to one less (at most the evaluation's), so the core ends the episode,
  graded, exactly where the trainer would cut it; `budget` in env_config overrides that, and if the trainer's
  cap then comes first the last reply is graded as the core grades a reply past its budget.

Only this module imports skyrl_gym; importing it registers "vcot", and `register_env` registers other ids or
default env_config keys (SkyRL's own config has no section for an outside environment, so its generator
passes an empty env_config). A SkyRL training job makes environments inside its Ray workers: import
`vcot.rl.skyrl` (and call `register_env`) in the function that runs the experiment, where SkyRL's own
examples call `register`.
"""

from __future__ import annotations

import base64
import dataclasses
import json
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

from skyrl_gym.envs.base_text_env import BaseTextEnv, BaseTextEnvStepOutput

if TYPE_CHECKING:
    from PIL import Image

    from vcot.rl.env import VcotEnv
    from vcot.rl.problems import Problem

ENV_ID = "vcot"
ENTRY_POINT = f"{__name__}:VcotSkyRLEnv"
# The dataset column (an `extras` key for the environment) holding the problem's regeneration fields.
ROW_KEY = "vcot"
ROW_FIELDS = ("task", "difficulty", "params", "seed", "index", "condition", "variant")
# env_config keys: the stream's and the reward's (VcotEnv), then how the conversation is shaped.
CONFIG_KEYS = (
    "tasks",
    "preset",
    "difficulty",
    "params",
    "condition",
    "seed",
    "exclude",
    "step_weight",
    "invalid_penalty",
    "format_weight",
    "budget",
    "image_format",
    "observation_role",
    "tools_prompt",
)
ImageFormat = Literal["image_url", "pil"]
ObservationRole = Literal["user", "tool"]

# Qwen2.5's (and Hermes') wording of the tools section its chat template writes into the system message, so a
# model trained on that template reads the tools as it would through a `tools=` argument.
TOOLS_SYSTEM = (
    "# Tools\n\nYou may call one or more functions to assist with the user query.\n\n"
    "You are provided with function signatures within <tools></tools> XML tags:\n<tools>\n{tools}\n</tools>\n\n"
    "For each function call, return a json object with function name and arguments within "
    '<tool_call></tool_call> XML tags:\n<tool_call>\n{{"name": <function-name>, "arguments": '
    "<args-json-object>}}\n</tool_call>"
)
_TOOL_CALL = re.compile(r"<tool_call>(.*?)</tool_call>", re.DOTALL)
_NAME = re.compile(r'"name"\s*:\s*"([^"\\]{1,64})"')


class SkyRLAdapterError(ValueError):
    """The environment cannot be built as configured (the message names what)."""


# --------------------------------------------------------------------------------------------- actions


def parse_tool_calls(text: str, turn: int = 0) -> tuple[str, list[dict[str, Any]]]:
    """(the reply without its tool-call blocks, the calls as the core's `{"id", "name", "arguments"}`).

    A block that is not a JSON object still becomes a call (name read from the text where it can be, the block
    as its arguments), so the core rejects it with an error text the model sees, instead of the reply being
    graded as an answer."""
    calls: list[dict[str, Any]] = []
    for k, m in enumerate(_TOOL_CALL.finditer(text)):
        raw = m.group(1).strip()
        call_id = f"call_{turn}_{k}"
        try:
            payload = json.loads(raw)
        except (json.JSONDecodeError, RecursionError):
            payload = None
        if isinstance(payload, dict):
            fn = payload.get("function") if isinstance(payload.get("function"), dict) else payload
            arguments = fn.get("arguments", fn.get("parameters", {}))
            calls.append(
                {
                    "id": call_id,
                    "name": str(fn.get("name", "")),
                    "arguments": arguments if arguments is not None else {},
                }
            )
        else:
            name = _NAME.search(raw)
            calls.append({"id": call_id, "name": name.group(1) if name else "", "arguments": raw})
    content = _TOOL_CALL.sub("", text).strip() if calls else text
    return content, calls


# ---------------------------------------------------------------------------------------------- messages


def data_uri(image: Image.Image) -> str:
    """The picture as a PNG data URI (lossless: the pixels decoded from it are the pixels sent)."""
    from vcot.draw.png import encode_png

    return "data:image/png;base64," + base64.b64encode(encode_png(image)).decode("ascii")


def _part(part: Any, image_format: ImageFormat) -> dict[str, Any]:
    if isinstance(part, str):
        return {"type": "text", "text": part}
    if not isinstance(part, Mapping):
        raise SkyRLAdapterError(f"unsupported content part {type(part).__name__}")
    if part.get("type") == "image" and part.get("image") is not None:
        if image_format == "pil":
            return {"type": "image", "image": part["image"]}
        return {"type": "image_url", "image_url": {"url": data_uri(part["image"])}}
    return dict(part)


def _content(content: Any, image_format: ImageFormat) -> list[dict[str, Any]]:
    if content is None:
        return []
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [_part(p, image_format) for p in content]


def skyrl_messages(
    messages: Sequence[Mapping[str, Any]],
    *,
    image_format: ImageFormat = "image_url",
    observation_role: ObservationRole = "user",
) -> list[dict[str, Any]]:
    """The core's messages (Hugging Face form, PIL pictures) in SkyRL's form: part lists with `image_url` data
    URIs (or PIL parts). With `observation_role="user"` every `tool` message and the `user` messages after
    them join one user message, in order; with "tool" the tool messages stay as they are."""
    out: list[dict[str, Any]] = []
    merging = False
    for m in messages:
        role = str(m.get("role", "user"))
        content = _content(m.get("content"), image_format)
        if observation_role == "user" and role in ("tool", "user") and (role == "tool" or merging):
            if merging:
                out[-1]["content"].extend(content)
            else:
                out.append({"role": "user", "content": content})
                merging = True
            continue
        merging = False
        msg: dict[str, Any] = {"role": role, "content": content}
        for key in ("tool_call_id", "tool_calls", "name"):
            if m.get(key) is not None:
                msg[key] = m[key]
        out.append(msg)
    return out


def tools_system_text(tools: Sequence[Mapping[str, Any]]) -> str:
    """The system-message section naming `tools` (OpenAI function definitions) in Qwen's tool-call format."""
    return TOOLS_SYSTEM.format(tools="\n".join(json.dumps(t, ensure_ascii=False) for t in tools))


# ----------------------------------------------------------------------------------------------- config


def _plain(value: Any) -> Any:
    # OmegaConf's DictConfig (SkyRL's config objects) and dataclasses become plain dicts; None an empty one.
    if value is None:
        return {}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    try:
        from omegaconf import DictConfig, OmegaConf

        if isinstance(value, DictConfig):
            return OmegaConf.to_container(value, resolve=True)
    except ImportError:  # pragma: no cover - skyrl_gym depends on omegaconf
        pass
    if isinstance(value, Mapping):
        return dict(value)
    raise SkyRLAdapterError(f"env_config must be a mapping, got {type(value).__name__}")


def _row(value: Any) -> dict[str, Any] | None:
    if value is None:
        return None
    row = _plain(value)
    missing = [f for f in ("task", "seed", "index") if row.get(f) is None]
    if missing:
        raise SkyRLAdapterError(f"extras[{ROW_KEY!r}] lacks {missing}; it needs the fields {ROW_FIELDS}")
    return row


def problem_spec(problem: Problem) -> dict[str, Any]:
    """What `extras["vcot"]` holds for `problem`: the fields that regenerate it (`params` as JSON text, so the
    column has one Arrow type whatever the task's parameters)."""
    return {
        "task": problem.task,
        "difficulty": problem.difficulty,
        "params": json.dumps(problem.params, sort_keys=True),
        "seed": int(problem.seed),
        "index": int(problem.index),
        "condition": problem.condition,
        "variant": int(problem.variant or 0),
    }


def opening(
    observation: Sequence[Mapping[str, Any]],
    tools: Sequence[Mapping[str, Any]] | None,
    *,
    system: Mapping[str, Any] | None = None,
    tools_prompt: bool = True,
    image_format: ImageFormat = "image_url",
) -> list[dict[str, Any]]:
    """The conversation an episode starts from: `system` (a dataset's own system message, kept), the tools
    section added to it when there are tools, then the core's first messages."""
    head: list[dict[str, Any]] = []
    text = _text(system.get("content")) if system is not None else None
    if tools and tools_prompt:
        section = tools_system_text(tools)
        # A row written by `skyrl_row` already holds the section: it is put back once, not twice.
        text = (text or "").replace(section, "").rstrip()
        text = f"{text}\n\n{section}" if text else section
    if text is not None:
        head = [{"role": "system", "content": [{"type": "text", "text": text}]}]
    return head + skyrl_messages(observation, image_format=image_format, observation_role="user")


def skyrl_row(
    problem: Problem, *, env_class: str = ENV_ID, split: str = "train", index: int = 0, tools_prompt: bool = True
) -> dict[str, Any]:
    """One row of a SkyRL prompt dataset (written with `datasets`, to parquet or JSON) for `problem`.

    `prompt` is the conversation the environment starts from (tools section, question, picture as a data URI):
    SkyRL filters rows by its length and logs it. The environment poses the problem again from the `vcot`
    column, so the pictures never need decoding from the row."""
    from vcot.rl.env import VcotEnv

    env = VcotEnv(tasks=[problem.task], condition=problem.condition)
    observation, info = env.reset(options={"problem": problem})
    prompt = opening(observation, info.get("tools"), tools_prompt=tools_prompt)
    return {
        "prompt": prompt,
        "env_class": env_class,
        "data_source": "vcot/" + problem.task,
        "reward_spec": {"method": "rule", "ground_truth": str(problem.answer)},
        ROW_KEY: problem_spec(problem),
        "extra_info": {"split": split, "index": int(index), "uid": problem.uid, "task": problem.task},
    }


# ------------------------------------------------------------------------------------------ environment


class VcotSkyRLEnv(BaseTextEnv):
    """vcot's environment core as a SkyRL-gym text environment (module docstring: the contract).

    `env_config` (the trainer's `environment.skyrl_gym.vcot` section, or `make`'s keyword): `tasks`,
    `difficulty`, `condition` (default "vaot"), `seed`, `exclude`, `step_weight` go to `VcotEnv` for rows without
    a problem; `image_format` ("image_url" or "pil"), `observation_role` ("user" or "tool"), `tools_prompt`
    (default true) and `budget` (the drawing budget, else derived from the trainer's `max_turns`) shape what the
    model sees. Without a problem in the row, each environment (one per trajectory) poses the first problem of
    the stream seeded by `extras["seed"]` (else env_config's `seed`): give each row its own seed, so the rows
    differ and the rollouts of one row share their problem."""

    def __init__(self, env_config: Any = None, extras: Mapping[str, Any] | None = None) -> None:
        super().__init__()
        from vcot.rl.env import VcotEnv

        cfg = _plain(env_config)
        unknown = sorted(set(cfg) - set(CONFIG_KEYS))
        if unknown:
            raise SkyRLAdapterError(f"unknown env_config keys {unknown}; known: {sorted(CONFIG_KEYS)}")
        self.extras = dict(extras or {})
        self.row = _row(self.extras.get(ROW_KEY))
        self.image_format: ImageFormat = cfg.get("image_format", "image_url")
        self.observation_role: ObservationRole = cfg.get("observation_role", "user")
        if self.image_format not in ("image_url", "pil"):
            raise SkyRLAdapterError(f"image_format must be 'image_url' or 'pil', got {self.image_format!r}")
        if self.observation_role not in ("user", "tool"):
            raise SkyRLAdapterError(f"observation_role must be 'user' or 'tool', got {self.observation_role!r}")
        self.tools_prompt = bool(cfg.get("tools_prompt", True))
        # The trainer's cap on replies (SkyRL's generator.max_turns, passed in extras); 0: none.
        self.max_turns = int(self.extras.get("max_turns") or 0)
        if self.row is not None:
            tasks: Any = [str(self.row["task"])]
            condition = str(self.row.get("condition") or cfg.get("condition", "vaot"))
            difficulty = self.row.get("difficulty") or cfg.get("difficulty")
        else:
            tasks = cfg.get("tasks")
            if not tasks and not cfg.get("preset"):
                raise SkyRLAdapterError(
                    f"neither extras[{ROW_KEY!r}] (a problem) nor env_config 'tasks' or "
                    "'preset' (a stream) says which problems to serve"
                )
            condition = str(cfg.get("condition", "vaot"))
            difficulty = cfg.get("difficulty")
        seed = self.extras.get("seed", cfg.get("seed", 0))
        self.env: VcotEnv = VcotEnv(
            tasks=tasks,
            condition=condition,
            preset=None if self.row is not None else cfg.get("preset"),
            difficulty=difficulty,
            params=None if self.row is not None else cfg.get("params"),
            seed=int(seed),
            exclude=cfg.get("exclude"),
            step_weight=float(cfg.get("step_weight", 0.0)),
            invalid_penalty=float(cfg.get("invalid_penalty", 0.0)),
            format_weight=float(cfg.get("format_weight", 0.0)),
            max_turns=self._budget(cfg),
        )
        self.final_reward: float | None = None
        self.reward_details: Any = None
        self.tool_calls = 0
        self.returned: list[str] = []
        self.cut_off = False

    def _budget(self, cfg: Mapping[str, Any]) -> int:
        # The drawing budget the prompt states. The core ends an episode at budget + 1 replies (the last one
        # answers), so a trainer cap of T replies gives a budget of T - 1: the prompt then promises no round the
        # trainer would cut, and the core ends the episode, graded, where the trainer would. A larger cap keeps
        # the evaluation's budget, so the model reads the prompt `vcot eval` sends.
        from vcot.vaot.actions import MAX_TURNS

        if cfg.get("budget") is not None:
            return int(cfg["budget"])
        if self.max_turns:
            return max(0, min(MAX_TURNS, self.max_turns - 1))
        return MAX_TURNS

    @property
    def problem(self) -> Problem:
        """The problem of this episode (after `init`)."""
        return self.env.problem

    def init(self, prompt: Sequence[Mapping[str, Any]] | None = None) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        options = {"row": self.row} if self.row is not None else None
        obs, info = self.env.reset(options=options)
        problem = self.env.problem
        gold = (self.extras.get("reward_spec") or {}).get("ground_truth")
        if self.row is not None and gold is not None and str(gold) != str(problem.answer):
            # A dataset written against other task code: its rows no longer regenerate the problems it names.
            raise SkyRLAdapterError(
                f"problem {problem.uid}: the row's ground truth {gold!r} is not the "
                f"regenerated problem's answer {problem.answer!r}"
            )
        system = next((m for m in prompt or [] if m.get("role") == "system"), None)
        conversation = opening(
            obs,
            info.get("tools") or self.env.tools,
            system=system,
            tools_prompt=self.tools_prompt,
            image_format=self.image_format,
        )
        return conversation, {"uid": problem.uid, "task": problem.task, "condition": problem.condition}

    def step(self, action: str) -> BaseTextEnvStepOutput:
        self.turns += 1
        text = action if isinstance(action, str) else str(action)
        content, calls = parse_tool_calls(text, self.turns)
        reply: str | dict[str, Any] = {"content": content, "tool_calls": calls} if calls else text
        obs, reward, terminated, truncated, info = self.env.step(reply)
        self.tool_calls += len(calls)
        returned = list(info.get("returned") or [])
        self.returned.extend(returned)
        done = bool(terminated or truncated)
        metadata: dict[str, Any] = {
            "uid": self.env.problem.uid,
            "task": self.env.problem.task,
            "turn": info.get("turn", self.turns),
            "tool_calls": len(calls),
            "returned": returned,
            "terminated": bool(terminated),
            "truncated": bool(truncated),
            "step_rewards": info.get("step_rewards"),
        }
        if not done and self.max_turns and self.turns >= self.max_turns:
            # The trainer's turn budget ends the episode before the core's: this reply is all the answer there is.
            # Graded as the core grades a reply past its own budget.
            done, self.cut_off = True, True
            reward += self.env.grade(content, truncated=True)
            metadata["cut_off"] = True
            info = {**info, "reward_details": self.env.details}
        if done:
            self.final_reward = float(reward)
            self.reward_details = info.get("reward_details")
            metadata["reward_details"] = _jsonable(self.reward_details)
            return BaseTextEnvStepOutput(observations=[], reward=float(reward), done=True, metadata=metadata)
        observations = skyrl_messages(obs, image_format=self.image_format, observation_role=self.observation_role)
        return BaseTextEnvStepOutput(observations=observations, reward=float(reward), done=False, metadata=metadata)

    def close(self) -> None:
        close = getattr(self.env, "close", None)
        if callable(close):
            close()

    def get_metrics(self) -> dict[str, Any]:
        return {
            "turns": self.turns,
            "tool_calls": self.tool_calls,
            "returned_pictures": len(self.returned),
            "answer_reward": self.final_reward if self.final_reward is not None else 0.0,
            "cut_off": self.cut_off,
        }


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "".join(str(p.get("text", "")) for p in content or [] if isinstance(p, Mapping))


def _jsonable(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    return value


# ---------------------------------------------------------------------------------------------- registry


@dataclasses.dataclass(frozen=True)
class EnvFactory:
    """A registry entry point with default `env_config` keys: SkyRL's generator always passes `env_config`
    (an empty one for an environment its config does not know), which would replace a spec's own kwargs."""

    defaults: tuple[tuple[str, Any], ...]

    def __call__(self, env_config: Any = None, extras: Mapping[str, Any] | None = None) -> VcotSkyRLEnv:
        return VcotSkyRLEnv({**dict(self.defaults), **_plain(env_config)}, extras)


def register_env(env_id: str = ENV_ID, **defaults: Any) -> str:
    """Register `VcotSkyRLEnv` with skyrl_gym under `env_id`; `defaults` are `env_config` keys that every
    environment made under that id starts from (the env_config the trainer passes overrides them). An id this
    module registered is registered again with the new defaults; an id of another environment raises
    skyrl_gym's `RegistrationError`."""
    from skyrl_gym.envs.registration import deregister, register, registry

    unknown = sorted(set(defaults) - set(CONFIG_KEYS))
    if unknown:
        raise SkyRLAdapterError(f"unknown env_config keys {unknown}; known: {sorted(CONFIG_KEYS)}")
    entry_point: Any = EnvFactory(tuple(sorted(defaults.items()))) if defaults else ENTRY_POINT
    spec = registry.get(env_id)
    if spec is not None and (spec.entry_point == ENTRY_POINT or isinstance(spec.entry_point, EnvFactory)):
        if spec.entry_point == entry_point:
            return env_id
        deregister(env_id)
    register(id=env_id, entry_point=entry_point)
    return env_id


register_env()
