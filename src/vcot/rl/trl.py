"""TRL adapter (optional extra "rl-trl"): datasets, reward functions, the drawing environment, the curriculum hook.

Built on the contracts of TRL's `GRPOTrainer` as TRL 1.16 implements them (docs/rl.md, "TRL", has the recipe):

- `iterable_dataset(...)` / `dataset(n, ...)`: a streaming `datasets.IterableDataset` or a fixed-size
  `datasets.Dataset` drawn from `vcot.rl.stream(...)`. Columns: TRL's conversational `prompt` (every message's
  content a list of `{"type", "text"}` parts, one `{"type": "image"}` placeholder per picture, which TRL fills
  from `images`), `images` (PIL), and the problem's own columns (`ROW_COLUMNS`). TRL hands every column to each
  reward function as a keyword list, and the whole row to the environment's `reset(**row)`.
- `reward_funcs(...)`: callables with TRL's reward signature `f(prompts, completions, **columns) ->
  list[float | None]`, named `vcot_answer`, `vcot_format` and `vcot_step`; TRL logs each under its `__name__`
  as `rewards/<name>/mean` and `rewards/<name>/std`. A row without vcot's columns gets None (not applicable,
  left out of the mean).
- `DrawingEnvironment`: an `environment_factory` for the VAoT drawing loop. TRL makes one instance per rollout,
  calls `reset(**row)` before generation, exposes every public method as a tool (its JSON schema comes from the
  type hints and the Google-style docstring), calls a tool with the model's arguments as keywords and puts what
  it returns into a `tool` message: a list of `{"type": "image"}` / `{"type": "text"}` parts reaches the next
  turn as a picture. `get_reward()` is then called with no argument and logged under the class name,
  `rewards/DrawingEnvironment/mean`.
- `CurriculumCallback`: a `TrainerCallback` that feeds the answer rewards to a `vcot.rl.Curriculum` (the same
  on every process), saves it with every checkpoint and restores it on resume.

How the environment sees the final answer: TRL never shows it the completion. Its tool loop only calls the
tools, and `get_reward()` takes no argument; but TRL passes the rollouts' environment instances to every
reward function (`environments=`) and runs the reward functions in order, the environment's own reward last.
Each vcot reward function therefore hands its completion to the environment it belongs to, and
`get_reward()` grades that completion with `vcot.rl.reward`. With the environment, leave the answer reward
out of `reward_funcs` (`reward_funcs(answer=False)`), or the answer counts twice.
"""

from __future__ import annotations

import functools
import json
import logging
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

import datasets
from transformers import TrainerCallback

# A runtime import: transformers resolves the tool methods' type hints (`get_type_hints`) in this module.
from vcot.vaot.actions import MAX_TURNS, ColorName
from vcot.vaot.session import whole_number

if TYPE_CHECKING:
    from transformers import TrainerControl, TrainerState, TrainingArguments

    from vcot.rl.curriculum import Curriculum
    from vcot.rl.env import VcotEnv
    from vcot.rl.problems import Problem
    from vcot.vaot.session import DrawingSession

logger = logging.getLogger(__name__)

# The problem columns a reward function and `reset` need besides prompt and images (vcot.rl.Problem.row()).
ROW_COLUMNS = (
    "task",
    "uid",
    "seed",
    "index",
    "variant",
    "difficulty",
    "params",
    "condition",
    "question",
    "answer",
    "answer_type",
    "options",
)
CURRICULUM_FILE = "vcot_curriculum.json"
# The column of `index_dataset` rows: the stream position an environment-owned rollout poses.
INDEX_COLUMN = "vcot_index"
# TRL calls the tools one by one, so each call is a turn of the drawing budget the prompt states.
DEFAULT_MAX_CALLS = MAX_TURNS
Corruption = Literal["modify_key", "modify_non_key"]


class Observer(Protocol):
    """What receives the answer rewards: a `CurriculumCallback` or a `vcot.rl.Curriculum`."""

    def observe(self, task: str, reward: float) -> None: ...


# --- datasets ---------------------------------------------------------------------------------------------------


def features() -> datasets.Features:
    """The Arrow schema of vcot's TRL rows (the same for the streaming and the fixed-size dataset)."""
    part = {"type": datasets.Value("string"), "text": datasets.Value("string")}
    string = datasets.Value("string")
    return datasets.Features(
        {
            "prompt": datasets.List({"role": string, "content": datasets.List(part)}),
            "images": datasets.List(datasets.Image()),
            "task": string,
            "uid": string,
            "seed": datasets.Value("int64"),
            "index": datasets.Value("int64"),
            "variant": datasets.Value("int64"),
            "difficulty": string,
            "params": string,
            "condition": string,
            "question": string,
            "answer": string,
            "answer_type": string,
            "options": datasets.List(string),
        }
    )


def _parts(content: Any) -> list[dict[str, str | None]]:
    # Arrow needs one type per column: a message whose content is a plain string (a system prompt) and one
    # whose content is a part list cannot share the `content` column, so every content becomes a part list.
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    parts = []
    for part in content or []:
        kind = part.get("type")
        parts.append(
            {"type": "image", "text": None} if kind == "image" else {"type": str(kind), "text": part.get("text")}
        )
    return parts


def problem_row(problem: Problem) -> dict[str, Any]:
    """One TRL row of `problem`: `Problem.row()` with every message content as a part list."""
    row = dict(problem.row())
    row["prompt"] = [{"role": m["role"], "content": _parts(m.get("content"))} for m in row["prompt"]]
    row["options"] = list(row.get("options") or [])
    if not isinstance(row.get("params"), str):
        row["params"] = json.dumps(row.get("params"), sort_keys=True)
    return {key: row[key] for key in ("prompt", "images", *ROW_COLUMNS)}


def arrow_row(problem: Problem) -> dict[str, Any]:
    """`problem_row` for an Arrow table (`features()`): each picture as PNG bytes from vcot's fast writer. Given
    PIL pictures, datasets would encode them with Pillow's adaptive filtering, about 10x slower."""
    from vcot.draw.png import encode_png

    row = problem_row(problem)
    row["images"] = [{"bytes": encode_png(im), "path": None} for im in row["images"]]
    return row


def index_dataset(n: int) -> datasets.Dataset:
    """`n` rows that name stream positions 0..n-1 (`vcot_index`) and hold an empty prompt: the data of an
    environment-owned stream (`DrawingEnvironment.factory(stream=...)`) made exact on several processes. TRL
    repeats each row for its group and spreads rows over processes; each environment poses item `vcot_index`
    of its stream, which every process draws identically (streams are random-access and deterministic)."""
    if n < 1:
        raise ValueError(f"an index dataset needs at least one row, got n={n}")
    empty = [{"role": "user", "content": [{"type": "text", "text": ""}]}]
    return datasets.Dataset.from_dict({"prompt": [empty] * n, INDEX_COLUMN: list(range(n))})


def _task_names(tasks: str | Sequence[str] | None) -> list[str] | None:
    # One name is a task, not a sequence of one-letter tasks.
    if tasks is None:
        return None
    return [tasks] if isinstance(tasks, str) else list(tasks)


def _rows(stream_kwargs: dict[str, Any]) -> Iterator[dict[str, Any]]:
    from vcot.rl import stream

    # A fresh stream per pass: each epoch of the dataset replays the same deterministic sequence.
    for problem in stream(**stream_kwargs):
        yield problem_row(problem)


def iterable_dataset(
    tasks: str | Sequence[str] | None = None,
    *,
    preset: str | None = None,
    difficulty: str | Mapping[str, str] | None = None,
    params: Mapping[str, Any] | None = None,
    seed: int = 0,
    exclude: Any = None,
    condition: str = "direct",
    steps: bool = False,
    curriculum: Curriculum | None = None,
) -> datasets.IterableDataset:
    """An endless `datasets.IterableDataset` of TRL rows from `vcot.rl.stream(...)` (same arguments).

    GRPOTrainer needs `max_steps` with it. With `curriculum`, each task's problems are drawn at the
    curriculum's current parameters when the trainer reads them (the stream is read lazily, in this process).
    """
    from vcot.rl import stream

    kwargs: dict[str, Any] = {
        "tasks": _task_names(tasks),
        "preset": preset,
        "difficulty": difficulty,
        "params": dict(params) if params else params,
        "seed": seed,
        "exclude": exclude,
        "condition": condition,
        "steps": steps,
    }
    if curriculum is not None:
        kwargs["curriculum"] = curriculum
    # Built once now, so that a bad task, setting or `exclude` suite fails here and not at the trainer's first
    # batch; the excluded scenes are read once and handed on as keys.
    kwargs["exclude"] = dict(stream(**kwargs).excluded)
    # The generator closes over the arguments instead of passing them as gen_kwargs: datasets would copy them,
    # and the curriculum must stay the very object the rewards update. No `features`: declared features make
    # datasets encode every picture to PNG and decode it again on read (5-7x the problem's own cost,
    # benchmarks/rl_stream.py); without them rows pass through as built, PIL pictures included.
    return datasets.IterableDataset.from_generator(functools.partial(_rows, kwargs))


def dataset(
    n: int,
    tasks: str | Sequence[str] | None = None,
    *,
    preset: str | None = None,
    difficulty: str | Mapping[str, str] | None = None,
    params: Mapping[str, Any] | None = None,
    seed: int = 0,
    exclude: Any = None,
    condition: str = "direct",
    steps: bool = False,
) -> datasets.Dataset:
    """A fixed-size in-memory `datasets.Dataset` of the first `n` problems of `vcot.rl.stream(...)`."""
    from vcot.rl import stream

    if n < 1:
        raise ValueError(f"a dataset needs at least one problem, got n={n}")
    problems = stream(
        tasks=_task_names(tasks),
        preset=preset,
        difficulty=difficulty,
        params=dict(params) if params else params,
        seed=seed,
        exclude=exclude,
        condition=condition,
        steps=steps,
    ).take(n)
    return datasets.Dataset.from_list([arrow_row(p) for p in problems], features=features())


# --- reward functions -------------------------------------------------------------------------------------------


def _row_at(columns: Mapping[str, Any], i: int) -> dict[str, Any] | None:
    """The problem columns of sample `i`, or None when the batch does not carry vcot's grading columns."""
    row = {}
    for key in ROW_COLUMNS:
        values = columns.get(key)
        if values is not None and i < len(values):
            row[key] = values[i]
    if row.get("answer") is None or row.get("answer_type") is None:
        return None
    row["options"] = list(row.get("options") or [])
    return row


class VcotReward:
    """A reward function with TRL's signature over vcot's grader; `__name__` is the logged column name.

    `kind`: "answer" (`vcot.rl.reward`, 1.0 for a correct committed answer), "format" (`vcot.rl.format_reward`,
    1.0 when a complete <answer> tag is present) or "step" (`vcot.rl.step_reward`, the share of the
    completion's <stepK> answers that match the solver's states; None for a task without state probes; the
    "state_probe" condition asks for those tags) or "dense" (`vcot.rl.dense_reward`, the process reward: 1/K
    per step of the right prefix, -1/K for the first wrong one, 0 after; None without probes; docs/rl.md,
    "Dense rewards"). A module-level class so the functions pickle (TRL's async trainer sends reward
    functions to its workers).
    """

    KINDS = ("answer", "format", "step", "dense")

    def __init__(
        self,
        kind: str,
        *,
        curriculum: Observer | None = None,
        format_weight: float = 0.0,
        eos_token_ids: Sequence[int] | None = None,
    ) -> None:
        if kind not in self.KINDS:
            raise ValueError(f"unknown vcot reward {kind!r}; one of {', '.join(self.KINDS)}")
        self.kind = kind
        self.__name__ = f"vcot_{kind}"
        self.curriculum = curriculum
        self.format_weight = float(format_weight)
        self.eos_token_ids = frozenset(eos_token_ids) if eos_token_ids is not None else None

    def __repr__(self) -> str:
        return f"VcotReward({self.kind!r})"

    def _truncated(self, completion_ids: Sequence[Sequence[int]] | None, i: int) -> bool:
        # Without the end-of-turn ids a cut-off completion cannot be told apart; vcot's grader then relies on
        # the answer tag being complete.
        if self.eos_token_ids is None or completion_ids is None or i >= len(completion_ids):
            return False
        ids = completion_ids[i]
        return not len(ids) or int(ids[-1]) not in self.eos_token_ids

    def __call__(
        self, prompts: list, completions: list, completion_ids: list | None = None, **columns: Any
    ) -> list[float | None]:
        from vcot.rl import dense_rewards, format_reward, reward, step_rewards

        environments = columns.get("environments") or []
        out: list[float | None] = []
        for i, completion in enumerate(completions):
            truncated = self._truncated(completion_ids, i)
            env = environments[i] if i < len(environments) else None
            if isinstance(env, DrawingEnvironment):
                env._observe(completion, truncated)
            row = _row_at(columns, i)
            if row is None and isinstance(env, DrawingEnvironment):
                row = env.row  # environment-owned data: the batch carries no problem columns
            if row is None:
                out.append(None)
            elif self.kind == "answer":
                value = reward(completion, row, truncated=truncated, format_weight=self.format_weight)
                if self.curriculum is not None:
                    self.curriculum.observe(row["task"], float(value))
                out.append(float(value))
            elif self.kind == "format":
                out.append(float(format_reward(completion)))
            elif self.kind == "dense":
                dense = dense_rewards(completion, row)
                out.append(sum(dense) if dense else None)
            else:
                steps = step_rewards(completion, row)
                out.append(sum(steps) / len(steps) if steps else None)
        if self.kind == "answer" and environments and any(isinstance(e, DrawingEnvironment) for e in environments):
            _warn_once(
                "vcot_answer is in reward_funcs beside DrawingEnvironment, whose get_reward grades the same "
                "answer: the answer counts twice (use reward_funcs(answer=False) with the environment)"
            )
        return out


def reward_funcs(
    answer: bool = True,
    format: bool = True,
    step: bool = True,
    *,
    dense: bool = False,
    curriculum: Observer | None = None,
    format_weight: float = 0.0,
    eos_token_ids: Sequence[int] | None = None,
) -> list[VcotReward]:
    """vcot's reward functions for `GRPOTrainer(reward_funcs=...)`, logged as vcot_answer, vcot_format, vcot_step
    (and vcot_dense, the process reward, with `dense=True`).

    `curriculum`: the answer reward reports every reward to `curriculum.observe(task, reward)` (a
    `CurriculumCallback`, which applies them in step with the other processes, or a `vcot.rl.Curriculum`).
    `format_weight`: added to the answer reward times the format reward (vcot.rl.reward's knob; default off).
    `eos_token_ids`: the tokenizer's end-of-turn ids; a completion not ending on one counts as truncated, and
    vcot's grader then takes its answer only from a complete <answer> tag.
    """
    chosen = [kind for kind, on in (("answer", answer), ("format", format), ("step", step), ("dense", dense)) if on]
    if not chosen:
        raise ValueError("no reward function chosen: enable at least one of answer, format, step, dense")
    return [
        VcotReward(
            kind,
            curriculum=curriculum if kind == "answer" else None,
            format_weight=format_weight,
            eos_token_ids=eos_token_ids,
        )
        for kind in chosen
    ]


@functools.cache
def _warn_once(message: str) -> None:
    logger.warning(message)


# --- the drawing environment ------------------------------------------------------------------------------------


def _action(stub: Callable[..., Any]) -> Callable[..., Any]:
    """A tool method whose signature and docstring are `stub`'s (what TRL turns into the JSON schema) and whose
    call goes to `DrawingEnvironment._act`, which validates whatever arguments the model sent: a missing,
    unknown or ill-typed argument comes back as an error text instead of a TypeError before any check."""

    @functools.wraps(stub)
    def tool(self: DrawingEnvironment, *args: Any, **kwargs: Any) -> list[dict[str, Any]] | str:
        return self._act(stub.__name__, args, kwargs)

    return tool


class DrawingEnvironment:
    """The VAoT drawing loop as a TRL `environment_factory`: one instance per rollout, one tool per action.

    Coordinates (docs/vaot.md) are pixels of the current image: origin at the top-left corner, x to the right,
    y downwards; values outside the image are clamped to its border. Each successful action returns the newly
    rendered picture (for crop_zoom, the enlarged view) and a short text; an invalid action, or one past the
    budget of `max_calls`, returns an error text and changes nothing. `corruption` chooses what is rendered:
    None (faithful), "modify_key" (task-relevant evidence altered) or "modify_non_key" (a stray mark on blank
    background). Pass `DrawingEnvironment` itself, or `DrawingEnvironment.factory(...)` for other knobs.
    """

    def __init__(
        self,
        corruption: Corruption | None = None,
        max_calls: int = DEFAULT_MAX_CALLS,
        curriculum: Observer | None = None,
        stream: Mapping[str, Any] | None = None,
    ) -> None:
        from vcot.rl.env import VcotEnv
        from vcot.vaot.episode import drawing_condition

        try:
            condition = drawing_condition(corruption)
        except ValueError:
            raise ValueError(f"corruption must be None, 'modify_key' or 'modify_non_key', got {corruption!r}") from None
        max_calls = whole_number("max_calls", max_calls)  # NaN would fail only at the first rollout
        if max_calls < 0:
            raise ValueError(f"max_calls must be at least 0, got {max_calls}")
        self._corruption = corruption
        self._max_calls = max_calls
        self._curriculum = curriculum
        # The core owns the drawing and the reward; this class only speaks TRL. `stream`: the arguments of
        # vcot.rl.stream for environment-owned data (a trainer given no train_dataset).
        self._env: VcotEnv = VcotEnv(condition=condition, max_turns=max_calls, **dict(stream or {}))
        self._row: dict[str, Any] | None = None
        self._completion: Any = None
        self._truncated = False

    @classmethod
    def factory(
        cls,
        *,
        corruption: Corruption | None = None,
        max_calls: int = DEFAULT_MAX_CALLS,
        curriculum: Observer | None = None,
        stream: Mapping[str, Any] | None = None,
        num_generations: int = 1,
    ) -> Callable[[], DrawingEnvironment]:
        """A zero-argument factory for `GRPOTrainer(environment_factory=...)` with these knobs. `stream`: the
        arguments of `vcot.rl.stream` (tasks, difficulty, seed, exclude, curriculum, ...) when the environment
        owns the data: then leave out `train_dataset`, and each rollout's `reset()` poses its own problem
        (TRL 1.16+); pass GRPO's `num_generations` so that the rollouts of one group share their problem. Without
        a dataset this is exact on one process only (each process counts its own rollouts); give
        `train_dataset=index_dataset(n)` for several: each row names its stream position."""
        cls(corruption=corruption, max_calls=max_calls, stream=stream)  # fail on a bad knob now
        group = whole_number("num_generations", num_generations)
        if group < 1:
            raise ValueError(f"num_generations must be at least 1, got {group}")
        if stream is not None:
            return functools.partial(cls._owned, dict(stream), corruption, max_calls, curriculum, group)
        return functools.partial(cls, corruption=corruption, max_calls=max_calls, curriculum=curriculum)

    # Environments of one factory share one stream, so the rollouts of a batch get successive problems and
    # GRPO's num_generations rollouts of one prompt get the same one (TRL resets them in prompt order).
    _shared: dict[str, Any] = {}

    @classmethod
    def _owned(
        cls,
        stream: dict[str, Any],
        corruption: Corruption | None,
        max_calls: int,
        curriculum: Observer | None,
        group: int,
    ) -> DrawingEnvironment:
        env = cls(corruption=corruption, max_calls=max_calls, curriculum=curriculum, stream=stream)
        key = json.dumps({"s": stream, "c": corruption, "m": max_calls, "g": group}, sort_keys=True, default=repr)
        shared = cls._shared.setdefault(key, {"stream": env._env.stream, "served": 0, "group": group})
        env._env._stream = shared["stream"]
        env._shared_state = shared
        return env

    # TRL calls reset(**row) with every column of the dataset row; only the problem columns matter here.
    def reset(self, **row: Any) -> str | list[dict[str, Any]] | None:
        """Start a rollout. On a row of vcot's columns: that problem (regenerated from its seed), and nothing
        is added to the prompt. On a row without them (environment-owned data): the stream's next problem, whose
        pictures and text are returned to be appended to the (empty) prompt."""
        self._completion, self._truncated = None, False
        if all(row.get(key) is not None for key in ("task", "seed", "index")):
            params = row.get("params") or "{}"
            params = params if isinstance(params, str) else json.dumps(params, sort_keys=True)
            self._env.reset(options={"row": {**row, "params": params}})
            self._row = {key: row.get(key) for key in ROW_COLUMNS}
            self._row["params"] = params
            self._row["options"] = list(self._row.get("options") or [])
            return None
        if getattr(self, "_shared_state", None) is None:
            raise ValueError(
                "DrawingEnvironment.reset needs vcot's dataset columns (task, seed, index), or a "
                "factory given stream=... for environment-owned data"
            )
        position = row.get(INDEX_COLUMN)
        if position is not None:  # an index_dataset row: item `position` of the stream, on every process
            problem = self._shared_state["stream"][whole_number(INDEX_COLUMN, position)]
        else:
            problem = self._next_owned()
        observation, _ = self._env.reset(options={"problem": problem})
        self._row = {key: v for key, v in self._env.problem.row().items() if key in ROW_COLUMNS}
        self._row["options"] = list(self._row.get("options") or [])
        return observation[-1]["content"]

    def _next_owned(self) -> Problem:
        # One problem per group of rollouts: TRL hands the num_generations rollouts of a prompt successive
        # environments, and the placeholder rows are the same empty prompt, so the group size decides.
        shared = self._shared_state
        group = max(1, int(shared.get("group", 1)))
        k = shared["served"] // group
        shared["served"] += 1
        if shared.get("k") != k:
            shared["k"], shared["problem"] = k, next(shared["stream"])
        return shared["problem"]

    @property
    def env(self) -> VcotEnv:
        """The environment core this adapter speaks for."""
        return self._env

    @property
    def session(self) -> DrawingSession | None:
        """The current rollout's drawing session (None before the first reset)."""
        return self._env.session

    @property
    def row(self) -> dict[str, Any] | None:
        """The current problem's grading columns (what vcot's reward functions read)."""
        return self._row

    def _observe(self, completion: Any, truncated: bool = False) -> None:
        """The rollout's final completion, handed over by vcot's reward functions for `get_reward`."""
        self._completion = completion
        self._truncated = truncated

    def get_reward(self) -> float | None:
        """The answer reward (vcot.rl.reward) of the rollout's final completion; None when no vcot reward
        function handed it over (TRL then ignores this reward for the rollout)."""
        if self._row is None or self._completion is None:
            _warn_once(
                "DrawingEnvironment.get_reward saw no completion: include at least one of vcot's reward "
                "functions (vcot.rl.trl.reward_funcs) so the completion reaches the environment"
            )
            return None
        value = self._env.grade(self._completion, truncated=self._truncated)
        if self._curriculum is not None:
            self._curriculum.observe(self._row["task"], float(self._env.details.reward))
        return value

    def _act(self, name: str, args: tuple, kwargs: dict[str, Any]) -> list[dict[str, Any]] | str:
        if args:
            return f"Action rejected: {name}: pass the arguments by name"
        if self._env.session is None:
            return f"Action rejected: {name}: no problem is loaded"
        try:
            image, text, _ = self._env.act(name, dict(kwargs))
        except Exception as exc:  # the session promises not to raise; a model's call must never end the rollout
            logger.debug("drawing action %s raised", name, exc_info=True)
            return f"Action rejected: {name}: {type(exc).__name__}"
        if image is None:
            return text if text.startswith("Action rejected") else f"Action rejected: {text}"
        # A copy: TRL keeps the picture until the rollout's forward pass, and the session draws on its state.
        return [{"type": "image", "image": image.copy()}, {"type": "text", "text": text}]

    # The tools. Signatures and defaults mirror vcot.vaot.actions (tests/rl/test_trl_adapter.py compares them).

    @_action
    def draw_line(
        self,
        x1: float,
        y1: float,
        x2: float,
        y2: float,
        color: ColorName = "red",
        width: float = 3,
        dashed: bool = False,
    ) -> list[dict[str, Any]] | str:
        """Draw a straight segment from (x1, y1) to (x2, y2). Coordinates are pixels of the current image: origin
        at the top-left corner, x to the right, y downwards; values outside the image are clamped to its border.

        Args:
            x1: x of the start point, in pixels from the left edge.
            y1: y of the start point, in pixels from the top edge.
            x2: x of the end point, in pixels from the left edge.
            y2: y of the end point, in pixels from the top edge.
            color: Stroke colour.
            width: Stroke width in pixels, 1 to 12.
            dashed: Draw the segment dashed.

        Returns:
            The redrawn picture and a short text, or an error text.
        """

    @_action
    def draw_ray(
        self, x: float, y: float, x_through: float, y_through: float, color: ColorName = "red", width: float = 3
    ) -> list[dict[str, Any]] | str:
        """Draw a ray from (x, y) through (x_through, y_through), extended to the image border. Coordinates are
        pixels of the current image: origin at the top-left corner, x to the right, y downwards; values outside
        the image are clamped to its border.

        Args:
            x: x of the start point, in pixels from the left edge.
            y: y of the start point, in pixels from the top edge.
            x_through: x of a second point the ray passes through.
            y_through: y of a second point the ray passes through.
            color: Stroke colour.
            width: Stroke width in pixels, 1 to 12.

        Returns:
            The redrawn picture and a short text, or an error text.
        """

    @_action
    def draw_arrow(
        self, x1: float, y1: float, x2: float, y2: float, color: ColorName = "red", width: float = 3
    ) -> list[dict[str, Any]] | str:
        """Draw an arrow from (x1, y1) with its head at (x2, y2). Coordinates are pixels of the current image:
        origin at the top-left corner, x to the right, y downwards; values outside the image are clamped.

        Args:
            x1: x of the tail, in pixels from the left edge.
            y1: y of the tail, in pixels from the top edge.
            x2: x of the head, in pixels from the left edge.
            y2: y of the head, in pixels from the top edge.
            color: Stroke colour.
            width: Stroke width in pixels, 1 to 12.

        Returns:
            The redrawn picture and a short text, or an error text.
        """

    @_action
    def draw_polyline(
        self, points: list[list[float]], color: ColorName = "red", width: float = 3
    ) -> list[dict[str, Any]] | str:
        """Draw an open path through the points. Coordinates are pixels of the current image: origin at the
        top-left corner, x to the right, y downwards; values outside the image are clamped to its border.

        Args:
            points: The path's points as [[x, y], ...], 2 to 64 of them.
            color: Stroke colour.
            width: Stroke width in pixels, 1 to 12.

        Returns:
            The redrawn picture and a short text, or an error text.
        """

    @_action
    def draw_polygon(
        self, points: list[list[float]], fill: bool = False, color: ColorName = "red", width: float = 3
    ) -> list[dict[str, Any]] | str:
        """Draw a closed polygon through the points, optionally filled translucently. Coordinates are pixels of
        the current image: origin at the top-left corner, x to the right, y downwards; values are clamped.

        Args:
            points: The vertices as [[x, y], ...], 3 to 64 of them.
            fill: Fill the polygon translucently.
            color: Stroke colour.
            width: Stroke width in pixels, 1 to 12.

        Returns:
            The redrawn picture and a short text, or an error text.
        """

    @_action
    def draw_circle(
        self, x: float, y: float, radius: float, color: ColorName = "red", width: float = 3
    ) -> list[dict[str, Any]] | str:
        """Draw a circle centred at (x, y). Coordinates are pixels of the current image: origin at the top-left
        corner, x to the right, y downwards; values outside the image are clamped to its border.

        Args:
            x: x of the centre, in pixels from the left edge.
            y: y of the centre, in pixels from the top edge.
            radius: Radius in pixels, more than 0 and at most 4096.
            color: Stroke colour.
            width: Stroke width in pixels, 1 to 12.

        Returns:
            The redrawn picture and a short text, or an error text.
        """

    @_action
    def mark_point(self, x: float, y: float, label: str = "", color: ColorName = "red") -> list[dict[str, Any]] | str:
        """Mark a point with a dot and a short label next to it. Coordinates are pixels of the current image:
        origin at the top-left corner, x to the right, y downwards; values outside the image are clamped.

        Args:
            x: x of the point, in pixels from the left edge.
            y: y of the point, in pixels from the top edge.
            label: Text next to the dot, at most 16 characters.
            color: Dot colour.

        Returns:
            The redrawn picture and a short text, or an error text.
        """

    @_action
    def highlight_box(
        self, x1: float, y1: float, x2: float, y2: float, color: ColorName = "red", width: float = 3
    ) -> list[dict[str, Any]] | str:
        """Outline the box with corners (x1, y1) and (x2, y2), with a translucent fill. Coordinates are pixels of
        the current image: origin at the top-left corner, x to the right, y downwards; values are clamped.

        Args:
            x1: x of one corner, in pixels from the left edge.
            y1: y of one corner, in pixels from the top edge.
            x2: x of the opposite corner.
            y2: y of the opposite corner.
            color: Outline colour.
            width: Outline width in pixels, 1 to 12.

        Returns:
            The redrawn picture and a short text, or an error text.
        """

    @_action
    def annotate_text(
        self, x: float, y: float, text: str, color: ColorName = "black", size: int = 16
    ) -> list[dict[str, Any]] | str:
        """Write a short text with its top-left corner at (x, y). Coordinates are pixels of the current image:
        origin at the top-left corner, x to the right, y downwards; values outside the image are clamped.

        Args:
            x: x of the text's top-left corner, in pixels from the left edge.
            y: y of the text's top-left corner, in pixels from the top edge.
            text: The text, 1 to 64 characters.
            color: Text colour.
            size: Font size in pixels, 10 to 40.

        Returns:
            The redrawn picture and a short text, or an error text.
        """

    @_action
    def crop_zoom(self, x1: float, y1: float, x2: float, y2: float) -> list[dict[str, Any]] | str:
        """Return an enlarged view of the box with corners (x1, y1) and (x2, y2); the drawing is not changed.
        Coordinates are pixels of the current image: origin at the top-left corner, x to the right, y
        downwards; values are clamped to the image, and the box must be at least 16 x 16 pixels inside it.

        Args:
            x1: x of one corner, in pixels from the left edge.
            y1: y of one corner, in pixels from the top edge.
            x2: x of the opposite corner.
            y2: y of the opposite corner.

        Returns:
            The enlarged view and a short text, or an error text.
        """

    @_action
    def mask_region(
        self, x1: float, y1: float, x2: float, y2: float, mode: Literal["mask", "isolate"] = "mask"
    ) -> list[dict[str, Any]] | str:
        """Grey out the box with corners (x1, y1) and (x2, y2) ("mask"), or everything except it ("isolate").
        Coordinates are pixels of the current image: origin at the top-left corner, x to the right, y
        downwards; values outside the image are clamped to its border.

        Args:
            x1: x of one corner, in pixels from the left edge.
            y1: y of one corner, in pixels from the top edge.
            x2: x of the opposite corner.
            y2: y of the opposite corner.
            mode: "mask" greys out the box, "isolate" everything but the box.

        Returns:
            The redrawn picture and a short text, or an error text.
        """


# --- curriculum -------------------------------------------------------------------------------------------------


class CurriculumCallback(TrainerCallback):
    """Feeds the answer rewards to a `vcot.rl.Curriculum` and keeps it with the trainer's checkpoints.

    Pass the callback as the `curriculum=` of `reward_funcs(...)` or `DrawingEnvironment.factory(...)` and in
    `callbacks=[...]`; give the curriculum itself to `iterable_dataset(curriculum=...)`. The rewards are
    collected as they are computed and applied at the end of each optimizer step, gathered from every process
    in one order: each process's stream then moves its tasks identically, which GRPO needs, since a prompt's
    generations are spread over the processes. The callback writes `vcot_curriculum.json` into every
    `checkpoint-<step>` folder, restores it when training resumes from one, and adds each task's level
    (`curriculum/<task>`) to the trainer's log history.
    """

    def __init__(self, curriculum: Curriculum, filename: str = CURRICULUM_FILE) -> None:
        self.curriculum = curriculum
        self.filename = filename
        self.observed = 0
        self._pending: list[tuple[str, float]] = []
        self._tasks: dict[str, None] = {}

    def observe(self, task: str, reward: float) -> None:
        """Queue one reward; it reaches the curriculum at the end of the optimizer step."""
        self._pending.append((str(task), float(reward)))

    def flush(self) -> int:
        """Apply the queued rewards of every process now (each process must call it); returns how many."""
        pending, self._pending = self._pending, []
        from accelerate import PartialState

        if PartialState().num_processes > 1:
            from accelerate.utils import gather_object

            pending = [tuple(item) for item in gather_object(pending)]
        for task, value in pending:
            self.curriculum.observe(task, value)
            self._tasks[task] = None
        self.observed += len(pending)
        return len(pending)

    def _checkpoint(self, args: TrainingArguments, step: int) -> Path:
        # transformers' Trainer names its checkpoint folders checkpoint-<global step> inside output_dir.
        return Path(args.output_dir) / f"checkpoint-{step}"

    def save(self, folder: str | Path) -> Path:
        """Write the curriculum's state into `folder`; returns the file."""
        path = Path(folder) / self.filename
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(self.curriculum.state_dict(), indent=1, sort_keys=True), encoding="utf-8")
        return path

    def load(self, folder: str | Path) -> bool:
        """Restore the curriculum from `folder` (a checkpoint); False when it holds no curriculum file."""
        path = Path(folder) / self.filename
        if not path.is_file():
            return False
        self.curriculum.load_state_dict(json.loads(path.read_text(encoding="utf-8")))
        return True

    def on_step_end(self, args: TrainingArguments, state: TrainerState, control: TrainerControl, **kwargs: Any) -> None:
        self.flush()

    def on_save(self, args: TrainingArguments, state: TrainerState, control: TrainerControl, **kwargs: Any) -> None:
        if state.is_world_process_zero:
            self.save(self._checkpoint(args, state.global_step))

    def on_train_begin(
        self, args: TrainingArguments, state: TrainerState, control: TrainerControl, **kwargs: Any
    ) -> None:
        # On resume the trainer has already loaded its state, so global_step names the checkpoint it came from.
        if state.global_step > 0 and self.load(self._checkpoint(args, state.global_step)):
            logger.info("vcot curriculum restored from checkpoint-%d", state.global_step)

    def on_log(
        self,
        args: TrainingArguments,
        state: TrainerState,
        control: TrainerControl,
        logs: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        # The trainer appends a copy of `logs` to the history before calling back, so the levels go into that
        # entry (reporting integrations called earlier do not see them).
        if not state.log_history:
            return
        for task in getattr(self.curriculum, "tasks", None) or list(self._tasks):
            try:
                level = self.curriculum.level(task)
            except (KeyError, ValueError):
                continue
            if isinstance(level, int | float | str) and not isinstance(level, bool):
                state.log_history[-1][f"curriculum/{task}"] = level
