"""A local OpenAI-compatible server with a scripted policy, latency and fault injection (`vcot serve-mock`).

Real HTTP/1.1 on asyncio streams (no framework), so that faults can be exact. One concept per module:

- `config`: MockConfig, the knobs (`vcot serve-mock` flags, `POST /config`);
- `identify`: which instance, condition, epoch and turn a request is about (SuiteIndex, pixel keys,
  condition guessing);
- `policies`: what the mock answers (correct rate, wrong answers, tool-call scripts, curation replies);
- `faults`: fault injection (429, 500, hangs, malformed or truncated bodies, drops, hostile text) and latency;
- `wire`: HTTP/1.1 framing;
- `server`: MockServer (routes, counters, the chat endpoint) and run_server;
- `handle`: spawn_mock_server and MockHandle, a server in a child process for tests and benchmarks.
"""

from __future__ import annotations

from vcot.engine.mock.config import MockConfig
from vcot.engine.mock.faults import DEFAULT_FAULTS, FAULT_KINDS, HOSTILE_TEXT
from vcot.engine.mock.handle import MockHandle, spawn_mock_server
from vcot.engine.mock.identify import SuiteIndex, guess_condition, pixel_key
from vcot.engine.mock.policies import curation_reply, wrong_answer
from vcot.engine.mock.server import MockServer, run_server

__all__ = [
    "DEFAULT_FAULTS",
    "FAULT_KINDS",
    "HOSTILE_TEXT",
    "MockConfig",
    "MockHandle",
    "MockServer",
    "SuiteIndex",
    "curation_reply",
    "guess_condition",
    "pixel_key",
    "run_server",
    "spawn_mock_server",
    "wrong_answer",
]
