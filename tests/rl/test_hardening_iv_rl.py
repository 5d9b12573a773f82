"""Issue 45, "Hardening IV", RL side: the doctor's bounds on chat templates (time, size, special files)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from vcot.rl import doctor as doc  # noqa: E402 - after the skips: the doctor needs transformers

NESTED_LOOPS = (
    "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}{{ messages[0]['role'] }}"
)


def test_a_template_with_nested_long_loops_fails_within_the_time_bound(tiny_model_dir: Path, tmp_path: Path) -> None:
    template = tmp_path / "loops.jinja"
    template.write_text(NESTED_LOOPS, encoding="utf-8")
    start = time.monotonic()
    checks = doc.doctor(tiny_model_dir, trust_remote_code=True, chat_template_file=template, seconds=2.0)
    assert time.monotonic() - start < 30
    assert [c.name for c in checks] == [f.__name__.removeprefix("check_") for f in doc.CHECKS]
    assert not any(c.ok for c in checks)
    assert "longer than 2 s" in checks[0].reason
    assert all("not run" in c.reason for c in checks[1:])


def test_a_template_that_builds_a_huge_string_fails_by_the_memory_bound(tiny_model_dir: Path, tmp_path: Path) -> None:
    template = tmp_path / "huge.jinja"
    # 4 GB of text, eight times the worker's budget: a MemoryError inside the check, not in the caller.
    template.write_text("{% set s = 'x' * 100000 %}{{ s * 40000 }}", encoding="utf-8")
    checks = doc.doctor(
        tiny_model_dir, trust_remote_code=True, chat_template_file=template, seconds=60, memory=512 * 1024**2
    )
    assert not checks[0].ok
    assert "MemoryError" in checks[0].reason, checks[0].reason


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")
def test_a_fifo_as_chat_template_is_refused_without_blocking(tiny_model_dir: Path, tmp_path: Path) -> None:
    fifo = tmp_path / "template.fifo"
    os.mkfifo(fifo)
    with pytest.raises(doc.DoctorError, match="FIFO, not a regular file"):
        doc.doctor(tiny_model_dir, chat_template_file=fifo)


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
def test_a_device_as_chat_template_is_refused() -> None:
    with pytest.raises(doc.DoctorError, match="device, not a regular file"):
        doc.read_template("/dev/zero")


def test_an_oversized_template_file_is_refused(tmp_path: Path) -> None:
    big = tmp_path / "big.jinja"
    big.write_text("x" * 2001, encoding="utf-8")
    with pytest.raises(doc.DoctorError, match="over the limit of 2,000"):
        doc.read_template(big, max_bytes=2000)
    assert doc.read_template(big, max_bytes=2001) == "x" * 2001


def test_the_trl_environment_budget_must_be_a_whole_number() -> None:
    pytest.importorskip("trl")
    from vcot.rl.trl import DrawingEnvironment

    with pytest.raises(ValueError, match="max_calls must be a whole number, got nan"):
        DrawingEnvironment(max_calls=float("nan"))
