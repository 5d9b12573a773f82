"""The runner starts its workers one per turn of the event loop (Runner.run): a request leaves once its
connection is up, not after every other worker has built its own (docs/engine.md, "Performance")."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

import pytest

from vcot.engine import runner as runner_module
from vcot.engine.clients.base import CallContext, ModelClient
from vcot.engine.runner import EvalSpec, run_eval
from vcot.engine.settings import GenSettings
from vcot.messages import Message, ModelResponse, ToolSpec


class _SocketLikeClient(ModelClient):
    """Each call "connects" (one turn of the loop, as a socket becomes writable only at the loop's next poll)
    and then "sends"; `built_when_sent` records how many calls had been built when each request left."""

    provider = "test"
    model = "socket-like"

    def __init__(self) -> None:
        self.built = 0
        self.built_when_sent: list[int] = []

    async def complete(
        self, messages: Sequence[Message], tools: Sequence[ToolSpec] | None, settings: GenSettings, ctx: CallContext
    ) -> ModelResponse:
        self.built += 1
        await asyncio.sleep(0)  # the connection comes up at the loop's next turn
        self.built_when_sent.append(self.built)
        await asyncio.sleep(0.01)  # the server's latency
        return ModelResponse(text="<answer>1</answer>", finish_reason="stop", input_tokens=1, output_tokens=1, raw="{}")


@pytest.mark.parametrize("concurrency", [16, 64])
def test_the_first_requests_leave_before_the_other_workers_have_built_theirs(
    suite_large: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, concurrency: int
) -> None:
    client = _SocketLikeClient()
    monkeypatch.setattr(runner_module, "make_client", lambda *a, **k: client)
    result = run_eval(
        EvalSpec(
            suite=suite_large,
            conditions=["direct"],
            concurrency=concurrency,
            limit=None,
            run_dir=tmp_path / "run",
            write_results=False,
        )
    )
    assert result.progress.done == len(client.built_when_sent) > concurrency
    # Workers started all at once would each build their request before the loop's next turn: the first
    # request would leave only once all `concurrency` (and more) had been built. Started one per turn, the
    # k-th request leaves once at most one more has been built after it.
    first_wave = client.built_when_sent[:concurrency]
    assert all(built <= k + 2 for k, built in enumerate(first_wave, start=1)), first_wave
