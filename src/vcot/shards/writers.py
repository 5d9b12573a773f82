"""Write one shard, streaming: instances go to the file as they are made, so memory does not grow with the
shard (beyond the scene keys that keep a shard free of repeated scenes).

Every writer is deterministic: the same instances give the same bytes (fixed Parquet options and row
groups; tar members with fixed mtime, owner and mode, in instance order), so a shard's sha256 is the same
whatever process or Ray worker wrote it.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tarfile
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vcot.build import iter_encoded_jobs, task_manifest_entry, unique_scenes
from vcot.shards.plan import ShardJob, shard_file, shard_indices
from vcot.suite import EncodedSample, write_suite

PARTIAL = ".partial"  # marks a shard being written: `<name>.partial-<writer>`, renamed to `<name>` when complete


def partial_name(name: str) -> str:
    """A name of its own for each writer: a writer left over from a killed run (a Ray task, a worker that
    outlived its driver) can then never write into the file a rerun is writing; both produce the same bytes,
    so whichever renames last leaves the same shard."""
    return f"{name}{PARTIAL}-{os.getpid()}-{uuid.uuid4().hex[:8]}"


@dataclass
class ShardResult:
    """The manifest entry of a finished shard."""

    index: int
    file: str
    count: int
    counts: dict[str, int]
    sha256: str
    bytes: int
    uids_sha256: str  # over the shard's uids in order

    def to_json(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "file": self.file,
            "count": self.count,
            "counts": self.counts,
            "sha256": self.sha256,
            "bytes": self.bytes,
            "uids_sha256": self.uids_sha256,
        }


class _Tally:
    """Counts, uids digest and progress ticks of the instances passing through."""

    def __init__(self, tick: Callable[[int], None] | None) -> None:
        self.counts: Counter[str] = Counter()
        self.uids = hashlib.sha256()
        self.tick = tick

    def pass_through(self, encoded: Iterator[EncodedSample]) -> Iterator[EncodedSample]:
        for enc in encoded:
            self.counts[enc.instance.task] += 1
            self.uids.update(enc.instance.uid.encode() + b"\n")
            if self.tick is not None:
                self.tick(1)
            yield enc


def shard_samples(job: ShardJob) -> Iterator[EncodedSample]:
    """The shard's instances in order, with repeated scenes within the shard replaced by fresh draws."""
    plans = list(job.plans)
    return unique_scenes(plans, iter_encoded_jobs(shard_indices(job.plans, job.shards, job.index)))


class _HashingSink:
    """A write-only file object that hashes and counts what passes to the underlying stream."""

    def __init__(self, raw: Any) -> None:
        self.raw = raw
        self.sha = hashlib.sha256()
        self.size = 0
        self.closed = False

    def write(self, data: bytes | memoryview) -> int:
        data = bytes(data)
        self.sha.update(data)
        self.size += len(data)
        self.raw.write(data)
        return len(data)

    def tell(self) -> int:
        return self.size

    def flush(self) -> None:
        pass

    def writable(self) -> bool:
        return True

    def close(self) -> None:
        if not self.closed:
            self.raw.close()
            self.closed = True


def _open_fs(out: str) -> tuple[Any, str]:
    from pyarrow.fs import FileSystem

    return FileSystem.from_uri(out)


def write_shard(job: ShardJob, tick: Callable[[int], None] | None = None) -> dict[str, Any]:
    """Write shard `job.index` under `job.out` (as `<name>.partial`, renamed when complete); return its
    manifest entry."""
    tally = _Tally(tick)
    samples = tally.pass_through(shard_samples(job))
    name = shard_file(job.index, job.fmt)
    if job.fmt == "folder":
        sha, size = _write_folder(job, samples, name)
    else:
        fs, root = _open_fs(job.out)
        final = f"{root}/{name}"
        partial = f"{root}/{partial_name(name)}"
        sink = _HashingSink(fs.open_output_stream(partial))
        try:
            if job.fmt == "parquet":
                _write_parquet(job, samples, sink)
            else:
                _write_tar(samples, sink)
        finally:
            sink.close()
        fs.move(partial, final)
        sha, size = "sha256:" + sink.sha.hexdigest(), sink.size
    count = sum(tally.counts.values())
    return ShardResult(
        job.index,
        name,
        count,
        dict(sorted(tally.counts.items())),
        sha,
        size,
        uids_sha256="sha256:" + tally.uids.hexdigest(),
    ).to_json()


def _write_parquet(job: ShardJob, samples: Iterator[EncodedSample], sink: _HashingSink) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    # The Parquet exporter's columns and `datasets` feature metadata (docs/exporters.md): a shard reads
    # like an exported suite.
    from vcot.export.parquet import _FEATURES, _SCHEMA

    schema = _SCHEMA.with_metadata(
        {
            "huggingface": json.dumps({"info": {"features": _FEATURES}}),
            "vcot": json.dumps({"shard_set": job.name, "shard": job.index, "shards": job.shards}),
        }
    )
    # Options spelled out so that a change of pyarrow's defaults cannot change the bytes silently.
    options: dict[str, Any] = {
        "compression": "snappy",
        "use_dictionary": True,
        "write_statistics": True,
        "data_page_version": "1.0",
        "version": "2.6",
    }
    with pq.ParquetWriter(pa.PythonFile(sink, mode="w"), schema, **options) as writer:
        batch: list[dict[str, Any]] = []
        for enc in samples:
            batch.append(_parquet_row(enc))
            if len(batch) >= job.rows_per_group:
                writer.write_table(pa.Table.from_pylist(batch, schema=schema))
                batch = []
        if batch:
            writer.write_table(pa.Table.from_pylist(batch, schema=schema))


def _parquet_row(enc: EncodedSample) -> dict[str, Any]:
    inst = enc.instance

    def img(rel: str) -> dict[str, Any]:
        return {"bytes": enc.pngs[rel], "path": rel}

    return {
        "uid": inst.uid,
        "task": inst.task,
        "domain": inst.domain,
        "question": inst.question,
        "answer": inst.answer,
        "answer_type": str(inst.answer_type),
        "options": inst.options,
        "image": img(inst.image),
        "step_images": [img(s.image) for s in inst.steps],
        "step_texts": [s.text for s in inst.steps],
        "meta": json.dumps(inst.meta, sort_keys=True, ensure_ascii=False),
    }


def wds_key(uid: str) -> str:
    """The WebDataset sample key of a uid: `webdataset` splits a member name at its first dot, so the dot
    of a paired row's uid (`task-0-000001.2`) becomes `_`; the JSON member keeps the real uid."""
    return uid.replace(".", "_")


def wds_members(enc: EncodedSample) -> list[tuple[str, bytes]]:
    """(member name, bytes) of one instance: `<key>.json` (the vcot Instance), `<key>.png` (question image),
    `<key>.step<k>.png` and `<key>.corrupt<k>.png`."""
    inst = enc.instance
    key = wds_key(inst.uid)
    members = [(f"{key}.json", (inst.to_json() + "\n").encode()), (f"{key}.png", enc.pngs[inst.image])]
    members += [(f"{key}.step{k}.png", enc.pngs[s.image]) for k, s in enumerate(inst.steps, start=1)]
    members += [(f"{key}.corrupt{k}.png", enc.pngs[s.image]) for k, s in enumerate(inst.corrupted_steps, start=1)]
    return members


def _write_tar(samples: Iterator[EncodedSample], sink: _HashingSink) -> None:
    import io

    # Stream mode ("w|") writes each member as it comes and never seeks, so any output stream will do.
    with tarfile.open(fileobj=sink, mode="w|", format=tarfile.GNU_FORMAT) as tar:
        for enc in samples:
            for member, data in wds_members(enc):
                info = tarfile.TarInfo(member)
                info.size, info.mtime, info.mode = len(data), 0, 0o644
                info.uid = info.gid = 0
                info.uname = info.gname = ""
                tar.addfile(info, io.BytesIO(data))


def _write_folder(job: ShardJob, samples: Iterator[EncodedSample], name: str) -> tuple[str, int]:
    """A shard as a vcot suite folder (readable by every suite command); local paths only."""
    root = Path(job.out)
    final, partial = root / name, root / partial_name(name)
    tasks = {p.task: task_manifest_entry(p) for p in job.plans}
    write_suite(
        partial,
        f"{job.name}-{job.index:05d}",
        samples,
        tasks=tasks,
        extra={"shard": {"index": job.index, "shards": job.shards}},
    )
    if final.exists():  # left by a run killed between its rename and its manifest entry: redone
        shutil.rmtree(final)
    os.replace(partial, final)
    return folder_digest(final)


def folder_digest(folder: Path) -> tuple[str, int]:
    """sha256 over the folder's files (relative path and content digest, in path order) and their bytes."""
    sha = hashlib.sha256()
    size = 0
    files = sorted(p for p in folder.rglob("*") if p.is_file())
    for path in files:
        data = path.read_bytes()
        size += len(data)
        sha.update(f"{path.relative_to(folder).as_posix()}\0{hashlib.sha256(data).hexdigest()}\n".encode())
    return "sha256:" + sha.hexdigest(), size
