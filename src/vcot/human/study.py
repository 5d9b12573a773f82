"""A study folder: what the organiser chose (`study.json`), the suite it was built on, and the store.

`study.json` is written once, when the study is created, and never rewritten; resuming checks the suite
against it (content hash of the manifest, and a hash of the sampled instances themselves) so that answers
are never graded against a suite that changed under them.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import os
import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from vcot.analysis.units import pair_key
from vcot.conditions import REGISTRY
from vcot.human.assign import AssignmentError, Job, assign, sample_problems
from vcot.human.store import StudyStore
from vcot.schema import Instance
from vcot.suite import Suite, SuiteError, read_suite

STUDY_FILE = "study.json"
DB_FILE = "study.sqlite"
LOCK_FILE = "server.lock"
EXPORT_FILE = "answers.parquet"
FORMAT = 1
# What a person can be shown (docs/human.md): the question alone, or with the solver's intermediate states
# as pictures or as the texts that state them, so the effect of intermediate pictures is measured for people
# as `visual_cot` vs `text_state_cot` vs `direct` measures it for models.
# The registry says which conditions this part offers (`Condition.offered_by`), in its display order.
HUMAN_CONDITIONS = tuple(REGISTRY.offered_by("human"))
PARTICIPANT_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,39}")
DEFAULT_K = 2


class StudyError(ValueError):
    """A study cannot be created or opened as asked; the message says why and what to do."""


@dataclass(frozen=True)
class StudyPlan:
    """What the organiser chose, as stored in `study.json`."""

    suite: str  # the suite folder as given when the study was created (absolute)
    suite_name: str
    suite_hash: str  # the manifest's content hash
    items_hash: str  # sha256 over the sampled instances' canonical JSON, in uid order
    seed: int
    k: int
    conditions: tuple[str, ...]
    participants: tuple[str, ...]
    problems: tuple[str, ...]  # the sampled problems, in their interleaved order
    uids: tuple[str, ...]  # every row of those problems
    created: str = ""
    format: int = FORMAT

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=2, ensure_ascii=False) + "\n"

    @classmethod
    def from_json(cls, text: str, where: str) -> StudyPlan:
        try:
            data = json.loads(text)
            data["conditions"] = tuple(data["conditions"])
            data["participants"] = tuple(data["participants"])
            data["problems"] = tuple(data["problems"])
            data["uids"] = tuple(data["uids"])
            plan = cls(**data)
        except (ValueError, KeyError, TypeError) as exc:
            raise StudyError(f"{where}: not a readable study file ({exc})") from None
        if plan.format != FORMAT:
            raise StudyError(f"{where}: study format {plan.format} is not supported (expected {FORMAT})")
        return plan


@dataclass
class Study:
    """An open study: its plan, the suite (checked against the plan) and the store."""

    root: Path
    plan: StudyPlan
    suite: Suite
    store: StudyStore
    _instances: dict[str, Instance] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self._instances = {uid: self.suite.get(uid) for uid in self.plan.uids}

    @property
    def name(self) -> str:
        return self.root.name

    def instance(self, uid: str) -> Instance:
        return self._instances[uid]

    def jobs(self, participant: str) -> list[Job]:
        return self.store.jobs(participant)


def parse_participants(spec: str) -> tuple[str, ...]:
    """`"6"` → P1…P6 (zero-padded to equal width); `"alice,bob"` → those ids. Ids are 1–40 letters, digits,
    '_', '-' or '.', since they appear in URLs."""
    spec = spec.strip()
    if spec.isdigit():
        n = int(spec)
        if not 1 <= n <= 10_000:
            raise StudyError(f"--participants {n}: give between 1 and 10000 participants")
        width = len(str(n))
        return tuple(f"P{i:0{width}d}" for i in range(1, n + 1))
    ids = tuple(s.strip() for s in spec.split(",") if s.strip())
    if not ids:
        raise StudyError("--participants: give a number or a comma-separated list of ids")
    bad = [p for p in ids if not PARTICIPANT_RE.fullmatch(p)]
    if bad:
        raise StudyError(
            f"participant id {bad[0]!r} is not allowed: 1–40 letters, digits, '_', '-' or '.', "
            "starting with a letter or digit"
        )
    if len(set(ids)) != len(ids):
        raise StudyError("participant ids must be distinct")
    return ids


def problem_of(inst: Instance) -> str:
    """The problem a row belongs to, as the report counts it (`analysis.units.pair_key`)."""
    return pair_key({"uid": inst.uid, "task": inst.task}, inst)


def items_hash(instances: Sequence[Instance]) -> str:
    h = hashlib.sha256()
    for inst in sorted(instances, key=lambda i: i.uid):
        h.update(inst.to_json().encode("utf-8") + b"\n")
    return h.hexdigest()


def _read_suite(path: Path) -> Suite:
    try:
        return read_suite(path)
    except SuiteError as exc:
        raise StudyError(str(exc)) from None


def _check_suite(plan: StudyPlan, suite: Suite, where: Path) -> None:
    """Refuse a suite other than the one the study was built on; nothing in the study is touched."""
    if suite.content_hash != plan.suite_hash:
        raise StudyError(
            f"{suite.root}: the suite changed under the study {where} (content hash {suite.content_hash[:12]}…, "
            f"the study was built on {plan.suite_hash[:12]}…); its answers would be graded against different "
            "questions or gold answers. Use the suite the study was created with, or a new study folder"
        )
    missing = [u for u in plan.uids if u not in {i.uid for i in suite.instances}]
    if missing:
        raise StudyError(
            f"{suite.root}: instance {missing[0]!r} of the study {where} is not in the suite "
            f"({len(missing)} missing); the suite changed under the study"
        )
    now = items_hash([suite.get(u) for u in plan.uids])
    if now != plan.items_hash:
        raise StudyError(
            f"{suite.root}: the study's instances changed under the study {where} (their text, gold "
            "answers or steps differ from when it was created, though the manifest's hash does not); "
            "use the original suite or a new study folder"
        )


def _plan(
    suite: Suite, participants: tuple[str, ...], k: int, conditions: tuple[str, ...], items: int | None, seed: int
) -> tuple[StudyPlan, list[Job]]:
    unknown = [c for c in conditions if c not in HUMAN_CONDITIONS]
    if unknown:
        raise StudyError(
            f"condition {unknown[0]!r} is not one people can be shown; choose from {', '.join(HUMAN_CONDITIONS)}"
        )
    rows: dict[str, list[str]] = {}
    by_task: dict[str, list[str]] = {}
    for inst in suite.instances:
        key = problem_of(inst)
        if key not in rows:
            by_task.setdefault(inst.task, []).append(key)
        rows.setdefault(key, []).append(inst.uid)
    if items is not None and items < 1:
        raise StudyError("--items must be at least 1")
    problems = sample_problems(by_task, items, seed)
    uids = [u for p in problems for u in sorted(rows[p])]
    for cond in conditions:
        bad = [(u, r) for u in uids if (r := REGISTRY.unservable(suite.get(u), cond))]
        if bad:
            raise StudyError(
                f"condition {cond!r} cannot be shown for {len(bad)} sampled instance(s), e.g. {bad[0][0]}: {bad[0][1]}"
            )
    try:
        jobs = assign(problems, {p: sorted(rows[p]) for p in problems}, conditions, k, participants, seed)
    except AssignmentError as exc:
        raise StudyError(str(exc)) from None
    plan = StudyPlan(
        suite=str(suite.root.resolve()),
        suite_name=suite.name,
        suite_hash=suite.content_hash,
        items_hash=items_hash([suite.get(u) for u in uids]),
        seed=seed,
        k=k,
        conditions=conditions,
        participants=participants,
        problems=tuple(problems),
        uids=tuple(uids),
        created=_dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
    )
    return plan, jobs


def _write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def _compare(plan: StudyPlan, asked: dict[str, Any], root: Path) -> None:
    for name, value in asked.items():
        have = getattr(plan, name)
        if value is not None and value != have:
            shown = ",".join(have) if isinstance(have, tuple) else have
            raise StudyError(
                f"{root} was created with {name} = {shown}; to resume it, leave that option out "
                "(or give the same value). A different design needs a new study folder"
            )


def open_study(root: str | Path, suite: str | Path | Suite | None = None) -> Study:
    """Open an existing study; `suite` (default: the folder recorded in it) must be the one it was built on."""
    root = Path(root)
    path = root / STUDY_FILE
    if not path.is_file():
        raise StudyError(
            f"{root}: not a study folder (no {STUDY_FILE}); create one with vcot human run SUITE --out "
            f"{root} --participants N"
        )
    plan = StudyPlan.from_json(path.read_text(encoding="utf-8"), str(path))
    if isinstance(suite, Suite):
        the_suite = suite
    elif suite is not None:
        the_suite = _read_suite(Path(suite))
    else:
        try:
            the_suite = _read_suite(Path(plan.suite))
        except StudyError as exc:
            raise StudyError(
                f"{exc} (the study {root} was built on that folder; if the suite moved, give its new "
                "folder with --suite)"
            ) from None
    _check_suite(plan, the_suite, root)
    if not (root / DB_FILE).is_file():
        raise StudyError(
            f"{root}: {DB_FILE} is missing (it holds the assignment and every answer); restore it "
            "from a backup, or start a new study folder"
        )
    store = StudyStore(root / DB_FILE)
    if not store.has_assignments():
        raise StudyError(
            f"{root / DB_FILE}: holds no assignment; restore it from a backup, or start a new study folder"
        )
    return Study(root, plan, the_suite, store)


def _unfinished_creation(root: Path) -> bool:
    """A folder holding only a store with no answers: a creation stopped before `study.json` was written."""
    names = {p.name for p in root.iterdir()} - {LOCK_FILE}
    if not names or not names <= {DB_FILE, DB_FILE + "-wal", DB_FILE + "-shm", STUDY_FILE + ".tmp"}:
        return False
    return DB_FILE not in names or not StudyStore(root / DB_FILE).answers()


def prepare_study(
    root: str | Path,
    suite_path: str | Path,
    participants: str | None = None,
    k: int | None = None,
    conditions: Sequence[str] | None = None,
    items: int | None = None,
    seed: int | None = None,
) -> tuple[Study, bool]:
    """Open the study in `root`, or create it there; returns (study, created).

    Resuming checks the suite and refuses options that differ from the study's design; creating needs
    `participants`. Nothing is written when an error is raised.
    """
    root = Path(root)
    suite = _read_suite(Path(suite_path))
    conds = tuple(conditions) if conditions else None
    if (root / STUDY_FILE).is_file():
        study = open_study(root, suite)
        asked = {
            "participants": parse_participants(participants) if participants else None,
            "k": k,
            "conditions": conds,
            "seed": seed,
        }
        _compare(study.plan, asked, root)
        if items is not None and items != len(study.plan.problems):
            raise StudyError(
                f"{root} was created with {len(study.plan.problems)} problems; to resume it, leave "
                "--items out. A different sample needs a new study folder"
            )
        return study, False
    if root.is_dir() and _unfinished_creation(root):
        for name in (DB_FILE, DB_FILE + "-wal", DB_FILE + "-shm", STUDY_FILE + ".tmp"):
            (root / name).unlink(missing_ok=True)
    # The lock file is the running server's own (`vcot human` takes the lock before it creates the study).
    if root.exists() and (not root.is_dir() or any(p.name != LOCK_FILE for p in root.iterdir())):
        raise StudyError(f"{root}: exists and is not an empty folder or a study; choose a new --out folder")
    if not participants:
        raise StudyError("a new study needs --participants (a number, or a comma-separated list of ids)")
    ids = parse_participants(participants)
    conds = conds or ("direct",)
    if k is None:
        k = max(1, min(DEFAULT_K, len(ids) // len(conds)))
    plan, jobs = _plan(suite, ids, k, conds, items, 0 if seed is None else seed)
    root.mkdir(parents=True, exist_ok=True)
    store = StudyStore(root / DB_FILE)
    store.add_assignments(jobs)
    # Written last: a folder without it is an unfinished creation, and a store without it is never used.
    _write_atomic(root / STUDY_FILE, plan.to_json())
    return Study(root, plan, suite, store), True
