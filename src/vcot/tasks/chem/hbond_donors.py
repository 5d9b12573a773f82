"""hbond_donors: how many hydrogen-bond donors a drawn molecule has, counted as the nitrogen and oxygen atoms that
carry at least one hydrogen (each such atom once). docs/tasks/hbond_donors.md has the details."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from vcot.tasks import register
from vcot.tasks.base import Corruption, GenContext, Limit, Reject, Rendering, Solution
from vcot.tasks.chem._draw import CHOSEN, HIGHLIGHT, draw
from vcot.tasks.chem._mol import (
    OTHER_GROUPS,
    RING_GROUPS,
    Graph,
    atom_list,
    scene_of,
    spread,
    to_mol,
)
from vcot.tasks.chem._task import INTRO, ChemTask

PLAIN_RINGS = ("phenyl", "cyclohexyl", "cyclopentyl", "cyclopropyl")
# Heteroatoms inside the backbone: an NH (a donor), an ether O or an N-methyl (no hydrogen on the heteroatom).
LINKS = {"NH": "N", "O": "O", "NMe": "N"}
# What carries the donors and the bare N and O atoms: item -> (the element of its donor or bare atom, what it
# spends: "group", a "links" or a "rings" budget, how many N or O atoms without hydrogen it adds).
DONOR_ITEMS = {
    "OH": ("O", "group", 0),
    "COOH": ("O", "group", 1),
    "phenol": ("O", "rings", 0),
    "NH2": ("N", "group", 0),
    "CONH2": ("N", "group", 1),
    "NHMe": ("N", "group", 0),
    "NHAc": ("N", "group", 1),
    "piperidyl": ("N", "rings", 0),
    "NH": ("N", "links", 0),
}
BARE_ITEMS = {
    "OMe": ("O", "group", 1),
    "oxo": ("O", "group", 1),
    "COOMe": ("O", "group", 2),
    "CHO": ("O", "group", 1),
    "O": ("O", "links", 1),
    "NMe2": ("N", "group", 1),
    "CN": ("N", "group", 1),
    "pyridyl": ("N", "rings", 1),
    "NMe": ("N", "links", 1),
}


@dataclass(frozen=True)
class HbondDonorsConfig:
    answer_min: int = 0
    answer_max: int = 4
    min_carbons: int = 4
    max_carbons: int = 8
    min_bare: int = 1
    max_bare: int = 3
    max_others: int = 1
    max_rings: int = 1
    max_links: int = 1


def _atom_word(scene: dict[str, Any], k: int) -> str:
    """Atom k by its number and element. Its hydrogens are left to the picture's label and to step 2, the step
    that reads them: a step 1 that wrote them out would decide step 2 in its text (and a misread in step 2, the
    corrupted trajectory's error, would contradict step 1 instead of the picture)."""
    return f"{k + 1} ({scene['atoms'][k]['el']})"


@register
class HbondDonors(ChemTask):
    name = "hbond_donors"
    config_cls = HbondDonorsConfig
    presets = {
        "easy": HbondDonorsConfig(
            answer_min=0,
            answer_max=3,
            min_carbons=3,
            max_carbons=6,
            min_bare=1,
            max_bare=3,
            max_others=0,
            max_rings=0,
            max_links=0,
        ),
        "medium": HbondDonorsConfig(
            answer_min=0,
            answer_max=4,
            min_carbons=4,
            max_carbons=8,
            min_bare=1,
            max_bare=3,
            max_others=1,
            max_rings=1,
            max_links=1,
        ),
        "hard": HbondDonorsConfig(
            answer_min=1,
            answer_max=6,
            min_carbons=6,
            max_carbons=10,
            min_bare=1,
            max_bare=3,
            max_others=2,
            max_rings=2,
            max_links=2,
        ),
    }
    version = "1"
    description = "Count the hydrogen-bond donors (N or O atoms carrying hydrogen) of a drawn skeletal formula."
    limits = {
        "answer_min": Limit(0, 8, "donor count"),
        "answer_max": Limit(0, 8, "donor count: more donor groups crowd the backbone"),
        "min_carbons": Limit(3, 14, "backbone carbons: room for the groups"),
        "max_carbons": Limit(3, 14, "backbone carbons: longer backbones crowd the picture"),
        "min_bare": Limit(
            1, 4, "N and O atoms beyond answer_max; those without hydrogen are ethers, C=O, esters, nitriles, ..."
        ),
        "max_bare": Limit(1, 4, "N and O atoms beyond answer_max: more crowd the backbone"),
        "max_others": Limit(0, 3, "other heteroatoms (SH, S-CH3, F, Cl, Br), which are never donors here"),
        "max_rings": Limit(0, 3, "rings (phenyl, cyclohexyl, pyridyl, piperidyl, ...)"),
        "max_links": Limit(0, 3, "heteroatoms inside the backbone (NH, O, N-CH3)"),
    }

    # -- sampling ---------------------------------------------------------------------------------------------

    def sample_scene(self, ctx: GenContext) -> dict[str, Any]:
        cfg = self.config
        rng = ctx.rng
        donors = self.target(ctx)
        # The molecule's N and O atoms number answer_max + min_bare .. answer_max + max_bare whatever the donors,
        # so that no count of them tells the donors (docs/tasks/hbond_donors.md, "Shortcuts").
        bare = cfg.answer_max + rng.randint(cfg.min_bare, cfg.max_bare) - donors
        budget = {"links": rng.randint(0, cfg.max_links), "rings": rng.randint(0, cfg.max_rings)}

        def pick(table: dict[str, tuple[str, str, int]], room: int) -> str:
            # An oxygen or a nitrogen item with equal chance, then an item of that element that fits.
            fits = [k for k, (el, what, b) in table.items() if b <= room and (what == "group" or budget[what] > 0)]
            if not fits:
                raise Reject("no item fits the budgets")
            els = sorted({table[k][0] for k in fits})
            el = rng.choice(els)
            kind = rng.choice([k for k in fits if table[k][0] == el])
            if table[kind][1] != "group":
                budget[table[kind][1]] -= 1
            return kind

        items = []
        for _ in range(donors):
            items.append(pick(DONOR_ITEMS, bare - sum(DONOR_ITEMS[k][2] for k in items)))
        left = bare - sum(DONOR_ITEMS[k][2] for k in items)
        while left > 0:
            kind = pick(BARE_ITEMS, left)
            items.append(kind)
            left -= BARE_ITEMS[kind][2]
        items += [rng.choice(PLAIN_RINGS) for _ in range(rng.randint(0, budget["rings"]))]
        items += [rng.choice(list(OTHER_GROUPS)) for _ in range(rng.randint(0, cfg.max_others))]

        g = Graph()
        backbone = g.chain(rng.randint(cfg.min_carbons, cfg.max_carbons))
        for link in [k for k in items if k in LINKS]:
            # The heteroatom joins a further run of carbons to a backbone carbon.
            spots = [c for c in backbone if g.free(c) >= 1]
            x = g.add(LINKS[link], rng.choice(spots))
            if link == "NMe":
                g.add("C", x)
            backbone += g.chain(rng.randint(1, 3), x)
        ring_atoms: list[int] = []
        for kind in [k for k in items if k in RING_GROUPS]:
            before = len(g.els)
            spread(rng, g, [kind], backbone)
            ring_atoms += [k for k in range(before, len(g.els)) if g.els[k] == "C"]
        groups = [k for k in items if k not in LINKS and k not in RING_GROUPS]
        rng.shuffle(groups)
        spread(rng, g, groups, backbone + ring_atoms)
        scene = scene_of(g, rng)
        if not any(a["el"] in ("N", "O") for a in scene["atoms"]):
            raise Reject("no nitrogen or oxygen to examine")
        if int(self.solve(scene).answer) != donors:
            raise Reject("the built molecule's donor count is not the target")
        return scene

    # -- solving ----------------------------------------------------------------------------------------------

    def solve(self, scene: dict[str, Any]) -> Solution:
        mol = to_mol(scene["atoms"], scene["bonds"], coords=False)
        polar = [a.GetIdx() for a in mol.GetAtoms() if a.GetSymbol() in ("N", "O")]
        donors = [k for k in polar if mol.GetAtomWithIdx(k).GetTotalNumHs() > 0]
        return Solution(
            answer=str(len(donors)), states=[{"polar": polar}, {"donors": donors}], details={"donors": donors}
        )

    def question(self, scene: dict[str, Any]) -> str:
        return (
            INTRO + "Count the hydrogen-bond donors of this molecule: every nitrogen or oxygen atom that carries "
            "at least one hydrogen counts once (an NH2 is one donor); a hydrogen on any other atom does not "
            "count. How many hydrogen-bond donors does the molecule have? Answer with a single integer."
        )

    # -- pictures ---------------------------------------------------------------------------------------------

    def _steps(self, scene: dict[str, Any], polar: list[int], donors: list[int]) -> list[tuple[Any, str]]:
        words = [_atom_word(scene, k) for k in polar]
        s1 = (
            draw(scene, polar, colour=HIGHLIGHT),
            "The nitrogen and oxygen atoms are highlighted: " + atom_list(polar, words) + ".",
        )
        if donors:
            text = "Of these, the atoms drawn with a hydrogen are highlighted: " + atom_list(donors) + "."
        else:
            text = "None of these atoms is drawn with a hydrogen; no atom is highlighted."
        return [s1, (draw(scene, donors, colour=CHOSEN), text)]

    def render(self, scene: dict[str, Any], solution: Solution) -> Rendering:
        states = solution.states
        return Rendering(
            image=self.render_input(scene, solution), steps=self._steps(scene, states[0]["polar"], states[1]["donors"])
        )

    def corrupt(self, scene: dict[str, Any], solution: Solution, rng: random.Random) -> Corruption | None:
        # One atom misjudged: a donor overlooked, or an N or O without hydrogen taken for a donor.
        polar, donors = solution.states[0]["polar"], solution.states[1]["donors"]
        bare = [k for k in polar if k not in donors]
        moves = [("missed", k) for k in donors] + [("added", k) for k in bare]
        if not moves:
            return None
        how, k = rng.choice(moves)
        wrong = sorted([d for d in donors if d != k] if how == "missed" else [*donors, k])
        what = (
            f"the donor atom {k + 1} overlooked"
            if how == "missed"
            else f"atom {k + 1}, which carries no hydrogen, taken for a donor"
        )
        # The misjudged atom is counted (or not) as the misread picture says, so the trajectory concludes with
        # the size of its wrong donor set. No misread scene is given: a scene stores atoms and bonds only (the
        # hydrogens follow from the valences), and no bond change would be the label misread rather than
        # another molecule.
        return Corruption(steps=lambda: self._steps(scene, polar, wrong), description=what, answer=str(len(wrong)))
