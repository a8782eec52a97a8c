"""One simulated camera frame of a Sequence table, with exact ground truth.

A frozen ``SceneSpec`` holds every parameter of a scene (``vision.sim.variety`` draws them
from a seed); ``render(spec)`` turns it into a ``Scene`` deterministically: the frame, the grid's outer
corners in canonical order (TL = outer corner of cell (0, 0), whatever the rotation), the
10x10 labels and which cells clutter hides. Frames are ``(H, W, 3) uint8`` BGR.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import cv2
import numpy as np

from engine.labels import DETECT_LABELS
from engine.layout import CORNERS, EDITIONS, SIZE
from vision.sim.board_art import PRINTINGS, BoardArt, board_art
from vision.sim.camera import Camera, CameraPose, bump_matrix, grid_half_extent, make_camera
from vision.sim.chips import CHIP_BGR, ChipLook, chip_sprite, stamp
from vision.sim.clutter import Canvas, Clutter, Placement, draw_items
from vision.sim.optics import Lighting, Optics, camera_finish, distort_points
from vision.sim.table import TABLE_EXTENT, table_texture

Labels = tuple[tuple[str, ...], ...]


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
    white_mark: str = "ring_dot"  # what a white (flipped) chip's face shows (``chips.WHITE_MARKS``)
    board_shift: tuple[float, float] = (0.0, 0.0)  # a bump: board moved in the plane (cells)
    board_rot: float = 0.0  # a bump: board turned in the plane (degrees)
    fold: float = 0.0  # degrees each half of a folding board rises towards its raised crease
    noise_seed: int = 0  # which sensor noise this frame gets
    auto_exposure: float | None = None  # the camera's own gain; None: metered from this frame
    printing: str = "standard"  # which printing of the board (``board_art.PRINTINGS``)


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
    contact_shadow: float = 0.4  # darkening of the table right at the board's edge
    table_variants: int = 2  # textures per table kind (each kept in memory)
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


def _art(spec: SceneSpec) -> BoardArt:
    """The printed board of ``spec`` (cached)."""
    return board_art(spec.edition, spec.variant, PRINTINGS[spec.printing])


def board_homography(spec: SceneSpec) -> np.ndarray:
    """3x3 map from level-0 board texture pixels to image pixels (bump included; for a folded
    board, the top half's)."""
    art = _art(spec)
    return _half_homographies(spec, art, _camera(spec, art))[0]


def _grid_corners_image(spec: SceneSpec, art: BoardArt, cam: Camera) -> np.ndarray:
    """(4, 2) float64 grid corners in the image before lens distortion (TL TR on the top half)."""
    top, bottom, _ = _half_homographies(spec, art, cam)
    c = art.grid_corners()[None].astype(np.float64)
    return np.vstack([cv2.perspectiveTransform(c[:, :2], top)[0], cv2.perspectiveTransform(c[:, 2:], bottom)[0]])


def camera_centre(spec: SceneSpec) -> tuple[float, float, float]:
    """Where the camera is, in cell coordinates (col, row) and height above the table in cells."""
    art = _art(spec)
    cam = _camera(spec, art)
    C = -cam.R.T @ cam.t
    aspect = EDITIONS[spec.edition].grid_aspect
    return float(C[0] / aspect + SIZE / 2), float(C[1] + SIZE / 2), float(-C[2])


def grid_corners(spec: SceneSpec) -> np.ndarray:
    """(4, 2) float32 image corners of the 10x10 grid, TL TR BR BL of the canonical layout."""
    art = _art(spec)
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
                    rim=round(rim, 3), groove=round(groove, 3), gloss=round(gloss, 3),
                    white_mark=spec.white_mark)


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
    art = _art(spec)
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
    out, ae = camera_finish(canvas.frame, spec, canvas.shadow, contact, art.variant.glossy)
    corners = _grid_corners_image(spec, art, cam).astype(np.float32)
    cover = _cover_grid(canvas.cover, corners)  # measured before the lens bends the picture
    corners = distort_points(corners, spec.size, spec.optics.distortion)
    return Scene(out, corners, [list(row) for row in labels], spec.edition,
                 cover > CONFIG.occlusion_threshold, spec, cover, ae)


# ------------------------------------------------------------------ labels and occlusion


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


def occlusion_of(spec: SceneSpec, items: tuple[Clutter, ...]) -> np.ndarray:
    """(10, 10) fraction of each cell hidden by ``items`` under the spec's camera (no render)."""
    art = _art(spec)
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
