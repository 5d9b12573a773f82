"""longest_carbon_chain shortcuts: the chain guessed from how many carbons or atoms the molecule has, or from
how wide it is drawn, without tracing any path. Each answer is clamped to the configured range, so it competes with
chance on the same answers.
"""

from __future__ import annotations

from vcot.analysis.shortcuts import Heuristic, scene
from vcot.analysis.shortcuts._chem import clamped, elements
from vcot.schema import Instance


def all_carbons(inst: Instance) -> str | None:
    """Every carbon counted, as if the molecule were one unbranched chain."""
    els = elements(inst)
    return None if els is None else clamped(inst, els["C"])


def most_carbons(inst: Instance) -> str | None:
    """Two thirds of the carbons: a chain 'with a few branches'."""
    els = elements(inst)
    return None if els is None else clamped(inst, els["C"] * 2 / 3)


def carbons_less_three(inst: Instance) -> str | None:
    """Every carbon but three: 'a branch or two of a carbon or so'."""
    els = elements(inst)
    return None if els is None else clamped(inst, els["C"] - 3)


def picture_width(inst: Instance) -> str | None:
    """The molecule's width in bond lengths, as a zigzag chain stretched across the picture would give it (a
    zigzag of n carbons spans about (n - 1) x 0.87 bond lengths)."""
    atoms = scene(inst).get("atoms")
    if not isinstance(atoms, list) or not atoms:
        return None
    xs = [float(a.get("x", 0.0)) for a in atoms if isinstance(a, dict)]
    return clamped(inst, (max(xs) - min(xs)) / 0.87 + 1)


def all_atoms(inst: Instance) -> str | None:
    """Every drawn atom counted, heteroatoms too."""
    els = elements(inst)
    return None if els is None else clamped(inst, sum(els.values()))


HEURISTICS: list[tuple[str, Heuristic]] = [
    ("every carbon", all_carbons),
    ("two thirds of the carbons", most_carbons),
    ("every atom", all_atoms),
    ("every carbon but three", carbons_less_three),
    ("picture width", picture_width),
]
