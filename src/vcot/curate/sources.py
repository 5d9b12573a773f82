"""Sources → candidates: read a local dataset into vcot instances with provenance, written as a suite folder.

Formats (nothing is downloaded; the user points at local files):
- `jsonl`, `parquet`: one row per item; `hf`: a local Hugging Face `datasets` folder (`save_to_disk`, extra
  `hf`). A column mapping names the fields: `id`, `question`, `image`, `answer`, `options`, `task` (each
  optional but question, image and answer). An image cell is a path (relative to `image_root`, default the
  file's folder), bytes, a `{"bytes": …}` / `{"path": …}` mapping, or a PIL image.
- `clevr`: CLEVR-style questions JSON (`{"questions": [{"image_filename", "question", "answer", …}]}`) with
  an image folder.
- `vcot`: an existing vcot suite (generated, imported from MIRA with `vcot import-mira`, or curated before).

Every candidate keeps `meta["provenance"]` = {source, original_id, fields (the row without image bytes)}.
"""

from __future__ import annotations

import io
import json
import math
import os
import re
import shutil
import warnings
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from PIL import Image, UnidentifiedImageError

from vcot.curate import checks
from vcot.jsonl import iter_jsonl, loads_checked
from vcot.schema import AnswerType, Instance, option_letters
from vcot.suite import MAX_IMAGE_BYTES, MAX_IMAGE_PIXELS, MAX_IMAGE_SIDE, SuiteError, read_suite, write_suite
from vcot.tasks.base import Sample

FORMATS = ("jsonl", "parquet", "hf", "clevr", "vcot")
FIELDS = ("id", "question", "image", "answer", "options", "task")
SOURCE_KEYS = ("name", "format", "path", "columns", "image_root", "answer_type", "limit")
MAX_OPTIONS = 26  # option letters A..Z
_SAFE = re.compile(r"[^A-Za-z0-9_.-]+")


class SourceError(ValueError):
    """A source cannot be read as configured."""


@dataclass(frozen=True)
class SourceSpec:
    name: str
    format: str
    path: str
    columns: dict[str, str] = field(default_factory=dict)
    image_root: str | None = None
    answer_type: str | None = None  # default: choice with options, else integer for digits, else text
    limit: int | None = None

    @classmethod
    def from_config(cls, value: Any, base: Path, where: str = "source") -> SourceSpec:
        """A source from its config entry; SourceError naming the entry and key for anything malformed."""
        value = checks.mapping(value, where, SourceError)
        if isinstance(value.get("name"), str) and value["name"].strip():
            where = f"source {value['name']!r}"
        checks.unknown_keys(value, SOURCE_KEYS, where, SourceError)
        for need in ("name", "format", "path"):
            if need not in value:
                raise SourceError(f"{where}: missing '{need}'")
        name = _slug(checks.text(value["name"], f"{where}: 'name'", SourceError))
        fmt = value["format"]
        if fmt not in FORMATS:
            raise SourceError(f"{where}: 'format' must be one of {', '.join(FORMATS)}, got {fmt!r}")
        rel = checks.text(value["path"], f"{where}: 'path'", SourceError)
        columns = checks.mapping(value.get("columns") or {}, f"{where}: 'columns'", SourceError)
        checks.unknown_keys(columns, FIELDS, f"{where}: 'columns'", SourceError)
        for key, col in columns.items():
            checks.text(col, f"{where}: column '{key}'", SourceError)
        if columns and fmt not in ("jsonl", "parquet", "hf"):
            raise SourceError(f"{where}: 'columns' applies to jsonl, parquet and hf sources, not {fmt}")
        root = None
        if value.get("image_root") is not None:
            root = str((base / checks.text(value["image_root"], f"{where}: 'image_root'", SourceError)).resolve())
        answer_type = value.get("answer_type")
        if answer_type is not None and answer_type not in [t.value for t in AnswerType]:
            raise SourceError(
                f"{where}: 'answer_type' must be one of {', '.join(t.value for t in AnswerType)}, got {answer_type!r}"
            )
        limit = value.get("limit")
        if limit is not None:
            limit = checks.integer(limit, f"{where}: 'limit'", SourceError, 0, 10**9)
        return cls(
            name=name,
            format=fmt,
            path=str((base / rel).resolve()),
            columns=dict(columns),
            image_root=root,
            answer_type=answer_type,
            limit=limit,
        )

    def check_path(self) -> None:
        """The source's path is there and of the right kind, before anything opens it."""
        what = f"source {self.name!r}: path"
        if self.format in ("hf", "vcot"):
            checks.directory(Path(self.path), what, SourceError)
        else:
            checks.regular_file(Path(self.path), what, SourceError)


def _slug(text: str, where: str = "") -> str:
    s = _SAFE.sub("_", text).strip("._")
    if not s:
        raise SourceError(f"{where + ': ' if where else ''}cannot make a name from {text[:80]!r}")
    return s[:80]


def _rows(spec: SourceSpec) -> Iterator[tuple[str, dict[str, Any]]]:
    """("file:line" or "file: row n", row) for every row of a jsonl, parquet, hf or clevr source."""
    path = Path(spec.path)
    spec.check_path()
    if spec.format == "jsonl":
        for _, where, row in iter_jsonl(path, SourceError):
            if not isinstance(row, dict):
                raise SourceError(f"{where}: a row must be a JSON object, got {_kind(row)}")
            yield where, row
    elif spec.format == "parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq

        try:
            table = pq.read_table(path)
        except (pa.ArrowException, OSError, ValueError) as exc:
            raise SourceError(f"{path}: not a readable Parquet file ({_first_line(exc)})") from None
        for n, row in enumerate(table.to_pylist()):
            yield f"{path}: row {n}", row
    elif spec.format == "hf":
        try:
            import datasets  # optional: pip install -e '.[hf]'
        except ImportError:
            raise SourceError("format 'hf' needs the datasets package: pip install -e '.[hf]'") from None
        try:
            data = datasets.load_from_disk(str(path))
        except (OSError, ValueError, FileNotFoundError) as exc:
            raise SourceError(f"{path}: not a Hugging Face dataset folder ({_first_line(exc)})") from None
        for n, row in enumerate(data):
            yield f"{path}: row {n}", row
    elif spec.format == "clevr":
        yield from _clevr_rows(path)
    else:
        raise SourceError(f"format {spec.format!r} has no row reader")


def _clevr_rows(path: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    data = loads_checked(
        checks.read_text(path, "CLEVR questions file", SourceError, checks.MAX_JSON_BYTES), str(path), SourceError
    )
    questions = data.get("questions") if isinstance(data, dict) else None
    if not isinstance(questions, list):
        raise SourceError(f"{path}: a CLEVR questions file is an object with a 'questions' list")
    for n, q in enumerate(questions):
        where = f"{path}: questions[{n}]"
        if not isinstance(q, dict):
            raise SourceError(f"{where} must be an object, got {_kind(q)}")
        for need in ("question", "answer", "image_filename"):
            if need not in q:
                raise SourceError(f"{where} has no {need!r}")
        yield (
            where,
            {
                "id": q.get("question_index", q.get("id", n)),
                "question": q["question"],
                "answer": q["answer"],
                "image": q["image_filename"],
                "task": f"family_{q.get('question_family_index', 'x')}",
                **{k: v for k, v in q.items() if k not in ("question", "answer", "image_filename")},
            },
        )


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    return {"list": "an array", "dict": "an object", "str": "a string", "bool": "a boolean"}.get(
        type(value).__name__, "a number" if isinstance(value, int | float) else f"a {type(value).__name__}"
    )


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0][:200] if text else type(exc).__name__


def _image(cell: Any, root: Path, where: str) -> Image.Image:
    """The picture of a row, checked before it is decoded: a regular file inside the image root, at most
    MAX_IMAGE_BYTES, declaring at most MAX_IMAGE_PIXELS (the limits of `vcot.suite`)."""
    if isinstance(cell, Image.Image):
        return _checked(cell, where)
    if isinstance(cell, dict):
        cell = cell.get("bytes") or cell.get("path")
    if isinstance(cell, bytes | bytearray):
        if len(cell) > MAX_IMAGE_BYTES:
            raise SourceError(f"{where}: image is {len(cell)} bytes, over the {MAX_IMAGE_BYTES} limit")
        return _decode(lambda: Image.open(io.BytesIO(cell)), where)
    if isinstance(cell, str) and cell:
        try:
            p = (root / cell).resolve()
        except (OSError, ValueError, RuntimeError) as exc:  # a NUL in the name, a symlink loop
            raise SourceError(f"{where}: image path {cell[:80]!r} is unusable ({exc})") from None
        if not p.is_relative_to(root.resolve()):
            raise SourceError(f"{where}: image path {cell[:80]!r} leaves the image root {root}")
        st = checks.regular_file(p, f"{where}: image", SourceError)
        if st.st_size > MAX_IMAGE_BYTES:
            raise SourceError(f"{where}: image {p} is {st.st_size} bytes, over the {MAX_IMAGE_BYTES} limit")
        return _decode(lambda: Image.open(p), where)
    raise SourceError(f"{where}: no usable image in the image column ({_kind(cell)})")


def _decode(open_image: Any, where: str) -> Image.Image:
    try:
        with warnings.catch_warnings():
            # Pillow only warns between its limit and twice it; here any bomb is an error.
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with open_image() as im:  # reads the header only
                _check_size(im, where)
                return im.convert("RGB")
    except SourceError:
        raise
    except (Image.DecompressionBombError, Image.DecompressionBombWarning):
        raise SourceError(
            f"{where}: image refused as a possible decompression bomb (over Pillow's pixel limit)"
        ) from None
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError, EOFError) as exc:
        raise SourceError(f"{where}: corrupt or unreadable image ({_first_line(exc)})") from None


def _check_size(im: Image.Image, where: str) -> None:
    w, h = im.size
    if w <= 0 or h <= 0 or w > MAX_IMAGE_SIDE or h > MAX_IMAGE_SIDE or w * h > MAX_IMAGE_PIXELS:
        raise SourceError(
            f"{where}: image declares {w}x{h} pixels — refused as a possible decompression bomb "
            f"(limit {MAX_IMAGE_PIXELS} pixels, {MAX_IMAGE_SIDE} per side)"
        )


def _checked(im: Image.Image, where: str) -> Image.Image:
    _check_size(im, where)
    return _decode(lambda: _Borrowed(im), where)


class _Borrowed:
    """A PIL image given by a dataset, used in a `with` without closing it (the dataset owns it)."""

    def __init__(self, im: Image.Image) -> None:
        self.im = im

    def __enter__(self) -> Image.Image:
        return self.im

    def __exit__(self, *exc: object) -> None:
        return None


def _options(cell: Any, where: str) -> list[str] | None:
    if cell is None or cell == "":
        return None
    if isinstance(cell, str):
        try:
            cell = loads_checked(cell, where, SourceError)
        except SourceError:
            cell = [x.strip() for x in cell.split("\n") if x.strip()]
        if isinstance(cell, str):
            cell = [cell]
    if not isinstance(cell, list | tuple) or not all(_scalar(x) for x in cell):
        raise SourceError(f"{where}: the options must be a list of texts or numbers, got {_kind(cell)}")
    opts = [str(x).strip() for x in cell]
    if len(opts) > MAX_OPTIONS or any(not o for o in opts):
        raise SourceError(f"{where}: the options must be 1..{MAX_OPTIONS} non-empty texts, got {len(opts)}")
    return opts or None


def _scalar(value: Any) -> bool:
    """A value that reads as text: a string, or a finite number (a bool or a mapping would be its repr)."""
    if isinstance(value, bool):
        return False
    if isinstance(value, float):
        return math.isfinite(value)
    return isinstance(value, str | int)


def _field(row: dict[str, Any], col: str, need: str, where: str) -> str:
    value = row.get(col)
    if value is None or value == "":
        raise SourceError(f"{where}: no {need!r} (column {col!r})")
    if not _scalar(value):
        raise SourceError(f"{where}: {need!r} (column {col!r}) must be text or a number, got {_kind(value)}")
    text = str(value).strip()
    if not text:
        raise SourceError(f"{where}: {need!r} (column {col!r}) is blank")
    if "\x00" in text:
        raise SourceError(f"{where}: {need!r} (column {col!r}) holds a NUL character")
    return text


def _answer_type(spec: SourceSpec, options: list[str] | None, answer: str) -> AnswerType:
    if spec.answer_type:
        return AnswerType(spec.answer_type)
    if options:
        return AnswerType.CHOICE
    return AnswerType.INTEGER if re.fullmatch(r"-?\d+", answer) else AnswerType.TEXT


def _choice_letter(answer: str, options: list[str], where: str) -> str:
    letters = option_letters(len(options))
    a = answer.strip()
    if a.upper() in letters:
        return a.upper()
    for letter, text in zip(letters, options, strict=True):
        if a.lower() == text.strip().lower():
            return letter
    raise SourceError(f"{where}: answer {answer[:80]!r} is neither an option letter nor an option's text")


def row_to_sample(spec: SourceSpec, row: dict[str, Any], n: int, where: str | None = None) -> Sample:
    """One row as a candidate instance with its picture; SourceError naming the row for anything malformed."""
    where = where or f"{spec.path}: row {n}"
    if not isinstance(row, dict):
        raise SourceError(f"{where}: a row must be an object, got {_kind(row)}")
    col = {f: spec.columns.get(f, f) for f in FIELDS}
    question = _field(row, col["question"], "question", where)
    answer = _field(row, col["answer"], "answer", where)
    if row.get(col["image"]) in (None, ""):
        raise SourceError(f"{where}: no 'image' (column {col['image']!r})")
    original_id = _field(row, col["id"], "id", where) if row.get(col["id"]) not in (None, "") else str(n)
    task = (
        _slug(_field(row, col["task"], "task", where), where) if row.get(col["task"]) not in (None, "") else spec.name
    )
    options = _options(row.get(col["options"]), f"{where}: {'options'!r} (column {col['options']!r})")
    atype = _answer_type(spec, options, answer)
    if atype == AnswerType.CHOICE:
        if not options:
            raise SourceError(f"{where}: answer type choice needs options")
        answer = _choice_letter(answer, options, where)
    uid = f"{spec.name}-{_slug(original_id, where)}"
    root = Path(spec.image_root) if spec.image_root else Path(spec.path).parent
    if spec.format == "clevr" and not spec.image_root:
        root = Path(spec.path).parent / "images"
    image = _image(row[col["image"]], root, where)
    fields = {k: v for k, v in row.items() if k != col["image"] and _jsonable(v)}
    rel = f"images/{task}/{uid}.png"
    try:
        inst = Instance(
            uid=uid,
            task=task,
            domain="curated",
            question=question,
            image=rel,
            answer=answer,
            answer_type=atype,
            options=options,
            meta={
                "provenance": {"source": spec.name, "format": spec.format, "original_id": original_id, "fields": fields}
            },
        )
    except ValueError as exc:  # pydantic's ValidationError: one line of it is enough to say what is wrong
        raise SourceError(f"{where}: not a usable item ({_first_line(exc)})") from None
    return Sample(inst, {rel: image})


def _jsonable(v: Any) -> bool:
    try:
        json.dumps(v, allow_nan=False)
    except (TypeError, ValueError, RecursionError):
        return False
    return True


def suite_samples(spec: SourceSpec) -> Iterator[Sample]:
    """The instances of a vcot suite as candidates (new uids, provenance pointing at the suite)."""
    spec.check_path()
    try:
        suite = read_suite(spec.path)
    except (SuiteError, OSError) as exc:
        raise SourceError(f"source {spec.name!r}: {_first_line(exc)}") from None
    for inst in suite.instances:
        uid = f"{spec.name}-{_slug(inst.uid)}"
        rel = f"images/{_slug(inst.task)}/{uid}.png"
        where = f"{suite.root}: instance {inst.uid!r}"
        try:
            path = suite.image_path(inst.image)
        except SuiteError as exc:
            raise SourceError(f"{where}: {_first_line(exc)}") from None
        image = _image(os.path.basename(path), path.parent, where)
        meta = {k: v for k, v in inst.meta.items() if k in ("scene", "caption")}
        meta["provenance"] = {
            "source": spec.name,
            "format": "vcot",
            "original_id": inst.uid,
            "fields": {
                "suite": suite.name,
                "content_hash": suite.content_hash,
                "question": inst.question,
                "answer": inst.answer,
            },
        }
        yield Sample(
            inst.model_copy(update={"uid": uid, "image": rel, "steps": [], "corrupted_steps": [], "meta": meta}),
            {rel: image},
        )


def read_source(spec: SourceSpec) -> Iterator[Sample]:
    """Candidates of one source, at most `limit`; SourceError for a source that gives none or repeats an id."""
    items: Iterable[tuple[str, Sample]]
    if spec.format == "vcot":
        items = ((f"{spec.path}: instance {s.instance.uid!r}", s) for s in suite_samples(spec))
    else:
        items = ((where, row_to_sample(spec, row, n, where)) for n, (where, row) in enumerate(_rows(spec)))
    seen: set[str] = set()
    n = 0
    for n, (where, s) in enumerate(items, 1):
        if spec.limit is not None and n > spec.limit:
            return
        if s.instance.uid in seen:
            raise SourceError(
                f"{where}: repeats the id of an earlier item of source {spec.name!r} (uid "
                f"{s.instance.uid!r}); ids must be unique within a source"
            )
        seen.add(s.instance.uid)
        yield s
    if n == 0 and spec.limit != 0:
        raise SourceError(f"source {spec.name!r}: {spec.path} holds no items")


def ingest(specs: list[SourceSpec], out: str | Path, name: str = "candidates", progress: Any = None) -> dict[str, Any]:
    """Write every source's candidates as one suite folder; returns its manifest.

    The suite is written next to `out` and moved into place only when every source was read, so a source
    that fails half-way leaves the candidates of an earlier ingest as they were. `progress(done, None)` is
    called as candidates are read (their number is not known before)."""
    names = [s.name for s in specs]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise SourceError(f"source name(s) {twice} given twice: candidates' uids start with the source name")
    for spec in specs:
        spec.check_path()  # every path checked before the first is read: a typo in the last fails at once

    def all_samples() -> Iterator[Sample]:
        done = 0
        for spec in specs:
            for sample in read_source(spec):
                done += 1
                if progress is not None:
                    progress(done, None)
                yield sample

    out = Path(out)
    tmp = out.with_name(out.name + ".new")
    if tmp.exists():
        shutil.rmtree(tmp)
    try:
        manifest = write_suite(
            tmp,
            name,
            all_samples(),
            extra={"curation": {"stage": "candidates", "sources": [s.__dict__ for s in specs]}},
        )
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    old = out.with_name(out.name + ".old")
    if old.exists():
        shutil.rmtree(old)
    if out.exists():
        out.rename(old)
    tmp.rename(out)
    shutil.rmtree(old, ignore_errors=True)
    return manifest
