"""An adaptive curriculum: per task, keep the policy's accuracy inside a target band by moving one difficulty
knob (docs/rl.md, "Curriculum").

Each managed task has a knob: the preset level (easy → medium → hard, the default) or a numeric parameter of
the task's config, moved one step at a time within the parameter's declared limits (`Task.limits`) and only to
values the task accepts and can generate from. Every `check_every` rewards (default: `window`) the controller
looks at the last `window` rewards since the knob last moved: when the Wilson interval of their mean (z
standard errors, default 1.96: a 95 % interval) lies wholly above the band it makes the task harder, wholly
below it easier; otherwise it holds. Requiring the whole interval outside the band is what keeps it from
oscillating around a level whose accuracy sits at the band's edge.

The controller depends on nothing but the reward sequence, so the same rewards give the same trajectory;
`state_dict` / `load_state_dict` carry everything (JSON) and every move is appended to `history`.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from vcot.tasks import get_task_class
from vcot.tasks.base import Limit

LEVELS = ("easy", "medium", "hard")
LEVEL = "level"
# Knob values tried beyond one the task refuses, in the direction of a move.
MAX_SKIP = 32
STATE_VERSION = 1


@dataclass(frozen=True)
class _Knob:
    """How one task's difficulty moves: `name` is "level" or a config field; `harder` the sign of a step that
    makes the task harder; `ladder` explicit values (easiest first) when given."""

    name: str
    harder: int
    step: float
    integer: bool
    lo: float
    hi: float
    ladder: tuple[Any, ...] | None


def wilson(successes: float, n: int, z: float) -> tuple[float, float]:
    """The Wilson score interval of a proportion (`successes` may be fractional: mean rewards in [0, 1])."""
    if n <= 0:
        return 0.0, 1.0
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


class Curriculum:
    """Per-task difficulty controller; see the module docstring.

    `knobs`: task → knob, "level" (the default) or a numeric config field; prefix "-" or "+" to say that a
    lower or higher value is harder (default: towards the hard preset's value, higher when the presets agree).
    `start`: the preset the tasks start at, or a mapping task → preset or knob value. `ladders`: task →
    explicit knob values, easiest first. `step`: task → step of a numeric knob (default 1 for integers; for
    floats a quarter of the easy-to-hard distance, else a twentieth of the limits' range).
    """

    def __init__(
        self,
        tasks: Iterable[str],
        band: tuple[float, float] = (0.3, 0.7),
        window: int = 64,
        knobs: Mapping[str, str] | None = None,
        start: str | Mapping[str, Any] = "medium",
        *,
        ladders: Mapping[str, Sequence[Any]] | None = None,
        step: Mapping[str, float] | None = None,
        z: float = 1.96,
        check_every: int | None = None,
    ) -> None:
        self.tasks = list(tasks)
        if not self.tasks or len(set(self.tasks)) != len(self.tasks):
            raise ValueError(f"a curriculum needs distinct tasks, got {self.tasks}")
        lo, hi = (float(b) for b in band)
        if not 0.0 <= lo < hi <= 1.0:
            raise ValueError(f"band must satisfy 0 <= low < high <= 1, got {band}")
        if window < 1 or (check_every is not None and check_every < 1):
            raise ValueError("window and check_every must be positive")
        if not math.isfinite(z) or z < 0:
            raise ValueError(f"z must be a non-negative number, got {z}")
        knobs = dict(knobs or {})
        unknown = (set(knobs) | set(ladders or {}) | set(step or {})) - set(self.tasks)
        if unknown:
            raise ValueError(f"knob settings given for tasks outside the curriculum: {sorted(unknown)}")
        self.band = (lo, hi)
        self.window = int(window)
        self.check_every = int(check_every or window)
        self.z = float(z)
        self.knobs = {t: knobs.get(t, LEVEL).lstrip("+-") for t in self.tasks}
        self._spec = {
            "knobs": knobs,
            "start": start if isinstance(start, str) else dict(start),
            "ladders": {t: list(v) for t, v in (ladders or {}).items()},
            "step": dict(step or {}),
        }
        self._knob = {
            t: self._make_knob(t, knobs.get(t, LEVEL), (ladders or {}).get(t), (step or {}).get(t)) for t in self.tasks
        }
        self._base = {t: self._base_level(t, start) for t in self.tasks}
        self._value = {t: self._start_value(t, start) for t in self.tasks}
        self._recent: dict[str, list[float]] = {t: [] for t in self.tasks}
        self._since_check = dict.fromkeys(self.tasks, 0)
        self._observed = dict.fromkeys(self.tasks, 0)
        self._valid: dict[tuple[str, str], bool] = {}
        self.history: list[dict[str, Any]] = []

    # -- knobs ------------------------------------------------------------------------------------------------

    def _make_knob(self, task: str, spec: str, ladder: Sequence[Any] | None, step: float | None) -> _Knob:
        cls = get_task_class(task)
        name = spec.lstrip("+-")
        if name == LEVEL:
            return _Knob(LEVEL, 1, 1, True, 0, len(LEVELS) - 1, tuple(ladder) if ladder else None)
        fields = {f.name for f in dataclasses.fields(cls.config_cls)}
        if name not in fields:
            raise ValueError(f"task {task} has no parameter {name!r}; knobs: 'level' or one of {sorted(fields)}")
        easy = getattr(cls.presets["easy"], name)
        hard = getattr(cls.presets["hard"], name)
        if isinstance(easy, bool) or not isinstance(easy, int | float):
            raise ValueError(
                f"knob {name} of task {task} is not numeric ({easy!r}); use 'level' or a numeric parameter"
            )
        if spec.startswith(("+", "-")):
            harder = -1 if spec.startswith("-") else 1
        else:
            harder = -1 if hard < easy else 1
        limit = cls.limits.get(name)
        lo, hi = (limit.lo, limit.hi) if isinstance(limit, Limit) else (-math.inf, math.inf)
        integer = isinstance(easy, int) and isinstance(hard, int)
        if step is None:
            if integer:
                step = 1
            elif hard != easy:
                step = abs(hard - easy) / 4
            elif math.isfinite(hi - lo):
                step = (hi - lo) / 20
            else:
                raise ValueError(f"give a step for knob {name} of task {task}: its presets agree and it has no limits")
        if step <= 0:
            raise ValueError(f"the step of knob {name} of task {task} must be positive, got {step}")
        return _Knob(name, harder, step, integer, lo, hi, tuple(ladder) if ladder else None)

    def _base_level(self, task: str, start: str | Mapping[str, Any]) -> str:
        """The preset a parameter knob's other parameters come from."""
        s = start if isinstance(start, str) else start.get(task, "medium")
        return s if isinstance(s, str) and s in LEVELS else "medium"

    def _start_value(self, task: str, start: str | Mapping[str, Any]) -> Any:
        k = self._knob[task]
        s = start if isinstance(start, str) else start.get(task, "medium")
        if k.name == LEVEL:
            if k.ladder:
                return s if s in k.ladder else k.ladder[0]
            if s not in LEVELS:
                raise ValueError(f"start level of task {task} must be one of {LEVELS}, got {s!r}")
            return s
        if isinstance(s, str):
            if s not in LEVELS:
                raise ValueError(f"start of task {task} must be a preset name or a knob value, got {s!r}")
            value = getattr(get_task_class(task).presets[s], k.name)
        else:
            value = s
        if k.ladder:  # the ladder value nearest the start
            return min(k.ladder, key=lambda v: (abs(float(v) - float(value)), k.ladder.index(v)))
        if not k.lo <= value <= k.hi:
            raise ValueError(
                f"start value {value!r} of knob {k.name} of task {task} is outside its limits {k.lo}..{k.hi}"
            )
        return value

    def _candidates(self, task: str, harder: bool) -> list[Any]:
        """The knob values one step harder or easier and, when the task refuses one, the next ones beyond
        (a divisor-of-60 parameter skips the values that are not), up to MAX_SKIP, within the limits."""
        k = self._knob[task]
        value = self._value[task]
        sign = 1 if harder else -1
        if k.ladder or k.name == LEVEL:
            ladder = list(k.ladder or LEVELS)
            i = ladder.index(value)
            return ladder[i + 1 :] if harder else ladder[:i][::-1]
        out = []
        for n in range(1, MAX_SKIP + 1):
            nxt = value + sign * k.harder * k.step * n
            nxt = int(round(nxt)) if k.integer else round(float(nxt), 10)
            if not k.lo <= nxt <= k.hi:
                break
            out.append(nxt)
        return out

    def _usable(self, task: str, value: Any) -> bool:
        """Whether the task accepts the knob at `value` and generates a problem there (cached)."""
        import json

        key = (task, json.dumps(value))
        if key not in self._valid:
            from vcot.rl.problems import accepted_scene, configured_task, stream_seed

            preset, overrides = self._setting_at(task, value)
            try:
                accepted_scene(configured_task(task, preset, overrides), stream_seed(0), 0)
                self._valid[key] = True
            except Exception:  # noqa: BLE001 - a parameter value the task refuses or cannot generate from
                self._valid[key] = False
        return self._valid[key]

    def _setting_at(self, task: str, value: Any) -> tuple[str, dict[str, Any]]:
        k = self._knob[task]
        if k.name == LEVEL:
            return str(value), {}
        return self._base[task], {k.name: value}

    # -- public -----------------------------------------------------------------------------------------------

    def level(self, task: str) -> Any:
        """The task's current knob value: a preset name for a level knob, else the parameter's value."""
        return self._value[self._managed(task)]

    def setting(self, task: str) -> tuple[str, dict[str, Any]]:
        """(preset, parameter overrides) the task is drawn at now (what `vcot.rl.stream` uses)."""
        return self._setting_at(self._managed(task), self._value[task])

    def params(self, task: str) -> dict[str, Any]:
        """The task's full parameters at the current knob value (JSON-able)."""
        import json

        from vcot.rl.problems import configured_task

        return json.loads(json.dumps(configured_task(task, *self.setting(task)).params()))

    def _managed(self, task: str) -> str:
        if task not in self._value:
            raise KeyError(f"task {task!r} is not in the curriculum ({', '.join(self.tasks)})")
        return task

    def observe(self, task: str, reward: float) -> None:
        """Feed one reward (clipped to [0, 1]) of `task`; every `check_every` rewards the knob may move.
        Rewards of tasks the curriculum does not manage are ignored (a stream may mix in fixed tasks)."""
        if task not in self._value:
            return
        r = float(reward)
        if not math.isfinite(r):
            raise ValueError(f"reward for task {task} is not a finite number: {reward!r}")
        recent = self._recent[task]
        recent.append(min(1.0, max(0.0, r)))
        if len(recent) > self.window:
            del recent[0]
        self._observed[task] += 1
        self._since_check[task] += 1
        if len(recent) < self.window or self._since_check[task] < self.check_every:
            return
        self._since_check[task] = 0
        low, high = wilson(sum(recent), len(recent), self.z)
        if low > self.band[1]:
            self._move(task, True, sum(recent) / len(recent), (low, high))
        elif high < self.band[0]:
            self._move(task, False, sum(recent) / len(recent), (low, high))

    def _move(self, task: str, harder: bool, accuracy: float, interval: tuple[float, float]) -> None:
        target = next((v for v in self._candidates(task, harder) if self._usable(task, v)), None)
        if target is None:
            return  # at the end of the knob's range: hold, and look again after the next check_every rewards
        self.history.append(
            {
                "task": task,
                "observed": self._observed[task],
                "from": self._value[task],
                "to": target,
                "direction": "harder" if harder else "easier",
                "accuracy": round(accuracy, 6),
                "interval": [round(interval[0], 6), round(interval[1], 6)],
                "window": len(self._recent[task]),
            }
        )
        self._value[task] = target
        self._recent[task] = []
        self._since_check[task] = 0

    # -- state ------------------------------------------------------------------------------------------------

    def _config(self) -> dict[str, Any]:
        return {
            "tasks": self.tasks,
            "band": list(self.band),
            "window": self.window,
            "check_every": self.check_every,
            "z": self.z,
            **self._spec,
        }

    def state_dict(self) -> dict[str, Any]:
        """Everything needed to resume (JSON-able): the configuration, each task's knob value and recent
        rewards, and the history."""
        return {
            "version": STATE_VERSION,
            "config": self._config(),
            "tasks": {
                t: {
                    "value": self._value[t],
                    "recent": list(self._recent[t]),
                    "since_check": self._since_check[t],
                    "observed": self._observed[t],
                }
                for t in self.tasks
            },
            "history": [dict(h) for h in self.history],
        }

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        """Resume from `state_dict()`; the curriculum must have been built with the same configuration."""
        import json

        if state.get("version") != STATE_VERSION:
            raise ValueError(f"curriculum state version {state.get('version')!r}, expected {STATE_VERSION}")
        mine = json.loads(json.dumps(self._config()))
        theirs = json.loads(json.dumps(state.get("config")))
        if mine != theirs:
            diff = sorted(k for k in set(mine) | set(theirs) if mine.get(k) != theirs.get(k))
            raise ValueError(f"curriculum state was saved with another configuration (differs in {diff})")
        # Every value is checked before any is taken, so a state refused here leaves the curriculum as it was
        # and a bad knob value fails now, not at the next draw.
        tasks = state.get("tasks")
        if not isinstance(tasks, Mapping):
            raise ValueError("curriculum state has no 'tasks' mapping")
        loaded = {t: self._loaded_task(t, tasks.get(t)) for t in self.tasks}
        history = state.get("history", [])
        if not isinstance(history, list) or not all(isinstance(h, Mapping) for h in history):
            raise ValueError("curriculum state 'history' must be a list of records")
        for t, (value, recent, since_check, observed) in loaded.items():
            self._value[t] = value
            self._recent[t] = recent
            self._since_check[t] = since_check
            self._observed[t] = observed
        self.history = [dict(h) for h in history]

    def _loaded_task(self, task: str, s: Any) -> tuple[Any, list[float], int, int]:
        """One task's saved (value, recent rewards, since_check, observed), checked against its knob."""
        if not isinstance(s, Mapping):
            raise ValueError(f"curriculum state has no record for task {task}")
        k = self._knob[task]
        value = s.get("value")
        where = f"curriculum state: knob {k.name} of task {task}"
        if k.ladder or k.name == LEVEL:
            ladder = list(k.ladder or LEVELS)
            if value not in ladder:
                raise ValueError(f"{where} is {value!r}, not one of {ladder}")
        else:
            if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
                raise ValueError(f"{where} is {value!r}, not a finite number")
            if k.integer and value != int(value):
                raise ValueError(f"{where} is {value!r}, not a whole number")
            if not k.lo <= value <= k.hi:
                raise ValueError(f"{where} is {value!r}, outside its limits {k.lo:g}..{k.hi:g}")
            if k.integer:
                value = int(value)
        if not self._usable(task, value):
            raise ValueError(f"{where} is {value!r}, a value the task cannot generate at")
        recent = s.get("recent")
        if (
            not isinstance(recent, list)
            or len(recent) > self.window
            or not all(not isinstance(r, bool) and isinstance(r, int | float) and 0.0 <= r <= 1.0 for r in recent)
        ):
            raise ValueError(
                f"curriculum state: 'recent' of task {task} must be at most {self.window} rewards in [0, 1]"
            )
        counts = [s.get("since_check"), s.get("observed")]
        if not all(not isinstance(c, bool) and isinstance(c, int) and 0 <= c for c in counts):
            raise ValueError(
                f"curriculum state: 'since_check' and 'observed' of task {task} must be counts, got {counts}"
            )
        return value, [float(r) for r in recent], int(counts[0]), int(counts[1])
