"""unfolded_cube: the net cell that becomes the top face (details["correspondence"][k-1]["cells"]["top"], in the
net's own grid, column and row from 1). Step k matches the answer net to view k (net form) or the net to the
answer view (view form); its picture tints that cell. The question says which net and which view without
naming the answer: the net that folds into the shown cube, or the view the folded net can show. Where marks
repeat so that two turns of the cube show the same view with different top cells, the step is probed with the
final question instead."""

from __future__ import annotations

from vcot.probes.base import Probe, final_probe, meta
from vcot.schema import AnswerType, Instance
from vcot.tasks.common import cube_nets as cn

GRID = (
    "Count that net's columns from the left and its rows from the top of its own grid, starting at 1, "
    "and answer as (column, row)."
)


def top_cells(net: list[dict], view: dict[str, cn.Face]) -> set[tuple[int, int]]:
    """Every net cell that is on top in some turn of the folded net showing exactly `view`."""
    cube = cn.net_to_cube(net)
    frames = cn.fold_frames([(c["col"], c["row"]) for c in net])
    out = set()
    for m in cn.ROTATIONS:
        turned = cn.rotate_cube(cube, m)
        if all(turned[cn.VIEW_NORMALS[name]] == f for name, f in view.items()):
            out |= {cell for cell, fr in frames.items() if cn.apply(m, fr.n) == cn.VIEW_NORMALS["top"]}
    return out


def build(inst: Instance) -> list[Probe]:
    scene, _, _ = meta(inst)
    k_ans = "ABCD".index(inst.answer)
    out = []
    for k in range(1, len(inst.steps) + 1):
        if scene["form"] == "net":
            net, view = scene["nets"][k_ans], cn.view_from_json(scene["views"][k - 1])
            which = f"view {k}" if len(scene["views"]) > 1 else "the shown cube"
            q = (
                f"Take the net among A-D that folds into the cube, and fold it so that it looks like {which}. "
                f"Which cell of that net becomes the top face? {GRID}"
            )
        else:
            net, view = scene["net"], cn.view_from_json(scene["candidate_views"][k_ans])
            q = (
                f"Take the view among A-D that the folded net can show. Which cell of the net becomes the top "
                f"face in that view? {GRID}"
            )
        cells = top_cells(net, view)
        if len(cells) != 1:
            out.append(final_probe(inst, k))
            continue
        col, row = cells.pop()
        out.append(Probe(k, q, f"({col + 1}, {row + 1})", AnswerType.COORDINATES, "top_cell"))
    return out
