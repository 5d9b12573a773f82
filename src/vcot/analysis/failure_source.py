"""Primary failure source of incorrect VAoT trajectories (issue 20; See2Think's diagnostic, docs/vaot.md
"Primary failure source").

Every incorrect trajectory gets one source, checked in this order:
- **action**: the model issued no visual action (known from the episode record), or the process judge found
  its key action irrelevant (AR ≤ 0.5);
- **render**: a returned picture was corrupted where the evidence is (`vaot_wrongrender`, known by
  construction), or — only where vcot does not know — the judge found the render unfaithful (RF ≤ 0.5);
- **feedback**: the judge found the returned evidence ignored or misread (FU ≤ 0.5);
- **reasoning**: the evidence was right and used, and the conclusion was still wrong.

What vcot knows comes first: a trajectory without actions is an action failure whatever the judge says, a
corrupted key render is a render failure, and a faithful render (`vaot`, and `vaot_wrongrender_nonkey`,
which alters only what the question does not need) is never blamed on the renderer. The rest needs the judge;
without a verdict an incorrect trajectory stays "unattributed". The judge's agreement with the known part
is reported beside it.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from typing import Any

from vcot.analysis.tables import Table
from vcot.engine.trajectories import trajectory_id
from vcot.vaot.episode import VAOT_CONDITIONS

SOURCES = ("action", "render", "feedback", "reasoning")
LOW = 0.5  # a process score at or below this fails its dimension (scores are 0, 0.5 or 1)
# Conditions whose returned pictures show the task's evidence as the actions made it.
FAITHFUL = frozenset({"vaot", "vaot_wrongrender_nonkey"})


def _record(row: dict[str, Any]) -> dict[str, Any]:
    try:
        rec = json.loads(row["episode"]) if isinstance(row.get("episode"), str) else (row.get("episode") or {})
    except ValueError:
        return {}
    return rec if isinstance(rec, dict) else {}


def known_facts(row: dict[str, Any]) -> dict[str, bool | None]:
    """What the episode record says for certain: whether any action was issued, and whether the returned
    pictures were faithful (None where nothing tells: no picture rendered, or nothing recorded)."""
    vaot = _record(row).get("vaot") or {}
    steps = vaot.get("steps")
    acted = None if steps is None else any(s.get("actions") for s in steps if isinstance(s, dict))
    condition = row.get("condition")
    if condition == "vaot_wrongrender":
        faithful = None if steps is None else not vaot.get("corruptions")
    elif condition in FAITHFUL:
        faithful = True
    else:  # vaot_norender: nothing is rendered
        faithful = None
    return {"acted": acted, "faithful": faithful}


def primary_source(row: dict[str, Any], score: dict[str, Any] | None) -> tuple[str | None, str]:
    """(source, basis) of an incorrect trajectory; basis "known", "judge" or "unattributed"."""
    facts = known_facts(row)
    if facts["acted"] is False:
        return "action", "known"
    ar, rf, fu = ((score or {}).get(k) for k in ("ar", "rf", "fu"))
    if ar is not None and ar <= LOW:
        return "action", "judge"
    if facts["faithful"] is False:
        return "render", "known"
    if facts["faithful"] is None and rf is not None and rf <= LOW:
        return "render", "judge"
    if fu is not None and fu <= LOW:
        return "feedback", "judge"
    if score is not None and ar is not None and fu is not None:
        return "reasoning", "judge"
    return None, "unattributed"


def _key(row: dict[str, Any]) -> str:
    return trajectory_id(
        str(row.get("run_id")),
        str(row.get("model")),
        str(row["condition"]),
        str(row["uid"]),
        int(row.get("epoch") or 0),
    )


def annotate(rows: Sequence[dict[str, Any]], scores: dict[str, dict[str, Any]]) -> None:
    """Add `failure_source` and `failure_basis` to every row (None except on incorrect VAoT trajectories),
    so the scored results table carries them as tidy columns."""
    for r in rows:
        source, basis = (None, None)
        if r.get("condition") in VAOT_CONDITIONS and not r.get("correct"):
            source, basis = primary_source(r, scores.get(_key(r)))
        r["failure_source"], r["failure_basis"] = source, basis


def source_table(rows: Sequence[dict[str, Any]]) -> Table | None:
    """Distribution of primary failure sources per model, condition and domain (rows `annotate`d)."""
    groups: dict[tuple[str, str, str], Counter[str]] = {}
    for r in rows:
        if r.get("condition") not in VAOT_CONDITIONS or r.get("correct"):
            continue
        key = (str(r.get("model")), str(r["condition"]), str(r.get("domain")))
        tally = groups.setdefault(key, Counter())
        tally[r.get("failure_source") or "unattributed"] += 1
        tally["_known"] += r.get("failure_basis") == "known"
    if not groups:
        return None
    out = []
    for (model, cond, domain), c in sorted(groups.items()):
        n = sum(c[s] for s in (*SOURCES, "unattributed"))
        out.append(
            [
                model,
                cond,
                domain,
                str(n),
                *[f"{c[s]} ({100 * c[s] / n:.0f}%)" if n else "—" for s in (*SOURCES, "unattributed")],
                str(c["_known"]),
            ]
        )
    return Table(
        "Primary failure source of incorrect VAoT trajectories",
        ["model", "condition", "domain", "incorrect", *SOURCES, "unattributed", "from known truth"],
        out,
        note="Known truth first (no action issued; a key render corrupted by construction; renders of "
        "vaot and vaot_wrongrender_nonkey faithful), then the process judge (a score ≤ 0.5 fails "
        "its dimension, in the order action, render, feedback; reasoning when all pass). "
        "Unattributed: incorrect and not judged.",
        informative=any(sum(c[s] for s in SOURCES) for c in groups.values()),
    )


def agreement_table(rows: Sequence[dict[str, Any]], scores: dict[str, dict[str, Any]]) -> Table | None:
    """How often the judge says what vcot knows: render faithfulness (RF > 0.5) and whether an action was
    issued (AR > 0.5 never for a trajectory without actions), over every judged VAoT trajectory."""
    tallies = {"render faithful": Counter(), "action issued": Counter()}
    for r in rows:
        if r.get("condition") not in VAOT_CONDITIONS:
            continue
        score = scores.get(_key(r))
        if not score:
            continue
        facts = known_facts(r)
        if facts["faithful"] is not None and score.get("rf") is not None:
            tallies["render faithful"][(facts["faithful"], score["rf"] > LOW)] += 1
        if facts["acted"] is not None and score.get("ar") is not None:
            tallies["action issued"][(facts["acted"], score["ar"] > LOW)] += 1
    out = []
    for what, c in tallies.items():
        n = sum(c.values())
        if not n:
            continue
        agree = c[(True, True)] + c[(False, False)]
        out.append([what, str(n), f"{100 * agree / n:.1f}%", str(c[(True, False)]), str(c[(False, True)])])
    if not out:
        return None
    return Table(
        "Process judge against known truth (judged VAoT trajectories)",
        ["fact", "judged", "agreement", "true but judged false", "false but judged true"],
        out,
    )
