"""Molecules for the chemistry tasks: a generator of valid structures built from fragments, the scene form that
stores them (atoms with 2D coordinates, bonds with their Kekulé orders), and the RDKit molecule a scene stands
for (docs/tasks/longest_carbon_chain.md, "Molecules").

A molecule is grown on a carbon backbone by attaching fragments (alkyl branches, rings, heteroatom groups) to
carbons with a free valence; RDKit sanitises it (a structure RDKit refuses is a bug here, not a rejection)
and lays it out in 2D. A layout in which two atoms nearly touch or two bonds cross would be hard to read, so
the scene is rejected. The scene stores the coordinates, so its picture depends on the scene alone.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from typing import Any

from rdkit import Chem, RDLogger
from rdkit.Chem import rdDepictor

from vcot.tasks.base import Reject

RDLogger.DisableLog("rdApp.*")

# Valences of the neutral elements the generator uses; what a carbon-bonded atom leaves free carries H.
VALENCE = {"C": 4, "N": 3, "O": 2, "S": 2, "F": 1, "Cl": 1, "Br": 1}

# Sanitisation without aromaticity perception keeps the Kekulé bonds the scene stores (and the picture shows).
_SANITIZE = Chem.SanitizeFlags.SANITIZE_ALL ^ Chem.SanitizeFlags.SANITIZE_SETAROMATICITY

# A layout is rejected when two atoms not bonded to each other come closer than this share of the mean bond
# length (a written heteroatom label, such as NH2, needs the wider gap), or an atom comes this close to a bond
# it is not part of: at the drawn size their labels and numbers would run into each other.
MIN_ATOM_GAP = 0.8
MIN_LABEL_GAP = 1.0
MIN_BOND_GAP = 0.5


@dataclass
class Graph:
    """A molecule under construction: element symbols and bonds (i, j, order)."""

    els: list[str] = field(default_factory=list)
    bonds: list[tuple[int, int, int]] = field(default_factory=list)

    def add(self, el: str, to: int | None = None, order: int = 1) -> int:
        if el not in VALENCE:
            raise ValueError(f"unknown element {el!r}; known: {sorted(VALENCE)}")
        self.els.append(el)
        k = len(self.els) - 1
        if to is not None:
            self.bond(to, k, order)
        return k

    def bond(self, i: int, j: int, order: int = 1) -> None:
        if self.free(i) < order or self.free(j) < order:
            raise ValueError(f"bond {i}-{j} of order {order} exceeds a valence")
        self.bonds.append((i, j, order))

    def used(self, i: int) -> int:
        return sum(o for a, b, o in self.bonds if i in (a, b))

    def free(self, i: int) -> int:
        return VALENCE[self.els[i]] - self.used(i)

    def neighbours(self, i: int) -> list[int]:
        return [b if a == i else a for a, b, _ in self.bonds if i in (a, b)]

    def chain(self, n: int, to: int | None = None) -> list[int]:
        """n carbons in a row, the first bonded to `to`."""
        out: list[int] = []
        for _ in range(n):
            out.append(self.add("C", out[-1] if out else to))
        return out


# -- fragments ----------------------------------------------------------------------------------------------
# Each takes the graph and the carbon to attach to, and returns the atoms it added. The tables below say how
# many hydrogen-bond donors (N or O carrying H) each adds and how far it extends a carbon path from the
# attachment point (its carbon reach).


def ring(g: Graph, at: int, size: int, aromatic: bool = False, n_at: int | None = None) -> list[int]:
    """A ring of `size` atoms bonded to `at` through its first atom; aromatic rings (size 6) get alternating
    double bonds, `n_at` puts a nitrogen at that ring position (pyridine)."""
    atoms = [g.add("C", at)]
    for k in range(1, size):
        el = "N" if k == n_at else "C"
        order = 2 if aromatic and k % 2 == 1 else 1
        atoms.append(g.add(el, atoms[-1], order))
    g.bond(atoms[-1], atoms[0])
    return atoms


def _group(g: Graph, at: int, kind: str) -> list[int]:
    start = len(g.els)
    if kind == "OH":
        g.add("O", at)
    elif kind == "NH2":
        g.add("N", at)
    elif kind == "SH":
        g.add("S", at)
    elif kind in ("F", "Cl", "Br"):
        g.add(kind, at)
    elif kind == "COOH":
        c = g.add("C", at)
        g.add("O", c, 2)
        g.add("O", c)
    elif kind == "CONH2":
        c = g.add("C", at)
        g.add("O", c, 2)
        g.add("N", c)
    elif kind == "NHMe":
        n = g.add("N", at)
        g.add("C", n)
    elif kind == "NHAc":
        n = g.add("N", at)
        c = g.add("C", n)
        g.add("O", c, 2)
        g.add("C", c)
    elif kind == "OMe":
        o = g.add("O", at)
        g.add("C", o)
    elif kind == "SMe":
        s = g.add("S", at)
        g.add("C", s)
    elif kind == "oxo":
        g.add("O", at, 2)
    elif kind == "COOMe":
        c = g.add("C", at)
        g.add("O", c, 2)
        o = g.add("O", c)
        g.add("C", o)
    elif kind == "NMe2":
        n = g.add("N", at)
        g.add("C", n)
        g.add("C", n)
    elif kind == "CN":
        c = g.add("C", at)
        g.add("N", c, 3)
    elif kind == "CHO":
        c = g.add("C", at)
        g.add("O", c, 2)
    elif kind == "phenol":
        atoms = ring(g, at, 6, aromatic=True)
        g.add("O", atoms[3])
    elif kind == "phenyl":
        ring(g, at, 6, aromatic=True)
    elif kind == "pyridyl":
        ring(g, at, 6, aromatic=True, n_at=3)
    elif kind == "cyclohexyl":
        ring(g, at, 6)
    elif kind == "cyclopentyl":
        ring(g, at, 5)
    elif kind == "cyclopropyl":
        ring(g, at, 3)
    elif kind == "piperidyl":
        ring(g, at, 6, n_at=3)
    else:
        raise ValueError(f"unknown group {kind!r}")
    return list(range(start, len(g.els)))


# Donors each group adds, the valence it takes at the attachment carbon, and its carbon reach.
DONOR_GROUPS = {"OH": 1, "NH2": 1, "COOH": 1, "CONH2": 1, "NHMe": 1, "NHAc": 1, "phenol": 1, "piperidyl": 1}
ACCEPTOR_GROUPS = {"OMe": 0, "oxo": 0, "COOMe": 0, "NMe2": 0, "CN": 0, "CHO": 0, "pyridyl": 0}
OTHER_GROUPS = {"SH": 0, "SMe": 0, "F": 0, "Cl": 0, "Br": 0}
RING_GROUPS = ("phenyl", "cyclohexyl", "cyclopentyl", "cyclopropyl", "phenol", "pyridyl", "piperidyl")
NEEDS = {"oxo": 2}
REACH = {
    "COOH": 1,
    "CONH2": 1,
    "COOMe": 1,
    "CN": 1,
    "CHO": 1,
    "phenyl": 6,
    "cyclohexyl": 6,
    "cyclopentyl": 5,
    "cyclopropyl": 3,
    "phenol": 6,
    "pyridyl": 3,
    "piperidyl": 3,
}


def attach(g: Graph, at: int, kind: str) -> list[int]:
    if g.free(at) < NEEDS.get(kind, 1):
        raise ValueError(f"carbon {at} has no room for {kind}")
    return _group(g, at, kind)


def open_carbons(g: Graph, among: list[int] | None = None, need: int = 1) -> list[int]:
    return [i for i in (range(len(g.els)) if among is None else among) if g.els[i] == "C" and g.free(i) >= need]


# -- scenes ---------------------------------------------------------------------------------------------------


def to_mol(atoms: list[dict[str, Any]], bonds: list[list[int]], coords: bool = True) -> Chem.Mol:
    """The RDKit molecule of a scene's atoms and bonds (Kekulé form, implicit hydrogens, 2D conformer)."""
    rw = Chem.RWMol()
    for a in atoms:
        rw.AddAtom(Chem.Atom(a["el"]))
    kinds = {1: Chem.BondType.SINGLE, 2: Chem.BondType.DOUBLE, 3: Chem.BondType.TRIPLE}
    for i, j, order in bonds:
        rw.AddBond(int(i), int(j), kinds[int(order)])
    mol = rw.GetMol()
    Chem.SanitizeMol(mol, _SANITIZE)
    if coords:
        conf = Chem.Conformer(len(atoms))
        for k, a in enumerate(atoms):
            conf.SetAtomPosition(k, (float(a["x"]), float(a["y"]), 0.0))
        mol.AddConformer(conf, assignId=True)
    return mol


def _segments_cross(
    p: tuple[float, float], q: tuple[float, float], r: tuple[float, float], s: tuple[float, float]
) -> bool:
    def orient(a: tuple[float, float], b: tuple[float, float], c: tuple[float, float]) -> float:
        return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])

    d1, d2, d3, d4 = orient(r, s, p), orient(r, s, q), orient(p, q, r), orient(p, q, s)
    return d1 * d2 < 0 and d3 * d4 < 0


def _point_segment(p: tuple[float, float], a: tuple[float, float], b: tuple[float, float]) -> float:
    dx, dy = b[0] - a[0], b[1] - a[1]
    t = ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / ((dx * dx + dy * dy) or 1.0)
    t = min(1.0, max(0.0, t))
    return math.dist(p, (a[0] + t * dx, a[1] + t * dy))


def layout(g: Graph) -> tuple[list[dict[str, Any]], list[list[int]]]:
    """The scene's atoms (element and 2D position) and bonds for a built graph; Reject for a crowded layout.

    RDKit's own depiction code lays the molecule out (`rdDepictor.Compute2DCoords`, no random start, so the
    same graph gets the same layout in any process); the layout is then turned so its longer extent is
    horizontal and scaled to unit bond length, and rounded so the scene's JSON is stable.
    """
    bonds = [[i, j, o] for i, j, o in g.bonds]
    mol = to_mol([{"el": e} for e in g.els], bonds, coords=False)
    rdDepictor.Compute2DCoords(mol, canonOrient=True)
    pos = mol.GetConformer().GetPositions()
    pts = [(float(p[0]), float(p[1])) for p in pos]
    mean_bond = sum(math.dist(pts[i], pts[j]) for i, j, _ in g.bonds) / max(1, len(g.bonds))
    bonded = {frozenset((i, j)) for i, j, _ in g.bonds}
    for a in range(len(pts)):
        for b in range(a + 1, len(pts)):
            if frozenset((a, b)) in bonded:
                continue
            gap = MIN_LABEL_GAP if "C" not in (g.els[a], g.els[b]) or g.els[a] != g.els[b] else MIN_ATOM_GAP
            if math.dist(pts[a], pts[b]) < gap * mean_bond:
                raise Reject("two atoms of the layout nearly touch")
        for i, j, _ in g.bonds:
            if a not in (i, j) and _point_segment(pts[a], pts[i], pts[j]) < MIN_BOND_GAP * mean_bond:
                raise Reject("an atom of the layout nearly touches a bond")
    for k, (i, j, _) in enumerate(g.bonds):
        for i2, j2, _ in g.bonds[k + 1 :]:
            if len({i, j, i2, j2}) == 4 and _segments_cross(pts[i], pts[j], pts[i2], pts[j2]):
                raise Reject("two bonds of the layout cross")
    xs, ys = [p[0] for p in pts], [p[1] for p in pts]
    if max(ys) - min(ys) > max(xs) - min(xs):
        pts = [(-y, x) for x, y in pts]
    cx = (max(p[0] for p in pts) + min(p[0] for p in pts)) / 2
    cy = (max(p[1] for p in pts) + min(p[1] for p in pts)) / 2
    atoms = [
        {"el": e, "x": round((x - cx) / mean_bond, 3), "y": round((y - cy) / mean_bond, 3)}
        for e, (x, y) in zip(g.els, pts, strict=True)
    ]
    return atoms, bonds


def shuffled(g: Graph, rng: random.Random) -> Graph:
    """The graph with its atoms in a random order (the order of construction would show the backbone as atoms
    1, 2, 3, ... and so give the structure away through the atom numbers), bonds sorted."""
    order = list(range(len(g.els)))
    rng.shuffle(order)
    new_of = {old: new for new, old in enumerate(order)}
    bonds = sorted((min(new_of[i], new_of[j]), max(new_of[i], new_of[j]), o) for i, j, o in g.bonds)
    return Graph([g.els[old] for old in order], bonds)


def scene_of(g: Graph, rng: random.Random) -> dict[str, Any]:
    """The scene of a built molecule, its atoms numbered in a random order: SMILES (for people and tools),
    atoms with positions, bonds."""
    atoms, bonds = layout(shuffled(g, rng))
    smiles = Chem.MolToSmiles(to_mol(atoms, bonds, coords=False))
    return {"smiles": smiles, "atoms": atoms, "bonds": bonds}


def spread(rng: random.Random, g: Graph, kinds: list[str], among: list[int]) -> None:
    """Attach each group of `kinds` to a random open carbon of `among` (Reject when none has room)."""
    for kind in kinds:
        spots = open_carbons(g, among, NEEDS.get(kind, 1))
        if not spots:
            raise Reject(f"no carbon left with room for {kind}")
        # Carbons with at most two neighbours and no heteroatom yet first: two heteroatoms on one carbon (a
        # hemiacetal, an aminal) are valid but rare in real molecules, and crowded quaternary carbons are hard to
        # lay out legibly.
        roomy = [c for c in spots if len(g.neighbours(c)) <= 2]
        clean = [c for c in roomy if all(g.els[n] == "C" for n in g.neighbours(c))]
        attach(g, rng.choice(clean or roomy or spots), kind)


def atom_list(atoms: list[int], words: list[str] | None = None) -> str:
    """Atoms as the pictures number them (1-based), e.g. "atom 4" or "atoms 3, 4 and 7"; `words` replaces
    each atom's number by a longer description."""
    names = words if words is not None else [str(a + 1) for a in atoms]
    if len(names) == 1:
        return "atom " + names[0]
    return "atoms " + ", ".join(names[:-1]) + " and " + names[-1]
