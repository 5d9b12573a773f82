"""Small suites built directly from Instances and PIL images (no generator needed)."""

from __future__ import annotations

import random
from pathlib import Path

from PIL import Image, ImageDraw

from vcot.schema import AnswerType, Instance, Step
from vcot.tasks.base import Sample

OPTIONS = ["the red pair", "the blue pair", "the green pair", "the grey pair"]


def _picture(seed: int, size: tuple[int, int] = (64, 64)) -> Image.Image:
    """A small picture unique to `seed`, so each instance's input image has its own bytes."""
    rng = random.Random(seed)
    img = Image.new("RGB", size, (rng.randrange(256), rng.randrange(256), rng.randrange(256)))
    d = ImageDraw.Draw(img)
    for _ in range(4):
        x, y = rng.randrange(size[0]), rng.randrange(size[1])
        d.rectangle([x, y, x + 5, y + 5], fill=(rng.randrange(256), 0, rng.randrange(256)))
    return img


def make_samples(n: int, seed: int = 0, big_first: bool = False) -> list[Sample]:
    """Alternating integer (rolling_dice_top) and choice (overlap) instances with steps and corrupted steps."""
    rng = random.Random(seed)
    samples = []
    for i in range(n):
        choice = i % 2 == 1
        task = "overlap" if choice else "rolling_dice_top"
        uid = f"{task}-{seed}-{i:05d}"
        stem = f"images/{task}/{uid}"
        size = (3000, 1000) if big_first and i == 0 else (64, 64)
        images = {
            f"{stem}.png": _picture(seed * 100_003 + i, size),
            f"{stem}_step1.png": _picture(-i - 1),
            f"{stem}_step2.png": _picture(-i - 100_000),
            f"{stem}_corrupt1.png": _picture(-i - 200_000),
        }
        inst = Instance(
            uid=uid,
            task=task,
            domain="EG" if choice else "CT",
            question=(
                "Which pair overlaps most when aligned at the origin?"
                if choice
                else f"The die rolls along path #{i}. Which number is on top at the end?"
            ),
            image=f"{stem}.png",
            answer=rng.choice("ABCD") if choice else str(rng.randint(1, 6)),
            answer_type=AnswerType.CHOICE if choice else AnswerType.INTEGER,
            options=list(OPTIONS) if choice else None,
            steps=[
                Step(image=f"{stem}_step1.png", text=f"first state of item {i}"),
                Step(image=f"{stem}_step2.png", text=f"second state of item {i}"),
            ],
            corrupted_steps=[Step(image=f"{stem}_corrupt1.png", text="a wrong state")],
            meta={"caption": f"A picture for item {i}."},
        )
        samples.append(Sample(inst, images))
    return samples


def write_test_suite(out: Path, n: int, seed: int = 0, big_first: bool = False) -> Path:
    from vcot.suite import write_suite

    write_suite(out, f"engine-test-{n}", make_samples(n, seed, big_first))
    return out


class ToolEpisode:
    """Answers every tool call with a text and the instance's first step image (a stand-in renderer)."""

    def __init__(self, instance: Instance, images, tools) -> None:
        self.instance = instance
        self.images = images
        self.tools = tools

    def first_messages(self):
        from vcot.conditions import build_prompt

        return build_prompt(self.instance, "direct", self.images).messages

    def on_response(self, response):
        from vcot.messages import ImagePart, Message, TextPart

        if not response.tool_calls:
            return None
        step = self.images(self.instance.steps[0].image)
        return [
            Message("tool", [TextPart(f"drew {c.name} {c.arguments}"), ImagePart(step)], tool_call_id=c.id)
            for c in response.tool_calls
        ]

    def record(self) -> dict:
        return {}
