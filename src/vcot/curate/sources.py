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
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from PIL import Image

from vcot.schema import AnswerType, Instance, option_letters
from vcot.suite import read_suite, write_suite
from vcot.tasks.base import Sample

FORMATS = ("jsonl", "parquet", "hf", "clevr", "vcot")
FIELDS = ("id", "question", "image", "answer", "options", "task")
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
    def from_config(cls, value: dict[str, Any], base: Path) -> SourceSpec:
        unknown = set(value) - {"name", "format", "path", "columns", "image_root", "answer_type", "limit"}
        if unknown:
            raise SourceError(f"unknown source key(s) {sorted(unknown)}")
        if value.get("format") not in FORMATS:
            raise SourceError(f"source {value.get('name')!r}: format must be one of {', '.join(FORMATS)}")
        bad = set(value.get("columns", {})) - set(FIELDS)
        if bad:
            raise SourceError(f"source {value.get('name')!r}: unknown column field(s) {sorted(bad)}; known: {FIELDS}")
        path = (base / value["path"]).resolve()
        root = str((base / value["image_root"]).resolve()) if value.get("image_root") else None
        return cls(name=_slug(str(value["name"])), format=value["format"], path=str(path),
                   columns=dict(value.get("columns", {})), image_root=root, answer_type=value.get("answer_type"),
                   limit=value.get("limit"))


def _slug(text: str) -> str:
    s = _SAFE.sub("_", text).strip("._")
    if not s:
        raise SourceError(f"cannot make a name from {text!r}")
    return s[:80]


def _rows(spec: SourceSpec) -> Iterator[dict[str, Any]]:
    path = Path(spec.path)
    if spec.format == "jsonl":
        with open(path, encoding="utf-8") as fh:
            for n, line in enumerate(fh, 1):
                if line.strip():
                    try:
                        yield json.loads(line)
                    except json.JSONDecodeError as e:
                        raise SourceError(f"{path}:{n}: not JSON ({e.msg})") from None
    elif spec.format == "parquet":
        import pyarrow.parquet as pq

        yield from pq.read_table(path).to_pylist()
    elif spec.format == "hf":
        try:
            import datasets  # optional: pip install -e '.[hf]'
        except ImportError:
            raise SourceError("format 'hf' needs the datasets package: pip install -e '.[hf]'") from None
        yield from datasets.load_from_disk(str(path))
    elif spec.format == "clevr":
        data = json.loads(path.read_text(encoding="utf-8"))
        for q in data.get("questions", []):
            yield {"id": q.get("question_index", q.get("id")), "question": q["question"], "answer": q["answer"],
                   "image": q["image_filename"], "task": f"family_{q.get('question_family_index', 'x')}", **{
                       k: v for k, v in q.items() if k not in ("question", "answer", "image_filename")}}
    else:
        raise SourceError(f"format {spec.format!r} has no row reader")


def _image(cell: Any, root: Path) -> Image.Image:
    if isinstance(cell, Image.Image):
        return cell.convert("RGB")
    if isinstance(cell, dict):
        cell = cell.get("bytes") or cell.get("path")
    if isinstance(cell, bytes | bytearray):
        return Image.open(io.BytesIO(cell)).convert("RGB")
    if isinstance(cell, str) and cell:
        p = (root / cell).resolve()
        if not p.is_relative_to(root.resolve()):
            raise SourceError(f"image path {cell!r} leaves the image root {root}")
        return Image.open(p).convert("RGB")
    raise SourceError(f"no usable image in {type(cell).__name__}")


def _options(cell: Any) -> list[str] | None:
    if cell is None or cell == "":
        return None
    if isinstance(cell, str):
        try:
            cell = json.loads(cell)
        except json.JSONDecodeError:
            cell = [x.strip() for x in cell.split("\n") if x.strip()]
    opts = [str(x) for x in cell]
    return opts or None


def _answer_type(spec: SourceSpec, options: list[str] | None, answer: str) -> AnswerType:
    if spec.answer_type:
        return AnswerType(spec.answer_type)
    if options:
        return AnswerType.CHOICE
    return AnswerType.INTEGER if re.fullmatch(r"-?\d+", answer) else AnswerType.TEXT


def _choice_letter(answer: str, options: list[str]) -> str:
    letters = option_letters(len(options))
    a = answer.strip()
    if a.upper() in letters:
        return a.upper()
    for letter, text in zip(letters, options, strict=True):
        if a.lower() == text.strip().lower():
            return letter
    raise SourceError(f"answer {answer!r} is neither an option letter nor an option's text")


def row_to_sample(spec: SourceSpec, row: dict[str, Any], n: int) -> Sample:
    """One row as a candidate instance with its picture."""
    col = {f: spec.columns.get(f, f) for f in FIELDS}
    for need in ("question", "image", "answer"):
        if row.get(col[need]) in (None, ""):
            raise SourceError(f"row {n} has no {need!r} (column {col[need]!r})")
    original_id = str(row.get(col["id"], n))
    task = _slug(str(row.get(col["task"]) or spec.name))
    options = _options(row.get(col["options"]))
    answer = str(row[col["answer"]]).strip()
    atype = _answer_type(spec, options, answer)
    if atype == AnswerType.CHOICE:
        if not options:
            raise SourceError(f"row {n}: answer type choice needs options")
        answer = _choice_letter(answer, options)
    uid = f"{spec.name}-{_slug(original_id)}"
    root = Path(spec.image_root) if spec.image_root else Path(spec.path).parent
    if spec.format == "clevr" and not spec.image_root:
        root = Path(spec.path).parent / "images"
    image = _image(row[col["image"]], root)
    fields = {k: v for k, v in row.items() if k != col["image"] and _jsonable(v)}
    rel = f"images/{task}/{uid}.png"
    inst = Instance(uid=uid, task=task, domain="curated", question=str(row[col["question"]]).strip(), image=rel,
                    answer=answer, answer_type=atype, options=options,
                    meta={"provenance": {"source": spec.name, "format": spec.format, "original_id": original_id,
                                         "fields": fields}})
    return Sample(inst, {rel: image})


def _jsonable(v: Any) -> bool:
    try:
        json.dumps(v)
    except (TypeError, ValueError):
        return False
    return True


def suite_samples(spec: SourceSpec) -> Iterator[Sample]:
    """The instances of a vcot suite as candidates (new uids, provenance pointing at the suite)."""
    suite = read_suite(spec.path)
    for inst in suite.instances:
        uid = f"{spec.name}-{_slug(inst.uid)}"
        rel = f"images/{_slug(inst.task)}/{uid}.png"
        image = Image.open(suite.image_path(inst.image)).convert("RGB")
        meta = {k: v for k, v in inst.meta.items() if k in ("scene", "caption")}
        meta["provenance"] = {"source": spec.name, "format": "vcot", "original_id": inst.uid,
                              "fields": {"suite": suite.name, "content_hash": suite.content_hash,
                                         "question": inst.question, "answer": inst.answer}}
        yield Sample(inst.model_copy(update={"uid": uid, "image": rel, "steps": [], "corrupted_steps": [],
                                             "meta": meta}), {rel: image})


def read_source(spec: SourceSpec) -> Iterator[Sample]:
    """Candidates of one source, at most `limit`."""
    items: Iterable[Sample]
    if spec.format == "vcot":
        items = suite_samples(spec)
    else:
        items = (row_to_sample(spec, row, n) for n, row in enumerate(_rows(spec)))
    for n, s in enumerate(items):
        if spec.limit is not None and n >= spec.limit:
            return
        yield s


def ingest(specs: list[SourceSpec], out: str | Path, name: str = "candidates") -> dict[str, Any]:
    """Write every source's candidates as one suite folder; returns its manifest."""
    def all_samples() -> Iterator[Sample]:
        for spec in specs:
            yield from read_source(spec)

    return write_suite(out, name, all_samples(), extra={"curation": {"stage": "candidates",
                                                                      "sources": [s.__dict__ for s in specs]}})
