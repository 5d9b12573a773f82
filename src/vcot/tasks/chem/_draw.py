"""Pictures of a chemistry scene, drawn by RDKit's own depiction code (`rdMolDraw2D`): RDKit writes the drawing
as SVG and `_svg.py` rasterises it with aggdraw (the same pixels as RDKit's Cairo drawer within anti-aliasing,
without the cost of a PNG round trip).

Every atom carries its number (1, 2, ... in the scene's atom order) in grey beside it, so step texts and
answers can name atoms; heteroatoms are written with their hydrogens (OH, NH2) as chemists draw them,
carbons are the unlabelled corners and ends of the bond lines. The element palette is black and white, so
colour is left to the step highlights (palette colours, one role per picture: docs/tasks/longest_carbon_chain.md,
"Pictures").
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PIL import Image
from rdkit import Chem
from rdkit.Chem.Draw import rdMolDraw2D

from vcot.draw.canvas import LABELS_KEY
from vcot.draw.colors import PALETTE
from vcot.tasks.chem._mol import to_mol
from vcot.tasks.chem._svg import rasterise

CANVAS = 640
# The highlight colours (palette names) of the step pictures.
HIGHLIGHT = "lightblue"
CHOSEN = "lightred"


def _unit(name: str) -> tuple[float, float, float]:
    r, g, b = PALETTE[name]
    return (r / 255, g / 255, b / 255)


def draw(
    scene: dict[str, Any], atoms: Sequence[int] = (), bonds: Sequence[int] = (), colour: str = HIGHLIGHT
) -> Image.Image:
    """The molecule with `atoms` and `bonds` (indices into the scene's lists) highlighted in `colour`."""
    mol = to_mol(scene["atoms"], scene["bonds"])
    for a in mol.GetAtoms():
        a.SetProp("atomNote", str(a.GetIdx() + 1))
    d = rdMolDraw2D.MolDraw2DSVG(CANVAS, CANVAS)
    o = d.drawOptions()
    o.useBWAtomPalette()
    o.annotationColour = _unit("gray")
    o.annotationFontScale = 0.62
    o.minFontSize = 14
    o.bondLineWidth = 2
    o.padding = 0.06
    o.fixedBondLength = 64
    o.clearBackground = True
    o.prepareMolsBeforeDrawing = False
    c = _unit(colour)
    rdMolDraw2D.PrepareAndDrawMolecule(
        d,
        mol,
        highlightAtoms=list(atoms),
        highlightBonds=list(bonds),
        highlightAtomColors={int(a): c for a in atoms},
        highlightBondColors={int(b): c for b in bonds},
        kekulize=False,
    )
    d.FinishDrawing()
    image = rasterise(d.GetDrawingText())
    # The texts RDKit drew, recorded as `vcot.draw` records its own (the answer-leak check reads them): every
    # atom number and every heteroatom's label with its hydrogens. Highlights add no text.
    image.info[LABELS_KEY] = (*labels(mol), *(str(k + 1) for k in range(mol.GetNumAtoms())))
    return image


def labels(mol: Chem.Mol) -> list[str]:
    """The element labels the picture shows: heteroatoms with their hydrogens (OH, NH2); carbons are unlabelled."""
    out = []
    for a in mol.GetAtoms():
        if a.GetSymbol() == "C":
            continue
        h = a.GetTotalNumHs()
        out.append(a.GetSymbol() + ("" if h == 0 else "H" if h == 1 else f"H{h}"))
    return out


def bonds_between(scene: dict[str, Any], atoms: list[int]) -> list[int]:
    """Indices of the scene's bonds joining consecutive atoms of a path."""
    index = {frozenset((int(i), int(j))): k for k, (i, j, _) in enumerate(scene["bonds"])}
    return [index[frozenset((a, b))] for a, b in zip(atoms, atoms[1:], strict=False)]
