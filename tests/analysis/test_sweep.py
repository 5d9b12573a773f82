"""Issue 20, difficulty sweeps: the monotone crossing by hand, a chance-model sweep that stays flat at chance,
and a model scripted to fail more as the knob grows (the mock server's per-parameter correct rate) whose 50 %
point the sweep locates within one grid step; the target-accuracy search on the same model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from vcot.analysis.sweep import crossing, isotonic
from vcot.cli import app
from vcot.engine.mock import spawn_mock_server

runner = CliRunner()
SIZES = "4,5,6,7"
# The scripted model's correct rate per mirror_pattern size: its curve crosses 50 % at 5 + 0.3 / 0.5 = 5.6.
RATES = {4: 0.95, 5: 0.8, 6: 0.3, 7: 0.1}
TRUE_HALF = 5.6


def test_isotonic_pools_violators_and_crossing_interpolates() -> None:
    assert isotonic([0.9, 0.5, 0.7, 0.1], [1, 1, 1, 1], decreasing=True) == pytest.approx([0.9, 0.6, 0.6, 0.1])
    assert isotonic([0.2, 0.4, 0.3], [1, 3, 1], decreasing=False) == pytest.approx([0.2, 0.375, 0.375])
    # Falling 0.9 -> 0.6 (pooled) -> 0.1 over x = 1..4: 50 % is passed between x = 3 (0.6) and x = 4 (0.1).
    assert crossing([1, 2, 3, 4], [0.9, 0.5, 0.7, 0.1], [1, 1, 1, 1], 0.5) == pytest.approx(3.2)
    assert crossing([1, 2, 3], [0.9, 0.8, 0.7], [1, 1, 1], 0.5) is None
    assert crossing([1, 2, 3], [0.2, 0.4, 0.8], [1, 1, 1], 0.5) == pytest.approx(2.25)  # rising knob


def _sweep(out: Path, *extra: str) -> dict:
    result = runner.invoke(
        app, ["sweep", "--task", "mirror_pattern", "--param", f"size={SIZES}", "--n", "16", "--out", str(out), *extra]
    )
    assert result.exit_code == 0, result.output
    return json.loads((out / "sweep.json").read_text())


def test_a_chance_sweep_is_flat_at_the_chance_level(tmp_path: Path) -> None:
    summary = _sweep(tmp_path / "sw")
    points = summary["conditions"]["direct"]["points"]
    assert [p["value"] for p in points] == [4, 5, 6, 7] and all(p["problems"] == 16 for p in points)
    pooled = sum(p["accuracy"] for p in points) / len(points)
    assert all(p["chance"] == pytest.approx(0.25) for p in points)
    assert abs(pooled - 0.25) < 0.12
    assert summary["conditions"]["direct"]["knob_at_50"] is None  # never near 50 %
    assert (tmp_path / "sw" / "sweep.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_model_failing_with_the_knob_has_its_half_point_located_within_one_step(tmp_path: Path) -> None:
    out = tmp_path / "sw"
    gen = runner.invoke(
        app,
        [
            "sweep",
            "--task",
            "mirror_pattern",
            "--param",
            f"size={SIZES}",
            "--n",
            "16",
            "--out",
            str(out),
            "--generate-only",
        ],
    )
    assert gen.exit_code == 0, gen.output
    rates = [a for size, p in RATES.items() for a in ("--correct-rate-by-param", f"size={size}:{p}")]
    server = spawn_mock_server(out / "suites", *rates)
    try:
        summary = _sweep(out, "--model", "mock", "--base-url", server.base_url)
        half = summary["conditions"]["direct"]["knob_at_50"]
        assert half is not None and abs(half - TRUE_HALF) <= 1.0
        accs = [p["accuracy"] for p in summary["conditions"]["direct"]["points"]]
        assert accs[0] > 0.75 and accs[-1] < 0.3  # the scripted rates, not the chance model's
        search = runner.invoke(
            app,
            [
                "sweep",
                "--task",
                "mirror_pattern",
                "--param",
                "size=4..7",
                "--n",
                "16",
                "--out",
                str(out),
                "--model",
                "mock",
                "--base-url",
                server.base_url,
                "--target-accuracy",
                "0.5",
            ],
        )
    finally:
        server.stop()
    assert search.exit_code == 0, search.output
    best = int(search.output.split("size = ")[-1].split(":")[0])
    assert best in (5, 6), search.output


def test_bad_sweep_options_are_named() -> None:
    r = runner.invoke(app, ["sweep", "--task", "mirror_pattern", "--param", "size=4"])
    assert r.exit_code != 0 and "at least two distinct values" in r.output
    r = runner.invoke(app, ["sweep", "--task", "mirror_pattern", "--param", "size=4,99"])
    assert r.exit_code != 0 and "size" in r.output
    r = runner.invoke(app, ["sweep", "--task", "mirror_pattern", "--param", "size=4..7"])
    assert r.exit_code != 0 and "--target-accuracy" in r.output
