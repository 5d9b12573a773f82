"""Which suite instance, condition, epoch and turn a request is about.

Requests tagged by the engine (`--tag-requests`; header X-Vcot-Call = run|uid|condition|epoch|turn) are
exact. Untagged requests are matched by the first image's bytes against the suite's input images (works
when images are sent unresized), then by question text when it is unique in the suite, then by the first
image's pixels (a harness that re-encodes PNGs); the condition is then guessed from MIRA's wording
(visual_cot_corrupted reads as visual_cot). Unidentified requests get None as uid.
"""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote


@dataclass
class SuiteItem:
    uid: str
    answer: str
    answer_type: str
    options: list[str] | None


class SuiteIndex:
    """What the policy needs from a suite: gold answers by uid, image digests, unique questions."""

    def __init__(self, suite_dir: str | Path | None) -> None:
        self.items: dict[str, SuiteItem] = {}
        self.by_image: dict[str, str] = {}
        self.by_question: dict[str, str | None] = {}
        self.instances: dict[str, Any] = {}
        self.suite: Any = None
        self._input_images: list[tuple[Any, str, str]] = []  # (suite, image path, uid)
        self._by_pixels: dict[str, str] | None = None
        if suite_dir is None:
            return
        # Imported here: a server started without a suite (the curation tests) needs neither.
        from vcot.prompts.templates import format_question
        from vcot.suite import read_suite

        root = Path(suite_dir)
        # A folder of suites (the `suites/` folder of `vcot sweep`) is served as one: uids differ across them.
        roots = (
            [root]
            if (root / "manifest.json").is_file() or not root.is_dir()
            else sorted(p.parent for p in root.glob("*/manifest.json")) or [root]
        )
        for one in roots:
            self._add(read_suite(one, check_images="none"), format_question)

    def _add(self, suite: Any, format_question: Any) -> None:
        for inst in suite.instances:
            self.items[inst.uid] = SuiteItem(inst.uid, inst.answer, str(inst.answer_type), inst.options)
            self.instances[inst.uid] = inst
            self.suite = suite
            self._input_images.append((suite, inst.image, inst.uid))
            try:
                b64 = base64.b64encode(suite.image_path(inst.image).read_bytes())
                self.by_image.setdefault(hashlib.sha256(b64).hexdigest(), inst.uid)
            except OSError:
                pass
            q = format_question(inst)
            self.by_question[q] = None if q in self.by_question else inst.uid

    def uid_by_pixels(self, data: bytes) -> str | None:
        """The instance whose input image has these pixels, whatever the encoding (a harness that decodes
        and re-encodes every PNG, as lmms-eval and the official MIRA scripts do); None for lossy or resized
        copies. The suite's images are decoded once, the first time a request needs it."""
        if self._by_pixels is None:
            self._by_pixels = {}
            for suite, rel, uid in self._input_images:
                try:
                    self._by_pixels.setdefault(pixel_key(suite.image_path(rel).read_bytes()), uid)
                except (OSError, ValueError):
                    continue
        try:
            return self._by_pixels.get(pixel_key(data))
        except (OSError, ValueError):
            return None


def pixel_key(data: bytes) -> str:
    """A key of an image's size and RGB pixels, equal for every lossless encoding of the same picture."""
    import io

    from PIL import Image

    with Image.open(io.BytesIO(data)) as im:
        rgb = im.convert("RGB")
        return f"{rgb.size}:{hashlib.sha256(rgb.tobytes()).hexdigest()}"


def guess_condition(text: str, n_images: int) -> str:
    """The condition an untagged request's first user message reads as, from the templates' wording."""
    if "questions about the intermediate states" in text:
        return "state_probe"
    if "some described in words below" in text:
        return "visual_cot_mixed"
    if "intermediate reasoning image(s)" in text:
        return "visual_cot"
    if "intermediate reasoning step(s) described" in text:
        return "text_state_cot"
    if text.startswith("Image description:"):
        return "caption_only"
    if "provide the final answer directly" in text:
        return "direct"
    if "Work through it like this." in text:
        return "text_cot_spec"
    if n_images == 0:  # question_only: text_cot's words without the picture
        return "question_only"
    return "text_cot"


def identify(index: SuiteIndex, headers: dict[str, str], messages: list[Any]) -> tuple[str | None, str, int, int]:
    """(uid, condition, epoch, turn) of a request; `headers` have lower-case names."""
    tag = headers.get("x-vcot-call")
    turn = sum(1 for m in messages if isinstance(m, dict) and m.get("role") == "assistant")
    if tag:
        parts = [unquote(p) for p in tag.split("|")]
        if len(parts) == 5:
            _, uid, cond, epoch, _turn = parts
            return uid, cond, int(epoch) if epoch.isdigit() else 0, turn
    first = next((m for m in messages if isinstance(m, dict) and m.get("role") == "user"), {})
    content = first.get("content")
    texts, images = [], []
    if isinstance(content, str):
        texts.append(content)
    elif isinstance(content, list):
        for part in content:
            if isinstance(part, dict) and part.get("type") == "text":
                texts.append(str(part.get("text", "")))
            elif isinstance(part, dict) and part.get("type") == "image_url":
                images.append(str((part.get("image_url") or {}).get("url", "")))
    text = "\n".join(texts)
    cond = guess_condition(text, len(images))
    found: str | None = None
    if images and "," in images[0]:
        found = index.by_image.get(hashlib.sha256(images[0].split(",", 1)[1].encode()).hexdigest())
    if found is None:
        for q, u in index.by_question.items():
            if u is not None and f"Question: {q}\n\n" in text:
                found = u
                break
    if found is None and images and "," in images[0]:
        try:
            found = index.uid_by_pixels(base64.b64decode(images[0].split(",", 1)[1], validate=True))
        except ValueError:
            found = None
    return found, cond, 0, turn
