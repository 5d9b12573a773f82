"""Hostile sources and configs for `vcot curate` (issue 31): each must end in exit code 2 with one line naming
the file, row or key at fault — never a traceback, never a hang (every case runs in a subprocess with a
timeout, so a hang fails the case instead of the suite)."""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

TIMEOUT_S = 60
Case = Callable[[Path, dict[str, Any]], Any]


def _png_header(w: int, h: int) -> bytes:
    """A PNG declaring w×h pixels with a tiny (truncated) body: what a decompression bomb looks like before
    its data is inflated."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    ihdr = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"\x00" * 64)) + chunk(b"IEND", b"")
    )


def _rows() -> list[dict[str, Any]]:
    return [
        {"qid": f"q{i}", "question": "What colour is the square?", "picture": f"img/{i}.png", "gold": "red"}
        for i in range(3)
    ]


def _base(root: Path) -> dict[str, Any]:
    (root / "img").mkdir()
    for i in range(3):
        Image.new("RGB", (16, 16), "red").save(root / "img" / f"{i}.png")
    _write_rows(root, _rows())
    return {
        "work": "work",
        "name": "hostile",
        "sources": [
            {
                "name": "toy",
                "format": "jsonl",
                "path": "items.jsonl",
                "columns": {"id": "qid", "image": "picture", "answer": "gold"},
            }
        ],
        "categories": {"toy/*": "Object Attributes"},
        "quotas": {"Object Attributes": 2},
        "models": {"reasoner": {"model": "chance"}},
        "filter": {"trials": 2, "threshold": 1},
        "concurrency": 2,
    }


def _write_rows(root: Path, rows: list[Any]) -> None:
    (root / "items.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def _lines(root: Path, *lines: str | bytes) -> None:
    """items.jsonl: a good first row, then the given raw lines."""
    data = (json.dumps(_rows()[0]) + "\n").encode()
    for line in lines:
        data += (line if isinstance(line, bytes) else line.encode()) + b"\n"
    (root / "items.jsonl").write_bytes(data)


def _row(**changes: Any) -> Case:
    """items.jsonl with a first row changed (a None value drops the key)."""

    def make(root: Path, cfg: dict[str, Any]) -> tuple[str, ...]:
        rows = _rows()
        for k, v in changes.items():
            if v is None:
                rows[0].pop(k)
            else:
                rows[0][k] = v
        _write_rows(root, rows)
        return ("items.jsonl",)

    return make


def _source(**changes: Any) -> Case:
    def make(root: Path, cfg: dict[str, Any]) -> tuple[str, ...]:
        for k, v in changes.items():
            if v is None:
                cfg["sources"][0].pop(k)
            else:
                cfg["sources"][0][k] = v
        return ()

    return make


def _config(path: tuple[str, ...], value: Any, drop: bool = False) -> Case:
    def make(root: Path, cfg: dict[str, Any]) -> tuple[str, ...]:
        target = cfg
        for k in path[:-1]:
            target = target.setdefault(k, {})
        if drop:
            target.pop(path[-1])
        else:
            target[path[-1]] = value
        return ()

    return make


def _source_path(make_path: Callable[[Path], None], fmt: str = "jsonl", name: str = "items.src") -> Case:
    def make(root: Path, cfg: dict[str, Any]) -> tuple[str, ...]:
        make_path(root / name)
        cfg["sources"][0].update(path=name, format=fmt)
        if fmt not in ("jsonl", "parquet", "hf"):
            cfg["sources"][0].pop("columns")
        return ()

    return make


def _image(make_file: Callable[[Path], None]) -> Case:
    def make(root: Path, cfg: dict[str, Any]) -> tuple[str, ...]:
        target = root / "img" / "0.png"
        target.unlink()
        make_file(target)
        return ("items.jsonl:1",)

    return make


def _clevr(content: str | bytes) -> Case:
    def make(root: Path, cfg: dict[str, Any]) -> tuple[str, ...]:
        p = root / "questions.json"
        p.write_bytes(content if isinstance(content, bytes) else content.encode())
        cfg["sources"] = [{"name": "clevr", "format": "clevr", "path": "questions.json", "image_root": "img"}]
        return ("questions.json",)

    return make


def _raw_config(content: str | bytes) -> Case:
    def make(root: Path, cfg: dict[str, Any]) -> tuple[str, ...]:
        cfg.clear()
        cfg["__raw__"] = content
        return ("curate.json",)

    return make


def _mkfifo(p: Path) -> None:
    os.mkfifo(p)


def _symlink_to_fifo(p: Path) -> None:
    os.mkfifo(p.with_name(p.name + ".fifo"))
    p.symlink_to(p.with_name(p.name + ".fifo"))


def _clevr_q(**changes: Any) -> str:
    q = {"question_index": 0, "image_filename": "0.png", "question": "How many?", "answer": "2"}
    for k, v in changes.items():
        if v is None:
            q.pop(k)
        else:
            q[k] = v
    return json.dumps({"questions": [q]})


DEEP = "[" * 100_000 + "]" * 100_000
TEXT_PNG = b"this is not an image\n"

# (id, case, expected words in the message, command)
CASES: list[tuple[str, Case, tuple[str, ...], str]] = [
    # JSONL rows that are not objects, or not JSON
    ("row-array", lambda r, c: _lines(r, "[1, 2]"), ("items.jsonl:2", "JSON object", "array"), "ingest"),
    ("row-number", lambda r, c: _lines(r, "5"), ("items.jsonl:2", "a number"), "ingest"),
    ("row-string", lambda r, c: _lines(r, '"text"'), ("items.jsonl:2", "a string"), "ingest"),
    ("row-null", lambda r, c: _lines(r, "null"), ("items.jsonl:2", "null"), "ingest"),
    ("row-bool", lambda r, c: _lines(r, "true"), ("items.jsonl:2", "boolean"), "ingest"),
    ("row-malformed", lambda r, c: _lines(r, '{"qid": '), ("items.jsonl:2", "malformed JSON"), "ingest"),
    ("row-deep-nesting", lambda r, c: _lines(r, DEEP), ("items.jsonl:2", "nested too deeply"), "ingest"),
    ("row-deep-in-field", lambda r, c: _lines(r, '{"question": ' + DEEP + "}"), ("items.jsonl:2", "nested"), "ingest"),
    ("row-huge-integer", lambda r, c: _lines(r, "1" * 5000), ("items.jsonl:2", "JSON"), "ingest"),
    ("row-not-utf8", lambda r, c: _lines(r, b'{"qid": "\xff\xfe"}'), ("items.jsonl:2", "UTF-8"), "ingest"),
    ("file-empty", lambda r, c: (r / "items.jsonl").write_bytes(b""), ("toy", "no items"), "ingest"),
    ("file-blank-lines", lambda r, c: (r / "items.jsonl").write_text("\n \n\t\n"), ("toy", "no items"), "ingest"),
    (
        "file-overlong-line",
        lambda r, c: _lines(r, '"' + "x" * (17 * 1024 * 1024) + '"'),
        ("items.jsonl:2", "longer than"),
        "ingest",
    ),
    # the source's path
    ("source-no-path", _source(path=None), ("source 'toy'", "'path'"), "ingest"),
    ("source-no-name", _source(name=None), ("sources[0]", "'name'"), "ingest"),
    ("source-no-format", _source(format=None), ("source 'toy'", "'format'"), "ingest"),
    ("source-bad-format", _source(format="csv"), ("source 'toy'", "format", "csv"), "ingest"),
    ("source-unknown-key", _source(pth="x"), ("source 'toy'", "pth", "did you mean path"), "ingest"),
    ("source-path-missing", _source(path="nope.jsonl"), ("nope.jsonl", "not found"), "ingest"),
    ("source-path-list", _source(path=["a.jsonl"]), ("source 'toy'", "'path'", "a list"), "ingest"),
    ("source-path-nul", _source(path="a\x00.jsonl"), ("source 'toy'", "'path'", "NUL"), "ingest"),
    ("source-name-list", _source(name=["x"]), ("sources[0]", "'name'"), "ingest"),
    ("source-name-symbols", _source(name="///"), ("cannot make a name",), "ingest"),
    ("source-is-folder", _source_path(lambda p: p.mkdir()), ("items.src", "is a folder"), "ingest"),
    ("source-is-fifo", _source_path(_mkfifo), ("items.src", "not a regular file"), "ingest"),
    ("source-is-symlink-to-fifo", _source_path(_symlink_to_fifo), ("items.src", "not a regular file"), "ingest"),
    ("source-is-device", _source(path="/dev/zero"), ("/dev/zero", "not a regular file"), "ingest"),
    ("source-not-mapping", _config(("sources",), ["items.jsonl"]), ("sources[0]", "mapping"), "ingest"),
    ("sources-not-list", _config(("sources",), {"name": "toy"}), ("'sources'", "list"), "ingest"),
    ("sources-empty", _config(("sources",), []), ("at least one source",), "ingest"),
    ("sources-same-name", lambda r, c: c["sources"].append(dict(c["sources"][0])), ("toy", "twice"), "ingest"),
    # column mappings
    ("column-list", _source(columns={"image": ["picture"]}), ("source 'toy'", "column 'image'", "a list"), "ingest"),
    (
        "column-mapping",
        _source(columns={"image": {"a": "b"}}),
        ("source 'toy'", "column 'image'", "a mapping"),
        "ingest",
    ),
    ("column-number", _source(columns={"answer": 3}), ("source 'toy'", "column 'answer'"), "ingest"),
    ("columns-list", _source(columns=["qid"]), ("source 'toy'", "'columns'", "mapping"), "ingest"),
    ("column-unknown-field", _source(columns={"picture": "x"}), ("'columns'", "picture"), "ingest"),
    ("columns-on-clevr", _source(format="clevr"), ("source 'toy'", "'columns'", "clevr"), "ingest"),
    ("image-root-number", _source(image_root=5), ("source 'toy'", "'image_root'"), "ingest"),
    ("answer-type-unknown", _source(answer_type="colour"), ("source 'toy'", "'answer_type'", "colour"), "ingest"),
    ("limit-negative", _source(limit=-1), ("source 'toy'", "'limit'", "-1"), "ingest"),
    (
        "limit-nan",
        lambda r, c: c["sources"][0].update(limit=float("nan")),
        ("source 'toy'", "'limit'", "nan"),
        "ingest",
    ),
    ("limit-text", _source(limit="5"), ("source 'toy'", "'limit'"), "ingest"),
    # rows with missing or mistyped fields
    ("row-no-question", _row(question=None), ("items.jsonl:1", "'question'"), "ingest"),
    ("row-no-image", _row(picture=None), ("items.jsonl:1", "'image'", "picture"), "ingest"),
    ("row-no-answer", _row(gold=None), ("items.jsonl:1", "'answer'", "gold"), "ingest"),
    ("row-question-list", _row(question=["a", "b"]), ("items.jsonl:1", "'question'", "an array"), "ingest"),
    ("row-question-mapping", _row(question={"en": "a"}), ("items.jsonl:1", "'question'", "an object"), "ingest"),
    ("row-question-blank", _row(question="   "), ("items.jsonl:1", "'question'"), "ingest"),
    ("row-answer-bool", _row(gold=True), ("items.jsonl:1", "'answer'"), "ingest"),
    (
        "row-answer-nan",
        lambda r, c: (r / "items.jsonl").write_text(
            '{"qid": "a", "question": "q?", "picture": "img/0.png", "gold": NaN}\n'
        ),
        ("items.jsonl:1", "'answer'"),
        "ingest",
    ),
    ("row-id-list", _row(qid=[1]), ("items.jsonl:1", "'id'"), "ingest"),
    ("row-id-symbols", _row(qid="///"), ("items.jsonl:1", "cannot make a name"), "ingest"),
    (
        "row-options-mapping",
        lambda r, c: (
            c["sources"][0]["columns"].update(options="opts"),
            _write_rows(r, [{**_rows()[0], "opts": {"a": 1}}]),
        ),
        ("items.jsonl:1", "options"),
        "ingest",
    ),
    (
        "row-options-too-many",
        lambda r, c: (
            c["sources"][0]["columns"].update(options="opts"),
            _write_rows(r, [{**_rows()[0], "opts": [str(i) for i in range(30)]}]),
        ),
        ("items.jsonl:1", "options"),
        "ingest",
    ),
    (
        "row-options-nested",
        lambda r, c: (
            c["sources"][0]["columns"].update(options="opts"),
            _write_rows(r, [{**_rows()[0], "opts": [["red"], ["blue"]]}]),
        ),
        ("items.jsonl:1", "options"),
        "ingest",
    ),
    (
        "row-choice-answer-not-an-option",
        lambda r, c: (
            c["sources"][0]["columns"].update(options="opts"),
            _write_rows(r, [{**_rows()[0], "opts": ["blue", "green"]}]),
        ),
        ("items.jsonl:1", "neither an option"),
        "ingest",
    ),
    ("row-duplicate-id", _row(qid="q1"), ("items.jsonl:2", "repeats the id"), "ingest"),
    # images
    ("image-leaves-root", _row(picture="../outside.png"), ("items.jsonl:1", "leaves the image root"), "ingest"),
    ("image-absolute", _row(picture="/etc/passwd"), ("items.jsonl:1", "leaves the image root"), "ingest"),
    ("image-missing", _row(picture="img/none.png"), ("items.jsonl:1", "not found"), "ingest"),
    ("image-is-folder", _row(picture="img"), ("items.jsonl:1", "is a folder"), "ingest"),
    ("image-is-fifo", _image(_mkfifo), ("items.jsonl:1", "not a regular file"), "ingest"),
    ("image-symlink-to-fifo", _image(_symlink_to_fifo), ("items.jsonl:1", "not a regular file"), "ingest"),
    (
        "image-not-an-image",
        _image(lambda p: p.write_bytes(TEXT_PNG)),
        ("items.jsonl:1", "corrupt or unreadable"),
        "ingest",
    ),
    ("image-empty-file", _image(lambda p: p.write_bytes(b"")), ("items.jsonl:1", "corrupt or unreadable"), "ingest"),
    (
        "image-truncated",
        _image(lambda p: p.write_bytes(_png_header(16, 16)[:40])),
        ("items.jsonl:1", "image"),
        "ingest",
    ),
    (
        "image-bomb-30000",
        _image(lambda p: p.write_bytes(_png_header(30_000, 30_000))),
        ("items.jsonl:1", "decompression bomb"),
        "ingest",
    ),
    (
        "image-bomb-50-megapixels",
        _image(lambda p: p.write_bytes(_png_header(10_000, 5_000))),
        ("items.jsonl:1", "decompression bomb"),
        "ingest",
    ),
    (
        "image-too-wide",
        _image(lambda p: p.write_bytes(_png_header(20_000, 10))),
        ("items.jsonl:1", "decompression bomb"),
        "ingest",
    ),
    ("image-path-nul", _row(picture="img/\x00.png"), ("items.jsonl:1", "image"), "ingest"),
    ("image-cell-number", _row(picture=5), ("items.jsonl:1", "no usable image"), "ingest"),
    ("image-cell-empty-mapping", _row(picture={"x": 1}), ("items.jsonl:1", "no usable image"), "ingest"),
    # CLEVR questions files
    ("clevr-missing-answer", _clevr(_clevr_q(answer=None)), ("questions.json", "questions[0]", "'answer'"), "ingest"),
    ("clevr-missing-image", _clevr(_clevr_q(image_filename=None)), ("questions[0]", "'image_filename'"), "ingest"),
    ("clevr-top-list", _clevr("[1, 2]"), ("questions.json", "'questions' list"), "ingest"),
    ("clevr-questions-mapping", _clevr('{"questions": {"a": 1}}'), ("questions.json", "'questions' list"), "ingest"),
    ("clevr-question-string", _clevr('{"questions": ["how many?"]}'), ("questions[0]", "object"), "ingest"),
    ("clevr-deep", _clevr('{"questions": ' + DEEP + "}"), ("questions.json", "nested too deeply"), "ingest"),
    ("clevr-not-utf8", _clevr(b'{"questions": ["\xff"]}'), ("questions.json", "UTF-8"), "ingest"),
    ("clevr-empty", _clevr(b""), ("questions.json", "JSON"), "ingest"),
    ("clevr-no-questions", _clevr('{"questions": []}'), ("clevr", "no items"), "ingest"),
    ("clevr-answer-list", _clevr(_clevr_q(answer=[2])), ("questions[0]", "'answer'"), "ingest"),
    # other formats
    (
        "vcot-path-is-file",
        _source_path(lambda p: p.write_text("x"), fmt="vcot"),
        ("items.src", "not a folder"),
        "ingest",
    ),
    ("vcot-folder-empty", _source_path(lambda p: p.mkdir(), fmt="vcot"), ("items.src",), "ingest"),
    (
        "parquet-garbage",
        _source_path(lambda p: p.write_bytes(b"PAR1 garbage"), fmt="parquet"),
        ("items.src", "Parquet"),
        "ingest",
    ),
    ("parquet-empty", _source_path(lambda p: p.write_bytes(b""), fmt="parquet"), ("items.src", "Parquet"), "ingest"),
    ("parquet-is-fifo", _source_path(_mkfifo, fmt="parquet"), ("items.src", "not a regular file"), "ingest"),
    ("hf-folder-empty", _source_path(lambda p: p.mkdir(), fmt="hf"), ("items.src",), "ingest"),
    # the config file itself
    ("config-garbage", _raw_config("work: [unclosed\n  - : :"), ("curate.json", "neither JSON nor YAML"), "ingest"),
    ("config-a-list", _raw_config("[1, 2]"), ("curate.json", "mapping"), "ingest"),
    ("config-deep", _raw_config(DEEP), ("curate.json", "nested too deeply"), "ingest"),
    ("config-deep-yaml", _raw_config("a: " + "[" * 50_000), ("curate.json",), "ingest"),
    ("config-not-utf8", _raw_config(b'{"work": "\xff"}'), ("curate.json", "UTF-8"), "ingest"),
    ("config-empty", _raw_config(b""), ("curate.json", "mapping"), "ingest"),
    ("config-huge", _raw_config(b" " * (2 * 1024 * 1024) + b"{}"), ("curate.json", "limit"), "ingest"),
    (
        "config-yaml-alias-bomb",
        _raw_config(
            "a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, "
            "*a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: [*c, *c, *c, *c, "
            "*c, *c, *c, *c, *c]\n"
        ),
        ("curate.json", "unknown key"),
        "ingest",
    ),
    ("config-unknown-key", _config(("concurency",), 4), ("concurency", "did you mean concurrency"), "ingest"),
    ("config-no-work", _config(("work",), None, drop=True), ("'work'",), "ingest"),
    ("config-work-number", _config(("work",), 5), ("'work'", "text"), "ingest"),
    ("config-work-is-file", lambda r, c: (r / "work").write_text("x"), ("work",), "ingest"),
    ("config-name-list", _config(("name",), ["a"]), ("'name'",), "ingest"),
    ("concurrency-zero", _config(("concurrency",), 0), ("'concurrency'", "1..", "0"), "run"),
    ("concurrency-negative", _config(("concurrency",), -4), ("'concurrency'", "-4"), "run"),
    ("concurrency-nan", _config(("concurrency",), float("nan")), ("'concurrency'", "nan"), "run"),
    ("concurrency-text", _config(("concurrency",), "8"), ("'concurrency'",), "run"),
    ("concurrency-huge", _config(("concurrency",), 10**12), ("'concurrency'",), "run"),
    ("concurrency-bool", _config(("concurrency",), True), ("'concurrency'", "boolean"), "run"),
    ("trials-huge", _config(("filter", "trials"), 10**9), ("filter.trials",), "run"),
    ("trials-negative", _config(("filter", "trials"), -1), ("filter.trials",), "run"),
    ("trials-float", _config(("filter", "trials"), 2.5), ("filter.trials", "2.5"), "run"),
    ("threshold-over-trials", _config(("filter", "threshold"), 5), ("threshold", "trials"), "run"),
    ("filter-unknown-key", _config(("filter", "trails"), 5), ("'filter'", "trails", "did you mean trials"), "run"),
    ("filter-a-list", _config(("filter",), [5]), ("'filter'", "mapping"), "run"),
    ("leak-trials-huge", _config(("rewrite", "leak_trials"), 10**9), ("rewrite.leak_trials",), "run"),
    ("keep-options-bad", _config(("rewrite", "keep_options"), "sometimes"), ("keep_options", "sometimes"), "run"),
    ("keep-categories-text", _config(("rewrite", "keep_categories"), "Geometry"), ("rewrite.keep_categories",), "run"),
    ("keep-categories-unknown", _config(("rewrite", "keep_categories"), ["Geometri"]), ("Geometri", "Geometry"), "run"),
    ("rewrite-unknown-key", _config(("rewrite", "on_rejct"), "remove"), ("on_rejct", "did you mean on_reject"), "run"),
    ("rewrite-judge-text", _config(("rewrite", "judge"), "no"), ("rewrite.judge",), "run"),
    ("seed-nan", _config(("seed",), float("nan")), ("'seed'",), "ingest"),
    ("seed-negative", _config(("seed",), -1), ("'seed'", "-1"), "ingest"),
    ("max-side-zero", _config(("max_side",), 0), ("'max_side'",), "ingest"),
    ("keep-unmapped-text", _config(("keep_unmapped",), "yes"), ("'keep_unmapped'",), "ingest"),
    ("categories-list", _config(("categories",), ["Geometry"]), ("'categories'", "mapping"), "ingest"),
    (
        "category-unknown",
        _config(("categories",), {"toy/*": "Object Atributes"}),
        ("Object Atributes", "did you mean Object Attributes"),
        "ingest",
    ),
    ("category-value-list", _config(("categories",), {"toy/*": ["Geometry"]}), ("categories.toy/*",), "ingest"),
    ("quota-unknown", _config(("quotas",), {"Geometri": 5}), ("quotas['Geometri']", "did you mean Geometry"), "ingest"),
    ("quota-negative", _config(("quotas",), {"Geometry": -5}), ("quotas.Geometry", "-5"), "ingest"),
    ("quota-nan", _config(("quotas",), {"Geometry": float("nan")}), ("quotas.Geometry", "nan"), "ingest"),
    ("quota-bool", _config(("quotas",), {"Geometry": True}), ("quotas.Geometry",), "ingest"),
    ("quotas-list", _config(("quotas",), [5]), ("'quotas'", "mapping"), "ingest"),
    ("model-unknown-role", _config(("models", "captionr"), "chance"), ("captionr", "did you mean captioner"), "ingest"),
    (
        "model-unknown-key",
        _config(("models", "judge"), {"model": "chance", "temprature": 0.2}),
        ("models.judge", "temprature", "did you mean temperature"),
        "ingest",
    ),
    ("model-no-model", _config(("models", "judge"), {"base_url": "http://x"}), ("models.judge", "'model'"), "ingest"),
    ("model-name-list", _config(("models", "judge"), ["chance"]), ("models.judge",), "ingest"),
    ("model-model-mapping", _config(("models", "judge"), {"model": {"a": 1}}), ("models.judge.model",), "ingest"),
    (
        "model-temperature-nan",
        _config(("models", "judge"), {"model": "chance", "temperature": float("nan")}),
        ("models.judge.temperature", "nan"),
        "ingest",
    ),
    (
        "model-temperature-negative",
        _config(("models", "judge"), {"model": "chance", "temperature": -1}),
        ("models.judge.temperature", "-1"),
        "ingest",
    ),
    (
        "model-max-tokens-zero",
        _config(("models", "judge"), {"model": "chance", "max_tokens": 0}),
        ("models.judge.max_tokens",),
        "ingest",
    ),
    (
        "model-base-url-ftp",
        _config(("models", "judge"), {"model": "m", "base_url": "ftp://x"}),
        ("models.judge.base_url", "http"),
        "ingest",
    ),
    ("models-list", _config(("models",), ["chance"]), ("'models'", "mapping"), "ingest"),
    (
        "store-garbage",
        lambda r, c: ((r / "work").mkdir(), (r / "work" / "curate.sqlite").write_bytes(b"x" * 4096)),
        ("curate.sqlite", "not a usable curation store"),
        "ingest",
    ),
    (
        "store-is-fifo",
        lambda r, c: ((r / "work").mkdir(), os.mkfifo(r / "work" / "curate.sqlite")),
        ("curate.sqlite", "not a regular file"),
        "ingest",
    ),
]


def _run(root: Path, cfg: dict[str, Any], command: str, *extra: str) -> subprocess.CompletedProcess[str]:
    config = root / "curate.json"
    if "__raw__" in cfg:
        raw = cfg["__raw__"]
        config.write_bytes(raw if isinstance(raw, bytes) else raw.encode())
    else:
        config.write_text(json.dumps(cfg), encoding="utf-8")
    env = {**os.environ, "COLUMNS": "100"}
    return subprocess.run(
        [sys.executable, "-m", "vcot.cli", "curate", command, str(config), *extra],
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        env=env,
        cwd=root,
        stdin=subprocess.DEVNULL,
        errors="replace",
    )


@pytest.mark.parametrize(("case", "expect", "command"), [pytest.param(c, e, cmd, id=i) for i, c, e, cmd in CASES])
def test_hostile_input_is_refused_in_one_line(
    tmp_path: Path, case: Case, expect: tuple[str, ...], command: str
) -> None:
    cfg = _base(tmp_path)
    more = case(tmp_path, cfg)
    expect = (*expect, *(m for m in (more if isinstance(more, tuple) else ()) if isinstance(m, str)))
    try:
        r = _run(tmp_path, cfg, command)
    except subprocess.TimeoutExpired:
        pytest.fail(f"vcot curate {command} hung (no exit within {TIMEOUT_S} s)")
    out = r.stdout + r.stderr
    assert "Traceback" not in out, out[-3000:]
    assert r.returncode == 2, out[-3000:]
    lines = [line for line in r.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), r.stderr[-3000:]
    for word in expect:
        assert word in lines[0], (word, lines[0])


def test_the_battery_is_large_enough() -> None:
    assert len(CASES) >= 60 and len({c[0] for c in CASES}) == len(CASES)


def test_the_base_config_is_good(tmp_path: Path) -> None:
    """The battery's cases differ from a config that ingests and samples cleanly: each refusal is its own."""
    cfg = _base(tmp_path)
    r = _run(tmp_path, cfg, "ingest")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "ingest: 3 candidates"
    r = _run(tmp_path, cfg, "sample")
    assert r.returncode == 0 and r.stdout.startswith("sample: 2 chosen, 1 left out"), r.stdout + r.stderr


def test_a_failed_ingest_keeps_the_earlier_candidates(tmp_path: Path) -> None:
    """Nothing already done is lost: `--force` on a source that broke since leaves the candidates as they were."""
    cfg = _base(tmp_path)
    assert _run(tmp_path, cfg, "ingest").returncode == 0
    manifest = (tmp_path / "work" / "candidates" / "manifest.json").read_text()
    _lines(tmp_path, json.dumps(_rows()[1]), "[1, 2]")
    r = _run(tmp_path, cfg, "ingest", "--force")
    assert r.returncode == 2 and "items.jsonl:3" in r.stderr, r.stderr
    assert (tmp_path / "work" / "candidates" / "manifest.json").read_text() == manifest
    assert not (tmp_path / "work" / "candidates.new").exists()
    assert _run(tmp_path, cfg, "ingest").stdout.startswith("ingest: 3 candidates")


def test_a_symlinked_source_inside_the_tree_is_read(tmp_path: Path) -> None:
    """Symlinks are followed, as a suite folder follows them: only what they point at must be a regular file."""
    cfg = _base(tmp_path)
    (tmp_path / "link.jsonl").symlink_to(tmp_path / "items.jsonl")
    cfg["sources"][0]["path"] = "link.jsonl"
    r = _run(tmp_path, cfg, "ingest")
    assert r.returncode == 0, r.stderr
