"""Issue 31, "Hardening III": every option and input file is checked before use; a bad one gets one line
naming it, exit code 2, and never a traceback (nor a folder left behind)."""

from __future__ import annotations

import errno
import json
import os
import sqlite3
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from vcot.build import TaskPlan, build_suite
from vcot.cli import app

runner = CliRunner()


def _one_line(output: str) -> str:
    return " ".join(output.split())


def _refused(result: Any, *phrases: str) -> str:
    """The exit code is 2, each phrase is in the one-line error, and no traceback was printed or raised."""
    out = _one_line(result.output)
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    for phrase in phrases:
        assert phrase in out, out
    return out


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("suite") / "toy"
    build_suite(out, "toy", [TaskPlan("toy_dots", 3, 0)])
    return out


@pytest.fixture(scope="module")
def finished_run(suite: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    run = tmp_path_factory.mktemp("runs") / "run"
    r = runner.invoke(app, ["eval", str(suite), "--run", str(run), "--no-progress", "-c", "direct"])
    assert r.exit_code == 0, r.output
    return run


def _copy_run(run: Path, dest: Path, keep_results: bool = False) -> Path:
    import shutil

    shutil.copytree(run, dest)
    if not keep_results:
        (dest / "results.parquet").unlink(missing_ok=True)
    return dest


# ------------------------------------------------------------------------------------ 1. ports and hosts


@pytest.mark.parametrize("port", ["70000", "-1"])
def test_serve_mock_refuses_a_port_out_of_range(port: str) -> None:
    _refused(
        runner.invoke(app, ["serve-mock", "--port", port]), f"--port {port}: a port is a whole number from 0 to 65535"
    )


@pytest.mark.parametrize("port", ["70000", "-1"])
def test_annotate_refuses_a_port_out_of_range(port: str, finished_run: Path, suite: Path) -> None:
    _refused(
        runner.invoke(app, ["annotate", str(finished_run), "--suite", str(suite), "--port", port]),
        f"--port {port}: a port is a whole number from 0 to 65535",
    )


@pytest.mark.parametrize("port", ["70000", "-1"])
def test_human_refuses_a_port_and_leaves_no_study_folder(port: str, suite: Path, tmp_path: Path) -> None:
    study = tmp_path / "study"
    r = runner.invoke(app, ["human", str(suite), "--out", str(study), "--participants", "2", "--port", port])
    _refused(r, f"--port {port}: a port is a whole number from 0 to 65535")
    assert not study.exists()


def test_human_bind_failure_leaves_no_new_study_folder(suite: Path, tmp_path: Path) -> None:
    import socket

    study = tmp_path / "study"
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        r = runner.invoke(
            app, ["human", str(suite), "--out", str(study), "--participants", "2", "--port", str(s.getsockname()[1])]
        )
    _refused(r, "is in use")
    assert not study.exists()


@pytest.mark.parametrize("port", ["70000", "-1"])
def test_curate_review_refuses_a_port_out_of_range(port: str, tmp_path: Path) -> None:
    _refused(
        runner.invoke(app, ["curate", "review", str(tmp_path / "none.yaml"), "--port", port]),
        f"--port {port}: a port is a whole number from 0 to 65535",
    )


def test_serve_mock_on_an_address_of_another_machine() -> None:
    # TEST-NET-3 (RFC 5737): never an address of this machine.
    _refused(runner.invoke(app, ["serve-mock", "--host", "203.0.113.7", "--port", "0"]), "cannot listen on 203.0.113.7")


# ------------------------------------------------------------------------------------------- 2. numbers


@pytest.mark.parametrize("value", ["nan", "inf", "-1", "0"])
def test_eval_refuses_a_meaningless_timeout(value: str, suite: Path, tmp_path: Path) -> None:
    r = runner.invoke(app, ["eval", str(suite), "--run", str(tmp_path / "run"), "--no-progress", "--timeout", value])
    _refused(r, "--timeout", "must be a number of seconds above 0")
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize(
    ("option", "value", "phrase"),
    [
        ("--temperature", "nan", "--temperature nan: must be a sampling temperature"),
        ("--temperature", "-0.5", "--temperature -0.5: must be a sampling temperature at least 0"),
        ("--top-p", "1.5", "--top-p 1.5: must be a probability above 0 and at most 1"),
        ("--rpm", "inf", "--rpm must be a positive number of requests per minute"),
        ("--max-side", "0", "--max-side 0: must be at least 1"),
        ("--max-attempts", "0", "--max-attempts must be an integer of at least 1"),
        ("--max-tokens", "-5", "--max-tokens -5: must be at least 1"),
    ],
)
def test_eval_refuses_other_meaningless_numbers(
    option: str, value: str, phrase: str, suite: Path, tmp_path: Path
) -> None:
    r = runner.invoke(app, ["eval", str(suite), "--run", str(tmp_path / "run"), "--no-progress", option, value])
    _refused(r, phrase)


@pytest.mark.parametrize(
    ("option", "value", "phrase"),
    [
        ("--latency", "-1", "--latency -1: must be a number of seconds at least 0"),
        ("--latency", "nan", "--latency nan: must be a number of seconds"),
        ("--hang", "inf", "--hang inf: must be a number of seconds"),
        ("--retry-after", "-2", "--retry-after -2"),
        ("--fault-rate", "nan", "--fault-rate nan: must be a rate"),
        ("--correct-rate-for", "direct=x", "--correct-rate-for 'direct=x': expected CONDITION=P"),
    ],
)
def test_serve_mock_refuses_meaningless_numbers(option: str, value: str, phrase: str) -> None:
    _refused(runner.invoke(app, ["serve-mock", "--port", "0", option, value]), phrase)


def test_mock_config_refuses_a_negative_latency_posted_to_it() -> None:
    from vcot.engine.mock import MockConfig

    with pytest.raises(ValueError, match="latency_s=-1"):
        MockConfig().updated({"latency_s": -1})


def test_report_refuses_negative_max_instances(finished_run: Path, tmp_path: Path) -> None:
    _refused(
        runner.invoke(app, ["report", str(finished_run), "--out", str(tmp_path / "rep"), "--max-instances", "-1"]),
        "--max-instances -1: must be 0 or more",
    )
    assert not (tmp_path / "rep").exists()


def test_gallery_refuses_a_negative_per_task(suite: Path) -> None:
    _refused(runner.invoke(app, ["gallery", str(suite), "--per-task", "-1"]), "--per-task -1: must be 0")


@pytest.mark.parametrize(("option", "value"), [("--k", "0"), ("--items", "-3")])
def test_human_refuses_counts_below_one(option: str, value: str, suite: Path, tmp_path: Path) -> None:
    r = runner.invoke(app, ["human", str(suite), "--out", str(tmp_path / "s"), "--participants", "2", option, value])
    _refused(r, f"{option} {value}: must be at least 1")
    assert not (tmp_path / "s").exists()


# --------------------------------------------------------------------------------------------- 3. paths


def test_eval_run_naming_a_file(suite: Path, tmp_path: Path) -> None:
    f = tmp_path / "run.txt"
    f.write_text("mine")
    _refused(
        runner.invoke(app, ["eval", str(suite), "--run", str(f), "--no-progress"]),
        f"--run {f}: exists and is not a folder",
    )
    assert f.read_text() == "mine"


def test_trajectories_given_a_suite(suite: Path) -> None:
    _refused(
        runner.invoke(app, ["trajectories", str(suite), "--suite", str(suite)]),
        f"{suite} is a suite",
        "pass a run folder",
    )
    assert not (suite / "trajectories").exists()


def test_trajectories_given_a_missing_folder(suite: Path, tmp_path: Path) -> None:
    _refused(runner.invoke(app, ["trajectories", str(tmp_path / "nope"), "--suite", str(suite)]), "not found")
    assert not (tmp_path / "nope").exists()


@pytest.mark.parametrize(
    ("text", "phrase"),
    [
        ('["gpt-4o", "closed"]', "expected a JSON object mapping each model to its group name"),
        ('{"gpt-4o": 3}', "expected a JSON object mapping each model to its group name"),
        ("{not json", "not JSON"),
    ],
)
def test_report_groups_file_that_is_no_mapping(text: str, phrase: str, finished_run: Path, tmp_path: Path) -> None:
    groups = tmp_path / "groups.json"
    groups.write_text(text)
    _refused(
        runner.invoke(app, ["report", str(finished_run), "--out", str(tmp_path / "rep"), "--groups", str(groups)]),
        f"--groups {groups}",
        phrase,
    )
    assert not (tmp_path / "rep").exists()


def test_a_fifo_image_is_refused_not_waited_on(tmp_path: Path) -> None:
    from vcot.images import ImageCache, ImageError

    fifo = tmp_path / "input.png"
    os.mkfifo(fifo)
    with pytest.raises(ImageError, match="the image is a FIFO, not a regular file"):
        ImageCache().get(fifo, source="images/input.png")


def test_eval_with_a_fifo_image_ends(tmp_path: Path) -> None:
    suite = tmp_path / "toy"
    build_suite(suite, "toy", [TaskPlan("toy_dots", 2, 0)])
    first = json.loads((suite / "instances.jsonl").read_text().splitlines()[0])
    image = suite / first["image"]
    image.unlink()
    os.mkfifo(image)
    r = runner.invoke(app, ["eval", str(suite), "--run", str(tmp_path / "run"), "--no-progress", "-c", "direct"])
    assert "Traceback" not in r.output
    assert r.exit_code in (2, 3), r.output  # the sample with the FIFO fails, the run ends
    from vcot.engine.results import results_table

    errors = [e for e in results_table(tmp_path / "run").column("error").to_pylist() if e]
    assert errors and all("not a regular file" in e for e in errors)


def test_suite_check_names_a_special_file(tmp_path: Path) -> None:
    from vcot.suite import SuiteError, check_image_file

    fifo = tmp_path / "x.png"
    os.mkfifo(fifo)
    with pytest.raises(SuiteError, match="a special file"):
        check_image_file(fifo, "where", decode=False)


# ---------------------------------------------------------------------------------- 4. a damaged run store


def _truncate(path: Path) -> None:
    os.truncate(path, path.stat().st_size // 2)


def _empty(path: Path) -> None:
    os.truncate(path, 0)


def _junk_header(path: Path) -> None:
    with open(path, "r+b") as fh:
        fh.write(b"this is not a database header!!!" * 4)


def _drop_samples(path: Path) -> None:
    conn = sqlite3.connect(path)
    conn.execute("DROP TABLE samples")
    conn.commit()
    conn.close()


DAMAGE = {
    "truncated": (_truncate, "truncated"),
    "emptied": (_empty, "the file is empty (0 bytes)"),
    "junk header": (_junk_header, "it is not an SQLite database"),
    "dropped table": (_drop_samples, "table samples missing"),
}


def _damaged_run(finished_run: Path, tmp_path: Path, how: str) -> Path:
    run = _copy_run(finished_run, tmp_path / "run")
    (run / "run.sqlite-wal").unlink(missing_ok=True)
    (run / "run.sqlite-shm").unlink(missing_ok=True)
    DAMAGE[how][0](run / "run.sqlite")
    return run


@pytest.mark.parametrize("how", list(DAMAGE))
def test_report_on_a_damaged_store(how: str, finished_run: Path, tmp_path: Path) -> None:
    run = _damaged_run(finished_run, tmp_path, how)
    _refused(
        runner.invoke(app, ["report", str(run), "--out", str(tmp_path / "rep")]),
        f"{run / 'run.sqlite'}: the run store is damaged",
        DAMAGE[how][1],
        "restore it from a backup",
        "rerun into a new folder",
    )


@pytest.mark.parametrize("how", list(DAMAGE))
def test_eval_resume_on_a_damaged_store(how: str, finished_run: Path, suite: Path, tmp_path: Path) -> None:
    run = _damaged_run(finished_run, tmp_path, how)
    before = (run / "run.sqlite").read_bytes()
    r = runner.invoke(app, ["eval", str(suite), "--run", str(run), "--no-progress", "-c", "direct"])
    _refused(r, f"{run / 'run.sqlite'}: the run store is damaged", DAMAGE[how][1])
    assert (run / "run.sqlite").read_bytes() == before  # left as it was, for a restore


@pytest.mark.parametrize("how", list(DAMAGE))
def test_trajectories_on_a_damaged_store(how: str, finished_run: Path, suite: Path, tmp_path: Path) -> None:
    run = _damaged_run(finished_run, tmp_path, how)
    _refused(
        runner.invoke(app, ["trajectories", str(run), "--suite", str(suite)]),
        f"{run / 'run.sqlite'}: the run store is damaged",
        DAMAGE[how][1],
    )


def test_a_stray_parquet_of_another_schema_is_named(finished_run: Path, tmp_path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    run = _copy_run(finished_run, tmp_path / "run", keep_results=True)
    pq.write_table(pa.table({"uid": ["a"], "note": ["mine"]}), run / "notes.parquet")
    _refused(
        runner.invoke(app, ["report", str(run), "--out", str(tmp_path / "rep")]),
        f"{run / 'notes.parquet'}: not a vcot results table (no column model, condition, answer_type, gold)",
    )


def test_a_parquet_that_is_no_parquet_is_named(finished_run: Path, tmp_path: Path) -> None:
    run = _copy_run(finished_run, tmp_path / "run", keep_results=True)
    (run / "results.parquet").write_bytes(b"garbage")
    _refused(
        runner.invoke(app, ["report", str(run), "--out", str(tmp_path / "rep")]),
        f"{run / 'results.parquet'}: not a readable Parquet file",
    )


# ----------------------------------------------------------------------------------------- 5. full disk


def test_eval_on_a_full_disk_stops_resumably(suite: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from vcot.engine.store import RunStore

    real = RunStore.record_many
    calls = {"n": 0}

    def full(self: RunStore, items: list) -> None:
        calls["n"] += 1
        raise OSError(errno.ENOSPC, "No space left on device", str(self.path))

    monkeypatch.setattr(RunStore, "record_many", full)
    run = tmp_path / "run"
    args = ["eval", str(suite), "--run", str(run), "--no-progress", "-c", "direct", "--concurrency", "1"]
    _refused(
        runner.invoke(app, args), f"no space left on device: {run / 'run.sqlite'}", "rerun the same command to resume"
    )
    monkeypatch.setattr(RunStore, "record_many", real)
    again = runner.invoke(app, args)
    assert again.exit_code == 0, again.output  # the same command, once there is room, runs to the end
    assert calls["n"] >= 1 and "3 answered" in _one_line(again.output)


def test_sqlite_disk_full_becomes_enospc(tmp_path: Path) -> None:
    from vcot.engine.store import disk_full

    exc = disk_full(sqlite3.OperationalError("database or disk is full"), tmp_path / "run.sqlite")
    assert exc is not None and exc.errno == errno.ENOSPC and exc.filename == str(tmp_path / "run.sqlite")


# --------------------------------------------------------------------------- 6. output folders never mixed


def _shards(out: Path, k: int, *extra: str) -> Any:
    return runner.invoke(
        app,
        ["generate", "--task", "toy_dots", "--n", "6", "--out", str(out), "--shards", str(k), "--no-progress", *extra],
    )


def test_shard_named_files_without_a_manifest_are_refused(tmp_path: Path) -> None:
    out = tmp_path / "set"
    out.mkdir()
    (out / "shard-00003.parquet").write_text("my own file")
    _refused(
        _shards(out, 2),
        "holds 1 file(s) named like shards (shard-00003.parquet, …) but no manifest.json",
        "--overwrite",
    )
    assert (out / "shard-00003.parquet").read_text() == "my own file"
    assert _shards(out, 2, "--overwrite").exit_code == 0
    assert sorted(p.name for p in out.glob("shard-*")) == ["shard-00000.parquet", "shard-00001.parquet"]


def test_fewer_shards_over_an_old_plan_removes_exactly_its_listed_shards(tmp_path: Path) -> None:
    out = tmp_path / "set"
    assert _shards(out, 6).exit_code == 0
    (out / "notes.txt").write_text("mine")
    _refused(_shards(out, 2), "holds shards of another plan", "--overwrite")
    r = _shards(out, 2, "--overwrite")
    assert r.exit_code == 0, r.output
    assert sorted(p.name for p in out.glob("shard-*")) == ["shard-00000.parquet", "shard-00001.parquet"]
    assert (out / "notes.txt").read_text() == "mine"
    import pyarrow.parquet as pq

    assert sum(pq.ParquetFile(p).metadata.num_rows for p in out.glob("shard-*.parquet")) == 6


def test_overwrite_goes_with_shards(tmp_path: Path) -> None:
    _refused(
        runner.invoke(app, ["generate", "--task", "toy_dots", "--out", str(tmp_path / "s"), "--overwrite"]),
        "--overwrite go with --shards",
    )


def _export(suite: Path, out: Path, *extra: str) -> Any:
    return runner.invoke(app, ["export-training", str(suite), "--format", "trl", "--out", str(out), *extra])


def test_training_export_refuses_a_folder_it_did_not_write(suite: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "README.md").write_text("my readme")
    _refused(_export(suite, out), "the folder is not empty and no vcot training export wrote it")
    assert (out / "README.md").read_text() == "my readme"


def test_training_export_again_removes_what_it_wrote_before(suite: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert _export(suite, out).exit_code == 0
    stale = out / "images" / "stale.png"
    listed = json.loads((out / ".vcot-training-export.json").read_text())["files"]
    old_image = out / next(f for f in listed if f.startswith("images/"))
    old_image.rename(stale)
    listed.append("images/stale.png")
    (out / ".vcot-training-export.json").write_text(json.dumps({"files": listed}))
    r = runner.invoke(app, ["export-training", str(suite), "--format", "sharegpt", "--out", str(out)])
    assert r.exit_code == 0, r.output
    assert not stale.exists() and not (out / "metadata.jsonl").exists()
    assert (out / "sharegpt.json").is_file() and old_image.is_file()


# ---------------------------------------------------------------------------- 7. dataset card front matter


def test_a_name_with_a_newline_injects_no_front_matter_key(tmp_path: Path) -> None:
    from vcot.export.training import Source, write_card

    name = "evil\nfoo: bar"
    path = write_card(tmp_path, Source(name, lambda: iter(())), "trl", {}, 0, "mit\nlicense_extra: x")
    text = path.read_text()
    head = text.split("\n---\n", 1)[0].removeprefix("---\n")
    meta = yaml.safe_load(head)
    assert set(meta) == {"license", "pretty_name", "task_categories", "tags"}
    assert meta["pretty_name"] == f"{name} (trl training export)"
    assert meta["license"] == "mit\nlicense_extra: x"
    assert "\nfoo: bar" not in text.split("\n---\n", 1)[1].split("## Files")[0]
