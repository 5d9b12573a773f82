"""Shared fixtures of the RL adapter tests: one tiny Qwen2-VL folder per session (tests/rl/tiny_vlm.py).

Hugging Face libraries write caches under the home folder (remote-code modules, hub files); these tests point
them at a folder of the session and forbid the hub, so nothing is written outside it or downloaded.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

_HF_HOME = tempfile.mkdtemp(prefix="vcot-rl-hf-")
atexit.register(shutil.rmtree, _HF_HOME, ignore_errors=True)
# Read by huggingface_hub / transformers when they are first imported, which happens after this file loads.
os.environ.setdefault("HF_HOME", _HF_HOME)
os.environ.setdefault("HF_MODULES_CACHE", os.path.join(_HF_HOME, "modules"))
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")

# The adapter tests skip where the trainers are not installed (the README's plain test command); CI installs
# them (.ci/run) and sets VCOT_REQUIRE_RL=1, so that a broken install fails instead of skipping quietly.
if os.environ.get("VCOT_REQUIRE_RL") == "1":
    import importlib

    for _name in (
        "torch",
        "transformers",
        "trl",
        "datasets",
        "verl",
        "verl.utils.dataset.rl_dataset",
        "skyrl_gym",
        "verifiers.v1",
        "openenv",
    ):
        try:
            importlib.import_module(_name)
        except Exception as exc:  # noqa: BLE001 - any import failure is the broken install this guards
            raise RuntimeError(f"VCOT_REQUIRE_RL=1 but {_name} does not import: {exc!r}") from exc


@pytest.fixture(scope="session")
def tiny_model_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A tiny random Qwen2-VL folder (weights, tokenizer, processor, chat template), built once."""
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from tiny_vlm import build_tiny_qwen2_vl
    from transformers import dynamic_module_utils

    # If transformers was imported before this conftest (a whole-suite run), its remote-code cache path was
    # already read from the environment; point it at the session folder too.
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(dynamic_module_utils, "HF_MODULES_CACHE", os.environ["HF_MODULES_CACHE"])
        yield build_tiny_qwen2_vl(tmp_path_factory.mktemp("tiny-qwen2-vl"))
