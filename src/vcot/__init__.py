"""vcot: visual chain-of-thought benchmarks, evaluation and diagnostics for multimodal models.

From Python (README.md, "From Python"): `vcot.tasks()`, `vcot.generate(...)`, `vcot.load_suite(path)`,
`vcot.evaluate(suite, model=...)`, `vcot.report(run)`, `vcot.grade(response, gold, answer_type)`. They are
imported on first use, so `import vcot` loads nothing else.
"""

from __future__ import annotations

from typing import Any

_API = ("tasks", "generate", "load_suite", "evaluate", "report", "grade", "Run")
__all__ = ["__version__", *_API]


def __getattr__(name: str) -> Any:
    if name == "__version__":
        # Kept out of the module body so that `import vcot` loads no other module (tests/test_public_api.py).
        from vcot.version import __version__

        return __version__
    if name in _API:
        # `tasks` is answered by the vcot.tasks package itself once imported (it is callable): importing it
        # makes it this module's attribute, and later lookups never reach here.
        if name == "tasks":
            import vcot.tasks

            return vcot.tasks
        from vcot import api

        return getattr(api, name)
    raise AttributeError(f"module 'vcot' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), "__version__", *_API])
