"""Captions of the chemistry tasks' molecules: every atom as the picture labels it (number, element, the
hydrogens drawn on a heteroatom) and every bond with its order, in the scene's order."""

from __future__ import annotations

from typing import Any

# Valences of the neutral elements the chemistry scenes use; a heteroatom's free valence is drawn as hydrogens.
_VALENCE = {"C": 4, "N": 3, "O": 2, "S": 2, "F": 1, "Cl": 1, "Br": 1}
_ORDER = {1: "single", 2: "double", 3: "triple"}


def _label(el: str, h: int) -> str:
    if el == "C" or h == 0:
        return el
    return f"{el}H" if h == 1 else f"{el}H{h}"


def molecule(scene: dict[str, Any]) -> str:
    atoms, bonds = scene["atoms"], scene["bonds"]
    used = [0] * len(atoms)
    for i, j, order in bonds:
        used[i] += int(order)
        used[j] += int(order)
    labels = [_label(a["el"], _VALENCE.get(a["el"], 0) - used[k]) for k, a in enumerate(atoms)]
    atom_text = "; ".join(f"atom {k + 1}: {lab}" for k, lab in enumerate(labels))
    bond_text = "; ".join(f"{i + 1}-{j + 1} {_ORDER.get(int(o), str(o))}" for i, j, o in bonds)
    return (
        f"A skeletal formula of a molecule with {len(atoms)} numbered atoms (carbons drawn as unlabelled "
        f"corners and line ends, hydrogens on carbon not drawn). Atoms: {atom_text}. Bonds: {bond_text}."
    )
