"""A vectorised NumPy ray caster for small scenes of primitives on a ground plane.

Per picture: one primary ray per subpixel (2x2 supersampling by default), analytic intersection with every
primitive inside the primitive's screen rectangle only, Lambert plus Blinn-Phong shading under one key light
with a hard shadow ray, a sky and ground fill. Rubber is diffuse with a faint highlight; metal is a tinted mirror:
one reflection ray per metal subpixel sees the other primitives, the floor with its shadows, or a studio of sky,
a broad glow and strip lights on a ceiling (docs/draw3d.md, "Materials"). Everything is float32 NumPy with a
fixed operation order, so the same scene gives the same pixels on the same install. docs/draw3d.md has the
measured speed.

Speed (docs/draw3d.md, "Speed"): every per-ray quantity of the geometry, the floor, the shadows and rubber is
computed by the same NumPy operations, in the same order and on arrays of the same layout as in the
straightforward caster (tests/draw3d/reference_raycast.py), only on fewer rays: each primitive is tested against
the rays inside a tight projected bound of it, normals are computed for the rays a primitive wins only, shading
for the rays that need it, and each shadow test only for the points and floor rays a screen rectangle can hold.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from PIL import Image

from vcot.draw3d.camera import Camera

KINDS = ("sphere", "box", "cylinder")
MATERIALS = ("rubber", "metal")
F = np.float32
_EPS = F(1e-3)
LIGHT = np.array([-0.45, -0.6, 0.66], dtype=np.float32)
LIGHT /= np.linalg.norm(LIGHT)
_GROUND = np.array([0.62, 0.62, 0.60], dtype=np.float32)
_SKY_LOW = np.array([0.80, 0.80, 0.80], dtype=np.float32)
_SKY_HIGH = np.array([0.55, 0.62, 0.72], dtype=np.float32)
_SOFTBOX = np.array([0.0, 0.788, 0.616], dtype=np.float32)  # unit: towards +y, 38 degrees up
_SOFTBOX /= np.linalg.norm(_SOFTBOX)
# The studio's strip lights (`_environment`): a ceiling this high, strips along x from y = _STRIP_Y0 to
# _STRIP_Y1, one every _STRIP_PERIOD units, _STRIP_WIDTH wide. The period is shorter than a small cube's top
# plus the spread of its rays' reflections, so every top face shows part of a strip.
_CEIL_Z = 6.5
_STRIP_Y0, _STRIP_Y1, _STRIP_PERIOD, _STRIP_WIDTH, _STRIP_LEVEL = 1.0, 16.0, 1.5, 0.5, 3.0
# Slack of the screen bounds beyond the exact projection: float32 hit tests err by far less than 0.05 scene
# units or a subpixel, so a bound this loose still holds every ray whose test can pass.
_PAD_PX = 2
_PAD_UNITS = 0.05


@dataclass(frozen=True)
class Primitive:
    """One primitive. `size` is (radius,) for a sphere, half extents (hx, hy, hz) for a box, (radius, half
    height) for a cylinder (axis along its local z). `yaw` turns it about the world z axis and `tilt` about its
    local x axis first (90 lays a cylinder on its side: a wheel), both in degrees. `colour` is sRGB 0-255;
    `obj` the object id it belongs to (several primitives may share one)."""

    kind: str
    centre: tuple[float, float, float]
    size: tuple[float, ...]
    colour: tuple[int, int, int]
    material: str = "rubber"
    obj: int = 0
    yaw: float = 0.0
    tilt: float = 0.0

    def rotation(self) -> np.ndarray:
        """Local-to-world rotation matrix."""
        cy, sy = math.cos(math.radians(self.yaw)), math.sin(math.radians(self.yaw))
        ct, st = math.cos(math.radians(self.tilt)), math.sin(math.radians(self.tilt))
        yaw = np.array([[cy, -sy, 0], [sy, cy, 0], [0, 0, 1]])
        tilt = np.array([[1, 0, 0], [0, ct, -st], [0, st, ct]])
        return yaw @ tilt

    def bound(self) -> float:
        """Radius of a sphere about the centre holding the primitive."""
        if self.kind == "sphere":
            return float(self.size[0])
        if self.kind == "box":
            return float(np.linalg.norm(self.size))
        return float(math.hypot(self.size[0], self.size[1]))


@dataclass
class ObjectView:
    """What the picture shows of one object: `visible` and `full` are pixel areas (subpixels / 4) with and
    without the other objects in front, `bbox` the box of its visible pixels and `silhouette` the box of its
    unoccluded outline (x0, y0, x1, y1, pixels, end exclusive), `centre` the projection of its centre and
    `foot` the projection of the ground point below its centre (lower in the picture = nearer the camera)."""

    visible: float
    full: float
    bbox: tuple[int, int, int, int] | None
    silhouette: tuple[int, int, int, int] | None
    centre: tuple[float, float]
    foot: tuple[float, float]

    @property
    def fraction(self) -> float:
        return self.visible / self.full if self.full else 0.0


@dataclass
class Render3D:
    """The picture, the object-id buffer (-1 for floor and sky), the primitive buffer and per-object views.
    `ids` and `parts` take each pixel's first (top-left) subpixel; `subparts` is the primitive buffer of every
    subpixel (`ss` per axis), for what a pixel shows in part, such as an object's antialiased edge."""

    image: Image.Image | None
    ids: np.ndarray
    parts: np.ndarray
    objects: dict[int, ObjectView] = field(default_factory=dict)
    subparts: np.ndarray | None = None
    ss: int = 1

    def coverage(self, parts: np.ndarray | list[int]) -> np.ndarray:
        """Per pixel, the share (0-1, float32) of its subpixels that show one of the primitives `parts`: more
        than the first-subpixel buffers see, since an edge pixel whose top-left subpixel misses the primitive
        still shows it in its other subpixels."""
        sub = self.subparts if self.subparts is not None else self.parts
        ss = self.ss if self.subparts is not None else 1
        hit = np.isin(sub, np.asarray(parts, dtype=np.int64))
        h, w = hit.shape[0] // ss, hit.shape[1] // ss
        return hit.reshape(h, ss, w, ss).mean(axis=(1, 3), dtype=F)


def _sum3(p: np.ndarray) -> np.ndarray:
    """`p.sum(-1)` of rows (N, 3), bit for bit (NumPy adds from a zero start, left to right, which also fixes
    the sign of a zero sum), without the slow reduction over a short axis."""
    return ((F(0) + p[:, 0]) + p[:, 1]) + p[:, 2]


def _max3(p: np.ndarray) -> np.ndarray:
    """`p.max(-1)` of rows (N, 3), bit for bit (NaN, infinities and signed zeros included)."""
    return np.maximum(np.maximum(p[:, 0], p[:, 1]), p[:, 2])


def _min3(p: np.ndarray) -> np.ndarray:
    return np.minimum(np.minimum(p[:, 0], p[:, 1]), p[:, 2])


_ROW = np.dtype((np.void, 12))  # one float32 row of three, moved as a unit


def _take(a: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """`a[idx]` of rows (N, 3): the same values, gathered several times faster than by fancy indexing."""
    return np.take(a, idx, axis=0)


def _put(a: np.ndarray, idx: np.ndarray, rows: np.ndarray) -> None:
    """`a[idx] = rows` of float32 rows (N, 3) into a C-contiguous `a`, as whole 12-byte items."""
    a.view(_ROW).reshape(-1)[idx] = np.ascontiguousarray(rows, dtype=F).view(_ROW).reshape(-1)


def _mm(a: np.ndarray, m: np.ndarray) -> np.ndarray:
    """`a @ m` for rows a (N, 3) and m (3, 3) or (3,), each row's result from that row alone in one fixed order
    of multiplications and additions. BLAS rounds a row by where it falls in its batch (a lone row, the tail
    of a block) and by the CPU's kernel, so `@` would give the caster's few winning rays other bits than the
    same rays among a whole rectangle, and one machine other bits than another (docs/draw3d.md)."""
    if m.ndim == 1:
        return (a[:, 0] * m[0] + a[:, 1] * m[1]) + a[:, 2] * m[2]
    cols = [np.ascontiguousarray(a[:, i]) for i in range(3)]  # broadcasting over (N, 1) columns is slow
    out = np.empty((a.shape[0], 3), dtype=np.result_type(a, m))
    for j in range(3):
        out[:, j] = (cols[0] * m[0, j] + cols[1] * m[1, j]) + cols[2] * m[2, j]
    return out


# -- intersection in a primitive's local frame ---------------------------------------------------------------


def _sphere(
    o: np.ndarray, d: np.ndarray, size: tuple[float, ...], normals: bool = True
) -> tuple[np.ndarray, np.ndarray | None]:
    r = F(size[0])
    b = _sum3(o * d)
    c = _sum3(o * o) - r * r
    disc = b * b - c
    ok = disc >= 0
    t = np.where(ok, -b - np.sqrt(np.maximum(disc, 0)), np.inf).astype(F)
    t[t <= _EPS] = np.inf
    if not normals:
        return t, None
    n = (o + t[:, None] * d) / r
    return t, n


def _box(
    o: np.ndarray, d: np.ndarray, size: tuple[float, ...], normals: bool = True
) -> tuple[np.ndarray, np.ndarray | None]:
    h = np.asarray(size, dtype=F)
    dd = np.where(np.abs(d) < 1e-9, F(1e-9), d)
    inv = F(1) / dd
    t1 = (-h - o) * inv
    t2 = (h - o) * inv
    near = np.minimum(t1, t2)
    far = np.maximum(t1, t2)
    tmin = _max3(near)
    tmax = _min3(far)
    ok = (tmax >= tmin) & (tmin > _EPS)
    t = np.where(ok, tmin, np.inf).astype(F)
    if not normals:
        return t, None
    axis = near.argmax(-1)
    n = np.zeros(np.broadcast_shapes(o.shape, d.shape), dtype=F)
    rows = np.arange(t.shape[0])
    dsel = np.broadcast_to(d, n.shape)[rows, axis]
    n[rows, axis] = -np.sign(dsel)
    return t, n


def _cylinder(
    o: np.ndarray, d: np.ndarray, size: tuple[float, ...], normals: bool = True
) -> tuple[np.ndarray, np.ndarray | None]:
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
    t = np.minimum(t_side, t_cap).astype(F)
    if not normals:
        return t, None
    use_cap = t_cap < t_side
    p = o + t_side[:, None].astype(F) * d
    n = np.stack([p[:, 0] / r, p[:, 1] / r, np.zeros_like(t)], axis=-1)
    n[use_cap] = 0
    n[use_cap, 2] = np.sign(cap_z[use_cap])
    return t, n.astype(F)


_INTERSECT = {"sphere": _sphere, "box": _box, "cylinder": _cylinder}


def _intersect(
    prim: Primitive, rot: np.ndarray, origins: np.ndarray, dirs: np.ndarray, normals: bool
) -> tuple[np.ndarray, np.ndarray | None]:
    c = np.asarray(prim.centre, dtype=F)
    # Primary rays may be fewer rows than the straightforward caster multiplied: see `_mm`.
    o = _mm(origins - c, rot)
    d = _mm(dirs, rot)
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        t, n = _INTERSECT[prim.kind](o, d, prim.size, normals)
        if n is not None:
            n = _mm(n, rot.T)
    return t, n


def intersect(prim: Primitive, origins: np.ndarray, dirs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Ray parameter of the first hit (inf for a miss) and the world normal there, for rays (N, 3)."""
    t, n = _intersect(prim, prim.rotation().astype(F), origins, dirs, True)
    assert n is not None
    return t, n


# -- the picture --------------------------------------------------------------------------------------------


def _rays(cam: Camera, ss: int) -> tuple[np.ndarray, np.ndarray]:
    """The camera position and the unit direction of every subpixel's ray as three component planes (3, H, W),
    float32. Computed per row band with the operations of the straightforward version, (forward + x right) +
    y up over the root of (x0^2 + x1^2) + x2^2 in float64, then rounded to float32."""
    pos, right, up, forward = cam.basis()
    w, h = cam.width * ss, cam.height * ss
    f = cam.focal(ss)
    xs = (np.arange(w, dtype=np.float64) + 0.5 - w / 2) / f
    ys = (h / 2 - (np.arange(h, dtype=np.float64) + 0.5)) / f
    across = forward[None, :] + xs[:, None] * right  # (W, 3)
    down = ys[:, None] * up  # (H, 3)
    out = np.empty((3, h, w), dtype=F)
    band = max(1, 16384 // w)
    comp = np.empty((3, band, w))
    n2 = np.empty((band, w))
    sq = np.empty((band, w))
    for y0 in range(0, h, band):
        y1 = min(h, y0 + band)
        m = y1 - y0
        cm, nm, qm = comp[:, :m], n2[:m], sq[:m]
        for k in range(3):
            np.add(across[None, :, k], down[y0:y1, k, None], out=cm[k])
        np.multiply(cm[0], cm[0], out=nm)
        np.multiply(cm[1], cm[1], out=qm)
        nm += qm
        np.multiply(cm[2], cm[2], out=qm)
        nm += qm
        np.sqrt(nm, out=nm)
        np.divide(cm, nm, out=out[:, y0:y1], casting="same_kind")
    return pos.astype(F), out


def _screen_rect(prim: Primitive, cam: Camera, ss: int) -> tuple[int, int, int, int] | None:
    """A conservative subpixel rectangle (x0, y0, x1, y1) holding the primitive's projection: the straightforward
    caster's, loose by about 1.6 per side. The tight bound is clipped to it, so no ray outside it is tested as
    before, and its area says whether the straightforward caster multiplied more than one row (`_mm`)."""
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


class _View:
    """The camera's frame for bounds: projection of world points to subpixel coordinates."""

    def __init__(self, cam: Camera, ss: int) -> None:
        self.pos, self.right, self.up, self.forward = cam.basis()
        self.f = cam.focal(ss)
        self.w, self.h = cam.width * ss, cam.height * ss

    def rect_of_points(self, pts: np.ndarray) -> tuple[int, int, int, int] | None:
        """The subpixels whose rays pass through the convex hull of `pts` (K, 3), padded; the whole frame when
        a point is not in front of the camera; None when the hull misses the frame."""
        rel = pts - self.pos
        depth = rel @ self.forward
        if depth.min() <= 0.05:
            return 0, 0, self.w, self.h
        # Subpixel column j's ray passes through x = j + 0.5.
        sx = self.w / 2 + self.f * (rel @ self.right) / depth - 0.5
        sy = self.h / 2 - self.f * (rel @ self.up) / depth - 0.5
        return self._clip(sx.min(), sx.max(), sy.min(), sy.max())

    def rect_of_sphere(self, centre: np.ndarray, rad: float) -> tuple[int, int, int, int] | None:
        """As `rect_of_points` for a sphere: its outline's extent along each picture axis is where the planes
        through the eye and the other picture axis touch it."""
        rel = np.asarray(centre, dtype=float) - self.pos
        z = float(rel @ self.forward)
        if z - rad <= 0.05:
            return 0, 0, self.w, self.h
        lim = []
        for axis in (self.right, self.up):
            x = float(rel @ axis)
            root = rad * math.sqrt(max(x * x + z * z - rad * rad, 0.0))
            den = z * z - rad * rad
            lim.append(((x * z - root) / den, (x * z + root) / den))
        (kx0, kx1), (ky0, ky1) = lim
        sx0, sx1 = self.w / 2 + self.f * kx0 - 0.5, self.w / 2 + self.f * kx1 - 0.5
        sy0, sy1 = self.h / 2 - self.f * ky1 - 0.5, self.h / 2 - self.f * ky0 - 0.5
        return self._clip(sx0, sx1, sy0, sy1)

    def _clip(self, sx0: float, sx1: float, sy0: float, sy1: float) -> tuple[int, int, int, int] | None:
        x0 = max(0, math.floor(sx0) - _PAD_PX)
        x1 = min(self.w, math.ceil(sx1) + 1 + _PAD_PX)
        y0 = max(0, math.floor(sy0) - _PAD_PX)
        y1 = min(self.h, math.ceil(sy1) + 1 + _PAD_PX)
        if x0 >= x1 or y0 >= y1:
            return None
        return x0, y0, x1, y1


def _corners(centre: np.ndarray, rot: np.ndarray, half: np.ndarray) -> np.ndarray:
    signs = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)], dtype=float)
    return np.asarray(centre, dtype=float) + (signs * half) @ rot.T


def _tight_rect(prim: Primitive, rot: np.ndarray, view: _View) -> tuple[int, int, int, int] | None:
    """A subpixel rectangle holding every ray that can hit the primitive: the padded projection of the sphere,
    or of the corners of the box (a cylinder's bounding box), which holds the convex primitive's outline."""
    pad = _PAD_UNITS
    if prim.kind == "sphere":
        return view.rect_of_sphere(np.asarray(prim.centre), float(prim.size[0]) + pad)
    half = np.asarray(prim.size if prim.kind == "box" else (prim.size[0], prim.size[0], prim.size[1]), dtype=float)
    return view.rect_of_points(_corners(np.asarray(prim.centre), rot.astype(float), half + pad))


def _meet(a: tuple[int, int, int, int] | None, b: tuple[int, int, int, int] | None) -> tuple[int, int, int, int] | None:
    if a is None or b is None:
        return None
    x0, y0, x1, y1 = max(a[0], b[0]), max(a[1], b[1]), min(a[2], b[2]), min(a[3], b[3])
    if x0 >= x1 or y0 >= y1:
        return None
    return x0, y0, x1, y1


def _environment(start: np.ndarray, r: np.ndarray) -> np.ndarray:
    """Linear RGB of the studio that mirror rays from `start` escaping upwards (r_z >= 0) see: the sky
    gradient, a broad glow behind the scene (around world +y, the side the tasks' cameras look towards) and,
    on a ceiling `_CEIL_Z` up, strip lights running along x. The studio lights nothing diffusely and lies
    above every view of the tasks, so only metal shows it. The strips are at a finite distance, so a flat face
    mirrors a piece of them that moves with the point (not one direction): every top face of a cube, cap of a
    cylinder or roof of a vehicle shows sharp bright bands on a dimmer ground, the cue that reads as metal (a
    point light's highlight never falls on a flat face seen from the tasks' cameras)."""
    up = np.clip(r[:, 2], 0, 1)
    sky = _SKY_LOW + (_SKY_HIGH - _SKY_LOW) * up[:, None]
    c = _mm(r, _SOFTBOX)
    w = np.clip((c - F(0.5)) / F(0.4), 0, 1)
    glow = F(0.35) * w * w * (F(3) - F(2) * w)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        t = (F(_CEIL_Z) - start[:, 2]) / r[:, 2]
        x = start[:, 0] + t * r[:, 0]
        y = start[:, 1] + t * r[:, 1]
        ok = (r[:, 2] > F(1e-3)) & (t > 0) & (np.abs(x) < F(9)) & (y > F(_STRIP_Y0)) & (y < F(_STRIP_Y1))
        phase = np.where(ok, np.mod(y - F(_STRIP_Y0), F(_STRIP_PERIOD)), F(_STRIP_PERIOD))
    # A band _STRIP_WIDTH wide with edges softened over 0.05 units (the supersampling does the rest).
    half = F(_STRIP_WIDTH / 2)
    edge = np.clip((half - np.abs(phase - half)) / F(0.05) + F(0.5), 0, 1)
    return (sky + (glow + F(_STRIP_LEVEL) * edge)[:, None]).astype(F)


def _sky(dz: np.ndarray) -> np.ndarray:
    return _SKY_LOW + (_SKY_HIGH - _SKY_LOW) * np.clip(dz, 0, 1)[:, None]


def _floor_value(lit: np.ndarray) -> np.ndarray:
    return _GROUND * (F(0.45) + F(0.6) * LIGHT[2] * lit)[:, None]


def _srgb(col: np.ndarray) -> np.ndarray:
    return np.clip(col, 0, 1) ** F(1 / 2.2)


class _Frame:
    """One render's rays and primary hits, shared by the shading passes."""

    def __init__(self, prims: list[Primitive], cam: Camera, ss: int) -> None:
        self.prims, self.cam, self.ss = prims, cam, ss
        self.view = _View(cam, ss)
        self.rots = [p.rotation().astype(F) for p in prims]
        self.pos, self.planes = _rays(cam, ss)
        self.hs, self.ws = self.planes.shape[1:]

    def rect_rays(self, x0: int, y0: int, x1: int, y1: int) -> np.ndarray:
        """The directions (N, 3) of the rays of a subpixel rectangle, row by row."""
        out = np.empty((y1 - y0, x1 - x0, 3), dtype=F)
        for k in range(3):
            out[..., k] = self.planes[k, y0:y1, x0:x1]
        return out.reshape(-1, 3)

    def rays_at(self, pix: np.ndarray) -> np.ndarray:
        """The directions (N, 3) of the rays of flat subpixel indices `pix`."""
        out = np.empty((pix.size, 3), dtype=F)
        for k in range(3):
            out[:, k] = self.planes[k].reshape(-1)[pix]
        return out

    def shadow_rect(self, prim: Primitive, zmin: float, zmax: float) -> tuple[int, int, int, int] | None:
        """The subpixels whose surface points, with heights in [zmin, zmax], can have a shadow ray passing
        within `prim`'s bounding sphere: a piece of the cylinder about the light ray through its centre."""
        c = np.asarray(prim.centre, dtype=float)
        light = LIGHT.astype(float)
        rad = prim.bound() + 1e-3 + _PAD_UNITS
        lz = float(light[2])
        s_lo = (zmin - _PAD_UNITS - c[2] - rad) / lz
        s_hi = min(rad, (zmax + _PAD_UNITS - c[2] + rad) / lz)
        if s_lo > s_hi:
            return None
        ends = np.array([c + s_lo * light, c + s_hi * light])
        lo, hi = ends.min(0) - rad, ends.max(0) + rad
        box = np.array([[x, y, z] for x in (lo[0], hi[0]) for y in (lo[1], hi[1]) for z in (lo[2], hi[2])])
        return self.view.rect_of_points(box)

    def floor_rect(self, fx: float, fy: float, rad: float) -> tuple[int, int, int, int] | None:
        """The subpixels whose floor points can lie within `rad` of (fx, fy)."""
        if self.view.pos[2] <= _PAD_UNITS:
            return 0, 0, self.ws, self.hs
        r = rad + _PAD_UNITS
        sq = np.array([[fx + sx * r, fy + sy * r, 0.0] for sx in (-1, 1) for sy in (-1, 1)])
        return self.view.rect_of_points(sq)


def _floor_lit(fr: _Frame, floor: np.ndarray, tg: np.ndarray) -> np.ndarray:
    """Whether each floor point (z = 0) sees the key light, over the frame (False off the floor). A shadow ray
    from the floor passes within r of a primitive's centre c only if, at the height of c, it lies within r / L_z
    of c horizontally: a circle test on the floor around c's shadow picks the few candidates the exact test then
    checks; the circle test runs on the floor rays inside the circle's projected rectangle only."""
    lit = floor.copy()
    lz = float(LIGHT[2])
    pos = fr.pos
    d0, d1 = fr.planes[0], fr.planes[1]
    for prim, rot in zip(fr.prims, fr.rots, strict=True):
        cx, cy, cz = prim.centre
        fx, fy = cx - cz / lz * float(LIGHT[0]), cy - cz / lz * float(LIGHT[1])
        rad = (prim.bound() + 1e-3) / lz
        rect = fr.floor_rect(fx, fy, rad)
        if rect is None:
            continue
        x0, y0, x1, y1 = rect
        ok = lit[y0:y1, x0:x1]
        if not ok.any():
            continue
        tgs = tg[y0:y1, x0:x1][ok]
        px = pos[0] + tgs * d0[y0:y1, x0:x1][ok]
        py = pos[1] + tgs * d1[y0:y1, x0:x1][ok]
        near = (px - F(fx)) ** 2 + (py - F(fy)) ** 2 <= F(rad * rad)
        cand = np.nonzero(near)[0]
        if cand.size:
            start = np.stack([px[cand], py[cand], np.full(cand.size, F(2e-3))], axis=-1)
            t, _ = _intersect(prim, rot, start, LIGHT[None, :], False)
            shade = np.zeros(tgs.shape[0], dtype=bool)
            shade[cand[np.isfinite(t)]] = True
            ok[ok] = ~shade
    return lit


def _shadowed(fr: _Frame, points: np.ndarray, normals: np.ndarray, pix: np.ndarray) -> np.ndarray:
    """Whether each point's shadow ray towards the key light hits a primitive (bounding-sphere prefilter, run
    only on the points whose subpixels `pix` lie in the primitive's shadow rectangle)."""
    m = points.shape[0]
    out = np.zeros(m, dtype=bool)
    if not m:
        return out
    start = points + normals * F(2e-3)
    where = np.full(fr.hs * fr.ws, -1, dtype=np.int64)
    where[pix] = np.arange(m)
    where = where.reshape(fr.hs, fr.ws)
    zmin, zmax = float(start[:, 2].min()), float(start[:, 2].max())
    for prim, rot in zip(fr.prims, fr.rots, strict=True):
        rect = fr.shadow_rect(prim, zmin, zmax)
        if rect is None:
            continue
        x0, y0, x1, y1 = rect
        sel = where[y0:y1, x0:x1].ravel()
        sel = sel[sel >= 0]
        sel = sel[~out[sel]]
        if not sel.size:
            continue
        c = np.asarray(prim.centre, dtype=F)
        rel = c - _take(start, sel)
        along = _mm(rel, LIGHT)
        perp2 = _sum3(rel * rel) - along * along
        rad = F(prim.bound() + 1e-3)
        cand = sel[np.nonzero((along > -rad) & (perp2 <= rad * rad))[0]]
        if cand.size:
            t, _ = _intersect(prim, rot, _take(start, cand), LIGHT[None, :], False)
            out[cand[np.isfinite(t)]] = True
    return out


def _shade_objects(fr: _Frame, hit_pix: np.ndarray, pid: np.ndarray, t: np.ndarray, nn: np.ndarray) -> np.ndarray:
    """Linear RGB (N, 3) of the rays that hit a primitive."""
    prims, pos = fr.prims, fr.pos
    dd = fr.rays_at(hit_pix)
    pts = pos[None, :] + t[:, None] * dd
    lam = np.clip(_mm(nn, LIGHT), 0, 1)
    lit = np.ones(hit_pix.size, dtype=bool)
    facing = np.nonzero(lam > 0)[0]
    lit[facing] = ~_shadowed(fr, _take(pts, facing), _take(nn, facing), hit_pix[facing])
    lam = lam * lit
    lit_o = lit.astype(F)
    base = (np.array([p.colour for p in prims], dtype=F) / F(255)) ** F(2.2)
    metal = np.array([p.material == "metal" for p in prims])[pid]
    albedo = _take(base, pid)
    half = LIGHT[None, :] - dd
    half /= np.sqrt(_sum3(half * half))[:, None]
    nh = np.clip(_sum3(nn * half), 0, 1)
    sky_fill = F(0.5) + F(0.5) * nn[:, 2]
    col = np.empty((hit_pix.size, 3), dtype=F)
    sf_s = sky_fill[np.nonzero(metal)[0]]
    r = np.nonzero(~metal)[0]
    if r.size:
        al, sf, la, lo = _take(albedo, r), sky_fill[r], lam[r], lit_o[r]
        _put(col, r, al * (F(0.22) * sf + F(0.95) * la)[:, None] + (F(0.08) * nh[r] ** 20 * lo)[:, None])
    s = np.nonzero(metal)[0]
    if s.size:
        al, sf, la, lo, ds, ns = _take(albedo, s), sf_s, lam[s], lit_o[s], _take(dd, s), _take(nn, s)
        cos = np.clip(-_sum3(ds * ns), 0, 1)
        refl = ds - 2 * _sum3(ds * ns)[:, None] * ns
        seen = _reflection(fr, _take(pts, s) + ns * F(2e-3), refl, base)
        # Metal's reflectance is its colour (real metal tints what it mirrors), with a thin clear coat so that
        # the brightest reflections of dark colours still lighten, and Schlick's rise to white at grazing angles.
        f0 = al * F(0.95) + F(0.01)
        fres = f0 + (F(1) - f0) * ((F(1) - cos) ** 5)[:, None]
        spec = (F(0.9) * nh[s] ** 80 + F(0.5) * nh[s] ** 20) * lo
        _put(
            col,
            s,
            _bleed(al * (F(0.05) * sf + F(0.15) * la)[:, None] + fres * seen + spec[:, None] * (F(0.5) + F(0.5) * al)),
        )
    return col


def _bleed(col: np.ndarray) -> np.ndarray:
    """Overexposed linear RGB spilled into the other channels, as film and sensors do: a strip light mirrored
    in saturated red metal shows as a pale core on red rather than as the same clipped red."""
    excess = _sum3(np.maximum(col - F(1), F(0)))
    low = np.minimum(col, F(1))
    return low + (F(1) - low) * np.minimum(F(0.35) * excess, F(1))[:, None]


def _reflection(fr: _Frame, start: np.ndarray, dirs: np.ndarray, base: np.ndarray) -> np.ndarray:
    """Linear RGB that one mirror ray per row sees (no further bounce): the nearest primitive, shaded diffuse
    under the key light (without its shadow); else the floor with its shadows, fading far away as in the
    picture; else the studio environment. Primitives are tested only against the rays passing within their
    bounding sphere."""
    m = start.shape[0]
    best_t = np.full(m, np.inf, dtype=F)
    best_k = np.full(m, -1, dtype=np.int64)
    best_n = np.zeros((m, 3), dtype=F)
    for k, (prim, rot) in enumerate(zip(fr.prims, fr.rots, strict=True)):
        rel = np.asarray(prim.centre, dtype=F) - start
        along = _sum3(rel * dirs)
        perp2 = _sum3(rel * rel) - along * along
        rad = F(prim.bound() + 1e-3)
        cand = np.nonzero((along > -rad) & (perp2 <= rad * rad))[0]
        if not cand.size:
            continue
        t, n = _intersect(prim, rot, _take(start, cand), _take(dirs, cand), True)
        assert n is not None
        closer = np.nonzero(t < best_t[cand])[0]
        if closer.size:
            rows = cand[closer]
            best_t[rows] = t[closer]
            best_k[rows] = k
            _put(best_n, rows, n[closer])
    out = np.empty((m, 3), dtype=F)
    hit = np.nonzero(best_k >= 0)[0]
    if hit.size:
        n = _take(best_n, hit)
        lam = np.clip(_mm(n, LIGHT), 0, 1)
        _put(out, hit, _take(base, best_k[hit]) * (F(0.22) * (F(0.5) + F(0.5) * n[:, 2]) + F(0.95) * lam)[:, None])
    miss = best_k < 0
    with np.errstate(divide="ignore", invalid="ignore"):
        tg = -start[:, 2] / dirs[:, 2]
    down = np.nonzero(miss & (dirs[:, 2] < -1e-6) & (tg > 0))[0]
    if down.size:
        g = _take(start, down) + tg[down, None] * _take(dirs, down)
        lit = _floor_points_lit(fr, g[:, 0], g[:, 1])
        rel = g - fr.pos
        fade = np.clip((np.sqrt(_sum3(rel * rel)) - 18) / 22, 0, 1)[:, None]
        _put(out, down, _floor_value(lit) * (1 - fade) + _SKY_LOW * fade)
    up = np.nonzero(miss & ~np.isin(np.arange(m), down))[0]
    if up.size:
        _put(out, up, _environment(_take(start, up), _take(dirs, up)))
    return out


def _floor_points_lit(fr: _Frame, px: np.ndarray, py: np.ndarray) -> np.ndarray:
    """Whether floor points (px, py, 0) see the key light: `_floor_lit`'s circle test around each primitive's
    shadow, then the exact shadow ray, for points anywhere (reflected ones have no subpixel of their own)."""
    lit = np.ones(px.shape[0], dtype=bool)
    lz = float(LIGHT[2])
    for prim, rot in zip(fr.prims, fr.rots, strict=True):
        cx, cy, cz = prim.centre
        fx, fy = cx - cz / lz * float(LIGHT[0]), cy - cz / lz * float(LIGHT[1])
        rad = (prim.bound() + 1e-3) / lz
        cand = np.nonzero(lit & ((px - F(fx)) ** 2 + (py - F(fy)) ** 2 <= F(rad * rad)))[0]
        if cand.size:
            start = np.stack([px[cand], py[cand], np.full(cand.size, F(2e-3))], axis=-1)
            t, _ = _intersect(prim, rot, start, LIGHT[None, :], False)
            lit[cand[np.isfinite(t)]] = False
    return lit


def _picture(
    fr: _Frame, best: np.ndarray, best_t: np.ndarray, normals: list[tuple[np.ndarray, np.ndarray]]
) -> Image.Image:
    """The supersampled picture: sky, lit floor (only its shadows vary), shaded objects, averaged per pixel."""
    hs, ws, ss, pos = fr.hs, fr.ws, fr.ss, fr.pos
    h, w, n = hs // ss, ws // ss, ss * ss
    hit = best >= 0
    dz = fr.planes[2]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        floor = ~hit & (dz < -1e-6)
        tg = -pos[2] / dz
    lit = _floor_lit(fr, floor, tg)
    far_mask = floor & (tg > 18)
    # A floor point nearer than 18 units has no fade, so its colour is one of two constants (shadow or light),
    # and a pixel whose subpixels are all such points takes its value from a table of their shadow patterns.
    values = _floor_value(np.array([False, True]))
    near_srgb = _srgb(values)
    other = ~floor | far_mask
    subs = [(i, j) for i in range(ss) for j in range(ss)]
    special = np.zeros((h, w), dtype=bool)
    for i, j in subs:
        special |= other[i::ss, j::ss]
    if n <= 16:
        code = np.zeros((h, w), dtype=np.int32)
        for i, j in subs:
            code = (code << 1) | lit[i::ss, j::ss]
        bits = (np.arange(1 << n)[:, None] >> np.arange(n - 1, -1, -1)[None, :]) & 1
        img = _average(near_srgb[bits], n)[code]
    else:
        img = np.empty((h, w, 3), dtype=np.uint8)
        special[...] = True
    sp = np.flatnonzero(special)
    if sp.size:
        srgb = np.empty((hs * ws, 3), dtype=F)
        far = np.flatnonzero(far_mask)
        if far.size:
            fade = np.clip((tg.reshape(-1)[far] - 18) / 22, 0, 1)[:, None]
            # Below the horizon the sky term is exactly its low colour: the gradient's clip gives 0.
            col = values[lit.reshape(-1)[far].view(np.uint8)] * (1 - fade) + _SKY_LOW * fade
            _put(srgb, far, _srgb(col))
        sky = np.flatnonzero(~hit & ~floor)
        if sky.size:
            _put(srgb, sky, _srgb(_sky(dz.reshape(-1)[sky])))
        hit_pix = np.flatnonzero(hit)
        if hit_pix.size:
            pid = best.reshape(-1)[hit_pix]
            nn = np.empty((hit_pix.size, 3), dtype=F)
            pos_of = np.empty(hs * ws, dtype=np.int64)
            pos_of[hit_pix] = np.arange(hit_pix.size)
            for pix, nrm in normals:
                _put(nn, pos_of[pix], nrm)
            t = best_t.reshape(-1)[hit_pix]
            _put(srgb, hit_pix, _srgb(_shade_objects(fr, hit_pix, pid, t, nn)))
        py, px = np.divmod(sp, w)
        corner = py * (ss * ws) + px * ss
        flat_other, flat_lit = other.reshape(-1), lit.reshape(-1)
        vals = np.empty((sp.size, n, 3), dtype=F)
        for k, (i, j) in enumerate(subs):
            at = corner + i * ws + j
            vals[:, k] = _take(srgb, at)
            near = np.flatnonzero(~flat_other[at])
            vals[near, k] = near_srgb[flat_lit[at[near]].view(np.uint8)]
        img.reshape(-1, 3)[sp] = _average(vals, n)
    return Image.fromarray(img, "RGB")


def _average(vals: np.ndarray, n: int) -> np.ndarray:
    """Pixel values (K, 3) uint8 of K pixels' subpixel sRGB values (K, n, 3), summed in subpixel order from a
    zero start as Python's `sum` does."""
    pix = 0 + vals[:, 0]
    for k in range(1, n):
        pix = pix + vals[:, k]
    pix = pix / F(n)
    return np.round(pix * 255).astype(np.uint8)


def render_scene(prims: list[Primitive], cam: Camera, ss: int = 2, shade: bool = True) -> Render3D:
    """Render `prims` seen by `cam`. `ss` is the supersampling factor per axis; `shade=False` computes only the
    buffers and views (fast, for the rejection checks), leaving `image` None."""
    for p in prims:
        if p.kind not in KINDS or p.material not in MATERIALS:
            raise ValueError(f"unknown primitive kind or material: {p.kind!r}, {p.material!r}")
    fr = _Frame(prims, cam, ss)
    pos, hs, ws = fr.pos, fr.hs, fr.ws
    best_t = np.full((hs, ws), np.inf, dtype=F)
    best = np.full((hs, ws), -1, dtype=np.int32)
    rects: list[tuple[int, int, int, int] | None] = []
    for prim, rot in zip(prims, fr.rots, strict=True):
        old = _screen_rect(prim, cam, ss)
        rects.append(_meet(old, _tight_rect(prim, rot, fr.view)))
    obj_ids = sorted({p.obj for p in prims})
    region: dict[int, tuple[int, int, int, int] | None] = dict.fromkeys(obj_ids)
    for prim, rect in zip(prims, rects, strict=True):
        r = region[prim.obj]
        if rect is not None:
            region[prim.obj] = (
                rect if r is None else (min(r[0], rect[0]), min(r[1], rect[1]), max(r[2], rect[2]), max(r[3], rect[3]))
            )
    full = {o: np.zeros((0, 0) if r is None else (r[3] - r[1], r[2] - r[0]), dtype=bool) for o, r in region.items()}
    for k, prim in enumerate(prims):
        rect = rects[k]
        if rect is None:
            continue
        x0, y0, x1, y1 = rect
        sub = fr.rect_rays(x0, y0, x1, y1)
        t, _ = _intersect(prim, fr.rots[k], pos[None, :], sub, False)
        t = t.reshape(y1 - y0, x1 - x0)
        rx0, ry0 = region[prim.obj][:2]  # type: ignore[index]
        full[prim.obj][y0 - ry0 : y1 - ry0, x0 - rx0 : x1 - rx0] |= np.isfinite(t)
        bt = best_t[y0:y1, x0:x1]
        closer = t < bt
        np.copyto(bt, t, where=closer)
        best[y0:y1, x0:x1][closer] = k
    image = None
    if shade:
        normals = []
        for k, prim in enumerate(prims):
            rect = rects[k]
            if rect is None:
                continue
            x0, y0, x1, y1 = rect
            won = best[y0:y1, x0:x1] == k
            if not won.any():
                continue
            ys, xs = np.nonzero(won)
            pix = (ys + y0) * ws + (xs + x0)
            _, n = _intersect(prim, fr.rots[k], pos[None, :], fr.rays_at(pix), True)
            assert n is not None
            normals.append((pix, n))
        image = _picture(fr, best, best_t, normals)
    views = _views(best, full, region, prims, cam, ss)
    prim_obj = np.array([p.obj for p in prims] + [-1], dtype=np.int32)
    first = best[::ss, ::ss]
    # The buffers at picture resolution take each pixel's first subpixel.
    return Render3D(
        image=image,
        ids=prim_obj[first].astype(np.int16),
        parts=first.astype(np.int16),
        objects=views,
        subparts=best.astype(np.int16),
        ss=ss,
    )


def _box_of(mask: np.ndarray, ss: int) -> tuple[int, int, int, int] | None:
    rows = np.nonzero(mask.any(axis=1))[0]
    cols = np.nonzero(mask.any(axis=0))[0]
    if not rows.size:
        return None
    return int(cols[0]) // ss, int(rows[0]) // ss, int(cols[-1]) // ss + 1, int(rows[-1]) // ss + 1


def _views(
    best: np.ndarray,
    full: dict[int, np.ndarray],
    region: dict[int, tuple[int, int, int, int] | None],
    prims: list[Primitive],
    cam: Camera,
    ss: int,
) -> dict[int, ObjectView]:
    views = {}
    area = float(ss * ss)
    prim_obj = np.array([p.obj for p in prims] + [-1], dtype=np.int32)
    if prims and min(p.obj for p in prims) < 0:
        ids_all = prim_obj[best]
        counts = np.bincount(ids_all.ravel() + 1, minlength=max(full, default=0) + 2)
        count_of = {o: int(counts[o + 1]) for o in full}
    else:
        per_prim = np.bincount(best.ravel() + 1, minlength=len(prims) + 1)[1:]
        count_of = dict.fromkeys(full, 0)
        for p, c in zip(prims, per_prim, strict=True):
            count_of[p.obj] += int(c)
    for o, mask in full.items():
        sil = _box_of(mask, 1) if mask.size else None
        vis_box = None
        if sil is not None:
            rx0, ry0 = region[o][:2]  # type: ignore[index]
            # Visible pixels lie inside the unoccluded outline, so their box is searched there only.
            x0, y0, x1, y1 = sil[0] + rx0, sil[1] + ry0, sil[2] + rx0, sil[3] + ry0
            sub = _box_of(prim_obj[best[y0:y1, x0:x1]] == o, 1)
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
            visible=float(count_of[o]) / area,
            full=float(mask.sum()) / area,
            bbox=vis_box,
            silhouette=sil,
            centre=(float(cx), float(cy)),
            foot=(float(fx), float(fy)),
        )
    return views
