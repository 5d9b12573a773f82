"""Generate a shard set: plan the shards, skip those the manifest records as finished, write the rest on
local processes or Ray tasks, and keep `manifest.json` up to date after every shard.

Only the driver writes the manifest (workers return their entries), and it does so atomically after each
shard, so after a kill the manifest lists exactly the shards that were finished; a rerun skips those whose
file is present with the recorded size and redoes the others (a `.partial` file or folder is rewritten).
"""

from __future__ import annotations

import json
import multiprocessing as mp
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from vcot.build import TaskPlan
from vcot.shards.plan import (
    BACKENDS,
    ShardError,
    ShardJob,
    check_layout,
    fingerprint,
    plan_record,
    shard_file,
)
from vcot.shards.writers import PARTIAL, write_shard
from vcot.worker_signals import init_worker_signals

MANIFEST = "manifest.json"
MANIFEST_FORMAT = 1

Tick = Callable[[int], None]


def resolve_out(out: str | Path) -> str:
    """A URI pyarrow's filesystems accept (`s3://…`, `gs://…`, `hdfs://…`, `file://…`) stays as it is; a
    plain path becomes absolute, so that every worker writes to the same place."""
    text = str(out)
    if text.startswith("file://"):  # a local path after all: folder shards need it as one
        return _fs(text)[1]
    return text if "://" in text else str(Path(text).expanduser().resolve())


def _fs(out: str) -> tuple[Any, str]:
    from pyarrow.fs import FileSystem

    return FileSystem.from_uri(out)


def _is_local(out: str) -> bool:
    from pyarrow.fs import LocalFileSystem

    return isinstance(_fs(out)[0], LocalFileSystem)


def read_manifest(out: str) -> dict[str, Any] | None:
    from pyarrow.fs import FileType

    fs, root = _fs(out)
    path = f"{root}/{MANIFEST}"
    if fs.get_file_info(path).type != FileType.File:
        return None
    with fs.open_input_stream(path) as fh:
        data = fh.read()
    try:
        manifest = json.loads(data)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ShardError(f"{out}/{MANIFEST}: not a shard manifest ({exc}); use a new folder") from None
    if not isinstance(manifest, dict) or manifest.get("kind") != "vcot-shards":
        raise ShardError(f"{out}/{MANIFEST}: not a vcot shard-set manifest; use a new folder")
    return manifest


def _write_manifest(out: str, manifest: dict[str, Any]) -> None:
    fs, root = _fs(out)
    path = f"{root}/{MANIFEST}"
    with fs.open_output_stream(path + ".tmp") as fh:
        fh.write((json.dumps(manifest, indent=2, sort_keys=True) + "\n").encode())
    fs.move(path + ".tmp", path)  # a rename on local disks: a kill leaves the old or the new manifest


def _finished(out: str, entry: dict[str, Any]) -> bool:
    """The shard file is there with the size its entry records (hashing every shard again would cost a full
    read of the set; `verify_shards` does that)."""
    from pyarrow.fs import FileType

    fs, root = _fs(out)
    info = fs.get_file_info(f"{root}/{entry['file']}")
    if info.type == FileType.Directory:
        from vcot.shards.writers import folder_digest

        return folder_digest(Path(root) / entry["file"])[1] == entry["bytes"]
    return info.type == FileType.File and info.size == entry["bytes"]


def _manifest(record: dict[str, Any], entries: dict[int, dict[str, Any]], complete: bool) -> dict[str, Any]:
    counts: dict[str, int] = {}
    for entry in entries.values():
        for task, k in entry["counts"].items():
            counts[task] = counts.get(task, 0) + k
    return {
        "kind": "vcot-shards",
        "format": MANIFEST_FORMAT,
        "name": record["name"],
        "shard_format": record["format"],
        "plan": record,
        "fingerprint": fingerprint(record),
        "complete": complete,
        "shards": [entries[k] for k in sorted(entries)],
        "counts": dict(sorted(counts.items())),
        "total": sum(counts.values()),
    }


def generate_shards(
    out: str | Path,
    name: str,
    plans: list[TaskPlan],
    shards: int,
    fmt: str = "parquet",
    backend: str = "local",
    processes: int = 1,
    ray_address: str | None = None,
    progress: Tick | None = None,
    rows_per_group: int = 256,
    overwrite: bool = False,
) -> dict[str, Any]:
    """Write `plans` as `shards` shards of format `fmt` under `out`, resuming an interrupted run of the same
    plan; returns the final manifest. A folder holding another plan's shards, or shard-named files without a
    manifest, is refused unless `overwrite`, which first deletes those shards (and only those). `progress` is called
    with the number of instances just written
    (per instance on one local process, per shard otherwise, after the finished shards of an earlier run)."""
    check_layout(plans, shards, fmt)
    if backend not in BACKENDS:
        raise ShardError(f"unknown backend {backend!r}; choose {' or '.join(BACKENDS)}")
    if processes < 1:
        raise ShardError(f"processes must be at least 1, got {processes}")
    target = resolve_out(out)
    if fmt == "folder" and not _is_local(target):
        raise ShardError(
            f"{out}: the folder format writes suite folders on a local disk; use parquet or "
            "webdataset for a remote filesystem"
        )
    record = plan_record(name, plans, shards, fmt)
    entries = _resume(target, record, overwrite)
    fs, root = _fs(target)
    fs.create_dir(root, recursive=True)
    _remove_partials(target)
    if progress is not None and entries:
        progress(sum(e["count"] for e in entries.values()))
    jobs = [
        ShardJob(target, name, tuple(plans), shards, k, fmt, rows_per_group) for k in range(shards) if k not in entries
    ]

    def done(entry: dict[str, Any]) -> None:
        entries[entry["index"]] = entry
        _write_manifest(target, _manifest(record, entries, complete=False))

    if jobs:
        _write_manifest(target, _manifest(record, entries, complete=False))
    if backend == "ray":
        run_ray(jobs, ray_address, done, progress)
    else:
        run_local(jobs, processes, done, progress)
    manifest = _manifest(record, entries, complete=True)
    _write_manifest(target, manifest)
    return manifest


def _remove_partials(out: str) -> None:
    """Delete what interrupted runs left half-written (`<shard>.partial-<writer>` files and folders)."""
    import shutil

    from pyarrow.fs import FileSelector, FileType

    fs, root = _fs(out)
    for info in fs.get_file_info(FileSelector(root, allow_not_found=True)):
        if PARTIAL + "-" in info.base_name:
            if info.type == FileType.Directory:
                shutil.rmtree(info.path)  # folder shards live on local disks only
            else:
                fs.delete_file(info.path)


_SHARD_NAME = re.compile(r"shard-\d{5}(?:\.parquet|\.tar)?")


def _shard_named(out: str) -> list[Any]:
    """What in the folder has a shard's name (of any format): FileInfo entries, in name order."""
    from pyarrow.fs import FileSelector

    fs, root = _fs(out)
    found = fs.get_file_info(FileSelector(root, allow_not_found=True))
    return sorted((i for i in found if _SHARD_NAME.fullmatch(i.base_name)), key=lambda i: i.base_name)


def _delete(out: str, infos: list[Any]) -> None:
    import shutil

    from pyarrow.fs import FileType

    fs, _ = _fs(out)
    for info in infos:
        if info.type == FileType.Directory:
            shutil.rmtree(info.path)  # folder shards live on local disks only
        elif info.type == FileType.File:
            fs.delete_file(info.path)


def _resume(out: str, record: dict[str, Any], overwrite: bool = False) -> dict[int, dict[str, Any]]:
    """Entries of the shards an earlier run of the same plan finished. Without `overwrite`, a folder with
    another plan, or with shard-named files but no manifest, is refused: a glob over the folder would read the
    stale shards with the new ones, and a user's own file of a shard's name would be overwritten."""
    from pyarrow.fs import FileSelector

    manifest = read_manifest(out)
    if manifest is None:
        strays = _shard_named(out)
        if strays and not overwrite:
            raise ShardError(
                f"{out} holds {len(strays)} file(s) named like shards ({strays[0].base_name}, …) but no "
                f"{MANIFEST}: they are not this shard set's; write to a new folder, or pass --overwrite "
                "to delete them first"
            )
        _delete(out, strays)
        return {}
    if manifest.get("fingerprint") != fingerprint(record):
        if not overwrite:
            raise ShardError(
                f"{out} holds shards of another plan (tasks, counts, parameters, shard count, format "
                "or vcot version differ); write to a new folder, or pass --overwrite to replace them"
            )
        # Exactly the files the old manifest lists: with fewer shards now, the rest would stay and be read.
        fs, root = _fs(out)
        listed = {str(e.get("file")) for e in manifest.get("shards", []) if isinstance(e, dict)}
        found = fs.get_file_info(FileSelector(root, allow_not_found=True))
        _delete(out, [i for i in found if i.base_name in listed and _SHARD_NAME.fullmatch(i.base_name)])
        fs.delete_file(f"{root}/{MANIFEST}")
        return {}
    entries = {}
    for entry in manifest.get("shards", []):
        if entry.get("file") == shard_file(entry.get("index", -1), record["format"]) and _finished(out, entry):
            entries[entry["index"]] = entry
    return entries


# -- local processes ----------------------------------------------------------------------------------

_counter: Any = None  # a worker's shared instance counter (set by the pool initializer)


def _init_worker(counter: Any) -> None:
    global _counter
    _counter = counter
    init_worker_signals()


def _tick_shared(k: int) -> None:
    with _counter.get_lock():
        _counter.value += k


def _pool_shard(job: ShardJob) -> dict[str, Any]:
    return write_shard(job, _tick_shared)


def run_local(
    jobs: list[ShardJob], processes: int, done: Callable[[dict[str, Any]], None], progress: Tick | None
) -> None:
    """Shards on `processes` worker processes (in this process when 1), one shard per worker process so that
    a worker's memory never carries over from one shard to the next."""
    if processes == 1 or len(jobs) <= 1:
        for job in jobs:
            done(write_shard(job, progress))
        return
    ctx = mp.get_context()
    counter = ctx.Value("q", 0)
    shown = 0
    with ctx.Pool(min(processes, len(jobs)), initializer=_init_worker, initargs=(counter,), maxtasksperchild=1) as pool:
        pending = [pool.apply_async(_pool_shard, (job,)) for job in jobs]
        while pending:
            pending[0].wait(0.25)
            for result in [r for r in pending if r.ready()]:
                pending.remove(result)
                done(result.get())  # re-raises a worker's error here
            if progress is not None and counter.value > shown:
                now = counter.value
                progress(now - shown)
                shown = now


# -- Ray ------------------------------------------------------------------------------------------------


def run_ray(
    jobs: list[ShardJob], address: str | None, done: Callable[[dict[str, Any]], None], progress: Tick | None
) -> None:
    """Shards as Ray tasks (one CPU each) on the cluster at `address`, or on a Ray already initialised in this
    process, or else on a local Ray started (and stopped) here."""
    import ray

    started = False
    if not ray.is_initialized():
        # A local Ray needs no dashboard; a cluster's own settings are left alone.
        ray.init(address=address, log_to_driver=False, **({"include_dashboard": False} if address is None else {}))
        started = True
    try:
        task = ray.remote(num_cpus=1, max_retries=2)(write_shard)
        refs = [task.remote(job) for job in jobs]
        while refs:
            ready, refs = ray.wait(refs, num_returns=1)
            entry = ray.get(ready[0])
            if progress is not None:
                progress(entry["count"])
            done(entry)
    finally:
        if started:
            ray.shutdown()


def verify_shards(out: str | Path) -> list[str]:
    """Problems found by re-hashing every shard against the manifest (empty when all agree)."""
    from vcot.shards.writers import folder_digest

    target = resolve_out(out)
    manifest = read_manifest(target)
    if manifest is None:
        return [f"{out}: no {MANIFEST}"]
    fs, root = _fs(target)
    problems = [] if manifest.get("complete") else [f"{out}: the run is unfinished (rerun the same command)"]
    for entry in manifest["shards"]:
        if manifest["shard_format"] == "folder":
            sha, _ = folder_digest(Path(root) / entry["file"])
        else:
            import hashlib

            h = hashlib.sha256()
            with fs.open_input_stream(f"{root}/{entry['file']}") as fh:
                while chunk := fh.read(1 << 20):
                    h.update(chunk)
            sha = "sha256:" + h.hexdigest()
        if sha != entry["sha256"]:
            problems.append(f"{entry['file']}: sha256 {sha} differs from the manifest's {entry['sha256']}")
    return problems
