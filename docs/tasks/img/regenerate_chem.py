"""Redraw the pictures of docs/tasks/longest_carbon_chain.md and docs/tasks/hbond_donors.md and print the texts the
docs quote: instance 0 of seed 0 at easy, medium and hard, each with its step pictures and texts, and the corrupted
trajectory of the medium one.

    python docs/tasks/img/regenerate_chem.py
"""

from __future__ import annotations

from pathlib import Path

from PIL import Image

from vcot.tasks import get_task

HERE = Path(__file__).resolve().parent


def _save(image: Image.Image, file: str) -> None:
    # 64 colours keep the anti-aliased lines and the light highlights and make the PNGs a third the size.
    image.quantize(colors=64, dither=Image.Dither.NONE).save(HERE / file, optimize=True)


def main() -> None:
    for name in ("longest_carbon_chain", "hbond_donors"):
        print(f"== {name}")
        for level in ("easy", "medium", "hard"):
            sample = get_task(name, level).make(0, 0)
            inst = sample.instance
            print(f"  {level}: {inst.meta['scene']['smiles']} -> answer {inst.answer}")
            _save(sample.images[inst.image], f"{name}_{level}.png")
            for k, step in enumerate(inst.steps, 1):
                print(f"    step {k}: {step.text}")
                _save(sample.images[step.image], f"{name}_{level}_step{k}.png")
            if level == "medium":
                print(f"    corruption: {inst.meta.get('corruption')}")
                for k, step in enumerate(inst.corrupted_steps, 1):
                    print(f"    corrupted step {k}: {step.text}")
                last = inst.corrupted_steps[-1]
                _save(sample.images[last.image], f"{name}_medium_corrupt{len(inst.corrupted_steps)}.png")


if __name__ == "__main__":
    main()
