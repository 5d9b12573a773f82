"""Category mapping, quotas and seeded sampling (docs/curation.md, "Stages").

See2Think's 12 categories in 3 levels, and MIRA's 4 domains. A config maps each source task (`<source>/<task>`
or `<task>`, `*` patterns allowed) to a category; per-category quotas cap how many candidates go on, chosen by
a seeded shuffle, so the same config and seed always pick the same items.
"""

from __future__ import annotations

import fnmatch
import random
from collections import Counter
from typing import Any

from vcot.schema import Instance
from vcot.seeding import derive_seed
from vcot.suggest import did_you_mean
from vcot.tasks.see2think_categories import CATEGORY_TASKS, LEVELS

__all__ = [
    "CATEGORIES",
    "LEVELS",
    "MIRA_DOMAINS",
    "UNMAPPED",
    "CategoryError",
    "category_of",
    "check_mapping",
    "counts",
    "level_of",
    "sample",
    "unused_quotas",
]

# The one list of See2Think's categories, shared with the `see2think-synth` preset.
CATEGORIES: dict[str, str] = {c: level for level, cats in LEVELS.items() for c in cats}
MIRA_DOMAINS: dict[str, str] = {
    "EG": "Euclidean Geometry",
    "PBR": "Physics-Based Reasoning",
    "ASLP": "Abstract Spatial & Logical Puzzles",
    "CT": "Causal Transformations",
}
UNMAPPED = "unmapped"


class CategoryError(ValueError):
    """A mapping or quota names a category that does not exist."""


def check_mapping(mapping: dict[str, str], quotas: dict[str, int]) -> None:
    """Refuse a mapping or quota naming no known category, with the key at fault and a did-you-mean: a
    misspelt quota would otherwise cap nothing, silently."""
    known = sorted(set(CATEGORIES) | set(MIRA_DOMAINS))
    listing = f"known: {', '.join(sorted(CATEGORIES))} and MIRA domains {', '.join(sorted(MIRA_DOMAINS))}"
    for what, cat in [(f"categories[{p!r}]", c) for p, c in mapping.items()] + [(f"quotas[{c!r}]", c) for c in quotas]:
        if cat not in known:
            raise CategoryError(f"{what}: unknown category {cat!r}{did_you_mean(str(cat), known) or ';'} {listing}")
    neg = {c: q for c, q in quotas.items() if isinstance(q, bool) or not isinstance(q, int) or q < 0}
    if neg:
        raise CategoryError(f"quotas must be non-negative integers: {neg}")


def unused_quotas(quotas: dict[str, int], present: set[str]) -> list[str]:
    """A warning for each quota whose category no candidate falls into: it caps nothing, which is usually a
    mapping that sends the items elsewhere."""
    have = ", ".join(sorted(present)) or "none"
    return [
        f"quota {cat!r} ({q}) matches no candidate: no item maps to that category (categories of the "
        f"candidates: {have})"
        for cat, q in sorted(quotas.items())
        if cat not in present
    ]


def category_of(inst: Instance, mapping: dict[str, str]) -> str:
    """The category of a candidate: the first pattern matching `<source>/<task>` or `<task>`; else a MIRA task
    keeps its MIRA domain, and a vcot task standing for a See2Think category (tasks/see2think_categories.py)
    gets that category."""
    source = str(inst.meta.get("provenance", {}).get("source", ""))
    for pattern, cat in mapping.items():
        if fnmatch.fnmatchcase(f"{source}/{inst.task}", pattern) or fnmatch.fnmatchcase(inst.task, pattern):
            return cat
    if inst.domain in MIRA_DOMAINS:
        return inst.domain
    return next((cat for cat, tasks in CATEGORY_TASKS.items() if inst.task in tasks), UNMAPPED)


def level_of(category: str) -> str:
    if category in CATEGORIES:
        return CATEGORIES[category]
    return "MIRA" if category in MIRA_DOMAINS else UNMAPPED


def sample(
    instances: list[Instance],
    mapping: dict[str, str],
    quotas: dict[str, int] | None = None,
    seed: int = 0,
    keep_unmapped: bool = False,
) -> tuple[list[tuple[Instance, str]], dict[str, str]]:
    """(chosen (instance, category) pairs in candidate order, why each other candidate was left out).

    A category without a quota keeps all its candidates; unmapped candidates are left out unless asked for.
    """
    quotas = quotas or {}
    check_mapping(mapping, quotas)
    by_cat: dict[str, list[Instance]] = {}
    for inst in instances:
        by_cat.setdefault(category_of(inst, mapping), []).append(inst)
    chosen: set[str] = set()
    left: dict[str, str] = {}
    for cat, items in sorted(by_cat.items()):
        if cat == UNMAPPED and not keep_unmapped:
            left.update({i.uid: "no category mapping" for i in items})
            continue
        order = sorted(items, key=lambda i: i.uid)
        random.Random(derive_seed("curate-sample", seed, cat)).shuffle(order)
        q = quotas.get(cat)
        keep = order if q is None else order[:q]
        chosen.update(i.uid for i in keep)
        left.update({i.uid: f"over the quota of {q} for {cat}" for i in order[len(keep) :]})
    cats = {i.uid: category_of(i, mapping) for i in instances}
    return [(i, cats[i.uid]) for i in instances if i.uid in chosen], left


def counts(pairs: list[tuple[Instance, str]]) -> dict[str, Any]:
    c = Counter(cat for _, cat in pairs)
    return {
        "per_category": dict(sorted(c.items())),
        "per_level": dict(sorted(Counter(level_of(cat) for cat in c.elements()).items())),
    }
