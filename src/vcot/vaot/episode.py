"""The VAoT closed loop as an episode: `vaot_norender`, `vaot`, `vaot_wrongrender`.

All three share the prompt, the tools and the interaction budget; they differ only in what comes back
after an action: an acknowledgement (`vaot_norender`), the faithfully rendered state (`vaot`), or a
natural-looking corrupted state: `vaot_wrongrender` alters task-relevant evidence (`modify_key`),
`vaot_wrongrender_nonkey` only irrelevant content (`modify_non_key`). Each variant is its own condition,
so the run identity says which one ran.
The model is never told which. Models without tool calling may write fenced JSON action blocks instead
(the prompt says how); both paths go through the same validation. `vcot.conditions` registers these
episodes as conditions.

Episodes are deterministic given the replies (the corruption RNG is seeded by uid, epoch, turn and
action index), so a stored run can be replayed to rebuild every returned image (`trajectory.py`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from PIL import Image

from vcot.draw.png import encode_png, pixel_digest
from vcot.images import ImagePolicy, ImageSource, InMemoryPictures, encode_image_bytes
from vcot.messages import ImagePart, Message, ModelResponse, TextPart, ToolSpec
from vcot.prompts.templates import ANSWER_ENDING, COT_ENDING, format_question
from vcot.schema import Instance
from vcot.vaot.actions import (
    COORDINATE_NOTE,
    MAX_TURNS,
    ParsedTurn,
    action_names,
    parse_json_blocks,
    parse_tool_calls,
    tool_definitions,
)
from vcot.vaot.session import (
    BUDGET_SPENT,
    NORENDER_ACK,
    REJECTED_PREFIX,
    RENDER_ACK,
    ZOOM_ACK,
    DrawingSession,
)

# Condition → the corruption applied to every rendered action (None: rendered faithfully or not at all).
CORRUPTION_OF = {
    "vaot_norender": None,
    "vaot": None,
    "vaot_wrongrender": "modify_key",
    "vaot_wrongrender_nonkey": "modify_non_key",
}
VAOT_CONDITIONS = tuple(CORRUPTION_OF)


def drawing_condition(corruption: str | None) -> str:
    """The rendering condition of a corruption (None: faithful): what a trainer's `corruption` knob names."""
    for condition, kind in CORRUPTION_OF.items():
        if kind == corruption and condition != "vaot_norender":
            return condition
    raise ValueError(
        f"unknown corruption {corruption!r}; choose None or one of "
        f"{', '.join(repr(k) for k in CORRUPTION_OF.values() if k)}"
    )


VAOT_PROMPT = (
    "Question: {question}\n\n"
    "You can work on the image with visual actions: draw lines, rays, polylines, polygons, circles and arrows, "
    "mark and label points, highlight boxes, write short notes, crop and zoom, or mask/isolate regions. "
    "Call them as tools, or, if you cannot call tools, write each action as a fenced ```json block such as "
    '{{"action": "draw_line", "x1": 10, "y1": 20, "x2": 200, "y2": 40}}. Available actions: {actions}. '
    "{coords} The image is {width}×{height} pixels. You get a response after each round of actions, "
    "for at most {budget} rounds.\n\n" + COT_ENDING
)
BUDGET_NOTE = "The action budget is used up. Give your final answer now. " + ANSWER_ENDING
NO_ACTION_REMINDER = "No valid action was found. Continue, or give your final answer. " + ANSWER_ENDING


def prompt_material() -> list[str]:
    """Every text and tool spec a VAoT episode can send, for the prompt version recorded with each run."""
    import json

    return [
        VAOT_PROMPT,
        COORDINATE_NOTE,
        NORENDER_ACK,
        RENDER_ACK,
        ZOOM_ACK,
        BUDGET_NOTE,
        NO_ACTION_REMINDER,
        REJECTED_PREFIX,
        BUDGET_SPENT,
        f"budget={MAX_TURNS}",
        json.dumps(tool_definitions(), sort_keys=True),
    ]


@dataclass
class ReturnedImage:
    """An image sent back to the model, kept for the trajectory (content-addressed by pixel digest)."""

    turn: int
    call_id: str
    kind: str  # "state" or "zoom"
    image: Image.Image
    digest: str


@dataclass
class VaotEpisode:
    instance: Instance
    condition: str
    epoch: int
    images: ImageSource
    budget: int = MAX_TURNS
    tools: list[ToolSpec] = field(default_factory=list)
    state: Image.Image | None = None
    turn: int = 0
    steps: list[dict[str, Any]] = field(default_factory=list)
    returned: list[ReturnedImage] = field(default_factory=list)
    info: dict[str, Any] = field(default_factory=dict)
    session: DrawingSession | None = None

    def __post_init__(self) -> None:
        if self.condition not in VAOT_CONDITIONS:
            raise ValueError(f"not a VAoT condition: {self.condition!r}")
        self.corruption = CORRUPTION_OF[self.condition]
        self.tools = [
            ToolSpec(t["function"]["name"], t["function"]["description"], t["function"]["parameters"])
            for t in tool_definitions()
        ]
        self._policy: ImagePolicy = getattr(self.images, "policy", None) or ImagePolicy()

    # -- Episode protocol ---------------------------------------------------------------------------

    def first_messages(self) -> list[Message]:
        encoded = self.images(self.instance.image)
        picture = encoded.picture if encoded.picture is not None else _decode(encoded.data_uri)
        self.session = DrawingSession(
            picture,
            self.instance.uid,
            epoch=self.epoch,
            render=self.condition != "vaot_norender",
            corruption=self.corruption,
            meta=self.instance.meta,
            max_turns=self.budget,
        )
        self.state = self.session.image
        text = VAOT_PROMPT.format(
            question=format_question(self.instance),
            actions=", ".join(action_names()),
            coords=COORDINATE_NOTE,
            width=self.state.width,
            height=self.state.height,
            budget=self.budget,
        )
        self.info = {
            "images": [encoded.record()],
            "vaot": {"condition": self.condition, "budget": self.budget, "corruption": self.corruption},
        }
        return [Message("user", [ImagePart(encoded), TextPart(text)])]

    def on_response(self, response: ModelResponse) -> list[Message] | None:
        assert self.session is not None, "first_messages() must be called first"
        self.turn = self.session.begin_turn()
        w, h = self.state.size
        via_tools = bool(response.tool_calls)
        if via_tools:
            parsed = parse_tool_calls(
                [{"id": c.id, "name": c.name, "arguments": c.arguments} for c in response.tool_calls], w, h
            )
        else:
            parsed = parse_json_blocks(response.text or "", w, h)
            if not parsed.actions and not parsed.errors:
                return None  # no action requested: the model has answered
        step = {"turn": self.turn, "via": "tools" if via_tools else "json", "actions": [], "errors": parsed.errors}
        replies = self._execute(parsed, step)
        self.steps.append(step)
        if self.turn >= self.budget:
            replies.append(Message("user", [TextPart(BUDGET_NOTE)]))
        elif not via_tools and not parsed.actions:
            replies.append(Message("user", [TextPart(NO_ACTION_REMINDER)]))
        return replies

    def record(self) -> dict[str, Any]:
        """Images sent first; once the episode has run, every step's actions, rejected actions, the
        digests of returned images and the corruption applied to each (never shown to the model)."""
        if not self.steps:
            return self.info
        corruptions = [a["corruption"] for s in self.steps for a in s["actions"] if "corruption" in a]
        return {**self.info, "vaot": {**self.info.get("vaot", {}), "steps": self.steps, "corruptions": corruptions}}

    # -- execution ----------------------------------------------------------------------------------

    def _execute(self, parsed: ParsedTurn, step: dict[str, Any]) -> list[Message]:
        assert self.session is not None
        tool_msgs: list[Message] = []
        feedback: list[TextPart | ImagePart] = []
        for action, call_id in zip(parsed.actions, parsed.call_ids, strict=True):
            record: dict[str, Any] = {"call_id": call_id, "action": action.model_dump()}
            out = self.session.execute(action)
            parts: list[TextPart | ImagePart] = [TextPart(out.text)]
            if out.corruption is not None:
                record["corruption"] = out.corruption
            if out.error is not None:
                record["error"] = out.error
            if out.view is not None:
                digest = pixel_digest(out.view)
                self.returned.append(ReturnedImage(self.turn, call_id, out.kind, out.view, digest))
                record["returned_image"] = digest
                parts.append(ImagePart(self._encode(out.view, digest)))
            step["actions"].append(record)
            if call_id.startswith("block_"):
                feedback.extend(parts)
            else:
                tool_msgs.append(Message("tool", parts, tool_call_id=call_id))
        self.state = self.session.image
        for error, call_id in zip(parsed.errors, parsed.error_ids, strict=True):
            text = f"{REJECTED_PREFIX}{error}"
            if call_id.startswith("block_"):
                feedback.append(TextPart(text))
            else:
                tool_msgs.append(Message("tool", [TextPart(text)], tool_call_id=call_id))
        if feedback:
            tool_msgs.append(Message("user", feedback))
        return tool_msgs

    def _encode(self, view: Image.Image, digest: str):  # noqa: ANN202 - EncodedImage
        source = f"vaot/{digest[:16]}.png"
        if getattr(self.images, "encodes", True) is False:  # training: the picture itself, never a PNG
            return InMemoryPictures.wrap(view, source)
        return encode_image_bytes(encode_png(view), self._policy, source)


def _decode(data_uri: str) -> Image.Image:
    import base64
    import io

    raw = base64.b64decode(data_uri.split(",", 1)[1])
    with Image.open(io.BytesIO(raw)) as im:
        return im.convert("RGB")


def make_vaot_episode(instance: Instance, condition: str, epoch: int, images: ImageSource) -> VaotEpisode:
    return VaotEpisode(instance, condition, epoch, images)
