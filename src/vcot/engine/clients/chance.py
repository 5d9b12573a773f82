"""The built-in `chance` model: offline, answers uniformly from the instance's answer space."""

from __future__ import annotations

import json
from collections.abc import Sequence

from vcot.engine.chance import chance_answer, chance_probe_answers
from vcot.engine.clients.base import CallContext, ModelClient
from vcot.engine.settings import GenSettings
from vcot.messages import Message, ModelResponse, ToolSpec


class ChanceClient(ModelClient):
    provider = "builtin"
    model = "chance"

    async def complete(
        self, messages: Sequence[Message], tools: Sequence[ToolSpec] | None, settings: GenSettings, ctx: CallContext
    ) -> ModelResponse:
        text = f"<answer>{chance_answer(ctx.instance, ctx.condition, ctx.epoch)}</answer>"
        if ctx.condition == "state_probe":  # issue 20: a guess for every step too
            steps = chance_probe_answers(ctx.instance, ctx.epoch)
            text = "".join(f"<step{k}>{v}</step{k}>\n" for k, v in sorted(steps.items())) + text
        raw = json.dumps({"model": "chance", "content": text})
        return ModelResponse(text=text, finish_reason="stop", input_tokens=0, output_tokens=0, raw=raw)
