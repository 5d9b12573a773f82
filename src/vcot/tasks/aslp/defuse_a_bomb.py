"""defuse_a_bomb: trace wires that cross each other and run under opaque panels to find the detonator's wire.

Wires run on a grid from labelled ends at column 0 to numbered terminals at column `width`, one column per
step, each step going straight (east) or diagonally (northeast / southeast). No two wires share a grid
point, so two wires can only meet in an X crossing at a cell centre (a clear right-angle crossing).
Panel edges lie on half-integer grid lines, so a wire meets a panel edge only at a segment midpoint.
Under a panel every wire runs straight, so its exit is fixed by where and in which direction it entered.

The solver traces from visible evidence only: the wires are cut into anonymous visible pieces and every
panel entry is paired with the piece that starts where the straight continuation leaves the panel.
Geometry uses "quad" integer coordinates (grid units times 4): grid points are multiples of 4, panel edges
are 2 mod 4, so every test is exact.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from PIL import Image

from vcot.draw.canvas import Canvas
from vcot.schema import option_letters
from vcot.tasks import register
from vcot.tasks.base import Corruption, GenContext, Limit, ParameterError, Reject, Rendering, Solution, Task

Q = 4  # quad units per grid unit
WIRE_COLORS = ["red", "blue", "green", "orange", "purple", "brown"]
SAME_COLOR = "black"
HEADINGS = {-1: "northeast", 0: "east", 1: "southeast"}
MIN_GAP = Q  # boundary points of one panel at least one grid unit apart, so no two wires seem to share one

QPoint = tuple[int, int]


@dataclass(frozen=True)
class DefuseConfig:
    n_wires: int = 4  # 3..6; also the number of options
    width: int = 14  # columns; ends at x = 0, terminals at x = width
    height: int = 7  # rows 0..height
    n_panels: int = 2
    panel_max_w: int = 4  # panel width / height in grid units (at least 2)
    panel_max_h: int = 4
    same_color: bool = False  # all wires drawn in one colour
    keep_direction: float = 0.75  # chance that a wire keeps its previous direction (longer straight runs)
    cross_rate: float = 0.3  # chance per column of steering two adjacent wires into an X crossing


@dataclass(frozen=True)
class Panel:
    x0: int  # quad coordinates, all 2 mod 4
    y0: int
    x1: int
    y1: int

    def inside(self, p: tuple[float, float]) -> bool:
        return self.x0 < p[0] < self.x1 and self.y0 < p[1] < self.y1

    def on_boundary(self, p: tuple[float, float]) -> bool:
        x, y = p
        on_v = x in (self.x0, self.x1) and self.y0 <= y <= self.y1
        on_h = y in (self.y0, self.y1) and self.x0 <= x <= self.x1
        return on_v or on_h

    def is_corner(self, p: tuple[float, float]) -> bool:
        return p[0] in (self.x0, self.x1) and p[1] in (self.y0, self.y1)


def panels_from_scene(scene: dict[str, Any]) -> list[Panel]:
    return [Panel(int(p["x0"] * Q), int(p["y0"] * Q), int(p["x1"] * Q), int(p["y1"] * Q)) for p in scene["panels"]]


def wire_points(rows: list[int]) -> list[QPoint]:
    """Quad-coordinate points of a wire: grid points and segment midpoints (half-segment resolution)."""
    pts = [(0, rows[0] * Q)]
    for x in range(len(rows) - 1):
        y0, y1 = rows[x] * Q, rows[x + 1] * Q
        pts.append((x * Q + Q // 2, (y0 + y1) // 2))
        pts.append(((x + 1) * Q, y1))
    return pts


def _mid(a: QPoint, b: QPoint) -> tuple[float, float]:
    return ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2)


def _panel_at(panels: list[Panel], p: tuple[float, float]) -> Panel | None:
    for pn in panels:
        if pn.inside(p):
            return pn
    return None


def check_geometry(scene: dict[str, Any]) -> None:
    """Reject scenes whose picture could mislead: shared points, touching crossings, bends or crossings on
    panel edges, corner grazes, bends under panels, crowded panel edges."""
    width, height = scene["width"], scene["height"]
    panels = panels_from_scene(scene)
    wires = [w["rows"] for w in scene["wires"]]
    for rows in wires:
        if len(rows) != width + 1 or any(not 0 <= y <= height for y in rows):
            raise Reject("wire leaves the board")
        if any(abs(b - a) > 1 for a, b in zip(rows, rows[1:], strict=False)):
            raise Reject("wire step steeper than diagonal")
    for x in range(width + 1):
        col = [rows[x] for rows in wires]
        if len(set(col)) != len(col):
            raise Reject(f"two wires share the grid point at column {x}")
    for x in range(width):
        for i, a in enumerate(wires):
            for b in wires[i + 1 :]:
                # Segments between the same columns intersect only as an X (a swap of adjacent rows).
                if a[x] - b[x] == -(a[x + 1] - b[x + 1]) and abs(a[x] - b[x]) == 1:
                    cross = (x * Q + Q // 2, (a[x] + b[x]) * Q // 2)
                    if any(pn.on_boundary(cross) for pn in panels):
                        raise Reject("crossing on a panel edge")
    for i, pa in enumerate(panels):
        if pa.x0 <= 0 or pa.x1 >= width * Q or pa.y0 < 0 or pa.y1 > height * Q:
            raise Reject("panel covers an end or terminal column or leaves the board")
        for pb in panels[i + 1 :]:
            if not (pa.x1 + Q <= pb.x0 or pb.x1 + Q <= pa.x0 or pa.y1 + Q <= pb.y0 or pb.y1 + Q <= pa.y0):
                raise Reject("panels overlap or touch")
    for rows in wires:
        pts = wire_points(rows)
        for k, p in enumerate(pts):
            for pn in panels:
                if pn.is_corner(p):
                    raise Reject("wire grazes a panel corner")
            if 0 < k < len(pts) - 1 and k % 2 == 0:
                pn = _panel_at(panels, p)
                if pn is not None and rows[k // 2] - rows[k // 2 - 1] != rows[k // 2 + 1] - rows[k // 2]:
                    raise Reject("wire bends under a panel")
    for pn in panels:
        hits = sorted(p for rows in wires for p in wire_points(rows) if pn.on_boundary(p))
        for i, p in enumerate(hits):
            for q in hits[i + 1 :]:
                if (p[0] - q[0]) ** 2 + (p[1] - q[1]) ** 2 < MIN_GAP**2:
                    raise Reject("two wires meet a panel edge too close together")


def visible_pieces(scene: dict[str, Any]) -> list[list[QPoint]]:
    """The wires as a viewer sees them: maximal uncovered polylines, with wire identities dropped."""
    panels = panels_from_scene(scene)
    pieces: list[list[QPoint]] = []
    for w in scene["wires"]:
        pts = wire_points(w["rows"])
        cur: list[QPoint] = [pts[0]]
        for a, b in zip(pts, pts[1:], strict=False):
            if _panel_at(panels, _mid(a, b)) is None:
                if not cur:
                    cur = [a]
                cur.append(b)
            elif cur:
                if len(cur) > 1:
                    pieces.append(cur)
                cur = []
        if len(cur) > 1:
            pieces.append(cur)
    return sorted(pieces)


def trace(scene: dict[str, Any], pieces: list[list[QPoint]], start: QPoint) -> list[dict[str, Any]]:
    """Follow a wire from its end by the straight-under-panels rule; returns the passages in order.

    Each passage is {"points": visible polyline} or {"hidden": [entry, exit], "panel": index}.
    Rejects when a continuation is missing or not unique.
    """
    panels = panels_from_scene(scene)
    starts: dict[QPoint, list[list[QPoint]]] = {}
    for pc in pieces:
        starts.setdefault(pc[0], []).append(pc)
    out: list[dict[str, Any]] = []
    cur = starts.get(start, [])
    if len(cur) != 1:
        raise Reject("wire end is not uniquely visible")
    piece = cur[0]
    for _ in range(len(pieces) + 1):
        out.append({"points": [list(p) for p in piece]})
        end = piece[-1]
        if end[0] == scene["width"] * Q:
            return out
        d = (end[0] - piece[-2][0], end[1] - piece[-2][1])
        idx = next((i for i, pn in enumerate(panels) if pn.on_boundary(end)), None)
        if idx is None:
            raise Reject("a visible piece ends in the open")
        pn = panels[idx]
        q = (end[0] + d[0], end[1] + d[1])
        while not pn.on_boundary(q):
            if not pn.inside(q):
                raise Reject("straight continuation leaves the panel through nothing")
            q = (q[0] + d[0], q[1] + d[1])
        nxt = starts.get(q, [])
        if len(nxt) != 1:
            raise Reject("panel exit is not unique")
        piece = nxt[0]
        if (piece[1][0] - piece[0][0], piece[1][1] - piece[0][1]) != d:
            raise Reject("the wire leaving the panel does not continue the entering direction")
        out.append({"hidden": [list(end), list(q)], "panel": idx})
    raise Reject("trace does not terminate")


def _crossings(rows: list[list[int]]) -> list[tuple[int, int, int]]:
    """X crossings as (column, upper wire, lower wire): adjacent wires swapping rows between x and x + 1."""
    out = []
    for x in range(len(rows[0]) - 1):
        for i, a in enumerate(rows):
            for j, b in enumerate(rows):
                if b[x] == a[x] + 1 and a[x + 1] == b[x] and b[x + 1] == a[x]:
                    out.append((x, i, j))
    return out


def panel_ok(pn: Panel, wires: list[list[QPoint]], bends: list[QPoint], crossings: list[QPoint]) -> bool:
    """A panel is legal (no bend under it, nothing on its corners or edges that could mislead, wires meet
    its edges at least a grid unit apart) and meaningful (it hides a crossing and at least two wires)."""
    if any(pn.inside(b) for b in bends):
        return False
    if not any(pn.inside(c) for c in crossings) or any(pn.on_boundary(c) for c in crossings):
        return False
    hits: list[QPoint] = []
    under = 0
    for pts in wires:
        inside = False
        for p in pts:
            if pn.is_corner(p):
                return False
            if pn.on_boundary(p):
                hits.append(p)
            inside = inside or pn.inside(p)
        under += inside
    if under < 2:
        return False
    for i, p in enumerate(hits):
        for q in hits[i + 1 :]:
            if (p[0] - q[0]) ** 2 + (p[1] - q[1]) ** 2 < MIN_GAP**2:
                return False
    return True


def _run_has_inner_crossing(cur: list[int], combo: list[int], steps: int) -> bool:
    for k in range(1, steps - 1):
        prev = [y + d * k for y, d in zip(cur, combo, strict=True)]
        col = [y + d * (k + 1) for y, d in zip(cur, combo, strict=True)]
        for i in range(len(cur)):
            for j in range(i + 1, len(cur)):
                if abs(prev[i] - prev[j]) == 1 and prev[i] == col[j] and prev[j] == col[i]:
                    return True
    return False


def _end_point(passages: list[dict[str, Any]]) -> QPoint:
    return tuple(passages[-1]["points"][-1])  # type: ignore[return-value]


@register
class DefuseABomb(Task):
    name = "defuse_a_bomb"
    config_cls = DefuseConfig
    presets = {
        "easy": DefuseConfig(n_wires=3, width=12, height=6, n_panels=1, same_color=False),
        "medium": DefuseConfig(n_wires=4, width=14, height=7, n_panels=2, same_color=True),
        "hard": DefuseConfig(n_wires=6, width=16, height=9, n_panels=3, panel_max_w=3, same_color=True),
    }
    version = "3"
    # The step highlights one wire from its labelled end to the bomb: the picture shows which end leads there,
    # while the text follows "the traced wire" by coordinates and never writes its letter.
    final_state_shows = "the highlighted trace joining a labelled wire end to the detonator"
    description = "Wires cross and run straight under opaque panels; which labelled wire leads to the detonator."
    colour_pools = (WIRE_COLORS,)
    limits = {
        "n_wires": Limit(
            3,
            6,
            "wires, also the options: each can get its own one of 6 wire colours; with 2 the question is a coin toss",
        ),
        "width": Limit(5, 30, "columns: the board is drawn 618 px wide, 20 px a column at 30"),
        "height": Limit(
            5,
            12,
            "rows 0..height, drawn at the column spacing (up to 52 px): the picture is some 720 px "
            "tall at 12; below 5 the wires find no room to cross under a panel",
        ),
        "n_panels": Limit(1, 6, "opaque panels, each hiding a crossing (the answer wire crosses under one)"),
        "panel_max_w": Limit(
            2, 8, "panel width in grid units: at least 2 to hide a crossing; every wire runs straight across it"
        ),
        "panel_max_h": Limit(2, 12, "panel height in grid units: at least 2 to hide a crossing, at most the board's"),
        "keep_direction": Limit(0, 1, "a probability"),
        "cross_rate": Limit(0, 1, "a probability"),
    }

    def check_config(self, config: DefuseConfig) -> None:
        super().check_config(config)
        if config.height < config.n_wires + 1:
            raise ParameterError(
                f"parameters of task {self.name}: height ({config.height}) must be at least n_wires + "
                f"1 = {config.n_wires + 1} (the wires need a free row to swap places)"
            )
        # Measured: with panels at most 3 units wide and tall, or at most 3 tall on boards of fewer spare rows, no
        # scene is found in 2000 attempts.
        if config.panel_max_h < 4 and config.panel_max_w < 4:
            raise ParameterError(
                f"parameters of task {self.name}: panel_max_w ({config.panel_max_w}) or panel_max_h "
                f"({config.panel_max_h}) must be at least 4 (smaller panels find no crossing to hide "
                "that the wires leave cleanly)"
            )
        if config.panel_max_h < 4 and config.height < config.n_wires + 3:
            raise ParameterError(
                f"parameters of task {self.name}: with panel_max_h below 4, height ({config.height}) "
                f"must be at least n_wires + 3 = {config.n_wires + 3} (a low panel hides a crossing "
                "only with spare rows around it)"
            )
        need = config.n_panels * (config.panel_max_w + 2) + 1
        if config.width < need:
            raise ParameterError(
                f"parameters of task {self.name}: width ({config.width}) must be at least n_panels x "
                f"(panel_max_w + 2) + 1 = {need} (the panels' column bands fit side by side between "
                "the ends and the terminals)"
            )

    # -- sampling -----------------------------------------------------------------------------------

    def sample_scene(self, ctx: GenContext) -> dict[str, Any]:
        cfg: DefuseConfig = self.config
        rng = ctx.rng
        slot = ctx.balanced(cfg.n_wires)
        bands = self._sample_bands(rng)
        rows, qpanels = self._sample_wires(rng, bands)
        panels = [{"x0": p.x0 / Q, "y0": p.y0 / Q, "x1": p.x1 / Q, "y1": p.y1 / Q} for p in qpanels]
        # The answer wire crosses another wire under a panel; it gets the balanced letter, the others the rest.
        hidden = sorted(
            {
                k
                for x, i, j in _crossings(rows)
                if _panel_at(qpanels, (x * Q + Q // 2, (rows[i][x] + rows[j][x]) * Q / 2))
                for k in (i, j)
            }
        )
        answer = rng.choice(hidden)
        letters = option_letters(cfg.n_wires)
        rest = [lab for k, lab in enumerate(letters) if k != slot]
        rng.shuffle(rest)
        labels = [letters[slot] if i == answer else rest.pop() for i in range(cfg.n_wires)]
        colors = [SAME_COLOR] * cfg.n_wires if cfg.same_color else rng.sample(WIRE_COLORS, cfg.n_wires)
        wires = [{"label": labels[i], "color": colors[i], "rows": r} for i, r in enumerate(rows)]
        finals = sorted(r[-1] for r in rows)
        terminals = [{"number": i + 1, "row": y} for i, y in enumerate(finals)]
        detonator = finals.index(rows[answer][-1]) + 1
        scene = {
            "width": cfg.width,
            "height": cfg.height,
            "panels": panels,
            "wires": wires,
            "terminals": terminals,
            "detonator": detonator,
            "same_color": cfg.same_color,
        }
        check_geometry(scene)
        return scene

    def _sample_bands(self, rng: random.Random) -> list[tuple[int, int]]:
        """Column ranges (a, w) for the panels, a panel lying within x in [a + 0.5, a + w + 0.5]; bands are
        at least two columns apart. Drawn by splitting the spare columns at random."""
        cfg: DefuseConfig = self.config
        widths = [rng.randint(2, cfg.panel_max_w) for _ in range(cfg.n_panels)]
        # Columns 1 .. width-2 hold the bands; each band takes w + 1 columns plus a gap of 1 after it.
        spare = (cfg.width - 2) - sum(w + 2 for w in widths) + 1
        if spare < 0:
            raise Reject("panels do not fit side by side")
        cuts = sorted(rng.randint(0, spare) for _ in range(cfg.n_panels))
        bands, a, used = [], 1, 0
        for w, cut in zip(widths, cuts, strict=True):
            a += cut - used
            used = cut
            bands.append((a, w))
            a += w + 2
        return bands

    def _sample_wires(self, rng: random.Random, bands: list[tuple[int, int]]) -> tuple[list[list[int]], list[Panel]]:
        """Grow the wires with momentum; across a band every wire runs straight (so no bend can hide under
        the panel) and the straight run includes an X crossing that a legal panel can cover. The free
        stretch before a band is redrawn until that works."""
        cfg: DefuseConfig = self.config
        rows = [[y] for y in sorted(rng.sample(range(cfg.height + 1), cfg.n_wires))]
        dirs = [rng.choice((-1, 0, 1)) for _ in rows]
        panels: list[Panel] = []
        x = 0
        for a, w in [*bands, (cfg.width, 0)]:
            for _attempt in range(30):
                trial = [list(r) for r in rows]
                tdirs = self._free_stretch(rng, trial, dirs, a - x)
                if a == cfg.width:
                    break
                placed = self._straight_band(rng, trial, a, w)
                if placed is not None:
                    trial, tdirs, pn = placed
                    panels.append(pn)
                    break
            else:
                raise Reject("no straight run with a coverable crossing fits")
            rows, dirs = trial, tdirs
            x = a + w + 1
        return rows, panels

    def _free_stretch(self, rng: random.Random, rows: list[list[int]], dirs: list[int], n: int) -> list[int]:
        cfg: DefuseConfig = self.config
        for _ in range(n):
            cur = [r[-1] for r in rows]
            for _attempt in range(100):
                new_dirs = [d if rng.random() < cfg.keep_direction else rng.choice((-1, 0, 1)) for d in dirs]
                if rng.random() < cfg.cross_rate:
                    pairs = [(i, j) for i in range(len(cur)) for j in range(len(cur)) if cur[j] == cur[i] + 1]
                    if pairs:
                        i, j = rng.choice(pairs)
                        new_dirs[i], new_dirs[j] = 1, -1
                nxt = [y + d for y, d in zip(cur, new_dirs, strict=True)]
                if all(0 <= y <= cfg.height for y in nxt) and len(set(nxt)) == len(nxt):
                    break
            else:
                new_dirs = [0] * len(rows)
            for r, d in zip(rows, new_dirs, strict=True):
                r.append(r[-1] + d)
            dirs = new_dirs
        return dirs

    def _straight_band(
        self, rng: random.Random, rows: list[list[int]], a: int, w: int
    ) -> tuple[list[list[int]], list[int], Panel] | None:
        """Extend the wires straight over columns a .. a + w + 1 and pick a panel over that band."""
        cur = [r[-1] for r in rows]
        combos = self._straight_runs(cur, w + 1)
        rng.shuffle(combos)
        for combo in combos[:12]:
            trial = [r + [r[-1] + d * k for k in range(1, w + 2)] for r, d in zip(rows, combo, strict=True)]
            options = self._panel_options(trial, a, w)
            if options:
                return trial, combo, rng.choice(options)
        return None

    def _straight_runs(self, cur: list[int], steps: int) -> list[list[int]]:
        """All direction choices for a straight run of `steps` columns with no shared grid point and at
        least one X crossing away from the run's first and last column (found by backtracking)."""
        height = self.config.height
        order = sorted(range(len(cur)), key=lambda i: cur[i])
        out: list[list[int]] = []
        chosen: dict[int, int] = {}

        def clash(i: int, d: int) -> bool:
            for j, e in chosen.items():
                if any(cur[i] + d * k == cur[j] + e * k for k in range(1, steps + 1)):
                    return True
            return False

        def rec(pos: int) -> None:
            if pos == len(order):
                combo = [chosen[i] for i in range(len(cur))]
                if _run_has_inner_crossing(cur, combo, steps):
                    out.append(combo)
                return
            i = order[pos]
            for d in (-1, 0, 1):
                if 0 <= cur[i] + d * steps <= height and not clash(i, d):
                    chosen[i] = d
                    rec(pos + 1)
                    del chosen[i]

        rec(0)
        return out

    def _panel_options(self, rows: list[list[int]], a: int, w: int) -> list[Panel]:
        """Legal panels inside the band: no bend under them, each hides a crossing (see panel_ok)."""
        cfg: DefuseConfig = self.config
        wires = [wire_points(r) for r in rows]
        bends = [(x * Q, r[x] * Q) for r in rows for x in range(1, len(r) - 1) if r[x] - r[x - 1] != r[x + 1] - r[x]]
        crossings = [(x * Q + Q // 2, (rows[i][x] + rows[j][x]) * Q // 2) for x, i, j in _crossings(rows)]
        valid = []
        for a2 in range(a, a + w - 1):
            for w2 in range(2, a + w - a2 + 1):
                for h in range(2, min(cfg.panel_max_h, cfg.height - 1) + 1):
                    for c in range(0, cfg.height - h):
                        pn = Panel(a2 * Q + Q // 2, c * Q + Q // 2, (a2 + w2) * Q + Q // 2, (c + h) * Q + Q // 2)
                        if panel_ok(pn, wires, bends, crossings):
                            valid.append(pn)
        return valid

    # -- solving ------------------------------------------------------------------------------------

    def solve(self, scene: dict[str, Any]) -> Solution:
        check_geometry(scene)
        pieces = visible_pieces(scene)
        det_row = next(t["row"] for t in scene["terminals"] if t["number"] == scene["detonator"])
        traces = {}
        ends = set()
        for w in scene["wires"]:
            passages = trace(scene, pieces, (0, w["rows"][0] * Q))
            end = _end_point(passages)
            if end in ends:
                raise Reject("two traces reach the same terminal")
            ends.add(end)
            traces[w["label"]] = passages
        hits = [lab for lab, p in traces.items() if _end_point(p) == (scene["width"] * Q, det_row * Q)]
        if len(hits) != 1:
            raise Reject("detonator not reached by exactly one wire")
        label = hits[0]
        wire = next(w for w in scene["wires"] if w["label"] == label)
        if wire["rows"][-1] != det_row:
            raise Reject("evidence trace disagrees with the wire layout")
        return Solution(answer=label, states=[], details={"trace": traces[label]})

    def question(self, scene: dict[str, Any]) -> str:
        n = len(scene["wires"])
        labels = option_letters(n)
        color = "All wires have the same colour. " if scene["same_color"] else ""
        return (
            f"Wires start at the labelled ends {', '.join(labels[:-1])} and {labels[-1]} on the left and end "
            f"at the numbered terminals on the right; the terminal drawn as a red bomb is the detonator. "
            f"{color}Where two wires cross they pass straight over each other. The grey panels are opaque: "
            "under a panel every wire runs in a straight line, continuing in exactly the direction in which "
            "it entered the panel, until it leaves the panel. Which wire leads to the detonator? Answer with "
            f"the letter of its end ({', '.join(labels)})."
        )

    def options(self, scene: dict[str, Any]) -> list[str]:
        return option_letters(len(scene["wires"]))

    # -- rendering ----------------------------------------------------------------------------------

    def render(self, scene: dict[str, Any], solution: Solution) -> Rendering:
        image = self.render_input(scene, solution)
        step = _Board(scene)
        step.draw_wires(faded=True)
        step.draw_panels(opaque=False)
        step.draw_trace(solution.details["trace"], _wire(scene, solution.answer)["color"])
        step.draw_ends()
        return Rendering(image=image, steps=[(step.c.image(), _trace_text(scene, solution.details["trace"]))])

    def render_input(self, scene: dict[str, Any], solution: Solution) -> Image.Image:
        board = _Board(scene)
        board.draw_wires()
        board.draw_panels(opaque=True)
        board.draw_ends()
        return board.c.image()

    def corrupt(self, scene: dict[str, Any], solution: Solution, rng: random.Random) -> Corruption | None:
        """Another wire traced until it crosses the answer wire in the open, where the trace takes the crossing
        for a touch and carries on along the answer wire to the detonator; when the answer wire crosses no other
        wire in the open, the answer wire traced and turned off at one of its open crossings, away from the
        detonator, or failing that another wire turned off at an open crossing.

        Under every panel the corrupted trace still runs straight on in the direction it entered, as the
        question's rule says and a right trace does; what is misread is a visible crossing (its two wires taken
        as meeting and parting, not passing over each other). A scene without any crossing in the open has no
        corruption."""
        pieces = visible_pieces(scene)
        panels = panels_from_scene(scene)
        rows_of = {w["label"]: w["rows"] for w in scene["wires"]}
        # (traced wire, wire taken over, column): onto the answer wire, off it, or between two other wires.
        into, off, other_pairs = [], [], []
        for a, ra in rows_of.items():
            for b, rb in rows_of.items():
                for x in range(len(ra) - 1 if a != b else 0):
                    crossing = (x * Q + Q // 2, (ra[x] + ra[x + 1]) * Q // 2)
                    if (
                        ra[x] != ra[x + 1]
                        and (ra[x], ra[x + 1]) == (rb[x + 1], rb[x])
                        and _panel_at(panels, crossing) is None
                    ):
                        kind = into if b == solution.answer else off if a == solution.answer else other_pairs
                        kind.append((a, b, x))
        # Rejecting scenes without a crossing on the answer wire would make "the wire with an open crossing" a
        # cue to the answer, so a trace between two other wires stands in (it still ends away from the bomb).
        options = into or off or other_pairs
        if not options:
            return None
        label, other, x = rng.choice(options)
        crossing = (x * Q + Q // 2, (rows_of[label][x] + rows_of[label][x + 1]) * Q // 2)
        mine = trace(scene, pieces, (0, rows_of[label][0] * Q))
        theirs = trace(scene, pieces, (0, rows_of[other][0] * Q))
        last_mine = [x * Q, rows_of[label][x] * Q]
        first_theirs = [(x + 1) * Q, rows_of[other][x + 1] * Q]
        i = next(k for k, p in enumerate(mine) if last_mine in p.get("points", []))
        j = next(k for k, p in enumerate(theirs) if first_theirs in p.get("points", []))
        before, after = mine[i]["points"], theirs[j]["points"]
        joined = before[: before.index(last_mine) + 1] + [list(crossing)] + after[after.index(first_theirs) :]
        fake = mine[:i] + [{"points": joined}] + theirs[j + 1 :]

        def draw() -> list[tuple[Image.Image, str]]:
            board = _Board(scene)
            board.draw_wires(faded=True)
            board.draw_panels(opaque=False)
            board.draw_trace(fake, _wire(scene, label)["color"])
            board.draw_ends()
            return [(board.c.image(), _trace_text(scene, fake))]

        misread, implied = self._touch_misread(scene, label, other, x)
        return Corruption(
            steps=draw,
            description=f"the trace of wire {label} takes its crossing with wire {other} at "
            f"{_fmt(crossing)} for a touch and follows wire {other}",
            answer=implied,
            scene=misread,
        )

    def _touch_misread(
        self, scene: dict[str, Any], label: str, other: str, x: int
    ) -> tuple[dict[str, Any] | None, str | None]:
        """The scene as read with the crossing of wires `label` and `other` between columns x and x + 1 taken for a
        touch, and the wire that then leads to the detonator; (None, None) if the solver refuses that scene.

        A touch sends each wire on along the other's continuation, so from column x + 1 on the two wires trade
        rows: wire `label` then runs where the corrupted trace runs. Read consistently, the detonator's wire is
        `label` when `other` led there, `other` when `label` did, and the answer unchanged when neither did (the
        trace of a third wire ends away from the bomb, which is true). The swapped rows share no grid point and
        make no new crossing, and the crossing lies in the open, so the solver is expected to accept the scene;
        should it not, the answer is left unsaid rather than guessed."""
        rows_of = {w["label"]: w["rows"] for w in scene["wires"]}
        ra, rb = rows_of[label], rows_of[other]
        swapped = {label: ra[: x + 1] + rb[x + 1 :], other: rb[: x + 1] + ra[x + 1 :]}
        misread = {**scene, "wires": [{**w, "rows": list(swapped.get(w["label"], w["rows"]))} for w in scene["wires"]]}
        try:
            return misread, self.solve(misread).answer
        except Reject:
            return None, None


def _wire(scene: dict[str, Any], label: str) -> dict[str, Any]:
    return next(w for w in scene["wires"] if w["label"] == label)


def _fmt(p: QPoint | list[int]) -> str:
    def g(v: int) -> str:
        s = f"{v / Q:.2f}".rstrip("0").rstrip(".")
        return s

    return f"({g(p[0])}, {g(p[1])})"


def _trace_text(scene: dict[str, Any], passages: list[dict[str, Any]]) -> str:
    """Words for the drawn trace: start, each panel passage with heading, terminal.

    The wire is named by where its end lies, not by its letter: the letter of the wire traced to the bomb is
    the answer, and the picture (which shows the labels) is where it can be looked up."""
    start = passages[0]["points"][0]
    parts = [f"The highlighted wire starts at the wire end at {_fmt(start)}"]
    for k, p in enumerate(passages):
        if "hidden" in p:
            before = passages[k - 1]["points"]
            dy = before[-1][1] - before[-2][1]
            heading = HEADINGS[(dy > 0) - (dy < 0)]
            parts.append(
                f"enters panel {p['panel'] + 1} at {_fmt(p['hidden'][0])} heading {heading}, runs under "
                f"it (dashed) and leaves it at {_fmt(p['hidden'][1])}"
            )
    end = passages[-1]["points"][-1]
    row = end[1] // Q
    number = next(t["number"] for t in scene["terminals"] if t["row"] == row)
    det = "the detonator" if number == scene["detonator"] else "not the detonator"
    return (
        "; ".join(parts) + f"; it ends at terminal {number} at {_fmt(end)}, which is {det}. Coordinates are "
        "grid units: x counted from the left ends (x = 0), y counted downward from the top row (y = 0)."
    )


class _Board:
    """Pixel layout of one board picture."""

    def __init__(self, scene: dict[str, Any]) -> None:
        self.scene = scene
        self.unit = min(52.0, (768 - 150) / scene["width"])
        self.left, self.top = 75.0, 55.0
        width = int(self.left * 2 + self.unit * scene["width"])
        height = int(self.top + 45 + self.unit * scene["height"])
        self.c = Canvas(width, height, background=(250, 248, 240))
        for x in range(scene["width"] + 1):
            for y in range(scene["height"] + 1):
                self.c.circle(self.px((x * Q, y * Q)), 1.6, fill="lightgray", outline=None)

    def px(self, p: tuple[float, float]) -> tuple[float, float]:
        return (self.left + p[0] / Q * self.unit, self.top + p[1] / Q * self.unit)

    def draw_wires(self, faded: bool = False) -> None:
        for w in self.scene["wires"]:
            pts = [self.px((x * Q, y * Q)) for x, y in enumerate(w["rows"])]
            self.c.line(pts, w["color"], 5, opacity=70 if faded else 255)

    def draw_panels(self, opaque: bool) -> None:
        for i, p in enumerate(self.scene["panels"]):
            (x0, y0), (x1, y1) = self.px((p["x0"] * Q, p["y0"] * Q)), self.px((p["x1"] * Q, p["y1"] * Q))
            self.c.rect(
                (x0, y0, x1, y1),
                fill=(150, 150, 150),
                outline=(90, 90, 90),
                width=2,
                fill_opacity=255 if opaque else 110,
            )
            self.c.text((x0 + 5, y0 + 3), f"P{i + 1}", size=16, color="white" if opaque else "darkgray", bold=True)

    def draw_ends(self) -> None:
        s = self.scene
        for w in s["wires"]:
            x, y = self.px((0, w["rows"][0] * Q))
            self.c.circle((x, y), 6, fill=w["color"], outline="black")
            self.c.text((x - 14, y), w["label"], size=20, anchor="rm", bold=True)
        for t in s["terminals"]:
            x, y = self.px((s["width"] * Q, t["row"] * Q))
            if t["number"] == s["detonator"]:
                self.c.line([(x + 10, y - 10), (x + 16, y - 19)], "black", 3)
                self.c.circle((x + 18, y - 21), 4, fill="orange", outline=None)
                self.c.circle((x, y), 13, fill="red", outline="black", width=2)
            else:
                self.c.rect((x - 8, y - 8, x + 8, y + 8), fill="lightgray", outline="black")
            self.c.text((x + 26, y), str(t["number"]), size=18, anchor="lm", bold=True)
        self.c.text((self.c.width / 2, 10), "red bomb = detonator", size=16, anchor="mt", color="darkgray")

    def draw_trace(self, passages: list[dict[str, Any]], color: str) -> None:
        for p in passages:
            if "hidden" in p:
                a, b = (self.px(tuple(q)) for q in p["hidden"])
                self.c.line([a, b], "yellow", 12)
                self.c.line([a, b], color, 5, dash=(10, 7))
            else:
                pts = [self.px(tuple(q)) for q in p["points"]]
                self.c.line(pts, "yellow", 13)
                self.c.line(pts, color, 6)
