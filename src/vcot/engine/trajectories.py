"""Rebuild VAoT trajectories of a finished run: every model turn, every action, every returned image.

The run store keeps each model turn (text and raw tool calls). Because VAoT episodes are deterministic
given the replies, replaying the stored turns through a fresh episode reproduces exactly the images the
model was shown, so they are written once here, content-addressed (`trajectories/images/<digest>.png`),
and `trajectories.jsonl` links them per step. Nothing is re-sent to any model.

Replay runs under the code installed now. Each replayed image is checked against the digest the run
recorded when it showed the image to the model; a mismatch (renderer or corruption changed since the run)
stops with `ReplayMismatch` rather than writing images the model never saw.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from vcot.draw.png import encode_png
from vcot.engine.store import STORE_NAME, damaged, open_readonly, parse_settings
from vcot.images import ImagePolicy, SuiteImages
from vcot.jsonl import iter_jsonl
from vcot.messages import ModelResponse, ToolCall
from vcot.suite import Suite
from vcot.vaot.episode import VAOT_CONDITIONS, VaotEpisode

TRAJ_DIR = "trajectories"


class ReplayMismatch(ValueError):
    """A replayed episode does not reproduce what the run recorded; the message names sample and action."""


TRAJ_FILE = "trajectories.jsonl"


@dataclass
class TrajectoryStep:
    turn: int
    model_text: str
    actions: list[dict[str, Any]] = field(default_factory=list)  # action, call_id, returned_image, corruption
    errors: list[str] = field(default_factory=list)


@dataclass
class Trajectory:
    trajectory_id: str
    run_id: str
    model: str
    condition: str
    uid: str
    epoch: int
    task: str
    domain: str
    question: str
    reference: str
    final_response: str
    input_image: str
    steps: list[TrajectoryStep]
    corruption: str | None

    @property
    def corrupted_steps(self) -> int:
        return sum(1 for s in self.steps for a in s.actions if a.get("corruption", "").startswith("modify_key"))

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True, ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str) -> Trajectory:
        obj = json.loads(text)
        obj["steps"] = [TrajectoryStep(**s) for s in obj["steps"]]
        return cls(**obj)


def trajectory_id(run_id: str, model: str, condition: str, uid: str, epoch: int) -> str:
    return f"{run_id}|{model}|{condition}|{uid}|{epoch}"


def _rows(conn: sqlite3.Connection, sql: str, args: tuple) -> Iterator[dict[str, Any]]:
    cur = conn.execute(sql, args)
    names = [d[0] for d in cur.description]
    for row in cur:
        yield dict(zip(names, row, strict=True))


def rebuild_trajectories(run_dir: str | Path, suite: Suite) -> Path:
    """Replay every finished VAoT sample of the run; returns the path of trajectories.jsonl."""
    run_dir = Path(run_dir)
    conn = open_readonly(run_dir)  # before anything is written: a suite or damaged store leaves no folder
    out_dir = run_dir / TRAJ_DIR / "images"
    out_dir.mkdir(parents=True, exist_ok=True)
    written: set[str] = {p.stem for p in out_dir.glob("*.png")}
    records: list[str] = []
    try:
        settings = {
            r["run_id"]: parse_settings(run_dir / STORE_NAME, r["run_id"], r["settings"])
            for r in _rows(conn, "SELECT * FROM runs", ())
        }
        marks = ",".join("?" * len(VAOT_CONDITIONS))
        samples = list(
            _rows(
                conn,
                f"SELECT * FROM samples WHERE status='ok' AND condition IN ({marks}) "
                "ORDER BY run_id, model, condition, uid, epoch",
                VAOT_CONDITIONS,
            )
        )
        for s in samples:
            policy = ImagePolicy(**(settings.get(s["run_id"], {}).get("image_policy") or {}))
            inst = suite.get(s["uid"])
            episode = VaotEpisode(inst, s["condition"], s["epoch"], SuiteImages(suite, policy))
            episode.first_messages()
            turns = list(
                _rows(
                    conn,
                    "SELECT turn, text, tool_calls FROM calls WHERE run_id=? AND model=? AND "
                    "condition=? AND uid=? AND epoch=? AND error IS NULL ORDER BY turn",
                    (s["run_id"], s["model"], s["condition"], s["uid"], s["epoch"]),
                )
            )
            steps = []
            for row in turns:
                calls = [ToolCall(**c) for c in json.loads(row["tool_calls"] or "[]")]
                before = len(episode.steps)
                episode.on_response(ModelResponse(text=row["text"] or "", tool_calls=calls))
                step = episode.steps[-1] if len(episode.steps) > before else None
                steps.append(
                    TrajectoryStep(
                        turn=row["turn"] + 1,
                        model_text=row["text"] or "",
                        actions=step["actions"] if step else [],
                        errors=step["errors"] if step else [],
                    )
                )
            _verify({**s, "vcot_version": settings.get(s["run_id"], {}).get("vcot_version")}, episode.steps)
            for ret in episode.returned:
                if ret.digest not in written:
                    (out_dir / f"{ret.digest}.png").write_bytes(encode_png(ret.image))
                    written.add(ret.digest)
            traj = Trajectory(
                trajectory_id=trajectory_id(s["run_id"], s["model"], s["condition"], s["uid"], s["epoch"]),
                run_id=s["run_id"],
                model=s["model"],
                condition=s["condition"],
                uid=s["uid"],
                epoch=s["epoch"],
                task=inst.task,
                domain=inst.domain,
                question=inst.question,
                reference=inst.answer,
                final_response=s["response"] or "",
                input_image=inst.image,
                steps=steps,
                corruption=episode.corruption,
            )
            records.append(traj.to_json())
    except sqlite3.DatabaseError as exc:  # a page lost inside the file, a column dropped
        raise damaged(run_dir / STORE_NAME, str(exc)) from None
    finally:
        conn.close()
    path = run_dir / TRAJ_DIR / TRAJ_FILE
    path.write_text("".join(r + "\n" for r in records), encoding="utf-8")
    return path


def _verify(sample: dict[str, Any], replayed: list[dict[str, Any]]) -> None:
    """Compare the replayed actions' returned images and corruptions with those the run recorded."""
    try:
        recorded = json.loads(sample.get("episode") or "{}").get("vaot", {}).get("steps")
    except ValueError:
        recorded = None
    where = f"{sample['condition']} / {sample['uid']} / epoch {sample['epoch']} (run {sample['run_id']})"
    if recorded is None:
        if any(a.get("returned_image") for st in replayed for a in st["actions"]):
            raise ReplayMismatch(f"{where}: the run recorded no VAoT steps, but the replay returns images")
        return
    if len(recorded) != len(replayed):
        raise ReplayMismatch(f"{where}: the run recorded {len(recorded)} action turns, the replay {len(replayed)}")
    for rec, rep in zip(recorded, replayed, strict=True):
        for a, b in zip(rec.get("actions", []), rep["actions"], strict=False):
            for key in ("returned_image", "corruption"):
                if a.get(key) != b.get(key):
                    raise ReplayMismatch(
                        f"{where}, turn {rep['turn']}, call {b.get('call_id')}: recorded {key} {a.get(key)!r} but "
                        f"the replay gives {b.get(key)!r}; the renderer or corruption code changed since the run "
                        f"(recorded with vcot {sample.get('vcot_version') or '?'}) — replay with that version"
                    )
        if len(rec.get("actions", [])) != len(rep["actions"]):
            raise ReplayMismatch(
                f"{where}, turn {rep['turn']}: the run recorded {len(rec.get('actions', []))} "
                f"actions, the replay {len(rep['actions'])}"
            )


def read_trajectories(run_dir: str | Path) -> list[Trajectory]:
    path = Path(run_dir) / TRAJ_DIR / TRAJ_FILE
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no trajectories; run `vcot trajectories RUN --suite SUITE` first")
    out = []
    for _lineno, where, obj in iter_jsonl(path):
        try:
            obj["steps"] = [TrajectoryStep(**s) for s in obj["steps"]]
            out.append(Trajectory(**obj))
        except (TypeError, KeyError) as exc:
            raise ValueError(f"{where}: malformed trajectory record ({exc})") from None
    return out


def returned_image_path(run_dir: str | Path, digest: str) -> Path:
    if not digest or any(c not in "0123456789abcdef" for c in digest):
        raise ValueError(f"not an image digest: {digest!r}")
    return Path(run_dir) / TRAJ_DIR / "images" / f"{digest}.png"
