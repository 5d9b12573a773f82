"""The mock server's knobs (`vcot serve-mock` flags, `POST /config`)."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, fields
from typing import Any

from vcot.engine.mock.faults import DEFAULT_FAULTS, FAULT_KINDS


@dataclass
class MockConfig:
    p: float = 0.5
    p_by_condition: dict[str, float] = field(default_factory=dict)
    # Issue 20, difficulty sweeps: "NAME=VALUE" of a generator parameter (meta.generator.params) -> P, so a
    # model can be scripted whose accuracy falls with a knob (`vcot sweep`, docs/evaluation.md).
    p_by_param: dict[str, float] = field(default_factory=dict)
    seed: int = 0
    latency_s: float = 0.0
    fault_rate: float = 0.0
    faults: list[str] = field(default_factory=lambda: list(DEFAULT_FAULTS))
    retry_after_s: float = 0.05
    hang_s: float = 30.0
    # Tool-call script: list of turns, each a list of {"name": str, "arguments": object}.
    script: list[list[dict[str, Any]]] = field(default_factory=list)
    # Keep the sha256 of every image received and the text of every request (GET /images): lets tests check
    # the exact bytes and words sent.
    record_images: bool = False
    # Fraction of answers cut off by the token limit (finish_reason "length"): the text stops mid-reasoning
    # on a line that names the gold answer without an answer tag, the trap a last-line fallback falls into.
    truncate_rate: float = 0.0
    # Issue 20 (docs/engine.md, "The mock server"): state_probe replies right on the first j steps and wrong
    # after (the final answer right only when every step is), and a policy that reads only the last image
    # sent: right exactly when it is the instance's last step picture.
    probe_right_steps: int | None = None
    last_image_only: bool = False
    # Issue 46 (docs/process.md, "Running a judge"): on a step-judging suite, "scripted" names the true first
    # wrong step with probability p (else another step or none, uniformly) and, under judge_steps, tags every
    # step to match; "all_correct" always says that every step is correct.
    judge: str = "scripted"
    # Curation roles (docs/curation.md, "Offline: the mock server's curation roles"): requests tagged with a
    # `curate.*` stage get scripted replies; the rewriter leaks the answer for these uids, and the judge fails
    # these uids' quality checks.
    curation_leak_uids: list[str] = field(default_factory=list)
    curation_fail_uids: list[str] = field(default_factory=list)
    # What a chat request that matches no instance of the loaded suite gets: "404" (an error, as a real
    # server would give a request it cannot serve: a harness that sends what the suite does not hold fails
    # loudly rather than scoring wrong answers) or "answer" (a wrong answer, "unknown"). Without a suite,
    # every request is answered.
    unknown: str = "404"

    def validate(self) -> None:
        bad = [f for f in self.faults if f not in FAULT_KINDS]
        if bad:
            raise ValueError(f"unknown fault kind(s) {bad}; known: {', '.join(FAULT_KINDS)}")
        for name, p in [("p", self.p), *self.p_by_condition.items(), *self.p_by_param.items()]:
            if not 0 <= p <= 1:
                raise ValueError(f"probability {name}={p} outside 0..1")
        if not 0 <= self.fault_rate <= 1:
            raise ValueError("fault_rate outside 0..1")
        if not 0 <= self.truncate_rate <= 1:
            raise ValueError("truncate_rate outside 0..1")
        for name, seconds in (
            ("latency_s", self.latency_s),
            ("retry_after_s", self.retry_after_s),
            ("hang_s", self.hang_s),
        ):
            # A negative or NaN delay makes asyncio.sleep raise on every request; infinity never answers.
            if not (isinstance(seconds, int | float) and math.isfinite(seconds) and seconds >= 0):
                raise ValueError(f"{name}={seconds}: must be a finite number of seconds, 0 or more")
        if self.judge not in ("scripted", "all_correct"):
            raise ValueError(f"judge={self.judge!r}: must be 'scripted' or 'all_correct'")
        if self.unknown not in ("404", "answer"):
            raise ValueError(f"unknown={self.unknown!r}: must be '404' or 'answer'")

    def updated(self, updates: dict[str, Any]) -> MockConfig:
        """A validated copy with `updates` applied (`POST /config`); names that are not fields are ignored,
        so a client written for a later version still gets the knobs this one has."""
        known = {f.name for f in fields(MockConfig)}
        cfg = MockConfig(**{**asdict(self), **{k: v for k, v in updates.items() if k in known}})
        cfg.validate()
        return cfg
