"""Building a gear_rotation system: wheels grown from gear A by meshes, belts and shaft wheels, closed loops
planned to be consistent or jammed, tooth phases that interlock, shuffled labels, and the whole system centred
in the picture. Every placement must pass the geometry check.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from vcot.tasks.base import Reject
from vcot.tasks.ct._gear_geometry import BELT_GAP, TOOTH, H, W, centre_of, check_geometry, dist
from vcot.tasks.ct._gear_propagation import propagate

if TYPE_CHECKING:
    # Only for annotations: the task module imports this one at run time.
    from vcot.tasks.ct.gear_rotation import GearRotationConfig

RADII = (34, 42, 52, 62)
INNER_SHRINK = 28


class _Builder:
    def __init__(self, rng: random.Random, cfg: GearRotationConfig) -> None:
        self.rng, self.cfg = rng, cfg
        self.gears: list[dict[str, Any]] = []
        self.links: list[dict[str, Any]] = []

    def scene(self) -> dict[str, Any]:
        return {"gears": self.gears, "links": self.links}

    def _fits(self, extra_gears: list[dict[str, Any]], extra_links: list[dict[str, Any]]) -> bool:
        trial = {"gears": self.gears + extra_gears, "links": self.links + extra_links}
        try:
            check_geometry(trial)
        except Reject:
            return False
        return True

    def _new(self, x: float, y: float, r: int, host: int | None = None) -> dict[str, Any]:
        teeth = max(10, round(2 * math.pi * r / 19))
        return {
            "label": "",
            "x": round(x, 1),
            "y": round(y, 1),
            "r": r,
            "teeth": teeth,
            "phase": round(self.rng.uniform(0, 360 / teeth), 2),
            "host": host,
        }

    def first(self) -> None:
        r = self.rng.choice(RADII)
        self.gears.append(self._new(self.rng.uniform(120, W - 120), self.rng.uniform(120, H - 120), r))

    def outer(self) -> list[int]:
        return [i for i, g in enumerate(self.gears) if g["host"] is None]

    def _link_types(self, i: int) -> set[str]:
        return {lk["type"] for lk in self.links if i in (lk["a"], lk["b"])}

    def meshable(self) -> list[int]:
        """Outer gears without a belt on their rim (a belt wraps the rim where a neighbour would mesh)."""
        return [i for i in self.outer() if not self._link_types(i) & {"open_belt", "crossed_belt"}]

    def beltable(self) -> list[int]:
        """Wheels with nothing on their rim yet: free gears and shaft pulleys without a belt."""
        return [i for i in range(len(self.gears)) if not self._link_types(i) & {"mesh", "open_belt", "crossed_belt"}]

    def _attach(self, parent: int, gap: Callable[[], float], link_type: Callable[[], str]) -> bool:
        """Up to 30 tries to add a wheel linked to `parent`, in a random direction with its pitch circle
        `gap()` beyond the parent's (0: they mesh); the link is of type `link_type()`. False when none fits."""
        p = self.gears[parent]
        for _ in range(30):
            r = self.rng.choice(RADII)
            a = self.rng.uniform(0, 2 * math.pi)
            d = p["r"] + r + gap()
            g = self._new(p["x"] + d * math.cos(a), p["y"] + d * math.sin(a), r)
            link = {"a": parent, "b": len(self.gears), "type": link_type()}
            if self._fits([g], [link]):
                if link["type"] == "mesh":
                    g["phase"] = _mesh_phase(p, g)  # drawn teeth interlock with the parent's
                self.gears.append(g)
                self.links.append(link)
                return True
        return False

    def add_mesh(self, parent: int) -> bool:
        return self._attach(parent, gap=lambda: 0, link_type=lambda: "mesh")

    def add_belt(self, parent: int) -> bool:
        return self._attach(
            parent,
            gap=lambda: self.rng.uniform(BELT_GAP + 5, BELT_GAP + 200),
            link_type=lambda: self.rng.choice(["open_belt", "crossed_belt"]),
        )

    def shaft_hosts(self) -> list[int]:
        """Gears that can take a smaller wheel on their shaft: large enough, meshable, none on them yet."""
        hosts = {g["host"] for g in self.gears}
        return [i for i in self.meshable() if self.gears[i]["r"] >= 52 and i not in hosts]

    def add_shaft(self, host: int) -> bool:
        """A smaller wheel on the host's shaft; it then drives a new gear by belt (inner wheels never mesh)."""
        if host not in self.shaft_hosts():
            return False
        h = self.gears[host]
        inner = self._new(h["x"], h["y"], h["r"] - INNER_SHRINK, host=host)
        self.gears.append(inner)
        self.links.append({"a": host, "b": len(self.gears) - 1, "type": "shaft"})
        if self.add_belt(len(self.gears) - 1):
            return True
        self.gears.pop()
        self.links.pop()
        return False

    def close_by_belt(self, want_flip: int) -> bool:
        free = self.beltable()
        pairs = [
            (i, j)
            for i in free
            for j in free
            if i < j
            and not any({lk["a"], lk["b"]} == {i, j} for lk in self.links)
            and self.gears[i]["x"] != self.gears[j]["x"]
        ]
        self.rng.shuffle(pairs)
        for i, j in pairs[:20]:
            sign = propagate({"gears": self.gears, "links": self.links, "driver": 0})["sign"]
            parity = sign[i] ^ sign[j] ^ want_flip  # the flip the belt must add for (in)consistency
            link = {"a": i, "b": j, "type": "crossed_belt" if parity else "open_belt"}
            if self._fits([], [link]):
                self.links.append(link)
                return True
        return False

    def close_by_mesh(self, want_flip: int) -> bool:
        """A new gear meshing with two existing outer gears at once; its two flips cancel, so the cycle is
        contradictory exactly when the two gears already turn in opposite directions."""
        outer = self.meshable()
        sign = propagate({"gears": self.gears, "links": self.links, "driver": 0})["sign"]
        pairs = [(i, j) for i in outer for j in outer if i < j and (sign[i] != sign[j]) == bool(want_flip)]
        self.rng.shuffle(pairs)
        for i, j in pairs[:12]:
            gi, gj = self.gears[i], self.gears[j]
            for r in self.rng.sample(RADII, len(RADII)):
                for pt in _circle_intersections(centre_of(gi), gi["r"] + r, centre_of(gj), gj["r"] + r):
                    g = self._new(pt[0], pt[1], r)
                    links = [
                        {"a": i, "b": len(self.gears), "type": "mesh"},
                        {"a": j, "b": len(self.gears), "type": "mesh"},
                    ]
                    if self._fits([g], links):
                        g["phase"] = _mesh_phase(gi, g)
                        self.gears.append(g)
                        self.links.extend(links)
                        return True
        return False


def _circle_intersections(
    c1: tuple[float, float], r1: float, c2: tuple[float, float], r2: float
) -> list[tuple[float, float]]:
    d = dist(c1, c2)
    if d == 0 or d > r1 + r2 or d < abs(r1 - r2):
        return []
    a = (r1 * r1 - r2 * r2 + d * d) / (2 * d)
    h = math.sqrt(max(0.0, r1 * r1 - a * a))
    mx, my = c1[0] + a * (c2[0] - c1[0]) / d, c1[1] + a * (c2[1] - c1[1]) / d
    ox, oy = -(c2[1] - c1[1]) / d * h, (c2[0] - c1[0]) / d * h
    return [(mx + ox, my + oy), (mx - ox, my - oy)]


def _mesh_phase(parent: dict[str, Any], child: dict[str, Any]) -> float:
    """Tooth phase (degrees) that puts a gap of the child where the parent's nearest tooth is."""
    alpha = math.degrees(math.atan2(-(child["y"] - parent["y"]), child["x"] - parent["x"]))
    pp, pc = 360 / parent["teeth"], 360 / child["teeth"]
    delta = (alpha - parent["phase"]) % pp
    if delta > pp / 2:
        delta -= pp
    eps = delta * parent["r"] / child["r"]
    return round((alpha + 180 + eps - pc / 2) % pc, 2)


def _grow(b: _Builder, rng: random.Random, cfg: GearRotationConfig, size: int) -> None:
    """Add wheels until there are `size`, each time by a growth operation drawn by weight among those that
    have somewhere to go (a shaft adds two wheels, so it is not drawn when one wheel is missing)."""
    while len(b.gears) < size:
        for _ in range(8):
            ops = {
                "mesh": (cfg.p_mesh, b.meshable()),
                "belt": (cfg.p_belt, b.beltable()),
                "shaft": (cfg.p_shaft, b.shaft_hosts() if len(b.gears) + 2 <= size else []),
            }
            live = [(op, w, at) for op, (w, at) in ops.items() if w > 0 and at]
            if not live:
                raise Reject("no wheel can take another link")
            op, _, at = rng.choices(live, [w for _, w, _ in live])[0]
            if {"mesh": b.add_mesh, "belt": b.add_belt, "shaft": b.add_shaft}[op](rng.choice(at)):
                break
        else:
            raise Reject("could not place another gear")


def build_system(rng: random.Random, cfg: GearRotationConfig, jammed: bool, loop: bool, size: int) -> dict[str, Any]:
    """A connected system of exactly `size` wheels, jammed or not as planned, with closed loops (1 to
    extra_links of them) or none. The count is fixed before the jam status can influence it (a closing mesh
    adds a wheel, a closing belt none; growth fills up to `size` afterwards), so the question's first
    sentence, which names the last label, says nothing about the answer."""
    b = _Builder(rng, cfg)
    b.first()
    n_extra = rng.randint(1, cfg.extra_links) if loop or jammed else 0
    _grow(b, rng, cfg, size - n_extra)
    for k in range(n_extra):
        want_flip = 1 if (jammed and k == 0) else 0
        first, second = (b.close_by_mesh, b.close_by_belt) if rng.random() < 0.5 else (b.close_by_belt, b.close_by_mesh)
        if not first(want_flip) and not second(want_flip):
            raise Reject("could not close a cycle")
    _grow(b, rng, cfg, size)
    scene = _relabel(b.scene(), rng)
    _centre(scene)
    return scene


def _relabel(scene: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """Shuffle the labels of every wheel but A: labels in building order would put a wheel's links in
    alphabetical order, so counting letters would replace following the links."""
    n = len(scene["gears"])
    new_of = [0, *rng.sample(range(1, n), n - 1)]
    gears: list[dict[str, Any]] = [{}] * n
    for old, g in enumerate(scene["gears"]):
        host = g["host"]
        gears[new_of[old]] = dict(g, label=chr(ord("A") + new_of[old]), host=None if host is None else new_of[host])
    links = [dict(lk, a=new_of[lk["a"]], b=new_of[lk["b"]]) for lk in scene["links"]]
    return {"gears": gears, "links": links}


def _centre(scene: dict[str, Any]) -> None:
    """Translate the whole system to the middle of the picture (translation changes no relation)."""
    xs, ys = [], []
    for g in scene["gears"]:
        xs += [g["x"] - g["r"] - TOOTH, g["x"] + g["r"] + TOOTH]
        ys += [g["y"] - g["r"] - TOOTH, g["y"] + g["r"] + TOOTH]
    dx = round((W - max(xs) - min(xs)) / 2)
    dy = round((H - max(ys) - min(ys)) / 2)
    for g in scene["gears"]:
        g["x"], g["y"] = round(g["x"] + dx, 1), round(g["y"] + dy, 1)
