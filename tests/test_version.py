"""vcot's version lives in `vcot.version` alone: pyproject.toml states the same number, the package root
re-exports it without loading anything at import, and the modules that record it read that one value."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import vcot
from vcot import version

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"


def test_pyproject_states_the_version_module_s_number() -> None:
    project = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]
    assert project["version"] == version.__version__, (
        f"pyproject.toml says {project['version']!r}, src/vcot/version.py says {version.__version__!r}"
    )


def test_the_package_root_re_exports_it_lazily() -> None:
    assert vcot.__version__ == version.__version__
    assert "__version__" in dir(vcot) and "__version__" in vcot.__all__
    code = (
        "import sys, vcot; before = sorted(m for m in sys.modules if m.startswith('vcot')); "
        "from vcot import __version__; print(before, __version__, 'vcot.version' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["['vcot']", version.__version__, "True"]


def test_recorders_read_the_one_value() -> None:
    from vcot import suite
    from vcot.engine import runner
    from vcot.export import inspect_ai, training

    for module in (runner, inspect_ai, training, suite):
        assert module.__version__ is version.__version__, module.__name__
