"""One simulated camera frame of a Sequence table, with exact ground truth.

``random_spec(seed, ...)`` draws every parameter of a scene (camera pose, lighting, print
variant, table, clutter, chips, camera defects) into a frozen ``SceneSpec``;
``render(spec)`` turns it into a ``Scene`` deterministically: the frame, the grid's outer
corners in canonical order (TL = outer corner of cell (0, 0), whatever the rotation), the
10x10 labels and which cells clutter hides. Frames are ``(H, W, 3) uint8`` BGR.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import cv2
import numpy as np

from engine.labels import CLASSIC_COLOURS, DETECT_LABELS, JUMBO_COLOURS
from engine.layout import CORNERS, EDITIONS, SIZE
from vision.sim.board_art import BoardArt, board_art, variants_of
from vision.sim.camera import Camera, CameraPose, bump_matrix, grid_half_extent, make_camera
from vision.sim.chips import CHIP_BGR, ChipLook, chip_sprite, stamp
from vision.sim.clutter import SKIN_TONES, Canvas, Clutter, Placement, draw_items
from vision.sim.table import EXTRA_TABLE_KINDS, TABLE_EXTENT, TABLE_KINDS, table_texture

Labels = tuple[tuple[str, ...], ...]
Range = tuple[float, float]


@dataclass(frozen=True)
class Lighting:
    """Light on the table. Image-space quantities are fractions of the frame."""

    exposure: float = 1.0  # overall gain (dim < 1 < bright)
    white_balance: tuple[float, float, float] = (1.0, 1.0, 1.0)  # B, G, R gains
    gradient: tuple[float, float] = (0.0, 0.0)  # (strength, angle in radians) of a linear ramp
    vignette: float = 0.0
    glare: tuple[float, float, float, float] = (0.5, 0.5, 0.1, 0.0)  # x, y, radius, strength
    shadows: tuple[tuple[float, float, float, float, float, float], ...] = ()  # x, y, rx, ry, angle, strength
    light_dir: tuple[float, float] = (0.25, 0.2)  # shadow shift on the table per unit height


@dataclass(frozen=True)
class Optics:
    """Camera defects applied after the scene is composed."""

    defocus: float = 0.0  # Gaussian sigma, pixels
    motion: tuple[float, float] = (0.0, 0.0)  # blur length (pixels), angle (degrees)
    noise: float = 0.0  # sensor noise sigma, grey levels
    jpeg: int = 0  # JPEG quality, 0 = no compression
    saturation: float = 1.0  # camera colour saturation
    distortion: float = 0.0  # radial (barrel) lens distortion: shift at the frame corner / half-diagonal


@dataclass(frozen=True)
class SceneSpec:
    """Everything a frame depends on. ``render`` is a pure function of it."""

    seed: int
    edition: str
    variant: str
    size: tuple[int, int]  # (width, height)
    labels: Labels
    camera: CameraPose
    lighting: Lighting = field(default_factory=Lighting)
    optics: Optics = field(default_factory=Optics)
    table: str = "wood_light"
    table_variant: int = 0
    clutter: tuple[Clutter, ...] = ()
    chip_radius: float = 0.36  # chip radius / cell width (at most RenderConfig.chip_max_radius of the height)
    chip_jitter: float = 0.07  # max chip offset from the cell centre / cell height
    chip_style: tuple[float, float, float, float] = (0.14, 0.6, 0.35, 0.09)  # rim, groove, gloss, thickness
    nudges: tuple[tuple[tuple[int, int], tuple[float, float]], ...] = ()  # chips knocked aside (cells)
    chip_tints: tuple[tuple[str, tuple[float, float, float]], ...] = ()  # colour -> BGR gain
    board_shift: tuple[float, float] = (0.0, 0.0)  # a bump: board moved in the plane (cells)
    board_rot: float = 0.0  # a bump: board turned in the plane (degrees)
    fold: float = 0.0  # degrees each half of a folding board rises towards its raised crease
    noise_seed: int = 0  # which sensor noise this frame gets
    auto_exposure: float | None = None  # the camera's own gain; None: metered from this frame


@dataclass(frozen=True)
class Scene:
    """A rendered frame and its ground truth."""

    frame: np.ndarray  # (H, W, 3) uint8 BGR
    corners: np.ndarray  # (4, 2) float32, TL TR BR BL of the canonical layout
    labels: list[list[str]]  # 10x10 detect labels
    edition: str
    occluded: np.ndarray  # (10, 10) bool: clutter covers more than ``occlusion_threshold``
    spec: SceneSpec
    cover: np.ndarray  # (10, 10) float32: fraction of each cell hidden by clutter
    auto_exposure: float = 1.0  # the gain the camera's metering chose (before ``exposure`` errors)


@dataclass(frozen=True)
class RenderConfig:
    """Fixed choices of the renderer (not per scene)."""

    occlusion_threshold: float = 0.3
    occlusion_px: int = 20  # grid-space samples per cell side when measuring cover
    shadow_scale: int = 4  # lighting maps are computed at 1/shadow_scale resolution
    noise_pad: int = 32
    contact_shadow: float = 0.4  # darkening of the table right at the board's edge
    meter_target: float = 118.0  # mean grey auto exposure aims for
    meter_step: int = 8  # metering samples every this many pixels
    auto_exposure_range: tuple[float, float] = (0.6, 2.2)
    table_variants: int = 2  # textures per table kind (each kept in memory)
    plain_table_chance: float = 0.25  # share of random scenes on a plain white or dark table
    chip_max_radius: float = 0.45  # a chip never overflows its cell's height (wide Jumbo cells)
    chip_shades: tuple[float, ...] = (0.94, 1.0, 1.05)  # per-chip brightness variants
    board_thickness: dict[str, float] = field(default_factory=lambda: {"classic": 0.12, "jumbo": 0.02})


CONFIG = RenderConfig()


# ------------------------------------------------------------------ geometry


def _outline(art: BoardArt, edition: str) -> np.ndarray:
    """(4, 2) world-plane corners of the whole printed board (grid plus margin)."""
    tw, th = art.size
    return _tex_to_plane(art, edition) @ np.array([[0, 0, 1], [tw, 0, 1], [tw, th, 1], [0, th, 1]]).T


def _tex_to_plane(art: BoardArt, edition: str) -> np.ndarray:
    """3x3 map from level-0 texture pixels to world-plane cell units (grid centre at 0)."""
    x0, y0, x1, y1 = art.grid
    hx, hy = grid_half_extent(edition)
    sx, sy = 2 * hx / (x1 - x0), 2 * hy / (y1 - y0)
    return np.array([[sx, 0, -hx - x0 * sx], [0, sy, -hy - y0 * sy], [0, 0, 1.0]])


def _camera_key(spec: SceneSpec, art: BoardArt) -> tuple:
    """Hashable inputs of the camera solve (pose, frame size, board outline)."""
    out = _outline(art, spec.edition)
    return spec.camera, spec.size, tuple(map(tuple, out[:2].T.round(6)))


def _camera(spec: SceneSpec, art: BoardArt) -> Camera:
    return _camera_cached(*_camera_key(spec, art))


@lru_cache(maxsize=16)
def _camera_cached(pose: CameraPose, size: tuple[int, int], outline: tuple) -> Camera:
    return make_camera(pose, size, np.array(outline, np.float64))


def _half_homographies(spec: SceneSpec, art: BoardArt, cam: Camera) -> tuple[np.ndarray, np.ndarray, float]:
    """Maps from level-0 texture pixels to image pixels of the board's top and bottom halves,
    and the texture row of the crease between them.

    A folding board does not lie quite flat: each half is a plane rising from its outer edge
    towards the crease (``spec.fold`` degrees), so the two halves have different homographies.
    """
    B = bump_matrix(spec.board_shift, spec.board_rot)
    T = _tex_to_plane(art, spec.edition)
    _, y0, _, y1 = art.grid
    crease = (y0 + y1) / 2  # the printed crease, between the two halves of the grid
    edge = float((T @ np.array([0, art.size[1], 1.0]))[1])  # plane y of the bottom edge (> 0)
    rise = edge * np.tan(np.deg2rad(spec.fold)) if spec.edition == "classic" else 0.0
    out = []
    for sign in (-1.0, 1.0):  # top half: y < 0; bottom half: y > 0
        # world Z (negative is up) = -rise * (1 - |y| / edge), linear in y on each half
        a, b = sign * rise / edge, -rise
        M = np.array([B[0], B[1], [0.0, a, b]])
        P = cam.R @ M + np.outer(cam.t, [0.0, 0.0, 1.0])
        H = cam.K @ P @ T
        out.append(H / H[2, 2])
    return out[0], out[1], crease


def board_homography(spec: SceneSpec) -> np.ndarray:
    """3x3 map from level-0 board texture pixels to image pixels (bump included; for a folded
    board, the top half's)."""
    art = board_art(spec.edition, spec.variant)
    return _half_homographies(spec, art, _camera(spec, art))[0]


def _grid_corners_image(spec: SceneSpec, art: BoardArt, cam: Camera) -> np.ndarray:
    """(4, 2) float64 grid corners in the image before lens distortion (TL TR on the top half)."""
    top, bottom, _ = _half_homographies(spec, art, cam)
    c = art.grid_corners()[None].astype(np.float64)
    return np.vstack([cv2.perspectiveTransform(c[:, :2], top)[0], cv2.perspectiveTransform(c[:, 2:], bottom)[0]])


def camera_centre(spec: SceneSpec) -> tuple[float, float, float]:
    """Where the camera is, in cell coordinates (col, row) and height above the table in cells."""
    art = board_art(spec.edition, spec.variant)
    cam = _camera(spec, art)
    C = -cam.R.T @ cam.t
    aspect = EDITIONS[spec.edition].grid_aspect
    return float(C[0] / aspect + SIZE / 2), float(C[1] + SIZE / 2), float(-C[2])


def grid_corners(spec: SceneSpec) -> np.ndarray:
    """(4, 2) float32 image corners of the 10x10 grid, TL TR BR BL of the canonical layout."""
    art = board_art(spec.edition, spec.variant)
    pts = _grid_corners_image(spec, art, _camera(spec, art))
    return distort_points(pts, spec.size, spec.optics.distortion).astype(np.float32)


def _mip_level(H: np.ndarray, art: BoardArt) -> int:
    """Finest texture level not much finer than the image (avoids aliasing of pips and text)."""
    c = art.grid_corners().astype(np.float64)
    pts = cv2.perspectiveTransform(c[None], H)[0]
    side = np.linalg.norm(np.roll(pts, -1, 0) - pts, axis=1)
    tex = np.linalg.norm(np.roll(c, -1, 0) - c, axis=1)
    scale = float(np.exp(np.mean(np.log(side / tex))))  # image px per texture px, on average
    return int(np.clip(np.round(np.log2(1.0 / max(scale, 1e-6))), 0, len(art.levels) - 1))


# ------------------------------------------------------------------ layers


def _chip_look(spec: SceneSpec, H: np.ndarray, art: BoardArt, level: int) -> ChipLook:
    """Chip thickness and shadow direction as they appear in texture space of ``level``."""
    cam = _camera(spec, art)
    Hinv = np.linalg.inv(H)
    B = bump_matrix(spec.board_shift, spec.board_rot)
    centre = B @ np.array([0.0, 0.0, 1.0])
    base = cam.project(np.array([[centre[0], centre[1], 0.0]]))
    rim, groove, gloss, thickness = spec.chip_style
    top = cam.project(np.array([[centre[0], centre[1], -thickness]]))
    tb = cv2.perspectiveTransform(np.array([base, top]).reshape(1, 2, 2), Hinv)[0]
    edge = (tb[1] - tb[0]) / (1 << level)
    px_per_cell = art.cell_px / (1 << level)
    lx, ly = spec.lighting.light_dir
    shadow = np.array([lx, ly]) * thickness * 2.5 * px_per_cell
    return ChipLook(edge_offset=(round(float(edge[0]), 1), round(float(edge[1]), 1)),
                    shadow_offset=(round(float(shadow[0]), 1), round(float(shadow[1]), 1)),
                    shadow_blur=0.25, shadow_strength=0.5,
                    light_angle=round(float(np.arctan2(-ly, -lx)), 2),
                    rim=round(rim, 3), groove=round(groove, 3), gloss=round(gloss, 3))


def _chip_colour(spec: SceneSpec, label: str, gain: float = 1.0) -> tuple[int, int, int]:
    base = np.array(CHIP_BGR[label], np.float32) * gain
    tints = dict(spec.chip_tints)
    if label in tints:
        base = base * np.array(tints[label], np.float32)
    return tuple(int(v) for v in np.clip(base, 0, 255))  # type: ignore[return-value]


def _draw_chips(board: np.ndarray, spec: SceneSpec, art: BoardArt, level: int, look: ChipLook,
                labels: Labels) -> None:
    rng = np.random.default_rng(spec.seed * 7919 + 17)  # per cell, stable across frames of a game
    jit = rng.uniform(-1, 1, (SIZE, SIZE, 2)) * spec.chip_jitter
    shade = rng.integers(0, len(CONFIG.chip_shades), (SIZE, SIZE))  # chips of one colour differ a little
    colours: dict[str, tuple[int, int, int]] = {}
    nudged = {cell: offset for cell, offset in spec.nudges}
    scale = 1.0 / (1 << level)
    ch = art.cell_size[1]
    cw = art.cell_size[0]
    radius = round(min(spec.chip_radius * cw, CONFIG.chip_max_radius * ch) * scale * 2) / 2
    for r in range(SIZE):
        for c in range(SIZE):
            lab = labels[r][c]
            if lab not in CHIP_BGR:
                continue
            x, y = art.cell_centre(r, c)
            nx, ny = nudged.get((r, c), (0.0, 0.0))
            x = (x + (jit[r, c, 0] + nx) * ch) * scale
            y = (y + (jit[r, c, 1] + ny) * ch) * scale
            if lab not in colours:
                colours[lab] = _chip_colour(spec, lab)
            sprite = _shaded_sprite(colours[lab], radius, look, lab == "flipped", CONFIG.chip_shades[shade[r, c]])
            stamp(board, sprite, (x, y))


@lru_cache(maxsize=64)
def _shaded_sprite(colour: tuple[int, int, int], radius: float, look: ChipLook, flipped: bool,
                   gain: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A chip sprite a little lighter or darker (one chip is not quite like the next)."""
    col, a, inv = chip_sprite(colour, radius, look, flipped)
    if gain == 1.0:
        return col, a, inv
    shaded = cv2.convertScaleAbs(col, alpha=gain)
    shaded.setflags(write=False)
    return shaded, a, inv


@lru_cache(maxsize=4)
def _table_layer(kind: str, variant: int, cam_key: tuple) -> np.ndarray:
    """The table warped into the frame (read-only). Drawn at half resolution and scaled up:
    the table is background, slightly out of focus, and this halves the cost."""
    cam = _camera_cached(*cam_key)
    w, h = cam.size
    levels = table_texture(kind, variant % CONFIG.table_variants)
    n = levels[0].shape[0]
    s = 2 * TABLE_EXTENT / n  # plane units per level-0 texture pixel
    T = np.array([[s, 0, -TABLE_EXTENT], [0, s, -TABLE_EXTENT], [0, 0, 1.0]])
    half = np.array([[0.5, 0, -0.25], [0, 0.5, -0.25], [0, 0, 1.0]])  # full -> half-size pixels
    H0 = half @ cam.plane_homography() @ T
    c = np.array([[[n / 2, n / 2], [n / 2 + 1, n / 2]]], np.float64)
    p = cv2.perspectiveTransform(c, H0)[0]
    scale = float(np.linalg.norm(p[1] - p[0]))  # image px per texture px near the board
    lv = int(np.clip(np.ceil(np.log2(1.0 / max(scale, 1e-6))), 0, len(levels) - 1))  # coarse: no moire
    S = np.diag([2.0**lv, 2.0**lv, 1.0])
    img = cv2.warpPerspective(levels[lv], H0 @ S, ((w + 1) // 2, (h + 1) // 2), flags=cv2.INTER_LINEAR,
                              borderMode=cv2.BORDER_REFLECT)
    img = cv2.resize(img, (w, h), interpolation=cv2.INTER_LINEAR)
    img.setflags(write=False)
    return img


@lru_cache(maxsize=8)
def _contact_shadow(outline_key: tuple, shape: tuple[int, int], ss: int, strength: float) -> np.ndarray:
    """Low-resolution darkening of the table just around the board (its edge and thickness)."""
    h, w = shape
    outline = np.array(outline_key, np.float64)
    pts = np.round(outline / ss * 16).astype(np.int32)
    board = np.zeros((h, w), np.float32)
    cv2.fillPoly(board, [pts], 1.0, cv2.LINE_AA, 4)
    span = max(np.ptp(outline[:, 0]), np.ptp(outline[:, 1])) / ss
    blur = cv2.GaussianBlur(board, (0, 0), max(0.8, span * 0.01))
    out = strength * blur * (1.0 - board)
    out.setflags(write=False)
    return out


NOISE_UNIT = 16.0  # the noise pool stores sigma = 1 as 16


@lru_cache(maxsize=4)
def _noise_pool(size: tuple[int, int], pad: int) -> np.ndarray:
    """Slightly correlated (demosaiced) sensor noise, int16 with sigma ``NOISE_UNIT``, larger
    than the frame so each frame takes a different crop."""
    w, h = size
    rng = np.random.default_rng(12345)
    pool = rng.standard_normal((h + pad, w, 3), dtype=np.float32)
    pool = cv2.GaussianBlur(pool, (0, 0), 0.6)
    pool *= NOISE_UNIT / pool.std()
    out = pool.astype(np.int16)
    out.setflags(write=False)
    return out


@lru_cache(maxsize=8)
def _static_light(lighting: Lighting, shape: tuple[int, int], glossy: float) -> tuple[np.ndarray, np.ndarray]:
    """(gain, add) maps at low resolution that depend on the light alone: ramp, vignette,
    cast shadows of people and lamps; additive glare. Cached: a game keeps its light."""
    L = lighting
    h, w = shape
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    xn, yn = xx / w - 0.5, yy / h - 0.5
    strength, ang = L.gradient
    gain = 1.0 + 2 * strength * (xn * np.cos(ang) + yn * np.sin(ang))
    gain *= 1.0 - L.vignette * (xn**2 + yn**2) * 2
    for x, y, rx, ry, a, s in L.shadows:
        blob = np.zeros((h, w), np.float32)
        cv2.ellipse(blob, (int(x * w), int(y * h)), (max(1, int(rx * w)), max(1, int(ry * h))),
                    np.rad2deg(a), 0, 360, 1.0, -1, cv2.LINE_AA)
        blob = cv2.GaussianBlur(blob, (0, 0), max(1.0, 0.35 * min(rx * w, ry * h)))
        gain *= 1.0 - s * blob
    gx, gy, gr, gs = L.glare
    d2 = ((xn + 0.5 - gx) * w) ** 2 + ((yn + 0.5 - gy) * h) ** 2
    sig = max(gr * np.hypot(w, h), 1.0)
    core = np.exp(-d2 / (2 * (sig / 3.5) ** 2))
    add = gs * (1 + glossy) / 2 * 255 * (0.55 * np.exp(-d2 / (2 * sig**2)) + 0.9 * core)
    gain, add = gain.astype(np.float32), add.astype(np.float32)
    gain.setflags(write=False)
    add.setflags(write=False)
    return gain, add


def _lighting_maps(spec: SceneSpec, shadow: np.ndarray, glossy: float) -> tuple[np.ndarray, np.ndarray]:
    """(gain, add) maps at low resolution: the light's own, times the soft shadows of objects."""
    gain, add = _static_light(spec.lighting, shadow.shape, glossy)
    if shadow.any():
        sh = cv2.GaussianBlur(shadow, (0, 0), max(1.0, shadow.shape[1] / 160))
        gain = gain * (1.0 - sh)
    return gain, add


@lru_cache(maxsize=2)
def _radial_fields(size: tuple[int, int]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Pixel grids and their radial displacement per unit k (the model is linear in k)."""
    w, h = size
    c = np.array([(w - 1) / 2, (h - 1) / 2], np.float32)
    half2 = float(np.hypot(w, h) / 2) ** 2
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    dx, dy = xx - c[0], yy - c[1]
    r2 = (dx * dx + dy * dy) / half2
    out = (xx, yy, dx * r2, dy * r2)
    for a in out:
        a.setflags(write=False)
    return out


@lru_cache(maxsize=2)
def _distortion_maps(size: tuple[int, int], k: float) -> tuple[np.ndarray, np.ndarray]:
    """cv2.remap maps of barrel distortion: distorted pixel p samples c + (p - c)(1 + k r^2),
    r = |p - c| / half-diagonal. Fixed-point maps (fast to apply; a game reuses them)."""
    xx, yy, ax, ay = _radial_fields(size)
    return cv2.convertMaps(cv2.scaleAdd(ax, k, xx), cv2.scaleAdd(ay, k, yy), cv2.CV_16SC2)


def distort_points(pts: np.ndarray, size: tuple[int, int], k: float) -> np.ndarray:
    """Where undistorted image points land in the distorted frame (inverse of the remap model)."""
    if abs(k) <= 1e-3:
        return pts
    w, h = size
    c = np.array([(w - 1) / 2, (h - 1) / 2])
    half2 = (np.hypot(w, h) / 2) ** 2
    u = pts.astype(np.float64) - c
    d = u.copy()
    for _ in range(20):  # fixed point: d = u / (1 + k |d|^2)
        d = u / (1.0 + round(k, 4) * (d**2).sum(1, keepdims=True) / half2)
    return (d + c).astype(pts.dtype)


GAIN_UNIT = 100.0  # uint8 gain maps: 100 is a gain of 1 (up to 2.55)


@lru_cache(maxsize=4)
def _dither(size: tuple[int, int]) -> np.ndarray:
    """A full-frame 4x4 Bayer threshold tile in [0, 1): floor(x + d) rounds without banding."""
    bayer = np.array([[0, 8, 2, 10], [12, 4, 14, 6], [3, 11, 1, 9], [15, 7, 13, 5]], np.float32) / 16.0
    w, h = size
    tile = np.tile(bayer, ((h + 3) // 4, (w + 3) // 4))[:h, :w]
    tile = np.ascontiguousarray(tile)
    tile.setflags(write=False)
    return tile


def _colour_matrix(spec: SceneSpec) -> np.ndarray | None:
    """3x3 BGR matrix: saturation then white balance; None when it is the identity."""
    o, L = spec.optics, spec.lighting
    wb = np.array(L.white_balance, np.float64)
    if abs(o.saturation - 1.0) < 1e-3 and np.allclose(wb, 1.0):
        return None
    sat = o.saturation * np.eye(3) + (1 - o.saturation) / 3.0
    return np.diag(wb) @ sat


def metered_exposure(frame: np.ndarray, gain_lo: np.ndarray) -> float:
    """The gain a camera's auto exposure picks so the scene's mean lands on a mid grey
    (a white board on a dark table comes out bright, on a white table dark)."""
    step = CONFIG.meter_step
    mean = float(frame[::step, ::step].mean()) * float(gain_lo.mean())
    lo, hi = CONFIG.auto_exposure_range
    return float(np.clip(CONFIG.meter_target / max(mean, 1.0), lo, hi))


def _finish(frame: np.ndarray, spec: SceneSpec, shadow: np.ndarray, contact: np.ndarray,
            glossy: float) -> tuple[np.ndarray, float]:
    """Blur, lighting, white balance, saturation, noise and JPEG: the camera's part.

    Works on uint8 with saturating OpenCV arithmetic (a fraction of float NumPy's cost).
    """
    o, L = spec.optics, spec.lighting
    w, h = spec.size
    if abs(o.distortion) > 1e-3:
        frame = cv2.remap(frame, *_distortion_maps(spec.size, round(o.distortion, 4)), cv2.INTER_LINEAR,
                          borderMode=cv2.BORDER_REFLECT)
    if o.defocus > 0.3:
        frame = cv2.GaussianBlur(frame, (0, 0), o.defocus)
    if o.motion[0] >= 2:
        n = int(o.motion[0]) | 1
        k = np.zeros((n, n), np.float32)
        k[n // 2, :] = 1.0
        R = cv2.getRotationMatrix2D((n / 2 - 0.5, n / 2 - 0.5), o.motion[1], 1.0)
        k = cv2.warpAffine(k, R, (n, n))
        frame = cv2.filter2D(frame, -1, k / max(float(k.sum()), 1e-6))
    gain_lo, add_lo = _lighting_maps(spec, shadow, glossy)
    gain_lo = gain_lo * (1.0 - contact)
    ae = spec.auto_exposure if spec.auto_exposure is not None else metered_exposure(frame, gain_lo)
    # the gain map in 1/GAIN_UNIT steps, ordered-dithered so smooth surfaces show no banding
    gain = cv2.resize(gain_lo * np.float32(L.exposure * ae * GAIN_UNIT), (w, h), interpolation=cv2.INTER_LINEAR)
    gain = np.clip(cv2.add(gain, _dither(spec.size)), 0, 255).astype(np.uint8)
    out = cv2.multiply(frame, cv2.merge([gain, gain, gain]), scale=1.0 / GAIN_UNIT)
    M = _colour_matrix(spec)
    if M is not None:
        out = cv2.transform(out, M)
    if float(add_lo.max()) >= 1.0:
        add = np.clip(add_lo, 0, 255).astype(np.uint8)
        out = cv2.add(out, cv2.resize(cv2.merge([add, add, add]), (w, h), interpolation=cv2.INTER_LINEAR))
    if o.noise > 0:
        pool = _noise_pool(spec.size, CONFIG.noise_pad)
        rng = np.random.default_rng(spec.noise_seed)
        oy = int(rng.integers(0, CONFIG.noise_pad))  # whole rows: the slice stays contiguous (fast)
        out = cv2.addWeighted(out, 1.0, pool[oy:oy + h], o.noise / NOISE_UNIT, 0.0, dtype=cv2.CV_8U)
    if o.jpeg > 0:
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(o.jpeg)])
        if ok:
            out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return out, ae


def _cover_grid(cover: np.ndarray, corners: np.ndarray) -> np.ndarray:
    """(10, 10) fraction of each cell hidden, by warping the cover mask onto the grid."""
    n = CONFIG.occlusion_px * SIZE
    dst = np.array([[0, 0], [n, 0], [n, n], [0, n]], np.float32) - 0.5
    M = cv2.getPerspectiveTransform(corners.astype(np.float32), dst)
    g = cv2.warpPerspective(cover, M, (n, n), flags=cv2.INTER_NEAREST)
    p = CONFIG.occlusion_px
    return g.reshape(SIZE, p, SIZE, p).mean(axis=(1, 3)).astype(np.float32) / 255.0


def _board_edge(frame: np.ndarray, cam: Camera, outline: np.ndarray, art: BoardArt, edition: str) -> None:
    """The board's thickness: its sides, seen below the printed top (drawn before the top)."""
    t = CONFIG.board_thickness[edition]
    top = cam.project(np.column_stack([outline, np.zeros(len(outline))]))
    bottom = cam.project(np.column_stack([outline, np.full(len(outline), t)]))
    hull = cv2.convexHull(np.vstack([top, bottom]).astype(np.float32)).reshape(-1, 2)
    colour = tuple(int(v * 0.45) for v in art.variant.margin)
    cv2.fillPoly(frame, [np.round(hull * 16).astype(np.int32)], colour, cv2.LINE_AA, 4)


def _warp_board(board: np.ndarray, H: np.ndarray, frame: np.ndarray) -> None:
    """Warp the board texture (or a part of it) into ``frame`` in place, touching only its
    bounding box."""
    h, w = board.shape[:2]
    fh, fw = frame.shape[:2]
    pts = cv2.perspectiveTransform(np.array([[[0, 0], [w, 0], [w, h], [0, h]]], np.float64), H)[0]
    x0, y0 = (max(int(np.floor(v)) - 1, 0) for v in pts.min(0))
    x1, y1 = min(int(np.ceil(pts[:, 0].max())) + 2, fw), min(int(np.ceil(pts[:, 1].max())) + 2, fh)
    if x0 >= x1 or y0 >= y1:
        return
    T = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1.0]])
    roi = frame[y0:y1, x0:x1]
    cv2.warpPerspective(board, T @ H, (x1 - x0, y1 - y0), dst=roi, flags=cv2.INTER_LINEAR,
                        borderMode=cv2.BORDER_TRANSPARENT)


def render(spec: SceneSpec, empty: bool = False) -> Scene:
    """Render ``spec`` (``empty=True``: same table, camera and clutter, no chips)."""
    labels = empty_labels() if empty else spec.labels
    return render_with(spec, labels)


def render_with(spec: SceneSpec, labels: Labels, extra: tuple[Clutter, ...] = ()) -> Scene:
    """Render ``spec`` with these chips and extra items (hands) on top: the game sim's entry."""
    art = board_art(spec.edition, spec.variant)
    cam = _camera(spec, art)
    w, h = spec.size
    B = bump_matrix(spec.board_shift, spec.board_rot)
    Hb, Hbottom, crease = _half_homographies(spec, art, cam)
    level = _mip_level(Hb, art)
    outline = cv2.perspectiveTransform(
        np.array([[[0, 0], [art.size[0], 0], [art.size[0], art.size[1]], [0, art.size[1]]]], np.float64),
        B @ _tex_to_plane(art, spec.edition))[0]
    frame = _table_layer(spec.table, spec.table_variant, _camera_key(spec, art)).copy()
    _board_edge(frame, cam, outline, art, spec.edition)
    board = art.levels[level].copy()
    look = _chip_look(spec, Hb, art, level)
    _draw_chips(board, spec, art, level, look, labels)
    S = np.diag([2.0**level, 2.0**level, 1.0])
    if spec.fold == 0.0 or spec.edition != "classic":
        _warp_board(board, Hb @ S, frame)
    else:  # each half on its own plane; they meet at the crease
        row = round((crease + 0.5) / 2.0**level)  # first texture row of the bottom half
        _warp_board(board[:row + 1], Hb @ S, frame)  # one row of overlap: no seam
        shift = np.array([[1, 0, 0], [0, 1, row - 1], [0, 0, 1.0]])
        _warp_board(board[row - 1:], Hbottom @ S @ shift, frame)
    ss = CONFIG.shadow_scale
    canvas = Canvas(frame, np.zeros((h, w), np.uint8), np.zeros((h // ss, w // ss), np.float32), ss)
    img_outline = cv2.perspectiveTransform(outline[None], cam.plane_homography())[0]
    contact = _contact_shadow(tuple(map(tuple, img_outline.round(2))), canvas.shadow.shape, ss,
                              CONFIG.contact_shadow)
    aspect = EDITIONS[spec.edition].grid_aspect
    place = Placement(aspect, B, spec.lighting.light_dir, 1.0 if spec.edition == "classic" else 0.65)
    draw_items(canvas, cam, place, spec.clutter + extra)
    out, ae = _finish(canvas.frame, spec, canvas.shadow, contact, art.variant.glossy)
    corners = _grid_corners_image(spec, art, cam).astype(np.float32)
    cover = _cover_grid(canvas.cover, corners)  # measured before the lens bends the picture
    corners = distort_points(corners, spec.size, spec.optics.distortion)
    return Scene(out, corners, [list(row) for row in labels], spec.edition,
                 cover > CONFIG.occlusion_threshold, spec, cover, ae)


# ------------------------------------------------------------------ random specs


def empty_labels() -> Labels:
    """10x10 labels of an empty board (corners free)."""
    return tuple(tuple("free" if (r, c) in CORNERS else "empty" for c in range(SIZE)) for r in range(SIZE))


def check_labels(labels: object) -> Labels:
    """Validate a 10x10 grid of detect labels (corners must be "free"); return it as tuples."""
    rows = [list(r) for r in labels]  # type: ignore[union-attr]
    if len(rows) != SIZE or any(len(r) != SIZE for r in rows):
        raise ValueError("labels must be a 10x10 grid of label strings")
    for r in range(SIZE):
        for c in range(SIZE):
            lab = str(rows[r][c])
            if lab not in DETECT_LABELS:
                raise ValueError(f"cell ({r}, {c}): unknown label {lab!r}; expected one of: "
                                 f"{', '.join(DETECT_LABELS)}")
            if ((r, c) in CORNERS) != (lab == "free"):
                raise ValueError(f"cell ({r}, {c}): corners and only corners are 'free' (got {lab!r})")
    return tuple(tuple(str(v) for v in row) for row in rows)


@dataclass(frozen=True)
class Difficulty:
    """Ranges random_spec draws from; "hard" sits at the nasty end of every one."""

    tilt: Range
    roll_spread: float  # degrees away from a multiple of 90 (45 = any rotation)
    fill: Range
    fov: Range
    exposure: Range
    white_balance: float  # max relative change of the B and R gains
    gradient: Range
    vignette: Range
    glare_chance: float
    glare: Range
    shadow_count: tuple[int, int]
    shadow: Range
    clutter_count: tuple[int, int]
    max_occluded: int  # cells clutter may hide in one frame
    defocus: Range
    motion_chance: float
    motion: Range
    noise: Range
    jpeg: tuple[int, int]
    saturation: Range
    chip_jitter: Range
    tint: float  # chip hue/value variation
    distortion: Range = (0.0, 0.0)  # barrel lens distortion
    distortion_chance: float = 1.0  # share of scenes with a distorting lens
    fold: Range = (0.0, 0.0)  # a folding board's halves rise towards the crease (degrees)


DIFFICULTIES: dict[str, Difficulty] = {
    "easy": Difficulty(
        tilt=(0, 20), roll_spread=12, fill=(0.65, 0.95), fov=(50, 65), exposure=(0.85, 1.15),
        white_balance=0.05, gradient=(0, 0.08), vignette=(0, 0.1), glare_chance=0.2, glare=(0.05, 0.2),
        shadow_count=(0, 0), shadow=(0, 0), clutter_count=(0, 1), max_occluded=1, defocus=(0, 0.5),
        motion_chance=0.0, motion=(0, 0), noise=(1, 2.5), jpeg=(88, 95), saturation=(0.95, 1.05),
        chip_jitter=(0.02, 0.06), tint=0.04),
    "normal": Difficulty(
        tilt=(0, 40), roll_spread=45, fill=(0.45, 0.95), fov=(45, 75), exposure=(0.6, 1.3),
        white_balance=0.15, gradient=(0, 0.2), vignette=(0, 0.3), glare_chance=0.5, glare=(0.1, 0.5),
        shadow_count=(0, 1), shadow=(0.15, 0.4), clutter_count=(0, 3), max_occluded=3, defocus=(0, 1.2),
        motion_chance=0.15, motion=(2, 6), noise=(2, 5), jpeg=(60, 95), saturation=(0.85, 1.15),
        chip_jitter=(0.03, 0.1), tint=0.08, distortion=(0.0, 0.035), distortion_chance=0.5, fold=(0.0, 0.8)),
    "hard": Difficulty(
        tilt=(35, 50), roll_spread=45, fill=(0.35, 0.5), fov=(60, 78), exposure=(0.4, 1.6),
        white_balance=0.28, gradient=(0.2, 0.35), vignette=(0.3, 0.5), glare_chance=1.0, glare=(0.5, 0.9),
        shadow_count=(1, 2), shadow=(0.35, 0.55), clutter_count=(3, 4), max_occluded=5, defocus=(1.0, 1.8),
        motion_chance=0.5, motion=(4, 9), noise=(6, 10), jpeg=(35, 55), saturation=(0.7, 1.3),
        chip_jitter=(0.08, 0.12), tint=0.12, distortion=(0.04, 0.07), fold=(0.6, 1.5)),
}


def random_labels(rng: np.random.Generator, edition: str, density: float) -> Labels:
    """Chips of 2 or 3 team colours on random cells; on Jumbo, some flipped 5-in-a-rows."""
    colours = list(CLASSIC_COLOURS if edition == "classic" else JUMBO_COLOURS)
    teams = [colours[i] for i in rng.permutation(len(colours))[: int(rng.integers(2, 4))]]
    grid = [list(row) for row in empty_labels()]
    for r in range(SIZE):
        for c in range(SIZE):
            if grid[r][c] == "empty" and rng.random() < density:
                grid[r][c] = teams[int(rng.integers(len(teams)))]
    if edition == "jumbo" and rng.random() < 0.6:
        for _ in range(int(rng.integers(1, 3))):
            dr, dc = [(0, 1), (1, 0), (1, 1), (1, -1)][int(rng.integers(4))]
            r0 = int(rng.integers(0, SIZE - 4 * abs(dr)))
            c0 = int(rng.integers(4 if dc < 0 else 0, SIZE - (4 if dc > 0 else 0)))
            for k in range(5):
                r, c = r0 + dr * k, c0 + dc * k
                if grid[r][c] != "free":
                    grid[r][c] = "flipped"
    return tuple(tuple(row) for row in grid)


def _u(rng: np.random.Generator, rg: Range) -> float:
    return float(rng.uniform(rg[0], rg[1]))


def _random_clutter(rng: np.random.Generator, n: int, aspect: float) -> list[Clutter]:
    """Items around the board edge; random_spec then drops those that hide too many cells."""
    items = []
    for _ in range(n):
        kind = ("box", "cup", "cards", "hand")[int(rng.integers(4))]
        side = int(rng.integers(4))
        along = float(rng.uniform(-1, 11))
        out = float(rng.uniform(0.3, 2.8)) + (1.0 if kind == "cup" else 0.0)
        x, y = [(along, -out), (10 + out, along), (along, 10 + out), (-out, along)][side]
        inward = [90.0, 180.0, 270.0, 0.0][side]
        if kind == "box":
            colour = [(40, 40, 160), (140, 60, 20), (30, 30, 30), (40, 150, 200)][int(rng.integers(4))]
            items.append(Clutter("box", x, y, float(rng.uniform(0, 180)), _u(rng, (0.9, 1.2)), colour))
        elif kind == "cup":
            colour = [(235, 235, 235), (40, 40, 150), (150, 90, 30), (60, 60, 60)][int(rng.integers(4))]
            items.append(Clutter("cup", x, y, float(rng.uniform(0, 360)), _u(rng, (0.9, 1.15)), colour))
        elif kind == "cards":
            items.append(Clutter("cards", x, y, float(rng.uniform(0, 360)), 1.0, (236, 238, 240)))
        else:
            sleeve = tuple(int(v) for v in rng.integers(20, 200, 3))
            skin = SKIN_TONES[int(rng.integers(len(SKIN_TONES)))]
            items.append(Clutter("hand", x, y, inward + float(rng.uniform(-35, 35)),
                                 float(rng.uniform(0.9, 1.1)), skin, float(rng.uniform(0.6, 2.5)),
                                 sleeve))  # type: ignore[arg-type]
    return items


def random_spec(seed: int, *, edition: str | None = None, difficulty: str = "normal",
                size: tuple[int, int] = (1280, 720), labels: object = None,
                chip_density: float | None = None) -> SceneSpec:
    """Draw a whole scene from ``seed`` (same seed and arguments -> same spec -> same frame)."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a whole number >= 0, got {seed!r}")
    if difficulty not in DIFFICULTIES:
        raise ValueError(f"unknown difficulty {difficulty!r}; expected one of: {', '.join(DIFFICULTIES)}")
    if edition is not None and edition not in EDITIONS:
        raise ValueError(f"unknown edition {edition!r}; expected one of: {', '.join(EDITIONS)}")
    if len(size) != 2 or min(size) < 64:
        raise ValueError(f"size must be (width, height) of at least 64 pixels, got {size!r}")
    d = DIFFICULTIES[difficulty]
    rng = np.random.default_rng([seed, 0x5E9])
    ed = edition or ("classic" if rng.random() < 0.6 else "jumbo")
    variants = variants_of(ed)
    variant = variants[int(rng.integers(len(variants)))]
    if labels is None:
        density = chip_density if chip_density is not None else float(rng.uniform(0, 0.7))
        labs = random_labels(rng, ed, density)
    else:
        labs = check_labels(labels)
    roll = 90.0 * int(rng.integers(4)) + float(rng.uniform(-d.roll_spread, d.roll_spread))
    pose = CameraPose(tilt=_u(rng, d.tilt), roll=roll, yaw=float(rng.uniform(-8, 8)), fov=_u(rng, d.fov),
                      fill=_u(rng, d.fill), centre=(float(rng.random()), float(rng.random())))
    wb = 1.0 + d.white_balance * rng.uniform(-1, 1)
    shadows = tuple(
        (float(rng.uniform(0, 1)), float(rng.uniform(0, 1)), float(rng.uniform(0.1, 0.4)),
         float(rng.uniform(0.1, 0.4)), float(rng.uniform(0, np.pi)), _u(rng, d.shadow))
        for _ in range(int(rng.integers(d.shadow_count[0], d.shadow_count[1] + 1))))
    glare_on = rng.random() < d.glare_chance
    light_ang = float(rng.uniform(0, 2 * np.pi))
    lighting = Lighting(
        exposure=_u(rng, d.exposure),
        white_balance=(float(wb), 1.0, float(2.0 - wb + rng.uniform(-0.03, 0.03))),
        gradient=(_u(rng, d.gradient), float(rng.uniform(0, 2 * np.pi))),
        vignette=_u(rng, d.vignette),
        glare=(float(rng.uniform(0.15, 0.85)), float(rng.uniform(0.15, 0.85)), float(rng.uniform(0.04, 0.12)),
               _u(rng, d.glare) if glare_on else 0.0),
        shadows=shadows,
        light_dir=(0.3 * np.cos(light_ang), 0.3 * np.sin(light_ang)),
    )
    motion = (_u(rng, d.motion), float(rng.uniform(0, 180))) if rng.random() < d.motion_chance else (0.0, 0.0)
    exposure = lighting.exposure
    # a dim scene makes the camera raise its gain, and its noise with it
    optics = Optics(defocus=_u(rng, d.defocus), motion=motion, noise=_u(rng, d.noise) / np.sqrt(min(exposure, 1.0)),
                    jpeg=int(rng.integers(d.jpeg[0], d.jpeg[1] + 1)), saturation=_u(rng, d.saturation),
                    distortion=_u(rng, d.distortion) if rng.random() < d.distortion_chance else 0.0)
    tints = []
    for colour in ("blue", "green", "red", "yellow", "flipped"):
        t = 1.0 + rng.uniform(-d.tint, d.tint, 3)
        tints.append((colour, (float(t[0]), float(t[1]), float(t[2]))))
    table = TABLE_KINDS[int(rng.integers(len(TABLE_KINDS)))]
    extra = np.random.default_rng([seed, 0x7AB1E])  # own stream: earlier draws stay as they were
    if extra.random() < CONFIG.plain_table_chance:
        table = EXTRA_TABLE_KINDS[int(extra.integers(len(EXTRA_TABLE_KINDS)))]
    # chip sets differ: rim width, embossed groove, gloss, thickness (same stream, drawn after)
    style = (float(extra.uniform(0.08, 0.2)), float(extra.uniform(0.5, 0.72)), float(extra.uniform(0.1, 0.55)),
             float(extra.uniform(0.06, 0.12)))
    spec = SceneSpec(
        seed=seed, edition=ed, variant=variant, size=(int(size[0]), int(size[1])), labels=labs,
        camera=pose, lighting=lighting, optics=optics, table=table, table_variant=int(rng.integers(3)),
        chip_radius=float(rng.uniform(0.3, 0.4)), chip_jitter=_u(rng, d.chip_jitter),
        chip_tints=tuple(tints), chip_style=style, noise_seed=seed, fold=_u(rng, d.fold) if ed == "classic" else 0.0,
    )
    n_items = int(rng.integers(d.clutter_count[0], d.clutter_count[1] + 1))
    items = _random_clutter(rng, n_items, EDITIONS[ed].grid_aspect)
    return _fit_clutter(spec, items, d.max_occluded)


def occlusion_of(spec: SceneSpec, items: tuple[Clutter, ...]) -> np.ndarray:
    """(10, 10) fraction of each cell hidden by ``items`` under the spec's camera (no render)."""
    art = board_art(spec.edition, spec.variant)
    cam = _camera(spec, art)
    w, h = spec.size
    B = bump_matrix(spec.board_shift, spec.board_rot)
    ss = CONFIG.shadow_scale
    canvas = Canvas(np.zeros((h, w, 3), np.uint8), np.zeros((h, w), np.uint8),
                    np.zeros((h // ss, w // ss), np.float32), ss)
    place = Placement(EDITIONS[spec.edition].grid_aspect, B, spec.lighting.light_dir,
                      1.0 if spec.edition == "classic" else 0.65)
    draw_items(canvas, cam, place, items, smear=False)
    return _cover_grid(canvas.cover, _grid_corners_image(spec, art, cam).astype(np.float32))


def _fit_clutter(spec: SceneSpec, items: list[Clutter], max_cells: int) -> SceneSpec:
    """Keep items (pushing each outward if needed) while they hide at most ``max_cells`` cells."""
    from dataclasses import replace

    kept: list[Clutter] = []
    for it in items:
        cand = it
        for _ in range(4):
            cover = occlusion_of(spec, (*kept, cand))
            if int((cover > CONFIG.occlusion_threshold).sum()) <= max_cells:
                kept.append(cand)
                break
            dx, dy = cand.x - 5.0, cand.y - 5.0
            norm = max(np.hypot(dx, dy), 1e-6)
            cand = replace(cand, x=cand.x + 1.2 * dx / norm, y=cand.y + 1.2 * dy / norm)
    return replace(spec, clutter=tuple(kept))
