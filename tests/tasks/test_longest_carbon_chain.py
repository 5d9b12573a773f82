"""longest_carbon_chain: hand-worked molecules, solver invariants, balance, pictures and the corrupted chain."""

from __future__ import annotations

import collections
import random

import pytest

from chem_scenes import scene_from_smiles
from vcot.draw.png import pixel_digest
from vcot.tasks import get_task
from vcot.tasks.base import ParameterError
from vcot.tasks.chem._draw import CANVAS

TASK = get_task("longest_carbon_chain")


def _bonded(scene: dict) -> set[frozenset[int]]:
    return {frozenset((i, j)) for i, j, _ in scene["bonds"]}


# -- hand-worked ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "smiles, chain",
    [
        ("CCCCCC", 6),  # hexane: all six carbons in a row
        ("CCC(C)CCC", 6),  # 3-methylhexane: the methyl gives a path of 5 only (C-C3-C4-C5-C6)
        ("CC(C)C(C)C", 4),  # 2,3-dimethylbutane: every end-to-end path has 4 carbons
        ("CCCOCCCC", 4),  # the ether oxygen cuts the 8-atom path into 3 and 4 carbons
        ("CCCc1ccccc1", 9),  # propylbenzene: 3 chain carbons, then all 6 ring atoms around the ring
        ("C1CCCCC1", 6),  # cyclohexane: round the ring, each atom once
        ("CC(=O)CC(N)CC#N", 6),  # bond orders do not matter; the C=O, NH2 and nitrile N hang off 6 carbons
        ("CCN(CC)CC", 2),  # triethylamine: the nitrogen separates three ethyl groups
    ],
)
def test_hand_worked_molecules(smiles: str, chain: int) -> None:
    assert TASK.solve(scene_from_smiles(smiles)).answer == str(chain)


def test_hand_chain_is_a_path_of_carbons() -> None:
    scene = scene_from_smiles("CCC(C)CCC")
    path = TASK.solve(scene).states[1]["chain"]
    # Atoms 0-1-2-4-5-6 in SMILES order; the methyl (3) is left out, and the path is read from its lower end.
    assert path == [0, 1, 2, 4, 5, 6]


# -- invariants -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("difficulty", ["easy", "medium", "hard"])
def test_solution_invariants(difficulty: str) -> None:
    task = get_task("longest_carbon_chain", difficulty)
    answers = collections.Counter()
    in_order = 0
    for i in range(24):
        scene, sol = task.solved_scene(i, 3)
        chain = sol.states[1]["chain"]
        carbons = sol.states[0]["carbons"]
        assert len(chain) == int(sol.answer) and len(set(chain)) == len(chain)
        assert all(scene["atoms"][a]["el"] == "C" for a in chain)
        assert all(frozenset(p) in _bonded(scene) for p in zip(chain, chain[1:], strict=False))
        # Every molecule has a branch: the chain is never all the carbons.
        assert len(carbons) > len(chain)
        # Atom numbers are shuffled: the chain is not atoms 1, 2, 3, ... in order.
        in_order += chain == list(range(len(chain)))
        answers[sol.answer] += 1
    lo, hi = task.config.answer_min, task.config.answer_max
    assert set(answers) <= {str(k) for k in range(lo, hi + 1)}
    assert max(answers.values()) <= 24 / (hi - lo + 1) + 2
    assert in_order <= 1


def test_pictures_are_deterministic_and_sized() -> None:
    scene, sol = TASK.solved_scene(0, 1)
    first = TASK.render(scene, sol)
    again = TASK.render(scene, sol)
    assert first.image.size == (CANVAS, CANVAS)
    assert pixel_digest(first.image) == pixel_digest(again.image)
    assert [pixel_digest(im) for im, _ in first.steps] == [pixel_digest(im) for im, _ in again.steps]
    # The step pictures differ from the input (they carry highlights).
    assert all(pixel_digest(im) != pixel_digest(first.image) for im, _ in first.steps)


def test_a_molecule_with_no_branch_to_stray_into_has_no_corruption() -> None:
    # Hexane: the only maximal carbon path is the chain itself, so no shorter chain can be taken for it, and
    # the scene is drawn again rather than given a chain stopped short of an end.
    from chem_scenes import scene_from_smiles

    task = get_task("longest_carbon_chain", "medium")
    scene = scene_from_smiles("CCCCCC")
    assert task.corrupt(scene, task.solve(scene), random.Random(0)) is None


def test_corrupted_chain_is_a_shorter_carbon_path() -> None:
    task = get_task("longest_carbon_chain", "medium")
    for i in range(10):
        scene, sol, _, _ = task._accept(i, 2, check_corruption=True)  # a scene `make` accepts
        bad = task.corrupt(scene, sol, random.Random(i))
        assert bad is not None
        wrong = [int(w) - 1 for w in bad.description.split(": atoms ")[1].split(" - ")]
        assert len(wrong) < int(sol.answer)
        assert all(scene["atoms"][a]["el"] == "C" for a in wrong)
        assert all(frozenset(p) in _bonded(scene) for p in zip(wrong, wrong[1:], strict=False))
        # Stated in the same words as the right chain.
        assert bad.steps[1][1].startswith("The longest carbon chain is highlighted")


def test_limits_are_enforced() -> None:
    with pytest.raises(ParameterError):
        get_task("longest_carbon_chain", answer_max=40)
    with pytest.raises(ParameterError):
        get_task("longest_carbon_chain", answer_min=9, answer_max=6)


def test_svg_rasteriser_matches_rdkits_cairo_drawing() -> None:
    # The pictures are RDKit's SVG rasterised by aggdraw (tasks/chem/_svg.py); RDKit's own Cairo drawer, given
    # the same options, must give the same picture within anti-aliasing.
    import io

    import numpy as np
    from PIL import Image
    from rdkit.Chem.Draw import rdMolDraw2D

    from vcot.tasks.chem._mol import to_mol
    from vcot.tasks.chem._svg import rasterise

    scene = scene_from_smiles("OC(=O)CC(N)Cc1ccccc1Cl")
    mol = to_mol(scene["atoms"], scene["bonds"])
    pictures = []
    for drawer in (rdMolDraw2D.MolDraw2DSVG(320, 320), rdMolDraw2D.MolDraw2DCairo(320, 320)):
        drawer.drawOptions().useBWAtomPalette()
        drawer.DrawMolecule(mol)
        drawer.FinishDrawing()
        pictures.append(drawer.GetDrawingText())
    ours = np.asarray(rasterise(pictures[0]), dtype=float)
    cairo = np.asarray(Image.open(io.BytesIO(pictures[1])).convert("RGB"), dtype=float)
    assert ours.shape == cairo.shape
    assert np.abs(ours - cairo).mean() < 2.0
    assert (ours < 128).sum() > 500  # bonds and labels were drawn at all


def test_svg_rasteriser_refuses_what_it_cannot_draw() -> None:
    from vcot.tasks.chem._svg import UnsupportedSvg, rasterise

    head = "<svg width='80px' height='80px'>"
    with pytest.raises(UnsupportedSvg, match="circle"):
        rasterise(head + "<circle cx='1' cy='1' r='2'/></svg>")
    with pytest.raises(UnsupportedSvg, match="C"):
        rasterise(head + "<path d='M 1 1 C 2 2 3 3 4 4' style='stroke:#000000;stroke-width:1px'/></svg>")
    img = rasterise(head + "<rect x='0' y='0' width='80' height='80' style='fill:#000000;stroke:none'/></svg>")
    assert img.getpixel((40, 40)) == (0, 0, 0)
