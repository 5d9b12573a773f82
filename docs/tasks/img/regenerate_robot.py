"""Redraw the pictures of docs/tasks/robot_program.md and docs/tasks/robot_state_change.md and print the texts
the docs quote: for each task and difficulty, instance 0 of seed 0 as one strip (the input picture, then every
step), and the medium instance's corrupted trajectory as a second strip.

    python docs/tasks/img/regenerate_robot.py
"""

from __future__ import annotations

from pathlib import Path

from PIL import Image

from vcot.draw.canvas import hstack
from vcot.tasks import get_task

HERE = Path(__file__).resolve().parent
SHRINK = 0.6  # the strips are wide; the pictures stay legible at this scale


def _strip(images: list[Image.Image], file: str) -> None:
    strip = hstack(images, gap=12, background="lightgray")
    strip = strip.resize((int(strip.width * SHRINK), int(strip.height * SHRINK)), Image.LANCZOS)
    strip.save(HERE / file, optimize=True)
    print(f"  wrote {file}")


def main() -> None:
    for name in ("robot_program", "robot_state_change"):
        print(f"== {name}")
        for level in ("easy", "medium", "hard"):
            sample = get_task(name, level).make(0, 0)
            inst = sample.instance
            print(f"-- {level}: {inst.question}")
            if inst.options:
                for letter, text in zip("ABCD", inst.options, strict=False):
                    print(f"  ({letter}) {text}")
            print(f"  answer {inst.answer}")
            for k, step in enumerate(inst.steps, 1):
                print(f"  step {k}: {step.text}")
            _strip([sample.images[inst.image], *(sample.images[s.image] for s in inst.steps)], f"{name}_{level}.png")
            if level == "medium":
                print(f"  corruption: {inst.meta.get('corruption')}")
                for k, step in enumerate(inst.corrupted_steps, 1):
                    print(f"  corrupted step {k}: {step.text}")
                _strip([sample.images[inst.image], *(sample.images[s.image] for s in inst.corrupted_steps)],
                       f"{name}_medium_corrupt.png")


if __name__ == "__main__":
    main()
