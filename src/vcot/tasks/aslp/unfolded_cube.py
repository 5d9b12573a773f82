"""unfolded_cube: match views of a cube with oriented marks to its net, or the reverse.

Every face carries a glyph without rotational symmetry (arrow, L, T, F, flag, Y), so the orientation of
each face matters. Candidates are verified by folding: each net is folded into a cube state in code and
compared against every shown view under all 24 cube rotations (see `common/cube_nets.py`).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

from PIL import Image

from vcot.draw.canvas import Canvas
from vcot.schema import option_letters
from vcot.tasks import register
from vcot.tasks.base import Choices, Corruption, GenContext, Limit, Reject, Rendering, Solution, Task
from vcot.tasks.common import cube_nets as cn
from vcot.tasks.common.options import cue_rank_holds, only_match, place_correct_option

LETTERS = option_letters(4)
T = TypeVar("T")

# Glyph outlines in face coordinates (s right, t up, both in [-1, 1]); none is invariant under a quarter,
# half or three-quarter turn, so a face's orientation is always visible.
GLYPHS: dict[str, list[tuple[float, float]]] = {
    "arrow": [(0, 0.9), (0.62, 0.2), (0.22, 0.2), (0.22, -0.85), (-0.22, -0.85), (-0.22, 0.2), (-0.62, 0.2)],
    "L": [(-0.5, 0.85), (-0.12, 0.85), (-0.12, -0.47), (0.6, -0.47), (0.6, -0.85), (-0.5, -0.85)],
    "T": [
        (-0.72, 0.85),
        (0.72, 0.85),
        (0.72, 0.48),
        (0.19, 0.48),
        (0.19, -0.85),
        (-0.19, -0.85),
        (-0.19, 0.48),
        (-0.72, 0.48),
    ],
    "F": [
        (-0.5, 0.85),
        (0.62, 0.85),
        (0.62, 0.5),
        (-0.13, 0.5),
        (-0.13, 0.16),
        (0.42, 0.16),
        (0.42, -0.18),
        (-0.13, -0.18),
        (-0.13, -0.85),
        (-0.5, -0.85),
    ],
    "flag": [(-0.55, -0.85), (-0.55, 0.85), (0.65, 0.42), (-0.2, 0.02), (-0.2, -0.85)],
    "Y": [
        (-0.19, -0.85),
        (0.19, -0.85),
        (0.19, 0.02),
        (0.74, 0.62),
        (0.47, 0.88),
        (0.0, 0.38),
        (-0.47, 0.88),
        (-0.74, 0.62),
        (-0.19, 0.02),
    ],
}
GLYPH_WORDS = {"arrow": "arrow", "L": "letter L", "T": "letter T", "F": "letter F", "flag": "flag", "Y": "letter Y"}
COLORS = ["red", "blue", "green", "orange", "purple", "brown"]
MONO = "black"
# Tints and edge colours of the correspondence picture, one per visible face / shared edge.
TINTS = {"top": "lightred", "left": "lightblue", "right": "lightgreen"}
EDGE_COLORS = {("top", "left"): "orange", ("top", "right"): "purple", ("left", "right"): "cyan"}
SHADES = {"top": (252, 252, 252), "left": (226, 226, 226), "right": (204, 204, 204)}
COS30 = 0.8660254
# Picture sizes. A glyph spans 0.78 of half a net cell times its own extent (about 1.7 of 2 units): two thirds
# of the cell's side; on a view face (0.72, seen isometrically) about half the face's edge, which is 2 x the
# view size. With these sizes every glyph spans at least 50 px, enough to read its orientation without zooming
# (docs/tasks/unfolded_cube.md, "Pictures").
NET_CELL = {"net form": 80, "view form": 84, "step": 76}  # px per net cell
VIEW_SIZE = {"net form": 72, "view form": 58, "step": 72}  # half a view face's edge, px
GLYPH_IN_CELL = 0.78
GLYPH_ON_FACE = 0.72
IDENTITY: cn.Matrix = ((1, 0, 0), (0, 1, 0), (0, 0, 1))
FACE_LABELS = {"top": "top", "left": "front-left", "right": "front-right"}


@dataclass(frozen=True)
class UnfoldedCubeConfig:
    # "net": views given, choose the net; "view": net given, choose the view; "mixed": either, at random
    form: str = "mixed"
    n_views: int = 1  # views shown in the "net" form (1 or 2)
    colored: bool = True  # glyphs in six distinct colours; False draws every glyph black
    n_glyph_types: int = 6  # glyph kinds used; below 6 some faces repeat a mark
    same_shape: bool = True  # all candidate nets share one net shape (each still cut from a random pose)


def random_cube(rng: random.Random, cfg: UnfoldedCubeConfig) -> cn.Cube:
    normals = [(1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1)]
    kinds = list(GLYPHS)
    if cfg.n_glyph_types >= 6:
        glyphs = rng.sample(kinds, 6)
    else:
        pool = rng.sample(kinds, cfg.n_glyph_types)
        glyphs = pool + [rng.choice(pool) for _ in range(6 - len(pool))]
        rng.shuffle(glyphs)
    colors = rng.sample(COLORS, 6) if cfg.colored else [MONO] * 6
    cube = {}
    for n, g, c in zip(normals, glyphs, colors, strict=True):
        ups = [v for v in normals if v != n and v != cn.neg(n)]
        cube[n] = cn.Face(g, c, rng.choice(ups))
    return cube


def random_placement(rng: random.Random, shape: tuple[cn.Cell, ...]) -> tuple[cn.Cell, ...]:
    """A random rotation/reflection of a net shape, laid out wider than tall so panels stay compact."""
    options = sorted({s for s in cn.symmetries(shape) if max(c for c, _ in s) >= max(r for _, r in s)})
    return rng.choice(options)


def random_net(rng: random.Random, cube: cn.Cube, shape: tuple[cn.Cell, ...] | None = None) -> list[dict]:
    if shape is None:
        shape = random_placement(rng, rng.choice(cn.cube_nets()))
    return cn.unfold(cube, shape, rng.choice(cn.ROTATIONS))


def net_consistent(net: list[dict], views: list[dict[str, cn.Face]]) -> bool:
    """A net is consistent when its folded cube can be turned to show every view."""
    cube = cn.net_to_cube(net)
    return all(cn.view_matches(cube, v) is not None for v in views)


def modified_cube(rng: random.Random, cube: cn.Cube, kind: str) -> cn.Cube:
    normals = sorted(cube)
    if kind == "swap":
        a, b = rng.sample(normals, 2)
        return cn.swap_marks(cube, a, b)
    if kind == "turn":
        return cn.turn_face(cube, rng.choice(normals), rng.randint(1, 3))
    if kind == "mirror":
        return cn.mirror_cube(cube)
    raise ValueError(kind)


def modified_view(rng: random.Random, cube: cn.Cube, kind: str) -> dict[str, cn.Face]:
    """A view of the cube in a random pose with one plausible error."""
    if kind == "mirror":
        return cn.view_of(cn.rotate_cube(cn.mirror_cube(cube), rng.choice(cn.ROTATIONS)))
    turned = cn.rotate_cube(cube, rng.choice(cn.ROTATIONS))
    view = cn.view_of(turned)
    names = list(view)
    if kind == "turn":
        k = rng.choice(names)
        f = turned[cn.VIEW_NORMALS[k]]
        up = f.up
        for _ in range(rng.randint(1, 3)):
            up = cn.cross(cn.VIEW_NORMALS[k], up)
        view[k] = cn.Face(f.glyph, f.color, up)
    elif kind == "swap":
        a, b = rng.sample(names, 2)
        view[a], view[b] = (
            cn.Face(view[b].glyph, view[b].color, view[a].up),
            cn.Face(view[a].glyph, view[a].color, view[b].up),
        )
    elif kind == "opposite":
        # Show the face opposite one visible face next to it: a classic impossible adjacency.
        a, b = rng.sample(names, 2)
        hidden = turned[cn.neg(cn.VIEW_NORMALS[b])]
        n = cn.VIEW_NORMALS[a]
        ups = [v for v in cn.VIEW_NORMALS.values() if v != n] + [cn.neg(v) for v in cn.VIEW_NORMALS.values() if v != n]
        view[a] = cn.Face(hidden.glyph, hidden.color, rng.choice(ups))
    else:
        raise ValueError(kind)
    return view


def draw_distractors(
    rng: random.Random,
    hub: T,
    kinds: list[str],
    modified: Callable[[T, str], T],
    possible: Callable[[T], bool],
    equivalent: Callable[[T, T], bool],
    failure: str,
    count: int = 3,
    chosen: list[T] | None = None,
) -> list[tuple[T, str]]:
    """`count` wrong candidates, each one change away from `hub`, with the kind of change that made it:
    `modified(hub, kind)` changes the hub, and a change is kept unless it is still `possible` or `equivalent`
    to a candidate already chosen (`chosen`, by default the hub). The first tries use different kinds (a
    random order of `kinds`), so the distractors differ in how they are wrong; a retry takes any kind. Reject
    with `failure` after 60 tries for one."""
    order = rng.sample(kinds, count)
    chosen = list(chosen) if chosen is not None else [hub]
    distractors: list[tuple[T, str]] = []
    for first_kind in order:
        for attempt in range(60):
            kind = first_kind if attempt == 0 else rng.choice(kinds)
            cand = modified(hub, kind)
            if possible(cand) or any(equivalent(cand, c) for c in chosen):
                continue
            chosen.append(cand)
            distractors.append((cand, kind))
            break
        else:
            raise Reject(failure)
    return distractors


def likeness(cands: list[cn.Cube]) -> list[int]:
    """Each candidate's summed agreement with the others: faces (mark and orientation) shared under the best
    rotation (`cube_nets.best_alignment`); a view counts as its three faces."""
    return [sum(cn.best_alignment(a, b)[0] for j, b in enumerate(cands) if j != i) for i, a in enumerate(cands)]


def check_likeness_rank(cands: list[cn.Cube], rank: int) -> None:
    """Reject unless the answer (`cands[0]`) takes likeness rank `rank` among the candidates."""
    if not cue_rank_holds(likeness(cands), rank):
        raise Reject("the answer's likeness to the other options is not at the drawn rank")


def option_kind(reference: cn.Cube, option: cn.Cube) -> str:
    """The mistake that turns `reference` (the cube the answer shows) into a wrong option (a folded net, or a
    view's three faces), read off the best alignment: "mirror" (the mirror image shows it),
    "turn" (one face's mark turned), "swap" (two faces' marks exchanged), "opposite" (a view shows the mark
    of a face opposite another shown face), else "<n> faces differ". `option` may hold three faces only."""
    if cn.best_alignment(option, cn.mirror_cube(reference))[0] == len(option):
        return "mirror"
    _, m = cn.best_alignment(reference, option)
    turned = cn.rotate_cube(reference, m)
    diff = [n for n, f in option.items() if turned[n] != f]
    if len(diff) == 1 and turned[diff[0]].mark == option[diff[0]].mark:
        return "turn"
    if len(diff) == 2 and (turned[diff[0]].mark, turned[diff[1]].mark) == (option[diff[1]].mark, option[diff[0]].mark):
        return "swap"
    if len(diff) == 1:
        opposite = {turned[cn.neg(n)].mark for n in option if n != diff[0]}
        if option[diff[0]].mark in opposite:
            return "opposite"
    return "1 face differs" if len(diff) == 1 else f"{len(diff)} faces differ"


@register
class UnfoldedCube(Task):
    name = "unfolded_cube"
    config_cls = UnfoldedCubeConfig
    presets = {
        "easy": UnfoldedCubeConfig(n_views=1, colored=True, n_glyph_types=6, same_shape=True),
        "medium": UnfoldedCubeConfig(n_views=2, colored=True, n_glyph_types=6, same_shape=False),
        "hard": UnfoldedCubeConfig(n_views=2, colored=False, n_glyph_types=4, same_shape=False),
    }
    version = "4"
    description = "Views of a cube with oriented marks: which net folds into it, or which view a net gives."
    colour_pools = (COLORS, TINTS, EDGE_COLORS)
    limits: ClassVar[dict[str, Limit | Choices]] = {
        "form": Choices(
            ("net", "view", "mixed"),
            "net: views given, choose the net; view: net given, choose the view; mixed: either, at random",
        ),
        "n_views": Limit(1, 2, "views shown in the net form: the picture has room for two side by side"),
        "n_glyph_types": Limit(2, 6, "glyph kinds used: six exist; with fewer, faces repeat a mark"),
    }

    # -- sampling -----------------------------------------------------------------------------------

    def sample_scene(self, ctx: GenContext) -> dict[str, Any]:
        cfg: UnfoldedCubeConfig = self.config
        rng = ctx.rng
        # Drawn per index, not per attempt: the forms are rejected at different rates, and a form redrawn
        # with every attempt would end up far from half of a mixed suite.
        form = ("net", "view")[ctx.balanced(2, "form")] if cfg.form == "mixed" else cfg.form
        slot = ctx.balanced(4)
        # The answer's rank by likeness to the other options, drawn balanced: "the option most (or least) like
        # the others" then names the answer exactly as often as a guess (vcot audit, analysis/shortcuts/).
        rank = ctx.balanced(4, "likeness rank")
        cube = random_cube(rng, cfg)
        if form == "net":
            return self._sample_net_form(rng, cfg, cube, slot, rank)
        return self._sample_view_form(rng, cube, slot, rank)

    def _sample_net_form(
        self, rng: random.Random, cfg: UnfoldedCubeConfig, cube: cn.Cube, slot: int, rank: int
    ) -> dict[str, Any]:
        poses = [rng.choice(cn.ROTATIONS)]
        views = [cn.view_of(cn.rotate_cube(cube, poses[0]))]
        while len(views) < cfg.n_views:
            m = rng.choice(cn.ROTATIONS)
            seen = {n for p in poses for n in _visible_normals(p)}
            if len(set(_visible_normals(m)) - seen) < 2:
                continue
            poses.append(m)
            views.append(cn.view_of(cn.rotate_cube(cube, m)))
        shape = random_placement(rng, rng.choice(cn.cube_nets())) if cfg.same_shape else None

        def shows_every_view(c: cn.Cube) -> bool:
            return all(cn.view_matches(c, v) is not None for v in views)

        def change(base: cn.Cube, kind: str) -> cn.Cube:
            return modified_cube(rng, base, kind)

        kinds, failure = ["swap", "turn", "mirror"], "no inconsistent distractor net found"
        if rank == 0:
            distractors = [
                c for c, _ in draw_distractors(rng, cube, kinds, change, shows_every_view, cn.cubes_equivalent, failure)
            ]
        else:
            # Distractors made from the answer surround it, so that it is the option most like the others.
            # Here a distractor is the centre instead: the answer and two more options are one change from it.
            ((hub, _),) = draw_distractors(
                rng, cube, kinds, change, shows_every_view, cn.cubes_equivalent, failure, count=1
            )
            distractors = [hub] + [
                c
                for c, _ in draw_distractors(
                    rng, hub, kinds, change, shows_every_view, cn.cubes_equivalent, failure, count=2, chosen=[cube, hub]
                )
            ]
            rng.shuffle(distractors)  # the centre's place must not tell where the answer is
        check_likeness_rank([cube] + distractors, rank)
        placed = place_correct_option(cube, distractors, slot, shows_every_view, "fold into a cube showing every view")
        # Each net is cut in option order: the draws of random_net follow the letters.
        nets = [random_net(rng, c, shape) for c in placed]
        return {
            "form": "net",
            "views": [cn.view_to_json(v) for v in views],
            "nets": nets,
            "glyph_kinds": sorted({f.glyph for f in cube.values()}),
            "colored": cfg.colored,
        }

    def _sample_view_form(self, rng: random.Random, cube: cn.Cube, slot: int, rank: int) -> dict[str, Any]:
        net = random_net(rng, cube)
        correct = cn.view_of(cn.rotate_cube(cube, rng.choice(cn.ROTATIONS)))

        def shown_by_cube(v: dict[str, cn.Face]) -> bool:
            return cn.view_matches(cube, v) is not None

        distractors = [
            v
            for v, _ in draw_distractors(
                rng,
                correct,
                ["turn", "swap", "opposite", "mirror"],
                lambda _, kind: modified_view(rng, cube, kind),
                shown_by_cube,
                cn.views_equivalent,
                "no impossible distractor view found",
            )
        ]
        check_likeness_rank([cn.view_faces(v) for v in [correct] + distractors], rank)
        placed = place_correct_option(correct, distractors, slot, shown_by_cube, "show the folded cube")
        colored = len({f.color for f in cube.values()}) > 1
        return {
            "form": "view",
            "net": net,
            "candidate_views": [cn.view_to_json(v) for v in placed],
            "glyph_kinds": sorted({f.glyph for f in cube.values()}),
            "colored": colored,
        }

    # -- solving ------------------------------------------------------------------------------------

    def solve(self, scene: dict[str, Any]) -> Solution:
        if scene["form"] == "net":
            views = [cn.view_from_json(v) for v in scene["views"]]
            flags = [net_consistent(net, views) for net in scene["nets"]]
            k = only_match(flags, bool, "are consistent")
            cube = cn.net_to_cube(scene["nets"][k])
            matches = [_correspondence(scene["nets"][k], cube, v) for v in views]
            options = [cn.net_to_cube(net) for net in scene["nets"]]
        else:
            cube = cn.net_to_cube(scene["net"])
            views = [cn.view_from_json(v) for v in scene["candidate_views"]]
            flags = [cn.view_matches(cube, v) is not None for v in views]
            k = only_match(flags, bool, "are consistent")
            matches = [_correspondence(scene["net"], cube, views[k])]
            options = [cn.view_faces(v) for v in views]
        kinds = ["correct" if j == k else option_kind(cube, c) for j, c in enumerate(options)]
        return Solution(
            answer=LETTERS[k],
            states=[],
            details={"consistent": flags, "correspondence": matches, "candidate_kinds": kinds},
        )

    def question(self, scene: dict[str, Any]) -> str:
        repeat = " Some faces may carry the same mark." if len(scene["glyph_kinds"]) < 6 else ""
        marks = (
            "Each face of the cube carries a mark whose orientation matters; marks are printed on the "
            "outside of the cube and each view shows three faces (top, front-left and front-right)." + repeat
        )
        if scene["form"] == "net":
            n = len(scene["views"])
            seen = (
                "The top of the picture shows a cube"
                if n == 1
                else "The top of the picture shows the same cube in two different positions"
            )
            return (
                f"{seen}. {marks} Below are four nets A, B, C and D, printed side facing you. Which net "
                "folds (printed side outward) into this cube? Exactly one does. Answer with the letter "
                "of the net (A, B, C or D)."
            )
        return (
            "The top of the picture shows the net of a cube, printed side facing you; it is folded with "
            f"the printed side outward. {marks} Which of the views A, B, C and D can show the folded cube? "
            "Exactly one can. Answer with the letter of the view (A, B, C or D)."
        )

    def options(self, scene: dict[str, Any]) -> list[str]:
        return list(LETTERS)

    # -- rendering ----------------------------------------------------------------------------------

    def render(self, scene: dict[str, Any], solution: Solution) -> Rendering:
        return Rendering(
            image=self.render_input(scene, solution), steps=self._steps(scene, _answer_pairs(scene, solution))
        )

    def corrupt(self, scene: dict[str, Any], solution: Solution, rng: random.Random) -> Corruption | None:
        """A wrong option taken for the answer, drawn honestly: in the net form a wrong net, folded and turned
        to look as much as it can like each view (the picture shows that pose, not the view); in the view
        form a wrong view, beside the net misread so that it folds into that view (the picture shows the
        misread net). Each text says what its picture shows."""
        k = LETTERS.index(solution.answer)
        right = _texts(scene, _answer_pairs(scene, solution))
        wrong = [j for j in range(len(LETTERS)) if j != k]
        rng.shuffle(wrong)
        for j in wrong:
            if scene["form"] == "net":
                net = scene["nets"][j]
                cube = cn.net_to_cube(net)
                pairs = [(net, _closest_view(cube, cn.view_from_json(v))) for v in scene["views"]]
                note = (
                    f"net {LETTERS[j]} ({solution.details['candidate_kinds'][j]}) is taken for the answer: "
                    "folded, it is turned to look as much as it can like each view"
                )
            else:
                view = cn.view_from_json(scene["candidate_views"][j])
                net, changed = _misread_net(scene["net"], view)
                pairs = [(net, view)]
                note = (
                    f"the net is misread ({changed} of its cells drawn otherwise) so that it folds into view "
                    f"{LETTERS[j]} ({solution.details['candidate_kinds'][j]})"
                )
            if _texts(scene, pairs) != right:
                # Bound now: `pairs` is rebound on the next pass of the loop (none follows a return, but the
                # callable must not depend on that).
                return Corruption(
                    steps=lambda pairs=pairs: self._steps(scene, pairs),
                    description=note,
                    answer=LETTERS[j],
                    scene=_misread_scene(scene, pairs, j),
                )
        return None

    def render_input(self, scene: dict[str, Any], solution: Solution) -> Image.Image:
        if scene["form"] == "net":
            views = [cn.view_from_json(v) for v in scene["views"]]
            c = Canvas(960, 950)
            centers = [480] if len(views) == 1 else [240, 720]
            for i, (cx, v) in enumerate(zip(centers, views, strict=True)):
                if len(views) > 1:
                    c.text((cx, 6), f"View {i + 1}", size=18, anchor="mt", bold=True)
                draw_view(c, (cx, 175), VIEW_SIZE["net form"], v)
            c.line([(20, 340), (940, 340)], "gray", 1)
            for pos, net in enumerate(scene["nets"]):
                ox, oy = 480 * (pos % 2), 345 + 300 * (pos // 2)
                c.text((ox + 16, oy + 8), LETTERS[pos], size=22, bold=True)
                draw_net_centered(c, (ox + 240, oy + 155), NET_CELL["net form"], net)
            return c.image()
        c = Canvas(960, 600)
        draw_net_centered(c, (480, 145), NET_CELL["view form"], scene["net"])
        c.line([(20, 290), (940, 290)], "gray", 1)
        for pos, v in enumerate(scene["candidate_views"]):
            cx = 120 + 240 * pos
            c.text((cx - 112, 300), LETTERS[pos], size=22, bold=True)
            draw_view(c, (cx, 455), VIEW_SIZE["view form"], cn.view_from_json(v))
        return c.image()

    def _steps(self, scene: dict[str, Any], pairs: list[Pair]) -> list[tuple[Image.Image, str]]:
        """One picture per (net, view): the view with its faces tinted, the net with the cells that become those
        faces tinted to match; the view must be one the net folds into."""
        steps = []
        for i, (net, view) in enumerate(pairs):
            corr = _correspondence(net, cn.net_to_cube(net), view)
            steps.append((_correspondence_image(net, view, corr), _correspondence_text(scene, net, i, view, corr)))
        return steps


Pair = tuple[list[dict], dict[str, cn.Face]]  # a net and a view it folds into: what one step picture shows


def _answer_pairs(scene: dict[str, Any], solution: Solution) -> list[Pair]:
    """The right trajectory's (net, view) per step: the answer net with each view, or the net with the answer
    view."""
    k = LETTERS.index(solution.answer)
    if scene["form"] == "net":
        return [(scene["nets"][k], cn.view_from_json(v)) for v in scene["views"]]
    return [(scene["net"], cn.view_from_json(scene["candidate_views"][k]))]


def _texts(scene: dict[str, Any], pairs: list[Pair]) -> list[str]:
    return [
        _correspondence_text(scene, net, i, view, _correspondence(net, cn.net_to_cube(net), view))
        for i, (net, view) in enumerate(pairs)
    ]


def _closest_view(cube: cn.Cube, view: dict[str, cn.Face]) -> dict[str, cn.Face]:
    """The view of `cube` in the pose that shares the most faces with `view` (the first such pose)."""
    _, m = cn.best_alignment(cube, cn.view_faces(view))
    return cn.view_of(cn.rotate_cube(cube, m))


def _misread_net(net: list[dict], view: dict[str, cn.Face]) -> tuple[list[dict], int]:
    """The net with the fewest cells redrawn so that it folds into `view`, and how many cells changed. The
    cube is turned to share the most faces with the view; each visible face that differs takes the view's
    mark, and when marks are unique the hidden face that carried that mark takes the displaced one, so no
    mark appears twice."""
    cube = cn.net_to_cube(net)
    _, m = cn.best_alignment(cube, cn.view_faces(view))
    turned = cn.rotate_cube(cube, m)
    unique = len({f.mark for f in cube.values()}) == len(cube)
    visible = set(cn.VIEW_NORMALS.values())
    for name, n in cn.VIEW_NORMALS.items():
        want = view[name]
        if turned[n] == want:
            continue
        if unique:
            holder = next((w for w in turned if w not in visible and turned[w].mark == want.mark), None)
            if holder is not None:
                turned[holder] = cn.Face(turned[n].glyph, turned[n].color, turned[holder].up)
        turned[n] = want
    misread = cn.unfold(cn.rotate_cube(turned, cn.transpose(m)), tuple((c["col"], c["row"]) for c in net), IDENTITY)
    changed = sum(1 for a, b in zip(net, misread, strict=True) if a != b)
    return misread, changed


def _misread_scene(scene: dict[str, Any], pairs: list[Pair], j: int) -> dict[str, Any] | None:
    """The scene as a corrupted trajectory that takes option `j` reads it (see `UnfoldedCube.corrupt`): each
    view as the pose of net j's cube drawn beside it (net form), or the net as misread (view form). Given only
    when option j is then the one consistent option, so that the task's oracle re-derives the answer from it;
    otherwise None (the misread may also fit another option, e.g. one a single change away from option j)."""
    if scene["form"] == "net":
        views = [view for _, view in pairs]
        misread = {**scene, "views": [cn.view_to_json(v) for v in views]}
        flags = [net_consistent(net, views) for net in scene["nets"]]
    else:
        net = pairs[0][0]
        misread = {**scene, "net": net}
        cube = cn.net_to_cube(net)
        flags = [cn.view_matches(cube, cn.view_from_json(v)) is not None for v in scene["candidate_views"]]
    return misread if flags == [k == j for k in range(len(flags))] else None


def _visible_normals(m: cn.Matrix) -> list[cn.Vec]:
    """Cube normals (before turning by m) that end up visible in the view."""
    inv = tuple(tuple(m[j][i] for j in range(3)) for i in range(3))
    return [cn.apply(inv, n) for n in cn.VIEW_NORMALS.values()]  # type: ignore[arg-type]


def _correspondence(net: list[dict], cube: cn.Cube, view: dict[str, cn.Face]) -> dict[str, Any]:
    """Which net cell becomes each visible face, and which cell edges meet along the visible cube edges."""
    m = cn.view_matches(cube, view)
    if m is None:
        raise Reject("correspondence asked for an inconsistent view")
    frames = cn.fold_frames([(c["col"], c["row"]) for c in net])
    cells: dict[str, list[int]] = {}
    edges: dict[str, list[list]] = {}
    for name, normal in cn.VIEW_NORMALS.items():
        for cell, fr in frames.items():
            if cn.apply(m, fr.n) == normal:
                cells[name] = [cell[0], cell[1]]
    for a, b in EDGE_COLORS:
        pair = []
        for name, other in ((a, b), (b, a)):
            cell = tuple(cells[name])
            fr = frames[cell]  # type: ignore[index]
            d = next(d for d in cn.NEIGHBOURS if cn.apply(m, fr.edge_normal(d)) == cn.VIEW_NORMALS[other])
            pair.append([cells[name], list(d)])
        edges[f"{a}-{b}"] = pair
    return {"cells": cells, "edges": edges}


# -- drawing -----------------------------------------------------------------------------------------------


def _iso(center: tuple[float, float], s: float, p: tuple[float, float, float]) -> tuple[float, float]:
    x, y, z = p
    return (center[0] + (x - z) * COS30 * s, center[1] + (-y + (x + z) * 0.5) * s)


def _face_corners(n: cn.Vec) -> list[tuple[float, float, float]]:
    a = [i for i in range(3) if n[i] == 0]
    out = []
    for u, v in ((-1, -1), (1, -1), (1, 1), (-1, 1)):
        p = [float(x) for x in n]
        p[a[0]], p[a[1]] = u, v
        out.append(tuple(p))
    return out  # type: ignore[return-value]


def draw_view(
    c: Canvas,
    center: tuple[float, float],
    s: float,
    view: dict[str, cn.Face],
    tints: dict[str, str] | None = None,
    edges: bool = False,
) -> None:
    """Isometric drawing of the three visible faces with their glyphs."""
    for name, n in cn.VIEW_NORMALS.items():
        fill = tints[name] if tints else SHADES[name]
        c.polygon([_iso(center, s, p) for p in _face_corners(n)], fill=fill, outline="black", width=2)
        f = view[name]
        c.polygon(glyph_on_face(center, s, n, f), fill=f.color, outline=None)
    if edges:
        segs = {
            ("top", "left"): ((-1, 1, 1), (1, 1, 1)),
            ("top", "right"): ((1, 1, -1), (1, 1, 1)),
            ("left", "right"): ((1, -1, 1), (1, 1, 1)),
        }
        for key, (p, q) in segs.items():
            c.line([_iso(center, s, p), _iso(center, s, q)], EDGE_COLORS[key], 6)


def _net_box(net: list[dict]) -> tuple[int, int]:
    return (max(x["col"] for x in net) + 1, max(x["row"] for x in net) + 1)


def glyph_on_face(center: tuple[float, float], s: float, normal: cn.Vec, face: cn.Face) -> list[tuple[float, float]]:
    """The glyph's outline in pixels on the visible face with outward `normal` of a view drawn at `center`."""
    right = cn.cross(face.up, normal)
    pts = []
    for gs, gt in GLYPHS[face.glyph]:
        p = tuple(normal[i] + GLYPH_ON_FACE * (gs * right[i] + gt * face.up[i]) for i in range(3))
        pts.append(_iso(center, s, p))  # type: ignore[arg-type]
    return pts


def glyph_in_cell(center: tuple[float, float], half: float, glyph: str, rot: int) -> list[tuple[float, float]]:
    """The glyph's outline in pixels in a net cell of half-side `half`, after `rot` counter-clockwise turns."""
    pts = []
    for gs, gt in GLYPHS[glyph]:
        for _ in range(rot % 4):
            gs, gt = -gt, gs
        pts.append((center[0] + GLYPH_IN_CELL * half * gs, center[1] - GLYPH_IN_CELL * half * gt))
    return pts


def draw_glyph_in_cell(c: Canvas, center: tuple[float, float], half: float, glyph: str, color: str, rot: int) -> None:
    c.polygon(glyph_in_cell(center, half, glyph, rot), fill=color, outline=None)


def draw_net_centered(
    c: Canvas,
    center: tuple[float, float],
    cell: float,
    net: list[dict],
    tints: dict[tuple[int, int], str] | None = None,
    edges: list[tuple[tuple[int, int], tuple[int, int], str]] | None = None,
) -> tuple[float, float]:
    """Draw a net centred at `center`; returns the top-left corner of its bounding box."""
    w, h = _net_box(net)
    x0, y0 = center[0] - w * cell / 2, center[1] - h * cell / 2
    for x in net:
        key = (x["col"], x["row"])
        bx, by = x0 + x["col"] * cell, y0 + x["row"] * cell
        fill = (tints or {}).get(key, "white")
        c.rect((bx, by, bx + cell, by + cell), fill=fill, outline="black", width=2)
        draw_glyph_in_cell(c, (bx + cell / 2, by + cell / 2), cell / 2, x["glyph"], x["color"], x["rot"])
    for (col, row), d, color in edges or []:
        bx, by = x0 + col * cell, y0 + row * cell
        segs = {
            cn.RIGHT: [(bx + cell, by), (bx + cell, by + cell)],
            cn.LEFT: [(bx, by), (bx, by + cell)],
            cn.UP: [(bx, by), (bx + cell, by)],
            cn.DOWN: [(bx, by + cell), (bx + cell, by + cell)],
        }
        (px, py), (qx, qy) = segs[d]
        inset = cell * 0.12
        if px == qx:
            py, qy = py + inset, qy - inset
        else:
            px, qx = px + inset, qx - inset
        c.line([(px, py), (qx, qy)], color, 6)
    return x0, y0


def _correspondence_image(net: list[dict], view: dict[str, cn.Face], corr: dict[str, Any]) -> Image.Image:
    c = Canvas(960, 460)
    draw_view(c, (200, 235), VIEW_SIZE["step"], view, tints=TINTS, edges=True)
    for name, pos in (("top", (200, 66)), ("front-left", (90, 410)), ("front-right", (310, 410))):
        c.text(pos, name, size=18, anchor="mm", color="black", bold=True)
    tints = {tuple(cell): TINTS[name] for name, cell in corr["cells"].items()}
    edges = []
    for key, pair in corr["edges"].items():
        a, b = key.split("-")
        for cell, d in pair:
            edges.append((tuple(cell), tuple(d), EDGE_COLORS[(a, b)]))
    cell = NET_CELL["step"]
    x0, y0 = draw_net_centered(c, (680, 220), cell, net, tints, edges)  # type: ignore[arg-type]
    for name, (col, row) in corr["cells"].items():
        c.text((x0 + col * cell + 4, y0 + row * cell + 3), name[0].upper(), size=16, bold=True)
    c.text((680, 430), "net: T = top, L = front-left, R = front-right", size=16, anchor="mm")
    return c.image()


def _dir_words(name: str, up: cn.Vec) -> str:
    for other, n in cn.VIEW_NORMALS.items():
        if up == n:
            return f"the {FACE_LABELS[other]} face"
    hidden = {
        ("top", (-1, 0, 0)): "its back-left edge",
        ("top", (0, 0, -1)): "its back-right edge",
        ("left", (-1, 0, 0)): "its outer left edge",
        ("right", (0, 0, -1)): "its outer right edge",
    }
    if up == (0, -1, 0):
        return "its bottom edge"
    return hidden[(name, up)]


def _face_words(f: cn.Face, colored: bool) -> str:
    return f"{f.color} {GLYPH_WORDS[f.glyph]}" if colored else GLYPH_WORDS[f.glyph]


# Where a glyph's top points on the page after `rot` counter-clockwise quarter turns (draw_glyph_in_cell).
PAGE_DIRECTIONS = ("up", "left", "down", "right")


def _correspondence_text(
    scene: dict[str, Any], net: list[dict], i: int, view: dict[str, cn.Face], corr: dict[str, Any]
) -> str:
    """What the correspondence picture shows, cell by cell. The picture draws one net and one view without
    their option letters, so the text names neither: finding that net (or view) among the candidates is the
    conclusion, left to the reader. The head claims no more than the picture shows (the cube on the left is
    what the net on the right folds into), so a corrupted trajectory's text is as true of its picture."""
    colored = scene["colored"]
    if scene["form"] == "net":
        which = f"view {i + 1}" if len(scene["views"]) > 1 else "the shown cube"
        head = (
            f"Left: a cube turned to compare with {which}, its faces tinted. Right: a net that folds into that "
            "cube, its cells tinted to match:"
        )
    else:
        head = (
            "Left: a view of a cube, its faces tinted. Right: a net that folds into that cube, its cells tinted "
            "to match:"
        )
    cells = {(x["col"], x["row"]): x for x in net}
    parts = []
    for name in ("top", "left", "right"):
        col, row = corr["cells"][name]
        f = view[name]
        rot = cells[(col, row)]["rot"]
        parts.append(
            f"the net cell in column {col + 1}, row {row + 1} ({_face_words(f, colored)}, its top pointing "
            f"{PAGE_DIRECTIONS[rot % 4]} in the net) becomes the {FACE_LABELS[name]} face, the top of its "
            f"glyph pointing toward {_dir_words(name, f.up)}"
        )
    edges = "; ".join(
        f"the {EDGE_COLORS[(a, b)]} edges meet where the {FACE_LABELS[a]} and {FACE_LABELS[b]} faces join"
        for (a, b) in EDGE_COLORS
    )
    return f"{head} " + "; ".join(parts) + f". Marked edges: {edges}."
