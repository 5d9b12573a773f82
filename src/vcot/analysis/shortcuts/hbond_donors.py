"""hbond_donors shortcuts: the donors guessed from how many nitrogen and oxygen atoms the molecule has, without
reading which carry hydrogen. Each answer is clamped to the configured range, so it competes with chance on the
same answers.
"""

from __future__ import annotations

from vcot.analysis.shortcuts import Heuristic
from vcot.analysis.shortcuts._chem import clamped, elements
from vcot.schema import Instance


def every_n_and_o(inst: Instance) -> str | None:
    """Every nitrogen and oxygen taken for a donor."""
    els = elements(inst)
    return None if els is None else clamped(inst, els["N"] + els["O"])


def half_n_and_o(inst: Instance) -> str | None:
    """Half the nitrogens and oxygens: 'about half of them carry a hydrogen'."""
    els = elements(inst)
    return None if els is None else clamped(inst, (els["N"] + els["O"]) / 2)


def every_nitrogen(inst: Instance) -> str | None:
    """Every nitrogen taken for a donor (amines and amides), the oxygens ignored."""
    els = elements(inst)
    return None if els is None else clamped(inst, els["N"])


def every_oxygen(inst: Instance) -> str | None:
    """Every oxygen taken for a donor (alcohols and acids), the nitrogens ignored."""
    els = elements(inst)
    return None if els is None else clamped(inst, els["O"])


def n_and_o_less_two(inst: Instance) -> str | None:
    """Every nitrogen and oxygen but two: 'a carbonyl or an ether or so among them'."""
    els = elements(inst)
    return None if els is None else clamped(inst, els["N"] + els["O"] - 2)


def every_heteroatom(inst: Instance) -> str | None:
    """Every atom that is not carbon."""
    els = elements(inst)
    return None if els is None else clamped(inst, sum(els.values()) - els["C"])


HEURISTICS: list[tuple[str, Heuristic]] = [
    ("every N and O", every_n_and_o),
    ("half the N and O", half_n_and_o),
    ("every N", every_nitrogen),
    ("every O", every_oxygen),
    ("every N and O but two", n_and_o_less_two),
    ("every heteroatom", every_heteroatom),
]
