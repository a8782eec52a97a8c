"""Things on and around the board: a card box, a coffee cup, loose playing cards, hands and arms.

Each item is a few 3D polygons in world coordinates (cell heights; see ``camera``), projected
and filled in image space. Drawing also marks what the item covers (for occlusion ground
truth) and where its soft shadow falls (for the lighting stage).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.sim.camera import Camera

BGR = tuple[int, int, int]
CLUTTER_KINDS: tuple[str, ...] = ("box", "cup", "cards", "hand")
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
        xy = np.column_stack([(pts[:, 0] - 5.0) * self.aspect, pts[:, 1] - 5.0, np.ones(len(pts))])
        xy = xy @ self.bump.T
        zz = np.broadcast_to(-np.asarray(z, np.float64), (len(pts),))
        return np.column_stack([xy[:, 0], xy[:, 1], zz])


def _fill(cv: Canvas, pts: np.ndarray, colour: BGR, *, cover: bool = True) -> None:
    p = np.round(pts * (1 << _SHIFT)).astype(np.int32)
    cv2.fillPoly(cv.frame, [p], colour, cv2.LINE_AA, _SHIFT)
    if cover:
        cv2.fillPoly(cv.cover, [p], 255, cv2.LINE_8, _SHIFT)


def _shadow(cv: Canvas, pts: np.ndarray, strength: float) -> None:
    p = np.round(pts / cv.shadow_scale * (1 << _SHIFT)).astype(np.int32)
    layer = np.zeros_like(cv.shadow)
    cv2.fillPoly(layer, [p], 1.0, cv2.LINE_AA, _SHIFT)
    np.maximum(cv.shadow, layer * strength, out=cv.shadow)


def _ellipse(cx: float, cy: float, rx: float, ry: float, ang: float, n: int = 28) -> np.ndarray:
    t = np.linspace(0, 2 * np.pi, n, endpoint=False)
    c, s = np.cos(ang), np.sin(ang)
    ex, ey = rx * np.cos(t), ry * np.sin(t)
    return np.column_stack([cx + c * ex - s * ey, cy + s * ex + c * ey])


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
        for u, v in ((-0.35, -0.4), (0, 0), (0.35, 0.4), (0, -0.2), (0, 0.2)):
            px = cx + (c * u * w - sn * v * length) / pl.aspect
            py = cy + sn * u * w + c * v * length
            pip = _ellipse(px, py, 0.09 * s / pl.aspect, 0.09 * s, a, 10)
            _fill(cv, cam.project(pl.world(pip, z)), ink, cover=False)


def _hand(cv: Canvas, cam: Camera, pl: Placement, it: Clutter) -> None:
    """A hand (palm, fingers, thumb) with its forearm and sleeve, hovering at ``height``."""
    s = it.size * pl.object_scale
    a = np.deg2rad(it.angle)
    d = np.array([np.cos(a), np.sin(a)])  # finger direction (cell coordinates, aspect-corrected)
    n = np.array([-d[1], d[0]])
    asp = np.array([1 / pl.aspect, 1.0])
    centre = np.array([it.x, it.y])
    h = it.height

    def at(along: float, across: float) -> np.ndarray:
        return centre + (d * along + n * across) * s * asp

    # forearm from far behind (rising) to the wrist, then sleeve
    wrist = at(-1.2, 0)
    elbow = at(-7.5, 0.3)
    arm_pts = []
    for side in (1, -1):
        for f in np.linspace(0, 1, 8)[:: side]:
            p = wrist + (elbow - wrist) * f + n * side * (0.7 + 0.35 * f) * s * asp
            arm_pts.append((p, h + 3.0 * f))
    arm_xy = np.array([p for p, _ in arm_pts])
    arm_z = np.array([z for _, z in arm_pts])
    shadow_strength = float(np.clip(0.55 - 0.06 * h, 0.15, 0.55))
    foot_all = np.vstack([_ellipse(*at(0.3, 0), 1.3 * s / pl.aspect, 1.6 * s, a + np.pi / 2), arm_xy])
    sh = cam.project(pl.world(foot_all + np.array(pl.light) * h * asp, 0.0))
    _shadow(cv, cv2.convexHull(sh.astype(np.float32)).reshape(-1, 2), shadow_strength)
    arm_img = cam.project(pl.world(arm_xy, arm_z))
    _fill(cv, arm_img, it.colour)
    k = len(arm_xy) // 2
    mid = [i for i in range(len(arm_xy)) if (i < k and i >= k - 3) or (i >= k and i < k + 3)]
    if mid:
        sleeve_poly = cam.project(pl.world(arm_xy[mid], arm_z[mid]))
        _fill(cv, sleeve_poly, it.accent)
    # palm
    palm = _ellipse(*at(0.2, 0), 1.05 * s / pl.aspect, 1.25 * s, a + np.pi / 2, 24)
    _fill(cv, cam.project(pl.world(palm, h)), _shade(it.colour, 1.04))
    # fingers: four, slightly spread and of different length, then the thumb
    for i, (off, ln) in enumerate(((-0.66, 1.6), (-0.22, 1.85), (0.22, 1.75), (0.64, 1.35))):
        base = at(1.0, off)
        tip = at(1.0 + ln, off * 1.25)
        mid_pt = (base + tip) / 2
        ang = np.arctan2((tip - base)[1], (tip - base)[0] * pl.aspect)
        length = np.hypot((tip - base)[0] * pl.aspect, (tip - base)[1])
        f = _ellipse(mid_pt[0], mid_pt[1], length / 2 / pl.aspect, 0.22 * s, ang, 16)
        _fill(cv, cam.project(pl.world(f, h)), _shade(it.colour, 0.93 + 0.03 * (i % 2)))
        p = np.round(cam.project(pl.world(f, h)) * (1 << _SHIFT)).astype(np.int32)
        cv2.polylines(cv.frame, [p], True, _shade(it.colour, 0.72), 1, cv2.LINE_AA, _SHIFT)
    thumb_base, thumb_tip = at(-0.2, 1.0), at(0.9, 1.75)
    mid_pt = (thumb_base + thumb_tip) / 2
    ang = np.arctan2((thumb_tip - thumb_base)[1], (thumb_tip - thumb_base)[0] * pl.aspect)
    length = np.hypot((thumb_tip - thumb_base)[0] * pl.aspect, (thumb_tip - thumb_base)[1])
    f = _ellipse(mid_pt[0], mid_pt[1], length / 2 / pl.aspect, 0.3 * s, ang, 16)
    _fill(cv, cam.project(pl.world(f, h)), _shade(it.colour, 0.9))
    # knuckle shading across the palm
    kn = np.array([at(0.9, -0.8), at(0.9, 0.8)])
    kp = np.round(cam.project(pl.world(kn, h))).astype(np.int32)
    cv2.line(cv.frame, tuple(kp[0]), tuple(kp[1]), _shade(it.colour, 0.85), max(1, int(s * 2)), cv2.LINE_AA)


_DRAW = {"box": _box, "cup": _cup, "cards": _cards, "hand": _hand}


def draw_items(cv: Canvas, cam: Camera, pl: Placement, items: tuple[Clutter, ...]) -> None:
    """Draw every item, lowest first (flat cards, then objects, then hovering hands)."""
    order = sorted(items, key=lambda it: (it.kind == "hand", it.kind != "cards", it.height))
    for it in order:
        if it.kind not in _DRAW:
            raise ValueError(f"unknown clutter kind {it.kind!r}; expected one of: {', '.join(CLUTTER_KINDS)}")
        _DRAW[it.kind](cv, cam, pl, it)
