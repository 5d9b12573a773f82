"""gear_rotation (CT): gears, open and crossed belts and shared shafts; gear A turns one way — which way does
another gear turn, or is the system jammed?

MIRA asks two sub-questions about one picture and counts a problem right only when both are right. Instances
stay random-access by pairing indices: instance i belongs to problem i // 2 and asks sub-question i % 2 + 1.
The scene of a problem is drawn from an RNG derived from (task, version, difficulty parameters, seed, problem),
not from the per-instance RNG, so both rows share the identical scene and picture.

The solver is a parity constraint graph: meshing gears and crossed belts flip the direction, open belts and
shared shafts keep it. A BFS 2-colouring from gear A gives every connected gear's direction; a contradiction
(an odd cycle of flips) means the gears cannot turn at all: "jammed".

Shortcuts are planned out (docs/tasks/gear_rotation.md, "Answer" and "Shortcut audit"): a third of the rows jam at
every preset, the wheel count is drawn independently of the answer, half the turning systems have a consistent
loop, the letters after A are shuffled, and the direction read off the distance in the drawing agrees with the
answer in exactly half the turning rows. Labels never touch a belt, another wheel or label, the legend or the
border ("Labels").
"""

from __future__ import annotations

import math
import random
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from PIL import Image

from vcot.draw.canvas import Canvas
from vcot.schema import Instance
from vcot.seeding import derive_seed
from vcot.tasks import register
from vcot.tasks.answer_space import AnswerSpace, finite
from vcot.tasks.base import Corruption, GenContext, Limit, ParameterError, Reject, Rendering, Solution, Task

W, H = 960, 640
MARGIN = 24
TOOTH = 6  # teeth reach TOOTH px beyond the pitch circle and TOOTH px inside it
CLEAR = 18  # min gap between the tooth tips of gears that do not mesh
BELT_GAP = 70  # min gap between the pitch circles of belt-linked wheels (room to see the belt's form)
BELT_CLEAR = 12  # min distance of a belt from any wheel it does not wrap
BELT_SEP = 10  # min distance between two different belts
RADII = (34, 42, 52, 62)
INNER_SHRINK = 28
FLIP = {"mesh": 1, "crossed_belt": 1, "open_belt": 0, "shaft": 0}
DIRS = ("clockwise", "counterclockwise")
# The words the question offers, whatever the configuration (jammed_per_block = 0 never jams, but says nothing
# of it).
ANSWER_WORDS = (*DIRS, "jammed")
LOOP_TRIES = 300  # attempts at a planned consistent loop before a turning system is drawn without one
GEAR_FILL = (196, 206, 222)
INNER_FILL = (236, 206, 150)
CW_COLOR = (31, 90, 200)
CCW_COLOR = (214, 110, 0)
HUB_R = 15  # white hub disc at every wheel's centre: a wheel without a shaft wheel carries its label there
RING_LABEL_R = 12  # a host's label disc, in the ring between its shaft wheel's teeth and its own tooth tips
LABEL_GAP = 2  # min free pixels around a label disc
BELT_HALF = 2  # half the drawn belt width
LEGEND = "blue = clockwise, orange = counterclockwise"
LEGEND_BOX = (W - 12 - 365, H - 10 - 23, W - 10, H - 8)  # where the step pictures' legend text falls


@dataclass(frozen=True)
class GearRotationConfig:
    n_min: int = 4
    n_max: int = 6
    p_mesh: float = 0.6
    p_belt: float = 0.4
    p_shaft: float = 0.0
    extra_links: int = 1  # at most this many links close a loop
    jammed_per_block: int = 4  # jammed problems in each block of jammed_per_block + 8 consecutive problems
    min_depth: int = 2  # asked gears are at least this many links away from gear A when possible


# -- solver -------------------------------------------------------------------------------------------

def propagate(scene: dict[str, Any], flip_gear: int | None = None) -> dict[str, Any]:
    """BFS from the driver. Returns per-gear sign (0 = same as driver, 1 = opposite), layer, the link that
    set it, and the first contradiction found (None when consistent). `flip_gear` deliberately sets that
    gear the wrong way when first reached (the corrupted trajectory)."""
    n = len(scene["gears"])
    adj: list[list[tuple[int, int]]] = [[] for _ in range(n)]
    for k, link in enumerate(scene["links"]):
        adj[link["a"]].append((link["b"], k))
        adj[link["b"]].append((link["a"], k))
    driver = scene["driver"]
    sign: list[int | None] = [None] * n
    layer: list[int | None] = [None] * n
    via: list[tuple[int, int] | None] = [None] * n
    sign[driver], layer[driver] = 0, 0
    conflict = None
    queue = deque([driver])
    while queue:
        u = queue.popleft()
        for v, k in adj[u]:
            s = sign[u] ^ FLIP[scene["links"][k]["type"]]  # type: ignore[operator]
            if sign[v] is None:
                if v == flip_gear:
                    s ^= 1
                sign[v], layer[v], via[v] = s, layer[u] + 1, (u, k)  # type: ignore[operator]
                queue.append(v)
            elif sign[v] != s and conflict is None:
                conflict = {"gear": v, "from": u, "link": k, "layer": max(layer[u], layer[v])}  # type: ignore[type-var]
    return {"sign": sign, "layer": layer, "via": via, "conflict": conflict}


def direction_of(driver_dir: str, s: int) -> str:
    return driver_dir if s == 0 else DIRS[1 - DIRS.index(driver_dir)]


def gear_answer(scene: dict[str, Any], prop: dict[str, Any], gear: int) -> str:
    if prop["sign"][gear] is None:
        raise Reject("the asked gear is not connected to gear A")
    if prop["conflict"] is not None:
        return "jammed"
    return direction_of(scene["driver_dir"], prop["sign"][gear])


# -- geometry checks ----------------------------------------------------------------------------------

def _dist(a: tuple[float, float], b: tuple[float, float]) -> float:
    return math.hypot(a[0] - b[0], a[1] - b[1])


def _c(g: dict[str, Any]) -> tuple[float, float]:
    return (g["x"], g["y"])


def belt_radius(g: dict[str, Any]) -> float:
    return g["r"] + TOOTH + 2


def belt_path(scene: dict[str, Any], link: dict[str, Any]) -> tuple[list[tuple[float, float]], ...]:
    """The belt as polylines: two straight runs and the two wraps around the far sides of the wheels."""
    g1, g2 = scene["gears"][link["a"]], scene["gears"][link["b"]]
    c1, c2 = _c(g1), _c(g2)
    r1, r2 = belt_radius(g1), belt_radius(g2)
    d = _dist(c1, c2)
    ux, uy = (c2[0] - c1[0]) / d, (c2[1] - c1[1]) / d
    nx, ny = -uy, ux
    crossed = link["type"] == "crossed_belt"
    k = (r1 + r2) / d if crossed else (r1 - r2) / d
    if abs(k) >= 1:
        raise Reject("belt wheels too close for tangents")
    h = math.sqrt(1 - k * k)
    runs, ends1, ends2 = [], [], []
    for s in (1, -1):
        vx, vy = k * ux + s * h * nx, k * uy + s * h * ny
        p1 = (c1[0] + r1 * vx, c1[1] + r1 * vy)
        p2 = (c2[0] - r2 * vx, c2[1] - r2 * vy) if crossed else (c2[0] + r2 * vx, c2[1] + r2 * vy)
        runs.append([p1, p2])
        ends1.append(p1)
        ends2.append(p2)
    wrap1 = _wrap(c1, r1, ends1, (-ux, -uy))
    wrap2 = _wrap(c2, r2, ends2, (ux, uy))
    return runs[0], runs[1], wrap1, wrap2


def _wrap(c: tuple[float, float], r: float, ends: list[tuple[float, float]],
          away: tuple[float, float]) -> list[tuple[float, float]]:
    """Arc of radius r around c between the two tangent points, through the side facing `away`."""
    a0 = math.atan2(ends[0][1] - c[1], ends[0][0] - c[0])
    a1 = math.atan2(ends[1][1] - c[1], ends[1][0] - c[0])
    mid = math.atan2(away[1], away[0])
    span = (a1 - a0) % (2 * math.pi)
    if (mid - a0) % (2 * math.pi) > span:
        span -= 2 * math.pi
    steps = 12
    return [(c[0] + r * math.cos(a0 + span * i / steps), c[1] + r * math.sin(a0 + span * i / steps))
            for i in range(steps + 1)]


def _seg_point_dist(p: tuple[float, float], a: tuple[float, float], b: tuple[float, float]) -> float:
    ax, ay = b[0] - a[0], b[1] - a[1]
    L2 = ax * ax + ay * ay
    t = 0.0 if L2 == 0 else max(0.0, min(1.0, ((p[0] - a[0]) * ax + (p[1] - a[1]) * ay) / L2))
    return _dist(p, (a[0] + t * ax, a[1] + t * ay))


def _seg_seg_dist(a: tuple[float, float], b: tuple[float, float], c: tuple[float, float],
                  d: tuple[float, float]) -> float:
    def orient(p, q, r):  # noqa: ANN001, ANN202
        return (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0])
    o1, o2, o3, o4 = orient(a, b, c), orient(a, b, d), orient(c, d, a), orient(c, d, b)
    if (o1 > 0) != (o2 > 0) and (o3 > 0) != (o4 > 0):
        return 0.0
    return min(_seg_point_dist(c, a, b), _seg_point_dist(d, a, b), _seg_point_dist(a, c, d),
               _seg_point_dist(b, c, d))


def _polyline_segments(path: tuple[list[tuple[float, float]], ...]) -> list[tuple[tuple[float, float], ...]]:
    return [(pl[i], pl[i + 1]) for pl in path for i in range(len(pl) - 1)]


def _family(scene: dict[str, Any], i: int) -> set[int]:
    """A gear and the gear it shares a shaft with (drawn on the same centre)."""
    fam = {i}
    for link in scene["links"]:
        if link["type"] == "shaft" and i in (link["a"], link["b"]):
            fam |= {link["a"], link["b"]}
    return fam


def check_geometry(scene: dict[str, Any]) -> None:
    """Reject pictures that could be misread: overlapping gears, meshing gears that do not touch, gears that
    touch without a mesh link, belts that are short, graze a wheel, or cross or touch another belt."""
    gears = scene["gears"]
    linked: dict[tuple[int, int], str] = {}
    for link in scene["links"]:
        linked[(min(link["a"], link["b"]), max(link["a"], link["b"]))] = link["type"]
    for g in gears:
        x, y, r = g["x"], g["y"], g["r"] + TOOTH
        if x - r < MARGIN or y - r < MARGIN or x + r > W - MARGIN or y + r > H - MARGIN:
            raise Reject(f"gear {g['label']} leaves the picture")
    for i in range(len(gears)):
        for j in range(i + 1, len(gears)):
            gi, gj = gears[i], gears[j]
            d = _dist(_c(gi), _c(gj))
            kind = linked.get((i, j))
            if kind == "shaft" or j in _family(scene, i):
                if d > 0.5:
                    raise Reject("shaft-linked gears must share a centre")
                continue
            if gi.get("host") is not None or gj.get("host") is not None:
                # An inner (shaft) gear lies on its host; compare against the host's outline instead.
                continue
            if kind == "mesh":
                if abs(d - (gi["r"] + gj["r"])) > 0.5:
                    raise Reject(f"meshing gears {gi['label']} and {gj['label']} do not touch")
            elif d < gi["r"] + gj["r"] + 2 * TOOTH + CLEAR:
                raise Reject(f"gears {gi['label']} and {gj['label']} overlap or nearly touch")
    for link in scene["links"]:
        if link["type"] == "mesh":
            a, b = gears[link["a"]], gears[link["b"]]
            if a.get("host") is not None or b.get("host") is not None:
                raise Reject("only outer gears mesh")
    belts = [link for link in scene["links"] if link["type"] in ("open_belt", "crossed_belt")]
    paths = []
    for link in belts:
        a, b = gears[link["a"]], gears[link["b"]]
        if _dist(_c(a), _c(b)) < a["r"] + b["r"] + BELT_GAP:
            raise Reject(f"belt {a['label']}-{b['label']} is too short to read")
        path = belt_path(scene, link)
        segs = _polyline_segments(path)
        if link["type"] == "crossed_belt":
            # The crossing must be visible, not hidden on top of a wheel.
            ra, rb = belt_radius(a), belt_radius(b)
            t = ra / (ra + rb)
            cross = (a["x"] + t * (b["x"] - a["x"]), a["y"] + t * (b["y"] - a["y"]))
            if any(_dist(cross, _c(g)) < g["r"] + TOOTH + BELT_CLEAR for g in gears):
                raise Reject(f"crossing of belt {a['label']}-{b['label']} lies on a wheel")
        skip = _family(scene, link["a"]) | _family(scene, link["b"])
        for k, g in enumerate(gears):
            if k in skip:
                continue
            rr = g["r"] + TOOTH + BELT_CLEAR
            if any(_seg_point_dist(_c(g), p, q) < rr for p, q in segs):
                raise Reject(f"belt {a['label']}-{b['label']} passes over gear {g['label']}")
        paths.append(segs)
    for m in range(len(paths)):
        for n in range(m + 1, len(paths)):
            if any(_seg_seg_dist(p, q, s, t) < BELT_SEP for p, q in paths[m] for s, t in paths[n]):
                raise Reject("two belts cross or touch")


# -- labels ---------------------------------------------------------------------------------------------

Disc = tuple[float, float, float]  # centre x, centre y, radius


def _inner_of(scene: dict[str, Any], i: int) -> int | None:
    return next((k for k, h in enumerate(scene["gears"]) if h.get("host") == i), None)


def _box_dist(p: tuple[float, float], box: tuple[float, float, float, float]) -> float:
    dx = max(box[0] - p[0], 0.0, p[0] - box[2])
    dy = max(box[1] - p[1], 0.0, p[1] - box[3])
    return math.hypot(dx, dy)


def _belts_near(scene: dict[str, Any], i: int, segs: list[tuple[tuple[float, float], ...]]
                ) -> list[tuple[tuple[float, float], ...]]:
    """The belt segments that can reach a label disc lying inside wheel i (the others need not be checked)."""
    g = scene["gears"][i]
    reach = g["r"] + TOOTH + BELT_HALF + LABEL_GAP
    return [seg for seg in segs if _seg_point_dist(_c(g), seg[0], seg[1]) <= reach]


def _label_room(scene: dict[str, Any], i: int, disc: Disc, others: list[Disc],
                belt_segs: list[tuple[tuple[float, float], ...]]) -> tuple[float, str]:
    """Free pixels around wheel i's label disc and what is nearest: negative when the disc leaves its own
    wheel or overlaps a belt, another wheel, another label, the legend or the picture's border. `belt_segs`
    must hold every belt segment near wheel i (`_belts_near`)."""
    x, y, rad = disc
    g = scene["gears"][i]
    rooms = [(g["r"] + TOOTH - _dist((x, y), _c(g)) - rad, "its own wheel's edge"),
             (min(x, y, W - x, H - y) - rad - LABEL_GAP, "the border"),
             (_box_dist((x, y), LEGEND_BOX) - rad - LABEL_GAP, "the legend")]
    for k, h in enumerate(scene["gears"]):
        # A shaft wheel is drawn over its host, so its label may lie on the host; every other wheel, the
        # host's own shaft wheel included, must stay clear of the label.
        if k != i and k != g.get("host"):
            rooms.append((_dist((x, y), _c(h)) - h["r"] - TOOTH - rad - LABEL_GAP, f"gear {h['label']}"))
    rooms += [(_seg_point_dist((x, y), p, q) - rad - BELT_HALF - LABEL_GAP, "a belt") for p, q in belt_segs]
    rooms += [(_dist((x, y), o[:2]) - rad - o[2] - LABEL_GAP, "another label") for o in others]
    return min(rooms)


def _belt_segments(scene: dict[str, Any]) -> list[tuple[tuple[float, float], ...]]:
    return [seg for link in scene["links"] if link["type"] in ("open_belt", "crossed_belt")
            for seg in _polyline_segments(belt_path(scene, link))]


def label_layout(scene: dict[str, Any]) -> list[Disc]:
    """Each wheel's label disc. A wheel without a shaft wheel on it has its label on its hub. A host's hub is
    covered by its shaft wheel, so its label goes in the ring between the shaft wheel's teeth and its own tooth
    tips, at the first of 32 angles with the most free room (the shaft wheel's belt crosses that ring)."""
    gears = scene["gears"]
    discs: list[Disc] = [(g["x"], g["y"], HUB_R) for g in gears]
    segs = _belt_segments(scene)
    for i, g in enumerate(gears):
        inner = _inner_of(scene, i)
        if inner is None:
            continue
        rr = gears[inner]["r"] + TOOTH + RING_LABEL_R + LABEL_GAP + 0.5
        others = [d for k, d in enumerate(discs) if k != i]
        near = _belts_near(scene, i, segs)
        best: tuple[float, Disc] | None = None
        for k in range(32):
            t = 2 * math.pi * k / 32
            disc = (round(g["x"] + rr * math.cos(t), 2), round(g["y"] - rr * math.sin(t), 2), RING_LABEL_R)
            room = _label_room(scene, i, disc, others, near)[0]
            if best is None or room > best[0] + 1e-9:
                best = (room, disc)
        assert best is not None
        discs[i] = best[1]
    return discs


def check_labels(scene: dict[str, Any]) -> None:
    """Reject a picture where a label would overlap a belt, another wheel, another label, the legend or the
    border, and one where a wheel reaches into the legend's corner of the step pictures."""
    discs = label_layout(scene)
    segs = _belt_segments(scene)
    for i, disc in enumerate(discs):
        others = [d for k, d in enumerate(discs) if k != i]
        room, what = _label_room(scene, i, disc, others, _belts_near(scene, i, segs))
        if room < 0:
            raise Reject(f"label {scene['gears'][i]['label']} would touch {what}")
    for g in scene["gears"]:
        if _box_dist(_c(g), LEGEND_BOX) < g["r"] + TOOTH:
            raise Reject(f"gear {g['label']} reaches into the legend")


# -- scene sampling -----------------------------------------------------------------------------------

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
        return {"label": "", "x": round(x, 1), "y": round(y, 1), "r": r, "teeth": teeth,
                "phase": round(self.rng.uniform(0, 360 / teeth), 2), "host": host}

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
        return [i for i in range(len(self.gears))
                if not self._link_types(i) & {"mesh", "open_belt", "crossed_belt"}]

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
        return self._attach(parent, gap=lambda: self.rng.uniform(BELT_GAP + 5, BELT_GAP + 200),
                            link_type=lambda: self.rng.choice(["open_belt", "crossed_belt"]))

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
        pairs = [(i, j) for i in free for j in free
                 if i < j and not any({lk["a"], lk["b"]} == {i, j} for lk in self.links)
                 and self.gears[i]["x"] != self.gears[j]["x"]]
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
                for pt in _circle_intersections(_c(gi), gi["r"] + r, _c(gj), gj["r"] + r):
                    g = self._new(pt[0], pt[1], r)
                    links = [{"a": i, "b": len(self.gears), "type": "mesh"},
                             {"a": j, "b": len(self.gears), "type": "mesh"}]
                    if self._fits([g], links):
                        g["phase"] = _mesh_phase(gi, g)
                        self.gears.append(g)
                        self.links.extend(links)
                        return True
        return False


def _circle_intersections(c1: tuple[float, float], r1: float, c2: tuple[float, float],
                          r2: float) -> list[tuple[float, float]]:
    d = _dist(c1, c2)
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
            ops = {"mesh": (cfg.p_mesh, b.meshable()), "belt": (cfg.p_belt, b.beltable()),
                   "shaft": (cfg.p_shaft, b.shaft_hosts() if len(b.gears) + 2 <= size else [])}
            live = [(op, w, at) for op, (w, at) in ops.items() if w > 0 and at]
            if not live:
                raise Reject("no wheel can take another link")
            op, _, at = rng.choices(live, [w for _, w, _ in live])[0]
            if {"mesh": b.add_mesh, "belt": b.add_belt, "shaft": b.add_shaft}[op](rng.choice(at)):
                break
        else:
            raise Reject("could not place another gear")


def build_system(rng: random.Random, cfg: GearRotationConfig, jammed: bool, loop: bool,
                 size: int) -> dict[str, Any]:
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
        first, second = (b.close_by_mesh, b.close_by_belt) if rng.random() < 0.5 else \
            (b.close_by_belt, b.close_by_mesh)
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
        gears[new_of[old]] = dict(g, label=chr(ord("A") + new_of[old]),
                                  host=None if host is None else new_of[host])
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


def plan_answers(pctx: GenContext, jammed_per_block: int) -> tuple[bool, list[str], list[bool]]:
    """Jam status, wanted directions and wanted distance-cue agreement of both sub-questions, exactly balanced
    over blocks of problems: each block of jammed_per_block + 8 problems has that many jammed ones, and its 8
    others cover every (sub-question 1, sub-question 2) direction combination twice — once with the distance
    cue agreeing on sub-question 1 only, once on sub-question 2 only."""
    v = pctx.balanced(jammed_per_block + 8, "plan")
    if v < jammed_per_block:
        return True, ["jammed", "jammed"], [False, False]
    u = v - jammed_per_block
    return False, [DIRS[u % 2], DIRS[(u // 2) % 2]], [u < 4, u >= 4]


def distance_cue(scene: dict[str, Any], target: int) -> str:
    """The direction read off the drawing without following links: one reversal per mean wheel diameter
    between A's centre and the asked wheel's (at least one unless they share a centre). In a chain of meshing
    gears this is nearly always right, so the generator plans where it agrees with the answer (half the
    non-jammed rows); the audit's "distance parity" heuristic computes the same (docs/tasks/gear_rotation.md)."""
    gears = scene["gears"]
    driver, asked = gears[scene["driver"]], gears[target]
    outer = [g for g in gears if g["host"] is None]
    step = 2 * sum(g["r"] for g in outer) / len(outer)
    d = _dist(_c(driver), _c(asked))
    flips = max(1, round(d / step)) if d > 0 else 0
    return direction_of(scene["driver_dir"], flips % 2)


@register
class GearRotationTask(Task):
    name = "gear_rotation"
    config_cls = GearRotationConfig
    presets = {
        "easy": GearRotationConfig(n_min=4, n_max=5, p_mesh=1.0, p_belt=0.0, p_shaft=0.0, extra_links=1,
                                   jammed_per_block=4, min_depth=1),
        "medium": GearRotationConfig(n_min=4, n_max=7, p_mesh=0.55, p_belt=0.15, p_shaft=0.3, extra_links=1,
                                     jammed_per_block=4, min_depth=2),
        "hard": GearRotationConfig(n_min=6, n_max=10, p_mesh=0.5, p_belt=0.15, p_shaft=0.35, extra_links=2,
                                   jammed_per_block=4, min_depth=2),
    }
    version = "4"
    limits = {
        "n_min": Limit(4, 10, "wheels in the system: fewer than 4 cannot give every planned pair of answers, and "
                              "with more than 10 the picture (960 x 640) fills up and sampling slows"),
        "n_max": Limit(4, 10, "wheels in the system (see n_min)"),
        "p_mesh": Limit(0.05, 1, "weight of growing by a meshing gear; only meshing gears take further wheels, "
                                 "so it must be positive"),
        "p_belt": Limit(0, 1, "weight of growing by a belt"),
        "p_shaft": Limit(0, 1, "weight of growing by a shaft wheel and its belt"),
        "extra_links": Limit(0, 3, "links closing a loop; each must fit between existing wheels"),
        "jammed_per_block": Limit(0, 8, "jammed problems per block of this + 8 (4: a third of the answers)"),
        "min_depth": Limit(1, 4, "links from A to an asked wheel; deeper is tried first, shallower accepted "
                                 "when fewer than two wheels are that deep"),
    }
    description = "Direction of a gear driven through meshes, open/crossed belts and shafts (paired questions)."
    rows_per_problem = 2
    # Every step draws each newly reached wheel's rotation arrow and its text names that direction; the asked
    # wheel's arrow is one of them. A jammed system's last step shows two arrows that its marked link forbids.
    final_state_shows = "the rotation arrow drawn on the asked wheel once the propagation reaches it"
    max_attempts = 5  # the problem RNG ignores retries; sample_scene loops internally instead

    def check_config(self, config: GearRotationConfig) -> None:
        super().check_config(config)
        if config.jammed_per_block > 0 and config.extra_links < 1:
            raise ParameterError(f"parameters of task {self.name}: jammed_per_block > 0 needs extra_links >= 1 "
                                 "(a jam needs a closed loop)")

    def sample_scene(self, ctx: GenContext) -> dict[str, Any]:
        problem, sub = divmod(ctx.index, 2)
        rng = random.Random(derive_seed(self.name, self.version, sorted(self.params().items()), ctx.seed,
                                        "problem", problem))
        pctx = GenContext(rng=rng, task=self.name, seed=ctx.seed, index=problem)
        jammed, want, agree = plan_answers(pctx, self.config.jammed_per_block)
        driver_dir = DIRS[pctx.balanced(2, "driver")]
        size = self.config.n_min + pctx.balanced(self.config.n_max - self.config.n_min + 1, "wheels")
        # Half the systems that turn get a closed (consistent) loop too, so a loop alone does not mean a jam.
        loop = jammed or (self.config.extra_links > 0 and pctx.balanced(2, "loop") == 0)
        last: Reject | None = None
        for attempt in range(LOOP_TRIES + 400):
            try:
                # A consistent loop does not fit every small system (four meshing gears in a ring barely do):
                # after LOOP_TRIES attempts the system that turns is drawn without one.
                scene = self._attempt(rng, jammed, loop and (jammed or attempt < LOOP_TRIES), want, agree,
                                      driver_dir, size)
                break
            except Reject as exc:
                last = exc
        else:
            raise Reject(f"no gear system for problem {problem}: {last}")
        scene["pair_id"] = problem
        scene["sub_question"] = sub + 1
        scene["target"] = scene["targets"][sub]
        return scene

    def _attempt(self, rng: random.Random, jammed: bool, loop: bool, want: list[str], agree: list[bool],
                 driver_dir: str, size: int) -> dict[str, Any]:
        scene = build_system(rng, self.config, jammed, loop, size)
        scene["driver"] = 0
        scene["driver_dir"] = driver_dir
        check_geometry(scene)
        check_labels(scene)
        prop = propagate(scene)
        if (prop["conflict"] is not None) != jammed:
            raise Reject("jam status differs from the one drawn for this problem")
        n = len(scene["gears"])
        deep = [i for i in range(1, n) if prop["layer"][i] is not None
                and prop["layer"][i] >= self.config.min_depth]
        pool = deep if len(deep) >= 2 else [i for i in range(1, n)]
        targets: list[int] = []
        for w, ok in zip(want, agree, strict=True):
            cands = [i for i in pool if i not in targets
                     and (jammed or (gear_answer(scene, prop, i) == w and (distance_cue(scene, i) == w) == ok))]
            if not cands:
                raise Reject(f"no gear turns {w} with the planned distance cue")
            targets.append(rng.choice(cands))
        scene["targets"] = targets
        return scene

    def solve(self, scene: dict[str, Any]) -> Solution:
        prop = propagate(scene)
        answer = gear_answer(scene, prop, scene["target"])
        dirs = [None if s is None else direction_of(scene["driver_dir"], s) for s in prop["sign"]]
        return Solution(answer=answer, states=dirs,
                        details={"conflict": prop["conflict"], "layers": prop["layer"]})

    def question(self, scene: dict[str, Any]) -> str:
        kinds = {link["type"] for link in scene["links"]}
        labels = [g["label"] for g in scene["gears"]]
        rules = ["Gears whose teeth touch mesh and turn in opposite directions."]
        if kinds & {"open_belt", "crossed_belt"}:
            rules.append("A belt whose two straight runs do not cross (open belt) makes its two wheels turn in "
                         "the same direction; a belt whose runs cross between the wheels (crossed belt) makes "
                         "them turn in opposite directions.")
        if "shaft" in kinds:
            rules.append("A smaller wheel drawn on top of a larger one with the same centre is fixed to the same "
                         "shaft: the two turn together in the same direction.")
        driver = scene["gears"][scene["driver"]]["label"]
        target = scene["gears"][scene["target"]]["label"]
        return (f"The picture shows wheels labelled {labels[0]} to {labels[-1]}. " + " ".join(rules)
                + f" Gear {driver} turns {scene['driver_dir']} (red arrow). In which direction does gear "
                f"{target} turn? If the wheels cannot turn at all because the connections contradict each "
                f"other, the system is {ANSWER_WORDS[2]}. Answer with one word: {ANSWER_WORDS[0]}, "
                f"{ANSWER_WORDS[1]} or {ANSWER_WORDS[2]}.")

    def answer_space(self, instance: Instance) -> AnswerSpace:
        return finite(list(ANSWER_WORDS), "the three words the question offers: clockwise, counterclockwise or "
                      "jammed", lambda a: a.strip().lower())

    def render(self, scene: dict[str, Any], solution: Solution) -> Rendering:
        layout = label_layout(scene)
        image = _draw_system(scene, {}, set(), layout=layout)
        steps = _cot_steps(scene, propagate(scene), layout)
        return Rendering(image=image, steps=steps)

    def corrupt(self, scene: dict[str, Any], solution: Solution, rng: random.Random) -> Corruption:
        prop = propagate(scene)
        path = []
        g = scene["target"]
        while prop["via"][g] is not None:
            path.append(g)
            g = prop["via"][g][0]
        gear = rng.choice(path)
        wrong = propagate(scene, flip_gear=gear)
        wrong["conflict"] = None  # the corrupted reasoning overlooks any contradiction it creates
        steps = _cot_steps(scene, wrong)
        return Corruption(steps=steps, description=f"direction of gear {scene['gears'][gear]['label']} "
                                                   "flipped when first reached; later gears follow it")


# -- visual chain of thought ---------------------------------------------------------------------------

REASON = {
    "mesh": "meshes with",
    "open_belt": "is joined by an open belt to",
    "crossed_belt": "is joined by a crossed belt to",
    "shaft": "shares a shaft with",
}


def _cot_steps(scene: dict[str, Any], prop: dict[str, Any],
               layout: list[Disc] | None = None) -> list[tuple[Image.Image, str]]:
    """One step per BFS layer: the arrows of the wheels reached so far, the new ones outlined; each text gives
    a new wheel's link to the wheel that reached it and both arrows' directions, as the picture shows them.
    The propagation is the state; which way the asked wheel turns, or that the system jams, is the conclusion,
    left to the reader (and to meta). For a jammed system a last step marks the link whose two arrows disagree
    with its kind (a mesh or crossed belt between equal arrows, an open belt or shaft between opposite ones)."""
    gears = scene["gears"]
    conflict = prop["conflict"]
    layout = layout if layout is not None else label_layout(scene)
    last_layer = conflict["layer"] if conflict else max(lv for lv in prop["layer"] if lv is not None)
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
                sentences.append(f"Gear {gears[i]['label']} {REASON[kind]} gear {gears[u]['label']} "
                                 f"({known[u]}) and turns {known[i]}.")
        steps.append((_draw_system(scene, known, set(new), layout=layout), " ".join(sentences)))
    if conflict:
        v, u, k = conflict["gear"], conflict["from"], conflict["link"]
        kind = scene["links"][k]["type"]
        marked = {"mesh": "their contact ringed in red", "shaft": "their shared shaft ringed in red"}.get(
            kind, "the belt drawn in red")
        text = (f"Gear {gears[v]['label']} ({known[v]}) {REASON[kind]} gear {gears[u]['label']} "
                f"({known[u]}), {marked}.")
        steps.append((_draw_system(scene, known, {v, u}, bad_link=k, layout=layout), text))
    return steps


# -- drawing -------------------------------------------------------------------------------------------

def _gear_polygon(g: dict[str, Any]) -> list[tuple[float, float]]:
    n, r = g["teeth"], g["r"]
    p = 360 / n
    pts = []
    for k in range(n):
        a = g["phase"] + k * p
        for off, rad in ((-0.30, r - TOOTH), (-0.15, r + TOOTH), (0.15, r + TOOTH), (0.30, r - TOOTH)):
            t = math.radians(a + off * p)
            pts.append((g["x"] + rad * math.cos(t), g["y"] - rad * math.sin(t)))
    return pts


def _arrow_centre(scene: dict[str, Any], i: int, radius: float) -> float:
    """The direction (degrees, counter-clockwise from +x) around gear i with the most free room for an arrow."""
    g = scene["gears"][i]
    others = [h for k, h in enumerate(scene["gears"]) if h.get("host") is None and k not in _family(scene, i)]
    best, best_room = 90.0, -1e9
    for k in range(16):
        centre = 90.0 + k * 22.5
        room = 1e9
        for off in (-55, -27, 0, 27, 55):
            t = math.radians(centre + off)
            px, py = g["x"] + radius * math.cos(t), g["y"] - radius * math.sin(t)
            room = min(room, px, py, W - px, H - py)
            for h in others:
                room = min(room, _dist((px, py), _c(h)) - h["r"] - TOOTH)
        if room > best_room + 0.5:
            best, best_room = centre, room
    return best


def _rot_arrow(c: Canvas, scene: dict[str, Any], i: int, direction: str, color: Any, radius: float) -> None:
    g = scene["gears"][i]
    cx, cy = g["x"], g["y"]
    centre = _arrow_centre(scene, i, radius) if g.get("host") is None else 90.0
    sgn = 1 if direction == "clockwise" else -1
    start, end = centre + 60 * sgn, centre - 60 * sgn
    c.arc((cx, cy), radius, start, end + 8 * sgn, color=color, width=4)
    back = math.radians(end + 14 * sgn)
    tip = math.radians(end)
    c.arrow((cx + radius * math.cos(back), cy - radius * math.sin(back)),
            (cx + radius * math.cos(tip), cy - radius * math.sin(tip)), color=color, width=4, head=16)


def _draw_system(scene: dict[str, Any], known: dict[int, str], highlight: set[int],
                 bad_link: int | None = None, layout: list[Disc] | None = None) -> Image.Image:
    c = Canvas(W, H)
    gears = scene["gears"]
    order = [i for i, g in enumerate(gears) if g.get("host") is None] + \
            [i for i, g in enumerate(gears) if g.get("host") is not None]
    belts = [k for k, lk in enumerate(scene["links"]) if lk["type"] in ("open_belt", "crossed_belt")]
    outer_belts = [k for k in belts if gears[scene["links"][k]["a"]].get("host") is None
                   and gears[scene["links"][k]["b"]].get("host") is None]
    for k in outer_belts:
        _draw_belt(c, scene, k, k == bad_link)
    for i in order:
        g = gears[i]
        fill = INNER_FILL if g.get("host") is not None else GEAR_FILL
        width = 4 if i in highlight else 2
        outline = "black" if i not in highlight else (200, 0, 0)
        c.polygon(_gear_polygon(g), fill=fill, outline=outline, width=width)
        if g.get("host") is None:
            c.circle((g["x"], g["y"]), g["r"] - TOOTH - 6, fill=None, outline="darkgray", width=1)
        c.circle((g["x"], g["y"]), 15, fill="white", outline="black", width=2)
    for k in belts:
        if k not in outer_belts:
            _draw_belt(c, scene, k, k == bad_link)
    if bad_link is not None and scene["links"][bad_link]["type"] in ("mesh", "shaft"):
        _ring_conflict(c, scene, bad_link)
    layout = layout if layout is not None else label_layout(scene)
    for i in order:
        x, y, radius = layout[i]
        if radius == HUB_R:
            c.text((x, y), gears[i]["label"], size=20, bold=True, anchor="mm")
        else:
            c.circle((x, y), radius, fill="white", outline="black", width=1)
            c.text((x, y), gears[i]["label"], size=16, bold=True, anchor="mm")
    for i, g in enumerate(gears):
        if i == scene["driver"] and not known:
            _rot_arrow(c, scene, i, scene["driver_dir"], "red", g["r"] + TOOTH + 10)
        elif i in known:
            color = CW_COLOR if known[i] == "clockwise" else CCW_COLOR
            radius = g["r"] + TOOTH + 10 if g.get("host") is None else g["r"] + TOOTH + 6
            _rot_arrow(c, scene, i, known[i], color, radius)
    if known:
        c.text((W - 12, H - 10), LEGEND, size=16, anchor="rb", color="darkgray")
    return c.image()


def _ring_conflict(c: Canvas, scene: dict[str, Any], k: int) -> None:
    """A red ring where a mesh's teeth meet, or around a shaft's hub: without it, a jammed system's last step
    could repeat the picture before it (the conflicting wheels are often the ones just outlined)."""
    link = scene["links"][k]
    a, b = scene["gears"][link["a"]], scene["gears"][link["b"]]
    if link["type"] == "shaft":
        c.circle((a["x"], a["y"]), 24, fill=None, outline=(200, 0, 0), width=5)
        return
    t = a["r"] / (a["r"] + b["r"])
    c.circle((a["x"] + t * (b["x"] - a["x"]), a["y"] + t * (b["y"] - a["y"])), 16, fill=None,
             outline=(200, 0, 0), width=5)


def _draw_belt(c: Canvas, scene: dict[str, Any], k: int, bad: bool) -> None:
    color = (200, 0, 0) if bad else (60, 60, 60)
    for pl in belt_path(scene, scene["links"][k]):
        c.line(pl, color=color, width=4)
