"""longest_carbon_chain: the molecule's atoms (numbered as in the picture) and its bonds."""

from __future__ import annotations

from typing import Any

from vcot.captions._chem import molecule


def caption(scene: dict[str, Any]) -> str:
    return molecule(scene)
