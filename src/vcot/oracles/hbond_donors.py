"""hbond_donors oracle: hydrogens counted by valence arithmetic over the stored atoms and bonds.

The generator asks RDKit for each atom's hydrogen count after sanitising the molecule; this module adds up the
bond orders at each nitrogen and oxygen itself and gives the rest of the neutral atom's valence (N 3, O 2) to
hydrogens, so the two share neither the method nor the library.
"""

from __future__ import annotations

from typing import Any

_VALENCE = {"N": 3, "O": 2}


def hydrogens(scene: dict[str, Any]) -> dict[int, int]:
    """Per nitrogen or oxygen atom: how many hydrogens it carries (the valence its bonds leave free)."""
    used = {k: 0 for k, a in enumerate(scene["atoms"]) if a["el"] in _VALENCE}
    for i, j, order in scene["bonds"]:
        for k in (i, j):
            if k in used:
                used[k] += int(order)
    out = {}
    for k, n in used.items():
        free = _VALENCE[scene["atoms"][k]["el"]] - n
        if free < 0:
            raise ValueError(f"atom {k + 1} has more bonds than its valence allows")
        out[k] = free
    return out


def answer(scene: dict[str, Any], params: dict[str, Any]) -> str:
    return str(sum(1 for h in hydrogens(scene).values() if h > 0))
