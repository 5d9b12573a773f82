"""LLM judges over any OpenAI-compatible endpoint: MIRA's answer judge and a semantic-equivalence judge.

Both answer only Correct/Incorrect. Judges are the last resort (docs/scoring.md, "Judges"), so every verdict is
cached in
SQLite keyed by (judge model, prompt digest) — re-scoring a run never pays twice — and every verdict,
cached or not, is appended to a JSONL log carrying the judge model's name so reports can cite it.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

log = logging.getLogger(__name__)

# MIRA's judge wording (paper appendix B / official acc.py), extended by the paper's "final answer portion"
# clause so that untagged responses can be judged too.
ANSWER_PROMPT = """You are a strict and precise evaluator. Your task is to determine whether the model's final \
answer is correct based on the ground truth.

Your evaluation must focus exclusively on the answer contained within the <answer></answer> tags, as well as the \
final answer portion at the end of the model's response. Ignore all reasoning, explanations, or any other text \
outside of these sections. The correctness of the reasoning process is not part of your evaluation.

Here is the data:
- Question: "{question}"
- Ground Truth Answer: "{gold}"
- Model's Full Response:
---
{response}
---

Based on the ground truth, is the model's final answer correct?
Please respond with only one word: 'Correct' or 'Incorrect'."""

EQUIVALENCE_PROMPT = """You are a strict and precise evaluator. Decide whether a candidate answer means the same \
as the reference answer for the question below. Differences in wording, formatting, letter case or units that \
do not change the meaning are allowed; a hedged answer that names several possibilities is not equivalent.

- Question: "{question}"
- Reference Answer: "{gold}"
- Candidate Answer: "{candidate}"

Please respond with only one word: 'Correct' or 'Incorrect'."""


@dataclass(frozen=True, slots=True)
class JudgeVerdict:
    correct: bool
    raw: str
    model: str
    cached: bool = False
    error: bool = False


class Judge(Protocol):
    """What scoring needs from a judge; tests and other back ends can supply their own."""

    model: str

    def judge_answer(self, question: str, gold: str, response: str) -> JudgeVerdict: ...

    def judge_equivalence(self, question: str, gold: str, candidate: str) -> JudgeVerdict: ...


def parse_verdict(raw: str) -> bool | None:
    """'Correct' / 'Incorrect' (any case, punctuation, markup); None for anything else."""
    words = "".join(c if c.isalpha() else " " for c in raw.lower()).split()
    if not words:
        return None
    if words[0] in ("incorrect", "wrong"):
        return False
    if words[0] in ("correct", "right"):
        return True
    if "incorrect" in words:
        return False
    if "correct" in words:
        return True
    return None


class LLMJudge:
    """A Correct/Incorrect judge. `base_url=None` means api.openai.com; the key comes from the argument or,
    without a base URL only, OPENAI_API_KEY (docs/evaluation.md: no key travels to an arbitrary URL unless
    named), and is never written to the cache or the log."""

    def __init__(
        self,
        model: str,
        base_url: str | None = None,
        api_key: str | None = None,
        cache_path: str | Path | None = None,
        log_path: str | Path | None = None,
        timeout: float = 60.0,
        max_retries: int = 3,
        max_tokens: int = 8,
    ) -> None:
        from openai import OpenAI  # imported lazily: rule-based scoring must not pay for the SDK import

        self.model = model
        self.max_tokens = max_tokens
        # A placeholder rather than None: the SDK would otherwise read OPENAI_API_KEY itself.
        key = api_key or (None if base_url else os.environ.get("OPENAI_API_KEY")) or "EMPTY"
        self._client = OpenAI(base_url=base_url, api_key=key, timeout=timeout, max_retries=max_retries)
        self._lock = threading.Lock()
        self._memory: dict[str, tuple[bool, str]] = {}
        self._db: sqlite3.Connection | None = None
        if cache_path is not None:
            Path(cache_path).parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(str(cache_path), check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS verdicts (key TEXT PRIMARY KEY, model TEXT NOT NULL, kind TEXT NOT NULL,"
                " correct INTEGER NOT NULL, raw TEXT NOT NULL, created REAL NOT NULL)"
            )
            self._db.commit()
        self._log_path = Path(log_path) if log_path is not None else None
        self.calls = 0  # requests actually sent; tests use it to prove the cache works

    def judge_answer(self, question: str, gold: str, response: str) -> JudgeVerdict:
        prompt = ANSWER_PROMPT.format(question=question, gold=gold, response=response)
        return self._ask("answer", prompt)

    def judge_equivalence(self, question: str, gold: str, candidate: str) -> JudgeVerdict:
        prompt = EQUIVALENCE_PROMPT.format(question=question, gold=gold, candidate=candidate)
        return self._ask("equivalence", prompt)

    def _key(self, prompt: str) -> str:
        return hashlib.sha256(f"{self.model}\0{prompt}".encode()).hexdigest()

    def _lookup(self, key: str) -> tuple[bool, str] | None:
        with self._lock:
            if key in self._memory:
                return self._memory[key]
            if self._db is not None:
                row = self._db.execute("SELECT correct, raw FROM verdicts WHERE key = ?", (key,)).fetchone()
                if row:
                    self._memory[key] = (bool(row[0]), row[1])
                    return self._memory[key]
        return None

    def _store(self, key: str, kind: str, correct: bool, raw: str) -> None:
        with self._lock:
            self._memory[key] = (correct, raw)
            if self._db is not None:
                self._db.execute(
                    "INSERT OR REPLACE INTO verdicts VALUES (?, ?, ?, ?, ?, ?)",
                    (key, self.model, kind, int(correct), raw, time.time()),
                )
                self._db.commit()

    def _ask(self, kind: str, prompt: str) -> JudgeVerdict:
        key = self._key(prompt)
        hit = self._lookup(key)
        if hit is not None:
            verdict = JudgeVerdict(hit[0], hit[1], self.model, cached=True)
            self._log(kind, key, verdict)
            return verdict
        from openai import OpenAIError

        try:
            resp = self._client.chat.completions.create(
                model=self.model,
                messages=[{"role": "user", "content": prompt}],
                temperature=0,
                max_tokens=self.max_tokens,
            )
            self.calls += 1
            raw = (resp.choices[0].message.content or "").strip()
        except OpenAIError as exc:
            # A failed judge call is scored wrong but never cached, so a later re-score retries it.
            verdict = JudgeVerdict(False, f"judge error: {type(exc).__name__}", self.model, error=True)
            self._log(kind, key, verdict)
            return verdict
        parsed = parse_verdict(raw)
        verdict = JudgeVerdict(bool(parsed), raw, self.model)
        self._store(key, kind, bool(parsed), raw)
        self._log(kind, key, verdict)
        return verdict

    def _log(self, kind: str, key: str, v: JudgeVerdict) -> None:
        record = {
            "time": time.time(),
            "judge_model": self.model,
            "kind": kind,
            "prompt_sha256": key,
            "correct": v.correct,
            "raw": v.raw[:200],
            "cached": v.cached,
            "error": v.error,
        }
        log.debug("judge %s", record)
        if self._log_path is not None:
            line = json.dumps(record, ensure_ascii=False) + "\n"
            with self._lock:
                self._log_path.parent.mkdir(parents=True, exist_ok=True)
                with self._log_path.open("a", encoding="utf-8") as f:
                    f.write(line)

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None
