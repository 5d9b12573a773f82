"""`vcot rl doctor`: PASS on a sound tiny model, FAIL with a reason on broken templates, exit 2 on bad folders."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from vcot.cli import app

pytest.importorskip("torch")
pytest.importorskip("transformers")

from vcot.rl import doctor as doc  # noqa: E402 - after the skips: the doctor needs transformers

runner = CliRunner()
CHECK_NAMES = ["tool_turn", "tool_images", "image_tokens", "prefix", "tool_parsing"]


def _run(folder: Path, *extra: str):
    return runner.invoke(app, ["rl", "doctor", str(folder), "--trust-remote-code", *extra])


def _copy(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst)
    return dst


def _verdicts(output: str) -> dict[str, str]:
    found = {}
    for line in output.splitlines():
        parts = line.split()
        if line[:1].isspace():  # a trainer's own checks, indented under its verdict
            continue
        if len(parts) >= 2 and parts[0] in ("PASS", "FAIL") and parts[1] in CHECK_NAMES:
            found[parts[1]] = parts[0]
    return found


def test_the_tiny_model_passes_every_check(tiny_model_dir: Path) -> None:
    res = _run(tiny_model_dir)
    assert res.exit_code == 0, res.output
    assert _verdicts(res.output) == dict.fromkeys(CHECK_NAMES, "PASS"), res.output
    assert "28 image tokens for 3 images" in res.output  # 4 + 12 + 12 merged patches at the tiny bounds


def test_a_template_dropping_tool_images_fails(tiny_model_dir: Path, tmp_path: Path) -> None:
    from tiny_vlm import CHAT_TEMPLATE

    folder = _copy(tiny_model_dir, tmp_path / "broken")
    tool_branch = "<tool_response>\n{{ render(message.content) }}"
    assert tool_branch in CHAT_TEMPLATE
    text_only = (
        "<tool_response>\n{% for part in message.content %}{% if part.type == 'text' %}{{ part.text }}"
        "{% endif %}{% endfor %}"
    )
    (folder / "chat_template.jinja").write_text(CHAT_TEMPLATE.replace(tool_branch, text_only), encoding="utf-8")
    res = _run(folder)
    assert res.exit_code == 1, res.output
    verdicts = _verdicts(res.output)
    assert verdicts["tool_images"] == "FAIL" and verdicts["image_tokens"] == "FAIL", res.output
    assert verdicts["tool_turn"] == "PASS" and verdicts["prefix"] == "PASS", res.output
    assert "drops the image in the tool message" in res.output
    assert "first user message" not in res.output.split("tool_images", 1)[1].splitlines()[0]


def test_a_folder_without_a_chat_template_exits_2(tiny_model_dir: Path, tmp_path: Path) -> None:
    folder = _copy(tiny_model_dir, tmp_path / "no-template")
    (folder / "chat_template.jinja").unlink()
    res = _run(folder)
    assert res.exit_code == 2, res.output
    assert "no chat template" in res.output


@pytest.mark.parametrize("make", ["missing", "empty"])
def test_a_bad_folder_exits_2_with_a_clear_message(tmp_path: Path, make: str) -> None:
    folder = tmp_path / "model"
    if make == "empty":
        folder.mkdir()
    res = _run(folder)
    assert res.exit_code == 2, res.output
    assert ("is not a folder" if make == "missing" else "holds no model files") in res.output


def test_the_chat_template_option_checks_another_template(tiny_model_dir: Path, tmp_path: Path) -> None:
    trl_templates = pytest.importorskip("trl.chat_template_utils")
    # Qwen2.5-VL's own template renders no tool calls: TRL refuses it for tool training, and so does the doctor.
    qwen25 = tmp_path / "qwen2_5_vl.jinja"
    qwen25.write_text(trl_templates.qwen2_5_vl_chat_template, encoding="utf-8")
    res = _run(tiny_model_dir, "--chat-template", str(qwen25))
    assert res.exit_code == 1, res.output
    assert _verdicts(res.output)["tool_turn"] == "FAIL"
    assert "lacks the tool name and the tool arguments" in res.output
    # Qwen3-VL's template (the one docs/rl.md recommends for Qwen2.5-VL tool training) passes on the tiny model.
    qwen3 = tmp_path / "qwen3_vl.jinja"
    qwen3.write_text(trl_templates.qwen3_vl_chat_template, encoding="utf-8")
    res = _run(tiny_model_dir, "--chat-template", str(qwen3))
    assert res.exit_code == 0, res.output


def test_a_template_that_rewrites_earlier_turns_is_not_prefix_preserving(tiny_model_dir: Path) -> None:
    from tiny_vlm import CHAT_TEMPLATE, load_processor

    # Like Qwen3's thinking template: the last assistant turn renders differently from earlier ones.
    cue = "<|im_start|>assistant\n{{ render(message.content) }}"
    assert cue in CHAT_TEMPLATE
    template = CHAT_TEMPLATE.replace(
        cue, "<|im_start|>assistant\n{% if loop.last %}<think></think>{% endif %}{{ render(message.content) }}"
    )
    checks = {c.name: c for c in doc.diagnose(load_processor(tiny_model_dir), template)}
    assert not checks["prefix"].ok and "changes token" in checks["prefix"].reason
    assert checks["tool_images"].ok and checks["image_tokens"].ok


def test_a_tokenizer_without_a_response_template_fails_tool_parsing(tiny_model_dir: Path) -> None:
    from tiny_vlm import load_processor

    processor = load_processor(tiny_model_dir)
    processor.tokenizer.response_template = None
    checks = {c.name: c for c in doc.diagnose(processor)}
    assert not checks["tool_parsing"].ok and "no response template" in checks["tool_parsing"].reason
    assert [c.name for c in checks.values()] == CHECK_NAMES


def test_trl_supplies_the_response_template_of_a_template_it_knows(tiny_model_dir: Path) -> None:
    trl_templates = pytest.importorskip("trl.chat_template_utils")
    from tiny_vlm import load_processor

    # The Qwen2.5-VL recipe of docs/rl.md: its own tokenizer has no response template, the Qwen3-VL chat
    # template swapped in is one TRL recognises.
    processor = load_processor(tiny_model_dir)
    processor.tokenizer.response_template = None
    checks = {c.name: c for c in doc.diagnose(processor, trl_templates.qwen3_vl_chat_template)}
    assert all(c.ok for c in checks.values()), checks
    assert "TRL sets" in checks["tool_parsing"].reason


# --- trainer conformance ---------------------------------------------------------------------------------------


def _trainers(output: str) -> dict[str, str]:
    from vcot.rl.conformance import FRAMEWORKS

    found = {}
    for line in output.splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[0] in ("PASS", "FAIL", "MISSING") and parts[1] in FRAMEWORKS:
            found[parts[1]] = parts[0]
    return found


def _installed() -> list[str]:
    import importlib.util
    import os

    from vcot.rl.conformance import _NEEDS, FRAMEWORKS

    if os.environ.get("VCOT_REQUIRE_RL") == "1":  # CI installs every trainer: none may be missing
        return list(FRAMEWORKS)
    return [f for f in FRAMEWORKS if importlib.util.find_spec(_NEEDS[f][0]) is not None]


def test_every_installed_trainer_passes_on_the_tiny_model(tiny_model_dir: Path) -> None:
    names = _installed()
    res = _run(tiny_model_dir, "--frameworks", ",".join(names))
    assert res.exit_code == 0, res.output
    assert _trainers(res.output) == dict.fromkeys(names, "PASS"), res.output
    assert "pictures arrive pixel for pixel" in res.output and "step rewards and the final reward" in res.output


def test_a_template_dropping_tool_images_fails_the_trainers_that_send_tool_images(
    tiny_model_dir: Path, tmp_path: Path
) -> None:
    from tiny_vlm import CHAT_TEMPLATE

    folder = _copy(tiny_model_dir, tmp_path / "broken")
    text_only = (
        "<tool_response>\n{% for part in message.content %}{% if part.type == 'text' %}{{ part.text }}"
        "{% endif %}{% endfor %}"
    )
    (folder / "chat_template.jinja").write_text(
        CHAT_TEMPLATE.replace("<tool_response>\n{{ render(message.content) }}", text_only), encoding="utf-8"
    )
    names = _installed()
    res = _run(folder, "--frameworks", ",".join(names))
    assert res.exit_code == 1, res.output
    verdicts = _trainers(res.output)
    # TRL, verl and OpenEnv put the returned pictures in tool messages, which this template drops; the SkyRL
    # and verifiers adapters return them in a user message (vLLM refuses images in tool results), which it keeps.
    in_user_messages = {"skyrl", "verifiers"}
    assert {n: verdicts[n] for n in names} == {n: "PASS" if n in in_user_messages else "FAIL" for n in names}, (
        res.output
    )
    assert "image tokens" in res.output.split("FAIL trl", 1)[1] or "tokeniser fails" in res.output


def test_an_unknown_trainer_name_is_refused(tiny_model_dir: Path) -> None:
    res = _run(tiny_model_dir, "--frameworks", "trl,deepspeed")
    assert res.exit_code == 2 and "unknown deepspeed" in res.output and "skyrl" in res.output, res.output
