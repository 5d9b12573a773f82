"""The curriculum: `CurriculumSampler` (the interface of verl's `AbstractCurriculumSampler`) and
`CurriculumDataset` (an `RLHFDataset` for `data.custom_cls` that carries the sampler inside), both built on
first access by the package's `__getattr__`, and the row picker that moves each task along
`vcot.rl.Curriculum`."""

from __future__ import annotations

import json
import logging
import random
from collections.abc import Iterator, Mapping
from typing import Any

# The package's logger, as when the adapter was one module: logging set up for vcot.rl.verl still applies.
logger = logging.getLogger(__package__)


def _row_keys(data_source: Any) -> list[tuple[str, str, dict]]:
    """(task, difficulty, params) of every row of a verl dataset (its `dataframe`) or a sequence of rows."""
    frame = getattr(data_source, "dataframe", None)
    if frame is not None and "extra_info" in getattr(frame, "column_names", ()):
        infos = list(frame["extra_info"])
    else:
        infos = [data_source[i].get("extra_info") for i in range(len(data_source))]
    out = []
    for info in infos:
        info = info if isinstance(info, Mapping) else {}
        try:
            params = json.loads(info.get("params") or "{}")
        except (TypeError, ValueError):
            params = {}
        out.append(
            (str(info.get("task", "")), str(info.get("difficulty", "")), params if isinstance(params, dict) else {})
        )
    return out


# vcot.rl.Curriculum's own arguments, passed through from data.vcot_curriculum.
_CURRICULUM_ARGS = ("band", "window", "knobs", "start", "ladders", "step", "z", "check_every")


class _Picker:
    """Chooses a row for each draw from the pool of its task at the curriculum's current level."""

    def __init__(self, keys: list[tuple[str, str, dict]], options: Mapping[str, Any]) -> None:
        from vcot.rl import Curriculum

        self.keys = keys
        self.tasks = sorted({t for t, _, _ in keys if t})
        if not self.tasks:
            raise ValueError("the dataset has no vcot rows (extra_info.task)")
        self.rows: dict[str, list[int]] = {t: [] for t in self.tasks}
        for i, (t, _, _) in enumerate(keys):
            if t:
                self.rows[t].append(i)
        kwargs = {k: options[k] for k in _CURRICULUM_ARGS if options.get(k) is not None}
        if "band" in kwargs:
            kwargs["band"] = tuple(kwargs["band"])
        self.curriculum = Curriculum(self.tasks, **kwargs)
        self.seed = int(options.get("seed") or 0)
        self.draws = 0
        self._pools: dict[tuple[str, str], list[int]] = {}

    def pool(self, task: str) -> list[int]:
        """The rows of `task` that match the curriculum's current parameters (the nearest level's when none
        do exactly): the preset name, else the knob's value, else all the task's rows."""
        level = self.curriculum.level(task)
        target = self.curriculum.params(task)
        cache_key = (task, json.dumps([level, target], sort_keys=True, default=str))
        if cache_key in self._pools:
            return self._pools[cache_key]
        rows = self.rows[task]
        exact = [i for i in rows if target and all(self.keys[i][2].get(k) == v for k, v in target.items())]
        pool = exact or [i for i in rows if self.keys[i][1] == str(level)]
        if not pool:
            pool = self._nearest(task, rows, level)
        self._pools[cache_key] = pool or rows
        return self._pools[cache_key]

    def _nearest(self, task: str, rows: list[int], level: Any) -> list[int]:
        # Equally near levels are served together (medium asked, easy and hard exported: both).
        presets = ["easy", "medium", "hard"]
        if isinstance(level, str) and level in presets:
            dist = {
                i: abs(presets.index(self.keys[i][1]) - presets.index(level))
                for i in rows
                if self.keys[i][1] in presets
            }
            if dist:
                best = min(dist.values())
                return [i for i, d in dist.items() if d == best]
        knob = (getattr(self.curriculum, "knobs", None) or {}).get(task)
        if knob and isinstance(level, int | float) and not isinstance(level, bool):
            vals = {i: self.keys[i][2].get(knob) for i in rows}
            nums = {i: v for i, v in vals.items() if isinstance(v, int | float) and not isinstance(v, bool)}
            if nums:
                best_dist = min(abs(v - level) for v in nums.values())
                return [i for i, v in nums.items() if abs(v - level) == best_dist]
        return []

    def pick(self, item: int) -> int:
        task = self.keys[item][0] if 0 <= item < len(self.keys) and self.keys[item][0] else self.tasks[0]
        pool = self.pool(task)
        rng = random.Random(f"{self.seed}:{item}:{self.draws}")
        self.draws += 1
        return pool[rng.randrange(len(pool))]

    def update(self, batch: Any) -> int:
        """Feed a verl batch's rewards (per sample: `acc` from compute_score, else the summed token-level
        score) to the curriculum; returns how many were observed."""
        tasks, rewards = _batch_rewards(batch)
        for task, r in zip(tasks, rewards, strict=False):
            if task in self.rows:
                self.curriculum.observe(task, r)
        return len(tasks)


def _batch_rewards(batch: Any) -> tuple[list[str], list[float]]:
    non_tensor = getattr(batch, "non_tensor_batch", None) or {}
    tensors = getattr(batch, "batch", None)
    infos = non_tensor.get("extra_info")
    if infos is None:
        return [], []
    tasks = [str(i.get("task", "")) if isinstance(i, Mapping) else "" for i in infos]
    rewards: list[float] | None = None
    if "acc" in non_tensor:
        rewards = [float(x) for x in non_tensor["acc"]]
    elif tensors is not None:
        for key in ("token_level_scores", "token_level_rewards", "rm_scores"):
            if key in tensors.keys():
                rewards = [float(x) for x in tensors[key].sum(-1).tolist()]
                break
    if rewards is None or len(rewards) != len(tasks):
        return [], []
    return tasks, rewards


def _curriculum_options(data_config: Any) -> dict[str, Any]:
    raw = None
    if data_config is not None:
        getter = getattr(data_config, "get", None)
        raw = getter("vcot_curriculum", None) if getter else None
    if raw is None:
        return {}
    try:
        from omegaconf import OmegaConf

        if OmegaConf.is_config(raw):
            raw = OmegaConf.to_container(raw, resolve=True)
    except ImportError:  # plain dict configs need no omegaconf
        pass
    if not isinstance(raw, Mapping):
        raise ValueError(
            "data.vcot_curriculum must be a mapping of vcot.rl.Curriculum's arguments, seed and num_samples"
        )
    return dict(raw)


def _build_sampler() -> type:
    from torch.utils.data import Sampler

    try:  # verl ≤ 0.8 has the interface (and its trainer calls update); 0.9 dropped it
        from verl.experimental.dataset.sampler import AbstractCurriculumSampler as _Base
    except ImportError:
        _Base = Sampler

    class CurriculumSampler(_Base):  # type: ignore[misc, valid-type]
        """Row indices drawn task by task at `vcot.rl.Curriculum`'s current level (verl's
        `AbstractCurriculumSampler`: `__init__(data_source, data_config)`, `__iter__`, `__len__`,
        `update(batch)`). Options from `data.vcot_curriculum`: the Curriculum's arguments (band, window, knobs,
        start, ladders, step, z, check_every), `seed`, and `num_samples` per epoch (default the dataset's
        length). Indices are drawn lazily, so a level
        change is seen from the next batch on — with `data.dataloader_num_workers=0`, as verl requires of a
        curriculum."""

        def __init__(self, data_source: Any, data_config: Any = None) -> None:
            self.data_source = data_source
            options = _curriculum_options(data_config)
            self._picker = _Picker(_row_keys(data_source), options)
            n = options.get("num_samples")
            self.num_samples = int(n) if n else len(self._picker.keys)
            self.epoch = 0

        @property
        def curriculum(self) -> Any:
            return self._picker.curriculum

        def __len__(self) -> int:
            return self.num_samples

        def __iter__(self) -> Iterator[int]:
            rng = random.Random(f"{self._picker.seed}:epoch:{self.epoch}")
            self.epoch += 1
            n = len(self._picker.keys)
            for _ in range(self.num_samples):
                yield self._picker.pick(rng.randrange(n))

        def pick(self, item: int) -> int:
            """The row to serve in place of `item` (same task, the curriculum's current level)."""
            return self._picker.pick(item)

        def update(self, batch: Any) -> None:
            """Observe the batch's per-sample rewards (verl calls this after each training step)."""
            self._picker.update(batch)

        def state_dict(self) -> dict[str, Any]:
            return {"curriculum": self.curriculum.state_dict(), "draws": self._picker.draws, "epoch": self.epoch}

        def load_state_dict(self, state: Mapping[str, Any]) -> None:
            self.curriculum.load_state_dict(state["curriculum"])
            self._picker.draws = int(state.get("draws", 0))
            self.epoch = int(state.get("epoch", 0))
            self._picker._pools.clear()

    return CurriculumSampler


def _build_dataset() -> type:
    from torch.utils.data import get_worker_info
    from verl.utils.dataset.rl_dataset import RLHFDataset

    class CurriculumDataset(RLHFDataset):
        """verl's `RLHFDataset` with the curriculum inside, for verl 0.9, whose config has no sampler hook
        (`data.custom_cls.path=pkg://vcot.rl.verl`, `data.custom_cls.name=CurriculumDataset`): each training
        item is served from its task's rows at the current level, and `on_batch_end` — which verl's
        trainer calls after every step — feeds the batch's rewards back. Validation rows
        (`extra_info.split == "validation"`) are served as they are."""

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            infos = list(self.dataframe["extra_info"]) if len(self.dataframe) else []
            # verl builds the validation set with the same class (data.custom_cls): it must stay as it is.
            self.curriculum_sampler = None
            self._warned = False
            if infos and {(i or {}).get("split") for i in infos} != {"validation"}:
                # The package's class (built there on first access), so there is one CurriculumSampler.
                from vcot.rl.verl import CurriculumSampler

                self.curriculum_sampler = CurriculumSampler(self, self.config)

        def __getitem__(self, item: int) -> dict:
            if self.curriculum_sampler is not None:
                if not self._warned and get_worker_info() is not None:
                    # A worker holds a copy: the trainer's on_batch_end updates never reach it.
                    logger.warning(
                        "vcot CurriculumDataset runs in a dataloader worker, where the curriculum "
                        "never moves; set data.dataloader_num_workers=0"
                    )
                    self._warned = True
                item = self.curriculum_sampler.pick(int(item))
            return super().__getitem__(item)

        def on_batch_end(self, batch: Any) -> None:
            """Feed the step's rewards to the curriculum (verl's trainer hook)."""
            if self.curriculum_sampler is not None:
                self.curriculum_sampler.update(batch)

    return CurriculumDataset
