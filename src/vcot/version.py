"""vcot's version, stated in this one module (pyproject.toml states the same number: tests/test_version.py
checks that the two agree). `vcot.__version__` reads it from here on first access."""

from __future__ import annotations

__version__ = "0.1.0"
