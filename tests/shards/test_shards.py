"""Sharded streaming generation (docs/scale.md): shard plan, formats readable by `datasets` and `webdataset`,
identical bytes whatever the process count or backend, resume after kill -9, and the CLI."""

from __future__ import annotations

import glob
import json
import os
import signal
import subprocess
import sys
import tarfile
import time
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from vcot.build import TaskPlan, build_suite
from vcot.cli import app
from vcot.shards import ShardError, generate_shards, read_manifest, shard_indices, verify_shards
from vcot.suite import read_suite

PLANS = [TaskPlan("localizer", 7, 0, "easy"), TaskPlan("mirror_pattern", 5, 1, "easy")]


def _files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_shard_plan_partitions_every_instance_and_keeps_paired_rows_together() -> None:
    plans = [TaskPlan("gear_rotation", 9, 0), TaskPlan("localizer", 10, 0)]  # gear_rotation: 2 rows a problem
    shards = [list(shard_indices(plans, 4, k)) for k in range(4)]
    seen = Counter((p.task, i) for shard in shards for p, i in shard)
    assert seen == Counter({**{("gear_rotation", i): 1 for i in range(9)}, **{("localizer", i): 1 for i in range(10)}})
    for shard in shards:
        gear = [i for p, i in shard if p.task == "gear_rotation"]
        for i in gear:  # rows 2p and 2p+1 of a problem land in the same shard
            assert i ^ 1 in gear or i ^ 1 >= 9
        assert {p.task for p, _ in shard} == {"gear_rotation", "localizer"}  # each shard mixes the tasks
    # gear problems 0..4 (problem 4 has one row) go to shards 0,1,2,3,0: 3,2,2,2 rows; localizer's problems are
    # global problems 5..14, so its indices 3,7 / 0,4,8 / 1,5,9 / 2,6 go to shards 0 / 1 / 2 / 3.
    assert [len(s) for s in shards] == [5, 5, 5, 4]


@pytest.mark.parametrize("fmt", ["parquet", "webdataset", "folder"])
def test_same_bytes_on_one_and_two_processes(tmp_path: Path, fmt: str) -> None:
    one = generate_shards(tmp_path / "p1", "mix", PLANS, 3, fmt, processes=1)
    two = generate_shards(tmp_path / "p2", "mix", PLANS, 3, fmt, processes=2)
    assert one == two and one["complete"] and one["total"] == 12
    assert one["counts"] == {"localizer": 7, "mirror_pattern": 5}
    assert _files(tmp_path / "p1") == _files(tmp_path / "p2")
    assert [e["count"] for e in one["shards"]] == [4, 4, 4]
    assert verify_shards(tmp_path / "p1") == []


def test_folder_shards_are_suites_holding_the_unsharded_instances(tmp_path: Path) -> None:
    generate_shards(tmp_path / "set", "mix", PLANS, 3, "folder")
    build_suite(tmp_path / "whole", "mix", PLANS)
    whole = read_suite(tmp_path / "whole")
    parts = [read_suite(d) for d in sorted((tmp_path / "set").glob("shard-*"))]
    uids = [i.uid for s in parts for i in s.instances]
    assert len(uids) == len(set(uids)) == len(whole)  # no uid twice across shards
    by_uid = {i.uid: i for i in whole.instances}
    for inst in (i for s in parts for i in s.instances):
        if "variant" not in inst.meta["generator"] and "variant" not in by_uid[inst.uid].meta["generator"]:
            assert inst == by_uid[inst.uid]


def test_parquet_shards_load_with_datasets(tmp_path: Path) -> None:
    import datasets

    generate_shards(tmp_path, "mix", PLANS, 2, "parquet")
    ds = datasets.load_dataset(
        "parquet",
        data_files=sorted(glob.glob(str(tmp_path / "*.parquet"))),
        split="train",
        cache_dir=str(tmp_path / "cache"),
    )
    assert len(ds) == 12 and len(set(ds["uid"])) == 12
    row = ds[0]
    assert row["image"].size[0] > 0 and len(row["step_images"]) == len(row["step_texts"]) > 0
    assert row["step_images"][0].mode in ("RGB", "RGBA", "P", "L")


def test_webdataset_shards_load_with_webdataset(tmp_path: Path) -> None:
    import webdataset as wds

    manifest = generate_shards(tmp_path, "mix", PLANS, 2, "webdataset")
    samples = list(wds.WebDataset(str(tmp_path / "shard-{00000..00001}.tar"), shardshuffle=False).decode("pil"))
    assert len(samples) == manifest["total"] == 12
    for s in samples:
        inst = json.loads(s["json"]) if isinstance(s["json"], bytes | str) else s["json"]
        assert s["__key__"] == inst["uid"].replace(".", "_")
        assert s["png"].size[0] > 0
        assert sum(1 for k in s if k.startswith("step")) == len(inst["steps"])
    with tarfile.open(tmp_path / "shard-00000.tar") as tar:
        assert {(m.mtime, m.uid, m.gid, m.uname) for m in tar.getmembers()} == {(0, 0, 0, "")}


def test_rerun_skips_finished_shards_and_redoes_partial_ones(tmp_path: Path) -> None:
    ref = generate_shards(tmp_path / "ref", "mix", PLANS, 3, "parquet")
    out = tmp_path / "out"
    generate_shards(out, "mix", PLANS, 3, "parquet")
    kept = (out / "shard-00000.parquet").stat().st_mtime_ns
    # An interrupted run: the manifest lists shard 0 only, shard 1 is half-written, shard 2's file is junk.
    manifest = json.loads((out / "manifest.json").read_text())
    manifest["shards"], manifest["complete"] = manifest["shards"][:1], False
    (out / "manifest.json").write_text(json.dumps(manifest))
    (out / "shard-00001.parquet").rename(out / "shard-00001.parquet.partial-1-ab12cd34")
    (out / "shard-00001.parquet.partial-1-ab12cd34").write_bytes(b"PAR1 half")
    (out / "shard-00002.parquet").write_bytes(b"junk")
    ticks: list[int] = []
    again = generate_shards(out, "mix", PLANS, 3, "parquet", progress=ticks.append)
    assert again == ref and _files(out) == _files(tmp_path / "ref")  # the partial file is gone too
    assert (out / "shard-00000.parquet").stat().st_mtime_ns == kept  # skipped, not rewritten
    assert ticks[0] == ref["shards"][0]["count"] and sum(ticks) == 12


def test_a_folder_of_another_plan_is_refused(tmp_path: Path) -> None:
    generate_shards(tmp_path, "mix", PLANS, 2, "parquet")
    with pytest.raises(ShardError, match="another plan"):
        generate_shards(tmp_path, "mix", PLANS, 3, "parquet")
    with pytest.raises(ShardError, match="empty"):
        generate_shards(tmp_path / "x", "mix", PLANS, 13, "parquet")


def test_verify_finds_a_changed_shard(tmp_path: Path) -> None:
    generate_shards(tmp_path, "mix", PLANS, 2, "webdataset")
    path = tmp_path / "shard-00001.tar"
    data = bytearray(path.read_bytes())
    data[700] ^= 1
    path.write_bytes(bytes(data))
    problems = verify_shards(tmp_path)
    assert len(problems) == 1 and "shard-00001.tar" in problems[0]


_KILL_SCRIPT = """
import sys
from vcot.build import TaskPlan
from vcot.shards import generate_shards
generate_shards(sys.argv[1], "mix", [TaskPlan("localizer", 12, 0, "easy"), TaskPlan("mirror_pattern", 12, 1, "easy")],
                6, "parquet")
"""


def test_kill_9_mid_run_then_rerun_gives_identical_output(tmp_path: Path) -> None:
    plans = [TaskPlan("localizer", 12, 0, "easy"), TaskPlan("mirror_pattern", 12, 1, "easy")]
    out = tmp_path / "killed"
    proc = subprocess.Popen([sys.executable, "-c", _KILL_SCRIPT, str(out)])
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and proc.poll() is None:
            manifest = read_manifest(str(out)) if (out / "manifest.json").exists() else None
            if manifest and manifest["shards"]:
                os.kill(proc.pid, signal.SIGKILL)
                break
            time.sleep(0.02)
    finally:
        proc.wait()
    assert proc.returncode == -signal.SIGKILL, "the run finished before it could be killed"
    interrupted = read_manifest(str(out))
    assert interrupted is not None and not interrupted["complete"] and 1 <= len(interrupted["shards"]) < 6
    done = {e["file"]: (out / e["file"]).stat().st_mtime_ns for e in interrupted["shards"]}
    again = generate_shards(out, "mix", plans, 6, "parquet")
    ref = generate_shards(tmp_path / "ref", "mix", plans, 6, "parquet")
    assert again == ref
    assert _files(out) == _files(tmp_path / "ref")
    assert all((out / f).stat().st_mtime_ns == t for f, t in done.items())


def test_ray_backend_writes_the_same_shards_as_local_processes(tmp_path: Path) -> None:
    import ray

    plans = [TaskPlan("localizer", 8, 0, "easy"), TaskPlan("mirror_pattern", 8, 1, "easy")]
    local = generate_shards(tmp_path / "local", "mix", plans, 4, "parquet", processes=2)
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        on_ray = generate_shards(tmp_path / "ray", "mix", plans, 4, "parquet", backend="ray")
    finally:
        ray.shutdown()
    assert [e["sha256"] for e in on_ray["shards"]] == [e["sha256"] for e in local["shards"]]
    assert on_ray == local and _files(tmp_path / "ray") == _files(tmp_path / "local")


def test_cli_generate_shards(tmp_path: Path) -> None:
    runner = CliRunner()
    out = tmp_path / "wds"
    res = runner.invoke(
        app,
        [
            "generate",
            "-t",
            "localizer",
            "-d",
            "easy",
            "--n",
            "4",
            "--shards",
            "2",
            "-f",
            "webdataset",
            "-o",
            str(out),
            "--no-progress",
        ],
    )
    assert res.exit_code == 0, res.output
    assert "4 instances" in res.output and sorted(p.name for p in out.iterdir()) == [
        "manifest.json",
        "shard-00000.tar",
        "shard-00001.tar",
    ]
    res = runner.invoke(app, ["generate", "-t", "localizer", "--n", "4", "-f", "webdataset", "-o", str(tmp_path / "x")])
    assert res.exit_code == 2 and "--shards" in res.output
    res = runner.invoke(
        app,
        [
            "generate",
            "-t",
            "localizer",
            "--n",
            "4",
            "--shards",
            "2",
            "-f",
            "zip",
            "-o",
            str(tmp_path / "y"),
            "--no-progress",
        ],
    )
    assert res.exit_code == 2 and "unknown shard format" in res.output


def test_a_file_uri_writes_the_same_set_as_a_path(tmp_path: Path) -> None:
    by_path = generate_shards(tmp_path / "a", "mix", PLANS, 2, "parquet")
    by_uri = generate_shards(f"file://{tmp_path / 'b'}", "mix", PLANS, 2, "parquet")
    assert by_uri == by_path and _files(tmp_path / "a") == _files(tmp_path / "b")
