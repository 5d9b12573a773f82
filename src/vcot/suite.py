"""Suites on disk: a folder with `manifest.json`, `instances.jsonl` and PNG images under it.

Layout::

    suite/
      manifest.json       name, vcot version, per-task parameters and seeds, counts, content hash
      instances.jsonl     one Instance per line (canonical JSON)
      images/<task>/...   PNG files referenced by relative paths

The content hash covers every instance's canonical JSON and the *decoded* pixels of every image it
references, so it does not depend on the zlib build that compressed the PNGs.
Reading validates everything and names the file and line of any problem.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import stat
import struct
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from PIL import Image, UnidentifiedImageError
from pydantic import ValidationError

from vcot.draw.png import encode_png_and_digest, pixel_digest
from vcot.jsonl import MAX_LINE_BYTES, iter_jsonl_text, loads_checked
from vcot.schema import Instance
from vcot.tasks.base import Sample
from vcot.version import __version__

MANIFEST = "manifest.json"
INSTANCES = "instances.jsonl"
FORMAT_VERSION = 1
# Refuse images larger than this many pixels before decoding them (decompression bombs).
MAX_IMAGE_PIXELS = 40_000_000
MAX_IMAGE_SIDE = 16_384
MAX_IMAGE_BYTES = 64 * 1024 * 1024
MAX_MANIFEST_BYTES = MAX_LINE_BYTES
# Names that become folder or file names (task names: `<task>/` in the MIRA layout, `images/<task>/`): one
# path component, so that no name can climb out of the folder it is written into.
_SAFE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,127}")


class SuiteError(ValueError):
    """A suite folder is malformed; the message names the file (and line) at fault."""


@dataclass
class Suite:
    root: Path
    manifest: dict[str, Any]
    instances: list[Instance]
    _by_uid: dict[str, Instance] = field(default_factory=dict, repr=False)
    _root_real: Path | None = field(default=None, repr=False)
    _dir_real: dict[str, str] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self._by_uid = {inst.uid: inst for inst in self.instances}

    @property
    def name(self) -> str:
        return str(self.manifest.get("name", self.root.name))

    @property
    def content_hash(self) -> str:
        return str(self.manifest.get("content_hash", ""))

    def __len__(self) -> int:
        return len(self.instances)

    def __iter__(self) -> Iterator[Instance]:
        return iter(self.instances)

    def get(self, uid: str) -> Instance:
        try:
            return self._by_uid[uid]
        except KeyError:
            raise KeyError(f"no instance with uid {uid!r} in suite {self.root}") from None

    def first_per_task(self, k: int) -> list[str]:
        """The uids of the first `k` instances of every task, in suite order."""
        seen: dict[str, int] = {}
        uids = []
        for inst in self.instances:
            if seen.get(inst.task, 0) < k:
                seen[inst.task] = seen.get(inst.task, 0) + 1
                uids.append(inst.uid)
        return uids

    def image_path(self, rel: str) -> Path:
        """Absolute path of an image inside the suite; SuiteError when `rel` escapes the folder."""
        if self._root_real is None:
            self._root_real = self.root.resolve()
        where = f"{self.root / INSTANCES}"
        check_relative(rel, where)
        # Resolving every component of every path was a tenth of a request's CPU; a folder's real path is
        # resolved (and checked) once, and only the file itself is looked at each time.
        head, _, name = rel.rpartition("/")
        real_dir = self._dir_real.get(head)
        if real_dir is None:
            real_dir = str(resolve_inside(self.root, head, where, self._root_real)) if head else str(self._root_real)
            self._dir_real[head] = real_dir
        path = os.path.join(real_dir, name)
        try:
            linked = stat.S_ISLNK(os.lstat(path).st_mode)
        except OSError:
            linked = False  # a missing file fails where it is read, with the reader's message
        return resolve_inside(self.root, rel, where, self._root_real) if linked else Path(path)

    def load_image(self, rel: str) -> Image.Image:
        return load_image_checked(self.image_path(rel))


def check_name(name: object, where: str, what: str = "task") -> str:
    """`name` if it is safe as one path component; else SuiteError naming `where` and the field."""
    if not isinstance(name, str) or not _SAFE_NAME.fullmatch(name):
        raise SuiteError(
            f"{where}: {what} name {name!r} is not allowed (1-128 letters, digits, '_', '-' or '.', "
            "starting with a letter or digit), since it becomes a folder or file name"
        )
    return name


def check_relative(rel: str, where: str) -> None:
    """Reject an image path that names a place outside the folder by its spelling (absolute, `..`)."""
    if not rel or rel.startswith("/") or "\\" in rel or ".." in rel.split("/"):
        raise SuiteError(f"{where}: image path {rel!r} escapes the suite folder")


def resolve_inside(root: Path, rel: str, where: str, root_real: Path | None = None) -> Path:
    """Absolute path of `rel` under `root`; rejects paths that escape the folder (also via symlinks).
    `root_real` is `root.resolve()` when the caller already knows it."""
    check_relative(rel, where)
    root_s = str(root_real or root.resolve())
    # On strings: pathlib's resolve and parents cost more than the rest of preparing a request.
    path_s = os.path.realpath(os.path.join(root_s, rel))
    if path_s != root_s and not path_s.startswith(root_s.rstrip(os.sep) + os.sep):
        raise SuiteError(f"{where}: image path {rel!r} escapes the suite folder")
    return Path(path_s)


def _png_header_size(path: Path) -> tuple[int, int] | None:
    """Width and height from a PNG IHDR without decoding; None for other formats."""
    with open(path, "rb") as fh:
        head = fh.read(24)
    if len(head) == 24 and head[:8] == b"\x89PNG\r\n\x1a\n" and head[12:16] == b"IHDR":
        return struct.unpack(">II", head[16:24])
    return None


def check_image_file(path: Path, where: str, decode: bool) -> tuple[int, int]:
    """Validate an image file; returns its size. `decode` fully decodes it (slower, catches truncation)."""
    if not path.is_file():
        # A FIFO or device is no image: named as such, never opened (a FIFO's reader blocks for ever).
        special = path.exists() and not path.is_dir()
        raise SuiteError(
            f"{where}: image file {path.name!r} is "
            f"{'a special file (FIFO or device), not a regular file; refused' if special else 'missing'}"
        )
    nbytes = path.stat().st_size
    if nbytes > MAX_IMAGE_BYTES:
        raise SuiteError(f"{where}: image {path.name!r} is {nbytes} bytes, over the {MAX_IMAGE_BYTES} limit")
    try:
        size = _png_header_size(path)
        if size is None:
            with Image.open(path) as im:
                size = im.size
        w, h = size
        if w <= 0 or h <= 0 or w > MAX_IMAGE_SIDE or h > MAX_IMAGE_SIDE or w * h > MAX_IMAGE_PIXELS:
            raise SuiteError(
                f"{where}: image {path.name!r} declares {w}x{h} pixels — refused as a possible "
                f"decompression bomb (limit {MAX_IMAGE_PIXELS} pixels, {MAX_IMAGE_SIDE} per side)"
            )
        if decode:
            with Image.open(path) as im:
                im.load()
        else:
            with Image.open(path) as im:
                im.verify()
    except SuiteError:
        raise
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError, Image.DecompressionBombError) as exc:
        raise SuiteError(f"{where}: image {path.name!r} is corrupt or unreadable: {exc}") from None
    return size


def load_image_checked(path: Path) -> Image.Image:
    check_image_file(path, str(path), decode=False)
    try:
        with Image.open(path) as im:
            im.load()
            return im.convert("RGB") if im.mode != "RGB" else im.copy()
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError, Image.DecompressionBombError) as exc:
        raise SuiteError(f"{path}: image {path.name!r} is corrupt or unreadable: {exc}") from None


class _Hasher:
    def __init__(self) -> None:
        self._h = hashlib.sha256()

    def add_instance(self, inst: Instance, digests: dict[str, str]) -> None:
        self._h.update(inst.to_json().encode())
        self._h.update(b"\n")
        for rel in inst.image_paths():
            self._h.update(f"{rel}={digests[rel]}\n".encode())

    def hexdigest(self) -> str:
        return "sha256:" + self._h.hexdigest()


def _atomic_write_text(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


@dataclass
class EncodedSample:
    """A sample with its images already PNG-encoded (what worker processes send back)."""

    instance: Instance
    pngs: dict[str, bytes]
    digests: dict[str, str]

    @classmethod
    def from_sample(cls, sample: Sample) -> EncodedSample:
        pngs: dict[str, bytes] = {}
        digests: dict[str, str] = {}
        for rel, img in sample.images.items():
            pngs[rel], digests[rel] = encode_png_and_digest(img)
        return cls(sample.instance, pngs, digests)


def write_suite(
    out_dir: str | Path,
    name: str,
    samples: Iterable[Sample | EncodedSample],
    tasks: dict[str, dict[str, Any]] | None = None,
    extra: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Write samples as a suite folder and return its manifest.

    `tasks` records per-task generation settings (seed, difficulty, params, generator version); tasks
    that appear in the samples but not in `tasks` are recorded with `{"source": "given"}`.
    The manifest is written last, so a folder without one is an unfinished write.
    """
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise SuiteError(f"{out}: exists and is not a folder")
    out.mkdir(parents=True, exist_ok=True)
    manifest_path = out / MANIFEST
    # Only a folder that already held a suite (finished or interrupted) is pruned of images the new suite
    # does not reference; any other folder keeps whatever it had.
    was_suite = any((out / n).exists() for n in (MANIFEST, INSTANCES, INSTANCES + ".tmp"))
    if manifest_path.exists():
        manifest_path.unlink()
    written: set[str] = set()
    hasher = _Hasher()
    counts: Counter[str] = Counter()
    uids: set[str] = set()
    lines_path = out / (INSTANCES + ".tmp")
    with open(lines_path, "w", encoding="utf-8") as fh:
        for item in samples:
            enc = item if isinstance(item, EncodedSample) else EncodedSample.from_sample(item)
            inst = enc.instance
            if inst.uid in uids:
                raise SuiteError(f"duplicate uid {inst.uid!r} while writing suite {name!r}")
            uids.add(inst.uid)
            check_name(inst.task, f"instance {inst.uid} (field 'task')")
            for rel in inst.image_paths():
                if rel not in enc.pngs:
                    raise SuiteError(f"instance {inst.uid}: image {rel!r} referenced but not provided")
                target = resolve_inside(out, rel, where=f"instance {inst.uid}")
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(enc.pngs[rel])
                written.add(rel)
            hasher.add_instance(inst, enc.digests)
            fh.write(inst.to_json() + "\n")
            counts[inst.task] += 1
    os.replace(lines_path, out / INSTANCES)
    if was_suite:
        _prune_images(out, written)
    task_info = {t: dict((tasks or {}).get(t, {"source": "given"})) for t in sorted(counts)}
    manifest = {
        "format": FORMAT_VERSION,
        "name": name,
        "vcot_version": __version__,
        "tasks": task_info,
        "counts": dict(sorted(counts.items())),
        "total": sum(counts.values()),
        "content_hash": hasher.hexdigest(),
    }
    if extra:
        manifest.update(extra)
    _atomic_write_text(manifest_path, json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    return manifest


def _prune_images(out: Path, keep: set[str]) -> None:
    """Delete PNG files under `out/images` that the suite just written does not reference (left by an
    earlier suite in the same folder, or by an interrupted write), then the folders that became empty."""
    images = out / "images"
    if not images.is_dir() or images.is_symlink():
        return
    keep_paths = {os.path.normpath(out / rel) for rel in keep}
    for folder, _dirs, files in os.walk(images, topdown=False):  # symlinked folders are not entered
        for name in files:
            path = os.path.join(folder, name)
            if name.lower().endswith(".png") and os.path.normpath(path) not in keep_paths:
                os.unlink(path)
        if folder != str(images):
            with contextlib.suppress(OSError):  # not empty: kept
                os.rmdir(folder)


def _read_manifest(root: Path) -> dict[str, Any]:
    path = root / MANIFEST
    if not root.is_dir():
        raise SuiteError(f"{root}: suite folder not found")
    if not path.is_file():
        raise SuiteError(f"{path}: manifest missing (not a suite folder, or an unfinished write)")
    size = path.stat().st_size
    if size > MAX_MANIFEST_BYTES:
        raise SuiteError(f"{path}: {size} bytes, over the {MAX_MANIFEST_BYTES}-byte limit for a manifest")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise SuiteError(f"{path}: not UTF-8 text ({exc})") from None
    try:
        manifest = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SuiteError(f"{path}: malformed JSON at line {exc.lineno}: {exc.msg}") from None
    except (ValueError, RecursionError):
        manifest = loads_checked(text, str(path), SuiteError)  # raises, naming the reason
    if not isinstance(manifest, dict):
        raise SuiteError(f"{path}: manifest must be a JSON object")
    if manifest.get("kind") == "vcot-shards":
        # Its manifest has no 'tasks' either; "lacks field 'tasks'" would read as a corrupted suite.
        raise SuiteError(_shard_set_message(root, manifest))
    for key in ("name", "tasks", "content_hash"):
        if key not in manifest:
            raise SuiteError(f"{path}: manifest lacks field {key!r}")
    if not isinstance(manifest["tasks"], dict):
        raise SuiteError(f"{path}: field 'tasks' must be an object")
    for task in manifest["tasks"]:
        check_name(task, f"{path} (field 'tasks')")
    return manifest


def _shard_set_message(root: Path, manifest: dict[str, Any]) -> str:
    """What to do with a shard set (`vcot generate --shards`) given where a suite is expected: how its format
    is read (docs/scale.md, "Formats")."""
    fmt = manifest.get("shard_format")
    shards = manifest.get("shards")
    first = shards[0].get("file") if isinstance(shards, list) and shards and isinstance(shards[0], dict) else None
    if fmt == "folder":
        example = f", e.g. {root / first}" if isinstance(first, str) else ""
        how = f"each of its shards is a suite folder: pass one{example}"
    elif fmt == "parquet":
        how = 'read it with datasets.load_dataset("parquet", ...) or vcot export training'
    elif fmt == "webdataset":
        how = "read it with webdataset.WebDataset(...)"
    else:
        how = "read its shards by their format"
    return f'{root} is a shard set (vcot generate --shards), not a suite; {how} (docs/scale.md, "Formats")'


def _known_task(task: str, manifest: dict[str, Any]) -> bool:
    from vcot.tasks import MIRA_TASKS, is_task_name

    if task in manifest["tasks"]:
        info = manifest["tasks"][task]
        # A generated task must still exist in this vcot; imported ones only need declaring.
        # MIRA's tasks are all registered (tests/test_suite_io.py); `is_task_name` tells others by their file.
        if isinstance(info, dict) and info.get("source") == "generated":
            return task in MIRA_TASKS or is_task_name(task)
        return True
    return task in MIRA_TASKS or is_task_name(task)


def _parse_instance(line: str, where: str) -> Instance:
    try:
        # One pass from text to model; half the time of json.loads and model_validate, which matters for
        # the time to a run's first request on a large suite.
        return Instance.model_validate_json(line)
    except ValidationError:
        pass
    # The slow path only to say what is wrong, in the same words as for every other JSON Lines file.
    obj = loads_checked(line, where, SuiteError)
    if not isinstance(obj, dict):
        raise SuiteError(f"{where}: each line must be a JSON object")
    try:
        return Instance.model_validate(obj)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'instance'}: {e['msg']}" for e in exc.errors())
        raise SuiteError(f"{where}: invalid instance: {problems}") from None


def read_suite(path: str | Path, check_images: str = "header") -> Suite:
    """Read and validate a suite folder.

    check_images: "none" (trust the files), "header" (exists, inside the folder, sane size, PNG/format
    structure verified — the default), or "full" (decode every image; slowest).
    """
    if check_images not in ("none", "header", "full"):
        raise ValueError("check_images must be 'none', 'header' or 'full'")
    root = Path(path)
    manifest = _read_manifest(root)
    inst_path = root / INSTANCES
    if not inst_path.is_file():
        raise SuiteError(f"{inst_path}: instances file missing")
    instances: list[Instance] = []
    seen: dict[str, int] = {}
    checked: set[str] = set()
    known_tasks: set[str] = set()
    root_real = root.resolve()
    for lineno, where, line in iter_jsonl_text(inst_path, SuiteError):
        inst = _parse_instance(line, where)
        if inst.uid in seen:
            raise SuiteError(f"{where}: duplicate uid {inst.uid!r} (first on line {seen[inst.uid]})")
        seen[inst.uid] = lineno
        if inst.task not in known_tasks:
            check_name(inst.task, f"{where} (field 'task')")
        if inst.task not in known_tasks and not _known_task(inst.task, manifest):
            raise SuiteError(f"{where}: unknown task {inst.task!r} (not registered and not declared in the manifest)")
        known_tasks.add(inst.task)
        # With "none" the schema has checked the spelling (no absolute path, no `..`); the file is resolved
        # (symlinks included) and checked when it is first used.
        for rel in inst.image_paths() if check_images != "none" else ():
            if rel not in checked:
                target = resolve_inside(root, rel, where=where, root_real=root_real)
                check_image_file(target, f"{where} (field image {rel!r})", decode=check_images == "full")
                checked.add(rel)
        instances.append(inst)
    counts = manifest.get("counts")
    if isinstance(counts, dict):
        actual = Counter(i.task for i in instances)
        if dict(actual) != {k: v for k, v in counts.items() if v}:
            raise SuiteError(f"{root / MANIFEST}: counts {counts} do not match instances.jsonl {dict(actual)}")
    return Suite(root=root, manifest=manifest, instances=instances)


def compute_content_hash(suite: Suite) -> str:
    """Recompute the content hash from the files (decodes every image).

    Images are decoded on a few threads (Pillow and hashlib let go of the GIL), a batch at a time so that
    memory stays flat; the hash is fed in suite order, so it is the same whatever the thread count."""
    from concurrent.futures import ThreadPoolExecutor

    hasher = _Hasher()
    batch = 256
    with ThreadPoolExecutor(max_workers=min(4, os.cpu_count() or 1)) as pool:
        for start in range(0, len(suite.instances), batch):
            chunk = suite.instances[start : start + batch]
            rels = list(dict.fromkeys(rel for inst in chunk for rel in inst.image_paths()))
            digests = dict(zip(rels, pool.map(lambda rel: pixel_digest(suite.load_image(rel)), rels), strict=True))
            for inst in chunk:
                hasher.add_instance(inst, digests)
    return hasher.hexdigest()
