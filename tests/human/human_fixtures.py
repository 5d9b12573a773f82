"""A small hand-made suite for the human-study tests: five answer types, steps and corrupted steps, and gold
answers, step texts and `meta` values distinctive enough that a page leaking them can be caught by a scan."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PIL import Image

from vcot.schema import Instance, Step
from vcot.suite import write_suite
from vcot.tasks.base import Sample

# Strings that must never reach a participant's browser (steps only under the condition that shows them).
SECRET_META = "META-SECRET-7f3a"
CORRUPT_TEXT = "CORRUPTED-STEP-TEXT-91"

ITEMS: list[dict[str, Any]] = [
    {
        "uid": "pick-1",
        "task": "pick_shape",
        "domain": "EG",
        "answer_type": "choice",
        "answer": "B",
        "options": ["the round one", "the square one", "neither"],
        "question": "Which shape is larger?",
    },
    {
        "uid": "count-1",
        "task": "count_things",
        "domain": "EG",
        "answer_type": "integer",
        "answer": "417",
        "question": "How many dots are there? Answer with an integer.",
    },
    {
        "uid": "clock-1",
        "task": "read_clock",
        "domain": "PBR",
        "answer_type": "time",
        "answer": "7:53",
        "question": "What time does the clock show? Answer as H:MM.",
    },
    {
        "uid": "animal-1",
        "task": "name_animal",
        "domain": "CT",
        "answer_type": "text",
        "answer": "Quokka",
        "question": "Which animal is drawn? Answer with one word.",
    },
    {
        "uid": "point-1",
        "task": "find_point",
        "domain": "EG",
        "answer_type": "coordinates",
        "answer": "(13, 29)",
        "question": "Where is the red point? Answer as (x, y).",
    },
    {
        "uid": "count-2",
        "task": "count_things",
        "domain": "EG",
        "answer_type": "integer",
        "answer": "389",
        "question": "How many squares are there? Answer with an integer.",
    },
]


def step_text(uid: str, k: int) -> str:
    # Names the item by its place, not its uid: the uid must not reach the page, the step text may.
    return f"STEP-TEXT-{[i['uid'] for i in ITEMS].index(uid)}-{k}"


def build_suite(root: Path, name: str = "human-test", change: str | None = None) -> Path:
    samples = []
    for n, item in enumerate(ITEMS):
        uid = item["uid"]
        images = {f"images/{uid}.png": Image.new("RGB", (64, 48), (40 * n, 200, 255 - 30 * n))}
        steps, corrupted = [], []
        for k in (1, 2):
            rel = f"images/{uid}_step{k}.png"
            images[rel] = Image.new("RGB", (32, 32), (10 * k, 20 * n, 90))
            steps.append(Step(image=rel, text=step_text(uid, k)))
        rel = f"images/{uid}_bad.png"
        images[rel] = Image.new("RGB", (32, 32), (250, 0, 10 * n))
        corrupted.append(Step(image=rel, text=CORRUPT_TEXT))
        question = item["question"] + (" (changed)" if change == uid else "")
        inst = Instance(
            uid=uid,
            task=item["task"],
            domain=item["domain"],
            question=question,
            image=f"images/{uid}.png",
            answer=item["answer"],
            answer_type=item["answer_type"],
            options=item.get("options"),
            steps=steps,
            corrupted_steps=corrupted,
            meta={
                "secret": SECRET_META,
                "generator": {"difficulty": "easy" if n % 2 else "hard"},
                "solution": f"{SECRET_META}-solution",
            },
        )
        samples.append(Sample(inst, images))
    write_suite(root, name, samples)
    return root


def wrong_answer(answer_type: str) -> str:
    """A well-formed answer of the type that is wrong for every item of the suite."""
    return {"choice": "A", "time": "1:00", "coordinates": "(0, 0)", "text": "x"}.get(answer_type, "1")
