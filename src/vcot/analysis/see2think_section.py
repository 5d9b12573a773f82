"""The See2Think part of `vcot report`: process-score tables, paired VAoT analyses and a trajectory viewer.

Built from the scored rows of the report plus, per run folder, `process_scores.jsonl` (from
`vcot judge-process`) and `trajectories/` (from `vcot trajectories`). Everything from the model is
escaped; images are embedded so the report stays self-contained.
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from vcot.analysis.see2think import (
    answer_change_rate,
    correct_incorrect_gaps,
    process_means,
    render_transitions,
    wrongrender_gap,
)
from vcot.analysis.tables import Table
from vcot.engine.trajectories import Trajectory, read_trajectories, returned_image_path, trajectory_id
from vcot.html import escape, png_data_uri
from vcot.scoring.process_judge import SCORES_FILE, load_process_scores
from vcot.vaot.episode import VAOT_CONDITIONS


def _fmt(v: Any, digits: int = 3) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "—"
    if isinstance(v, float):
        return f"{v:.{digits}f}"
    return str(v)


def load_scores(run_dirs: Sequence[Path]) -> dict[str, dict[str, Any]]:
    """Process scores by trajectory id from every run folder that has them (failed verdicts left out)."""
    out: dict[str, dict[str, Any]] = {}
    for d in run_dirs:
        for score in load_process_scores(Path(d) / SCORES_FILE):
            if not score.error:
                out[score.trajectory_id] = dataclasses.asdict(score)
    return out


def frame(rows: Sequence[dict[str, Any]], scores: dict[str, dict[str, Any]]) -> pd.DataFrame:
    """Scored VAoT rows with their process scores (ar, rf, fu; NaN where not judged)."""
    recs = []
    for r in rows:
        if r.get("condition") not in VAOT_CONDITIONS:
            continue
        tid = trajectory_id(
            str(r.get("run_id")), str(r.get("model")), str(r["condition"]), str(r["uid"]), int(r.get("epoch") or 0)
        )
        s = scores.get(tid, {})
        recs.append(
            {
                "model": r.get("model"),
                "condition": r["condition"],
                "uid": r["uid"],
                "epoch": int(r.get("epoch") or 0),
                "domain": r.get("domain"),
                "task": r.get("task"),
                "answer_type": r.get("answer_type"),
                "correct": bool(r.get("correct")),
                "extracted": r.get("extracted"),
                "ar": s.get("ar"),
                "rf": s.get("rf"),
                "fu": s.get("fu"),
                "corruptions": _corruptions(r.get("episode")),
            }
        )
    df = pd.DataFrame(recs)
    for col in ("ar", "rf", "fu"):
        if col in df:
            df[col] = pd.to_numeric(df[col], errors="coerce")
    return df


def _corruptions(episode: Any) -> int:
    """How many returned images of the episode were corrupted (0 when none was, or nothing was recorded)."""
    try:
        record = json.loads(episode) if isinstance(episode, str) else (episode or {})
        return len(record.get("vaot", {}).get("corruptions") or [])
    except (ValueError, AttributeError):
        return 0


def _canonical_answers(df: pd.DataFrame) -> pd.DataFrame:
    """Replace extracted answers by their type-aware canonical value, so "7" and "seven" count as the same."""
    from vcot.scoring.grade import canonical

    out = df.copy()
    out["extracted"] = [
        repr(canonical(a, t or "text")) if isinstance(a, str) else None
        for a, t in zip(df["extracted"], df["answer_type"], strict=True)
    ]
    return out


def see2think_tables(rows: Sequence[dict[str, Any]], scores: dict[str, dict[str, Any]]) -> list[Table]:
    df = frame(rows, scores)
    if df.empty:
        return []
    tables: list[Table] = []
    judged = df.dropna(subset=["ar", "rf", "fu"], how="all")
    if not judged.empty:
        m = process_means(judged, by=("model", "domain"))
        tables.append(
            Table(
                "Process scores: mean AR / RF / FU per model and domain (judged VAoT trajectories)",
                ["model", "domain", "n", "AR", "RF", "FU"],
                [[r.model, r.domain, int(r.n), _fmt(r.ar), _fmt(r.rf), _fmt(r.fu)] for r in m.itertuples()],
            )
        )
        g = correct_incorrect_gaps(judged, by=("domain",))
        tables.append(
            Table(
                "Correct − incorrect gap per process dimension",
                ["domain", "correct", "incorrect", "AR gap", "RF gap", "FU gap"],
                [
                    [r.domain, r.n_correct, r.n_incorrect, _fmt(r.ar_gap), _fmt(r.rf_gap), _fmt(r.fu_gap)]
                    for r in g.itertuples()
                ],
            )
        )
        t = render_transitions(df)
        if not t.empty:
            tables.append(
                Table(
                    "Render benefit / harm: aligned vaot_norender → vaot per Render Faithfulness group",
                    ["domain", "RF", "n", "benefit (✗→✓)", "harm (✓→✗)", "balance (pts)"],
                    [
                        [
                            r.domain,
                            _fmt(r.rf, 1),
                            r.n,
                            f"{100 * r.benefit_share:.1f}%",
                            f"{100 * r.harm_share:.1f}%",
                            f"{r.balance_pts:+.1f}",
                        ]
                        for r in t.itertuples()
                    ],
                    note="Shares are normalised by all matched pairs in the group; RF from the vaot trajectory.",
                )
            )
        w = wrongrender_gap(df)
        if not w.empty:
            tables.append(
                Table(
                    "Corrupted feedback: Acc(vaot) − Acc(vaot_wrongrender) per Feedback Uptake group",
                    ["domain", "FU", "n", "acc vaot", "acc wrongrender", "gap (pts)"],
                    [
                        [
                            r.domain,
                            _fmt(r.fu, 1),
                            r.n,
                            f"{100 * r.acc_vaot:.1f}%",
                            f"{100 * r.acc_wrongrender:.1f}%",
                            f"{r.gap_pts:+.1f}",
                        ]
                        for r in w.itertuples()
                    ],
                    note="FU of the WrongRender trajectory.",
                )
            )
    if {"vaot", "vaot_wrongrender"} <= set(df["condition"]):
        changes = answer_change_rate(_canonical_answers(df))
        tables.append(
            Table(
                "Semantic answer change between vaot and vaot_wrongrender",
                ["model", "pairs with a corruption (n)", "changed", "change rate", "pairs without one (excluded)"],
                [
                    [
                        r.model,
                        int(r.n),
                        int(r.changed),
                        "—" if not r.n else f"{100 * r.change_rate:.1f}%",
                        int(r.excluded),
                    ]
                    for r in changes.itertuples()
                ],
                note="Only aligned pairs whose vaot_wrongrender episode had at least one returned image "
                "corrupted count: where nothing was corrupted, a changed answer is sampling noise. "
                "Answers compared after type-aware canonicalisation; a missing answer on one side "
                "counts as a change.",
                informative=any(int(r.n) for r in changes.itertuples()),
            )
        )
    return tables


def _img_uri(path: Path) -> str:
    return png_data_uri(path.read_bytes())


def trajectory_viewer(
    run_dirs: Sequence[Path], suite: Any = None, max_trajectories: int = 60, max_text: int = 4000
) -> str:
    """HTML section: each trajectory's turns, actions and returned images (all model text escaped)."""
    e = escape
    items: list[tuple[Path, Trajectory]] = []
    for d in run_dirs:
        try:
            items += [(Path(d), t) for t in read_trajectories(d)]
        except FileNotFoundError:
            continue
    if not items:
        return ""
    items = items[:max_trajectories]
    parts = [
        '<h2 id="trajectories">VAoT trajectories</h2>',
        f"<p>{len(items)} trajectories (actions as executed after validation; the corruption applied in "
        "vaot_wrongrender is shown here but was never shown to the model).</p>",
    ]
    for run_dir, t in items:
        head = f"{e(t.condition)} · {e(t.uid)} · model {e(t.model)} · epoch {t.epoch} · reference {e(t.reference)}"
        body = [f"<p class='q'>{e(t.question)}</p>"]
        if suite is not None:
            try:
                body.append(
                    f"<figure><img alt='input' src='{_img_uri(suite.image_path(t.input_image))}' "
                    "style='max-width:320px'><figcaption>input</figcaption></figure>"
                )
            except Exception:  # noqa: BLE001 - a missing input image must not break the report
                pass
        for step in t.steps:
            body.append(f"<h4>turn {step.turn}</h4><pre>{e(step.model_text[:max_text])}</pre>")
            for k, act in enumerate(step.actions):
                fig = ""
                digest = act.get("returned_image")
                if digest:
                    path = returned_image_path(run_dir, digest)
                    if path.is_file():
                        fig = (
                            f"<figure><img alt='returned image' src='{_img_uri(path)}' style='max-width:320px'>"
                            "<figcaption>returned</figcaption></figure>"
                        )
                note = f" <em>{e(act['corruption'])}</em>" if act.get("corruption") else ""
                body.append(
                    f"<div>action {k}: <code>{e(json.dumps(act['action'], sort_keys=True))}</code>{note}{fig}</div>"
                )
            for err in step.errors:
                body.append(f"<div class='err'>rejected: {e(err)}</div>")
        parts.append(f"<details><summary>{head}</summary>{''.join(body)}</details>")
    return "\n".join(parts)
