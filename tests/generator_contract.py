"""Checks every generator must pass; each per-task test module calls `check_generator_contract`.

They cover the task-independent half of "gold answers are sacred": instances validate, every answer is
re-derived from `meta`, images decode at the declared size, steps carry texts, generation is
deterministic and random-access, and suites stay balanced.
"""

from __future__ import annotations

import collections
import json

from vcot.draw.png import decode_png, encode_png, pixel_digest
from vcot.schema import AnswerType, Instance
from vcot.tasks import get_task, get_task_class


def check_instance(task, sample) -> None:
    inst = sample.instance
    # JSON round trip is lossless.
    assert Instance.from_json(inst.to_json()) == inst
    json.loads(inst.to_json())
    assert inst.task == task.name and inst.domain == task.domain
    assert inst.answer_type == task.answer_type
    # Every referenced image exists in the sample and decodes after a PNG round trip.
    for path in inst.image_paths():
        assert path in sample.images, f"{inst.uid}: image {path} not produced"
        img = decode_png(encode_png(sample.images[path]))
        assert img.mode == "RGB"
        assert 64 <= img.width <= 2048 and 64 <= img.height <= 2048, f"{path}: odd size {img.size}"
    assert set(sample.images) == set(inst.image_paths()), "unreferenced images produced"
    assert len(inst.steps) >= 1, f"{inst.uid}: no visual CoT step"
    for step in inst.steps:
        assert step.text.strip(), f"{inst.uid}: empty step text"
    # The gold answer is re-derived from meta alone.
    assert task.resolve(inst) == inst.answer, f"{inst.uid}: re-solve from meta disagrees"
    assert "scene" in inst.meta and "generator" in inst.meta
    if inst.answer_type == AnswerType.CHOICE:
        assert inst.options and len(set(inst.options)) == len(inst.options), f"{inst.uid}: duplicate options"


def check_generator_contract(name: str, n: int = 30, seed: int = 0, difficulties=("easy", "medium", "hard")) -> list:
    """Generate n instances per difficulty, check each, check determinism; returns the medium samples."""
    cls = get_task_class(name)
    assert set(cls.presets) >= {"easy", "medium", "hard"}
    kept = []
    for diff in difficulties:
        task = get_task(name, difficulty=diff)
        samples = list(task.generate(n, seed))
        for s in samples:
            check_instance(task, s)
        uids = [s.instance.uid for s in samples]
        assert len(set(uids)) == len(uids)
        if diff == "medium":
            kept = samples
    # Determinism and random access: a fresh task object re-making index k gives identical JSON and pixels.
    task = get_task(name)
    for k in (0, n // 2, n - 1):
        again = task.make(k, seed)
        first = kept[k]
        assert again.instance.to_json() == first.instance.to_json()
        for path, img in first.images.items():
            assert pixel_digest(again.images[path]) == pixel_digest(img)
    # Neighbouring seeds give different instances (no seed + index overlap).
    other = task.make(0, seed + 1)
    assert other.instance.meta["scene"] != kept[1].instance.meta["scene"] or n < 2
    return kept


def answer_histogram(samples) -> collections.Counter:
    return collections.Counter(s.instance.answer for s in samples)
