"""Scene-graph captions of the scene3d tasks: every object with all its attributes, numbered left to right as
the questions read "left of", and ordered nearest to farthest as they read "in front of" (checked against the
task's own relation reader, `tasks/scene3d/_scene.layout`). A full description names attribute values the
answer may be, so the MIRA leak rule (no answer string) does not apply; the questions need the relations."""

from __future__ import annotations

import re

import pytest

from vcot.captions import caption_for, captioned_tasks
from vcot.conditions import REGISTRY
from vcot.tasks import get_task
from vcot.tasks.scene3d._scene import layout

TASKS = ("object_attributes", "compositional_3d")


@pytest.mark.parametrize("task", TASKS)
def test_3d_captions_follow_the_relations_the_questions_use(task):
    assert task in captioned_tasks()
    for index in range(4):
        inst = get_task(task, "medium").make(index, 7).instance
        text = caption_for(inst)
        assert text == caption_for(inst) and REGISTRY.unservable(inst, "caption_only") is None
        scene = inst.meta["scene"]
        n = len(scene["objects"])
        assert f"There are {n} objects" in text
        lay = layout(scene)
        centres = scene["picture"]["object_centres"]
        by_px = sorted(range(n), key=lambda k: (centres[k][0], k))  # object m of the caption is by_px[m - 1]
        near = [int(m) for m in re.findall(r"object (\d+)", text.split("From nearest the camera to farthest:")[1])]
        assert [by_px[m - 1] for m in near] == sorted(range(n), key=lambda k: (lay.forward[k], k))
        # Wherever a question could say "left of" (centres farther apart than the margin), the numbering agrees.
        for a in range(n):
            for b in range(n):
                if lay.px[b] - lay.px[a] > lay.lr_margin:
                    assert by_px.index(a) < by_px.index(b)
        for k in range(n):
            o = scene["objects"][k]
            words = [o["size"], o["material"], o.get("shape") or o.get("type")]
            item = text.split(f"object {by_px.index(k) + 1}, ")[1].split(";")[0]
            assert all(w in item for w in words), (item, words)
