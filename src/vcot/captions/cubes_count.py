"""cubes_count: the structure's column heights (see `_cubes.py`)."""

from __future__ import annotations

from vcot.captions._cubes import caption

__all__ = ["caption"]
