"""The reliability benchmark (benchmarks/reliability.py) on a small run: a fault matrix, one SIGKILL and a
resume finish every sample once, re-pay no committed call, and keep hostile text out of the report raw."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "reliability.py"


@pytest.mark.timeout(900)
def test_fault_matrix_kill_and_resume_lose_and_duplicate_nothing(tmp_path, capsys):
    spec = importlib.util.spec_from_file_location("reliability_bench", BENCH)
    assert spec and spec.loader
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    code = bench.main(["--conditions", "direct", "--epochs", "1", "--kills", "1", "--work", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "lost 0  duplicated 0" in out
    kill_row = next(line for line in out.splitlines() if line.strip().startswith("1 "))
    assert kill_row.split()[-1] == "0", f"a committed call was paid again:\n{out}"
    assert "raw control bytes 0, live markup 0" in out
