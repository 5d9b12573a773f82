"""The lmms-eval and VLMEvalKit exports run by the real harnesses against vcot's mock server.

Both harnesses pull in torch and pins of their own, so neither is in the `dev` extra: they live in a
virtualenv of their own (`.ci/run` builds it; recipes in docs/exporters.md, "lmms-eval", "VLMEvalKit"). A test
runs here when its harness is importable; otherwise, when $VCOT_HARNESS_PYTHON names that virtualenv's
interpreter (or several, joined by os.pathsep, one per virtualenv), it runs itself there (one pytest process per
test) and passes or fails with it; otherwise it is
skipped, or fails when VCOT_REQUIRE_HARNESS=1 (as in CI), so that a broken harness install cannot pass quietly.

The mock server identifies a request that carries no vcot tag by the bytes of its first image or, failing
that, by a question text no other item shares. lmms-eval re-encodes every image (losslessly, but not to the
same bytes), so its suite is gear_rotation, whose questions differ from item to item; VcotOpenAI sends the
files' bytes, so its suite is rolling_dice_top, whose input images differ from item to item (gear_rotation
asks two questions about one picture).
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import subprocess
import sys
import types
from pathlib import Path

import pytest

from vcot.build import TaskPlan, build_suite
from vcot.engine.mock import spawn_mock_server
from vcot.export.lmms_eval import export_lmms_eval
from vcot.export.vlmevalkit import API_FILE, DATASET_FILE, export_vlmevalkit
from vcot.suite import Suite, read_suite


@pytest.fixture(scope="module")
def gear_suite(tmp_path_factory: pytest.TempPathFactory) -> Suite:
    root = tmp_path_factory.mktemp("harness_real") / "g"
    build_suite(root, "g", [TaskPlan("gear_rotation", 4, 0)])
    s = read_suite(root)
    assert len({i.question for i in s}) == len(s) and all(i.steps for i in s)
    return s


@pytest.fixture(scope="module")
def dice_suite(tmp_path_factory: pytest.TempPathFactory) -> Suite:
    root = tmp_path_factory.mktemp("harness_real") / "d"
    build_suite(root, "d", [TaskPlan("rolling_dice_top", 3, 0)])
    s = read_suite(root)
    assert len({s.image_path(i.image).read_bytes() for i in s}) == len(s) and all(i.steps for i in s)
    return s


def _load_module(path: Path, name: str) -> types.ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


HARNESS_PYTHON_ENV = "VCOT_HARNESS_PYTHON"
REQUIRE_ENV = "VCOT_REQUIRE_HARNESS"
_INNER_ENV = "VCOT_HARNESS_INNER"  # set in the delegated run: it must not delegate again


def _harness_python(module: str) -> str | None:
    """The first interpreter of $VCOT_HARNESS_PYTHON (one path, or several joined by os.pathsep when the two
    harnesses' pins need two virtualenvs) that imports `module`."""
    for python in filter(None, os.environ.get(HARNESS_PYTHON_ENV, "").split(os.pathsep)):
        probe = subprocess.run(
            [python, "-c", f"import importlib.util, sys; sys.exit(importlib.util.find_spec({module!r}) is None)"],
            capture_output=True,
            timeout=120,
        )
        if probe.returncode == 0:
            return python
    return None


def run_here(module: str, install: str, request: pytest.FixtureRequest) -> bool:
    """True when this process can run the test (its harness `module` imports). Else the test is run by the
    harness virtualenv's interpreter and its outcome asserted here (False: the caller returns), or skipped,
    or failed under VCOT_REQUIRE_HARNESS=1. Called before the test asks for its suite, so that a machine
    without the harness does not generate suites for nothing."""
    if importlib.util.find_spec(module) is not None:
        return True
    python = _harness_python(module)
    if python and not os.environ.get(_INNER_ENV):
        test_id = f"{Path(__file__).resolve()}::{request.node.name}"
        r = subprocess.run(
            [python, "-m", "pytest", "-q", "-p", "no:cacheprovider", test_id],
            env={**os.environ, _INNER_ENV: "1", REQUIRE_ENV: "1"},
            capture_output=True,
            text=True,
            timeout=1200,
            cwd=Path(__file__).resolve().parent.parent,
        )
        assert r.returncode == 0, f"{test_id} in {python}:\n{r.stdout[-4000:]}\n{r.stderr[-2000:]}"
        return False
    reason = f"{module} is not importable ({install}; or set {HARNESS_PYTHON_ENV} to a virtualenv holding it)"
    if os.environ.get(REQUIRE_ENV) == "1" or os.environ.get(_INNER_ENV):
        pytest.fail(f"{REQUIRE_ENV}=1 but {reason}")
    pytest.skip(reason)


def test_lmms_eval_cli_against_the_mock_server(request: pytest.FixtureRequest, tmp_path: Path) -> None:
    """`lmms-eval --model openai` on the exported group: per-condition accuracies as the mock server was told,
    and a group row holding their unweighted mean."""
    if not run_here("lmms_eval", "pip install -e '.[lmms-eval]'", request):
        return
    suite: Suite = request.getfixturevalue("gear_suite")
    out = export_lmms_eval(suite, tmp_path / "lmms")
    rates = {"direct": 1.0, "text_cot": 0.0, "visual_cot": 1.0}
    server = spawn_mock_server(suite.root, *[a for c, p in rates.items() for a in ("--correct-rate-for", f"{c}={p}")])
    try:
        env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
        env |= {"OPENAI_API_KEY": "none", "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}
        r = subprocess.run(
            [
                sys.executable,
                "-m",
                "lmms_eval",
                "--model",
                "openai",
                "--model_args",
                f"model_version=mock-model,base_url={server.base_url}",
                "--tasks",
                "vcot_g",
                "--include_path",
                str(out),
                "--output_path",
                str(tmp_path / "res"),
            ],
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
            cwd=tmp_path,
        )
        assert r.returncode == 0, r.stderr[-3000:]
        stats = server.stats()
    finally:
        server.stop()
    assert stats["status"] == {"200": 3 * len(suite)}
    (results_file,) = (tmp_path / "res").rglob("*_results.json")
    results = json.loads(results_file.read_text(encoding="utf-8"))["results"]
    for cond, rate in rates.items():
        assert results[f"vcot_g_{cond}"]["accuracy,none"] == rate, cond
    assert results["vcot_g"]["accuracy,none"] == pytest.approx(sum(rates.values()) / 3)


@pytest.fixture
def vlmeval_classes(dice_suite: Suite, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[type, type]:
    """VcotDataset and VcotOpenAI built on the installed VLMEvalKit, the TSVs in a temporary $LMUData."""
    out = export_vlmevalkit(dice_suite, tmp_path / "LMUData")
    monkeypatch.setenv("LMUData", str(out))
    monkeypatch.delenv("VCOT_TSV_DIR", raising=False)
    dataset = _load_module(out / DATASET_FILE, "vcot_vlmeval_dataset_real")
    api = _load_module(out / API_FILE, "vcot_vlmeval_api_real")
    return dataset.VcotDataset, api.VcotOpenAI


def test_vlmevalkit_api_model_sends_lossless_pngs(request: pytest.FixtureRequest, tmp_path: Path) -> None:
    """Through the real VLMEvalKit classes over HTTP: VcotOpenAI delivers the suite's PNG files byte for byte
    and is graded right; VLMEvalKit's own GPT4V delivers other bytes (JPEG)."""
    if not run_here("vlmeval", "docs/exporters.md, 'VLMEvalKit'", request):
        return
    from vlmeval.api import GPT4V

    suite: Suite = request.getfixturevalue("dice_suite")
    dataset_cls, model_cls = request.getfixturevalue("vlmeval_classes")
    ds = dataset_cls("vcot_d_visual_cot")
    server = spawn_mock_server(suite.root, "--correct-rate", "1")
    try:
        server.configure(record_images=True)
        kwargs = dict(
            model="mock-model", key="none", api_base=f"{server.base_url}/chat/completions", retry=1, verbose=False
        )
        lossless, stock = model_cls(**kwargs), GPT4V(**kwargs)
        replies = [lossless.generate(ds.build_prompt(k)) for k in range(len(ds.data))]
        stock.generate(ds.build_prompt(0))
        seen = server.images()
    finally:
        server.stop()
    for k, reply in enumerate(replies):
        line = ds.data.iloc[k]
        inst = suite.get(line["vcot_uid"])
        rels = [inst.image] + [s.image for s in inst.steps]
        assert seen[k]["uid"] == inst.uid and seen[k]["condition"] == "visual_cot"
        assert seen[k]["sha256"] == [hashlib.sha256(suite.image_path(r).read_bytes()).hexdigest() for r in rels]
        assert f"<answer>{inst.answer}</answer>" in reply
    assert set(seen[-1]["sha256"]).isdisjoint(seen[0]["sha256"])  # GPT4V's copy of item 0's images

    # The dataset class's own grading of those replies, on a prediction file as VLMEvalKit writes it.
    preds = ds.data.drop(columns=["image"]).copy()
    preds["prediction"] = replies
    eval_file = tmp_path / "preds.xlsx"
    from vlmeval.smp import dump

    dump(preds, str(eval_file))
    acc = ds.evaluate(str(eval_file))
    assert acc.set_index("category").loc["Overall", "accuracy"] == 1.0
