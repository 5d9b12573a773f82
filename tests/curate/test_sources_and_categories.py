"""Source adapters (JSONL with a column mapping, Parquet, CLEVR questions, a vcot suite) and the category
mapping with quotas and seeded sampling."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from curate_fixtures import make_source
from PIL import Image

from vcot.curate import categories as cats
from vcot.curate.sources import SourceError, SourceSpec, ingest, read_source
from vcot.schema import AnswerType
from vcot.suite import read_suite


def _spec(path: Path, fmt: str, **kw) -> SourceSpec:
    return SourceSpec.from_config({"name": "s", "format": fmt, "path": path.name, **kw}, path.parent)


def test_jsonl_with_column_mapping_keeps_provenance(tmp_path):
    src = make_source(tmp_path, 8)
    spec = _spec(
        src, "jsonl", columns={"id": "qid", "image": "picture", "answer": "gold", "options": "choices", "task": "kind"}
    )
    samples = list(read_source(spec))
    assert len(samples) == 8
    mc = samples[1].instance
    assert mc.answer_type == AnswerType.CHOICE and mc.options == ["red", "green", "blue", "orange"]
    assert (
        mc.answer in "ABCD"
        and mc.options["ABCD".index(mc.answer)] == json.loads(src.read_text().splitlines()[1])["gold"]
    )
    prov = mc.meta["provenance"]
    assert (prov["source"], prov["format"], prov["original_id"]) == ("s", "jsonl", "q001")
    assert prov["fields"]["question"] == mc.question and prov["fields"]["kind"] == mc.task
    assert "picture" not in mc.meta["provenance"]["fields"]
    with pytest.raises(SourceError, match="'columns': unknown key.*picture"):
        _spec(src, "jsonl", columns={"picture": "x"})


def test_parquet_with_image_bytes_and_an_escaping_path_refused(tmp_path):
    img = tmp_path / "a.png"
    Image.new("RGB", (8, 8), "red").save(img)
    rows = [
        {"id": 1, "question": "How many?", "image": {"bytes": img.read_bytes()}, "answer": "3"},
        {"id": 2, "question": "What?", "image": {"bytes": None, "path": "../../etc/passwd"}, "answer": "x"},
    ]
    pq.write_table(pa.Table.from_pylist(rows), tmp_path / "d.parquet")
    spec = _spec(tmp_path / "d.parquet", "parquet")
    it = read_source(spec)
    first = next(it)
    assert first.instance.answer_type == AnswerType.INTEGER and first.images[first.instance.image].size == (8, 8)
    with pytest.raises(SourceError, match="leaves the image root"):
        next(it)


def test_clevr_questions_and_vcot_suite_sources(tmp_path):
    (tmp_path / "images").mkdir()
    Image.new("RGB", (16, 16), "gray").save(tmp_path / "images" / "CLEVR_0.png")
    qs = {
        "questions": [
            {
                "image_filename": "CLEVR_0.png",
                "question": "Is there a cube?",
                "answer": "yes",
                "question_index": 7,
                "question_family_index": 3,
            }
        ]
    }
    (tmp_path / "q.json").write_text(json.dumps(qs))
    (s,) = list(read_source(_spec(tmp_path / "q.json", "clevr")))
    assert s.instance.task == "family_3" and s.instance.meta["provenance"]["original_id"] == "7"
    out = tmp_path / "cand"
    manifest = ingest([_spec(tmp_path / "q.json", "clevr")], out)
    assert manifest["total"] == 1
    again = list(read_source(SourceSpec("again", "vcot", str(out))))
    assert again[0].instance.uid == "again-s-7" and again[0].instance.meta["provenance"]["fields"]["suite"]
    assert read_suite(out).instances[0].answer == "yes"


def test_mapping_quotas_and_seeded_sampling(tmp_path):
    src = make_source(tmp_path, 30)
    spec = _spec(
        src, "jsonl", columns={"id": "qid", "image": "picture", "answer": "gold", "options": "choices", "task": "kind"}
    )
    insts = [s.instance for s in read_source(spec)]
    mapping = {"s/colour": "Object Attributes", "shape": "Geometry"}
    chosen, left = cats.sample(insts, mapping, {"Geometry": 5}, seed=1)
    per = cats.counts(chosen)
    assert per["per_category"] == {"Geometry": 5, "Object Attributes": 15}
    assert per["per_level"] == {"2D structured": 5, "3D scene": 15}
    assert len(left) == 10 and all("quota of 5" in why for why in left.values())
    again, _ = cats.sample(insts, mapping, {"Geometry": 5}, seed=1)
    other, _ = cats.sample(insts, mapping, {"Geometry": 5}, seed=2)
    assert [i.uid for i, _ in again] == [i.uid for i, _ in chosen]
    assert [i.uid for i, _ in other] != [i.uid for i, _ in chosen]
    unmapped, why = cats.sample(insts, {"s/colour": "Object Attributes"})
    assert len(unmapped) == 15 and set(why.values()) == {"no category mapping"}
    with pytest.raises(cats.CategoryError, match="Astrology"):
        cats.sample(insts, {"s/*": "Astrology"})
    assert sum(len(v) for v in cats.LEVELS.values()) == 12 and set(cats.MIRA_DOMAINS) == {"EG", "PBR", "ASLP", "CT"}


def test_a_local_hf_datasets_folder_with_image_features(tmp_path):
    datasets = pytest.importorskip("datasets")  # in the dev extra; the `hf` extra for users
    img = tmp_path / "a.png"
    Image.new("RGB", (12, 6), "blue").save(img)
    features = datasets.Features(
        {
            "qid": datasets.Value("string"),
            "question": datasets.Value("string"),
            "picture": datasets.Image(),
            "gold": datasets.Value("string"),
        }
    )
    ds = datasets.Dataset.from_dict(
        {
            "qid": ["h1", "h2"],
            "question": ["How many?", "What colour?"],
            "picture": [str(img), str(img)],
            "gold": ["2", "blue"],
        },
        features=features,
    )
    ds.save_to_disk(str(tmp_path / "hfset"))
    spec = _spec(tmp_path / "hfset", "hf", columns={"id": "qid", "image": "picture", "answer": "gold"})
    samples = list(read_source(spec))
    assert [s.instance.meta["provenance"]["original_id"] for s in samples] == ["h1", "h2"]
    assert samples[0].instance.answer_type == AnswerType.INTEGER and samples[1].instance.answer == "blue"
    assert samples[0].images[samples[0].instance.image].size == (12, 6)
