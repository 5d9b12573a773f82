"""Polyomino toolkit shared by the tiling tasks (localizer, multi_piece_puzzle).

Cells are integer pairs (x, y) with y pointing UP (mathematical orientation); renderers flip y for the
screen. A transform id k in 0..7 means: mirror x -> -x first when k >= 4, then rotate k % 4 quarter-turns
counter-clockwise. Which ids a puzzle allows is its *rule*:

- "translate": k = 0 only (pieces keep the drawn orientation);
- "rotate": k in 0..3;
- "rotate_flip": k in 0..7 (the full symmetry group of the square).

Exact cover uses Knuth's Algorithm X on dicts of sets (rows and columns are ints, so the search order —
and hence which solution comes first — never depends on Python's string hash seed).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from vcot.draw.canvas import Canvas
from vcot.tasks.base import Reject

Cell = tuple[int, int]

RULES = ("translate", "rotate", "rotate_flip")
RULE_TRANSFORMS: dict[str, tuple[int, ...]] = {
    "translate": (0,),
    "rotate": (0, 1, 2, 3),
    "rotate_flip": tuple(range(8)),
}
RULE_TEXT = {
    "translate": "Pieces may only be slid into place: they may NOT be rotated or flipped (mirrored)",
    "rotate": "Pieces may be slid and rotated by multiples of 90 degrees, but NOT flipped (mirrored)",
    "rotate_flip": "Pieces may be slid, rotated by multiples of 90 degrees and flipped (mirrored)",
}

PIECE_COLORS: tuple[tuple[str, tuple[int, int, int]], ...] = (
    ("red", (238, 120, 120)),
    ("blue", (120, 160, 235)),
    ("green", (120, 200, 130)),
    ("orange", (247, 180, 90)),
    ("purple", (180, 140, 215)),
    ("cyan", (110, 205, 215)),
    ("pink", (240, 160, 205)),
    ("yellow", (240, 220, 100)),
)
PIECE_RGB = dict(PIECE_COLORS)  # the fill of each colour name a scene stores


# -- transforms ----------------------------------------------------------------------------------------


def transform_cell(cell: Cell, k: int) -> Cell:
    x, y = cell
    if k >= 4:
        x = -x
    for _ in range(k % 4):
        x, y = -y, x
    return (x, y)


def normalize(cells: Iterable[Cell]) -> tuple[Cell, ...]:
    """Translate so that the minimum x and y are 0; sorted, hashable."""
    cells = list(cells)
    mx = min(c[0] for c in cells)
    my = min(c[1] for c in cells)
    return tuple(sorted((x - mx, y - my) for x, y in cells))


def transform(cells: Sequence[Cell], k: int, marks: Sequence[Cell] = ()) -> tuple[tuple[Cell, ...], tuple[Cell, ...]]:
    """Apply transform k to a piece and its marked cells (circles), shifting both by the same offset."""
    moved = [transform_cell(c, k) for c in cells]
    moved_marks = [transform_cell(c, k) for c in marks]
    mx = min(c[0] for c in moved)
    my = min(c[1] for c in moved)
    return (tuple(sorted((x - mx, y - my) for x, y in moved)), tuple(sorted((x - mx, y - my) for x, y in moved_marks)))


@dataclass(frozen=True)
class Orientation:
    k: int
    cells: tuple[Cell, ...]
    marks: tuple[Cell, ...]


def orientations(cells: Sequence[Cell], rule: str, marks: Sequence[Cell] = ()) -> list[Orientation]:
    """Distinct orientations under the rule. Two orientations with the same cells but different marks are
    distinct (a symmetric piece turned over moves its circle), so they count as different placements."""
    seen: set[tuple[tuple[Cell, ...], tuple[Cell, ...]]] = set()
    out = []
    for k in RULE_TRANSFORMS[rule]:
        c, m = transform(cells, k, marks)
        if (c, m) not in seen:
            seen.add((c, m))
            out.append(Orientation(k, c, m))
    return out


def canonical(cells: Sequence[Cell], rule: str = "rotate_flip") -> tuple[Cell, ...]:
    """A representative of the piece's congruence class under the rule."""
    return min(transform(cells, k)[0] for k in RULE_TRANSFORMS[rule])


def congruent(a: Sequence[Cell], b: Sequence[Cell], rule: str = "rotate_flip") -> bool:
    return len(a) == len(b) and canonical(a, rule) == canonical(b, rule)


def neighbours(cell: Cell) -> tuple[Cell, ...]:
    x, y = cell
    return ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1))


def is_connected(cells: Iterable[Cell]) -> bool:
    cells = set(cells)
    if not cells:
        return False
    start = next(iter(cells))
    seen = {start}
    todo = [start]
    while todo:
        for n in neighbours(todo.pop()):
            if n in cells and n not in seen:
                seen.add(n)
                todo.append(n)
    return len(seen) == len(cells)


def has_hole(cells: Iterable[Cell]) -> bool:
    """True when some empty cell inside the bounding box cannot reach the outside."""
    cells = set(cells)
    xs = [c[0] for c in cells]
    ys = [c[1] for c in cells]
    x0, x1, y0, y1 = min(xs) - 1, max(xs) + 1, min(ys) - 1, max(ys) + 1
    outside = {(x0, y0)}
    todo = [(x0, y0)]
    while todo:
        for n in neighbours(todo.pop()):
            if x0 <= n[0] <= x1 and y0 <= n[1] <= y1 and n not in cells and n not in outside:
                outside.add(n)
                todo.append(n)
    return len(outside) + len(cells) < (x1 - x0 + 1) * (y1 - y0 + 1)


# -- exact cover ---------------------------------------------------------------------------------------


def exact_cover(n_columns: int, rows: Sequence[Sequence[int]], limit: int = 2) -> list[list[int]]:
    """Up to `limit` exact covers of columns 0..n_columns-1 by the given rows (each a list of column ids).

    Returns lists of row indices. Knuth's Algorithm X, choosing the column with fewest candidates.
    """
    X: dict[int, set[int]] = {j: set() for j in range(n_columns)}
    for i, row in enumerate(rows):
        for j in row:
            X[j].add(i)
    out: list[list[int]] = []
    for sol in _search(X, rows, []):
        out.append(sorted(sol))
        if len(out) >= limit:
            break
    return out


def _search(X: dict[int, set[int]], Y: Sequence[Sequence[int]], partial: list[int]) -> Iterator[list[int]]:
    if not X:
        yield list(partial)
        return
    col = min(X, key=lambda j: len(X[j]))
    for r in sorted(X[col]):
        partial.append(r)
        removed = _select(X, Y, r)
        yield from _search(X, Y, partial)
        _deselect(X, Y, r, removed)
        partial.pop()


def _select(X: dict[int, set[int]], Y: Sequence[Sequence[int]], r: int) -> list[set[int]]:
    removed = []
    for j in Y[r]:
        for i in X[j]:
            for k in Y[i]:
                if k != j:
                    X[k].remove(i)
        removed.append(X.pop(j))
    return removed


def _deselect(X: dict[int, set[int]], Y: Sequence[Sequence[int]], r: int, removed: list[set[int]]) -> None:
    for j in reversed(Y[r]):
        X[j] = removed.pop()
        for i in X[j]:
            for k in Y[i]:
                if k != j:
                    X[k].add(i)


# -- tiling --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Placement:
    """Piece `piece` put down with transform k and offset (dx, dy): absolute cells and marks."""

    piece: int
    k: int
    offset: Cell
    cells: tuple[Cell, ...]
    marks: tuple[Cell, ...]

    def to_json(self) -> dict:
        return {
            "piece": self.piece,
            "k": self.k,
            "offset": list(self.offset),
            "cells": [list(c) for c in self.cells],
            "marks": [list(c) for c in self.marks],
        }


def placements(
    piece: int, cells: Sequence[Cell], marks: Sequence[Cell], target: set[Cell], rule: str
) -> list[Placement]:
    """Every way to put the piece inside the target under the rule."""
    xs = [c[0] for c in target]
    ys = [c[1] for c in target]
    out = []
    for o in orientations(cells, rule, marks):
        w = max(c[0] for c in o.cells)
        h = max(c[1] for c in o.cells)
        for dx in range(min(xs), max(xs) - w + 1):
            for dy in range(min(ys), max(ys) - h + 1):
                placed = tuple((x + dx, y + dy) for x, y in o.cells)
                if all(c in target for c in placed):
                    out.append(Placement(piece, o.k, (dx, dy), placed, tuple((x + dx, y + dy) for x, y in o.marks)))
    return out


def tilings(
    target: Iterable[Cell], pieces: Sequence[tuple[Sequence[Cell], Sequence[Cell]]], rule: str, limit: int = 2
) -> list[list[Placement]]:
    """Up to `limit` tilings of the target using every piece exactly once; pieces are (cells, marks)."""
    target = set(target)
    if sum(len(c) for c, _ in pieces) != len(target):
        return []
    index = {c: i for i, c in enumerate(sorted(target))}
    n_cells = len(index)
    rows: list[list[int]] = []
    plist: list[Placement] = []
    for p, (cells, marks) in enumerate(pieces):
        for pl in placements(p, cells, marks, target, rule):
            rows.append([n_cells + p] + [index[c] for c in pl.cells])
            plist.append(pl)
    sols = exact_cover(n_cells + len(pieces), rows, limit)
    return [sorted((plist[r] for r in sol), key=lambda pl: pl.piece) for sol in sols]


def shape_tilings(
    target: Iterable[Cell], shapes: Sequence[Sequence[Cell]], rule: str, limit: int = 10**6
) -> list[list[Placement]]:
    """Tilings of the target by any number of copies of the shapes (no piece-use columns)."""
    target = set(target)
    index = {c: i for i, c in enumerate(sorted(target))}
    rows: list[list[int]] = []
    plist: list[Placement] = []
    for p, cells in enumerate(shapes):
        for pl in placements(p, cells, (), target, rule):
            rows.append([index[c] for c in pl.cells])
            plist.append(pl)
    return [[plist[r] for r in sol] for sol in exact_cover(len(index), rows, limit)]


# -- random shapes -------------------------------------------------------------------------------------


def random_region(rng: random.Random, n: int, max_w: int, max_h: int, tries: int = 20) -> list[Cell] | None:
    """A compact, hole-free polyomino of n cells inside a max_w x max_h box (None if growth fails)."""
    for _ in range(tries):
        start = (rng.randrange(max_w), rng.randrange(max_h))
        cells = {start}
        while len(cells) < n:
            frontier: dict[Cell, int] = {}
            for c in cells:
                for nb in neighbours(c):
                    if nb not in cells and 0 <= nb[0] < max_w and 0 <= nb[1] < max_h:
                        frontier[nb] = frontier.get(nb, 0) + 1
            if not frontier:
                break
            options = sorted(frontier)
            # Weight by shared edges, squared: compact blobs with an occasional arm.
            weights = [frontier[c] ** 2 for c in options]
            cells.add(rng.choices(options, weights)[0])
        if len(cells) == n and not has_hole(cells):
            return list(normalize(cells))
    return None


def random_sizes(rng: random.Random, total: int, n: int, lo: int, hi: int, tries: int = 50) -> list[int] | None:
    """n sizes in [lo, hi] summing to total, or None."""
    if not n * lo <= total <= n * hi:
        return None
    for _ in range(tries):
        sizes = [rng.randint(lo, hi) for _ in range(n - 1)]
        last = total - sum(sizes)
        if lo <= last <= hi:
            sizes.append(last)
            rng.shuffle(sizes)
            return sizes
    return None


class TargetConfig(Protocol):
    """The target-region fields shared by the localizer and multi-piece configs."""

    irregular: bool
    min_cells: int
    max_cells: int
    max_w: int
    max_h: int
    min_piece: int
    max_piece: int


def rect_options(cfg: TargetConfig) -> list[tuple[int, int]]:
    """Rectangle sizes (w, h) allowed for a full-rectangle target."""
    return [
        (w, h)
        for w in range(2, cfg.max_w + 1)
        for h in range(2, cfg.max_h + 1)
        if cfg.min_cells <= w * h <= cfg.max_cells
    ]


def target_areas(cfg: TargetConfig, n_pieces: int) -> list[int]:
    """Target areas that n pieces of the allowed sizes can fill."""
    areas = (
        sorted({w * h for w, h in rect_options(cfg)})
        if not cfg.irregular
        else list(range(cfg.min_cells, cfg.max_cells + 1))
    )
    return [a for a in areas if n_pieces * cfg.min_piece <= a <= n_pieces * cfg.max_piece]


def fitting_areas(cfg: TargetConfig, n_pieces: int) -> list[int]:
    """The `target_areas` a target can actually take: an irregular target must leave a cell of its box free
    (one filling the box is a rectangle)."""
    return [a for a in target_areas(cfg, n_pieces) if not cfg.irregular or a < cfg.max_w * cfg.max_h]


def sample_target(rng: random.Random, cfg: TargetConfig, area: int) -> list[Cell]:
    """A target of `area` cells: a rectangle, or an irregular connected region that is not one."""
    if not cfg.irregular:
        w, h = rng.choice([(w, h) for w, h in rect_options(cfg) if w * h == area])
        return [(x, y) for x in range(w) for y in range(h)]
    region = random_region(rng, area, cfg.max_w, cfg.max_h)
    if region is None:
        raise Reject("region growth failed")
    if len({c[0] for c in region}) * len({c[1] for c in region}) == len(region):
        raise Reject("irregular target came out rectangular")
    return list(normalize(region))


def piece_sizes(rng: random.Random, cfg: TargetConfig, n_pieces: int) -> list[int]:
    """Sizes of n_pieces pieces of the allowed sizes that together fill a target area drawn from the possible
    ones; Reject when no area fits (a task with a fixed piece count checks `target_areas` up front)."""
    areas = target_areas(cfg, n_pieces)
    if not areas:
        raise Reject(f"no target area fits {n_pieces} pieces")
    sizes = random_sizes(rng, rng.choice(areas), n_pieces, cfg.min_piece, cfg.max_piece, tries=200)
    if sizes is None:
        raise Reject("no piece sizes fit the target area")
    return sizes


# Whether a cut of the target (region, pieces) is worth building a scene on, beyond its pieces differing.
CutCheck = Callable[[list[Cell], list[list[Cell]]], bool]


def sample_cut_target(
    rng: random.Random, cfg: TargetConfig, n_pieces: int, accept: CutCheck = lambda region, parts: True, tries: int = 40
) -> tuple[list[Cell], list[list[Cell]]]:
    """A target region and its cut into n_pieces pairwise non-congruent pieces (a congruent pair would make
    two tilings, or two answers, trivially equal) that `accept` approves; Reject when none is found.

    The same region is cut again up to `tries` times: that is cheap and far likelier to succeed than drawing
    a new region."""
    sizes = piece_sizes(rng, cfg, n_pieces)
    region = sample_target(rng, cfg, sum(sizes))
    for _ in range(tries):
        rng.shuffle(sizes)
        cut = random_partition(rng, region, sizes)
        if cut is None or any(congruent(a, b) for i, a in enumerate(cut) for b in cut[i + 1 :]):
            continue
        if accept(region, cut):
            return region, cut
    raise Reject("no acceptable cut of the target into pairwise non-congruent pieces found")


def target_frame(region: Iterable[Cell]) -> dict[str, Any]:
    """The scene fields of a target region: the width and height of its grid and its cells, all 1-based."""
    region = list(region)
    return {
        "width": max(c[0] for c in region) + 1,
        "height": max(c[1] for c in region) + 1,
        "target": [[x + 1, y + 1] for x, y in sorted(region)],
    }


def shown_turned(
    rng: random.Random, cells: Sequence[Cell], rule: str, marks: Sequence[Cell] = ()
) -> tuple[tuple[Cell, ...], tuple[Cell, ...]]:
    """A piece (and its marks) as drawn for the question: turned by a transform the rule allows other than
    the identity, when it allows one, so that no piece is shown already in its place."""
    k_choices = [k for k in RULE_TRANSFORMS[rule] if k != 0] or [0]
    return transform(cells, rng.choice(k_choices), marks)


def random_partition(rng: random.Random, region: Iterable[Cell], sizes: Sequence[int]) -> list[list[Cell]] | None:
    """Split the region into connected pieces with the given sizes (None when growth gets stuck).

    Each piece starts at the free cell with the fewest free neighbours (corners and dead ends first), which
    keeps the leftover region from fragmenting."""
    free = set(region)
    pieces: list[list[Cell]] = []
    for size in sizes:
        degree = {c: sum(nb in free for nb in neighbours(c)) for c in sorted(free)}
        low = min(degree.values())
        start = rng.choice([c for c, d in degree.items() if d == low])
        piece = {start}
        free.discard(start)
        while len(piece) < size:
            frontier = sorted({nb for c in piece for nb in neighbours(c) if nb in free})
            if not frontier:
                return None
            nxt = rng.choice(frontier)
            piece.add(nxt)
            free.discard(nxt)
        pieces.append(sorted(piece))
    if free:
        return None
    return pieces


def mutate_piece(rng: random.Random, cells: Sequence[Cell], tries: int = 30) -> list[Cell] | None:
    """Move one cell of the piece to another free neighbour position, keeping it connected (same area)."""
    cells = list(cells)
    for _ in range(tries):
        drop = rng.choice(cells)
        rest = [c for c in cells if c != drop]
        if not is_connected(rest):
            continue
        spots = sorted({nb for c in rest for nb in neighbours(c) if nb not in rest and nb != drop})
        if not spots:
            continue
        new = list(normalize(rest + [rng.choice(spots)]))
        if not congruent(new, cells):
            return new
    return None


# Free polyominoes (distinct under rotation and reflection) with 1..8 cells.
FREE_POLYOMINOES = {1: 1, 2: 1, 3: 2, 4: 5, 5: 12, 6: 35, 7: 108, 8: 369}


def min_distinct_area(n: int, lo: int, hi: int) -> int | None:
    """The smallest total area of n pairwise non-congruent polyominoes of lo..hi cells each (None if there
    are not n such shapes): a cut of a target into n pieces is impossible below it."""
    area = 0
    for size in range(lo, hi + 1):
        take = min(n, FREE_POLYOMINOES.get(size, n))
        area += take * size
        n -= take
        if n == 0:
            return area
    return None


# -- text helpers --------------------------------------------------------------------------------------


def fmt_cells(cells: Iterable[Cell]) -> str:
    return ", ".join(f"({x}, {y})" for x, y in sorted(cells))


def tiling_map(
    width: int, height: int, target: Iterable[Cell], placed: Sequence[tuple[str, Placement]]
) -> tuple[str, str]:
    """The placed pieces as a text map of the 1-based width x height grid, top row first — what a picture of
    them on the grid shows, cell by cell, without writing any cell's coordinates: (legend, rows).

    Each cell holds the label of the piece on it (labels joined by '+' where pieces overlap) with '*' where
    a circle lies; '_' is a target cell left uncovered, '.' an empty cell outside the target, and a piece
    cell outside the target is put in brackets. The legend names only the symbols that occur."""
    target = set(target)
    on: dict[Cell, list[str]] = {}
    marked: set[Cell] = set()
    for label, pl in placed:
        for c in pl.cells:
            on.setdefault(c, []).append(label)
        marked.update(pl.marks)
    used: set[str] = set()
    rows = []
    for y in range(height, 0, -1):
        cells = []
        for x in range(1, width + 1):
            c = (x, y)
            if c in on:
                sym = "+".join(on[c]) + ("*" if c in marked else "")
                if len(on[c]) > 1:
                    used.add("+")
                if c in marked:
                    used.add("*")
                if c not in target:
                    sym = f"[{sym}]"
                    used.add("[]")
            else:
                sym = "_" if c in target else "."
                used.add(sym)
            cells.append(sym)
        rows.append(f"y = {y}: " + " ".join(cells))
    meaning = {
        "*": "* marks a circle",
        "+": "+ joins pieces overlapping on one cell",
        "_": "_ is a target cell left uncovered",
        "[]": "brackets mark piece cells outside the target",
        ".": ". is an empty cell outside the target",
    }
    legend = ", ".join(meaning[s] for s in ("*", "+", "_", "[]", ".") if s in used)
    return legend, "; ".join(rows)


def transform_words(k: int) -> str:
    turn = {
        0: "",
        1: "rotated 90 degrees counter-clockwise",
        2: "rotated 180 degrees",
        3: "rotated 90 degrees clockwise",
    }[k % 4]
    if k >= 4:
        return "flipped left-right" + (f", then {turn}" if turn else "")
    return turn or "not rotated"


# -- drawing -------------------------------------------------------------------------------------------


def cell_box(cell: Cell, origin: tuple[float, float], cs: float) -> tuple[float, float, float, float]:
    """Screen box of a y-up cell; origin is the screen point of the lower-left corner of cell (0, 0)."""
    x, y = cell
    ox, oy = origin
    return (ox + x * cs, oy - (y + 1) * cs, ox + (x + 1) * cs, oy - y * cs)


def cell_sides(cell: Cell, origin: tuple[float, float], cs: float) -> dict[Cell, list[tuple[float, float]]]:
    """The four screen edges of a y-up cell (top, bottom, left, right), each keyed by the neighbouring cell
    on its other side, so a piece's outline is the edges whose neighbour is not in the piece."""
    x0, y0, x1, y1 = cell_box(cell, origin, cs)
    x, y = cell
    return {
        (x, y + 1): [(x0, y0), (x1, y0)],
        (x, y - 1): [(x0, y1), (x1, y1)],
        (x - 1, y): [(x0, y0), (x0, y1)],
        (x + 1, y): [(x1, y0), (x1, y1)],
    }


def draw_piece(
    canvas: Canvas,
    cells: Iterable[Cell],
    origin: tuple[float, float],
    cs: float,
    fill: tuple[int, int, int] | str,
    marks: Iterable[Cell] = (),
    opacity: int = 255,
    outline: str = "black",
    outline_width: float = 3.0,
    dash: tuple[float, float] | None = None,
) -> None:
    """Filled cells with thin inner grid lines, a thick outer boundary and black circles on marked cells."""
    cells = set(cells)
    for c in sorted(cells):
        canvas.rect(cell_box(c, origin, cs), fill=fill, outline=None, fill_opacity=opacity)
    for c in sorted(cells):
        for nb, seg in cell_sides(c, origin, cs).items():
            if nb in cells:
                canvas.line(seg, color="darkgray", width=1.0)
            else:
                canvas.line(seg, color=outline, width=outline_width, dash=dash)
    draw_marks(canvas, marks, origin, cs)


def draw_marks(canvas: Canvas, marks: Iterable[Cell], origin: tuple[float, float], cs: float) -> None:
    for m in sorted(marks):
        x0, y0, x1, y1 = cell_box(m, origin, cs)
        canvas.circle(((x0 + x1) / 2, (y0 + y1) / 2), cs * 0.27, fill="black", outline="white", width=2.0)


def draw_target_grid(
    canvas: Canvas,
    target: Iterable[Cell],
    width: int,
    height: int,
    origin: tuple[float, float],
    cs: float,
    shade: bool = True,
) -> None:
    """The W x H frame with 1-based axis numbers (x along the bottom, y up the left) and the target cells
    shaded with a thick outline. Target cells are 1-based; origin is the lower-left corner of the frame."""
    ox, oy = origin
    shifted = {(x - 1, y - 1) for x, y in target}
    for x in range(width):
        for y in range(height):
            box = cell_box((x, y), origin, cs)
            canvas.rect(
                box,
                fill=(205, 205, 205) if (shade and (x, y) in shifted) else "white",
                outline=(190, 190, 190),
                width=1.0,
            )
    draw_outline(canvas, shifted, origin, cs)
    for x in range(width):
        canvas.text((ox + (x + 0.5) * cs, oy + 8), str(x + 1), size=18, anchor="mt")
    for y in range(height):
        canvas.text((ox - 10, oy - (y + 0.5) * cs), str(y + 1), size=18, anchor="rm")
    canvas.text((ox + width * cs + 6, oy + 8), "x", size=18, anchor="lt", bold=True)
    canvas.text((ox - 10, oy - height * cs - 6), "y", size=18, anchor="rb", bold=True)


def draw_outline(
    canvas: Canvas, cells: set[Cell], origin: tuple[float, float], cs: float, color: str = "black", width: float = 4.0
) -> None:
    for c in sorted(cells):
        for nb, seg in cell_sides(c, origin, cs).items():
            if nb not in cells:
                canvas.line(seg, color=color, width=width)


def shelf_layout(
    sizes: Sequence[tuple[int, int]], cs: float, panel_w: float, gap: float, label_h: float
) -> tuple[list[tuple[float, float]], float]:
    """Left-to-right rows of piece boxes (w, h in cells); returns top-left corners and the total height."""
    pos = []
    x = y = 0.0
    row_h = 0.0
    for w, h in sizes:
        bw, bh = w * cs, h * cs + label_h
        if x > 0 and x + bw > panel_w:
            x = 0.0
            y += row_h + gap
            row_h = 0.0
        pos.append((x, y))
        x += bw + gap
        row_h = max(row_h, bh)
    return pos, y + row_h


# -- board layout shared by the tiling tasks ---------------------------------------------------------

BOARD_CS = 48  # pixels per cell, same for the target and the pieces so shapes can be matched by eye
PANEL_W = 430
LABEL_H = 28
BOARD_TOP = 72


@dataclass(frozen=True)
class DrawnPiece:
    label: str
    cells: tuple[Cell, ...]
    marks: tuple[Cell, ...]
    fill: tuple[int, int, int]


@dataclass(frozen=True)
class BoardLayout:
    width: int
    height: int
    grid_w: int
    grid_h: int
    panel_x: float
    origin: tuple[float, float]  # screen point of the lower-left corner of target cell (1, 1)
    slots: tuple[tuple[float, float], ...]  # top-left corner of each piece slot
    sizes: tuple[tuple[int, int], ...]


def board_layout(grid_w: int, grid_h: int, pieces: Sequence[DrawnPiece]) -> BoardLayout:
    cs = BOARD_CS
    sizes = tuple((max(c[0] for c in p.cells) + 1, max(c[1] for c in p.cells) + 1) for p in pieces)
    pos, panel_h = shelf_layout(sizes, cs, PANEL_W, 24, LABEL_H)
    panel_x = 56 + grid_w * cs + 70
    height = int(BOARD_TOP + max(grid_h * cs + 40, panel_h) + 24)
    return BoardLayout(
        width=int(panel_x + PANEL_W + 20),
        height=max(height, 300),
        grid_w=grid_w,
        grid_h=grid_h,
        panel_x=panel_x,
        origin=(56.0, float(BOARD_TOP + grid_h * cs)),
        slots=tuple((panel_x + x, BOARD_TOP + y) for x, y in pos),
        sizes=sizes,
    )


def draw_board(
    lay: BoardLayout,
    target: Iterable[Cell],
    pieces: Sequence[DrawnPiece],
    left_title: str,
    right_title: str,
    faded: Iterable[int] = (),
) -> Canvas:
    """Target grid on the left (1-based cells, y up, numbered axes) and the labelled pieces on the right;
    pieces whose index is in `faded` are drawn washed out (used to show which ones were not chosen)."""
    cs = BOARD_CS
    faded = set(faded)
    cv = Canvas(lay.width, lay.height)
    cv.text((20, 14), left_title, size=20, bold=True)
    cv.text((lay.panel_x, 14), right_title, size=20, bold=True)
    draw_target_grid(cv, target, lay.grid_w, lay.grid_h, lay.origin, cs)
    for i, (p, (x0, y0), (_, bh)) in enumerate(zip(pieces, lay.slots, lay.sizes, strict=True)):
        dim = i in faded
        cv.text((x0, y0), p.label, size=20, bold=True, color=(150, 150, 150) if dim else "black")
        fill = tuple(int(v + (255 - v) * 0.65) for v in p.fill) if dim else p.fill
        draw_piece(
            cv, p.cells, (x0, y0 + LABEL_H + bh * cs), cs, fill, marks=p.marks, outline="gray" if dim else "black"
        )
    return cv


def scene_board(
    scene: dict[str, Any], pieces: Sequence[DrawnPiece], left_title: str, right_title: str, faded: Iterable[int] = ()
) -> tuple[BoardLayout, Canvas]:
    """`draw_board` for a scene's target (scene fields as made by `target_frame`), with its layout."""
    lay = board_layout(scene["width"], scene["height"], pieces)
    return lay, draw_board(lay, [tuple(c) for c in scene["target"]], pieces, left_title, right_title, faded)


def draw_placed(
    cv: Canvas, lay: BoardLayout, placed: Sequence[tuple[DrawnPiece, Placement]], opacity: int = 255
) -> None:
    """Pieces put down on the target grid (placement cells are 1-based), each labelled near its middle."""
    cs = BOARD_CS
    shifted = (lay.origin[0] - cs, lay.origin[1] + cs)
    for p, pl in placed:
        draw_piece(cv, pl.cells, shifted, cs, p.fill, opacity=opacity)
    # Circles and labels go on top of every fill so an overlapping piece cannot hide them.
    for _, pl in placed:
        draw_marks(cv, pl.marks, shifted, cs)
    for p, pl in placed:
        free = [c for c in pl.cells if c not in pl.marks] or list(pl.cells)
        cx = sum(c[0] for c in pl.cells) / len(pl.cells)
        cy = sum(c[1] for c in pl.cells) / len(pl.cells)
        spot = min(free, key=lambda c: ((c[0] - cx) ** 2 + (c[1] - cy) ** 2, c))
        x0, y0, x1, y1 = cell_box(spot, shifted, cs)
        cv.text(((x0 + x1) / 2, (y0 + y1) / 2), p.label, size=20, bold=True, anchor="mm")


def placement_from_json(d: dict) -> Placement:
    return Placement(
        d["piece"], d["k"], tuple(d["offset"]), tuple(tuple(c) for c in d["cells"]), tuple(tuple(c) for c in d["marks"])
    )
