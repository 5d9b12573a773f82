"""compositional_3d: Super-CLEVR-like questions about toy vehicles (car, truck, tractor) built from parts — a
body, a cabin and the wheels, each with its own colour — asking for a part's colour, the vehicle type, counts,
existence, whether parts of two vehicles share a colour, and how many vehicles have a part coloured like a part
of another; references chain spatial relations. docs/tasks/compositional_3d.md has the details."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from PIL import Image

from vcot.draw import Canvas
from vcot.draw3d import Render3D
from vcot.draw3d.composites import PARTS, TYPES, part_list
from vcot.tasks import register
from vcot.tasks.base import (
    Choices,
    Corruption,
    Limit,
    Reject,
    Solution,
)
from vcot.tasks.scene3d._legible import check_apparent_size, check_not_end_on, check_part_occlusion
from vcot.tasks.scene3d._scene import (
    COLOURS,
    Ambiguous,
    Layout,
    box_object,
    chain_result,
    draw_state,
    greyed_where,
    labels,
    layout,
    letters_text,
    pick_relation,
    random_reference,
    ref_phrase,
    render_of,
    run_chain,
    sample_camera,
    set_options,
    set_phrase,
    state_text,
    visibility_render,
)
from vcot.tasks.scene3d._task import Scene3DTask
from vcot.tasks.scene3d._vehicles import KIND, noun, sample_vehicles
from vcot.tasks.scene3d.object_attributes import YES_NO, named_values

FAMILIES = ("query_part_colour", "query_type", "count", "exist", "same_part_colour", "count_part_match")
PREAMBLE = (
    "The picture shows toy vehicles on a floor: cars, trucks and tractors, small or large, rubber (matte) "
    "or metal (shiny). Every vehicle has three parts, a body, a cabin and the wheels, each red, blue, "
    "green, orange, purple or cyan (all wheels of a vehicle share one colour). Left and right are as seen "
    "in the picture (by the vehicles' centres); in front of means nearer the camera, behind farther from "
    "it."
)
PART_PHRASE = {"body": "the body", "cabin": "the cabin", "wheels": "the wheels"}


@dataclass(frozen=True)
class Compositional3DConfig:
    min_objects: int = 4
    max_objects: int = 5
    min_hops: int = 1
    max_hops: int = 1
    max_count: int = 3
    min_visible: float = 0.5
    min_part_px: int = 20
    left_right_px: float = 16.0
    front_behind: float = 0.5
    front_behind_px: float = 12.0
    size_ratio: float = 1.15
    min_width_px: float = 36.0
    material_width_px: float = 42.0
    end_on_deg: float = 20.0
    max_part_hidden: float = 0.4
    families: list[str] = field(default_factory=lambda: list(FAMILIES))


def answers_of(family: str, max_count: int) -> tuple[str, ...]:
    if family == "query_part_colour":
        return COLOURS
    if family == "query_type":
        return TYPES
    if family in ("count", "count_part_match"):
        return tuple(str(i) for i in range(max_count + 1))
    return YES_NO


def _say(flt: dict[str, str], plural: bool) -> str:
    return noun(flt, plural)


@register
class Compositional3D(Scene3DTask):
    name = "compositional_3d"
    config_cls = Compositional3DConfig
    presets = {
        "easy": Compositional3DConfig(min_objects=3, max_objects=4, min_hops=0, max_hops=0, max_count=2),
        "medium": Compositional3DConfig(min_objects=4, max_objects=5, min_hops=1, max_hops=1, max_count=3),
        "hard": Compositional3DConfig(min_objects=5, max_objects=6, min_hops=2, max_hops=3, max_count=3),
    }
    version = "4"
    description = "Super-CLEVR-like questions about toy vehicles whose parts have their own colours."
    limits = {
        "min_objects": Limit(3, 7, "vehicles per scene: a relation needs company"),
        "max_objects": Limit(3, 7, "vehicles per scene: more than 7 do not fit on the floor unoccluded"),
        "min_hops": Limit(0, 3, "relations chained in one reference"),
        "max_hops": Limit(0, 3, "relations chained in one reference: the issue asks for up to 3"),
        "max_count": Limit(1, 5, "largest count answer: balanced counts need that many matching vehicles"),
        "min_visible": Limit(
            0.3, 0.8, "share of each vehicle's outline the id buffer must show; above 0.8 scenes are rarely accepted"
        ),
        "min_part_px": Limit(
            5,
            60,
            "pixels every part of every vehicle must show in the part buffer; small "
            "wheels seen edge-on rarely show more than 60",
        ),
        "left_right_px": Limit(6.0, 24.0, "picture distance below which left or right is ambiguous"),
        "front_behind": Limit(0.2, 0.6, "depth difference (scene units) below which front or behind is ambiguous"),
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
            20.0,
            48.0,
            "width (pixels) of every vehicle's outline in the picture: a cabin must "
            "be told from the body; above 48 most scenes fail it",
        ),
        "material_width_px": Limit(
            20.0,
            56.0,
            "width (pixels) of every vehicle's outline when the question reads "
            "material: metal's highlight needs room to show",
        ),
        "end_on_deg": Limit(
            0.0,
            35.0,
            "degrees from end-on within which no vehicle may be seen when the question reads a cabin, a body or a type",
        ),
        "max_part_hidden": Limit(0.1, 0.7, "share of a vehicle's body or cabin other vehicles may hide"),
        "families": Choices(FAMILIES, "question families, each balanced over its answers"),
    }

    answers_of = staticmethod(answers_of)

    # -- sampling ---------------------------------------------------------------------------------------------

    def new_scene(self, rng: random.Random, n: int) -> dict[str, Any]:
        cfg = self.config
        # Headings near end-on are drawn again (a few degrees wider than the rule, for the camera's jitter), so
        # the end-on rule seldom rejects a whole scene.
        objects = sample_vehicles(rng, n, avoid_end_on=cfg.end_on_deg + 8.0 if cfg.end_on_deg else 0.0)
        return {
            "kind": KIND,
            "objects": objects,
            "camera": sample_camera(rng),
            "margins": {
                "left_right_px": cfg.left_right_px,
                "front_behind": cfg.front_behind,
                "front_behind_px": cfg.front_behind_px,
                "size_ratio": cfg.size_ratio,
            },
            "min_visible": cfg.min_visible,
            "min_part_px": cfg.min_part_px,
        }

    def names_answer(self, family: str, target: str, program: dict[str, Any]) -> bool:
        # The step texts repeat the question's words; they must not name the answer.
        return family == "query_part_colour" and target in named_values(program)

    def picture_centres(self, scene: dict[str, Any]) -> list[list[float]]:
        cfg = self.config
        centres, res = visibility_render(scene, cfg.min_visible)
        self._check_parts(scene, res)
        check_apparent_size(scene, res, cfg.min_width_px, cfg.material_width_px)
        check_not_end_on(scene, cfg.end_on_deg)
        check_part_occlusion(scene, res, part_list(scene["objects"]), cfg.max_part_hidden)
        return centres

    @staticmethod
    def _check_parts(scene: dict[str, Any], res: Render3D) -> None:
        """Every part of every vehicle shows at least min_part_px pixels in the part buffer (buffers-only
        render, one subpixel per pixel)."""
        owners = part_list(scene["objects"])
        counts = np.bincount(res.parts.ravel().astype(np.int64) + 1, minlength=len(owners) + 1)[1:]
        shown: dict[tuple[int, str], int] = {}
        for idx, key in enumerate(owners):
            shown[key] = shown.get(key, 0) + int(counts[idx])
        for (k, part), px in shown.items():
            if px < scene["min_part_px"]:
                raise Reject(f"the {part} of vehicle {k} shows only {px} pixels")

    def program(
        self, rng: random.Random, scene: dict[str, Any], lay: Layout, family: str, target: str, hops: int
    ) -> dict[str, Any]:
        if family == "query_part_colour":
            chain = random_reference(rng, scene, lay, hops)
            part = rng.choice(PARTS)
            if part in chain[-1]["filter"]:
                raise Reject("queried part named in the reference")
            return {"family": family, "part": part, "ref": chain}
        if family == "query_type":
            chain = random_reference(rng, scene, lay, hops)
            if "type" in chain[-1]["filter"]:
                raise Reject("queried type named in the reference")
            return {"family": family, "ref": chain}
        if family in ("count", "exist"):
            prefix: list[dict[str, Any]] = []
            rel = None
            if hops > 0:
                prefix = random_reference(rng, scene, lay, hops - 1)
                anchor = chain_result(run_chain(scene, lay, prefix, as_set=False))[0]
                rel = pick_relation(rng, lay, anchor)[0]

            def fits(c: int) -> bool:
                return str(c) == target if family == "count" else (c > 0) == (target == "yes")

            options = set_options(scene, lay, prefix, rel, fits)
            if not options:
                raise Reject("no filter gives the wanted count")
            return {"family": family, "set": [*prefix, {"relate": rel, "filter": rng.choice(options)}]}
        if family == "same_part_colour":
            a = random_reference(rng, scene, lay, hops)
            b = random_reference(rng, scene, lay, 0)
            return {"family": family, "a": a, "part_a": rng.choice(PARTS), "b": b, "part_b": rng.choice(PARTS)}
        ref = random_reference(rng, scene, lay, hops)
        return {"family": family, "ref": ref, "ref_part": rng.choice(PARTS), "part": rng.choice(PARTS)}

    # -- solving ----------------------------------------------------------------------------------------------

    @staticmethod
    def answer_from(scene: dict[str, Any], results: dict[str, list[int]]) -> str:
        prog, objs = scene["program"], scene["objects"]
        fam = prog["family"]
        if fam in ("count", "exist"):
            c = len(results["set"])
            return str(c) if fam == "count" else YES_NO[c == 0]
        if fam == "same_part_colour":
            return YES_NO[objs[results["a"][0]][prog["part_a"]] != objs[results["b"][0]][prog["part_b"]]]
        k = results["ref"][0]
        if fam == "query_type":
            return str(objs[k]["type"])
        if fam == "query_part_colour":
            return str(objs[k][prog["part"]])
        colour = objs[k][prog["ref_part"]]
        return str(sum(1 for j in range(len(objs)) if j != k and objs[j][prog["part"]] == colour))

    def solve(self, scene: dict[str, Any]) -> Solution:
        prog = scene["program"]
        objs = scene["objects"]
        lay = layout(scene)
        fam = prog["family"]
        keys = ["set"] if fam in ("count", "exist") else ["a", "b"] if fam == "same_part_colour" else ["ref"]
        try:
            traces = [run_chain(scene, lay, prog[key], as_set=self.as_set(fam, key)) for key in keys]
        except Ambiguous as exc:
            raise Reject(str(exc)) from None
        results = {key: chain_result(t) for key, t in zip(keys, traces, strict=True)}
        answer = self.answer_from(scene, results)
        states = [s for t in traces for s in t]
        if fam == "same_part_colour":
            ka, kb = results["a"][0], results["b"][0]
            if ka == kb:
                raise Reject("both references pick one vehicle")
            states.append({"op": "part", "parts": [[ka, prog["part_a"]], [kb, prog["part_b"]]]})
        elif fam == "query_part_colour":
            states.append({"op": "part", "parts": [[results["ref"][0], prog["part"]]]})
        elif fam not in ("count", "exist", "query_type"):
            k = results["ref"][0]
            others = [j for j in range(len(objs)) if j != k]
            kept = [j for j in others if objs[j][prog["part"]] == objs[k][prog["ref_part"]]]
            states.append({"op": "part", "parts": [[k, prog["ref_part"]]]})
            states.append(
                {
                    "op": "match",
                    "anchor": k,
                    "part": prog["part"],
                    "ref_part": prog["ref_part"],
                    "among": others,
                    "kept": kept,
                }
            )
        return Solution(answer, states, {"family": fam})

    def implied_answer(self, scene: dict[str, Any], states: list[dict[str, Any]]) -> str | None:
        """The answer the last step shows: the vehicles a set's last filter or the match step boxes (counted),
        the one vehicle a reference's last filter boxes (its type), or the parts the last step isolates (their
        colours), so that a wrong mark or a wrong part is carried into the answer."""
        fam = scene["program"]["family"]
        objs = scene["objects"]
        last = states[-1]
        if fam in ("count", "exist", "count_part_match"):
            if last["op"] != ("match" if fam == "count_part_match" else "filter"):
                return None
            c = len(last["kept"])
            return YES_NO[c == 0] if fam == "exist" else str(c)
        if fam == "query_type":
            return str(objs[last["kept"][0]]["type"]) if last["op"] == "filter" and len(last["kept"]) == 1 else None
        if last["op"] != "part":
            return None
        colours = [objs[int(k)][part] for k, part in last["parts"]]
        if fam == "query_part_colour" and len(colours) == 1:
            return str(colours[0])
        if fam == "same_part_colour" and len(colours) == 2:
            return YES_NO[colours[0] != colours[1]]
        return None

    def question(self, scene: dict[str, Any]) -> str:
        prog = scene["program"]
        fam = prog["family"]
        if fam == "query_part_colour":
            verb = "are" if prog["part"] == "wheels" else "is"
            q = (
                f"What colour {verb} {PART_PHRASE[prog['part']]} of {ref_phrase(prog['ref'], _say)}? "
                "Answer with one word (a colour)."
            )
        elif fam == "query_type":
            q = f"What kind of vehicle is {ref_phrase(prog['ref'], _say)}? Answer car, truck or tractor."
        elif fam == "count":
            q = f"How many {set_phrase(prog['set'], _say)} are there? Answer with a single integer."
        elif fam == "exist":
            q = f"Are there any {set_phrase(prog['set'], _say)}? Answer yes or no."
        elif fam == "same_part_colour":
            verb = "Do" if prog["part_a"] == "wheels" else "Does"
            q = (
                f"{verb} {PART_PHRASE[prog['part_a']]} of {ref_phrase(prog['a'], _say)} have the same colour as "
                f"{PART_PHRASE[prog['part_b']]} of {ref_phrase(prog['b'], _say)}? Answer yes or no."
            )
        else:
            have = {"body": "a body", "cabin": "a cabin", "wheels": "wheels"}[prog["part"]]
            q = (
                f"How many other vehicles have {have} of the same colour "
                f"as {PART_PHRASE[prog['ref_part']]} of {ref_phrase(prog['ref'], _say)}? "
                "Answer with a single integer."
            )
        return f"{PREAMBLE} {q}"

    # -- pictures ---------------------------------------------------------------------------------------------

    def steps(self, scene: dict[str, Any], states: list[dict[str, Any]]) -> list[tuple[Image.Image, str]]:
        res = render_of(scene)
        names = labels(scene, layout(scene))
        out = []
        for s in states:
            if s["op"] == "part":
                out.append((_part_picture(scene, res, names, s), _part_text(names, s)))
            elif s["op"] == "match":
                out.append((_match_picture(scene, res, names, s), _match_text(names, s)))
            else:
                out.append((draw_state(scene, res, names, s), state_text(scene, names, s)))
        return out

    def corrupt(self, scene: dict[str, Any], solution: Solution, rng: random.Random) -> Corruption | None:
        states = solution.states
        lay = layout(scene)
        names = labels(scene, lay)
        flipped = self.flipped_relation(scene, lay, states, names, rng)
        if flipped is not None:
            return flipped
        last = states[-1]
        if last["op"] == "part" and rng.random() < 0.5:
            k, part = last["parts"][-1]
            other = rng.choice([p for p in PARTS if p != part])
            wrong_states = [*states[:-1], {"op": "part", "parts": [*last["parts"][:-1], [k, other]]}]
            # The question read as asking for the other part (the last part a query or a comparison names).
            key = "part" if scene["program"]["family"] == "query_part_colour" else "part_b"
            return Corruption(
                steps=lambda: self.steps(scene, wrong_states),
                description=f"the {other} of {names[k]} isolated instead of its {part}",
                answer=self.checked_answer(scene, wrong_states),
                scene={**scene, "program": {**scene["program"], key: other}},
            )
        # The fallbacks state their wrong states as a solver would: no step keeps a vehicle its own dashed line
        # puts on the other side (issue 45).
        return (
            self._wrong_mark(scene, states, names, rng)
            or self.flipped_relation(scene, lay, states, names, rng, always=True)
            or self.misread_reference(scene, lay, states, names, rng)
        )

    def _wrong_mark(
        self, scene: dict[str, Any], states: list[dict[str, Any]], names: list[str], rng: random.Random
    ) -> Corruption | None:
        """The last filter or match state with one boxed vehicle swapped for one the step had in view but that
        does not belong (a description misread)."""
        idx = max(i for i, s in enumerate(states) if s["op"] in ("filter", "match"))
        s = states[idx]
        # Vehicles the trajectory already uses elsewhere (the other reference) would blur what went wrong.
        used = {int(k) for st in states if st["op"] == "part" for k, _ in st["parts"]}
        used |= {k for st in states[:idx] if st["op"] == "filter" for k in st["kept"]}
        outside = [k for k in s["among"] if k not in s["kept"] and k not in used]
        kept = list(s["kept"])
        if not outside:
            # Every vehicle in view qualifies: the end of a set can still miss one (a reference cannot: the steps
            # after it need its vehicle).
            if not kept or not (s["op"] == "match" or scene["program"]["family"] in ("count", "exist")):
                return None
            old = rng.choice(kept)
            kept.remove(old)
            return self._carried(
                scene,
                [*states[:idx], {**s, "kept": kept}, *states[idx + 1 :]],
                f"a wrong vehicle marked: {names[old]} left out though it qualifies",
            )
        new = rng.choice(outside)
        if kept:
            old = rng.choice(kept)
            kept[kept.index(old)] = new
            what = f"{names[new]} boxed instead of {names[old]}"
        else:
            kept = [new]
            what = f"{names[new]} boxed though no vehicle qualifies"
        wrong = {**s, "kept": sorted(kept)}
        before = list(states[:idx])
        rest = states[idx + 1 :]
        if s["op"] == "filter" and rest and rest[0]["op"] == "part" and len(kept) == 1 and len(s["kept"]) == 1:
            # The part step follows the wrongly chosen vehicle.
            rest = [
                {"op": "part", "parts": [[new if k == s["kept"][0] else k, p] for k, p in rest[0]["parts"]]},
                *rest[1:],
            ]
        wrong_states = [*before, wrong, *rest]
        # A wrong mark is no reading of the scene (no scene is set): its answer is read from the marked states.
        return Corruption(
            steps=lambda: self.steps(scene, wrong_states),
            description=f"a wrong vehicle marked: {what}",
            answer=self.checked_answer(scene, wrong_states),
        )


def _part_mask(scene: dict[str, Any], res: Render3D, keep: list[list[Any]]) -> np.ndarray:
    """Pixels of vehicles that are not among the kept (vehicle, part) pairs."""
    owners = part_list(scene["objects"])
    wanted = {(int(k), p) for k, p in keep}
    keep_idx = [i for i, key in enumerate(owners) if key in wanted]
    return (res.parts >= 0) & ~np.isin(res.parts, keep_idx)


def _part_picture(scene: dict[str, Any], res: Render3D, names: list[str], state: dict[str, Any]) -> Image.Image:
    """Only the named parts keep their colours; every other part of every vehicle is greyed out."""
    c = Canvas.from_image(greyed_where(res, _part_mask(scene, res, state["parts"])))
    for k, _ in state["parts"]:
        box_object(c, res, int(k), names[int(k)], dash=True)
    return c.image()


def _part_text(names: list[str], state: dict[str, Any]) -> str:
    items = [f"{PART_PHRASE[p]} of {names[int(k)]}" for k, p in state["parts"]]
    shown = items[0] if len(items) == 1 else " and ".join(items)
    return f"Isolated: {shown}, in colour; every other part of every vehicle is greyed out."


def _match_picture(scene: dict[str, Any], res: Render3D, names: list[str], state: dict[str, Any]) -> Image.Image:
    """The anchor's reference part and the matching part of every kept vehicle in colour, arrows from the anchor."""
    keep = [[state["anchor"], state["ref_part"]], *[[k, state["part"]] for k in state["kept"]]]
    c = Canvas.from_image(greyed_where(res, _part_mask(scene, res, keep)))
    a = state["anchor"]
    box_object(c, res, a, names[a], dash=True)
    for k in state["kept"]:
        ca, ck = res.objects[a].centre, res.objects[k].centre
        c.arrow(ca, (ca[0] + 0.85 * (ck[0] - ca[0]), ca[1] + 0.85 * (ck[1] - ca[1])), color="black", width=2.5)
        box_object(c, res, k, names[k])
    return c.image()


def _match_text(names: list[str], state: dict[str, Any]) -> str:
    a = names[state["anchor"]]
    what = f"Vehicles other than {a} whose {state['part']} match the colour of {PART_PHRASE[state['ref_part']]} of {a}"
    if state["part"] != "wheels":
        what = what.replace(f"whose {state['part']} match", f"whose {state['part']} matches")
    if not state["kept"]:
        verb = "stay" if state["ref_part"] == "wheels" else "stays"
        return f"{what}: none, so nothing is boxed; only {PART_PHRASE[state['ref_part']]} of {a} {verb} in colour."
    return (
        f"{what}: boxed {letters_text(state['kept'], names)}, each with an arrow from {a}; only those parts "
        "stay in colour."
    )
