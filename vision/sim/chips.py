"""Chip sprites: flat embossed plastic discs with a rim, a visible edge and a soft shadow.

A sprite is drawn once per (colour, size, look) in *board texture* space and stamped into
the board texture before it is warped, so perspective squashes chips exactly like the
print. A sprite is ``(S, S, 3) uint8`` BGR colour plus ``(S, S) float32`` alpha and 1 - alpha.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

BGR = tuple[int, int, int]
Sprite = tuple[np.ndarray, np.ndarray, np.ndarray]

CHIP_BGR: dict[str, BGR] = {
    "blue": (150, 72, 18),
    "green": (52, 128, 28),
    "red": (36, 34, 188),
    "yellow": (28, 196, 236),
    "flipped": (236, 238, 236),
}
"""Nominal chip colours (BGR); scenes vary hue, saturation and value around them."""

CHIP_SETS: tuple[str, ...] = ("standard", "other")
"""Chip sets a scene may show: ``standard`` varies each colour a little around ``CHIP_BGR``;
``other`` is another set's (or another camera's) chips, each team's colour turned in hue and
scaled in saturation and value as far as ``OTHER_SET`` allows (``other_set_tints``), and its
white side printed with any of ``WHITE_MARKS``."""

OTHER_SET = {"hue": 15.0, "saturation": (0.75, 1.1), "value": (0.8, 1.2)}
"""How far ``other`` chips stray: hue +-degrees, saturation and value factors: a red still a
red to anyone, a green from leaf to teal."""


def other_set_tints(rng: np.random.Generator) -> tuple[tuple[str, tuple[float, float, float]], ...]:
    """Per chip colour, the BGR gain (a scene's ``chip_tints``) that makes another set's chip of
    it: its hue turned, its saturation and value scaled, within ``OTHER_SET``; a white chip
    only lighter or darker."""
    tints = []
    for name, bgr in CHIP_BGR.items():
        hsv = cv2.cvtColor(np.float32([[bgr]]) / 255.0, cv2.COLOR_BGR2HSV)[0, 0]
        if name != "flipped":
            hsv[0] = (hsv[0] + rng.uniform(-OTHER_SET["hue"], OTHER_SET["hue"])) % 360.0
            hsv[1] = min(1.0, hsv[1] * rng.uniform(*OTHER_SET["saturation"]))
        hsv[2] = min(1.0, hsv[2] * rng.uniform(*OTHER_SET["value"]))
        turned = cv2.cvtColor(hsv[None, None], cv2.COLOR_HSV2BGR)[0, 0] * 255.0
        gain = np.maximum(turned, 1.0) / np.maximum(np.float32(bgr), 1.0)
        tints.append((name, (float(gain[0]), float(gain[1]), float(gain[2]))))
    return tuple(tints)


MARK_BGR: BGR = (95, 88, 82)
"""Ink of the printed mark on the white (flipped) side of a Jumbo chip."""

WHITE_MARKS: dict[str, tuple[float, float]] = {
    "ring_dot": (0.8, 0.8),
    "faint_ring": (0.3, 0.0),
    "dot": (0.0, 0.8),
    "none": (0.0, 0.0),
}
"""What the white side of a chip shows: the ink's strength in its ring and in its centre dot.
The standard set prints ``ring_dot``; another set (``other``) any of these: the rules say only
"the white printed side", and a reader that learned one mark must not need it."""


def other_white_mark(rng: np.random.Generator) -> str:
    """The mark another set prints on its chips' white side, one of ``WHITE_MARKS``."""
    return list(WHITE_MARKS)[int(rng.integers(len(WHITE_MARKS)))]


@dataclass(frozen=True)
class ChipLook:
    """Geometry of the sprite, in fractions of the chip radius unless stated."""

    edge_offset: tuple[float, float]  # top face shift from the base (texture px): chip thickness
    shadow_offset: tuple[float, float]  # shadow shift (texture px)
    shadow_blur: float  # shadow softness, fraction of radius
    shadow_strength: float  # 0..1 darkening under the chip
    light_angle: float  # direction the light comes from in texture space (radians)
    rim: float = 0.14  # raised rim width
    groove: float = 0.6  # radius of the embossed inner ring
    gloss: float = 0.35  # specular highlight strength
    white_mark: str = "ring_dot"  # what the white side shows (``WHITE_MARKS``)


def _disc(d: np.ndarray, r: float) -> np.ndarray:
    """Anti-aliased disc coverage for distance map ``d`` and radius ``r``."""
    return np.clip(r - d + 0.5, 0.0, 1.0)


@lru_cache(maxsize=64)
def chip_sprite(colour: BGR, radius: float, look: ChipLook, flipped: bool) -> Sprite:
    """(colour uint8 BGR, alpha, 1 - alpha) of one chip; the sprite centre is the chip's base."""
    ex, ey = look.edge_offset
    sx, sy = look.shadow_offset
    pad = radius * (1 + look.shadow_blur * 2) + max(abs(ex), abs(ey), abs(sx), abs(sy)) + 2
    n = int(np.ceil(pad)) * 2 + 1
    c = n // 2
    yy, xx = np.mgrid[0:n, 0:n].astype(np.float32) - c
    col = np.array(colour, np.float32)

    # soft shadow on the board
    sh = _disc(np.hypot(xx - sx, yy - sy), radius)
    k = max(1.0, look.shadow_blur * radius)
    sh = cv2.GaussianBlur(sh, (0, 0), k) * look.shadow_strength
    rgb = np.zeros((n, n, 3), np.float32)
    alpha = sh.copy()

    def over(layer_rgb: np.ndarray, layer_a: np.ndarray) -> None:
        nonlocal rgb, alpha
        rgb = layer_rgb * layer_a[..., None] + rgb * (1 - layer_a[..., None])
        alpha = layer_a + alpha * (1 - layer_a)

    # the visible edge: the disc swept from base to top, darker
    steps = 4
    edge_a = np.zeros((n, n), np.float32)
    for i in range(steps):
        f = i / steps
        edge_a = np.maximum(edge_a, _disc(np.hypot(xx - ex * f, yy - ey * f), radius))
    over(np.broadcast_to(col * 0.55, (n, n, 3)).astype(np.float32), edge_a)

    # the top face: flat with a raised rim and an embossed groove, lit from light_angle
    dx, dy = xx - ex, yy - ey
    d = np.hypot(dx, dy) / radius
    cos_l = (dx * np.cos(look.light_angle) + dy * np.sin(look.light_angle)) / np.maximum(d * radius, 1e-3)
    rim = np.clip((d - (1 - look.rim)) / look.rim, 0, 1)
    shade = 1.0 + 0.22 * np.sin(np.pi * rim) * cos_l - 0.12 * rim**2
    groove = np.exp(-(((d - look.groove) / 0.05) ** 2))
    shade += groove * (0.16 * np.roll(cos_l, 1, axis=0) - 0.08)
    shade -= 0.05 * d**2  # slight dome falloff
    face = col[None, None, :] * shade[..., None]
    if flipped:
        ring_ink, dot_ink = WHITE_MARKS[look.white_mark]
        ring = np.exp(-(((d - 0.42) / 0.045) ** 2)) * ring_ink
        dot = _disc(np.hypot(dx, dy), radius * 0.12) * dot_ink
        mark = np.clip(ring + dot, 0, 1)[..., None]
        face = face * (1 - mark) + np.array(MARK_BGR, np.float32) * mark
    spec = np.exp(-((dx + 0.35 * radius * np.cos(look.light_angle)) ** 2
                    + (dy + 0.35 * radius * np.sin(look.light_angle)) ** 2) / (2 * (0.22 * radius) ** 2))
    face = face + look.gloss * 255 * spec[..., None] * 0.4
    over(np.clip(face, 0, 255), _disc(np.hypot(dx, dy), radius))
    # crop to where the sprite shows, keeping its centre (the chip base) in the middle
    ys, xs = np.nonzero(alpha > 1.0 / 255)
    m = int(max(np.abs(ys - c).max(), np.abs(xs - c).max())) + 1 if len(ys) else 1
    sl = slice(max(c - m, 0), c + m + 1)
    col = np.clip(rgb[sl, sl], 0, 255).astype(np.uint8)  # straight (not premultiplied) colour
    a = np.ascontiguousarray(alpha[sl, sl])
    inv = (1.0 - a).astype(np.float32)
    for arr in (col, a, inv):
        arr.setflags(write=False)
    return col, a, inv


def stamp(canvas: np.ndarray, sprite: Sprite, centre: tuple[float, float]) -> None:
    """Composite ``sprite`` over ``canvas`` (uint8 BGR, in place) with its centre at ``centre``."""
    col, a, inv = sprite
    n = a.shape[0]
    x0 = round(centre[0]) - n // 2
    y0 = round(centre[1]) - n // 2
    h, w = canvas.shape[:2]
    cx0, cy0, cx1, cy1 = max(x0, 0), max(y0, 0), min(x0 + n, w), min(y0 + n, h)
    if cx0 >= cx1 or cy0 >= cy1:
        return
    sl = (slice(cy0 - y0, cy1 - y0), slice(cx0 - x0, cx1 - x0))
    canvas[cy0:cy1, cx0:cx1] = cv2.blendLinear(col[sl], canvas[cy0:cy1, cx0:cx1], a[sl], inv[sl])
