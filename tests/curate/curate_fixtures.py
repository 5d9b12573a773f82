"""A synthetic source for the curation tests: coloured shapes, questions that give their answer away and
questions only the picture answers, some multiple choice, written as JSONL with PNG files."""

from __future__ import annotations

import json
import random
from pathlib import Path

from PIL import Image, ImageDraw

COLOURS = ("red", "green", "blue", "orange")
SHAPES = ("square", "circle")


def make_source(root: Path, n: int = 120, seed: int = 0) -> Path:
    """`n` rows: every third gives its answer away in the question; every fourth of the others is multiple
    choice with listed options (a rewrite candidate); tasks alternate so two categories get filled."""
    rng = random.Random(seed)
    (root / "img").mkdir(parents=True, exist_ok=True)
    rows = []
    for i in range(n):
        colour, shape = rng.choice(COLOURS), rng.choice(SHAPES)
        img = Image.new("RGB", (64, 64), "white")
        d = ImageDraw.Draw(img)
        box = (12, 12, 52, 52)
        (d.rectangle if shape == "square" else d.ellipse)(box, fill=colour)
        img.save(root / "img" / f"{i}.png")
        row = {"qid": f"q{i:03d}", "picture": f"img/{i}.png", "kind": "colour" if i % 2 else "shape"}
        if i % 3 == 0:
            row.update(
                question=f"The label below the {shape} says the answer is {colour}. What colour is the {shape}?",
                gold=colour,
            )
        elif i % 4 == 1:
            opts = list(COLOURS)
            row.update(question="Which colour is the shape in the picture?", gold=colour, choices=opts)
        else:
            row.update(question="What colour is the shape in the picture?", gold=colour)
        rows.append(row)
    path = root / "items.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def make_config(root: Path, base_url: str, work: str = "work", n: int = 120) -> Path:
    src = make_source(root, n)
    model = {"model": "mock-model", "base_url": base_url}
    cfg = {
        "work": work,
        "name": "toy-curated",
        "seed": 0,
        "sources": [
            {
                "name": "toy",
                "format": "jsonl",
                "path": src.name,
                "columns": {"id": "qid", "image": "picture", "answer": "gold", "options": "choices", "task": "kind"},
            }
        ],
        "categories": {"toy/colour": "Object Attributes", "toy/shape": "Visual Commonsense"},
        "quotas": {"Object Attributes": 60, "Visual Commonsense": 60},
        "models": {"captioner": model, "reasoner": model, "judge": model, "rewriter": model},
        "filter": {"trials": 5, "threshold": 3},
        "concurrency": 8,
    }
    path = root / "curate.json"
    path.write_text(json.dumps(cfg, indent=2), encoding="utf-8")
    return path
