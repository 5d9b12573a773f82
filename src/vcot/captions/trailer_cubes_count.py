"""trailer_cubes_count: the three drawn views (see `_three_views.py`)."""

from __future__ import annotations

from vcot.captions._three_views import caption

__all__ = ["caption"]
