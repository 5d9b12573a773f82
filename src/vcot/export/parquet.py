"""Export a suite to Parquet with image columns that Hugging Face `datasets` decodes as images.

Images are stored as `struct<bytes, path>` (the `datasets.Image` storage) and the schema carries the
`huggingface` features metadata, so `datasets.load_dataset("parquet", data_files=...)` yields PIL images
without vcot installed. `datasets` itself is not needed to write the file.
"""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from vcot.suite import Suite

_IMAGE = pa.struct([("bytes", pa.binary()), ("path", pa.string())])

_SCHEMA = pa.schema(
    [
        ("uid", pa.string()),
        ("task", pa.string()),
        ("domain", pa.string()),
        ("question", pa.string()),
        ("answer", pa.string()),
        ("answer_type", pa.string()),
        ("options", pa.list_(pa.string())),
        ("image", _IMAGE),
        ("step_images", pa.list_(_IMAGE)),
        ("step_texts", pa.list_(pa.string())),
        ("meta", pa.string()),
    ]
)

_FEATURES = {
    "uid": {"dtype": "string", "_type": "Value"},
    "task": {"dtype": "string", "_type": "Value"},
    "domain": {"dtype": "string", "_type": "Value"},
    "question": {"dtype": "string", "_type": "Value"},
    "answer": {"dtype": "string", "_type": "Value"},
    "answer_type": {"dtype": "string", "_type": "Value"},
    "options": {"feature": {"dtype": "string", "_type": "Value"}, "_type": "Sequence"},
    "image": {"_type": "Image"},
    "step_images": {"feature": {"_type": "Image"}, "_type": "Sequence"},
    "step_texts": {"feature": {"dtype": "string", "_type": "Value"}, "_type": "Sequence"},
    "meta": {"dtype": "string", "_type": "Value"},
}


def export_parquet(suite: Suite, out: str | Path, rows_per_group: int = 256) -> Path:
    path = Path(out)
    path.parent.mkdir(parents=True, exist_ok=True)
    schema = _SCHEMA.with_metadata(
        {
            "huggingface": json.dumps({"info": {"features": _FEATURES}}),
            "vcot": json.dumps({"suite": suite.name, "content_hash": suite.content_hash}),
        }
    )

    def img(rel: str) -> dict:
        return {"bytes": suite.image_path(rel).read_bytes(), "path": rel}

    with pq.ParquetWriter(path, schema) as writer:
        batch: list[dict] = []
        for inst in suite.instances:
            batch.append(
                {
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
            )
            if len(batch) >= rows_per_group:
                writer.write_table(pa.Table.from_pylist(batch, schema=schema))
                batch = []
        if batch:
            writer.write_table(pa.Table.from_pylist(batch, schema=schema))
    return path
