"""Redraw the example pictures of the Science QA task docs (motion_graph.md, food_web.md).

For each difficulty the doc shows one instance of seed 0 — the first index whose steps show what the level
adds (a piece below the axis; a die-out of more than one round) — as `<task>_<difficulty>.png` (the input
picture) and `<task>_<difficulty>_step<k>.png` (its steps), scaled to 60 % to keep the files small.

    python docs/tasks/img/regenerate_sciqa.py
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PIL import Image

from vcot.tasks import get_task

HERE = Path(__file__).resolve().parent
SCALE = 0.6


def _wanted(task: str, difficulty: str, scene: dict[str, Any], details: dict[str, Any]) -> bool:
    if task == "motion_graph":
        below = any(p["area"].startswith("-") for p in details["pieces"])
        return difficulty == "easy" or below and (difficulty == "medium" or scene["quantity"] == "distance")
    return difficulty == "easy" or len(details["rounds"]) >= 2


def _save(img: Image.Image, name: str) -> None:
    small = img.resize((round(img.width * SCALE), round(img.height * SCALE)), Image.LANCZOS)
    small.save(HERE / name, optimize=True)
    print(name)


def main() -> None:
    for task in ("motion_graph", "food_web"):
        for difficulty in ("easy", "medium", "hard"):
            gen = get_task(task, difficulty)
            index = next(i for i in range(200) if _wanted(task, difficulty, *_scene(gen, i)))
            sample = gen.make(index, 0)
            inst = sample.instance
            _save(sample.images[inst.image], f"{task}_{difficulty}.png")
            for k, step in enumerate(inst.steps, start=1):
                _save(sample.images[step.image], f"{task}_{difficulty}_step{k}.png")
            print(f"{task} {difficulty}: index {index}; answer {inst.answer}; {inst.question}")
            for k, step in enumerate(inst.steps, start=1):
                print(f"  step {k}: {step.text}")


def _scene(gen: Any, index: int) -> tuple[dict[str, Any], dict[str, Any]]:
    scene, solution = gen.solved_scene(index, 0)
    return scene, solution.details


if __name__ == "__main__":
    main()
