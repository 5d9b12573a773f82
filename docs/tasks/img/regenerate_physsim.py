"""Redraw the pictures of docs/tasks/block_tower.md and docs/tasks/ball_bins.md and print the texts the docs
quote: for each task instance 0 of seed 0 at easy, medium and hard with all its steps, and the medium
instance's corrupted trajectory. Pictures are saved at half size (small PNGs).

    python docs/tasks/img/regenerate_physsim.py
"""

from __future__ import annotations

from pathlib import Path

from vcot.tasks import get_task

HERE = Path(__file__).resolve().parent


def _save(sample, rel: str, file: str) -> None:
    img = sample.images[rel]
    img.resize((img.width // 2, img.height // 2)).save(HERE / file, optimize=True)
    print(f"  wrote {file}")


def main() -> None:
    for name in ("block_tower", "ball_bins"):
        print(f"== {name}")
        for level in ("easy", "medium", "hard"):
            sample = get_task(name, level).make(0, 0)
            inst = sample.instance
            print(f"-- {level}: answer {inst.answer}")
            _save(sample, inst.image, f"{name}_{level}.png")
            for k, step in enumerate(inst.steps, 1):
                print(f"  step {k}: {step.text}")
                _save(sample, step.image, f"{name}_{level}_step{k}.png")
            if level == "medium":
                print(f"  corruption: {inst.meta.get('corruption')}")
                for k, step in enumerate(inst.corrupted_steps, 1):
                    print(f"  corrupted step {k}: {step.text}")
                _save(sample, inst.corrupted_steps[-1].image, f"{name}_medium_corrupt.png")


if __name__ == "__main__":
    main()
