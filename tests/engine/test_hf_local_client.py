"""`--model hf:PATH` (issue 44): a local transformers VLM run in-process, on the tiny random Qwen2-VL folder that
tests/rl/tiny_vlm.py builds (nothing downloaded).

The tiny model's processor is its own code (`trust_remote_code`, see tiny_vlm.py), so every run here sets
VCOT_HF_TRUST_REMOTE_CODE=1, and `transformers serve` gets `--trust-remote-code`.
"""

from __future__ import annotations

import asyncio
import atexit
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from vcot.build import TaskPlan, build_suite  # noqa: E402
from vcot.engine.clients import make_client  # noqa: E402
from vcot.engine.clients.hf_local import hf_options, parse_hf_model, parse_tool_blocks, to_hf_messages  # noqa: E402
from vcot.engine.errors import ConfigError, FatalCallError  # noqa: E402
from vcot.engine.results import results_table  # noqa: E402
from vcot.engine.runner import EvalSpec, RunResult, run_eval  # noqa: E402
from vcot.engine.settings import GenSettings  # noqa: E402
from vcot.images import EncodedImage  # noqa: E402
from vcot.messages import ImagePart, Message, TextPart  # noqa: E402

sys.path.append(str(Path(__file__).resolve().parents[1] / "rl"))
from tiny_vlm import build_tiny_qwen2_vl  # noqa: E402

# As tests/rl/conftest.py: Hugging Face caches (the remote-code module of the tiny processor) go to a folder of
# the session, and the hub is never asked.
_HF_HOME = tempfile.mkdtemp(prefix="vcot-hf-local-")
atexit.register(shutil.rmtree, _HF_HOME, ignore_errors=True)
os.environ.setdefault("HF_HOME", _HF_HOME)
os.environ.setdefault("HF_MODULES_CACHE", os.path.join(_HF_HOME, "modules"))
os.environ["HF_HUB_OFFLINE"] = "1"

CONDITIONS = ["direct", "text_cot", "vaot"]
# Short replies keep the runs fast; greedy, so that two runs (and the server route) must agree token for token.
SETTINGS = GenSettings(max_tokens=12, temperature=0)
COMPARED = (
    "response",
    "error",
    "input_tokens",
    "output_tokens",
    "finish_reason",
    "n_turns",
    "extracted",
    "verdict",
    "correct",
)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    from transformers import dynamic_module_utils

    with pytest.MonkeyPatch.context() as mp:
        # transformers may have read the cache path before this module set it (a whole-suite run).
        mp.setattr(dynamic_module_utils, "HF_MODULES_CACHE", os.environ["HF_MODULES_CACHE"])
        mp.setenv("VCOT_HF_TRUST_REMOTE_CODE", "1")
        yield build_tiny_qwen2_vl(tmp_path_factory.mktemp("tiny-vlm"))


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("hf-suite") / "suite"
    build_suite(out, "dice", [TaskPlan("rolling_dice_top", 2, 0)])
    return out


def hf_model(folder: Path) -> str:
    return f"hf:{folder}"


def evaluate(
    suite: Path,
    model: str,
    run_dir: Path,
    conditions: list[str] = CONDITIONS,
    base_url: str | None = None,
    concurrency: int = 8,
) -> RunResult:
    return run_eval(
        EvalSpec(
            suite=suite,
            model=model,
            base_url=base_url,
            conditions=conditions,
            run_dir=run_dir,
            settings=SETTINGS,
            concurrency=concurrency,
        )
    )


def scored_rows(run_dir: Path) -> dict[tuple[str, str], dict[str, Any]]:
    from vcot.analysis.build_report import scored

    return {(r["uid"], r["condition"]): r for r in scored(results_table(run_dir).to_pylist(), rescore=True)}


@pytest.fixture(scope="module")
def hf_run(tiny: Path, suite: Path, tmp_path_factory: pytest.TempPathFactory) -> RunResult:
    return evaluate(suite, hf_model(tiny), tmp_path_factory.mktemp("hf-run") / "run")


def test_every_condition_finishes_and_reports(hf_run: RunResult, tiny: Path, tmp_path: Path) -> None:
    from vcot.analysis.build_report import build_report

    assert hf_run.progress.errors == 0 and hf_run.progress.done == 2 * len(CONDITIONS)
    rows = scored_rows(hf_run.run_dir)
    assert sorted({c for _, c in rows}) == sorted(CONDITIONS) and len(rows) == 2 * len(CONDITIONS)
    for row in rows.values():
        assert row["error"] is None, row["error"]
        assert row["model"] == hf_model(tiny)
        assert row["input_tokens"] > 100 and 1 <= row["output_tokens"] <= SETTINGS.max_tokens
        assert row["finish_reason"] in ("stop", "length") and row["verdict"]
    # The tools' descriptions are in the VAoT prompt, and the image's tokens in every prompt.
    assert all(rows[u, "vaot"]["input_tokens"] > rows[u, "direct"]["input_tokens"] + 500 for u, _ in rows)
    settings = json.loads(next(iter(rows.values()))["settings"])
    assert settings["model"] == {"provider": "hf-local", "model": str(tiny.resolve()), "dtype": "auto"}
    job = build_report([hf_run.run_dir], out=tmp_path / "report")
    assert job.paths.markdown.is_file() and job.paths.html.is_file()


def test_greedy_runs_repeat_whatever_the_batch(
    hf_run: RunResult, tiny: Path, suite: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VCOT_HF_BATCH", "1")
    again = evaluate(suite, hf_model(tiny), tmp_path / "run")
    first, second = scored_rows(hf_run.run_dir), scored_rows(again.run_dir)
    assert first.keys() == second.keys()
    for key in first:
        assert {f: first[key][f] for f in COMPARED} == {f: second[key][f] for f in COMPARED}, key


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def served(tiny: Path, tmp_path: Path) -> Iterator[str]:
    """`transformers serve` on the tiny folder, offline, in a child process; yields its base URL."""
    if os.environ.get("VCOT_REQUIRE_RL") == "1":  # CI: the server-route comparison may not skip
        import fastapi  # noqa: F401
        import uvicorn  # noqa: F401
    else:
        pytest.importorskip("fastapi")
        pytest.importorskip("uvicorn")
    port = _free_port()
    log = (tmp_path / "serve.log").open("w")
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    argv = [
        sys.executable,
        "-c",
        "import sys; from transformers.cli.transformers import main; sys.exit(main())",
        "serve",
        str(tiny),
        "--trust-remote-code",
        "--device",
        "cpu",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--log-level",
        "warning",
    ]
    proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, env=env, cwd=tmp_path)
    url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                with urllib.request.urlopen(f"{url}/models", timeout=2) as resp:
                    if resp.status == 200:
                        break
            except OSError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                log.flush()
                pytest.fail(f"transformers serve did not start: {(tmp_path / 'serve.log').read_text()[-2000:]}")
            time.sleep(0.2)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


def test_same_replies_and_verdicts_as_transformers_serve(
    hf_run: RunResult, tiny: Path, suite: Path, served: str, tmp_path: Path
) -> None:
    """The server route and the in-process route render the same prompts, generate the same tokens and parse
    them alike: the stored replies and their grading agree row for row."""
    over_http = evaluate(suite, str(tiny), tmp_path / "run", base_url=served, concurrency=2)
    assert over_http.progress.errors == 0
    local, remote = scored_rows(hf_run.run_dir), scored_rows(over_http.run_dir)
    assert local.keys() == remote.keys()
    for key in local:
        assert {f: local[key][f] for f in COMPARED} == {f: remote[key][f] for f in COMPARED}, key
        assert json.loads(local[key]["episode"]) == json.loads(remote[key]["episode"]), key


def test_a_request_that_times_out_stops_generating(tiny: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A time-out is a RetryableError, and its rows stop generating: the next request does not wait for the
    1000 tokens (some 15 s on CPU) nobody will read."""
    from vcot.engine.clients.base import CallContext
    from vcot.engine.errors import RetryableError

    async def go() -> tuple[Any, float]:
        monkeypatch.setenv("VCOT_HF_WINDOW_MS", "0")
        client = make_client(hf_model(tiny))
        try:
            await client.preflight()
            ctx = CallContext("run", "direct", "uid", 0, 0, None)  # type: ignore[arg-type]
            messages = [Message("user", [TextPart("How many dots are there?")])]
            t0 = time.monotonic()
            with pytest.raises(RetryableError, match="no reply within") as err:
                await client.complete(messages, None, GenSettings(max_tokens=1000, temperature=0, timeout_s=0.3), ctx)
            assert err.value.kind == "timeout"
            reply = await client.complete(messages, None, GenSettings(max_tokens=3, temperature=0), ctx)
            return reply, time.monotonic() - t0
        finally:
            await client.aclose()

    reply, elapsed = asyncio.run(go())
    assert reply.output_tokens == 3 and reply.finish_reason == "length"
    assert elapsed < 5


# ----- the VAoT loop, with a scripted generate -----

CALL = {"name": "draw_line", "arguments": {"x1": 40, "y1": 60, "x2": 300, "y2": 300, "color": "blue"}}
ANSWER = "The top face shows <answer>3</answer>"


def test_vaot_tool_call_and_returned_picture(
    tiny: Path, suite: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The tiny random model cannot write a valid call, so generate is scripted: a `<tool_call>` while no tool has
    answered, then an answer. The call is parsed into a ToolCall the episode runs, the picture the tool returns is
    in the second request (its image tokens match the vision features), and both samples of a turn share one
    generate."""
    import torch
    from transformers import AutoTokenizer, Qwen2VLForConditionalGeneration

    tok = AutoTokenizer.from_pretrained(tiny, local_files_only=True)
    image_token = tok.convert_tokens_to_ids("<|image_pad|>")
    response_token = tok.convert_tokens_to_ids("<tool_response>")
    call_ids = tok.encode(f"<tool_call>\n{json.dumps(CALL)}\n</tool_call><|im_end|>", add_special_tokens=False)
    answer_ids = tok.encode(f"{ANSWER}<|im_end|>", add_special_tokens=False)
    seen: list[dict[str, Any]] = []

    def scripted(self: Any, input_ids: torch.Tensor, attention_mask: torch.Tensor, **kwargs: Any) -> torch.Tensor:
        grid = kwargs["image_grid_thw"]
        seen.append(
            {
                "rows": input_ids.shape[0],
                "images": grid.shape[0],
                "image_tokens": int((input_ids == image_token).sum()),
                "features": int(grid.prod(-1).sum()) // self.config.vision_config.spatial_merge_size**2,
                "answered": [bool((row == response_token).any()) for row in input_ids],
            }
        )
        tails = [answer_ids if answered else call_ids for answered in seen[-1]["answered"]]
        width = max(map(len, tails))
        pad = kwargs["pad_token_id"]
        out = [row.tolist() + t + [pad] * (width - len(t)) for row, t in zip(input_ids, tails, strict=True)]
        return torch.tensor(out)

    monkeypatch.setattr(Qwen2VLForConditionalGeneration, "generate", scripted)
    # Long enough that both samples' requests of a turn meet, however slow the machine.
    monkeypatch.setenv("VCOT_HF_WINDOW_MS", "500")
    result = run_eval(
        EvalSpec(suite=suite, model=hf_model(tiny), conditions=["vaot"], run_dir=tmp_path / "run", settings=SETTINGS)
    )
    assert result.progress.errors == 0 and result.progress.done == 2
    first = [s for s in seen if not any(s["answered"])]
    second = [s for s in seen if all(s["answered"])]
    assert first and second and len(first) + len(second) == len(seen)
    assert max(s["rows"] for s in seen) == 2  # batched
    for s in seen:
        assert s["image_tokens"] == s["features"] > 0
    # The suite's picture, then the one the tool drew, for each sample in the batch.
    assert all(s["images"] == s["rows"] for s in first) and all(s["images"] == 2 * s["rows"] for s in second)
    for row in results_table(result.run_dir).to_pylist():
        assert row["error"] is None and row["n_turns"] == 2 and row["response"] == ANSWER
        assert row["finish_reason"] == "stop"
    calls = _stored_tool_calls(result.run_dir)
    assert calls and all(c["name"] == "draw_line" and json.loads(c["arguments"]) == CALL["arguments"] for c in calls)


def _stored_tool_calls(run_dir: Path) -> list[dict[str, Any]]:
    import sqlite3

    con = sqlite3.connect(run_dir / "run.sqlite")
    try:
        tables = [r[0] for r in con.execute("select name from sqlite_master where type='table'")]
        found = []
        for table in tables:
            cols = [r[1] for r in con.execute(f"pragma table_info({table})")]
            if "tool_calls" in cols:
                for (value,) in con.execute(f"select tool_calls from {table}"):
                    found.extend(json.loads(value) if value else [])
        return found
    finally:
        con.close()


# ----- parsing without a response template -----


def test_tool_blocks_without_a_response_template() -> None:
    text = 'Let me draw.\n<tool_call>\n{"name": "mark_point", "arguments": {"x": 3}}\n</tool_call>'
    assert parse_tool_blocks(text) == ("Let me draw.", [("mark_point", '{"x": 3}')])
    broken = "<tool_call>{not json}</tool_call> <answer>2</answer>"
    assert parse_tool_blocks(broken) == (broken, [])


# ----- bad input -----


def test_a_missing_folder_names_the_path(tmp_path: Path) -> None:
    missing = tmp_path / "no-such-model"
    with pytest.raises(ConfigError, match=f"{missing}.*does not exist"):
        make_client(f"hf:{missing}")
    with pytest.raises(ConfigError, match="not a transformers model folder"):
        make_client(f"hf:{tmp_path}")
    with pytest.raises(ConfigError, match=r"environment variables, not after a \?"):
        make_client(f"hf:{missing}?batch=2")
    with pytest.raises(ConfigError, match="drop --base-url"):
        make_client(f"hf:{tmp_path}", "http://127.0.0.1:9/v1")


def test_options_are_checked() -> None:
    assert parse_hf_model("hf:~/m") == Path("~/m").expanduser()
    opts = hf_options(
        {
            "VCOT_HF_DEVICE": "cpu",
            "VCOT_HF_BATCH": "3",
            "VCOT_HF_DTYPE": "float32",
            "VCOT_HF_WINDOW_MS": "0",
            "VCOT_HF_TRUST_REMOTE_CODE": "1",
        }
    )
    assert (opts.device, opts.batch, opts.dtype, opts.window_ms, opts.trust_remote_code) == (
        "cpu",
        3,
        "float32",
        0,
        True,
    )
    assert hf_options({}) == hf_options({"VCOT_HF_BATCH": " "})
    for env, value in (
        ("VCOT_HF_BATCH", "0"),
        ("VCOT_HF_DTYPE", "int4"),
        ("VCOT_HF_WINDOW_MS", "soon"),
        ("VCOT_HF_TRUST_REMOTE_CODE", "maybe"),
    ):
        with pytest.raises(ConfigError, match=env):
            hf_options({env: value})
    with pytest.raises(ConfigError, match="names no folder"):
        parse_hf_model("hf:")


def test_a_text_only_model_is_refused(tmp_path: Path) -> None:
    from transformers import Qwen2Config, Qwen2ForCausalLM

    folder = tmp_path / "text-only"
    Qwen2ForCausalLM(
        Qwen2Config(
            vocab_size=64,
            hidden_size=16,
            intermediate_size=32,
            num_hidden_layers=1,
            num_attention_heads=2,
            num_key_value_heads=1,
        )
    ).save_pretrained(folder)
    client = make_client(f"hf:{folder}")
    with pytest.raises(ConfigError, match=f"{folder}.*Qwen2ForCausalLM.*vision-language"):
        asyncio.run(client.preflight())


def test_without_torch_the_error_names_the_extra(tiny: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "torch", None)
    client = make_client(hf_model(tiny))
    with pytest.raises(ConfigError, match="rl-trl"):
        asyncio.run(client.preflight())


def test_an_undecodable_image_fails_the_sample_naming_it() -> None:
    bad = EncodedImage(
        source="images/broken.png",
        data_uri="data:image/png;base64,iVBORw0KGgoAAAA=",
        mime="image/png",
        width=4,
        height=4,
        orig_width=4,
        orig_height=4,
        digest="0",
    )
    with pytest.raises(FatalCallError, match="images/broken.png"):
        to_hf_messages([Message("user", [TextPart("What is shown?"), ImagePart(bad)])])


def test_a_local_checkpoint_judges_steps(tiny: Path, tmp_path: Path) -> None:
    """Issue 46: `hf:PATH` as a step judge: a step-judging suite's pictures and steps reach the local model, and
    its replies are scored against the labels (a random tiny model names no step: counted, never an error)."""
    from vcot.process.judge_suite import write_judge_suite
    from vcot.process.judged import judge_runs
    from vcot.process.labelled import labelled_stream

    stream = labelled_stream("rolling_dice_top", seed=3, kinds=["ignores_evidence", "wrong_state"])
    write_judge_suite([next(stream) for _ in range(2)], tmp_path / "judge", "judge")
    run = evaluate(tmp_path / "judge", hf_model(tiny), tmp_path / "run", conditions=["judge_first_error"])
    assert run.progress.errors == 0 and run.progress.done == 2
    rows = results_table(run.run_dir).to_pylist()
    # The prompt carried the input picture and one picture per step before the conclusion.
    for r in rows:
        record = json.loads(r["episode"])
        assert len(record["images"]) == len(record["judge"]["labels"]) and r["input_tokens"] > 1000
    (judge,) = judge_runs(rows)
    assert judge.scores.localisation.n == 2 and judge.errors == 0
    assert judge.scores.no_verdict + judge.scores.localisation.k <= 2
