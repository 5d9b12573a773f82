"""object_attributes: CLEVR-like questions about a rendered 3D scene of cubes, spheres and cylinders — query an
attribute, count, exist, compare counts, same attribute — over references chained through spatial relations
(left, right, in front, behind as the camera sees them). docs/tasks/object_attributes.md has the details."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from PIL import Image

from vcot.tasks import register
from vcot.tasks.base import Choices, Corruption, Limit, Reject, Solution
from vcot.tasks.scene3d._legible import check_apparent_size
from vcot.tasks.scene3d._scene import (
    VALUES,
    Ambiguous,
    Layout,
    chain_result,
    draw_state,
    labels,
    layout,
    letters_text,
    pick_relation,
    random_reference,
    ref_phrase,
    render_of,
    run_chain,
    sample_camera,
    sample_objects,
    set_options,
    set_phrase,
    state_text,
    visibility_render,
)
from vcot.tasks.scene3d._task import Scene3DTask

FAMILIES = (
    "query_colour",
    "query_shape",
    "query_material",
    "query_size",
    "count",
    "exist",
    "compare_count",
    "same_attribute",
)
YES_NO = ("yes", "no")
PREAMBLE = (
    "The picture shows a 3D scene of objects on a floor: cubes, spheres and cylinders; small or large; red, "
    "blue, green, orange, purple or cyan; rubber (matte) or metal (shiny). Left and right are as seen in "
    "the picture (by the objects' centres); in front of means nearer the camera, behind farther from it."
)


@dataclass(frozen=True)
class ObjectAttributesConfig:
    min_objects: int = 4
    max_objects: int = 7
    min_hops: int = 1
    max_hops: int = 1
    max_count: int = 4
    min_visible: float = 0.5
    left_right_px: float = 16.0
    front_behind: float = 0.5
    front_behind_px: float = 12.0
    size_ratio: float = 1.15
    min_width_px: float = 24.0
    material_width_px: float = 28.0
    families: list[str] = field(default_factory=lambda: list(FAMILIES))


def answers_of(family: str, max_count: int) -> tuple[str, ...]:
    if family.startswith("query_"):
        return VALUES[family.removeprefix("query_")]
    if family == "count":
        return tuple(str(i) for i in range(max_count + 1))
    return YES_NO


def named_values(program: dict[str, Any]) -> set[str]:
    """Every attribute value the program's filters name (the words its question and step texts use)."""
    chains = [program[k] for k in ("ref", "set", "a", "b") if k in program]
    return {v for chain in chains for step in chain for v in step["filter"].values()}


@register
class ObjectAttributes(Scene3DTask):
    name = "object_attributes"
    config_cls = ObjectAttributesConfig
    presets = {
        "easy": ObjectAttributesConfig(min_objects=3, max_objects=6, min_hops=0, max_hops=0, max_count=3),
        "medium": ObjectAttributesConfig(min_objects=5, max_objects=8, min_hops=1, max_hops=1, max_count=4),
        "hard": ObjectAttributesConfig(min_objects=7, max_objects=10, min_hops=2, max_hops=3, max_count=4),
    }
    version = "4"
    description = "CLEVR-like questions about a rendered 3D scene: attributes, counts, comparisons, relation chains."
    limits = {
        "min_objects": Limit(3, 10, "objects per scene: a relation needs company; more than 10 do not fit unoccluded"),
        "max_objects": Limit(3, 10, "objects per scene: more than 10 do not fit unoccluded on the floor"),
        "min_hops": Limit(0, 3, "relations chained in one reference"),
        "max_hops": Limit(0, 3, "relations chained in one reference: the issue asks for up to 3"),
        "max_count": Limit(1, 6, "largest count answer: balanced counts above 6 need more objects than fit"),
        "min_visible": Limit(
            0.3,
            0.8,
            "share of each object's outline the id buffer must show; above 0.8 crowded scenes are rarely accepted",
        ),
        "left_right_px": Limit(
            6.0,
            24.0,
            "picture distance below which left or right is ambiguous; wider "
            "margins leave 10-object scenes no usable relation",
        ),
        "front_behind": Limit(
            0.2,
            0.6,
            "depth difference (scene units) below which front or behind is "
            "ambiguous; wider margins leave 10-object scenes no usable relation",
        ),
        "front_behind_px": Limit(
            4.0,
            24.0,
            "floor points' picture distance (pixels) below which front or behind "
            "is ambiguous, beside the depth margin in scene units",
        ),
        "size_ratio": Limit(
            1.0,
            1.5,
            "how much bigger every large object must look than every small one "
            "when a question reads sizes (1 checks nothing)",
        ),
        "min_width_px": Limit(
            10.0,
            40.0,
            "width (pixels) of every object's outline in the picture; above 40 the "
            "far small objects of most scenes fail it",
        ),
        "material_width_px": Limit(
            10.0,
            48.0,
            "width (pixels) of every object's outline when the question reads "
            "material: metal's highlight needs room to show",
        ),
        "families": Choices(FAMILIES, "question families, each balanced over its answers"),
    }

    answers_of = staticmethod(answers_of)

    # -- sampling ---------------------------------------------------------------------------------------------

    def new_scene(self, rng: random.Random, n: int) -> dict[str, Any]:
        cfg = self.config
        return {
            "objects": sample_objects(rng, n),
            "camera": sample_camera(rng),
            "margins": {
                "left_right_px": cfg.left_right_px,
                "front_behind": cfg.front_behind,
                "front_behind_px": cfg.front_behind_px,
                "size_ratio": cfg.size_ratio,
            },
            "min_visible": cfg.min_visible,
        }

    def names_answer(self, family: str, target: str, program: dict[str, Any]) -> bool:
        # The step texts repeat the question's words; they must not name the answer.
        return family.startswith("query_") and target in named_values(program)

    def picture_centres(self, scene: dict[str, Any]) -> list[list[float]]:
        centres, res = visibility_render(scene, self.config.min_visible)
        check_apparent_size(scene, res, self.config.min_width_px, self.config.material_width_px)
        return centres

    def program(
        self, rng: random.Random, scene: dict[str, Any], lay: Layout, family: str, target: str, hops: int
    ) -> dict[str, Any]:
        objs = scene["objects"]
        if family.startswith("query_"):
            attr = family.removeprefix("query_")
            chain = random_reference(rng, scene, lay, hops)
            if attr in chain[-1]["filter"]:
                raise Reject("queried attribute named in the reference")
            return {"family": family, "attr": attr, "ref": chain}
        if family in ("count", "exist"):
            chain = self._set(
                rng,
                scene,
                lay,
                hops,
                lambda c: (str(c) == target) if family == "count" else ((c > 0) == (target == "yes")),
            )
            return {"family": family, "set": chain}
        if family == "compare_count":
            a = self._set(rng, scene, lay, hops, lambda c: True)
            b = self._set(rng, scene, lay, 0, lambda c: True)
            if a[-1]["filter"] == b[-1]["filter"] and a[-1]["relate"] is None:
                raise Reject("a set compared with itself")
            return {"family": family, "a": a, "b": b}
        a = random_reference(rng, scene, lay, hops)
        b = random_reference(rng, scene, lay, 0)
        ka = chain_result(run_chain(scene, lay, a, as_set=False))[0]
        kb = chain_result(run_chain(scene, lay, b, as_set=False))[0]
        free = [x for x in VALUES if x not in a[-1]["filter"] and x not in b[-1]["filter"]]
        if ka == kb or not free:
            raise Reject("the two references pick one object or leave no attribute to compare")
        attr = rng.choice(free)
        if (objs[ka][attr] == objs[kb][attr]) != (target == "yes"):
            raise Reject("wrong answer")
        return {"family": family, "attr": attr, "a": a, "b": b}

    @staticmethod
    def _set(rng: random.Random, scene: dict[str, Any], lay: Layout, hops: int, want: Any) -> list[dict[str, Any]]:
        """A set chain (hops relations deep) whose size satisfies `want`."""
        prefix: list[dict[str, Any]] = []
        rel = None
        if hops > 0:
            prefix = random_reference(rng, scene, lay, hops - 1)
            anchor = chain_result(run_chain(scene, lay, prefix, as_set=False))[0]
            rel = pick_relation(rng, lay, anchor)[0]
        options = set_options(scene, lay, prefix, rel, want)
        if not options:
            raise Reject("no filter gives the wanted count")
        return [*prefix, {"relate": rel, "filter": rng.choice(options)}]

    # -- solving ----------------------------------------------------------------------------------------------

    @staticmethod
    def answer_from(scene: dict[str, Any], results: dict[str, list[int]]) -> str:
        prog, objs = scene["program"], scene["objects"]
        fam = prog["family"]
        if fam.startswith("query_"):
            return str(objs[results["ref"][0]][prog["attr"]])
        if fam == "count":
            return str(len(results["set"]))
        if fam == "exist":
            return YES_NO[len(results["set"]) == 0]
        if fam == "compare_count":
            return YES_NO[not len(results["a"]) > len(results["b"])]
        return YES_NO[objs[results["a"][0]][prog["attr"]] != objs[results["b"][0]][prog["attr"]]]

    def solve(self, scene: dict[str, Any]) -> Solution:
        prog = scene["program"]
        lay = layout(scene)
        fam = prog["family"]
        keys = ["ref"] if fam.startswith("query_") else ["set"] if fam in ("count", "exist") else ["a", "b"]
        try:
            traces = [run_chain(scene, lay, prog[key], as_set=self.as_set(fam, key)) for key in keys]
        except Ambiguous as exc:
            raise Reject(str(exc)) from None
        results = {key: chain_result(t) for key, t in zip(keys, traces, strict=True)}
        if fam == "same_attribute" and results["a"] == results["b"]:
            raise Reject("both references pick one object")
        answer = self.answer_from(scene, results)
        return Solution(answer=answer, states=[s for t in traces for s in t], details={"family": fam})

    def implied_answer(self, scene: dict[str, Any], states: list[dict[str, Any]]) -> str | None:
        """The answer the states conclude: each chain's result is what its last filter step boxes (a wrong mark
        included), put through the question as the solver does."""
        fam = scene["program"]["family"]
        keys = ["ref"] if fam.startswith("query_") else ["set"] if fam in ("count", "exist") else ["a", "b"]
        traces = split_traces(states)
        if len(traces) != len(keys):
            return None
        results = {key: list(t[-1]["kept"]) for key, t in zip(keys, traces, strict=True)}
        # A reference that boxes no object or several names no attribute; the same object twice compares nothing.
        if any(len(results[key]) != 1 for key in keys if not self.as_set(fam, key)):
            return None
        if fam == "same_attribute" and results["a"] == results["b"]:
            return None
        return self.answer_from(scene, results)

    def question(self, scene: dict[str, Any]) -> str:
        prog = scene["program"]
        fam = prog["family"]
        if fam.startswith("query_"):
            attr = {"colour": "colour", "shape": "shape", "material": "material", "size": "size"}[prog["attr"]]
            tail = {
                "colour": "a colour",
                "shape": "cube, sphere or cylinder",
                "material": "rubber or metal",
                "size": "small or large",
            }[prog["attr"]]
            q = f"What is the {attr} of {ref_phrase(prog['ref'])}? Answer with one word ({tail})."
        elif fam == "count":
            q = f"How many {set_phrase(prog['set'])} are there? Answer with a single integer."
        elif fam == "exist":
            q = f"Are there any {set_phrase(prog['set'])}? Answer yes or no."
        elif fam == "compare_count":
            q = f"Are there more {set_phrase(prog['a'])} than {set_phrase(prog['b'])}? Answer yes or no."
        else:
            q = (
                f"Does {ref_phrase(prog['a'])} have the same {prog['attr']} as {ref_phrase(prog['b'])}? "
                "Answer yes or no."
            )
        return f"{PREAMBLE} {q}"

    # -- pictures ---------------------------------------------------------------------------------------------

    def steps(self, scene: dict[str, Any], states: list[dict[str, Any]]) -> list[tuple[Image.Image, str]]:
        res = render_of(scene)
        lay = layout(scene)
        names = labels(scene, lay)
        out = [(draw_state(scene, res, names, s), state_text(scene, names, s)) for s in states]
        prog = scene["program"]
        pair = compared_pair(scene, states)
        if pair:
            last = {"op": "filter", "filter": {}, "among": pair, "kept": pair, "anchor": None}
            out.append(
                (
                    draw_state(scene, res, names, last),
                    f"The two objects whose {prog['attr']} the question compares: boxed "
                    f"{letters_text(pair, names)}; the others are greyed out.",
                )
            )
        return out

    def corrupt(self, scene: dict[str, Any], solution: Solution, rng: random.Random) -> Corruption | None:
        states = solution.states
        lay = layout(scene)
        names = labels(scene, lay)
        # A flipped relation half the time; else a misread description within the last step's view; else a
        # flip after all; else an earlier reference misread and carried through. Each states its wrong state as
        # a solver would: no step keeps an object its own dashed line puts on the other side (issue 45).
        return (
            self.flipped_relation(scene, lay, states, names, rng)
            or self._wrong_mark(scene, states, names, rng)
            or self.flipped_relation(scene, lay, states, names, rng, always=True)
            or self.misread_reference(scene, lay, states, names, rng)
        )

    def _wrong_mark(
        self, scene: dict[str, Any], states: list[dict[str, Any]], names: list[str], rng: random.Random
    ) -> Corruption | None:
        """The last filter state with one boxed object swapped for an object the step had in view but that does
        not match (a description misread)."""
        idx = max(i for i, s in enumerate(states) if s["op"] == "filter")
        s = states[idx]
        # Objects the trajectory already picked (the other reference) would blur what went wrong.
        used = {k for st in states[:idx] if st["op"] == "filter" for k in st["kept"]}
        outside = [k for k in s["among"] if k not in s["kept"] and k not in used]
        kept = list(s["kept"])
        if not outside:
            # Every object in view qualifies: the end of a set can still miss one (a reference cannot: the steps
            # after it need its object).
            if not kept or scene["program"]["family"] not in ("count", "exist", "compare_count"):
                return None
            old = rng.choice(kept)
            kept.remove(old)
            return self._carried(
                scene,
                [*states[:idx], {**s, "kept": kept}, *states[idx + 1 :]],
                f"a wrong object marked: {names[old]} left out though it qualifies",
            )
        new = rng.choice(outside)
        if kept:
            old = rng.choice(kept)
            kept[kept.index(old)] = new
            what = f"{names[new]} boxed instead of {names[old]}"
        else:
            kept = [new]
            what = f"{names[new]} boxed though no object qualifies"
        wrong = [*states[:idx], {**s, "kept": sorted(kept)}, *states[idx + 1 :]]
        # A wrong mark is no reading of the scene (no scene is set): its answer is read from the marked states.
        return Corruption(
            steps=lambda: self.steps(scene, wrong),
            description=f"a wrong object marked: {what}",
            answer=self.checked_answer(scene, wrong),
        )


def split_traces(states: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """The traces of a program's chains: each starts with a filter over all objects (no anchor)."""
    out: list[list[dict[str, Any]]] = []
    for s in states:
        if s["op"] == "filter" and s["anchor"] is None:
            out.append([])
        out[-1].append(s)
    return out


def compared_pair(scene: dict[str, Any], states: list[dict[str, Any]]) -> list[int]:
    """The two different objects a same_attribute question compares, once both references are found; else []."""
    if scene["program"]["family"] != "same_attribute" or not states:
        return []
    pair = [k[0] for k in (t[-1]["kept"] for t in split_traces(states)) if len(k) == 1]
    return pair if len(pair) == 2 and pair[0] != pair[1] else []
