"""Shared code of the 3D scene tasks: object sampling, the scene-to-primitive mapping, relations as seen by
the camera, question programs (filter and relate chains), their execution into a trace, and the step pictures
drawn from a trace (docs/tasks/object_attributes.md).

A *chain* is a list of steps `{"relate": rel | None, "filter": {attr: value}}`: the first step filters all
objects, each later one first keeps the objects in relation `rel` to the object the previous step left and
then filters them. A *reference* is a chain every step of which leaves exactly one object; a *set* is a
chain whose steps but the last leave exactly one object.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np
from PIL import Image

from vcot.draw import Canvas
from vcot.draw.colors import PALETTE
from vcot.draw3d import Camera, Primitive, Render3D, render_scene
from vcot.tasks.base import GenContext, ParameterError, Reject

SHAPES = ("cube", "sphere", "cylinder")


# -- what both scene3d tasks share in their configuration and sampling ----------------------------------------


def check_counts_and_families(task: str, config: Any) -> None:
    """The relations a count answer and the family list must keep (each task's `check_config`)."""
    if config.max_count >= config.max_objects:
        raise ParameterError(
            f"parameters of task {task}: max_count ({config.max_count}) must be below "
            f"max_objects ({config.max_objects})"
        )
    if len(set(config.families)) != len(config.families):
        raise ParameterError(f"parameter families of task {task} repeats a family")


def draw_family_and_sizes(
    ctx: GenContext, cfg: Any, answers_of: Callable[[str, int], list[Any]]
) -> tuple[str, Any, int, int]:
    """(family, target answer, hops, object count) of one instance. The family is balanced over the index;
    the answer is balanced within its family: the family's k-th instance takes slot k of its own blocks."""
    fams = list(cfg.families)
    family = fams[ctx.balanced(len(fams), "family")]
    sub = GenContext(rng=ctx.rng, task=ctx.task, seed=ctx.seed, index=ctx.index // len(fams), setting=ctx.setting)
    answers = answers_of(family, cfg.max_count)
    target = answers[sub.balanced(len(answers), family)]
    hops = ctx.rng.randint(cfg.min_hops, cfg.max_hops)
    n = ctx.rng.randint(cfg.min_objects, cfg.max_objects)
    return family, target, hops, n


# Six palette colours whose pairs stay apart under the simulated colour-vision deficiencies
# (docs/tasks/README.md, "Colour"; the same set unfolded_cube and defuse_a_bomb use).
COLOURS = ("red", "blue", "green", "orange", "purple", "cyan")
MATERIALS = ("rubber", "metal")
SIZES = ("small", "large")
ATTRS = ("size", "colour", "material", "shape")
VALUES: dict[str, tuple[str, ...]] = {"size": SIZES, "colour": COLOURS, "material": MATERIALS, "shape": SHAPES}
RADIUS = {"small": 0.35, "large": 0.7}
CUBE_HALF = 0.85  # a cube's half edge as a share of its size's radius, so cubes look as big as spheres
RELATIONS = ("left", "right", "front", "behind")
REL_PHRASE = {"left": "to the left of", "right": "to the right of", "front": "in front of", "behind": "behind"}
ARENA = 3.2  # object centres lie in [-ARENA, ARENA]^2
WIDTH, HEIGHT = 480, 320


class Ambiguous(Exception):
    """A relation the program needs is decided by less than the margin."""


@dataclass(frozen=True)
class Vocab:
    """What a kind of scene is made of: the attributes questions filter on (in phrase order) and their values,
    how a filter reads as a noun phrase, how objects become primitives, where an object's centre is, and the
    attribute that names an object when nothing else singles it out."""

    attrs: tuple[str, ...]
    values: dict[str, tuple[str, ...]]
    noun: Callable[[dict[str, str], bool], str]
    primitives: Callable[[list[dict[str, Any]]], list[Primitive]]
    centre: Callable[[dict[str, Any]], tuple[float, float, float]]
    head: str


# Scene kinds other than the CLEVR-like default (`scene["kind"]`), registered by their modules.
VOCABS: dict[str, Vocab] = {}


def vocab_of(scene: dict[str, Any]) -> Vocab:
    return VOCABS[scene["kind"]] if "kind" in scene else CLEVR


# -- the scene --------------------------------------------------------------------------------------------


def camera_of(scene: dict[str, Any]) -> Camera:
    c = scene["camera"]
    return Camera(
        azimuth=c["azimuth"], elevation=c["elevation"], distance=c["distance"], fov=c["fov"], width=WIDTH, height=HEIGHT
    )


def primitives(objects: list[dict[str, Any]]) -> list[Primitive]:
    prims = []
    for k, o in enumerate(objects):
        r = RADIUS[o["size"]]
        colour = PALETTE[o["colour"]]
        if o["shape"] == "sphere":
            prims.append(Primitive("sphere", (o["x"], o["y"], r), (r,), colour, o["material"], k))
        elif o["shape"] == "cube":
            h = r * CUBE_HALF
            prims.append(Primitive("box", (o["x"], o["y"], h), (h, h, h), colour, o["material"], k, yaw=o["yaw"]))
        else:
            prims.append(Primitive("cylinder", (o["x"], o["y"], r), (r, r), colour, o["material"], k))
    return prims


def sample_objects(rng: random.Random, n: int) -> list[dict[str, Any]]:
    """n objects at random positions, none touching another (a gap of 0.15 between bounding circles)."""
    objects: list[dict[str, Any]] = []
    for _ in range(n):
        for _try in range(60):
            size = rng.choice(SIZES)
            x, y = rng.uniform(-ARENA, ARENA), rng.uniform(-ARENA, ARENA)
            # 1.21 radii bound a turned cube's footprint (half edge 0.85 r, diagonal 1.2 r).
            if all(
                math.hypot(x - o["x"], y - o["y"]) >= 1.21 * (RADIUS[size] + RADIUS[o["size"]]) + 0.15 for o in objects
            ):
                objects.append(
                    {
                        "shape": rng.choice(SHAPES),
                        "size": size,
                        "colour": rng.choice(COLOURS),
                        "material": rng.choice(MATERIALS),
                        "x": round(x, 3),
                        "y": round(y, 3),
                        "yaw": round(rng.uniform(0, 90), 1),
                    }
                )
                break
        else:
            raise Reject("no room for another object")
    return objects


def sample_camera(rng: random.Random) -> dict[str, float]:
    """A small seeded jitter around one viewpoint, as CLEVR does."""
    return {
        "azimuth": round(rng.uniform(-12, 12), 2),
        "elevation": round(rng.uniform(32, 40), 2),
        "distance": round(rng.uniform(10.0, 10.8), 2),
        "fov": 40.0,
    }


def check_visibility(scene: dict[str, Any], min_visible: float) -> list[list[float]]:
    """Reject a scene with an object less than `min_visible` visible in the id buffer or cut by the frame;
    return each object's visible centre (mean of its id-buffer pixels), which VAoT's `modify_key` uses to move
    a mark onto another object."""
    return visibility_render(scene, min_visible)[0]


def visibility_render(scene: dict[str, Any], min_visible: float) -> tuple[list[list[float]], Render3D]:
    """`check_visibility`'s centres and the buffers-only render they come from (one subpixel per pixel)."""
    res = render_scene(vocab_of(scene).primitives(scene["objects"]), camera_of(scene), ss=1, shade=False)
    for k, view in res.objects.items():
        if view.silhouette is None:
            raise Reject(f"object {k} outside the picture")
        x0, y0, x1, y1 = view.silhouette
        if x0 <= 1 or y0 <= 1 or x1 >= WIDTH - 1 or y1 >= HEIGHT - 1:
            raise Reject(f"object {k} cut by the frame")
        if view.fraction < min_visible:
            raise Reject(f"object {k} only {view.fraction:.0%} visible")
    ratio = scene["margins"].get("size_ratio", 0.0)
    if ratio and "program" in scene and uses_size(scene["program"]):
        check_sizes_read(scene, res, ratio)
    centres = []
    for k in range(len(scene["objects"])):
        ys, xs = np.nonzero(res.ids == k)
        centres.append([round(float(xs.mean()) + 0.5, 1), round(float(ys.mean()) + 0.5, 1)])
    return centres, res


def check_sizes_read(scene: dict[str, Any], res: Render3D, ratio: float) -> None:
    """Reject a scene whose picture misreads size: in perspective a near small object can look as big as a far
    large one, so a question that reads sizes needs every large object to look at least `ratio` times as big
    (square root of its unoccluded outline's area) as every small one."""
    seen: dict[str, list[float]] = {"small": [], "large": []}
    for k, o in enumerate(scene["objects"]):
        seen[o["size"]].append(math.sqrt(res.objects[k].full))
    if seen["small"] and seen["large"] and min(seen["large"]) < ratio * max(seen["small"]):
        raise Reject("a small object looks as big as a large one")


# -- relations --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Layout:
    """Where each object is as the camera sees it: the picture x of its centre, its distance along the
    camera's forward direction on the ground, and the picture y of its floor point (the ground under its
    centre; with no camera roll it falls as the distance grows, so it orders front and behind the same way)."""

    px: tuple[float, ...]
    forward: tuple[float, ...]
    lr_margin: float
    fb_margin: float
    floor_py: tuple[float, ...] = ()
    fb_px: float = 0.0


def layout(scene: dict[str, Any]) -> Layout:
    cam = camera_of(scene)
    objs = scene["objects"]
    centres = np.array([vocab_of(scene).centre(o) for o in objs])
    px = cam.project(centres)[:, 0]
    floor = centres.copy()
    floor[:, 2] = 0.0
    floor_py = cam.project(floor)[:, 1]
    _, fwd = cam.ground_axes()
    forward = centres[:, :2] @ fwd[:2]
    margins = scene["margins"]
    # Suites of version 2 carry no pixel margin for depth: read as 0, their relations solve as they were made.
    return Layout(
        tuple(float(v) for v in px),
        tuple(float(v) for v in forward),
        margins["left_right_px"],
        margins["front_behind"],
        tuple(float(v) for v in floor_py),
        float(margins.get("front_behind_px", 0.0)),
    )


def related(lay: Layout, anchor: int, rel: str) -> list[int]:
    """Objects in relation `rel` to `anchor`; raises Ambiguous when any object is within the margin (for
    front and behind: nearer than the depth margin in scene units, or floor points nearer than the pixel
    margin in the picture)."""
    out = []
    for k in range(len(lay.px)):
        if k == anchor:
            continue
        if rel in ("left", "right"):
            diff, margin = lay.px[k] - lay.px[anchor], lay.lr_margin
            yes = diff < 0 if rel == "left" else diff > 0
            close = abs(diff) < margin
        else:
            diff, margin = lay.forward[k] - lay.forward[anchor], lay.fb_margin
            yes = diff < 0 if rel == "front" else diff > 0
            close = abs(diff) < margin or (lay.fb_px > 0 and abs(lay.floor_py[k] - lay.floor_py[anchor]) < lay.fb_px)
        if close:
            raise Ambiguous(f"objects {k} and {anchor} too close for {rel}")
        if yes:
            out.append(k)
    return out


def reachable(scene: dict[str, Any], lay: Layout, chain: list[dict[str, Any]], as_set: bool) -> set[tuple[int, ...]]:
    """Every result a reader can reach with `chain` when a step's description may fit several objects (each
    tried as the next anchor): one object per result for a reference, the objects kept for a set."""
    objs = scene["objects"]
    heads: list[int | None] = [None]
    results: set[tuple[int, ...]] = set()
    for i, step in enumerate(chain):
        nxt: set[int] = set()
        for anchor in heads:
            among = (
                range(len(objs)) if anchor is None or step["relate"] is None else related(lay, anchor, step["relate"])
            )
            kept = tuple(k for k in among if matches(objs[k], step["filter"]))
            if i < len(chain) - 1:
                nxt.update(kept)
            elif as_set:
                results.add(kept)
            else:
                results.update((k,) for k in kept)
        heads = sorted(nxt)
    return results


def uses_size(program: dict[str, Any]) -> bool:
    """Whether the question reads an object's size (a size in a description, or a size asked for)."""
    return program.get("attr") == "size" or any(
        "size" in step["filter"]
        for value in program.values()
        if isinstance(value, list)
        for step in value
        if isinstance(step, dict) and "filter" in step
    )


def matches(obj: dict[str, Any], flt: dict[str, str]) -> bool:
    return all(obj[a] == v for a, v in flt.items())


def run_chain(scene: dict[str, Any], lay: Layout, chain: list[dict[str, Any]], as_set: bool) -> list[dict[str, Any]]:
    """Execute a chain into a trace of states; raises Ambiguous, or Reject when a reference is not unique."""
    objs = scene["objects"]
    trace: list[dict[str, Any]] = []
    anchor: int | None = None
    for i, step in enumerate(chain):
        among = list(range(len(objs)))
        if step["relate"] is not None:
            assert anchor is not None
            among = related(lay, anchor, step["relate"])
            trace.append({"op": "relate", "anchor": anchor, "rel": step["relate"], "kept": among})
        kept = [k for k in among if matches(objs[k], step["filter"])]
        trace.append({"op": "filter", "filter": step["filter"], "among": among, "kept": kept, "anchor": anchor})
        last = i == len(chain) - 1
        if not (as_set and last):
            if len(kept) != 1:
                raise Reject("a reference does not pick exactly one object")
            anchor = kept[0]
    return trace


def chain_result(trace: list[dict[str, Any]]) -> list[int]:
    return trace[-1]["kept"]


# -- random programs --------------------------------------------------------------------------------------


def unique_filter(
    rng: random.Random,
    objs: list[dict[str, Any]],
    target: int,
    among: list[int],
    attrs: tuple[str, ...] = ("size", "colour", "material", "shape"),
) -> dict[str, str]:
    """A random attribute subset of `target` that leaves only it among `among` (smallest sizes first)."""
    attrs = list(attrs)
    for size in range(0, len(attrs) + 1):
        subsets = _subsets(attrs, size)
        rng.shuffle(subsets)
        for sub in subsets:
            flt = {a: objs[target][a] for a in sub}
            if [k for k in among if matches(objs[k], flt)] == [target]:
                if size == 0 and rng.random() < 0.5:
                    continue  # "the object left of ..." is fine, but vary it
                return flt
    raise Reject("object cannot be told apart from its neighbours")


def _subsets(items: list[str], size: int) -> list[tuple[str, ...]]:
    if size == 0:
        return [()]
    out = []
    for i, x in enumerate(items):
        out += [(x, *rest) for rest in _subsets(items[i + 1 :], size - 1)]
    return out


@lru_cache(maxsize=4)
def all_filters(kind: str = "") -> list[dict[str, str]]:
    """Every filter of at most two attributes (the sets count, exist and compare questions ask about) of the
    scene kind `kind` ("" for the CLEVR-like default)."""
    vocab = VOCABS[kind] if kind else CLEVR
    out: list[dict[str, str]] = []
    for size in (1, 2):
        for sub in _subsets(list(vocab.attrs), size):
            combos: list[dict[str, str]] = [{}]
            for a in sub:
                combos = [{**c, a: v} for c in combos for v in vocab.values[a]]
            out += combos
    return out


def random_reference(rng: random.Random, scene: dict[str, Any], lay: Layout, hops: int) -> list[dict[str, Any]]:
    """A reference chain of `hops` relations ending on a random object."""
    objs = scene["objects"]
    vocab = vocab_of(scene)
    first = rng.randrange(len(objs))
    flt = unique_filter(rng, objs, first, list(range(len(objs))), vocab.attrs)
    if not flt:
        flt = {vocab.head: objs[first][vocab.head]}
        if [k for k in range(len(objs)) if matches(objs[k], flt)] != [first]:
            raise Reject("no unique first object")
    chain = [{"relate": None, "filter": flt}]
    anchor = first
    for _ in range(hops):
        rel, among = pick_relation(rng, lay, anchor)
        nxt = rng.choice(among)
        flt = unique_filter(rng, objs, nxt, among, vocab.attrs)
        # As in CLEVR, a relation must matter: the description alone may not single the object out (else a
        # reader who ignores the relation answers right; docs/tasks/object_attributes.md, "Rejection rules").
        if sum(matches(objs[k], flt) for k in range(len(objs)) if k != anchor) < 2:
            raise Reject("redundant relation")
        chain.append({"relate": rel, "filter": flt})
        anchor = nxt
    return chain


def pick_relation(rng: random.Random, lay: Layout, anchor: int) -> tuple[str, list[int]]:
    """A random relation that `anchor` decides for every other object (none within the margin) and that keeps
    at least one object, with the objects it keeps. In crowded scenes most anchors leave some neighbour
    within the left-right margin but not within the depth margin, or the other way round."""
    for rel in rng.sample(RELATIONS, len(RELATIONS)):
        try:
            among = related(lay, anchor, rel)
        except Ambiguous:
            continue
        if among:
            return rel, among
    raise Reject("no relation of this object is clear")


def set_options(
    scene: dict[str, Any], lay: Layout, prefix: list[dict[str, Any]], rel: str | None, want: Callable[[int], bool]
) -> list[dict[str, str]]:
    """The filters whose set (related to the prefix's object by `rel`, or over all objects) has a size `want`
    accepts and, with a relation, a different size than over all other objects: the relation must matter."""
    objs = scene["objects"]
    among = candidates_of(scene, lay, prefix, rel)
    base = None
    if prefix:
        anchor = chain_result(run_chain(scene, lay, prefix, as_set=False))[0]
        base = [k for k in range(len(objs)) if k != anchor]
    out = []
    for f in all_filters(scene.get("kind", "")):
        c = sum(matches(objs[k], f) for k in among)
        if want(c) and (base is None or sum(matches(objs[k], f) for k in base) != c):
            out.append(f)
    return out


def set_prefix(rng: random.Random, scene: dict[str, Any], lay: Layout, hops: int) -> tuple[list[dict], str | None]:
    """The reference a set is related to (hops - 1 relations deep) and the set's relation, or ([], None)."""
    if hops <= 0:
        return [], None
    return random_reference(rng, scene, lay, hops - 1), rng.choice(RELATIONS)


def candidates_of(scene: dict[str, Any], lay: Layout, prefix: list[dict], rel: str | None) -> list[int]:
    if not prefix:
        return list(range(len(scene["objects"])))
    anchor = chain_result(run_chain(scene, lay, prefix, as_set=False))[0]
    if rel is None:
        raise ValueError("a set related to a reference needs a relation")
    return related(lay, anchor, rel)


# -- wording ----------------------------------------------------------------------------------------------


def noun(flt: dict[str, str], plural: bool = False) -> str:
    words = [flt[a] for a in ("size", "colour", "material") if a in flt]
    head = flt.get("shape", "object")
    return " ".join([*words, head + ("s" if plural else "")])


def ref_phrase(chain: list[dict[str, Any]], say: Callable[[dict[str, str], bool], str] = noun) -> str:
    """ "the small cube that is to the left of the large metal sphere" (innermost reference last)."""
    phrase = f"the {say(chain[0]['filter'], False)}"
    for step in chain[1:]:
        phrase = f"the {say(step['filter'], False)} that is {REL_PHRASE[step['relate']]} {phrase}"
    return phrase


def set_phrase(chain: list[dict[str, Any]], say: Callable[[dict[str, str], bool], str] = noun) -> str:
    """ "large cubes that are behind the red sphere" (plural)."""
    last = chain[-1]
    head = say(last["filter"], True)
    if last["relate"] is None:
        return head
    return f"{head} that are {REL_PHRASE[last['relate']]} {ref_phrase(chain[:-1], say)}"


# -- pictures ---------------------------------------------------------------------------------------------

LETTERS = "ABCDEFGHIJKLMN"


def labels(scene: dict[str, Any], lay: Layout) -> list[str]:
    """Objects lettered from left to right in the picture, so a letter says nothing about attributes."""
    order = sorted(range(len(scene["objects"])), key=lambda k: (lay.px[k], k))
    out = [""] * len(order)
    for rank, k in enumerate(order):
        out[k] = LETTERS[rank]
    return out


def letters_text(ks: list[int], names: list[str]) -> str:
    items = sorted(names[k] for k in ks)
    if not items:
        return "none"
    if len(items) == 1:
        return items[0]
    return ", ".join(items[:-1]) + " and " + items[-1]


@lru_cache(maxsize=4)
def _render_cached(key: str, scene_json: str) -> Render3D:
    import json

    scene = json.loads(scene_json)
    return render_scene(vocab_of(scene).primitives(scene["objects"]), camera_of(scene))


def render_of(scene: dict[str, Any]) -> Render3D:
    import json

    key = {
        "objects": scene["objects"],
        "camera": scene["camera"],
        **({"kind": scene["kind"]} if "kind" in scene else {}),
    }
    text = json.dumps(key, sort_keys=True)
    return _render_cached(text, text)


def greyed(res: Render3D, grey: list[int]) -> Image.Image:
    """The picture with the objects in `grey` washed out to pale grey (filtered distractors)."""
    return greyed_where(res, np.isin(res.ids, grey) if grey else None)


def greyed_where(res: Render3D, mask: np.ndarray | None) -> Image.Image:
    """The picture with the pixels of `mask` washed out to pale grey."""
    assert res.image is not None
    arr = np.asarray(res.image, dtype=np.float32)
    if mask is not None and mask.any():
        # `mask` comes from the first-subpixel buffers, which miss the antialiased pixels along an object's top
        # and left edges (their top-left subpixel shows the floor); every pixel whose subpixels show the masked
        # primitives at least as much as other ones is greyed too, so no fringe of true colour stays.
        grey_parts = np.unique(res.parts[mask])
        grey_parts = grey_parts[grey_parts >= 0]
        if grey_parts.size:
            cov = res.coverage(grey_parts)
            others = 1 - cov - res.coverage([-1])
            mask = mask | ((cov > 0) & (cov >= others))
        lum = arr @ np.array([0.299, 0.587, 0.114], dtype=np.float32)
        pale = 150 + 0.35 * lum
        arr = arr.copy()
        arr[mask] = np.repeat(pale[mask][:, None], 3, axis=1)
    return Image.fromarray(np.clip(np.round(arr), 0, 255).astype(np.uint8), "RGB")


def box_object(c: Canvas, res: Render3D, k: int, label: str, colour: str = "black", dash: bool = False) -> None:
    view = res.objects[k]
    x0, y0, x1, y1 = view.silhouette or view.bbox or (0, 0, 1, 1)
    box = [(x0 - 3, y0 - 3), (x1 + 2, y0 - 3), (x1 + 2, y1 + 2), (x0 - 3, y1 + 2), (x0 - 3, y0 - 3)]
    c.line(box, color=colour, width=2.5, dash=(6, 4) if dash else None)
    tw, th = c.text_size(label, 13, bold=True)
    tx, ty = max(0, x0 - 3), max(0, y0 - 3 - th - 4)
    c.rect((tx, ty, tx + tw + 6, ty + th + 4), fill="white", outline=colour, width=1.5)
    c.text((tx + 3, ty + 2), label, size=13, color=colour, bold=True)


def draw_state(
    scene: dict[str, Any], res: Render3D, names: list[str], state: dict[str, Any], extra_marked: list[int] | None = None
) -> Image.Image:
    """One trace state: relate states grey the objects on the wrong side of the anchor and draw the dividing
    line through it; filter states grey everything but the kept objects, box them, and draw an arrow from the
    anchor (the relation chain) to each kept object."""
    n = len(scene["objects"])
    if state["op"] == "relate":
        keep = set(state["kept"]) | {state["anchor"]}
    else:
        keep = set(state["kept"]) | ({state["anchor"]} if state["anchor"] is not None else set())
    keep |= set(extra_marked or [])
    c = Canvas.from_image(greyed(res, [k for k in range(n) if k not in keep]))
    if state["op"] == "relate":
        a = state["anchor"]
        view = res.objects[a]
        if state["rel"] in ("left", "right"):
            x = view.centre[0]
            c.line([(x, 4), (x, HEIGHT - 4)], color="black", width=2, dash=(7, 5))
            sign = -1 if state["rel"] == "left" else 1
            y = min(HEIGHT - 14, (view.silhouette or (0, 0, 0, HEIGHT - 30))[3] + 12)
            c.arrow((x, y), (x + sign * 50, y), color="black", width=3)
        else:
            y = view.foot[1]
            c.line([(4, y), (WIDTH - 4, y)], color="black", width=2, dash=(7, 5))
            sign = 1 if state["rel"] == "front" else -1
            x = min(WIDTH - 14, (view.silhouette or (0, 0, WIDTH - 30, 0))[2] + 14)
            c.arrow((x, y), (x, y + sign * 45), color="black", width=3)
        box_object(c, res, a, names[a], dash=True)
        for k in state["kept"]:
            box_object(c, res, k, names[k], colour="darkgray")
    else:
        a = state["anchor"]
        if a is not None:
            box_object(c, res, a, names[a], dash=True)
            for k in state["kept"]:
                c.arrow(
                    res.objects[a].centre,
                    _toward(res.objects[a].centre, res.objects[k].centre, 14),
                    color="black",
                    width=2.5,
                )
        for k in state["kept"]:
            box_object(c, res, k, names[k])
    for k in extra_marked or []:
        box_object(c, res, k, names[k])
    return c.image()


def _toward(a: tuple[float, float], b: tuple[float, float], short: float) -> tuple[float, float]:
    dx, dy = b[0] - a[0], b[1] - a[1]
    d = math.hypot(dx, dy) or 1.0
    s = max(0.0, d - short) / d
    return a[0] + dx * s, a[1] + dy * s


def state_text(scene: dict[str, Any], names: list[str], state: dict[str, Any]) -> str:
    """What a state's picture shows, with no attribute value the question does not name."""
    if state["op"] == "relate":
        a = names[state["anchor"]]
        side = {
            "left": "left of the dashed line through",
            "right": "right of the dashed line through",
            "front": "below the dashed line through the foot of (nearer the camera than)",
            "behind": "above the dashed line through the foot of (farther from the camera than)",
        }[state["rel"]]
        return (
            f"Objects {REL_PHRASE[state['rel']]} {a}: those {side} {a} stay in colour "
            f"({letters_text(state['kept'], names)}); the others are greyed out."
        )
    what = vocab_of(scene).noun(state["filter"], True) if state["filter"] else "objects"
    among = "among all objects" if state["anchor"] is None else f"among {letters_text(state['among'], names)}"
    kept = letters_text(state["kept"], names)
    tail = "" if state["anchor"] is None else f", each with an arrow from {names[state['anchor']]}"
    if not state["kept"]:
        return f"The {what} {among}: none, so nothing is boxed; the others are greyed out."
    return f"The {what} {among}: boxed {kept}{tail}; the others are greyed out."


def _clevr_centre(o: dict[str, Any]) -> tuple[float, float, float]:
    return o["x"], o["y"], RADIUS[o["size"]] * (CUBE_HALF if o["shape"] == "cube" else 1)


CLEVR = Vocab(attrs=ATTRS, values=VALUES, noun=noun, primitives=primitives, centre=_clevr_centre, head="shape")
