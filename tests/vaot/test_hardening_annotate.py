"""Issue 18, local servers: the annotation page refuses requests for a non-loopback Host (DNS rebinding), needs
an access token when bound to a network address, and `annotate` / `serve-mock` warn about such addresses."""

from __future__ import annotations

import http.client
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from vcot.annotate import AnnotationApp, AnnotationServer, item_key
from vcot.engine.trajectories import TRAJ_DIR, TRAJ_FILE, Trajectory, TrajectoryStep, read_trajectories
from vcot.schema import Instance
from vcot.suite import read_suite, write_suite
from vcot.tasks.base import Sample

TID = "run1|model-x|vaot|u1|0"
FORM = "ar=1&rf=0.5&fu=0&annotator=alice"


@pytest.fixture
def run(tmp_path: Path) -> dict[str, Path]:
    suite_dir, run_dir = tmp_path / "suite", tmp_path / "run"
    inst = Instance(
        uid="u1",
        task="convex_hull",
        domain="EG",
        question="How many?",
        image="images/u1.png",
        answer="5",
        answer_type="integer",
    )
    write_suite(suite_dir, "t", [Sample(inst, {"images/u1.png": Image.new("RGB", (16, 16), (9, 9, 9))})])
    traj = Trajectory(
        TID,
        "run1",
        "model-x",
        "vaot",
        "u1",
        0,
        "convex_hull",
        "EG",
        "How many?",
        "5",
        "<answer>5</answer>",
        "images/u1.png",
        [TrajectoryStep(turn=1, model_text="So <answer>5</answer>")],
        None,
    )
    (run_dir / TRAJ_DIR).mkdir(parents=True)
    (run_dir / TRAJ_DIR / TRAJ_FILE).write_text(traj.to_json() + "\n", encoding="utf-8")
    return {"run_dir": run_dir, "suite_dir": suite_dir}


def _app(run: dict[str, Path]) -> AnnotationApp:
    return AnnotationApp(run["run_dir"], read_suite(run["suite_dir"]), read_trajectories(run["run_dir"]))


@pytest.fixture
def local(run: dict[str, Path]) -> Iterator[AnnotationServer]:
    with AnnotationServer(_app(run)) as srv:
        yield srv


def _request(
    port: int, method: str, path: str, headers: dict[str, str] | None = None, body: str | None = None
) -> tuple[int, dict[str, str], str]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        hdrs = dict(headers or {})
        if body is not None:
            hdrs.setdefault("Content-Type", "application/x-www-form-urlencoded")
        conn.request(method, path, body=body, headers=hdrs)
        resp = conn.getresponse()
        return resp.status, dict(resp.getheaders()), resp.read().decode("utf-8", "replace")
    finally:
        conn.close()


def test_is_loopback() -> None:
    from vcot.net import is_loopback

    for host in ("127.0.0.1", "127.1.2.3", "::1", "[::1]", "localhost", "LOCALHOST", "a.localhost"):
        assert is_loopback(host), host
    for host in ("0.0.0.0", "", "::", "192.168.1.5", "evil.example", "localhost.evil.example", "127.0.0.1.nip.io"):
        assert not is_loopback(host), host


def test_loopback_server_refuses_a_foreign_host_header(local: AnnotationServer) -> None:
    port = local.port
    for host in (f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}"):
        assert _request(port, "GET", "/", {"Host": host})[0] == 200, host
    for host in (f"evil.example:{port}", "evil.example", f"127.0.0.1.nip.io:{port}", ""):
        status, _, body = _request(port, "GET", "/", {"Host": host})
        assert status == 403 and "model-x" not in body, host
    assert _request(port, "GET", "/agreement.json", {"Host": f"evil.example:{port}"})[0] == 403
    path = f"/t/{item_key(TID)}"
    assert _request(port, "POST", path, {"Host": f"evil.example:{port}"}, FORM)[0] == 403
    assert local.app.store.all() == []
    assert _request(port, "POST", path, {"Host": f"127.0.0.1:{port}"}, FORM)[0] == 303


def test_network_address_needs_the_token(run: dict[str, Path]) -> None:
    with AnnotationServer(_app(run), host="0.0.0.0") as srv:
        port, token = srv.port, srv.token
        assert token and len(token) >= 20 and srv.url.endswith(f"/?token={token}")
        host = {"Host": f"192.0.2.7:{port}"}  # any name the machine is reached by
        assert _request(port, "GET", "/", host)[0] == 403
        assert _request(port, "GET", "/?token=wrong", host)[0] == 403
        assert _request(port, "GET", f"/input/{item_key(TID)}", host)[0] == 403
        status, headers, _ = _request(port, "GET", f"/?token={token}", host)
        assert status == 200
        cookie = headers["Set-Cookie"].split(";")[0]
        assert "HttpOnly" in headers["Set-Cookie"] and "SameSite=Strict" in headers["Set-Cookie"]
        # Links and the form carry no token: the cookie set on the first visit authenticates them.
        assert _request(port, "GET", f"/t/{item_key(TID)}", {**host, "Cookie": cookie})[0] == 200
        path = f"/t/{item_key(TID)}"
        assert _request(port, "POST", path, host, FORM)[0] == 403
        assert srv.app.store.all() == []
        assert _request(port, "POST", path, {**host, "Cookie": cookie}, FORM)[0] == 303
        assert len(srv.app.store.all()) == 1


class _Lines:
    """Lines of a child's stream, read on a thread so that waiting for one never blocks past a deadline."""

    def __init__(self, stream: Any) -> None:
        self.lines: list[str] = []
        threading.Thread(target=lambda: self.lines.extend(iter(stream.readline, "")), daemon=True).start()

    def wait_for(self, needle: str, timeout: float = 30) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and not any(needle in line for line in list(self.lines)):
            time.sleep(0.05)
        return "".join(self.lines)


def _stop(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def test_annotate_on_a_network_address_warns_and_prints_the_token_url(run: dict[str, Any]) -> None:
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "vcot.cli",
            "annotate",
            str(run["run_dir"]),
            "--suite",
            str(run["suite_dir"]),
            "--port",
            "0",
            "--host",
            "0.0.0.0",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    stdout, stderr = _Lines(proc.stdout), _Lines(proc.stderr)
    try:
        out = stdout.wait_for("http://")
        warning = stderr.wait_for("token", timeout=5)
    finally:
        _stop(proc)
    assert "warning" in warning and "0.0.0.0" in warning, warning
    url = next((line.strip() for line in out.splitlines() if line.startswith("http://")), "")
    assert "?token=" in url, out


def test_serve_mock_on_a_network_address_warns(tmp_path: Path) -> None:
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "vcot.cli",
            "serve-mock",
            "--host",
            "0.0.0.0",
            "--port",
            "0",
            "--port-file",
            str(tmp_path / "port"),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        warning = _Lines(proc.stderr).wait_for("warning", timeout=20)
    finally:
        _stop(proc)
    assert "warning: listening on 0.0.0.0" in warning, warning
