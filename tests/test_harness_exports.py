"""Exporters for VLMEvalKit, lmms-eval and Inspect AI, checked against a small suite of real generators.

No harness is needed: VLMEvalKit is replaced by a stub of the few names the generated dataset class
uses, lmms-eval's hooks are called the way lmms-eval calls them, and the Inspect checks run only when
inspect_ai is installed.
"""

from __future__ import annotations

import ast
import asyncio
import base64
import csv
import importlib.util
import io
import json
import sys
import tomllib
import types
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow.parquet as pq
import pytest
import yaml
from PIL import Image
from typer.testing import CliRunner

from vcot.build import TaskPlan, build_suite
from vcot.cli import app
from vcot.conditions import build_prompt
from vcot.draw import pixel_digest
from vcot.export.inspect_ai import export_inspect
from vcot.export.lmms_eval import export_lmms_eval
from vcot.export.vlmevalkit import API_FILE, DATASET_FILE, export_vlmevalkit
from vcot.images import SuiteImages
from vcot.schema import AnswerType, Instance
from vcot.suite import Suite, compute_content_hash, read_suite


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory) -> Suite:
    root = tmp_path_factory.mktemp("harness") / "s"
    build_suite(root, "s", [TaskPlan("rolling_dice_top", 3, 0), TaskPlan("overlap", 3, 0)])
    s = read_suite(root)
    # The tests below rely on both kinds of item being present.
    assert any(i.answer_type == AnswerType.CHOICE for i in s) and any(i.answer_type == AnswerType.INTEGER for i in s)
    assert all(i.steps for i in s)
    return s


def _digest_b64(b64: str) -> str:
    with Image.open(io.BytesIO(base64.b64decode(b64))) as im:
        return pixel_digest(im.convert("RGB"))


def _digest_file(path: str | Path) -> str:
    with Image.open(path) as im:
        return pixel_digest(im.convert("RGB"))


def _prompt_text(suite: Suite, inst: Instance, condition: str) -> str:
    """What vcot's own engine sends as text, the reference every exporter must match."""
    return build_prompt(inst, condition, SuiteImages(suite)).messages[0].text


def _wrong_answer(inst: Instance) -> str:
    if inst.answer_type == AnswerType.CHOICE:
        assert inst.options is not None
        return next(o for o in ("A", "B", "C", "D") if o != inst.answer)
    return str(int(inst.answer) + 1)


def _read_tsv(path: Path) -> list[dict[str, str]]:
    # Base64 images exceed the csv module's default field limit of 128 KiB.
    csv.field_size_limit(1 << 30)
    with open(path, encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh, delimiter="\t"))


# --- VLMEvalKit ---------------------------------------------------------------------------------------


def test_vlmevalkit_tsv_round_trips(suite: Suite, tmp_path: Path) -> None:
    out = export_vlmevalkit(suite, tmp_path / "vlm")
    rows = _read_tsv(out / "vcot_s.tsv")
    assert len(rows) == len(suite)
    assert "image_path" not in rows[0]
    for row, inst in zip(rows, suite.instances, strict=True):
        assert (row["vcot_uid"], row["question"], row["answer"]) == (inst.uid, inst.question, inst.answer)
        assert (row["category"], row["l2-category"], row["answer_type"]) == (
            inst.task,
            inst.domain,
            str(inst.answer_type),
        )
        assert _digest_b64(row["image"]) == pixel_digest(suite.load_image(inst.image))
        if inst.options:
            assert [row[k] for k in "ABCD"] == inst.options
            assert json.loads(row["vcot_options"]) == inst.options
        else:
            assert [row[k] for k in "ABCD"] == ["", "", "", ""] and row["vcot_options"] == ""

    steps = _read_tsv(out / "vcot_s_visual_cot.tsv")
    assert [r["vcot_uid"] for r in steps] == [i.uid for i in suite if i.steps]
    by_uid = {r["vcot_uid"]: r for r in rows}
    for row in steps:
        inst = suite.get(row["vcot_uid"])
        # VLMEvalKit's toliststr evaluates the cell; literal_eval accepts the same list literal.
        images = ast.literal_eval(row["image"])
        names = ast.literal_eval(row["image_path"])
        rels = [inst.image] + [s.image for s in inst.steps]
        assert len(images) == len(names) == len(rels)
        assert [_digest_b64(b) for b in images] == [pixel_digest(suite.load_image(r)) for r in rels]
        assert row["index"] == by_uid[inst.uid]["index"]

    # pandas (what VLMEvalKit reads TSVs with) sees the same table, multi-line questions included.
    df = pd.read_csv(out / "vcot_s.tsv", sep="\t", dtype=str, keep_default_na=False)
    assert list(df["vcot_uid"]) == [i.uid for i in suite] and list(df["question"]) == [i.question for i in suite]


def _vlmeval_stub(monkeypatch: pytest.MonkeyPatch, data_root: Path) -> None:
    """The names the dataset class imports, with VLMEvalKit's loading behaviour for the image column."""

    def toliststr(s: Any) -> list[str]:
        if isinstance(s, str) and s[0] == "[" and s[-1] == "]":
            return [str(x) for x in ast.literal_eval(s)]
        return [s] if isinstance(s, str) else [str(x) for x in s]

    class ImageBaseDataset:
        def __init__(self, dataset: str = "MMBench", skip_noimg: bool = True) -> None:
            self.dataset_name = dataset
            self.img_root = str(data_root / "images" / dataset)
            data = self.load_data(dataset)
            data["index"] = [str(x) for x in data["index"]]
            images = [toliststr(str(x)) for x in data["image"]]
            data["image"] = [x[0] if len(x) == 1 else x for x in images]
            if "image_path" in data:
                data["image_path"] = [toliststr(x) for x in data["image_path"]]
            data["index"] = [int(x) for x in data["index"]]
            self.data = data

        def load_data(self, dataset: str) -> pd.DataFrame:
            raise NotImplementedError

    def load(path: str) -> pd.DataFrame:
        return pd.read_csv(path, sep="\t")

    def dump(df: pd.DataFrame, path: str) -> None:
        df.to_csv(path, sep="\t", index=False)

    class GPT4V:
        """The attributes of VLMEvalKit's OpenAI wrapper that VcotOpenAI reads; images would go out as JPEG."""

        def __init__(
            self,
            model: str = "gpt-4o",
            img_size: int = -1,
            total_img_size: int = -1,
            img_detail: str = "low",
            **kwargs: Any,
        ) -> None:
            self.model, self.img_size, self.total_img_size, self.img_detail = (
                model,
                img_size,
                total_img_size,
                img_detail,
            )

        def prepare_itlist(self, inputs: list[dict[str, str]]) -> list[dict[str, str]]:
            assert all(x["type"] == "text" for x in inputs)
            return [dict(type="text", text="\n".join(x["value"] for x in inputs))]

    vlmeval = types.ModuleType("vlmeval")
    dataset_pkg = types.ModuleType("vlmeval.dataset")
    image_base = types.ModuleType("vlmeval.dataset.image_base")
    smp = types.ModuleType("vlmeval.smp")
    api_pkg = types.ModuleType("vlmeval.api")
    gpt = types.ModuleType("vlmeval.api.gpt")
    image_base.ImageBaseDataset = ImageBaseDataset  # type: ignore[attr-defined]
    smp.LMUDataRoot = lambda: str(data_root)  # type: ignore[attr-defined]
    smp.load, smp.dump = load, dump  # type: ignore[attr-defined]
    gpt.GPT4V = GPT4V  # type: ignore[attr-defined]
    for name, mod in (
        ("vlmeval", vlmeval),
        ("vlmeval.dataset", dataset_pkg),
        ("vlmeval.dataset.image_base", image_base),
        ("vlmeval.smp", smp),
        ("vlmeval.api", api_pkg),
        ("vlmeval.api.gpt", gpt),
    ):
        monkeypatch.setitem(sys.modules, name, mod)


def _load_module(path: Path, name: str) -> types.ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_vlmevalkit_dataset_class_prompts_and_scores(
    suite: Suite, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = export_vlmevalkit(suite, tmp_path / "vlm")
    source = (out / DATASET_FILE).read_text(encoding="utf-8")
    compile(source, DATASET_FILE, "exec")
    data_root = tmp_path / "LMUData"
    _vlmeval_stub(monkeypatch, data_root)
    monkeypatch.setenv("VCOT_TSV_DIR", str(out))
    mod = _load_module(out / DATASET_FILE, "vcot_vlmeval_dataset_under_test")
    assert set(mod.VcotDataset.supported_datasets()) == {"vcot_s_direct", "vcot_s_text_cot", "vcot_s_visual_cot"}

    # Without vcot the embedded templates must give the same text as vcot's live ones.
    for cond in ("direct", "text_cot", "visual_cot"):
        assert mod._FALLBACK_TEMPLATES[cond] == mod._templates()[cond]

    ds = mod.VcotDataset("vcot_s_visual_cot")
    inst = suite.get(ds.data.iloc[0]["vcot_uid"])
    msgs = ds.build_prompt(0)
    images = [m["value"] for m in msgs if m["type"] == "image"]
    rels = [inst.image] + [s.image for s in inst.steps]
    assert [_digest_file(p) for p in images] == [pixel_digest(suite.load_image(r)) for r in rels]
    assert msgs[-1] == {"type": "text", "value": _prompt_text(suite, inst, "visual_cot")}

    direct = mod.VcotDataset("vcot_s_direct")
    for i, inst in enumerate(suite.instances):
        assert direct.build_prompt(i)[-1]["value"] == _prompt_text(suite, inst, "direct")

    # A prediction file as VLMEvalKit writes it: the TSV columns (images dropped) plus `prediction`.
    preds = direct.data.drop(columns=["image"]).copy()
    preds["prediction"] = [
        f"<answer>{i.answer}</answer>" if k % 2 == 0 else f"<answer>{_wrong_answer(i)}</answer>"
        for k, i in enumerate(suite.instances)
    ]
    eval_file = tmp_path / "preds.tsv"
    preds.to_csv(eval_file, sep="\t", index=False)
    acc = direct.evaluate(str(eval_file))
    overall = acc.set_index("category").loc["Overall"]
    assert overall["total"] == len(suite)
    assert overall["accuracy"] == pytest.approx(sum(1 for k in range(len(suite)) if k % 2 == 0) / len(suite))
    scored = pd.read_csv(tmp_path / "preds_vcot_score.xlsx", sep="\t")
    assert list(scored["correct"]) == [k % 2 == 0 for k in range(len(suite))]


def test_vlmevalkit_dataset_class_without_vcot(suite: Suite, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where vcot is not installed the class falls back to embedded templates and tag matching."""
    out = export_vlmevalkit(suite, tmp_path / "vlm")
    _vlmeval_stub(monkeypatch, tmp_path / "LMUData")
    mod = _load_module(out / DATASET_FILE, "vcot_vlmeval_dataset_no_vcot")
    monkeypatch.setitem(sys.modules, "vcot.prompts.templates", None)
    monkeypatch.setitem(sys.modules, "vcot.scoring", None)
    inst = suite.instances[0]
    assert mod.vcot_prompt_text(inst.question, "direct") == _prompt_text(suite, inst, "direct")
    assert mod.vcot_grade(f"<answer> {inst.answer} </answer>", inst.answer, "integer") == (True, inst.answer)
    assert mod.vcot_grade(f"<answer>{_wrong_answer(inst)}</answer>", inst.answer, "integer")[0] is False
    assert mod.vcot_grade("no tags", inst.answer, "integer") == (False, None)


def _data_url_bytes(url: str) -> bytes:
    prefix = "data:image/png;base64,"
    assert url.startswith(prefix), url[:40]
    return base64.b64decode(url[len(prefix) :])


def test_vlmevalkit_api_model_sends_the_png_files(
    suite: Suite, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The dataset class's messages, through VcotOpenAI, reach the API as the suite's PNG bytes, unchanged."""
    out = export_vlmevalkit(suite, tmp_path / "vlm")
    _vlmeval_stub(monkeypatch, tmp_path / "LMUData")
    monkeypatch.setenv("VCOT_TSV_DIR", str(out))
    datasets = _load_module(out / DATASET_FILE, "vcot_vlmeval_dataset_api")
    api = _load_module(out / API_FILE, "vcot_vlmeval_api_under_test")
    ds = datasets.VcotDataset("vcot_s_visual_cot")
    model = api.VcotOpenAI(model="mock-model")
    assert model.img_detail == "high"
    for k in range(len(ds.data)):
        inst = suite.get(ds.data.iloc[k]["vcot_uid"])
        content = model.prepare_itlist(ds.build_prompt(k))
        rels = [inst.image] + [s.image for s in inst.steps]
        assert [c["type"] for c in content] == ["image_url"] * len(rels) + ["text"]
        assert [_data_url_bytes(c["image_url"]["url"]) for c in content[:-1]] == [
            suite.image_path(r).read_bytes() for r in rels
        ]
        assert {c["image_url"]["detail"] for c in content[:-1]} == {"high"}
        assert content[-1]["text"] == _prompt_text(suite, inst, "visual_cot")

    # Asked for smaller images, it shrinks them but still sends PNG.
    small = api.VcotOpenAI(model="mock-model", img_size=64, img_detail="low")
    first = small.prepare_itlist(ds.build_prompt(0))[0]["image_url"]
    with Image.open(io.BytesIO(_data_url_bytes(first["url"]))) as im:
        assert im.format == "PNG" and max(im.size) == 64
    assert first["detail"] == "low"
    # Text-only messages are left to VLMEvalKit's own wrapper.
    assert small.prepare_itlist([dict(type="text", value="hi")]) == [dict(type="text", text="hi")]


# --- lmms-eval ----------------------------------------------------------------------------------------


class _LmmsLoader(yaml.SafeLoader):
    """lmms-eval's YAML dialect: `!function module.name` tags."""


_LmmsLoader.add_constructor("!function", lambda loader, node: ("function", loader.construct_scalar(node)))


def _lmms_yaml(path: Path) -> dict[str, Any]:
    with open(path, encoding="utf-8") as fh:
        return yaml.load(fh, Loader=_LmmsLoader)  # noqa: S506 - a SafeLoader subclass


def test_lmms_eval_yaml(suite: Suite, tmp_path: Path) -> None:
    out = export_lmms_eval(suite, tmp_path / "lmms")
    template = _lmms_yaml(out / "_default_template_yaml")
    assert template["dataset_path"] == "parquet" and template["test_split"] == "test"
    data_file = Path(template["dataset_kwargs"]["data_files"]["test"])
    assert data_file.is_absolute() and data_file.is_file()
    assert pq.read_table(data_file).num_rows == len(suite)
    assert template["process_results"] == ("function", "utils.process_results")
    utils = _load_module(out / "utils.py", "vcot_lmms_utils_yaml")
    for cond in ("direct", "text_cot", "visual_cot"):
        cfg = _lmms_yaml(out / f"vcot_s_{cond}.yaml")
        assert cfg["task"] == f"vcot_s_{cond}" and cfg["include"] == "_default_template_yaml"
        merged = {**template, **cfg}
        for key in ("doc_to_text", "doc_to_visual", "process_results"):
            kind, ref = merged[key]
            assert kind == "function" and callable(getattr(utils, ref.split(".", 1)[1]))
    group = _lmms_yaml(out / "vcot_s.yaml")
    assert group["group"] == "vcot_s"
    assert group["task"] == ["vcot_s_direct", "vcot_s_text_cot", "vcot_s_visual_cot"]
    # Without aggregate_metric_list lmms-eval shows the group row with no score.
    assert group["aggregate_metric_list"] == [{"metric": "accuracy", "aggregation": "mean", "weight_by_size": False}]


def test_lmms_eval_utils_prompt_and_score(suite: Suite, tmp_path: Path) -> None:
    out = export_lmms_eval(suite, tmp_path / "lmms")
    utils = _load_module(out / "utils.py", "vcot_lmms_utils_hooks")
    docs = pq.read_table(out / "data" / "vcot_s.parquet").to_pylist()
    assert [d["uid"] for d in docs] == [i.uid for i in suite]
    for doc, inst in zip(docs, suite.instances, strict=True):
        assert utils.doc_to_text_direct(doc) == _prompt_text(suite, inst, "direct")
        assert utils.doc_to_text_text_cot(doc, {}) == _prompt_text(suite, inst, "text_cot")
        assert utils.doc_to_text_visual_cot(doc) == _prompt_text(suite, inst, "visual_cot")
        rels = [inst.image] + [s.image for s in inst.steps]
        assert [pixel_digest(im) for im in utils.doc_to_visual_with_steps(doc)] == [
            pixel_digest(suite.load_image(r)) for r in rels
        ]
        assert [pixel_digest(im) for im in utils.doc_to_visual(doc)] == [pixel_digest(suite.load_image(inst.image))]
        assert utils.process_results(doc, [f"Reasoning...\n<answer>{inst.answer}</answer>"]) == {"accuracy": 1.0}
        assert utils.process_results(doc, [f"<answer>{_wrong_answer(inst)}</answer>"]) == {"accuracy": 0.0}
        assert utils.process_results(doc, [""]) == {"accuracy": 0.0}


def test_lmms_eval_data_through_datasets(suite: Suite, tmp_path: Path) -> None:
    """The path lmms-eval takes: load_dataset(dataset_path, **dataset_kwargs)[test_split], process_docs."""
    datasets = pytest.importorskip("datasets")
    out = export_lmms_eval(suite, tmp_path / "lmms")
    template = _lmms_yaml(out / "_default_template_yaml")
    utils = _load_module(out / "utils.py", "vcot_lmms_utils_datasets")
    ds = datasets.load_dataset(template["dataset_path"], **template["dataset_kwargs"])[template["test_split"]]
    kept = utils.process_docs_visual_cot(ds)
    assert len(kept) == sum(1 for i in suite if i.steps)
    doc = kept[0]
    inst = suite.get(doc["uid"])
    assert [pixel_digest(im) for im in utils.doc_to_visual_with_steps(doc)][0] == pixel_digest(
        suite.load_image(inst.image)
    )
    assert utils.process_results(doc, [f"<answer>{inst.answer}</answer>"]) == {"accuracy": 1.0}


# --- Inspect AI ---------------------------------------------------------------------------------------


def test_inspect_package_files(suite: Suite, tmp_path: Path) -> None:
    out = export_inspect(suite, tmp_path / "insp", package="vcot_inspect_files")
    pkg = out / "vcot_inspect_files"
    compile((pkg / "tasks.py").read_text(encoding="utf-8"), "tasks.py", "exec")
    compile((pkg / "__init__.py").read_text(encoding="utf-8"), "__init__.py", "exec")
    project = tomllib.loads((out / "pyproject.toml").read_text(encoding="utf-8"))
    assert project["project"]["entry-points"]["inspect_ai"] == {"vcot_inspect_files": "vcot_inspect_files.tasks"}
    assert project["tool"]["setuptools"]["packages"] == ["vcot_inspect_files"]
    bundled = read_suite(pkg / "suite", check_images="full")
    assert compute_content_hash(bundled) == suite.content_hash
    with pytest.raises(ValueError, match="identifier"):
        export_inspect(suite, tmp_path / "bad", package="vcot")


@pytest.fixture
def inspect_tasks(suite: Suite, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> types.ModuleType:
    pytest.importorskip("inspect_ai")
    out = export_inspect(suite, tmp_path / "insp", package="vcot_inspect_under_test")
    monkeypatch.syspath_prepend(str(out))
    for name in [m for m in sys.modules if m.startswith("vcot_inspect_under_test")]:
        monkeypatch.delitem(sys.modules, name)
    return importlib.import_module("vcot_inspect_under_test.tasks")


def test_inspect_tasks_build_vcot_prompts(suite: Suite, inspect_tasks: types.ModuleType) -> None:
    from inspect_ai.model import ContentImage, ContentText

    direct = inspect_tasks.direct()
    assert len(direct.dataset) == len(suite)
    assert len(inspect_tasks.visual_cot().dataset) == sum(1 for i in suite if i.steps)
    assert len(inspect_tasks.vcot(condition="text_cot").dataset) == len(suite)
    for sample in inspect_tasks.visual_cot().dataset:
        inst = suite.get(sample.id)
        content = sample.input[0].content
        assert [type(c) for c in content] == [ContentImage] * (1 + len(inst.steps)) + [ContentText]
        assert content[-1].text == _prompt_text(suite, inst, "visual_cot")
        assert sample.target == inst.answer


def test_inspect_scorer_grades(suite: Suite, inspect_tasks: types.ModuleType) -> None:
    from inspect_ai.model import ModelName, ModelOutput
    from inspect_ai.scorer import CORRECT, INCORRECT, Target
    from inspect_ai.solver import TaskState

    scorer = inspect_tasks.vcot_grader()
    for sample in inspect_tasks.direct().dataset:
        inst = suite.get(sample.id)
        for reply, expected in (
            (f"<answer>{inst.answer}</answer>", CORRECT),
            (f"<answer>{_wrong_answer(inst)}</answer>", INCORRECT),
        ):
            state = TaskState(
                model=ModelName("mockllm/model"),
                sample_id=sample.id,
                epoch=1,
                input=sample.input,
                messages=list(sample.input),
                metadata=sample.metadata,
                output=ModelOutput.from_content("mockllm/model", reply),
            )
            score = asyncio.run(scorer(state, Target(sample.target)))
            assert score.value == expected, (inst.uid, reply, score.explanation)


def test_inspect_eval_with_mockllm(suite: Suite, inspect_tasks: types.ModuleType, tmp_path: Path) -> None:
    """A whole offline `eval` where every reply is the first die item's answer: right exactly for the items
    whose answer it is."""
    from inspect_ai import eval as inspect_eval
    from inspect_ai.model import ModelOutput, ModelUsage, get_model

    task = inspect_tasks.direct()
    reply = next(i.answer for i in suite if i.answer_type == AnswerType.INTEGER)
    expected = sum(1 for i in suite if i.answer == reply) / len(suite)
    assert 0 < expected < 1
    outputs = []
    for _ in task.dataset:
        out = ModelOutput.from_content("mockllm/model", f"So the top face shows {reply}.\n<answer>{reply}</answer>")
        # With usage given, mockllm does not count tokens (which would download a tokenizer).
        out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        outputs.append(out)
    logs = inspect_eval(
        task, model=get_model("mockllm/model", custom_outputs=outputs), log_dir=str(tmp_path / "logs"), display="none"
    )
    log = logs[0]
    assert log.status == "success", log.error
    assert log.results is not None
    assert log.results.scores[0].metrics["accuracy"].value == pytest.approx(expected)


@pytest.mark.parametrize("route", ["openai-api", "openai-chat"])
def test_inspect_cli_against_an_openai_compatible_server(suite: Suite, tmp_path: Path, route: str) -> None:
    """The real `inspect eval` command, over HTTP, against vcot's mock server: the two routes that
    docs/exporters.md gives for OpenAI-compatible endpoints (Inspect's `openai/...` provider alone calls the
    Responses API, which such servers lack)."""
    pytest.importorskip("inspect_ai")
    import os
    import subprocess

    from inspect_ai.log import list_eval_logs, read_eval_log

    from vcot.engine.mock import spawn_mock_server

    out = export_inspect(suite, tmp_path / "insp", package="vcot_inspect_cli")
    tasks_file = out / "vcot_inspect_cli" / "tasks.py"
    server = spawn_mock_server(suite.root, "--correct-rate", "1")
    try:
        env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
        if route == "openai-api":
            env |= {"VCOTMOCK_BASE_URL": server.base_url, "VCOTMOCK_API_KEY": "none"}
            model = ["--model", "openai-api/vcotmock/mock-model"]
        else:
            env |= {"OPENAI_API_KEY": "none"}
            model = ["--model", "openai/mock-model", "--model-base-url", server.base_url, "-M", "responses_api=false"]
        logs = tmp_path / "logs"
        r = subprocess.run(
            [
                "inspect",
                "eval",
                f"{tasks_file}@direct",
                *model,
                "--limit",
                "4",
                "--log-dir",
                str(logs),
                "--display",
                "none",
            ],
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
            cwd=tmp_path,
        )
        assert r.returncode == 0, r.stderr[-2000:]
        stats = server.stats()
    finally:
        server.stop()
    (info,) = list_eval_logs(str(logs))
    log = read_eval_log(info)
    assert log.status == "success", log.error
    assert stats["status"].get("200") == 4  # four chat completions, no Responses API call
    assert log.results is not None and log.results.scores[0].metrics["accuracy"].value == 1.0


# --- CLI ----------------------------------------------------------------------------------------------


def test_cli_exports_harness_formats(suite: Suite, tmp_path: Path) -> None:
    runner = CliRunner()
    for fmt, marker in (
        ("vlmevalkit", DATASET_FILE),
        ("lmms-eval", "_default_template_yaml"),
        ("inspect", "pyproject.toml"),
    ):
        out = tmp_path / fmt
        r = runner.invoke(app, ["export", str(suite.root), "--format", fmt, "--out", str(out)])
        assert r.exit_code == 0, r.output
        assert (out / marker).is_file()
    r = runner.invoke(app, ["export", str(suite.root), "--format", "nope", "--out", str(tmp_path / "x")])
    assert r.exit_code != 0
