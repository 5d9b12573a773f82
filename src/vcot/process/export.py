"""Labelled trajectories as training data for process reward models (issue 46; docs/process.md, "Export").

TRL's stepwise-supervision format (its documented dataset type: `prompt`, `completions` as the list of steps,
`labels` as one bool per step), with the pictures beside it:

- `prompt`: the question as the model reads it (with its options);
- `completions`: the step texts, the concluding step last;
- `labels`: True for a correct step, False for the first incorrect one and every step after it (the
  stepwise convention: a step after an error is not a correct step of a solution);
- `images`: the input picture, then each step's picture (the concluding step has none), PNG bytes; empty
  step pictures in the text-only form;
- the exact labels and their provenance: `step_labels` (correct / incorrect / after_error), `first_error`,
  `kind`, `uid`, `task`, and the fields that regenerate the trajectory.

`write_prm(trajectories, out)` writes a Hugging Face datasets folder (`datasets.load_from_disk`) and the same
rows as `prm.parquet` beside it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from vcot.process.labelled import LabelledTrajectory

PARQUET_FILE = "prm.parquet"


def prm_row(x: LabelledTrajectory) -> dict[str, Any]:
    """One stepwise-supervision row (module docstring)."""
    from vcot.draw.png import encode_png

    pictures = [x.image, *(s.image for s in x.steps if s.image is not None)]
    return {
        "prompt": x.question,
        "completions": [s.text for s in x.steps],
        "labels": [s.label == "correct" for s in x.steps],
        "images": [{"bytes": encode_png(p), "path": None} for p in pictures],
        "step_labels": x.labels,
        "first_error": x.first_error or 0,
        "kind": x.kind,
        "error_type": next((s.error for s in x.steps if s.error), "") or "",
        "uid": x.uid,
        "task": x.task,
        "difficulty": x.difficulty,
        "params": json.dumps(x.params, sort_keys=True),
        "seed": x.seed,
        "index": x.index,
        "variant": x.variant,
        "gold": x.gold,
    }


def features() -> Any:
    import datasets

    string, strings = datasets.Value("string"), datasets.List(datasets.Value("string"))
    return datasets.Features(
        {
            "prompt": string,
            "completions": strings,
            "labels": datasets.List(datasets.Value("bool")),
            "images": datasets.List(datasets.Image()),
            "step_labels": strings,
            "first_error": datasets.Value("int64"),
            "kind": string,
            "error_type": string,
            "uid": string,
            "task": string,
            "difficulty": string,
            "params": string,
            "seed": datasets.Value("int64"),
            "index": datasets.Value("int64"),
            "variant": datasets.Value("int64"),
            "gold": string,
        }
    )


def write_prm(trajectories: Iterable[LabelledTrajectory], out: str | Path) -> int:
    """Write the datasets folder and `prm.parquet` into `out`; returns the number of rows."""
    import datasets

    rows = [prm_row(x) for x in trajectories]
    if not rows:
        raise ValueError("no trajectories to export")
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise ValueError(f"{out}: exists and is not a folder")
    table = datasets.Dataset.from_list(rows, features=features())
    datasets.disable_progress_bars()
    table.save_to_disk(str(out / "dataset"))
    table.to_parquet(str(out / PARQUET_FILE))
    return len(rows)
