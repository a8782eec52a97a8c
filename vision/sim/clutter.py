"""Things on and around the board: a card box, a coffee cup, loose playing cards, hands and arms,
a team's pile of chips.

Each item is a few 3D polygons in world coordinates (cell heights; see ``camera``), projected
and filled in image space. Drawing also marks what the item covers (for occlusion ground
truth) and where its soft shadow falls (for the lighting stage).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from vision.sim.camera import Camera

BGR = tuple[int, int, int]
CLUTTER_KINDS: tuple[str, ...] = ("box", "cup", "cards", "hand", "chips")
SKIN_TONES: tuple[BGR, ...] = ((150, 180, 225), (120, 155, 205), (95, 130, 185), (60, 90, 140),
                               (40, 60, 100), (170, 195, 235))
_SHIFT = 4  # sub-pixel bits for cv2 polygon drawing


@dataclass(frozen=True)
class Clutter:
    """One object. Position in cell coordinates (col, row; the grid spans 0..10 both ways).

    ``angle`` turns it in the table plane (for a hand: the direction the fingers point, the
    arm comes from the opposite side); ``height`` lifts it above the board (hovering hands).
    """

    kind: str
    x: float
    y: float
    angle: float = 0.0
    size: float = 1.0
    colour: BGR = (200, 200, 200)
    height: float = 0.0
    accent: BGR = (240, 240, 240)  # second colour: print on a box, a sleeve on an arm
    motion: tuple[float, float] = (0.0, 0.0)  # cells moved since the last frame: smears a moving hand


@dataclass
class Canvas:
    """Where items are drawn: the frame, a coverage mask, and a low-resolution shadow map."""

    frame: np.ndarray  # (H, W, 3) uint8 BGR, drawn in place
    cover: np.ndarray  # (H, W) uint8, 255 where an item hides the board
    shadow: np.ndarray  # (h, w) float32 darkening 0..1 at 1/``shadow_scale`` resolution
    shadow_scale: int


@dataclass(frozen=True)
class Placement:
    """How cell coordinates become world points: grid aspect, board bump, object scale."""

    aspect: float
    bump: np.ndarray  # 3x3 plane motion of the board
    light: tuple[float, float]  # plane shift of a shadow per unit of height
    object_scale: float  # life-size objects are smaller in cells on the bigger Jumbo mat

    def world(self, pts: np.ndarray, z: float | np.ndarray) -> np.ndarray:
        """(N, 2) cell coordinates at height ``z`` above the table -> (N, 3) world points."""
        x = (pts[:, 0] - 5.0) * self.aspect
        y = pts[:, 1] - 5.0
        b = self.bump
        out = np.empty((len(pts), 3))
        out[:, 0] = b[0, 0] * x + b[0, 1] * y + b[0, 2]
        out[:, 1] = b[1, 0] * x + b[1, 1] * y + b[1, 2]
        out[:, 2] = -np.asarray(z, np.float64)
        return out

    def world_plane(self, pts: np.ndarray, z: float | np.ndarray) -> np.ndarray:
        """Like ``world`` for points already in plane units (cell heights, grid centre at 0)."""
        cells = np.column_stack([pts[:, 0] / self.aspect + 5.0, pts[:, 1] + 5.0])
        return self.world(cells, z)


def _clip_near(cam: Camera, world: np.ndarray, near: float = 0.5) -> np.ndarray:
    """Project a convex world polygon, first cutting away what lies behind the plane ``near``
    cells in front of the camera (an arm reaching back past the camera)."""
    pc = world @ cam.R.T + cam.t
    z = pc[:, 2]
    if (z > near).all():
        return cam.project(world)
    out = []
    n = len(pc)
    for i in range(n):  # Sutherland-Hodgman against one plane
        a, b = pc[i], pc[(i + 1) % n]
        ina, inb = a[2] > near, b[2] > near
        if ina:
            out.append(a)
        if ina != inb:
            f = (near - a[2]) / (b[2] - a[2])
            out.append(a + (b - a) * f)
    if len(out) < 3:
        return np.zeros((0, 2))
    uvw = np.array(out) @ cam.K.T
    return uvw[:, :2] / uvw[:, 2:3]


def _fill(cv: Canvas, pts: np.ndarray, colour: BGR, *, cover: bool = True) -> None:
    if len(pts) < 3:
        return
    h, w = cv.cover.shape
    if np.abs(pts).max() > 3 * max(w, h):  # far outside: clip to a margin around the frame (fast, exact)
        rect = np.array([[-w, -h], [2 * w, -h], [2 * w, 2 * h], [-w, 2 * h]], np.float32)
        area, clipped = cv2.intersectConvexConvex(pts.astype(np.float32), rect)
        if clipped is None or area <= 0:
            return
        pts = clipped.reshape(-1, 2).astype(np.float64)
    p = np.round(pts * (1 << _SHIFT)).astype(np.int32)
    cv2.fillPoly(cv.frame, [p], colour, cv2.LINE_AA, _SHIFT)
    if cover:
        cv2.fillPoly(cv.cover, [p], 255, cv2.LINE_8, _SHIFT)


def _shadow(cv: Canvas, pts: np.ndarray, strength: float) -> None:
    p = np.round(pts / cv.shadow_scale * (1 << _SHIFT)).astype(np.int32)
    layer = np.zeros_like(cv.shadow)
    cv2.fillPoly(layer, [p], 1.0, cv2.LINE_AA, _SHIFT)
    np.maximum(cv.shadow, layer * strength, out=cv.shadow)


@lru_cache(maxsize=16)
def _unit_circle(n: int) -> np.ndarray:
    t = np.linspace(0, 2 * np.pi, n, endpoint=False)
    return np.column_stack([np.cos(t), np.sin(t)])


def _ellipse(cx: float, cy: float, rx: float, ry: float, ang: float, n: int = 28) -> np.ndarray:
    u = _unit_circle(n)
    c, s = np.cos(ang), np.sin(ang)
    ex, ey = rx * u[:, 0], ry * u[:, 1]
    out = np.empty((n, 2))
    out[:, 0] = cx + c * ex - s * ey
    out[:, 1] = cy + s * ex + c * ey
    return out


def _rect(cx: float, cy: float, w: float, h: float, ang: float) -> np.ndarray:
    c, s = np.cos(ang), np.sin(ang)
    local = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]])
    return np.column_stack([cx + c * local[:, 0] - s * local[:, 1], cy + s * local[:, 0] + c * local[:, 1]])


def _shade(colour: BGR, k: float) -> BGR:
    return tuple(int(min(255, max(0, v * k))) for v in colour)  # type: ignore[return-value]


def _cast(cam: Camera, pl: Placement, foot: np.ndarray, height: float) -> np.ndarray:
    """Image polygon of the shadow of a footprint raised to ``height`` (convex hull)."""
    lifted = foot + np.array([pl.light[0] / pl.aspect, pl.light[1]]) * height
    both = np.vstack([cam.project(pl.world(foot, 0.0)), cam.project(pl.world(lifted, 0.0))])
    return cv2.convexHull(both.astype(np.float32)).reshape(-1, 2)


def _box(cv: Canvas, cam: Camera, pl: Placement, it: Clutter) -> None:
    s = it.size * pl.object_scale
    w, length, h = 1.5 * s, 2.1 * s, 0.5 * s
    foot = _rect(it.x, it.y, w / pl.aspect, length, np.deg2rad(it.angle))
    _shadow(cv, _cast(cam, pl, foot, h + it.height), 0.45)
    base = cam.project(pl.world(foot, it.height))
    top = cam.project(pl.world(foot, it.height + h))
    hull = cv2.convexHull(np.vstack([base, top]).astype(np.float32)).reshape(-1, 2)
    _fill(cv, hull, _shade(it.colour, 0.6))
    _fill(cv, top, it.colour)
    inner = _rect(it.x, it.y, w / pl.aspect * 0.8, length * 0.85, np.deg2rad(it.angle))
    p = np.round(cam.project(pl.world(inner, it.height + h)) * (1 << _SHIFT)).astype(np.int32)
    cv2.polylines(cv.frame, [p], True, it.accent, max(1, int(abs(top[1] - top[0]).max() / 25)),
                  cv2.LINE_AA, _SHIFT)
    logo = _ellipse(it.x, it.y, 0.35 * w / pl.aspect, 0.3 * length, np.deg2rad(it.angle))
    _fill(cv, cam.project(pl.world(logo, it.height + h)), it.accent)


def _cup(cv: Canvas, cam: Camera, pl: Placement, it: Clutter) -> None:
    s = it.size * pl.object_scale
    r, h = 0.95 * s, 2.2 * s
    foot = _ellipse(it.x, it.y, r / pl.aspect, r, 0.0, 32)
    _shadow(cv, _cast(cam, pl, foot, h), 0.45)
    base = cam.project(pl.world(foot, 0.0))
    top_ring = _ellipse(it.x, it.y, 1.08 * r / pl.aspect, 1.08 * r, 0.0, 32)
    top = cam.project(pl.world(top_ring, h))
    hull = cv2.convexHull(np.vstack([base, top]).astype(np.float32)).reshape(-1, 2)
    _fill(cv, hull, it.colour)
    # a darker band down the side away from the light, then a highlight
    t = np.linspace(0, np.pi, 12)
    la = np.arctan2(pl.light[1], pl.light[0])
    for off, k in ((la - np.pi / 2, 0.7), (la + np.pi + 0.4, 1.12)):
        arc = np.column_stack([it.x + r / pl.aspect * np.cos(off + t * 0.35),
                               it.y + r * np.sin(off + t * 0.35)])
        band = np.vstack([cam.project(pl.world(arc, 0.0)), cam.project(pl.world(arc, h))])
        hb = cv2.convexHull(band.astype(np.float32)).reshape(-1, 2)
        _fill(cv, hb, _shade(it.colour, k), cover=False)
    handle_t = np.linspace(-np.pi / 2, np.pi / 2, 14)
    hx = it.x + (r * 1.05 + 0.55 * s * np.cos(handle_t)) / pl.aspect * np.cos(it.angle)
    hy = it.y + (r * 1.05 + 0.55 * s * np.cos(handle_t)) * np.sin(it.angle)
    hz = h * 0.55 + 0.6 * s * np.sin(handle_t)
    hp = cam.project(pl.world(np.column_stack([hx, hy]), hz))
    thick = max(2, int(np.linalg.norm(top[0] - top[16]) / 10))
    handle = [np.round(hp).astype(np.int32)]
    cv2.polylines(cv.frame, handle, False, _shade(it.colour, 0.9), thick, cv2.LINE_AA)
    cv2.polylines(cv.cover, [np.round(hp).astype(np.int32)], False, 255, thick)
    _fill(cv, top, _shade(it.colour, 1.05))
    coffee = _ellipse(it.x, it.y, 0.95 * r / pl.aspect, 0.95 * r, 0.0, 32)
    _fill(cv, cam.project(pl.world(coffee, h * 0.93)), (22, 38, 62))


def _cards(cv: Canvas, cam: Camera, pl: Placement, it: Clutter) -> None:
    s = it.size * pl.object_scale
    w, length = 1.45 * s, 2.05 * s
    rng = np.random.default_rng(int(abs(it.x * 1000 + it.y * 7)))
    n = 1 + int(rng.integers(3))
    for i in range(n):
        a = np.deg2rad(it.angle + 14 * i)
        cx, cy = it.x + 0.25 * i * np.cos(a), it.y + 0.25 * i * np.sin(a)
        foot = _rect(cx, cy, w / pl.aspect, length, a)
        z = it.height + 0.02 * i
        _shadow(cv, _cast(cam, pl, foot, z + 0.05), 0.25)
        pts = cam.project(pl.world(foot, z))
        _fill(cv, pts, it.colour)
        p = np.round(pts * (1 << _SHIFT)).astype(np.int32)
        cv2.polylines(cv.frame, [p], True, _shade(it.colour, 0.7), 1, cv2.LINE_AA, _SHIFT)
        ink = (40, 35, 190) if rng.random() < 0.5 else (30, 30, 30)
        c, sn = np.cos(a), np.sin(a)
        uv = np.array([(-0.35, -0.4), (0, 0), (0.35, 0.4), (0, -0.2), (0, 0.2)])
        px = cx + (c * uv[:, 0] * w - sn * uv[:, 1] * length) / pl.aspect
        py = cy + sn * uv[:, 0] * w + c * uv[:, 1] * length
        pips = np.vstack([_ellipse(x, y, 0.09 * s / pl.aspect, 0.09 * s, a, 10) for x, y in zip(px, py, strict=True)])
        img = cam.project(pl.world(pips, z)).reshape(len(uv), 10, 2)
        p = [np.round(q * (1 << _SHIFT)).astype(np.int32) for q in img]
        cv2.fillPoly(cv.frame, p, ink, cv2.LINE_AA, _SHIFT)


def _tube_outline(line: np.ndarray, half: np.ndarray, cap: bool) -> np.ndarray:
    """Outline of a thick stroke along a straight ``line`` ((N, 2) plane units), half-widths ``half``."""
    d = line[-1] - line[0]
    d = d / max(float(np.hypot(d[0], d[1])), 1e-9)
    n = np.array([-d[1], d[0]])
    off = half[:, None] * n
    parts = [line + off]
    if cap:  # round fingertip
        a0 = np.arctan2(n[1], n[0])
        parts.append(line[-1] + half[-1] * np.column_stack([np.cos(a0 - _CAP_T), np.sin(a0 - _CAP_T)]))
    parts.append((line - off)[::-1])
    return np.vstack(parts)


_CAP_T = np.linspace(0, np.pi, 9)[1:-1]


def _shaded(cv: Canvas, cam: Camera, pl: Placement, line: np.ndarray, half: np.ndarray, z: np.ndarray,
            colour: BGR, cap: bool = False) -> None:
    """A limb as a lit cylinder: dark rim, mid tone, a highlight towards the light."""
    lx, ly = pl.light
    shift = -np.array([lx, ly]) / max(np.hypot(lx, ly), 1e-9)
    tones = ((0.72, 1.0, 0.0), (0.92, 0.78, 0.08), (1.06, 0.42, 0.3))
    polys = [_tube_outline(line + shift * off * half[:, None], half * frac, cap) for _, frac, off in tones]
    n_cap = len(polys[0]) - 2 * len(z)
    zz = np.concatenate([z, np.full(n_cap, z[-1]), z[::-1]])
    world = pl.world_plane(np.vstack(polys), np.tile(zz, len(tones)))
    for i, (k, frac, _) in enumerate(tones):
        pts = _clip_near(cam, world[i * len(zz):(i + 1) * len(zz)])
        _fill(cv, pts, _shade(colour, k), cover=frac == 1.0)


def _hand(cv: Canvas, cam: Camera, pl: Placement, it: Clutter) -> None:
    """A hand (palm, fingers, thumb) with forearm and sleeve, hovering ``height`` over the table."""
    s = it.size * pl.object_scale
    a = np.deg2rad(it.angle)
    d = np.array([np.cos(a), np.sin(a)])  # finger direction, plane units
    n = np.array([-d[1], d[0]])
    c = np.array([(it.x - 5.0) * pl.aspect, it.y - 5.0])
    h = it.height

    def at(along: float, across: float) -> np.ndarray:
        return c + (d * along + n * across) * s

    # shadow of the whole hand and arm on the board, softer the higher it hovers
    foot = np.vstack([at(2.4, -1.0), at(2.4, 1.2), at(-1.0, 1.4), at(-20.0, 1.9), at(-20.0, -1.9),
                      at(-1.0, -1.2)])
    sh = cam.project(pl.world_plane(foot + np.array(pl.light) * h, 0.0))
    _shadow(cv, cv2.convexHull(sh.astype(np.float32)).reshape(-1, 2), float(np.clip(0.55 - 0.05 * h, 0.2, 0.55)))
    # forearm rising towards the elbow, sleeve beyond
    f = np.linspace(0, 1, 12)
    arm = np.array([at(-0.6 - 30.0 * t, 0.3 * t) for t in f])  # long enough to leave the frame
    arm_half = (0.62 + 0.6 * f) * s
    arm_z = h + 9.0 * f**1.2
    _shaded(cv, cam, pl, arm, arm_half, arm_z, it.colour)
    sl = f >= 0.17
    _shaded(cv, cam, pl, arm[sl], arm_half[sl] * 1.25, arm_z[sl] + 0.05, it.accent)
    # palm, then four fingers bent down towards the board, then the thumb
    palm = np.array([at(t, 0.0) for t in np.linspace(-0.8, 1.0, 6)])
    _shaded(cv, cam, pl, palm, np.array([0.72, 0.85, 0.92, 0.95, 0.93, 0.88]) * s, np.full(6, h), it.colour)
    for off, ln in ((-0.62, 1.25), (-0.21, 1.5), (0.21, 1.42), (0.6, 1.1)):
        t = np.linspace(0, 1, 5)
        line = np.array([at(0.85 + ln * u, off * (1 + 0.15 * u)) for u in t])
        _shaded(cv, cam, pl, line, np.full(5, 0.2 * s), h - 0.5 * t**2 * s, it.colour, cap=True)
    t = np.linspace(0, 1, 5)
    thumb = np.array([at(-0.2 + 1.1 * u, 0.8 + 0.55 * u) for u in t])
    _shaded(cv, cam, pl, thumb, np.full(5, 0.26 * s), h - 0.3 * t * s, it.colour, cap=True)


def _chips(cv: Canvas, cam: Camera, pl: Placement, it: Clutter) -> None:
    """A team's pile of chips beside the board: a dozen or so discs of ``colour``, some on
    others, each with a darker rim and a shadow. Chips are sized to the cells, as the game's are
    (a Jumbo set's chips are bigger), and ``size`` scales the pile's spread, not the chips."""
    rng = np.random.default_rng(int(abs(it.x * 1000 + it.y * 7)))
    n = 6 + int(rng.integers(10))
    r = 0.36
    spread = 0.9 * it.size
    for i in range(n):
        cx = it.x + rng.normal(0, spread) / pl.aspect
        cy = it.y + rng.normal(0, spread)
        z = it.height + 0.09 * int(rng.integers(3) if i > n // 2 else 0)
        foot = _ellipse(cx, cy, r / pl.aspect, r, 0.0, 24)
        _shadow(cv, _cast(cam, pl, foot, z + 0.09), 0.3)
        _fill(cv, cam.project(pl.world(foot, z + 0.09)), _shade(it.colour, 0.7))
        face = _ellipse(cx, cy, 0.8 * r / pl.aspect, 0.8 * r, 0.0, 24)
        _fill(cv, cam.project(pl.world(face, z + 0.09)), it.colour)


_DRAW = {"box": _box, "cup": _cup, "cards": _cards, "hand": _hand, "chips": _chips}


MOTION_BLUR_SHARE = 0.5  # the shutter is open for this share of the frame interval
MIN_SMEAR_PX = 2.0
SMEAR_PX_PER_TAP = 6.0  # blur long smears at 1/(length / this) resolution


def _smear(cv: Canvas, cam: Camera, pl: Placement, it: Clutter, before: np.ndarray, cover_before: np.ndarray) -> None:
    """Motion-blur a just-drawn moving item along its image motion (the camera's shutter time)."""
    mx, my = it.motion
    here = np.array([[it.x, it.y]])
    p0 = cam.project(pl.world(here, it.height))[0]
    p1 = cam.project(pl.world(here - np.array([[mx, my]]), it.height))[0]
    v = (p0 - p1) * MOTION_BLUR_SHARE
    length = float(np.hypot(*v))
    if length < MIN_SMEAR_PX:
        return
    mask = cv2.subtract(cv.cover, cover_before)
    x, y, w, h = cv2.boundingRect(mask)
    if w == 0 or h == 0:
        return
    pad = int(np.ceil(length)) + 1
    H, W = mask.shape
    x0, y0, x1, y1 = max(x - pad, 0), max(y - pad, 0), min(x + w + pad, W), min(y + h + pad, H)
    # a long smear is smooth: blur it at reduced resolution (cost stays small however fast the hand)
    f = max(1, int(length // SMEAR_PX_PER_TAP))
    rw, rh = max(1, (x1 - x0) // f), max(1, (y1 - y0) // f)
    vs = v / f
    n = int(np.ceil(np.hypot(*vs))) | 1
    k = np.zeros((n, n), np.float32)
    c = n // 2
    cv2.line(k, (round(c - vs[0] / 2), round(c - vs[1] / 2)), (round(c + vs[0] / 2), round(c + vs[1] / 2)), 1.0, 1,
             cv2.LINE_AA)
    k /= max(float(k.sum()), 1e-6)
    m = mask[y0:y1, x0:x1].astype(np.float32) / 255.0
    hand = cv.frame[y0:y1, x0:x1].astype(np.float32) * m[..., None]
    small = (rw, rh)
    mb = cv2.resize(cv2.filter2D(cv2.resize(m, small, interpolation=cv2.INTER_AREA), -1, k), (x1 - x0, y1 - y0))
    hb = cv2.resize(cv2.filter2D(cv2.resize(hand, small, interpolation=cv2.INTER_AREA), -1, k), (x1 - x0, y1 - y0))
    back = before[y0:y1, x0:x1].astype(np.float32)
    out = back * (1.0 - mb[..., None]) + hb
    cv.frame[y0:y1, x0:x1] = np.clip(out, 0, 255).astype(np.uint8)


def draw_items(cv: Canvas, cam: Camera, pl: Placement, items: tuple[Clutter, ...], *, smear: bool = True) -> None:
    """Draw every item, lowest first (flat cards, then objects, then hovering hands); moving
    items are motion-blurred unless ``smear`` is off (geometry-only uses)."""
    order = sorted(items, key=lambda it: (it.kind == "hand", it.kind != "cards", it.height))
    for it in order:
        if it.kind not in _DRAW:
            raise ValueError(f"unknown clutter kind {it.kind!r}; expected one of: {', '.join(CLUTTER_KINDS)}")
        moving = smear and it.motion != (0.0, 0.0)
        if moving:
            before, cover_before = cv.frame.copy(), cv.cover.copy()
        _DRAW[it.kind](cv, cam, pl, it)
        if moving:
            _smear(cv, cam, pl, it, before, cover_before)
