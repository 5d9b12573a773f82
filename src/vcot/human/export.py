"""A study's answers as results rows and as Parquet (`answers.parquet` in the study folder).

The rows have the columns of a model's results table that the report's accounting reads (`run_id`, `model`
= "human", `condition`, `uid`, `task`, `domain`, `gold`, `answer_type`, `options`, `extracted`, `correct`,
`epoch` = the participant's place on the roster), so `analysis.units.to_samples` turns them into samples like
any run's rows; the human-only columns (participant, timing, difficulty) come after. Answers are graded
again from the stored text when rows are built, so the current grader decides, as `vcot report` re-grades
model runs.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from vcot.gallery import difficulty
from vcot.human.answers import grade, response_of
from vcot.human.study import EXPORT_FILE, Study

HUMAN_MODEL = "human"


def study_rows(study: Study) -> list[dict[str, Any]]:
    """One row per stored answer, graded now."""
    plan = study.plan
    slot = {p: i for i, p in enumerate(plan.participants)}
    rows = []
    for a in study.store.answers():
        inst = study.instance(a["uid"])
        score = grade(inst, a["answer"])
        rows.append(
            {
                "run_id": f"human:{study.name}",
                "model": HUMAN_MODEL,
                "condition": a["condition"],
                "uid": inst.uid,
                "task": inst.task,
                "domain": inst.domain,
                "epoch": slot.get(a["participant"], -1),
                "gold": inst.answer,
                "answer_type": inst.answer_type.value,
                "options": json.dumps(inst.options) if inst.options is not None else None,
                "response": response_of(a["answer"]),
                "extracted": score.extracted,
                "correct": bool(score.correct),
                "tier": score.tier,
                "verdict": score.verdict,
                "score_reason": score.reason,
                "error": None,
                "suite_name": plan.suite_name,
                "suite_hash": plan.suite_hash,
                "participant": a["participant"],
                "position": a["position"],
                "answer": a["answer"],
                "difficulty": difficulty(inst),
                "first_shown": a["first_shown"],
                "submitted_at": a["submitted_at"],
                "raw_ms": a["raw_ms"],
                "active_ms": a["active_ms"],
                "idle_ms": a["idle_ms"],
                "timing": a["timing"],
                "views": a["views"],
            }
        )
    return rows


def export_parquet(study: Study, out: str | Path | None = None) -> tuple[Path, int]:
    """Write the graded answers as Parquet (default: `answers.parquet` in the study); (path, rows)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = Path(out) if out is not None else study.root / EXPORT_FILE
    rows = study_rows(study)
    schema = pa.schema(
        [
            ("run_id", pa.string()),
            ("model", pa.string()),
            ("condition", pa.string()),
            ("uid", pa.string()),
            ("task", pa.string()),
            ("domain", pa.string()),
            ("epoch", pa.int64()),
            ("gold", pa.string()),
            ("answer_type", pa.string()),
            ("options", pa.string()),
            ("response", pa.string()),
            ("extracted", pa.string()),
            ("correct", pa.bool_()),
            ("tier", pa.string()),
            ("verdict", pa.string()),
            ("score_reason", pa.string()),
            ("error", pa.string()),
            ("suite_name", pa.string()),
            ("suite_hash", pa.string()),
            ("participant", pa.string()),
            ("position", pa.int64()),
            ("answer", pa.string()),
            ("difficulty", pa.string()),
            ("first_shown", pa.float64()),
            ("submitted_at", pa.float64()),
            ("raw_ms", pa.int64()),
            ("active_ms", pa.int64()),
            ("idle_ms", pa.int64()),
            ("timing", pa.string()),
            ("views", pa.int64()),
        ]
    )
    tmp = path.with_name(path.name + ".tmp")
    pq.write_table(pa.Table.from_pylist(rows, schema=schema), tmp)
    tmp.replace(path)
    return path, len(rows)
