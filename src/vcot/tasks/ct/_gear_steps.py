"""The visual chain of thought of gear_rotation: one step picture and text per layer of the propagation from
gear A, and for a jammed system a last step marking the contradicting link.
"""

from __future__ import annotations

from typing import Any

from PIL import Image

from vcot.tasks.ct._gear_drawing import draw_system
from vcot.tasks.ct._gear_labels import Disc, label_layout
from vcot.tasks.ct._gear_propagation import direction_of

REASON = {
    "mesh": "meshes with",
    "open_belt": "is joined by an open belt to",
    "crossed_belt": "is joined by a crossed belt to",
    "shaft": "shares a shaft with",
}


def cot_steps(
    scene: dict[str, Any], prop: dict[str, Any], layout: list[Disc] | None = None
) -> list[tuple[Image.Image, str]]:
    """One step per BFS layer: the arrows of the wheels reached so far, the new ones outlined; each text gives
    a new wheel's link to the wheel that reached it and both arrows' directions, as the picture shows them.
    The propagation is the state; which way the asked wheel turns, or that the system jams, is the conclusion,
    left to the reader (and to meta). For a jammed system a last step marks the link whose two arrows disagree
    with its kind (a mesh or crossed belt between equal arrows, an open belt or shaft between opposite ones).

    In a jammed system no wheel but the given driver ever turns, so until that last step every other wheel's
    direction is tentative: its text says it "would turn" and its arrow is drawn dashed (a jam-free system keeps
    "turns" and solid arrows; docs/tasks/gear_rotation.md, "Steps and conclusion")."""
    gears = scene["gears"]
    conflict = prop["conflict"]
    layout = layout if layout is not None else label_layout(scene)
    last_layer = conflict["layer"] if conflict else max(lv for lv in prop["layer"] if lv is not None)
    tentative = conflict is not None
    verb = "would turn" if tentative else "turns"
    steps: list[tuple[Image.Image, str]] = []
    known: dict[int, str] = {}
    for layer in range(0, last_layer + 1):
        new = [i for i, lv in enumerate(prop["layer"]) if lv == layer]
        sentences = []
        for i in new:
            known[i] = direction_of(scene["driver_dir"], prop["sign"][i])
            if prop["via"][i] is None:
                sentences.append(f"Gear {gears[i]['label']} turns {known[i]} (given).")
            else:
                u, k = prop["via"][i]
                kind = scene["links"][k]["type"]
                sentences.append(
                    f"Gear {gears[i]['label']} {REASON[kind]} gear {gears[u]['label']} "
                    f"({known[u]}) and {verb} {known[i]}."
                )
        steps.append((draw_system(scene, known, set(new), layout=layout, tentative=tentative), " ".join(sentences)))
    if conflict:
        v, u, k = conflict["gear"], conflict["from"], conflict["link"]
        kind = scene["links"][k]["type"]
        marked = {"mesh": "their contact ringed in red", "shaft": "their shared shaft ringed in red"}.get(
            kind, "the belt drawn in red"
        )
        text = f"Gear {gears[v]['label']} ({known[v]}) {REASON[kind]} gear {gears[u]['label']} ({known[u]}), {marked}."
        steps.append((draw_system(scene, known, {v, u}, bad_link=k, layout=layout, tentative=True), text))
    return steps
