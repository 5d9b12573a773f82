"""The state behind the annotation pages, independent of HTTP: the sample, the store, the judge's scores,
form validation, the images a page may show, and human–judge agreement."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import pandas as pd

from vcot.analysis.see2think import DIMENSIONS, agreement
from vcot.annotate.page import (
    DIMENSION_HELP,
    MAX_ANNOTATOR,
    MAX_NOTE,
    agreement_html,
    index_html,
    item_html,
)
from vcot.annotate.sampling import item_key
from vcot.annotate.store import ANNOTATIONS_DB, SCORE_VALUES, AnnotationStore
from vcot.engine.trajectories import Trajectory, returned_image_path
from vcot.scoring.process_judge import SCORES_FILE, ProcessScore, load_process_scores
from vcot.suite import Suite

DIGEST_RE = re.compile(r"[0-9a-f]{64}")
_IMAGE_TYPES = {
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".webp": "image/webp",
    ".gif": "image/gif",
}


def _nan_to_none(v: Any) -> Any:
    return None if isinstance(v, float) and math.isnan(v) else v


def agreement_report(human: pd.DataFrame, judge_scores: Iterable[ProcessScore]) -> dict[str, Any]:
    """Agreement of human scores with each judge model: all annotators pooled, then per annotator.

    Every (annotator, trajectory) row is compared with the judge's verdict for that trajectory, so with
    several annotators a trajectory counts once per annotator. Failed verdicts (no scores) are left out.
    """
    judged: dict[str, dict[str, ProcessScore]] = {}
    for s in judge_scores:
        if s.error is None and any(getattr(s, d) is not None for d in DIMENSIONS):
            judged.setdefault(s.judge_model, {})[s.trajectory_id] = s  # later lines win (a re-score)
    annotators = sorted(set(human["annotator"])) if len(human) else []
    tables = []
    for model in sorted(judged):
        jdf = pd.DataFrame(
            [
                {"trajectory_id": s.trajectory_id, **{d: getattr(s, d) for d in DIMENSIONS}}
                for s in judged[model].values()
            ],
            columns=["trajectory_id", *DIMENSIONS],
        )
        groups = [("all", human)] + (
            [(a, human[human["annotator"] == a]) for a in annotators] if len(annotators) > 1 else []
        )
        for who, part in groups:
            table = agreement(part[["trajectory_id", *DIMENSIONS]], jdf)
            tables.append(
                {
                    "judge_model": model,
                    "annotator": who,
                    "rows": [{k: _nan_to_none(v) for k, v in r.items()} for r in table.to_dict("records")],
                }
            )
    return {
        "n_annotations": int(len(human)),
        "annotators": annotators,
        "judge_models": sorted(judged),
        "tables": tables,
    }


class AnnotationApp:
    """The state behind the pages: the sampled trajectories, the suite, the store and the judge scores."""

    def __init__(
        self,
        run_dir: str | Path,
        suite: Suite,
        trajectories: Sequence[Trajectory],
        judge_scores: Sequence[ProcessScore] | None = None,
        scores_path: str | Path | None = None,
    ) -> None:
        self.run_dir = Path(run_dir)
        self.suite = suite
        self.items = list(trajectories)
        self.by_key = {item_key(t.trajectory_id): t for t in self.items}
        if len(self.by_key) != len(self.items):
            raise ValueError("duplicate trajectory ids in the sample")
        self.order = {t.trajectory_id: i for i, t in enumerate(self.items)}
        # Only images a sampled trajectory references are served: the digest check keeps requests inside the
        # folder, this keeps them inside the sample.
        self.digests = {
            a["returned_image"]
            for t in self.items
            for s in t.steps
            for a in s.actions
            if isinstance(a.get("returned_image"), str) and DIGEST_RE.fullmatch(a["returned_image"])
        }
        self.store = AnnotationStore(self.run_dir / ANNOTATIONS_DB)
        self._judge_scores = list(judge_scores) if judge_scores is not None else None
        self.scores_path = Path(scores_path) if scores_path else self.run_dir / SCORES_FILE

    def judge_scores(self) -> list[ProcessScore]:
        # Re-read on each request: the judge may be re-run while annotation is under way.
        return self._judge_scores if self._judge_scores is not None else load_process_scores(self.scores_path)

    def agreement(self) -> dict[str, Any]:
        # Every stored annotation counts, also those made under an earlier sample of the same run.
        return agreement_report(self.store.frame(), self.judge_scores())

    # -------------------------------------------------------------------------------------------- pages

    def index_page(self, annotator: str) -> str:
        return index_html(self.items, self.store.all(), annotator)

    def item_page(self, key: str, annotator: str, message: str = "") -> str:
        t = self.by_key[key]
        prior = self.store.get(annotator, t.trajectory_id) if annotator else None
        return item_html(self.items, self.order[t.trajectory_id], annotator, self.digests, prior, message)

    def agreement_page(self) -> str:
        return agreement_html(self.agreement())

    # ------------------------------------------------------------------------------------------- submit

    def submit(self, key: str, body: bytes) -> tuple[str, str]:
        """Validate and store a form post; returns (annotator, trajectory_id). Raises ValueError when invalid."""
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError:
            raise ValueError("form body is not UTF-8") from None
        form = parse_qs(text, keep_blank_values=True, strict_parsing=bool(text), max_num_fields=10)
        unknown = set(form) - {"ar", "rf", "fu", "note", "annotator"}
        if unknown:
            raise ValueError(f"unexpected form fields: {', '.join(sorted(unknown))}")
        if any(len(v) != 1 for v in form.values()):
            raise ValueError("each form field must appear once")
        values = {}
        for dim in DIMENSIONS:
            raw = form.get(dim, [None])[0]
            if raw not in SCORE_VALUES:
                raise ValueError(f"{DIMENSION_HELP[dim][0]}: choose 0, 0.5 or 1")
            values[dim] = SCORE_VALUES[raw]
        annotator = form.get("annotator", [""])[0].strip()
        if not annotator or len(annotator) > MAX_ANNOTATOR or not annotator.isprintable():
            raise ValueError(f"annotator name must be 1–{MAX_ANNOTATOR} printable characters")
        note = form.get("note", [""])[0]
        if len(note) > MAX_NOTE:
            raise ValueError(f"note is longer than {MAX_NOTE} characters")
        t = self.by_key[key]
        self.store.put(annotator, t.trajectory_id, values["ar"], values["rf"], values["fu"], note)
        return annotator, t.trajectory_id

    def next_unscored(self, annotator: str, after: str) -> Trajectory | None:
        done = {a.trajectory_id for a in self.store.all() if a.annotator == annotator}
        start = self.order[after] + 1
        for t in self.items[start:] + self.items[:start]:
            if t.trajectory_id not in done:
                return t
        return None

    # ------------------------------------------------------------------------------------------- images

    def input_image(self, key: str) -> tuple[bytes, str]:
        rel = self.by_key[key].input_image
        path = self.suite.image_path(rel)  # raises SuiteError if the stored path leaves the suite folder
        ctype = _IMAGE_TYPES.get(path.suffix.lower())
        if ctype is None or not path.is_file():
            raise FileNotFoundError(rel)
        return path.read_bytes(), ctype

    def returned_image(self, digest: str) -> bytes:
        if not DIGEST_RE.fullmatch(digest) or digest not in self.digests:
            raise FileNotFoundError(digest)
        path = returned_image_path(self.run_dir, digest)
        if not path.is_file():
            raise FileNotFoundError(digest)
        return path.read_bytes()
