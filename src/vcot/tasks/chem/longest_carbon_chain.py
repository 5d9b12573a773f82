"""longest_carbon_chain: how many carbon atoms the longest chain of bonded carbons in a drawn molecule has
(a path through carbon atoms only, each atom at most once; rings may be part of it). docs/tasks/longest_carbon_chain.md
has the details."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from rdkit import Chem

from vcot.tasks import register
from vcot.tasks.base import Corruption, GenContext, Limit, Reject, Rendering, Solution
from vcot.tasks.chem._draw import CHOSEN, HIGHLIGHT, bonds_between, draw
from vcot.tasks.chem._mol import REACH, Graph, atom_list, attach, open_carbons, scene_of
from vcot.tasks.chem._task import INTRO, ChemTask

RINGS = ("phenyl", "cyclohexyl", "cyclopentyl", "cyclopropyl", "pyridyl")
RING_CARBONS = {"phenyl": 6, "cyclohexyl": 6, "cyclopentyl": 5, "cyclopropyl": 3, "pyridyl": 5}
GROUPS = ("OH", "NH2", "Cl", "F", "Br", "OMe", "oxo", "CN", "COOH", "CHO", "NMe2")
LINKS = ("O", "N", "S")


@dataclass(frozen=True)
class LongestCarbonChainConfig:
    answer_min: int = 5
    answer_max: int = 10
    min_extra: int = 1
    max_extra: int = 4
    max_groups: int = 2
    max_rings: int = 1
    max_links: int = 2


def _skeleton(scene: dict[str, Any]) -> tuple[Chem.Mol, list[int]]:
    """The molecule's carbon skeleton as an RDKit molecule, and the scene atom of each of its atoms."""
    carbons = [k for k, a in enumerate(scene["atoms"]) if a["el"] == "C"]
    index = {k: i for i, k in enumerate(carbons)}
    rw = Chem.RWMol()
    for _ in carbons:
        rw.AddAtom(Chem.Atom(6))
    for i, j, _ in scene["bonds"]:
        if i in index and j in index:
            rw.AddBond(index[i], index[j], Chem.BondType.SINGLE)
    skeleton = rw.GetMol()
    skeleton.UpdatePropertyCache(strict=False)
    return skeleton, carbons


def carbon_paths(scene: dict[str, Any], n: int) -> tuple[list[tuple[int, ...]], bool]:
    """Every path of n distinct carbon atoms along carbon-carbon bonds, found by RDKit's path enumeration on
    the carbon skeleton, and whether RDKit found any path of n atoms at all (its paths never repeat a bond but
    may repeat an atom through a ring; those are dropped here, yet longer atom-simple paths may follow)."""
    skeleton, carbons = _skeleton(scene)
    if n == 1:
        return [(k,) for k in carbons], bool(carbons)
    found = Chem.FindAllPathsOfLengthN(skeleton, n, useBonds=False)
    simple = [tuple(carbons[i] for i in p) for p in found if len(set(p)) == len(p)]
    return simple, len(found) > 0


def longest(scene: dict[str, Any]) -> tuple[int, ...]:
    """A longest carbon path: the first in sorted order among the longest, read from its lower-numbered end."""
    best: tuple[int, ...] = ()
    n = 1
    while True:
        paths, any_path = carbon_paths(scene, n)
        if not any_path:
            return best
        if paths:
            best = min(p if p[0] < p[-1] else p[::-1] for p in paths)
        n += 1


def _maximal_shorter(scene: dict[str, Any], length: int) -> list[tuple[int, ...]]:
    """Carbon paths shorter than `length` that cannot be extended at either end (a reader stopping there has
    followed a branch to its tip instead of the longest chain)."""
    adj: dict[int, set[int]] = {}
    for i, j, _ in scene["bonds"]:
        adj.setdefault(i, set()).add(j)
        adj.setdefault(j, set()).add(i)
    carbon = {k for k, a in enumerate(scene["atoms"]) if a["el"] == "C"}
    out = []
    for n in (length - 1, length - 2):
        if n < 2:
            continue
        for p in carbon_paths(scene, n)[0]:
            if p[0] > p[-1]:
                continue
            ends_free = [c for end in (p[0], p[-1]) for c in adj.get(end, ()) if c in carbon and c not in p]
            if not ends_free:
                out.append(p)
        if out:
            break
    return sorted(out)


@register
class LongestCarbonChain(ChemTask):
    name = "longest_carbon_chain"
    config_cls = LongestCarbonChainConfig
    presets = {
        "easy": LongestCarbonChainConfig(
            answer_min=4, answer_max=9, min_extra=1, max_extra=3, max_groups=1, max_rings=0, max_links=2
        ),
        "medium": LongestCarbonChainConfig(
            answer_min=5, answer_max=10, min_extra=1, max_extra=4, max_groups=2, max_rings=1, max_links=2
        ),
        "hard": LongestCarbonChainConfig(
            answer_min=7, answer_max=13, min_extra=2, max_extra=5, max_groups=3, max_rings=2, max_links=2
        ),
    }
    version = "1"
    description = "Count the carbon atoms of the longest chain of bonded carbons in a drawn skeletal formula."
    limits = {
        "answer_min": Limit(3, 14, "longest chain, in carbons: a branch needs a chain of 3"),
        "answer_max": Limit(3, 14, "longest chain, in carbons: longer chains with their branches crowd the picture"),
        "min_extra": Limit(
            1, 8, "carbons beyond answer_max in every molecule: at least one, so the chain is never all the carbons"
        ),
        "max_extra": Limit(1, 8, "carbons beyond answer_max in every molecule: more crowd the picture"),
        "max_groups": Limit(0, 4, "heteroatom groups (OH, Cl, C=O, CN, ...) on the chain"),
        "max_rings": Limit(0, 2, "ring substituents (phenyl, cyclohexyl, ...); more crowd the picture"),
        "max_links": Limit(0, 2, "side chains joined through O, N or S, which break a carbon chain"),
    }

    # -- sampling ---------------------------------------------------------------------------------------------

    def sample_scene(self, ctx: GenContext) -> dict[str, Any]:
        cfg = self.config
        rng = ctx.rng
        length = self.target(ctx)
        g = Graph()
        chain = g.chain(length)

        def room(i: int) -> int:
            # A substituent at chain position i may reach this many carbons without making a longer chain.
            return min(i, length - 1 - i)

        def spot(reach: int, need: int = 1) -> int:
            spots = [chain[i] for i in range(length) if room(i) >= reach and g.free(chain[i]) >= need]
            if not spots:
                raise Reject("no chain carbon can take the substituent")
            return rng.choice(spots)

        # The molecule's carbons number answer_max + min_extra .. answer_max + max_extra whatever the chain's
        # length, so that no count of them tells the length (docs/tasks/longest_carbon_chain.md, "Shortcuts").
        extra = cfg.answer_max + rng.randint(cfg.min_extra, cfg.max_extra) - length

        def remaining() -> int:
            return extra - (sum(1 for e in g.els if e == "C") - length)

        for _ in range(rng.randint(0, cfg.max_groups)):
            kind = rng.choice(GROUPS)
            spots = [
                c
                for c in open_carbons(g, chain, 2 if kind == "oxo" else 1)
                if room(chain.index(c)) >= REACH.get(kind, 0)
            ]
            if spots and REACH.get(kind, 0) <= remaining():
                attach(g, rng.choice(spots), kind)
        for _ in range(rng.randint(0, cfg.max_rings)):
            fits = [
                k
                for k in RINGS
                if RING_CARBONS[k] <= remaining()
                and any(room(i) >= REACH[k] and g.free(c) >= 1 for i, c in enumerate(chain))
            ]
            if fits:
                kind = rng.choice(fits)
                attach(g, spot(REACH[kind]), kind)
        for _ in range(rng.randint(0, cfg.max_links)):
            if remaining() < 1:
                break
            link = g.add(rng.choice(LINKS), spot(0))
            # The side chain beyond the heteroatom is a carbon chain of its own, shorter than the main one.
            g.chain(rng.randint(1, min(remaining(), length - 1)), link)
        while remaining() > 0:
            at = spot(1)
            g.chain(rng.randint(1, min(3, remaining(), room(chain.index(at)))), at)
        scene = scene_of(g, rng)
        if len(longest(scene)) != length:
            raise Reject("the built molecule's longest chain is not the drawn target")
        return scene

    # -- solving ----------------------------------------------------------------------------------------------

    def solve(self, scene: dict[str, Any]) -> Solution:
        carbons = [k for k, a in enumerate(scene["atoms"]) if a["el"] == "C"]
        path = longest(scene)
        return Solution(
            answer=str(len(path)), states=[{"carbons": carbons}, {"chain": list(path)}], details={"chain": list(path)}
        )

    def question(self, scene: dict[str, Any]) -> str:
        return (
            INTRO + "A carbon chain is a sequence of carbon atoms in which each atom is bonded to the next and "
            "no atom appears twice; it may run through ring atoms, and any atom other than carbon interrupts "
            "it. How many carbon atoms does the longest carbon chain of this molecule have? Answer with a "
            "single integer."
        )

    # -- pictures ---------------------------------------------------------------------------------------------

    def _steps(self, scene: dict[str, Any], carbons: list[int], chain: list[int]) -> list[tuple[Any, str]]:
        others = sorted({a["el"] for a in scene["atoms"]} - {"C"})
        written = " and ".join([", ".join(others[:-1]), others[-1]] if len(others) > 1 else others)
        rest = (
            f" The atoms written as {written} are not carbon." if others else " Every atom of this molecule is carbon."
        )
        s1 = (draw(scene, carbons, colour=HIGHLIGHT), f"The carbon atoms are highlighted: {atom_list(carbons)}.{rest}")
        s2 = (
            draw(scene, chain, bonds_between(scene, chain), colour=CHOSEN),
            f"The longest carbon chain is highlighted, from one end to the other: atoms "
            f"{' - '.join(str(a + 1) for a in chain)}.",
        )
        return [s1, s2]

    def render(self, scene: dict[str, Any], solution: Solution) -> Rendering:
        states = solution.states
        return Rendering(
            image=self.render_input(scene, solution), steps=self._steps(scene, states[0]["carbons"], states[1]["chain"])
        )

    def corrupt(self, scene: dict[str, Any], solution: Solution, rng: random.Random) -> Corruption | None:
        # The chain followed into a branch: a carbon path that cannot be extended but is shorter than the
        # longest, shown in the same words as the right one.
        # A molecule with no branch to stray into has no such chain: its scene is drawn again (a chain stopped
        # short of an end would be said to run "from one end to the other" while a carbon goes on from it).
        chain = solution.states[1]["chain"]
        options = _maximal_shorter(scene, len(chain))
        if not options:
            return None
        wrong = list(rng.choice(options))
        carbons = solution.states[0]["carbons"]
        # The trajectory counts the carbons of the chain it took for the longest. The error is in following the
        # chain, not in reading the picture, so there is no misread scene to give.
        return Corruption(
            steps=lambda: self._steps(scene, carbons, wrong),
            description=f"a shorter chain taken for the longest: atoms {' - '.join(str(a + 1) for a in wrong)}",
            answer=str(len(wrong)),
        )
