"""verl adapter (optional extra "rl-verl"): training data, reward function, drawing tool and curriculum.

Four pieces, each on the contract verl 0.9 reads (docs/rl.md, "verl", gives the config lines), one module each:

- `data`: `export_verl` writes `train.parquet` / `validation.parquet` in the schema of verl's `RLHFDataset`
  (a `prompt` of chat messages whose string contents hold one `<image>` placeholder per entry of `images`,
  `images` as `{"bytes": PNG}` dicts, `reward_model.ground_truth`, `extra_info` with `tools_kwargs`) and
  `tool_config.yaml` beside them (written by `tool_schema`). Validation takes whole scenes (the scene keys
  `vcot overlap` compares), so no validation scene is ever trained on.
- `reward`: `compute_score` is verl's custom reward function: vcot's grader through `vcot.rl.reward_details`.
- `tool`: `DrawingTool` (a `verl.tools.base_tool.BaseTool`) runs the VAoT actions on `vcot.rl.DrawingSession`,
  one tool per action, the problem rebuilt from the row's `tools_kwargs` with `vcot.rl.problem_from_row`.
- `curriculum`: `CurriculumSampler` and `CurriculumDataset` move each task along `vcot.rl.Curriculum`. The
  sampler has the interface of verl's `AbstractCurriculumSampler` (and subclasses it where verl still has it:
  0.9 removed it and its `data.sampler` hook); `CurriculumDataset`, an `RLHFDataset` loaded with
  `data.custom_cls`, carries it inside and is fed by the `on_batch_end` hook that verl 0.9's trainer still calls.

verl loads these by the package's dotted path (`pkg://vcot.rl.verl` with `compute_score` or
`CurriculumDataset`, `vcot.rl.verl.DrawingTool` in the tool config), so this package names every one of them.
Only this package imports verl, and only when a verl class is asked for (`DrawingTool`, `CurriculumSampler`,
`CurriculumDataset` are built on first access by `__getattr__` below), so the export and `compute_score` run
without it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from vcot.rl.verl.curriculum import _build_dataset, _build_sampler
from vcot.rl.verl.data import (
    ABILITY,
    DATA_SOURCE_PREFIX,
    SINGLE_TURN_AGENT,
    TOOL_AGENT,
    TOOL_CONFIG_FILE,
    TRAIN_FILE,
    VALIDATION_FILE,
    VerlExport,
    export_verl,
    problem_spec,
    problems_from_suite,
    scene_key,
    split_by_scene,
    verl_messages,
    verl_row,
)
from vcot.rl.verl.errors import VerlExportError
from vcot.rl.verl.reward import _SCORE_KEYS as _SCORE_KEYS
from vcot.rl.verl.reward import compute_score
from vcot.rl.verl.tool import _BY_TRAJECTORY as _BY_TRAJECTORY
from vcot.rl.verl.tool import MAX_TOOL_TEXT, _build_drawing_tool
from vcot.rl.verl.tool import _check_parameters as _check_parameters
from vcot.rl.verl.tool_schema import (
    DEFAULT_TOOL_CALLS,
    MAX_TOOL_CALLS,
    TOOL_CLASS,
    tool_config,
    verl_tool_schema,
    write_tool_config,
)

# `name as name` above: private names the one-module adapter had, kept here for the tests that read them.

_LAZY: dict[str, Callable[[], type]] = {
    "DrawingTool": _build_drawing_tool,
    "CurriculumSampler": _build_sampler,
    "CurriculumDataset": _build_dataset,
}
_LAZY_LOCK = threading.Lock()


def __getattr__(name: str) -> Any:
    # verl's loaders (tool_registry.get_tool_class, import_utils.load_extern_object) use getattr, so the
    # verl-backed classes can be built on first access and this package stays importable without verl.
    builder = _LAZY.get(name)
    if builder is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    with _LAZY_LOCK:
        if name not in globals():
            cls = builder()
            cls.__module__ = __name__
            cls.__qualname__ = name
            globals()[name] = cls
    return globals()[name]


__all__ = [
    "ABILITY",
    "DATA_SOURCE_PREFIX",
    "DEFAULT_TOOL_CALLS",
    "MAX_TOOL_CALLS",
    "MAX_TOOL_TEXT",
    "SINGLE_TURN_AGENT",
    "TOOL_AGENT",
    "TOOL_CLASS",
    "TOOL_CONFIG_FILE",
    "TRAIN_FILE",
    "VALIDATION_FILE",
    "VerlExport",
    "VerlExportError",
    "compute_score",
    "export_verl",
    "problem_spec",
    "problems_from_suite",
    "scene_key",
    "split_by_scene",
    "tool_config",
    "verl_messages",
    "verl_row",
    "verl_tool_schema",
    "write_tool_config",
]
