"""Scenes of the chemistry tasks written from SMILES, for hand-worked tests (no generator code involved)."""

from __future__ import annotations

from typing import Any

from rdkit import Chem
from rdkit.Chem import rdDepictor


def scene_from_smiles(smiles: str) -> dict[str, Any]:
    """The scene form of a molecule: atoms in SMILES order with 2D positions, bonds in Kekulé orders."""
    mol = Chem.MolFromSmiles(smiles)
    Chem.Kekulize(mol, clearAromaticFlags=True)
    rdDepictor.Compute2DCoords(mol)
    pos = mol.GetConformer().GetPositions()
    atoms = [
        {"el": a.GetSymbol(), "x": round(float(pos[k][0]) / 1.5, 3), "y": round(float(pos[k][1]) / 1.5, 3)}
        for k, a in enumerate(mol.GetAtoms())
    ]
    bonds = [[b.GetBeginAtomIdx(), b.GetEndAtomIdx(), int(b.GetBondTypeAsDouble())] for b in mol.GetBonds()]
    return {"smiles": smiles, "atoms": atoms, "bonds": bonds}
