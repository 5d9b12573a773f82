"""Redraw the pictures of docs/tasks/object_attributes.md and docs/tasks/compositional_3d.md and print the
texts the docs quote: the worked example (medium, seed 0, index 0) with all its steps and its corrupted
trajectory, compositional_3d's part-matching example, and a row of four pictures per task (easy, medium and
hard instance 0, and the first medium instance with a metal object of every shape or vehicle type).

    python docs/tasks/img/regenerate_3d.py
"""

from __future__ import annotations

from pathlib import Path

from vcot.tasks import get_task

HERE = Path(__file__).resolve().parent
SHAPES = {"object_attributes": ("shape", ("cube", "sphere", "cylinder")),
          "compositional_3d": ("type", ("car", "truck", "tractor"))}


def _save(sample, rel: str, file: str) -> None:
    sample.images[rel].save(HERE / file, optimize=True)
    print(f"  wrote {file}")


def _describe(sample, prefix: str) -> None:
    inst = sample.instance
    print(f"  {inst.uid}: {len(inst.meta['scene']['objects'])} objects; Q: {inst.question.split('. ')[-2:]}")
    print(f"  answer {inst.answer}")
    _save(sample, inst.image, f"{prefix}.png")
    for k, step in enumerate(inst.steps, 1):
        print(f"  step {k}: {step.text}")
        _save(sample, step.image, f"{prefix}_step{k}.png")
    print(f"  corruption: {inst.meta.get('corruption')}")
    for k, step in enumerate(inst.corrupted_steps, 1):
        print(f"  corrupted step {k}: {step.text}")
    differs = [k for k, (a, b) in enumerate(zip(inst.steps, inst.corrupted_steps, strict=True), 1) if a.text != b.text]
    for k in differs:
        _save(sample, inst.corrupted_steps[k - 1].image, f"{prefix}_corrupt{k}.png")


def main() -> None:
    for name in ("object_attributes", "compositional_3d"):
        print(f"== {name}")
        _describe(get_task(name, "medium").make(0, 0), name)
        if name == "compositional_3d":
            task = get_task(name, "medium")
            index = next(i for i in range(200)
                         if task.make(i, 0, with_corruption=False).instance.meta["scene"]["program"]["family"]
                         == "count_part_match")
            print(f"  part-matching example: index {index}")
            _describe(task.make(index, 0), f"{name}_match")
        for level in ("easy", "medium", "hard"):
            sample = get_task(name, level).make(0, 0, with_corruption=False)
            print(f"  {level} 0: {sample.instance.question.split('it. ')[-1]} -> {sample.instance.answer}")
            if level != "medium":  # the worked example's picture
                _save(sample, sample.instance.image, f"{name}_{level}.png")
        attr, kinds = SHAPES[name]
        task = get_task(name, "medium")
        for index in range(400):
            sample = task.make(index, 0, with_corruption=False)
            objs = sample.instance.meta["scene"]["objects"]
            if all(any(o[attr] == kind and o["material"] == "metal" for o in objs) for kind in kinds):
                print(f"  metal of every {attr}: index {index}")
                _save(sample, sample.instance.image, f"{name}_metal.png")
                break


if __name__ == "__main__":
    main()
