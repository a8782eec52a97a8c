"""Camera processing the simulated camera does not do, as functions of a frame and its true corners.

``PROCESSING`` names the fixed ones ``benchmarks/vision_stress.py`` scores detect under (a
phone's saturation boost, a dim webcam's washed colours, sharpening, tone curves, casts past the
renderer's range, a phone's local tone mapping and noise reduction, a lens's vignette, a
portrait photo, half the pixels, heavy compression, a mirror; and what a real room and a cheap
lens do that the renderer does not: lamp and window light of two colours across one board, colour
fringes towards the frame's edges, a near board sharp and its far end blurred, a band of shadow
across the board, grey or lit blue by a window).
``fit_processing`` draws a random saturation for a fit script's scene, so the networks learn
from colours as strong or as pale as real cameras make them; the renderer itself stays as it
is, so the accuracy benchmark's frames do not change.
"""

from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np

from vision.geometry import mirror_points

Processing = Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]
"""A frame ``(H, W, 3)`` uint8 and its true corners ``(4, 2)`` in, the processed frame and where
those corners are in it out."""


def _tone(curve: Callable[[np.ndarray], np.ndarray]) -> Processing:
    """A processing that maps every channel's level through ``curve`` (levels in [0, 1])."""
    table = np.clip(np.rint(curve(np.arange(256) / 255.0) * 255.0), 0, 255).astype(np.uint8)
    return lambda frame, corners: (cv2.LUT(frame, table), corners)


def _scaled(frame: np.ndarray, gains: np.ndarray) -> np.ndarray:
    """``frame`` times ``gains`` (float32, broadcast over it: per channel, per pixel or both),
    clipped to uint8 as a camera would."""
    return np.clip(frame * gains, 0, 255).astype(np.uint8)


def _gains(b: float, g: float, r: float) -> Processing:
    """A colour cast: each channel scaled (B, G, R), clipped as a camera would."""
    gains = np.array([b, g, r], np.float32)
    return lambda frame, corners: (_scaled(frame, gains), corners)


def _saturation(factor: float) -> Processing:
    """The camera's colour saturation scaled by ``factor`` (HSV S channel)."""

    def apply(frame: np.ndarray, corners: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        hsv = cv2.cvtColor(frame, cv2.COLOR_BGR2HSV)
        hsv[..., 1] = np.clip(hsv[..., 1] * np.float32(factor), 0, 255).astype(np.uint8)
        return cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR), corners

    return apply


def _sharpen(frame: np.ndarray, corners: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A phone's unsharp mask: halos along every edge."""
    return cv2.addWeighted(frame, 2.2, cv2.GaussianBlur(frame, (0, 0), 2.0), -1.2, 0), corners


def _local_contrast(frame: np.ndarray, corners: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A phone's HDR look: lightness equalised tile by tile (CLAHE), so the same card is brighter
    in a dark corner of the picture than in a bright one."""
    lab = cv2.cvtColor(frame, cv2.COLOR_BGR2LAB)
    lab[..., 0] = cv2.createCLAHE(clipLimit=3.0, tileGridSize=(8, 8)).apply(np.ascontiguousarray(lab[..., 0]))
    return cv2.cvtColor(lab, cv2.COLOR_LAB2BGR), corners


def _denoised(frame: np.ndarray, corners: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A phone's noise reduction: flat areas smoothed, fine print smeared into them."""
    return cv2.bilateralFilter(frame, 9, 40, 5), corners


def _vignette(frame: np.ndarray, corners: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A cheap wide lens: the picture darkens towards its corners (45 % at the far corners)."""
    h, w = frame.shape[:2]
    y, x = np.ogrid[0:h, 0:w]
    falloff = 1.0 - 0.45 * (((x - w / 2) / (w / 2)) ** 2 + ((y - h / 2) / (h / 2)) ** 2) / 2.0
    return _scaled(frame, falloff[..., None].astype(np.float32)), corners


def _jpeg(quality: int) -> Processing:
    """The frame saved as a JPEG of ``quality`` and read back (a cheap webcam's stream)."""

    def apply(frame: np.ndarray, corners: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        _ok, buf = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, quality])
        return cv2.imdecode(buf, cv2.IMREAD_COLOR), corners

    return apply


def _half(frame: np.ndarray, corners: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Half the pixels each way (a 640x360 webcam mode)."""
    h, w = frame.shape[:2]
    # pixel centres: x_small = (x + 0.5) / 2 - 0.5
    return cv2.resize(frame, (w // 2, h // 2), interpolation=cv2.INTER_AREA), (corners + 0.5) / 2.0 - 0.5


def _portrait(frame: np.ndarray, corners: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A phone held upright: the frame turned a quarter clockwise."""
    h = frame.shape[0]
    return cv2.rotate(frame, cv2.ROTATE_90_CLOCKWISE), np.stack([h - 1 - corners[:, 1], corners[:, 0]], axis=1)


def _mirror(frame: np.ndarray, corners: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A webcam set to mirror its picture (as video-call previews do)."""
    return cv2.flip(frame, 1), mirror_points(corners, frame.shape[1]).astype(corners.dtype)


def _mixed_light(frame: np.ndarray, corners: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Two lights of two colours: a warm lamp on the left, cool daylight from a window on the
    right, blending across the frame (the renderer's white balance is one cast for the whole
    frame; a living room's is not). Each channel's gain runs linearly from one light's to the
    other's. Applied to the finished frame, it also tints what the camera clipped (glare) by
    where it lies, as a camera's lens-shading correction does after its sensor clipped."""
    w = frame.shape[1]
    share = np.linspace(0.0, 1.0, w, dtype=np.float32)[None, :, None]
    warm, cool = np.array([0.6, 0.85, 1.0], np.float32), np.array([1.0, 0.93, 0.72], np.float32)
    return _scaled(frame, warm * (1.0 - share) + cool * share), corners


def _colour_fringes(frame: np.ndarray, corners: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A cheap lens's lateral chromatic aberration: red magnified and blue shrunk about the
    centre, so each is 1.5 px off green at the frame's corners (purple and green fringes along
    every edge towards them). Green, the corners' reference, stays put."""
    h, w = frame.shape[:2]
    half_diagonal = float(np.hypot(w, h)) / 2.0
    out = frame.copy()
    for channel, shift in ((2, 1.5), (0, -1.5)):
        scale = 1.0 + shift / half_diagonal
        m = np.float32([[scale, 0, (1 - scale) * (w - 1) / 2], [0, scale, (1 - scale) * (h - 1) / 2]])
        out[..., channel] = cv2.warpAffine(frame[..., channel], m, (w, h), flags=cv2.INTER_LINEAR,
                                           borderMode=cv2.BORDER_REPLICATE)
    return out, corners


def _shallow_focus(frame: np.ndarray, corners: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A phone close over a tilted board: focused on the near (lower) part of the frame, the far
    (upper) part ever more blurred, up to a Gaussian of 3 px at the top edge."""
    h = frame.shape[0]
    sigmas = (1.0, 2.0, 3.0)
    layers = [frame.astype(np.float32)] + [cv2.GaussianBlur(frame, (0, 0), s).astype(np.float32) for s in sigmas]
    # How blurred each row is, in layers: 0 from 70 % of the height down, len(sigmas) at the top.
    level = np.clip((0.7 - np.arange(h, dtype=np.float32) / h) / 0.7, 0.0, 1.0) * len(sigmas)
    low = np.minimum(level.astype(int), len(sigmas) - 1)
    frac = (level - low)[:, None, None]
    stack = np.stack(layers)
    rows = np.arange(h)
    out = stack[low, rows] * (1.0 - frac) + stack[low + 1, rows] * frac
    return np.clip(np.rint(out), 0, 255).astype(np.uint8), corners


def shadow_band(frame: np.ndarray, corners: np.ndarray, *, light: float = 0.35, width: float = 1 / 3,
                angle: float = 30.0, offset: float = 0.0, softness: float = 0.01,
                tint: tuple[float, float, float] = (1.0, 1.0, 1.0)) -> np.ndarray:
    """``frame`` with a band of shadow across the board: ``light`` of the light left in it, times
    ``tint`` per channel (B, G, R: the colour of the light the shadow still gets), ``width`` wide
    and ``offset`` from the board's middle (both as fractions of the grid's diagonal), at
    ``angle`` degrees on screen, its edges blurred by ``softness`` of the diagonal."""
    h, w = frame.shape[:2]
    middle = corners.mean(axis=0)
    diagonal = float(np.linalg.norm(corners[2] - corners[0]))
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    a = np.deg2rad(angle)
    across = (xx - middle[0]) * np.float32(np.sin(a)) - (yy - middle[1]) * np.float32(np.cos(a))
    band = (np.abs(across - offset * diagonal) < width * diagonal / 2).astype(np.float32)
    band = cv2.GaussianBlur(band, (0, 0), softness * diagonal + 1.0)[..., None]
    return _scaled(frame, 1.0 - (1.0 - light * np.asarray(tint, np.float32)) * band)


def _shadow_band(frame: np.ndarray, corners: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A player leaning over, or a lamp's shade: a sharp-edged band of shadow (35 % of the light)
    a third of the grid's diagonal wide, across the board's middle at 30 degrees on screen.
    The renderer's shadows are soft and lie beside chips and clutter, never across half the board."""
    return shadow_band(frame, corners), corners


def _daylight_shadow(frame: np.ndarray, corners: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A lamp's shadow by a window: the band of ``_shadow_band`` lit only by the daylight, half
    the light and blue (B, G, R 1.3, 1.0, 0.7 of the lamp's). The renderer's shadows are grey;
    an independent renderer's daylit ones read as blue chips where they cross a card."""
    return shadow_band(frame, corners, light=0.5, tint=(1.3, 1.0, 0.7)), corners


PROCESSING: dict[str, Processing] = {
    "plain": lambda frame, corners: (frame, corners),
    "saturation_x1.6": _saturation(1.6),
    "saturation_x0.5": _saturation(0.5),
    "sharpened": _sharpen,
    "gamma_0.6": _tone(lambda v: v**0.6),
    "gamma_1.6": _tone(lambda v: v**1.6),
    "s_curve": _tone(lambda v: 0.5 - 0.5 * np.cos(np.pi * v)),
    "tungsten": _gains(0.55, 0.85, 1.0),
    "cold": _gains(1.0, 0.9, 0.6),
    "local_contrast": _local_contrast,
    "denoised": _denoised,
    "vignette": _vignette,
    "jpeg_25": _jpeg(25),
    "half_size": _half,
    "portrait": _portrait,
    "mirrored": _mirror,
    "mixed_light": _mixed_light,
    "colour_fringes": _colour_fringes,
    "shallow_focus": _shallow_focus,
    "shadow_band": _shadow_band,
    "daylight_shadow": _daylight_shadow,
}
"""Each processing by name, the plain frame first."""


FIT_SATURATION = (0.45, 1.8)
"""Range of the saturation factor a processed fit scene gets (log-uniform): from a dim webcam's
washed colours to a phone's vivid mode."""


def in_share(seed: int, stream: int, share: float) -> np.random.Generator | None:
    """A generator of its own (``stream``) for fit scene ``seed`` if the scene is among the
    ``share`` a fit script varies this way, else None. Seeded apart from the scene itself, so
    refitting with another share leaves the scenes alone."""
    rng = np.random.default_rng((seed, stream))
    return rng if rng.random() < share else None


def fit_processing(seed: int, share: float) -> tuple[str, Processing]:
    """The processing a fit script applies to scene ``seed`` (and to the same scene rendered empty):
    for a ``share`` of seeds a saturation factor drawn from ``FIT_SATURATION``, else none."""
    if (rng := in_share(seed, 0x5A7, share)) is None:
        return "plain", PROCESSING["plain"]
    lo, hi = np.log(FIT_SATURATION)
    factor = float(np.exp(rng.uniform(lo, hi)))
    return f"saturation_x{factor:.2f}", _saturation(factor)


FIT_SHADOW_TINT = 0.45
"""Largest log ratio of blue to red (and red to blue) in the light a fit scene's shadow still
gets: a lamp's shadow by a window is lit by the sky alone, bluer than the lamp by up to about
1.5x; a daylit room's shadow of a person by the lamp, as much warmer."""


def fit_shadow(seed: int, share: float) -> Processing:
    """For a ``share`` of fit scenes, a band of shadow across the board (``shadow_band``) drawn
    from the seed: light 30-75 %, sharp to soft edges, any width, angle and place, and for half
    of them the light left in it bluer or warmer than the rest (``FIT_SHADOW_TINT``), never
    brighter than 90 % in any channel; else none. Seeded apart from ``fit_processing``."""
    if (rng := in_share(seed, 0x5AD, share)) is None:
        return PROCESSING["plain"]
    params = {"light": float(rng.uniform(0.3, 0.75)), "width": float(rng.uniform(0.1, 0.45)),
              "angle": float(rng.uniform(0.0, 180.0)), "offset": float(rng.uniform(-0.3, 0.3)),
              "softness": float(rng.choice([0.0, 0.0, 0.01, 0.03, 0.06]))}
    # Drawn after the rest, so a scene's band stays where an untinted fit put it.
    shift = float(rng.uniform(-FIT_SHADOW_TINT, FIT_SHADOW_TINT)) if rng.random() < 0.5 else 0.0
    tint = (float(np.exp(shift)), 1.0, float(np.exp(-shift)))
    params["tint"] = tint
    params["light"] = min(params["light"], 0.9 / max(tint))
    return lambda frame, corners: (shadow_band(frame, np.asarray(corners, np.float32), **params), corners)
