"""Redraw the example pictures of the task docs from the current generators.

Each doc shows instance 0 of seed 0 at the medium preset: `<task>.png` is its input picture and
`<task>_step.png` / `<task>_step1.png` (whichever name the doc uses) its first visual chain-of-thought step.

    python docs/tasks/img/regenerate.py            # every task
    python docs/tasks/img/regenerate.py overlap    # some tasks
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from vcot.tasks import get_task, task_names

HERE = Path(__file__).resolve().parent
DOCS = HERE.parent


def main(names: list[str]) -> None:
    for name in names or task_names():
        doc = (DOCS / f"{name}.md").read_text(encoding="utf-8")
        wanted = set(re.findall(rf"img/({re.escape(name)}(?:_step1?)?\.png)", doc))
        sample = get_task(name, "medium").make(0, 0)
        inst = sample.instance
        for file in sorted(wanted):
            rel = inst.image if file == f"{name}.png" else (inst.steps[0].image if inst.steps else None)
            if rel is None:
                continue
            sample.images[rel].save(HERE / file, optimize=True)
            print(f"{name}: {file}")


if __name__ == "__main__":
    main(sys.argv[1:])
