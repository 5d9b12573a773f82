"""The straightforward ray caster `vcot.draw3d.raycast` replaced (kept verbatim as the reference the fast one
is compared with; tests/draw3d/test_raycast_reference.py): every primitive intersected over its whole loose
screen rectangle with normals, every ray shaded, every shadow prefilter run over every point. Not used by the
package. Its metal is the old one (a dim diffuse, a highlight and a directional sky-and-floor reflection), so the
fast caster must equal it in geometry and in every pixel that shows no metal, not in metal's pixels (issue 29).
Its products of rows with a matrix or a vector are the fast caster's `_mm` (written out per row): BLAS rounds a
row by its place in the batch on some CPUs, so `@` would compare batching, not casting."""

from __future__ import annotations

import math

import numpy as np
from PIL import Image

from vcot.draw3d.camera import Camera
from vcot.draw3d.raycast import (
    _EPS,
    _GROUND,
    _SKY_HIGH,
    _SKY_LOW,
    KINDS,
    LIGHT,
    MATERIALS,
    F,
    ObjectView,
    Primitive,
    Render3D,
)
from vcot.draw3d.raycast import _mm as _rows_times

# -- intersection in a primitive's local frame ---------------------------------------------------------------


def _sphere(o: np.ndarray, d: np.ndarray, size: tuple[float, ...]) -> tuple[np.ndarray, np.ndarray]:
    r = F(size[0])
    b = (o * d).sum(-1)
    c = (o * o).sum(-1) - r * r
    disc = b * b - c
    ok = disc >= 0
    t = np.where(ok, -b - np.sqrt(np.maximum(disc, 0)), np.inf).astype(F)
    t[t <= _EPS] = np.inf
    n = (o + t[:, None] * d) / r
    return t, n


def _box(o: np.ndarray, d: np.ndarray, size: tuple[float, ...]) -> tuple[np.ndarray, np.ndarray]:
    h = np.asarray(size, dtype=F)
    dd = np.where(np.abs(d) < 1e-9, F(1e-9), d)
    inv = F(1) / dd
    t1 = (-h - o) * inv
    t2 = (h - o) * inv
    near = np.minimum(t1, t2)
    far = np.maximum(t1, t2)
    tmin = near.max(-1)
    tmax = far.min(-1)
    ok = (tmax >= tmin) & (tmin > _EPS)
    t = np.where(ok, tmin, np.inf).astype(F)
    axis = near.argmax(-1)
    n = np.zeros(np.broadcast_shapes(o.shape, d.shape), dtype=F)
    rows = np.arange(t.shape[0])
    dsel = np.broadcast_to(d, n.shape)[rows, axis]
    n[rows, axis] = -np.sign(dsel)
    return t, n


def _cylinder(o: np.ndarray, d: np.ndarray, size: tuple[float, ...]) -> tuple[np.ndarray, np.ndarray]:
    r, hh = F(size[0]), F(size[1])
    o, d = np.broadcast_arrays(o, d)
    a = d[:, 0] ** 2 + d[:, 1] ** 2
    b = o[:, 0] * d[:, 0] + o[:, 1] * d[:, 1]
    c = o[:, 0] ** 2 + o[:, 1] ** 2 - r * r
    disc = b * b - a * c
    safe_a = np.where(a < 1e-12, F(1e-12), a)
    ts = (-b - np.sqrt(np.maximum(disc, 0))) / safe_a
    zs = o[:, 2] + ts * d[:, 2]
    side_ok = (disc >= 0) & (a >= 1e-12) & (np.abs(zs) <= hh) & (ts > _EPS)
    t_side = np.where(side_ok, ts, np.inf)
    cap_z = np.where(d[:, 2] < 0, hh, -hh)
    dz = np.where(np.abs(d[:, 2]) < 1e-9, F(1e-9), d[:, 2])
    tc = (cap_z - o[:, 2]) / dz
    px = o[:, 0] + tc * d[:, 0]
    py = o[:, 1] + tc * d[:, 1]
    cap_ok = (px * px + py * py <= r * r) & (tc > _EPS)
    t_cap = np.where(cap_ok, tc, np.inf)
    use_cap = t_cap < t_side
    t = np.minimum(t_side, t_cap).astype(F)
    p = o + t_side[:, None].astype(F) * d
    n = np.stack([p[:, 0] / r, p[:, 1] / r, np.zeros_like(t)], axis=-1)
    n[use_cap] = 0
    n[use_cap, 2] = np.sign(cap_z[use_cap])
    return t, n.astype(F)


_INTERSECT = {"sphere": _sphere, "box": _box, "cylinder": _cylinder}


def intersect(prim: Primitive, origins: np.ndarray, dirs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Ray parameter of the first hit (inf for a miss) and the world normal there, for rays (N, 3)."""
    rot = prim.rotation().astype(F)
    c = np.asarray(prim.centre, dtype=F)
    o = _rows_times(origins - c, rot)
    d = _rows_times(dirs, rot)
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        t, n = _INTERSECT[prim.kind](o, d, prim.size)
        n = _rows_times(n, rot.T)
    return t, n


# -- the picture --------------------------------------------------------------------------------------------


def _rays(cam: Camera, ss: int) -> tuple[np.ndarray, np.ndarray]:
    pos, right, up, forward = cam.basis()
    w, h = cam.width * ss, cam.height * ss
    f = cam.focal(ss)
    xs = (np.arange(w, dtype=np.float64) + 0.5 - w / 2) / f
    ys = (h / 2 - (np.arange(h, dtype=np.float64) + 0.5)) / f
    d = forward[None, None, :] + xs[None, :, None] * right + ys[:, None, None] * up
    d /= np.linalg.norm(d, axis=-1, keepdims=True)
    return pos.astype(F), d.astype(F)


def _screen_rect(prim: Primitive, cam: Camera, ss: int) -> tuple[int, int, int, int] | None:
    """A conservative subpixel rectangle (x0, y0, x1, y1) holding the primitive's projection."""
    pos, right, up, forward = cam.basis()
    rel = np.asarray(prim.centre) - pos
    depth = float(rel @ forward)
    rad = prim.bound() * 1.02 + 0.02
    if depth - rad <= 0.05:
        return 0, 0, cam.width * ss, cam.height * ss
    f = cam.focal(ss)
    cx = cam.width * ss / 2 + f * float(rel @ right) / depth
    cy = cam.height * ss / 2 - f * float(rel @ up) / depth
    dist = float(np.linalg.norm(rel))
    # The projected outline of a bounding sphere lies within f * tan(asin(rad / dist)) / cos^2 of the view angle
    # of its centre; a margin of the same size covers the off-axis stretch at these fields of view.
    half = f * math.tan(math.asin(min(rad / dist, 0.999))) * 1.6 + 2
    x0, x1 = max(0, int(cx - half)), min(cam.width * ss, int(cx + half) + 1)
    y0, y1 = max(0, int(cy - half)), min(cam.height * ss, int(cy + half) + 1)
    if x0 >= x1 or y0 >= y1:
        return None
    return x0, y0, x1, y1


def _env(r: np.ndarray) -> np.ndarray:
    """The environment a metal surface reflects: sky gradient above the horizon, the lit floor below."""
    up = np.clip(r[:, 2:3], -1, 1)
    sky = _SKY_LOW + (_SKY_HIGH - _SKY_LOW) * np.clip(up, 0, 1)
    return np.where(up > 0, sky, _GROUND * F(0.85)).astype(F)


def _shadowed(points: np.ndarray, normals: np.ndarray, prims: list[Primitive]) -> np.ndarray:
    """Whether each point's shadow ray towards the key light hits a primitive (bounding-sphere prefilter)."""
    out = np.zeros(points.shape[0], dtype=bool)
    start = points + normals * F(2e-3)
    for prim in prims:
        c = np.asarray(prim.centre, dtype=F)
        rel = c - start
        along = _rows_times(rel, LIGHT)
        perp2 = (rel * rel).sum(-1) - along * along
        rad = F(prim.bound() + 1e-3)
        cand = np.nonzero((along > -rad) & (perp2 <= rad * rad) & ~out)[0]
        if cand.size:
            t, _ = intersect(prim, start[cand], LIGHT[None, :])
            out[cand[np.isfinite(t)]] = True
    return out


def _floor_lit(px: np.ndarray, py: np.ndarray, prims: list[Primitive]) -> np.ndarray:
    """Whether each floor point (z = 0) sees the key light. A shadow ray from the floor passes within r of a
    primitive's centre c only if, at the height of c, it lies within r / L_z of c horizontally: a circle test
    on the floor around c's shadow picks the few candidates the exact test then checks."""
    lit = np.ones(px.shape[0], dtype=bool)
    lz = float(LIGHT[2])
    for prim in prims:
        cx, cy, cz = prim.centre
        fx, fy = cx - cz / lz * float(LIGHT[0]), cy - cz / lz * float(LIGHT[1])
        rad = (prim.bound() + 1e-3) / lz
        cand = np.nonzero(((px - F(fx)) ** 2 + (py - F(fy)) ** 2 <= F(rad * rad)) & lit)[0]
        if cand.size:
            start = np.stack([px[cand], py[cand], np.full(cand.size, F(2e-3))], axis=-1)
            t, _ = intersect(prim, start, LIGHT[None, :])
            lit[cand[np.isfinite(t)]] = False
    return lit


def _shade(
    prims: list[Primitive], best: np.ndarray, t: np.ndarray, n: np.ndarray, pos: np.ndarray, d: np.ndarray
) -> np.ndarray:
    """Linear RGB of every ray (N, 3): sky, lit floor (only its shadows vary), shaded objects."""
    dz = d[:, 2]
    col = _SKY_LOW + (_SKY_HIGH - _SKY_LOW) * np.clip(dz, 0, 1)[:, None]
    hit = best >= 0
    g = np.nonzero(~hit & (dz < -1e-6))[0]
    tg = -pos[2] / dz[g]
    px = pos[0] + tg * d[g, 0]
    py = pos[1] + tg * d[g, 1]
    lit_g = _floor_lit(px, py, prims)
    fade = np.clip((tg - 18) / 22, 0, 1)[:, None]
    floor = _GROUND * (F(0.45) + F(0.6) * LIGHT[2] * lit_g)[:, None]
    col[g] = floor * (1 - fade) + col[g] * fade
    o = np.nonzero(hit)[0]
    if not o.size:
        return col
    dd = d[o]
    nn = n[o]
    pts = pos[None, :] + t[o][:, None] * dd
    lam = np.clip(_rows_times(nn, LIGHT), 0, 1)
    lit = np.ones(o.size, dtype=bool)
    facing = np.nonzero(lam > 0)[0]
    lit[facing] = ~_shadowed(pts[facing], nn[facing], prims)
    lam = lam * lit
    lit_o = lit.astype(F)
    pid = best[o]
    base = (np.array([p.colour for p in prims], dtype=F) / F(255)) ** F(2.2)
    metal = np.array([p.material == "metal" for p in prims])[pid]
    albedo = base[pid]
    half = LIGHT[None, :] - dd
    half /= np.linalg.norm(half, axis=-1, keepdims=True)
    nh = np.clip((nn * half).sum(-1), 0, 1)
    sky_fill = F(0.5) + F(0.5) * nn[:, 2]
    rubber = albedo * (F(0.22) * sky_fill + F(0.95) * lam)[:, None] + (F(0.08) * nh**20 * lit_o)[:, None]
    refl = dd - 2 * (dd * nn).sum(-1, keepdims=True) * nn
    shiny = (
        albedo * (F(0.12) * sky_fill + F(0.35) * lam)[:, None]
        + albedo * _env(refl) * F(0.75)
        + (F(0.9) * nh**80 * lit_o)[:, None] * (F(0.5) + F(0.5) * albedo)
    )
    col[o] = np.where(metal[:, None], shiny, rubber)
    return col


def render_scene(prims: list[Primitive], cam: Camera, ss: int = 2, shade: bool = True) -> Render3D:
    """Render `prims` seen by `cam`. `ss` is the supersampling factor per axis; `shade=False` computes only the
    buffers and views (fast, for the rejection checks), leaving `image` None."""
    for p in prims:
        if p.kind not in KINDS or p.material not in MATERIALS:
            raise ValueError(f"unknown primitive kind or material: {p.kind!r}, {p.material!r}")
    pos, d = _rays(cam, ss)
    hs, ws = d.shape[:2]
    best_t = np.full((hs, ws), np.inf, dtype=F)
    best = np.full((hs, ws), -1, dtype=np.int32)
    normals = np.zeros((hs, ws, 3), dtype=F)
    obj_ids = sorted({p.obj for p in prims})
    full = {o: np.zeros((hs, ws), dtype=bool) for o in obj_ids}
    for k, prim in enumerate(prims):
        rect = _screen_rect(prim, cam, ss)
        if rect is None:
            continue
        x0, y0, x1, y1 = rect
        sub = d[y0:y1, x0:x1].reshape(-1, 3)
        t, n = intersect(prim, pos[None, :], sub)
        t = t.reshape(y1 - y0, x1 - x0)
        full[prim.obj][y0:y1, x0:x1] |= np.isfinite(t)
        closer = t < best_t[y0:y1, x0:x1]
        best_t[y0:y1, x0:x1] = np.where(closer, t, best_t[y0:y1, x0:x1])
        best[y0:y1, x0:x1] = np.where(closer, k, best[y0:y1, x0:x1])
        normals[y0:y1, x0:x1][closer] = n.reshape(y1 - y0, x1 - x0, 3)[closer]
    prim_obj = np.array([p.obj for p in prims] + [-1], dtype=np.int32)
    ids_ss = prim_obj[best]  # best == -1 indexes the trailing -1
    image = None
    if shade:
        col = _shade(prims, best.reshape(-1), best_t.reshape(-1), normals.reshape(-1, 3), pos, d.reshape(-1, 3))
        srgb = np.clip(col, 0, 1) ** F(1 / 2.2)
        grid = srgb.reshape(cam.height * ss, cam.width * ss, 3)
        pix = sum(grid[i::ss, j::ss] for i in range(ss) for j in range(ss)) / F(ss * ss)
        image = Image.fromarray(np.round(pix * 255).astype(np.uint8), "RGB")
    views = _views(ids_ss, full, prims, cam, ss)
    # The buffers at picture resolution take each pixel's first subpixel.
    return Render3D(
        image=image, ids=ids_ss[::ss, ::ss].astype(np.int16), parts=best[::ss, ::ss].astype(np.int16), objects=views
    )


def _box_of(mask: np.ndarray, ss: int) -> tuple[int, int, int, int] | None:
    rows = np.nonzero(mask.any(axis=1))[0]
    cols = np.nonzero(mask.any(axis=0))[0]
    if not rows.size:
        return None
    return int(cols[0]) // ss, int(rows[0]) // ss, int(cols[-1]) // ss + 1, int(rows[-1]) // ss + 1


def _views(
    ids_ss: np.ndarray, full: dict[int, np.ndarray], prims: list[Primitive], cam: Camera, ss: int
) -> dict[int, ObjectView]:
    views = {}
    area = float(ss * ss)
    counts = np.bincount(ids_ss.ravel() + 1, minlength=max(full, default=0) + 2)
    for o, mask in full.items():
        sil = _box_of(mask, 1)
        vis_box = None
        if sil is not None:
            # Visible pixels lie inside the unoccluded outline, so their box is searched there only.
            x0, y0, x1, y1 = sil
            sub = _box_of(ids_ss[y0:y1, x0:x1] == o, 1)
            if sub is not None:
                vis_box = (
                    (sub[0] + x0) // ss,
                    (sub[1] + y0) // ss,
                    (sub[2] + x0 - 1) // ss + 1,
                    (sub[3] + y0 - 1) // ss + 1,
                )
            sil = (x0 // ss, y0 // ss, (x1 - 1) // ss + 1, (y1 - 1) // ss + 1)
        parts = [p for p in prims if p.obj == o]
        centre = np.mean([p.centre for p in parts], axis=0)
        cx, cy = cam.project(centre)
        fx, fy = cam.project(np.array([centre[0], centre[1], 0.0]))
        views[o] = ObjectView(
            visible=float(counts[o + 1]) / area,
            full=float(mask.sum()) / area,
            bbox=vis_box,
            silhouette=sil,
            centre=(float(cx), float(cy)),
            foot=(float(fx), float(fy)),
        )
    return views
