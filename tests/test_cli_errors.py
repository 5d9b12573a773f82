"""Errors that say why: each mistake a person makes at the command line is answered with one line naming what
is wrong and where, and exit code 2 for bad options or input (a run whose samples failed: 3 or 4, with the
causes listed)."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from PIL import Image
from typer.testing import CliRunner

from vcot.build import TaskPlan, build_suite
from vcot.cli import app

runner = CliRunner()


def _one_line(output: str) -> str:
    """The output with rich's soft wraps undone, so a message can be matched whatever the width."""
    return " ".join(output.split())


# ------------------------------------------------------------------------------------------- fixtures


class Endpoint:
    """An OpenAI-compatible server on a thread of this process (it ends with it): GET /v1/models lists
    `models`, POST /v1/chat/completions answers; any other route is a 404.
    Every other chat request (the first included) is answered `status`. Records the model each asks for."""

    def __init__(self, models: list[str], status: int = 200) -> None:
        self.models = models
        self.status = status  # of every other chat request, the first included
        self.asked: list[str] = []
        self.lock = threading.Lock()
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _send(self, status: int, body: dict[str, Any]) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:  # noqa: N802
                if self.path.rstrip("/") == "/v1/models":
                    self._send(200, {"object": "list", "data": [{"id": m, "object": "model"} for m in endpoint.models]})
                else:
                    self._send(404, {"error": {"message": f"no route GET {self.path}"}})

            def do_POST(self) -> None:  # noqa: N802
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))) or b"{}")
                if self.path != "/v1/chat/completions":
                    self._send(404, {"error": {"message": f"no route POST {self.path}"}})
                    return
                with endpoint.lock:
                    endpoint.asked.append(body.get("model"))
                    n = len(endpoint.asked)
                if endpoint.status != 200 and n % 2 == 1:
                    self._send(endpoint.status, {"error": {"message": "the model refused"}})
                    return
                self._send(
                    200,
                    {
                        "id": "x",
                        "object": "chat.completion",
                        "created": 0,
                        "model": body.get("model"),
                        "choices": [
                            {
                                "index": 0,
                                "finish_reason": "stop",
                                "message": {"role": "assistant", "content": "<answer>3</answer>"},
                            }
                        ],
                        "usage": {"prompt_tokens": 1, "completion_tokens": 1},
                    },
                )

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def endpoint() -> Iterator[Endpoint]:
    server = Endpoint(["served-model"])
    yield server
    server.close()


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("suite") / "toy"
    build_suite(out, "toy", [TaskPlan("toy_dots", 3, 0)])
    return out


@pytest.fixture
def busy_port() -> Iterator[int]:
    """A port of 127.0.0.1 some other program listens on."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        yield s.getsockname()[1]


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # closed again: nothing listens there


def _eval(suite: Path, run: Path, *extra: str) -> Any:
    return runner.invoke(app, ["eval", str(suite), "--run", str(run), "--no-progress", "-c", "direct", *extra])


# ------------------------------------------------------------------------- 1. --base-url and --model


def test_base_url_without_model_asks_the_only_model_the_server_lists(
    suite: Path, endpoint: Endpoint, tmp_path: Path
) -> None:
    r = _eval(suite, tmp_path / "run", "--base-url", endpoint.url)
    assert r.exit_code == 0, r.output
    assert f"using model served-model, the only one {endpoint.url} lists" in _one_line(r.output)
    assert endpoint.asked and set(endpoint.asked) == {"served-model"}


def test_base_url_with_several_listed_models_names_them(suite: Path, tmp_path: Path) -> None:
    server = Endpoint(["model-a", "model-b"])
    try:
        r = _eval(suite, tmp_path / "run", "--base-url", server.url)
    finally:
        server.close()
    assert r.exit_code == 2, r.output
    assert f"{server.url} lists 2 models: model-a, model-b; choose one with --model" in _one_line(r.output)
    assert server.asked == []


def test_chance_with_a_base_url_is_refused(suite: Path, endpoint: Endpoint, tmp_path: Path) -> None:
    r = _eval(suite, tmp_path / "run", "--base-url", endpoint.url, "--model", "chance")
    assert r.exit_code == 2, r.output
    assert "chance is the built-in offline baseline; name the served model with --model" in _one_line(r.output)
    assert endpoint.asked == []


# ------------------------------------------------------------------- 2. the causes of failed samples


def test_a_run_where_every_sample_failed_names_the_status_and_the_fix(
    suite: Path, endpoint: Endpoint, tmp_path: Path
) -> None:
    r = _eval(suite, tmp_path / "run", "--base-url", f"{endpoint.url}/chat/completions", "--model", "served-model")
    assert r.exit_code == 4, r.output
    out = _one_line(r.output)
    assert "every sample(s) failed (3 of 3), with HTTP 404; the most frequent causes:" in out
    assert "3 × rejected: HTTP 404:" in out
    assert "hint: --base-url should end in /v1, not /chat/completions" in out
    assert "see the error column" not in out


def test_a_run_where_some_samples_failed_counts_each_cause(suite: Path, tmp_path: Path) -> None:
    server = Endpoint(["m"], status=400)  # requests 1 and 3 of 3 refused (a 400 is not retried)
    try:
        first = _eval(suite, tmp_path / "run", "--base-url", server.url, "--model", "m")
        server.status = 200
        again = _eval(suite, tmp_path / "run", "--base-url", server.url, "--model", "m")
    finally:
        server.close()
    out = _one_line(first.output)
    assert first.exit_code == 3, first.output
    assert "some sample(s) failed (2 of 3); the most frequent causes:" in out
    assert '2 × rejected: HTTP 400: {"error": {"message": "the model refused"}}' in out
    assert "hint:" not in out and "rerun the same command to retry them" in out
    assert again.exit_code == 0, again.output  # the rerun retried them


def test_failure_lines_fit_the_width_and_hint_at_a_refused_connection() -> None:
    from vcot.engine.diagnose import failure_lines

    url = "http://127.0.0.1:9/v1"
    refused = f"connection: connection refused: nothing listens at {url} (gave up after 6 attempts)"
    lines = failure_lines([refused] * 5 + ["rejected: HTTP 400: bad\nrequest"] * 2 + [None], url, "m", width=60)
    assert lines[0].startswith("  5 × connection: connection refused") and lines[0].endswith("…")
    assert lines[1] == "  2 × rejected: HTTP 400: bad request"
    assert any(line.startswith(f"  hint: nothing listens at {url}") for line in lines)
    assert all(len(line) <= 60 for line in lines)


# ------------------------------------------------------------------------------- 3. a closed port


def test_a_closed_port_is_refused_at_once_before_any_sample(suite: Path, tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    t0 = time.perf_counter()
    r = _eval(suite, tmp_path / "run", "--base-url", url, "--model", "m")
    assert time.perf_counter() - t0 < 5
    assert r.exit_code == 2, r.output
    assert f"connection refused: nothing listens at {url}" in _one_line(r.output)
    assert not (tmp_path / "run").exists()  # nothing written: no sample was attempted


def test_a_closed_port_without_model_is_refused_too(suite: Path, tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    r = _eval(suite, tmp_path / "run", "--base-url", url)
    assert r.exit_code == 2 and f"connection refused: nothing listens at {url}" in _one_line(r.output), r.output


def test_a_call_to_a_closed_port_says_refused_not_timed_out() -> None:
    import asyncio

    from vcot.engine.clients.base import CallContext
    from vcot.engine.clients.openai_compat import OpenAICompatClient
    from vcot.engine.errors import RetryableError
    from vcot.engine.settings import GenSettings
    from vcot.messages import Message, TextPart

    url = f"http://127.0.0.1:{_closed_port()}/v1"

    async def call() -> None:
        client = OpenAICompatClient("m", url, None)
        try:
            await client.complete(
                [Message("user", [TextPart("hi")])], None, GenSettings(), CallContext("run", "direct", "u", 0, 0, None)
            )  # type: ignore[arg-type]
        finally:
            await client.aclose()

    with pytest.raises(RetryableError, match="connection refused: nothing listens at") as caught:
        asyncio.run(call())
    assert caught.value.kind == "connection"


# ------------------------------------------------------------------------ 4. report on the wrong folder


def test_report_on_a_suite_says_it_is_a_suite(suite: Path) -> None:
    r = runner.invoke(app, ["report", str(suite)])
    assert r.exit_code == 2, r.output
    assert (
        f"{suite} is a suite (it has manifest.json and instances.jsonl); pass a run folder (vcot eval "
        f"{suite} --run DIR writes one)"
    ) in _one_line(r.output)
    assert not (suite / "report").exists()


def test_report_on_a_missing_folder_says_not_found(tmp_path: Path) -> None:
    r = runner.invoke(app, ["report", str(tmp_path / "nope")])
    assert r.exit_code == 2 and f"{tmp_path / 'nope'} not found" in _one_line(r.output), r.output


# ------------------------------------------------------------------------------------- 5. shard sets


@pytest.fixture(scope="module")
def shard_sets(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    from vcot.shards import generate_shards

    root = tmp_path_factory.mktemp("sets")
    for fmt in ("folder", "parquet"):
        generate_shards(root / fmt, "toy", [TaskPlan("toy_dots", 4, 0)], 2, fmt)
    return {"folder": root / "folder", "parquet": root / "parquet"}


@pytest.mark.parametrize("command", ["validate", "eval", "gallery", "audit"])
def test_suite_commands_on_a_shard_set_say_what_it_is(shard_sets: dict[str, Path], command: str) -> None:
    folder = shard_sets["folder"]
    r = runner.invoke(app, [command, str(folder)])
    assert r.exit_code == 2, r.output
    out = _one_line(r.output)
    assert f"{folder} is a shard set (vcot generate --shards), not a suite;" in out
    assert f"each of its shards is a suite folder: pass one, e.g. {folder / 'shard-00000'}" in out
    assert '(docs/scale.md, "Formats")' in out and "lacks field" not in out


def test_a_parquet_shard_set_says_how_to_read_it(shard_sets: dict[str, Path]) -> None:
    r = runner.invoke(app, ["validate", str(shard_sets["parquet"])])
    assert r.exit_code == 2, r.output
    assert "is a shard set (vcot generate --shards), not a suite; read it with datasets.load_dataset(" in _one_line(
        r.output
    )


# ------------------------------------------------------------------------------------- 6. a busy port


def _in_use(port: int) -> str:
    return f"port {port} is in use on 127.0.0.1; pass --port 0 for a free one"


def test_serve_mock_on_a_busy_port(busy_port: int) -> None:
    r = runner.invoke(app, ["serve-mock", "--port", str(busy_port)])
    assert r.exit_code == 2 and _in_use(busy_port) in _one_line(r.output), r.output
    assert "Errno" not in r.output


def test_human_on_a_busy_port(suite: Path, busy_port: int, tmp_path: Path) -> None:
    r = runner.invoke(
        app, ["human", str(suite), "--out", str(tmp_path / "study"), "--participants", "2", "--port", str(busy_port)]
    )
    assert r.exit_code == 2 and _in_use(busy_port) in _one_line(r.output), r.output


def test_annotate_on_a_busy_port(suite: Path, busy_port: int, tmp_path: Path) -> None:
    from vcot.engine.trajectories import TRAJ_DIR, TRAJ_FILE, Trajectory, TrajectoryStep
    from vcot.schema import Instance
    from vcot.suite import write_suite
    from vcot.tasks.base import Sample

    inst = Instance(
        uid="u1",
        task="toy_dots",
        domain="EG",
        question="How many?",
        image="images/u1.png",
        answer="5",
        answer_type="integer",
    )
    write_suite(tmp_path / "s", "t", [Sample(inst, {"images/u1.png": Image.new("RGB", (16, 16), (9, 9, 9))})])
    traj = Trajectory(
        "run1|m|vaot|u1|0",
        "run1",
        "m",
        "vaot",
        "u1",
        0,
        "toy_dots",
        "EG",
        "How many?",
        "5",
        "<answer>5</answer>",
        "images/u1.png",
        [TrajectoryStep(turn=1, model_text="<answer>5</answer>")],
        None,
    )
    (tmp_path / "run" / TRAJ_DIR).mkdir(parents=True)
    (tmp_path / "run" / TRAJ_DIR / TRAJ_FILE).write_text(traj.to_json() + "\n", encoding="utf-8")
    r = runner.invoke(
        app, ["annotate", str(tmp_path / "run"), "--suite", str(tmp_path / "s"), "--port", str(busy_port)]
    )
    assert r.exit_code == 2 and _in_use(busy_port) in _one_line(r.output), r.output


def test_curate_review_on_a_busy_port(busy_port: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import vcot.cli.curate as curate_cli
    import vcot.curate.review.app as review_app

    class Curation:
        def close(self) -> None:
            pass

    # Only binding is under test: the curation and its page are stand-ins.
    monkeypatch.setattr(curate_cli, "_open", lambda config: Curation())
    monkeypatch.setattr(review_app, "ReviewApp", lambda cur: object())
    r = runner.invoke(app, ["curate", "review", str(tmp_path / "curate.json"), "--port", str(busy_port)])
    assert r.exit_code == 2 and _in_use(busy_port) in _one_line(r.output), r.output


# ---------------------------------------------------------------------------------- 7. did you mean


def test_a_mistyped_task_gets_a_suggestion_and_the_list() -> None:
    r = runner.invoke(app, ["generate", "--task", "convex_hul", "-o", "x"])
    assert r.exit_code == 2, r.output
    out = _one_line(r.output)
    assert "unknown task 'convex_hul' — did you mean convex_hull? registered tasks: " in out
    assert "toy_dots" in out.split("registered tasks:", 1)[1]


def test_a_far_off_task_gets_the_list_only() -> None:
    r = runner.invoke(app, ["generate", "--task", "zzzz", "-o", "x"])
    assert r.exit_code == 2 and "unknown task 'zzzz'; registered tasks: " in _one_line(r.output), r.output


def test_a_mistyped_preset_gets_a_suggestion() -> None:
    r = runner.invoke(app, ["generate", "--preset", "mni", "-o", "x"])
    assert r.exit_code == 2, r.output
    assert "unknown preset 'mni' — did you mean mini? presets: mini, mira-synth, see2think-synth" in _one_line(r.output)


def test_a_mistyped_condition_gets_a_suggestion(suite: Path, tmp_path: Path) -> None:
    r = runner.invoke(app, ["eval", str(suite), "-c", "visual_cott", "--run", str(tmp_path / "run"), "--no-progress"])
    assert r.exit_code == 2, r.output
    out = _one_line(r.output)
    assert "unknown condition(s) visual_cott — did you mean visual_cot" in out
    assert "known: direct, " in out and "visual_cot_prefix_kN" in out
    r = runner.invoke(
        app, ["sweep", "--task", "toy_dots", "-c", "visual_cott", "--generate-only", "--out", str(tmp_path / "sweep")]
    )
    assert r.exit_code == 2 and "unknown condition(s) visual_cott — did you mean visual_cot" in _one_line(r.output)


def test_each_of_several_mistyped_names_gets_its_suggestion() -> None:
    from vcot.suggest import did_you_mean

    known = ["direct", "text_cot", "visual_cot"]
    assert (
        did_you_mean(["drect", "vsual_cot", "zzz"], known) == " — did you mean direct for drect, visual_cot for "
        "vsual_cot?"
    )
    assert did_you_mean("zzz", known) == ""


# ---------------------------------------------------------------------------------- 8. one vocabulary


def test_presets_are_called_preset_in_messages_and_help() -> None:
    r = runner.invoke(app, ["generate", "-o", "x"])
    assert r.exit_code == 2 and "give exactly one of --task or --preset" in _one_line(r.output), r.output
    help_text = _one_line(runner.invoke(app, ["generate", "--help"]).output)
    assert "a preset (--preset mini|mira-synth|see2think-synth)" in help_text
    assert "--suite mini" not in help_text
