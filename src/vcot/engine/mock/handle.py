"""A mock server in a child process, for tests and benchmarks: start it, reach its control endpoints, stop it.

Kept apart from the server so that the client side needs only the standard library.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any


class MockHandle:
    """A mock server running in a child process (tests, benchmarks): its URL and control endpoints."""

    def __init__(self, proc: Any, port: int) -> None:
        self.proc = proc
        self.port = port
        self.root = f"http://127.0.0.1:{port}"
        self.base_url = f"{self.root}/v1"

    def _call(self, method: str, path: str, payload: dict[str, Any] | None = None) -> Any:
        import urllib.request

        data = json.dumps(payload).encode() if payload is not None else None
        req = urllib.request.Request(
            self.root + path, data=data, method=method, headers={"Content-Type": "application/json"}
        )
        with urllib.request.urlopen(req, timeout=30) as r:
            return json.loads(r.read())

    def stats(self) -> dict[str, Any]:
        return self._call("GET", "/stats")

    def reset(self) -> None:
        self._call("POST", "/reset", {})

    def images(self) -> list[dict[str, Any]]:
        """Per request: uid, condition, epoch, turn, the sha256 of each image received and the request's text
        (record_images)."""
        return self._call("GET", "/images")

    def configure(self, **changes: Any) -> dict[str, Any]:
        return self._call("POST", "/config", changes)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except Exception:  # noqa: BLE001 - escalate when terminate is ignored
                self.proc.kill()
                self.proc.wait(5)


def spawn_mock_server(suite_dir: str | Path | None, *args: str, timeout: float = 30.0) -> MockHandle:
    """Start `vcot serve-mock` on a free port of 127.0.0.1 in a child process; `args` are extra CLI flags."""
    import subprocess
    import sys
    import tempfile

    port_file = Path(tempfile.mkdtemp(prefix="vcot-mock-")) / "port"
    cmd = [
        sys.executable,
        "-m",
        "vcot.cli",
        "serve-mock",
        "--port",
        "0",
        "--port-file",
        str(port_file),
        *(["--suite", str(suite_dir)] if suite_dir else []),
        *args,
    ]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + timeout
    while not port_file.exists():
        if proc.poll() is not None:
            err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
            raise RuntimeError(f"mock server exited with {proc.returncode}: {err[-2000:]}")
        if time.monotonic() > deadline:
            proc.kill()
            raise RuntimeError("mock server did not start in time")
        time.sleep(0.02)
    return MockHandle(proc, int(port_file.read_text()))
