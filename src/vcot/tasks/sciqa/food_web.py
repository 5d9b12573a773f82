"""food_web (Science QA): how many species die out when one species disappears from a food web.

The web is a directed graph drawn in rows: plants at the bottom, animals above, an arrow from each species
to every animal that eats it. The stated rule: plants never die out (except the removed one); an animal dies
out once every species it eats has died out; nothing switches food. The solver runs the die-out in rounds
(each round removes every animal whose food is all gone), which are the steps' states. The answer (the
number of species that die out, the removed one not counted) is balanced over the configured range.
"""

from __future__ import annotations

import collections
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from PIL import Image

from vcot.draw.canvas import Canvas
from vcot.schema import AnswerType, Instance
from vcot.tasks import register
from vcot.tasks.answer_space import AnswerSpace, integers
from vcot.tasks.base import Corruption, GenContext, Limit, Reject, Rendering, Solution, Task

# Names by row, so that no arrow contradicts everyday knowledge too loudly (plants eat nothing, a top
# predator is never eaten by a beetle); the drawn arrows, not the names, define the web.
NAMES = (
    ("grass", "clover", "algae", "moss", "fern", "oak tree", "kelp", "reeds"),
    ("rabbit", "mouse", "snail", "beetle", "deer", "cricket", "vole", "caterpillar"),
    ("frog", "sparrow", "shrew", "lizard", "toad", "spider", "weasel", "crow"),
    ("fox", "owl", "hawk", "snake", "heron", "lynx", "eagle", "wolf"),
)
W, H = 768, 600
BOX_W, BOX_H = 124, 42
MARGIN_Y = 60
GONE, SAFE = "red", "blue"  # the cross on species that died out; the ring on animals that kept food
MAX_PER_ROW = 5
CUE_BLOCK = 8  # the sole-food count agrees with the answer in 1 of CUE_BLOCK instances


@dataclass(frozen=True)
class FoodWebConfig:
    levels: int = 3  # rows: plants, then animals
    min_species: int = 9
    max_species: int = 10
    max_prey: int = 2  # species an animal eats, 1..max
    max_skip: int = 1  # an animal eats from up to this many rows below it
    answer_min: int = 1
    answer_max: int = 4


def sole_food_eaters(scene: dict[str, Any]) -> int:
    """Animals that eat the removed species and nothing else."""
    x = scene["removed"]
    eaters = {b for a, b in scene["eats"] if a == x}
    return sum(1 for e in eaters if all(a == x for a, b in scene["eats"] if b == e))


def above(scene: dict[str, Any]) -> set[str]:
    """Every species reachable along the arrows from the removed one."""
    seen: set[str] = set()
    todo = [scene["removed"]]
    while todo:
        cur = todo.pop()
        for a, b in scene["eats"]:
            if a == cur and b not in seen:
                seen.add(b)
                todo.append(b)
    return seen


def die_out_rounds(scene: dict[str, Any]) -> list[list[str]]:
    """The animals dying out in each round after the removal (sorted names per round)."""
    prey: dict[str, list[str]] = {s["name"]: [] for s in scene["species"]}
    for a, b in scene["eats"]:
        prey[b].append(a)
    dead = {scene["removed"]}
    rounds: list[list[str]] = []
    while True:
        new = sorted(n for n, food in prey.items() if n not in dead and food and all(f in dead for f in food))
        if not new:
            return rounds
        rounds.append(new)
        dead.update(new)


@register
class FoodWeb(Task):
    name = "food_web"
    domain = "Science QA"
    answer_type = AnswerType.INTEGER
    config_cls = FoodWebConfig
    presets = {
        "easy": FoodWebConfig(levels=3, min_species=7, max_species=8, answer_max=3),
        "medium": FoodWebConfig(),
        "hard": FoodWebConfig(levels=4, min_species=11, max_species=13, max_prey=3, max_skip=2, answer_max=6),
    }
    version = "1"
    final_state_shows = "the red crosses over the species that died out"
    description = (
        "A food web drawn as arrows from food to eater; how many species die out when one "
        "disappears (an animal dies out when all its food has)."
    )
    colour_pools = ((GONE, SAFE),)
    limits = {
        "levels": Limit(
            2,
            4,
            "rows of the web, plants at the bottom; four name pools (plants, small animals, predators, top predators)",
        ),
        "min_species": Limit(3, 16, "species in the web; a row holds at most 5 boxes of readable names"),
        "max_species": Limit(3, 16, "species in the web (see min_species)"),
        "max_prey": Limit(1, 4, "species one animal eats; more arrows into one box stop being traceable"),
        "max_skip": Limit(1, 3, "rows below an animal its food may come from (1: only the row just below)"),
        "answer_min": Limit(0, 15, "species that die out; the balanced answer range"),
        "answer_max": Limit(0, 15, "species that die out; the balanced answer range"),
    }

    def check_config(self, config: Any) -> None:
        super().check_config(config)
        if config.max_species > MAX_PER_ROW * config.levels or config.min_species < config.levels + 1:
            raise ValueError(
                f"task {self.name}: with {config.levels} rows the web holds between "
                f"{config.levels + 1} and {MAX_PER_ROW * config.levels} species"
            )

    # -- scene ----------------------------------------------------------------------------------------

    def sample_scene(self, ctx: GenContext) -> dict[str, Any]:
        cfg, rng = self.config, ctx.rng
        target = cfg.answer_min + ctx.balanced(cfg.answer_max - cfg.answer_min + 1, "answer")
        n = rng.randint(cfg.min_species, cfg.max_species)
        counts = self._row_counts(n, rng)
        species = []
        for level, k in enumerate(counts):
            for i, name in enumerate(rng.sample(NAMES[level], k)):
                species.append({"name": name, "level": level, "slot": i})
        eats: list[list[str]] = []
        scene = {"species": species, "eats": eats, "removed": ""}
        for s in species:
            if s["level"] == 0:
                continue
            near = [p["name"] for p in species if p["level"] == s["level"] - 1]
            # Food from further down only where its arrow passes clear of the boxes in between.
            lower = [
                p["name"]
                for p in species
                if s["level"] - cfg.max_skip <= p["level"] < s["level"] and self._clear(scene, p["name"], s["name"])
            ]
            first = rng.choice(near)
            others = [p for p in lower if p != first]
            more = rng.sample(others, min(len(others), rng.randint(1, cfg.max_prey) - 1))
            eats += [[p, s["name"]] for p in sorted([first, *more])]
        eaten = {a for a, _ in eats}
        # Counting only the animals that eat nothing but the removed species is right whenever the die-out
        # stops after one round, which random webs make common (vcot audit). Where the answer allows a
        # disagreement (two or more die out), that count may agree with the answer in at most one instance of
        # every eight, so the cue stays near chance.
        cue_agrees = ctx.balanced(CUE_BLOCK, "sole-food cue") == 0
        # Likewise the count of everything above the removed species (right when the die-out takes it all).
        above_agrees = ctx.balanced(CUE_BLOCK, "everything-above cue") == 0
        hits = []
        for s in species:
            if s["name"] not in eaten:
                continue
            scene["removed"] = s["name"]
            if sum(len(r) for r in die_out_rounds(scene)) != target:
                continue
            if target >= 2 and sole_food_eaters(scene) == target and not cue_agrees:
                continue
            if len(above(scene)) == target and not above_agrees:
                continue
            hits.append(s["name"])
        if not hits:
            raise Reject(f"no species whose removal makes {target} die out with the balanced cue")
        scene["removed"] = rng.choice(hits)
        return scene

    def _row_counts(self, n: int, rng: random.Random) -> list[int]:
        """Species per row: at least two plants and one animal per row, at most MAX_PER_ROW in any."""
        levels = self.config.levels
        counts = [2] + [1] * (levels - 1)
        while sum(counts) < n:
            i = rng.randrange(levels)
            if counts[i] < MAX_PER_ROW:
                counts[i] += 1
        return counts

    def _clear(self, scene: dict[str, Any], a: str, b: str) -> bool:
        """Whether the arrow from a to b passes clear of every box in the rows between them."""
        level = {s["name"]: s["level"] for s in scene["species"]}
        p, q = self._ends(scene, a, b)
        return not any(
            level[a] < s["level"] < level[b] and _crosses(p, q, self._box(scene, s), pad=8) for s in scene["species"]
        )

    # -- solving --------------------------------------------------------------------------------------

    def solve(self, scene: dict[str, Any]) -> Solution:
        rounds = die_out_rounds(scene)
        died = sum(len(r) for r in rounds)
        survivors = self._kept_food(scene, rounds)
        return Solution(
            answer=str(died),
            states=[[scene["removed"]], *rounds, survivors],
            details={"rounds": rounds, "kept_food": survivors},
        )

    @staticmethod
    def _kept_food(scene: dict[str, Any], rounds: list[list[str]]) -> list[str]:
        """Animals that lost some of their food but not all of it (they stay)."""
        dead = {scene["removed"], *(n for r in rounds for n in r)}
        return sorted({b for a, b in scene["eats"] if a in dead and b not in dead})

    def question(self, scene: dict[str, Any]) -> str:
        x = scene["removed"]
        return (
            "The picture shows a food web: an arrow points from each species to an animal that eats it. "
            f"Suppose the {x} disappears. Plants make their own food and never die out; an animal dies out "
            "as soon as every species it eats (every arrow into it) has died out or disappeared, and no "
            f"animal switches to food that is not shown. How many species die out as a result, not counting "
            f"the {x} itself? Answer with a single integer."
        )

    def answer_space(self, instance: Instance) -> AnswerSpace:
        cfg = self.config
        return integers(
            cfg.answer_min,
            cfg.answer_max,
            f"the counts {cfg.answer_min} to {cfg.answer_max} the generator balances over",
        )

    # -- rendering ------------------------------------------------------------------------------------

    def render(self, scene: dict[str, Any], solution: Solution) -> Rendering:
        rounds = solution.details["rounds"]
        return Rendering(image=self.render_input(scene, solution), steps=self._steps(scene, rounds))

    def render_input(self, scene: dict[str, Any], solution: Solution) -> Image.Image:
        return self._draw(scene, set(), set()).image()

    def _steps(self, scene: dict[str, Any], rounds: list[list[str]]) -> list[tuple[Image.Image, str]]:
        """(1) the removed species crossed out; (2..) one picture per round of dying out; (last) the animals
        that lost food but kept some, ringed. Texts name species, never a count."""
        x = scene["removed"]
        prey: dict[str, list[str]] = {}
        for a, b in scene["eats"]:
            prey.setdefault(b, []).append(a)
        eaters = sorted(b for a, b in scene["eats"] if a == x)
        dead = {x}
        out = [
            (
                self._draw(scene, dead, set()).image(),
                f"The {x} is crossed out in red and the arrows leaving it are dashed; it was eaten by the "
                f"{_names(eaters)}.",
            )
        ]
        for k, names in enumerate(rounds, start=1):
            dead |= set(names)
            why = "; ".join(f"the {n} ate the {_names(sorted(prey[n]))}" for n in names)
            out.append(
                (
                    self._draw(scene, dead, set()).image(),
                    f"Round {k} of dying out: the {_names(names)} {'has' if len(names) == 1 else 'have'} no "
                    f"food left and {'is' if len(names) == 1 else 'are'} crossed out, the arrows leaving "
                    f"{'it' if len(names) == 1 else 'them'} dashed ({why}, all crossed out).",
                )
            )
        kept = sorted({b for a, b in scene["eats"] if a in dead and b not in dead})
        if kept:
            detail = "; ".join(
                f"the {n} still eats the {_names(sorted(p for p in prey[n] if p not in dead))}" for n in kept
            )
            text = (
                f"No other animal has lost all its food. Ringed in blue, the animals that lost some food but "
                f"keep some: {detail}."
            )
        else:
            text = "No animal still standing ate a crossed-out species; nothing is ringed."
        out.append((self._draw(scene, dead, set(kept)).image(), text))
        return out

    def _box(self, scene: dict[str, Any], s: dict[str, Any]) -> tuple[float, float, float, float]:
        levels = max(t["level"] for t in scene["species"]) + 1
        row = sum(1 for t in scene["species"] if t["level"] == s["level"])
        cx = W * (s["slot"] + 0.5) / row
        cy = H - MARGIN_Y - (H - 2 * MARGIN_Y) * s["level"] / max(1, levels - 1)
        return (cx - BOX_W / 2, cy - BOX_H / 2, cx + BOX_W / 2, cy + BOX_H / 2)

    def _ends(self, scene: dict[str, Any], a: str, b: str) -> tuple[tuple[float, float], tuple[float, float]]:
        """Arrow from the top of the food's box to the bottom of the eater's, its ends spread along the boxes'
        edges towards each other so that arrows into one box arrive apart."""
        by = {s["name"]: s for s in scene["species"]}
        pa, pb = self._box(scene, by[a]), self._box(scene, by[b])
        ca, cb = (pa[0] + pa[2]) / 2, (pb[0] + pb[2]) / 2
        spread = BOX_W / 2 - 12
        da = max(-spread, min(spread, (cb - ca) * 0.3))
        db = max(-spread, min(spread, (ca - cb) * 0.3))
        return (ca + da, pa[1]), (cb + db, pb[3])

    def _draw(self, scene: dict[str, Any], dead: set[str], ringed: set[str]) -> Canvas:
        c = Canvas(W, H)
        for a, b in scene["eats"]:
            p, q = self._ends(scene, a, b)
            gone = a in dead
            c.arrow(p, q, "gray" if gone else "black", width=2.5, head=13, dash=(8, 6) if gone else None)
        for s in scene["species"]:
            x0, y0, x1, y1 = self._box(scene, s)
            name = s["name"]
            fill = "lightgray" if name in dead else ("lightgreen" if s["level"] == 0 else "lightyellow")
            c.rect((x0, y0, x1, y1), fill=fill, outline="black", width=2)
            if name in ringed:
                c.rect((x0 - 5, y0 - 5, x1 + 5, y1 + 5), fill=None, outline=SAFE, width=4)
            if name in dead:
                c.line([(x0 + 4, y0 + 4), (x1 - 4, y1 - 4)], GONE, 4)
                c.line([(x0 + 4, y1 - 4), (x1 - 4, y0 + 4)], GONE, 4)
            # The name stays readable over the cross, on a small plate of the box's own fill.
            c.text(
                ((x0 + x1) / 2, (y0 + y1) / 2),
                name,
                size=17,
                bold=True,
                anchor="mm",
                color="black",
                background=fill if name in dead else None,
                padding=1,
            )
        c.text((10, H - 12), "plants", size=15, color="gray", anchor="lb")
        return c

    # -- corruption -----------------------------------------------------------------------------------

    def corrupt(self, scene: dict[str, Any], solution: Solution, rng: random.Random) -> Corruption | None:
        """One arrow misread, and the die-out then run faithfully on the misread web: an arrow into an animal
        that has other food overlooked, or, when no such slip changes the count, an arrow read from a species
        that survives into one that dies out. Every step then states what the misread web gives, in the true
        steps' words, and draws the web as misread."""
        eats = scene["eats"]
        x = scene["removed"]
        foods = collections.Counter(b for _, b in eats)
        misses = [e for e in eats if foods[e[1]] >= 2 and not (e[0] == x and sum(a == x for a, _ in eats) == 1)]
        rng.shuffle(misses)
        for e in misses:
            web = {**scene, "eats": [f for f in eats if f != e]}
            if (found := self._misread(web, solution)) is not None:
                return Corruption(
                    steps=found[1],
                    description=f"the arrow from the {e[0]} to the {e[1]} overlooked; {found[0]}",
                    answer=found[2],
                    scene=web,
                )
        level = {s["name"]: s["level"] for s in scene["species"]}
        died = [n for r in solution.details["rounds"] for n in r]
        gone = {x, *died}
        extras = [
            [a, b]
            for b in died
            for a in sorted(level)
            if a not in gone and level[a] < level[b] and [a, b] not in eats and self._clear(scene, a, b)
        ]
        rng.shuffle(extras)
        for e in extras:
            web = {**scene, "eats": [*eats, e]}
            if (found := self._misread(web, solution)) is not None:
                return Corruption(
                    steps=found[1],
                    description=f"an arrow from the {e[0]} to the {e[1]} read where there is none; {found[0]}",
                    answer=found[2],
                    scene=web,
                )
        return None

    def _misread(
        self, web: dict[str, Any], solution: Solution
    ) -> tuple[str, Callable[[], list[tuple[Image.Image, str]]], str] | None:
        """(what the misread web gives, its step drawer, the count it gives as the answer) when its count
        differs from the answer; the die-out run on the misread web is what the trajectory concludes from."""
        rounds = die_out_rounds(web)
        wrong = sum(len(r) for r in rounds)
        if str(wrong) == solution.answer:
            return None
        return (f"{wrong} species die out instead of {solution.answer}", lambda: self._steps(web, rounds), str(wrong))


def _names(names: list[str]) -> str:
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


def _crosses(
    p: tuple[float, float], q: tuple[float, float], box: tuple[float, float, float, float], pad: float
) -> bool:
    """Whether the segment p-q passes through the box grown by `pad` (sampled finely: boxes are large)."""
    x0, y0, x1, y1 = box[0] - pad, box[1] - pad, box[2] + pad, box[3] + pad
    for i in range(65):
        f = i / 64
        x, y = p[0] + (q[0] - p[0]) * f, p[1] + (q[1] - p[1]) * f
        if x0 <= x <= x1 and y0 <= y <= y1:
            return True
    return False
