"""Issue 18, suites: names that become paths, hostile suite files, `vcot generate`'s input errors, stale images,
Ctrl-C with worker processes, and the parameters `vcot tasks` lists."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from vcot.cli import app
from vcot.suite import INSTANCES, MANIFEST, Suite, SuiteError, read_suite

runner = CliRunner()
EVIL = "../../../x"


def _rename_task(suite_dir: Path, new: str, line: int = 0, declare: bool = True) -> None:
    """Give instance `line` the task `new`, declared in the manifest with matching counts (as an attacker
    who also recomputed the content hash would) unless `declare` is false."""
    lines = (suite_dir / INSTANCES).read_text().splitlines()
    obj = json.loads(lines[line])
    old = obj["task"]
    obj["task"] = new
    lines[line] = json.dumps(obj)
    (suite_dir / INSTANCES).write_text("\n".join(lines) + "\n")
    manifest = json.loads((suite_dir / MANIFEST).read_text())
    if declare:
        manifest["tasks"][new] = {"source": "given"}
    manifest["counts"][new] = 1
    manifest["counts"][old] -= 1
    (suite_dir / MANIFEST).write_text(json.dumps(manifest))


def _no_traceback(result) -> None:
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in result.output


# ---------------------------------------------------------------------------------- 1. names become paths


def test_task_name_that_climbs_out_is_refused_on_read(toy_suite: Path) -> None:
    _rename_task(toy_suite, EVIL, line=2)
    with pytest.raises(SuiteError) as exc:
        read_suite(toy_suite)
    msg = str(exc.value)
    assert f"{MANIFEST} (field 'tasks')" in msg and EVIL in msg
    # Declared nowhere, the instance's own field is named.
    _rename_task(toy_suite, "../../y", line=4, declare=False)
    manifest = json.loads((toy_suite / MANIFEST).read_text())
    del manifest["tasks"][EVIL]
    (toy_suite / MANIFEST).write_text(json.dumps(manifest))
    with pytest.raises(SuiteError, match=rf"{INSTANCES}:3 \(field 'task'\): task name '\.\./\.\./\.\./x'"):
        read_suite(toy_suite)


def test_manifest_task_name_that_climbs_out_is_refused(toy_suite: Path) -> None:
    manifest = json.loads((toy_suite / MANIFEST).read_text())
    manifest["tasks"]["../evil"] = {"source": "given"}
    (toy_suite / MANIFEST).write_text(json.dumps(manifest))
    with pytest.raises(SuiteError, match=r"manifest\.json \(field 'tasks'\).*'\.\./evil'"):
        read_suite(toy_suite)


def test_export_and_validate_refuse_the_name_and_write_nothing_outside(toy_suite: Path, tmp_path: Path) -> None:
    _rename_task(toy_suite, EVIL)
    out = tmp_path / "a" / "b" / "out"
    result = runner.invoke(app, ["export", str(toy_suite), "-f", "mira", "--out", str(out)])
    _no_traceback(result)
    assert result.exit_code == 2 and "field 'tasks'" in result.output and EVIL in result.output
    assert not (tmp_path / "x").exists() and not out.exists()
    result = runner.invoke(app, ["validate", str(toy_suite), "--no-hash"])
    assert result.exit_code != 0 and "ok" not in result.output.split()


def test_exporter_checks_names_of_a_suite_built_in_memory(toy_suite: Path, tmp_path: Path) -> None:
    from vcot.export.mira import export_mira

    suite = read_suite(toy_suite)
    evil = Suite(
        suite.root, suite.manifest, [suite.instances[0].model_copy(update={"task": EVIL}), *suite.instances[1:]]
    )
    out = tmp_path / "a" / "b" / "out"
    with pytest.raises(SuiteError, match="field 'task'"):
        export_mira(evil, out)
    assert not (tmp_path / "x").exists() and not out.exists()


# ------------------------------------------------------------------------------------- 7. hostile files


def _replace_line(suite_dir: Path, text: str) -> None:
    lines = (suite_dir / INSTANCES).read_text().splitlines()
    lines[1] = text
    (suite_dir / INSTANCES).write_text("\n".join(lines) + "\n")


def test_deeply_nested_line_is_a_suite_error(toy_suite: Path) -> None:
    _replace_line(toy_suite, "[" * 100_000 + "]" * 100_000)
    with pytest.raises(SuiteError, match=rf"{INSTANCES}:2: JSON nested too deeply"):
        read_suite(toy_suite)


def test_huge_integer_is_a_suite_error(toy_suite: Path) -> None:
    obj = json.loads((toy_suite / INSTANCES).read_text().splitlines()[1])
    text = json.dumps(obj).replace('"meta": {', '"meta": {"n": ' + "7" * 5000 + ", ", 1)
    _replace_line(toy_suite, text)
    with pytest.raises(SuiteError, match=rf"{INSTANCES}:2: unreadable JSON value"):
        read_suite(toy_suite)
    result = runner.invoke(app, ["validate", str(toy_suite)])
    _no_traceback(result)
    assert result.exit_code == 2


def test_deeply_nested_manifest_is_a_suite_error(toy_suite: Path) -> None:
    (toy_suite / MANIFEST).write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(SuiteError, match="manifest.json: JSON nested too deeply"):
        read_suite(toy_suite)


def test_overlong_line_is_refused_without_reading_it(toy_suite: Path) -> None:
    # A 500 MB line (a sparse file: no disk used). The child reports how much its peak memory grew while
    # reading: the line must be refused after MAX_LINE_BYTES, not loaded.
    # The huge line first: the child process does not have the test-only task registered.
    with open(toy_suite / INSTANCES, "wb") as fh:
        fh.write(b'{"uid": "')
        fh.seek(500 * 1024 * 1024, os.SEEK_CUR)
        fh.write(b'"}\n')
    code = (
        "import resource, sys\n"
        "from vcot.suite import SuiteError, read_suite\n"
        "before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "try:\n"
        "    read_suite(sys.argv[1], check_images='none')\n"
        "    print('accepted')\n"
        "except SuiteError as exc:\n"
        "    print('refused:', exc)\n"
        "print('grew_kb', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(toy_suite)], capture_output=True, text=True, timeout=300
    ).stdout
    assert "refused:" in out and "line longer than" in out and f"{INSTANCES}:1" in out, out
    grew_mb = int(out.rsplit("grew_kb", 1)[1]) / 1024
    assert grew_mb < 100, f"peak memory grew by {grew_mb:.0f} MB"


# ----------------------------------------------------------------------------- 7, 8. generate's inputs


@pytest.mark.parametrize(
    ("params", "message"),
    [
        (["max_dots=abc"], "must be an integer, got 'abc'"),
        (["max_dots=2.5"], "must be an integer, got 2.5"),
        (["max_dots=-3"], "out of range"),
        (["max_dots=0"], "out of range"),
        (["max_dots=" + "9" * 5000], "--param max_dots"),
    ],
)
def test_generate_parameter_errors_are_messages(tmp_path: Path, params: list[str], message: str) -> None:
    out = tmp_path / "s"
    args = ["generate", "-t", "toy_dots", "--n", "3", "-o", str(out)]
    for p in params:
        args += ["--param", p]
    result = runner.invoke(app, args)
    _no_traceback(result)
    assert result.exit_code == 2 and message in result.output, result.output
    assert not out.exists()  # refused before the folder was touched


def test_generate_min_above_max_is_a_message(tmp_path: Path) -> None:
    result = runner.invoke(
        app,
        [
            "generate",
            "-t",
            "rolling_dice_top",
            "--n",
            "2",
            "-o",
            str(tmp_path / "s"),
            "--param",
            "min_moves=5",
            "--param",
            "max_moves=3",
        ],
    )
    _no_traceback(result)
    assert result.exit_code == 2 and "min_moves" in result.output


def test_generate_out_is_an_existing_file(tmp_path: Path) -> None:
    target = tmp_path / "file.txt"
    target.write_text("keep me")
    result = runner.invoke(app, ["generate", "-t", "toy_dots", "--n", "2", "-o", str(target)])
    _no_traceback(result)
    assert result.exit_code == 2 and "not a folder" in result.output
    assert target.read_text() == "keep me"


def test_export_out_of_the_wrong_kind(toy_suite: Path, tmp_path: Path) -> None:
    target = tmp_path / "file.txt"
    target.write_text("keep me")
    result = runner.invoke(app, ["export", str(toy_suite), "-f", "mira", "-o", str(target)])
    _no_traceback(result)
    assert result.exit_code == 2 and "not a folder" in result.output and target.read_text() == "keep me"
    result = runner.invoke(app, ["export", str(toy_suite), "-f", "parquet", "-o", str(tmp_path)])
    _no_traceback(result)
    assert result.exit_code == 2 and "is a folder" in result.output


@pytest.mark.parametrize("processes", ["0", "-2"])
def test_generate_processes_must_be_positive(tmp_path: Path, processes: str) -> None:
    result = runner.invoke(
        app, ["generate", "-t", "toy_dots", "--n", "2", "-o", str(tmp_path / "s"), "--processes", processes]
    )
    _no_traceback(result)
    assert result.exit_code == 2 and "--processes must be at least 1" in result.output


# ---------------------------------------------------------------------------------- 11. stale images


def _pngs(folder: Path) -> set[str]:
    return {p.relative_to(folder).as_posix() for p in folder.rglob("*.png")}


def test_regenerating_into_a_suite_leaves_no_orphan_images(tmp_path: Path) -> None:
    out = tmp_path / "s"
    assert runner.invoke(app, ["generate", "-t", "toy_dots", "--n", "8", "-o", str(out)]).exit_code == 0
    before = _pngs(out)
    assert runner.invoke(app, ["generate", "-t", "toy_dots", "--n", "3", "--seed", "5", "-o", str(out)]).exit_code == 0
    referenced = {rel for inst in read_suite(out) for rel in inst.image_paths()}
    assert _pngs(out) == referenced and len(before) > len(referenced)


def test_writing_into_a_folder_that_was_no_suite_deletes_nothing(tmp_path: Path) -> None:
    out = tmp_path / "s"
    (out / "images").mkdir(parents=True)
    (out / "images" / "mine.png").write_bytes(b"not vcot's")
    assert runner.invoke(app, ["generate", "-t", "toy_dots", "--n", "2", "-o", str(out)]).exit_code == 0
    assert (out / "images" / "mine.png").read_bytes() == b"not vcot's"


def test_ctrl_c_with_two_processes_prints_a_message_not_tracebacks(tmp_path: Path) -> None:
    out = tmp_path / "s"
    # SIGINT set to its default in the child (and so in its workers), as in a terminal, even when this test
    # session was started in the background (which leaves SIGINT ignored for every child).
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "vcot.cli",
            "generate",
            "-t",
            "mirror_clock",
            "--n",
            "100000",
            "-j",
            "2",
            "-o",
            str(out),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not any(out.rglob("*.png")):
            time.sleep(0.2)
        assert any(out.rglob("*.png")), "generation did not start"
        time.sleep(0.5)
        # What a terminal's Ctrl-C does: SIGINT to the whole foreground group, workers included.
        for pid in [proc.pid, *_children(proc.pid)]:
            os.kill(pid, signal.SIGINT)
        _, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert "Traceback" not in stderr and "KeyboardInterrupt" not in stderr and "PoolWorker" not in stderr, stderr
    assert "interrupted" in stderr and "rerun" in stderr
    assert proc.returncode == 130


def _children(pid: int) -> list[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(x) for x in text.split()]


# ------------------------------------------------------------------------------- 13. vcot tasks params


def test_tasks_lists_each_parameter_with_its_preset_values() -> None:
    result = runner.invoke(app, ["tasks"])
    assert result.exit_code == 0
    # toy_dots: easy/medium/hard; a narrow column wraps the cell rather than cutting it.
    assert "max_dots: int =" in result.output and "3/6/9" in result.output and "…" not in result.output
    one = runner.invoke(app, ["tasks", "toy_dots"])
    assert one.exit_code == 0
    assert re.search(r"max_dots\s*│\s*int\s*│\s*3\s*│\s*6\s*│\s*9\s*│", one.output), one.output
    assert "min_moves: int" in result.output
