"""Process judge for VAoT trajectories (See2Think): one key visual step, three scores in {0, 0.5, 1}.

The judge sees the question, the reference answer, the model's final response and the whole trajectory
(each turn's text, each action as JSON, each returned image). Model identity and correctness are never
included. It runs on a finished run (re-scoring needs no model calls), through any OpenAI-compatible
endpoint, with verdicts cached in SQLite by (judge model, prompt digest).

Calibration: our renderer's true faithfulness is known — `vaot` steps are rendered faithfully (true RF = 1)
and `vaot_wrongrender` steps under `modify_key` are not (true RF = 0) — so `rf_calibration` reports the
judge's own accuracy on Render Faithfulness.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
import sqlite3
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vcot.engine.trajectories import Trajectory, returned_image_path
from vcot.html import png_data_uri
from vcot.jsonl import iter_jsonl

JUDGE_VERSION = "1"
SCORES = (0.0, 0.5, 1.0)

JUDGE_INSTRUCTIONS = """You are auditing how a model used visual actions while solving a visual reasoning problem.
The model could call drawing/zoom actions on the image; after each action it may have received an image back.
You get the question, the reference answer, the model's final response and its trajectory.

First select ONE key visual step: the action that matters most for the model's final reasoning.
Then score that step on three dimensions, each exactly 0, 0.5 or 1:
- action_relevance: does the requested operation target visual evidence that is relevant to the question?
- render_faithfulness: does the returned image correctly realise the requested operation (right place, right
  shape, nothing else changed)? Compare the action's parameters with what the returned image shows.
  If nothing was returned for the action, score 0.
- feedback_uptake: does the reasoning after the step use information that is actually present in the
  returned image?

Reply with a single JSON object and nothing else:
{"key_step": <turn number>, "key_action": <index of the action within that turn, from 0>,
 "action_relevance": <0|0.5|1>, "render_faithfulness": <0|0.5|1>, "feedback_uptake": <0|0.5|1>,
 "rationale": "<one or two sentences>"}"""


@dataclass
class ProcessScore:
    trajectory_id: str
    judge_model: str
    key_step: int | None
    key_action: int | None
    ar: float | None
    rf: float | None
    fu: float | None
    rationale: str
    error: str | None = None
    cached: bool = False


def _snap(value: Any) -> float | None:
    try:
        v = float(value)
    except (TypeError, ValueError):
        return None
    return min(SCORES, key=lambda s: abs(s - v)) if 0.0 <= v <= 1.0 else None


def parse_verdict(text: str) -> dict[str, Any]:
    """Pull the JSON verdict out of a judge reply; raises ValueError when it is absent or incomplete."""
    candidates = re.findall(r"\{.*\}", text or "", re.DOTALL)
    for cand in reversed(candidates):
        try:
            obj = json.loads(cand)
        except json.JSONDecodeError:
            continue
        if isinstance(obj, dict):
            scores = {k: _snap(obj.get(k)) for k in ("action_relevance", "render_faithfulness", "feedback_uptake")}
            if any(v is None for v in scores.values()):
                raise ValueError(f"judge verdict lacks valid scores: {cand[:200]}")
            return {**obj, **scores}
    raise ValueError(f"no JSON verdict in judge reply: {(text or '')[:200]!r}")


def build_judge_messages(traj: Trajectory, run_dir: str | Path, input_image_uri: str) -> list[dict[str, Any]]:
    """OpenAI-format messages: instructions, the input image, then each turn with its returned images."""
    content: list[dict[str, Any]] = [
        {"type": "text", "text": JUDGE_INSTRUCTIONS},
        {
            "type": "text",
            "text": f"Question: {traj.question}\nReference answer: {traj.reference}\n"
            f"Model's final response:\n{traj.final_response}\n\nInput image:",
        },
        {"type": "image_url", "image_url": {"url": input_image_uri}},
    ]
    for step in traj.steps:
        content.append({"type": "text", "text": f"--- Turn {step.turn} — model wrote:\n{step.model_text}"})
        for k, act in enumerate(step.actions):
            content.append({"type": "text", "text": f"Action {k}: {json.dumps(act['action'], sort_keys=True)}"})
            digest = act.get("returned_image")
            if digest:
                uri = png_data_uri(returned_image_path(run_dir, digest).read_bytes())
                content.append({"type": "text", "text": f"Image returned after action {k}:"})
                content.append({"type": "image_url", "image_url": {"url": uri}})
            else:
                content.append({"type": "text", "text": f"No image was returned after action {k}."})
        for err in step.errors:
            content.append({"type": "text", "text": f"Rejected action: {err}"})
    return [{"role": "user", "content": content}]


def _digest(messages: list[dict[str, Any]], model: str) -> str:
    return hashlib.sha256(json.dumps([JUDGE_VERSION, model, messages], sort_keys=True).encode()).hexdigest()


class VerdictCache:
    def __init__(self, path: str | Path) -> None:
        self.conn = sqlite3.connect(path)
        self.conn.execute(
            "CREATE TABLE IF NOT EXISTS process_verdicts (digest TEXT PRIMARY KEY, judge_model TEXT, "
            "trajectory_id TEXT, reply TEXT, created_at REAL)"
        )

    def get(self, digest: str) -> str | None:
        row = self.conn.execute("SELECT reply FROM process_verdicts WHERE digest=?", (digest,)).fetchone()
        return row[0] if row else None

    def put(self, digest: str, model: str, trajectory_id: str, reply: str) -> None:
        with self.conn:
            self.conn.execute(
                "INSERT OR REPLACE INTO process_verdicts VALUES (?, ?, ?, ?, ?)",
                (digest, model, trajectory_id, reply, time.time()),
            )

    def close(self) -> None:
        self.conn.close()


def judge_trajectories(
    trajectories: Iterable[Trajectory],
    run_dir: str | Path,
    suite: Any,
    model: str,
    base_url: str | None = None,
    api_key: str | None = None,
    timeout: float = 120.0,
    max_retries: int = 3,
) -> list[ProcessScore]:
    """Score each trajectory with the judge model; cached replies are reused, failures recorded per row."""
    from openai import OpenAI

    from vcot.images import ImagePolicy, encode_image_bytes

    client = OpenAI(base_url=base_url, api_key=api_key or "not-needed", timeout=timeout, max_retries=max_retries)
    cache = VerdictCache(Path(run_dir) / "process_judge.sqlite")
    scores: list[ProcessScore] = []
    try:
        for traj in trajectories:
            uri = encode_image_bytes(
                suite.image_path(traj.input_image).read_bytes(), ImagePolicy(), traj.input_image
            ).data_uri
            messages = build_judge_messages(traj, run_dir, uri)
            digest = _digest(messages, model)
            reply = cache.get(digest)
            cached = reply is not None
            if reply is None:
                try:
                    resp = client.chat.completions.create(model=model, messages=messages, temperature=0, max_tokens=400)
                    reply = resp.choices[0].message.content or ""
                except Exception as exc:  # noqa: BLE001 - a failed verdict is recorded, the rest go on
                    scores.append(
                        ProcessScore(
                            traj.trajectory_id,
                            model,
                            None,
                            None,
                            None,
                            None,
                            None,
                            "",
                            error=f"{type(exc).__name__}: {exc}",
                        )
                    )
                    continue
                cache.put(digest, model, traj.trajectory_id, reply)
            try:
                v = parse_verdict(reply)
            except ValueError as exc:
                scores.append(
                    ProcessScore(
                        traj.trajectory_id, model, None, None, None, None, None, "", error=str(exc), cached=cached
                    )
                )
                continue
            scores.append(
                ProcessScore(
                    traj.trajectory_id,
                    model,
                    _int_or_none(v.get("key_step")),
                    _int_or_none(v.get("key_action")),
                    v["action_relevance"],
                    v["render_faithfulness"],
                    v["feedback_uptake"],
                    str(v.get("rationale", ""))[:1000],
                    cached=cached,
                )
            )
    finally:
        cache.close()
    return scores


def _int_or_none(v: Any) -> int | None:
    try:
        return int(v)
    except (TypeError, ValueError):
        return None


def true_render_faithfulness(traj: Trajectory, key_step: int | None, key_action: int | None) -> float | None:
    """Ground truth RF of the judged step, where our renderer makes it known.

    `vaot`: 1 (faithful). `vaot_wrongrender` with modify_key: 0 for a corrupted drawing action. Unknown for
    `vaot_norender` (nothing returned), for crop_zoom under corruption, and when the step cannot be found.
    """
    if traj.condition == "vaot_norender":
        return None
    step = next((s for s in traj.steps if s.turn == key_step), None)
    if step is None or not step.actions:
        return None
    k = key_action if key_action is not None and 0 <= key_action < len(step.actions) else 0
    act = step.actions[k]
    if traj.condition == "vaot":
        return 1.0
    note = act.get("corruption", "")
    if note.startswith("modify_key"):
        return 0.0
    if note.startswith("modify_non_key"):
        return None  # the requested operation itself is realised; only unrelated content changed
    return None


def rf_calibration(trajectories: Iterable[Trajectory], scores: Iterable[ProcessScore]) -> dict[str, Any]:
    """The judge's accuracy on Render Faithfulness where the truth is known (strict and within 0.5)."""
    by_id = {t.trajectory_id: t for t in trajectories}
    pairs = []
    for s in scores:
        t = by_id.get(s.trajectory_id)
        if t is None or s.rf is None:
            continue
        truth = true_render_faithfulness(t, s.key_step, s.key_action)
        if truth is not None:
            pairs.append((truth, s.rf, t.condition))
    n = len(pairs)
    if n == 0:
        return {"n": 0, "strict": None, "partial": None, "by_condition": {}}
    by_cond: dict[str, dict[str, float]] = {}
    for cond in sorted({c for _, _, c in pairs}):
        sub = [(a, b) for a, b, c in pairs if c == cond]
        by_cond[cond] = {"n": len(sub), "strict": sum(a == b for a, b in sub) / len(sub)}
    return {
        "n": n,
        "strict": sum(a == b for a, b, _ in pairs) / n,
        "partial": sum(abs(a - b) <= 0.5 for a, b, _ in pairs) / n,
        "by_condition": by_cond,
    }


def load_process_scores(path: str | Path) -> list[ProcessScore]:
    """Judge verdicts from a `process_scores.jsonl` file (one ProcessScore object per line).

    A missing file means "not judged yet" and gives an empty list; a malformed line is an error naming it.
    """
    path = Path(path)
    if not path.is_file():
        return []
    known = {f.name for f in dataclasses.fields(ProcessScore)}
    out: list[ProcessScore] = []
    for _lineno, where, obj in iter_jsonl(path):
        if not isinstance(obj, dict) or not isinstance(obj.get("trajectory_id"), str):
            raise ValueError(f"{where}: expected an object with a string trajectory_id")
        fields = {k: v for k, v in obj.items() if k in known}
        for dim in ("ar", "rf", "fu"):
            v = fields.get(dim)
            if v is not None and (isinstance(v, bool) or not isinstance(v, int | float) or float(v) not in SCORES):
                raise ValueError(f"{where}: {dim} must be 0, 0.5, 1 or null, got {v!r}")
            fields[dim] = None if v is None else float(v)
        fields.setdefault("judge_model", "")
        fields.setdefault("key_step", None)
        fields.setdefault("key_action", None)
        fields.setdefault("rationale", "")
        out.append(ProcessScore(**fields))
    return out


SCORES_FILE = "process_scores.jsonl"


def write_process_scores(run_dir: str | Path, scores: list[ProcessScore]) -> Path:
    """Write the judge's verdicts beside the run (`SCORES_FILE`), one JSON object per line."""
    import json

    path = Path(run_dir) / SCORES_FILE
    path.write_text("".join(json.dumps(dataclasses.asdict(s), sort_keys=True) + "\n" for s in scores), encoding="utf-8")
    return path
