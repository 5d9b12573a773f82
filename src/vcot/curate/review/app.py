"""What the review page shows and records: survivors of the automatic stages and the `review` decisions."""

from __future__ import annotations

import hashlib
import threading
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs

from vcot.curate.checks import edit_problem
from vcot.curate.review import page
from vcot.schema import Instance

ACTIONS = ("approve", "edit", "remove")


def _field(form: dict[str, list[str]], name: str) -> str:
    # A textarea posts its line breaks as CRLF; stored text keeps plain newlines. Nothing is cut short here:
    # an overlong field is refused by `edit_problem`, not silently truncated.
    return (form.get(name) or [""])[0].replace("\r\n", "\n").strip()


def item_key(uid: str) -> str:
    """A URL-safe key for a uid (uids come from datasets and may hold anything)."""
    return hashlib.sha256(uid.encode()).hexdigest()[:16]


@dataclass
class Item:
    inst: Instance  # current form (rewrite applied)
    category: str
    original: Instance


class ReviewApp:
    def __init__(self, curation: Any) -> None:
        self.curation = curation
        self.store = curation.store
        originals = {i.uid: i for i in curation.candidates().instances}
        self.items = [Item(inst, cat, originals[inst.uid]) for inst, cat in curation.survivors()]
        self.by_key = {item_key(it.inst.uid): it for it in self.items}
        self.suite = curation.candidates()
        self._lock = threading.Lock()  # one SQLite connection shared by the server's threads

    def _decision(self, stage: str, uid: str) -> dict[str, Any] | None:
        with self._lock:
            return self.store.decision(stage, uid)

    def index_page(self) -> str:
        rows = []
        for key, it in self.by_key.items():
            d = self._decision("review", it.inst.uid)
            rows.append((key, it, d["verdict"] if d else ""))
        return page.index(rows)

    def item_page(self, key: str) -> str:
        it = self.by_key[key]
        uid = it.inst.uid
        stages = {s: self._decision(s, uid) for s in ("filter", "rewrite", "qc", "review")}
        keys = list(self.by_key)
        nxt = keys[(keys.index(key) + 1) % len(keys)]
        return page.item(key, it, stages, nxt)

    def image(self, key: str) -> bytes:
        return self.suite.image_path(self.by_key[key].original.image).read_bytes()

    def submit(self, key: str, body: bytes) -> str:
        """Record one review decision from a posted form; returns the verdict."""
        form = parse_qs(body.decode("utf-8", "replace"), max_num_fields=10)
        action = (form.get("action") or [""])[0]
        if action not in ACTIONS:
            raise ValueError(f"action must be one of {ACTIONS}")
        note = _field(form, "note")
        details: dict[str, Any] = {}
        if action == "edit":
            question, answer = _field(form, "question"), _field(form, "answer")
            problem = edit_problem(question, answer, note)
            if problem:
                raise ValueError(f"edit not saved: {problem}")
            details = {"question": question, "answer": answer}
        else:
            problem = edit_problem("-", "-", note)
            if problem:
                raise ValueError(f"not saved: {problem}")
        verdict = {"approve": "approved", "edit": "edited", "remove": "removed"}[action]
        with self._lock:
            self.store.decide("review", self.by_key[key].inst.uid, verdict, note or action, details)
        return verdict
