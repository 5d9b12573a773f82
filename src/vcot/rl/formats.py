"""One converter per message format: vcot's `Message`s (what an episode sends) → what a trainer reads.

Training prompts are an episode's first messages and training observations its later ones
(`vcot.conditions` builds them, `vcot.rl.env` runs them), converted here and nowhere else:

- `to_hf`: Hugging Face chat form, every content a part list, each picture a `{"type": "image", "image": PIL}`
  part (TRL's environment observations and tool results, verifiers, SkyRL, OpenEnv before its wire form).
- `to_trl`: TRL's dataset form: `{"type": "image"}` placeholders and the pictures apart, in order.
- `to_verl`: verl's `RLHFDataset` form: each content one string with `<image>` in place of each picture.
- `to_openai`: OpenAI chat-completions form, pictures as PNG data URIs (the evaluation clients' converter).
- `from_hf`: the Hugging Face form back to `Message`s, for an adapter that holds `VcotEnv`'s observations and
  speaks another format (`to_openai(from_hf(observation))`).

Pictures travel as PIL images when the episode was built over `vcot.images.InMemoryPictures` (never encoded);
an `EncodedImage` without a picture is decoded from its data URI.
"""

from __future__ import annotations

import base64
import io
from collections.abc import Sequence
from typing import Any

from PIL import Image

from vcot.images import EncodedImage
from vcot.messages import ImagePart, Message, TextPart, ToolSpec

# verl's RLHFDataset splits string contents on these; a literal one inside a text would shift every picture.
VERL_PLACEHOLDERS = ("<image>", "<video>", "<audio>")


class FormatError(ValueError):
    """A message cannot be put in the asked format (the message names what and where)."""


def picture_of(image: EncodedImage) -> Image.Image:
    """The PIL picture an `EncodedImage` carries, decoded from its data URI when it carries none."""
    if image.picture is not None:
        return image.picture
    raw = base64.b64decode(image.data_uri.split(",", 1)[1])
    with Image.open(io.BytesIO(raw)) as im:
        return im.convert("RGB")


def _tool_calls(message: Message) -> list[dict[str, Any]]:
    return [
        {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
        for c in message.tool_calls
    ]


def to_hf(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """Hugging Face chat messages with the pictures inside their parts."""
    out = []
    for m in messages:
        content: list[dict[str, Any]] = []
        for part in m.parts:
            if isinstance(part, ImagePart):
                content.append({"type": "image", "image": picture_of(part.image)})
            elif isinstance(part, TextPart):
                content.append({"type": "text", "text": part.text})
        msg: dict[str, Any] = {"role": m.role, "content": content}
        if m.tool_call_id is not None:
            msg["tool_call_id"] = m.tool_call_id
        if m.tool_calls:
            msg["tool_calls"] = _tool_calls(m)
        out.append(msg)
    return out


def from_hf(messages: Sequence[Any]) -> list[Message]:
    """Hugging Face chat messages (what `VcotEnv` observes: PIL pictures inside their parts, or plain string
    contents) back as vcot `Message`s, so that the one converter of another format lays them out
    (`to_openai(from_hf(obs))`)."""
    import json

    from vcot.images import InMemoryPictures
    from vcot.messages import ToolCall

    out = []
    for m in messages:
        content = m.get("content")
        parts: list[ImagePart | TextPart] = []
        for part in [{"type": "text", "text": content}] if isinstance(content, str) else content or []:
            if part.get("type") == "image" and part.get("image") is not None:
                parts.append(ImagePart(InMemoryPictures.wrap(part["image"], "")))
            elif part.get("type") == "text":
                parts.append(TextPart(str(part.get("text", ""))))
        calls = []
        for call in m.get("tool_calls") or []:
            fn = call.get("function", call)
            args = fn.get("arguments", "{}")
            calls.append(
                ToolCall(
                    str(call.get("id", "")),
                    str(fn.get("name", "")),
                    args if isinstance(args, str) else json.dumps(args),
                )
            )
        out.append(Message(m["role"], parts, calls, m.get("tool_call_id")))
    return out


def to_trl(messages: Sequence[Message]) -> tuple[list[dict[str, Any]], list[Image.Image]]:
    """TRL's conversational prompt (`{"type": "image"}` placeholders) and its pictures in order."""
    prompt, pictures = [], []
    for m in to_hf(messages):
        content = []
        for part in m["content"]:
            if part["type"] == "image":
                pictures.append(part["image"])
                content.append({"type": "image"})
            else:
                content.append(part)
        prompt.append({**m, "content": content})
    return prompt, pictures


def to_verl(messages: Sequence[Message], where: str = "prompt") -> tuple[list[dict[str, str]], list[Image.Image]]:
    """verl's prompt (each content one string, `<image>` where a picture goes) and its pictures in order."""
    prompt, pictures = to_trl(messages)
    return verl_strings(prompt, len(pictures), where), pictures


def verl_strings(prompt: Sequence[Any], n_images: int, where: str = "prompt") -> list[dict[str, str]]:
    """TRL-form messages (part lists, or plain strings) as verl reads them: each content one string, an image
    part becoming `<image>` in place; refuses a text holding a literal placeholder and a count that differs
    from `n_images`."""
    out = []
    seen = 0
    for message in prompt:
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, str):
            parts: list[Any] = [{"type": "text", "text": content}]
        elif isinstance(content, list):
            parts = content
        else:
            raise FormatError(f"{where}: message content is neither text nor a list of parts")
        text = []
        for part in parts:
            kind = part.get("type") if isinstance(part, dict) else None
            if kind == "image":
                text.append("<image>")
                seen += 1
            elif kind == "text":
                chunk = str(part.get("text", ""))
                if any(p in chunk for p in VERL_PLACEHOLDERS):
                    raise FormatError(f"{where}: a text contains a literal {VERL_PLACEHOLDERS} placeholder")
                text.append(chunk)
            else:
                raise FormatError(f"{where}: unsupported content part {kind!r}")
        out.append({"role": str(message.get("role", "user")), "content": "".join(text)})
    if seen != n_images:
        raise FormatError(f"{where}: {seen} image placeholders for {n_images} images")
    return out


def _with_data_uris(messages: Sequence[Message]) -> list[Message]:
    from vcot.draw.png import encode_png
    from vcot.images import ImagePolicy, encode_image_bytes

    policy = ImagePolicy()
    out = []
    for m in messages:
        parts = [
            ImagePart(encode_image_bytes(encode_png(p.image.picture), policy, p.image.source))
            if isinstance(p, ImagePart) and not p.image.data_uri and p.image.picture is not None
            else p
            for p in m.parts
        ]
        out.append(Message(m.role, parts, list(m.tool_calls), m.tool_call_id))
    return out


def to_openai(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """OpenAI chat-completions messages, pictures as data URIs (encoded here when the episode kept PIL)."""
    from vcot.engine.clients.openai_compat import to_openai_messages

    return to_openai_messages(_with_data_uris(messages))


def tool_dicts(tools: Sequence[ToolSpec] | None) -> list[dict[str, Any]] | None:
    """OpenAI-style function definitions of an episode's tools (None when it has none)."""
    if not tools:
        return None
    from vcot.engine.clients.openai_compat import to_openai_tools

    return to_openai_tools(tools)
