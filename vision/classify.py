"""Read every cell of a located board: chip or not, which colour, and how sure.

All 100 cells are read at once from the rectified grid (``vision.warp``), viewed as
``(100, h, w, 3)``; nothing loops over pixels or cells. Per cell:

1. *White balance*: the card faces in the cell's outer corners give its local white (kept
   consistent with the neighbours, so a Queen's coloured art or a glare spot cannot fake it);
   the cell is divided by it and converted to Lab (``vision.colour``).
2. *Chip evidence*: (a) how uniform the central disc is (pips and indices are not; a chip is),
   (b) a circular edge at chip radius, searched over small off-centre shifts (a printed block of
   art has straight edges, a chip a round one), (c) with an empty-board reference, how much the
   central disc differs from the same cell empty, after the same normalisation, tolerant to a
   pixel of misregistration.
3. *Colour*: the median Lab of the central disc against the colour model's prototypes.

``CellReader`` prepares masks and sample positions once; ``read`` is the per-frame hot path.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from engine.layout import CORNERS, LAYOUT, SIZE
from vision.colour import ColourModel, balanced_lab
from vision.warp import GridGeometry, WarpConfig, grid_geometry, warp_grid

N_CELLS = SIZE * SIZE
CORNER_MASK = np.array([[(r, c) in CORNERS for c in range(SIZE)] for r in range(SIZE)])
"""The four printed free corners, ``(10, 10)`` bool."""
COURT_MASK = np.array([[LAYOUT[r][c][:-1] in ("Q", "K") for c in range(SIZE)] for r in range(SIZE)])
"""Cells printed with a Queen or King (colourful art), ``(10, 10)`` bool."""


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return (1.0 / (1.0 + np.exp(-np.clip(z, -30, 30)))).astype(np.float32)


@dataclass(frozen=True)
class ReaderConfig:
    """Every threshold of the cell reader, in cell-relative units or Lab ΔE units."""

    warp: WarpConfig = field(default_factory=WarpConfig)
    blur_ksize: int = 3
    """Box blur before anything else: tames sensor noise and JPEG blocks."""
    core_radius: float = 0.22
    """Central disc (fraction of the cell's smaller side) always inside a chip, even off centre."""
    outer_radius: float = 0.47
    """Pixels beyond this radius (the cell's corners) sample the card face for the local white."""
    border: float = 0.06
    """Fraction of the cell ignored at each edge (grid lines, neighbours' bleed)."""
    white_quantile: float = 0.6
    """The brightest (1 - q) of the outer pixels average to the local white."""
    white_max_dev: float = 0.18
    """A cell's white may differ this much (log ratio) from its neighbours' before it is replaced."""
    white_floor: float = 8.0
    """Smallest white (0..255) trusted; darker means the board is not lit at all."""
    ring_radii: tuple[float, ...] = (0.30, 0.34, 0.38)
    """Chip radii searched, as fractions of the cell's smaller side."""
    ring_shift: float = 0.08
    """Largest chip centre offset searched, fraction of the cell's smaller side."""
    ring_shift_steps: int = 3
    ring_angles: int = 24
    ring_step: float = 0.07
    """Inner and outer samples sit this far (fraction of the side) either side of the rim."""
    ring_quantile: float = 0.25
    """A rim counts only if the edge is there nearly all around: this low quantile over angles."""
    saturated_level: int = 250
    """A raw channel at or above this is clipped by the camera (glare): its colour is unknown."""
    ref_delta: float = 14.0
    """ΔE between a pixel and the same place on the empty board that counts as changed."""
    # Decision: two logistic scores over named cues (see ``decision_inputs``), fitted on rendered
    # frames and rounded; positive means "a chip is there". ``colour`` decides chips of a team
    # colour, ``white`` a flipped (white) chip; ``*_ref`` apply when an empty-board reference is set.
    colour_weights: tuple[tuple[str, float], ...] = (
        ("spread", -0.107), ("ring", 0.151), ("d_colour", -5.2), ("court_spread", -0.242), ("bias", 9.52),
    )
    colour_weights_ref: tuple[tuple[str, float], ...] = (
        ("spread", -0.061), ("ring", 0.0035), ("d_colour", -0.179), ("court_spread", -0.0455),
        ("ref_change", 7.26), ("ref_median", 0.2135), ("bias", -5.74),
    )
    white_weights: tuple[tuple[str, float], ...] = (
        ("l_deficit", -0.03), ("ring", 0.723), ("ring_median", -0.198), ("spread", -0.526),
        ("d_flipped", -3.21), ("chroma", 0.291), ("bias", -1.0),
    )
    white_weights_ref: tuple[tuple[str, float], ...] = (
        ("l_deficit", -0.1125), ("ring", 0.418), ("ring_median", -0.103), ("spread", -0.196),
        ("d_flipped", -0.367), ("chroma", -0.177), ("ref_change", 15.1), ("ref_median", 1.2), ("bias", -3.74),
    )
    input_caps: tuple[tuple[str, float, float], ...] = (
        ("spread", 0.0, 40.0), ("ring", 0.0, 60.0), ("ring_median", 0.0, 60.0),
        ("d_colour", 0.0, 5.0), ("d_flipped", 0.0, 5.0), ("court_spread", 0.0, 40.0),
        ("l_deficit", -5.0, 40.0), ("chroma", 0.0, 60.0), ("ref_median", 0.0, 40.0),
    )
    """Each cue is clipped to a range, so one absurd value cannot outvote the others."""
    colour_margin_gain: float = 2.0
    """Confidence in the colour: logistic of (second-best - best) prototype distance times this."""
    saturated_doubt: float = 0.5
    """Confidence is scaled by (1 - this * clipped fraction) where the camera clipped the centre."""


@dataclass(frozen=True)
class CellReading:
    """One frame's reading: labels ``(10, 10)`` str, confidence ``(10, 10)`` float32 in [0, 1],
    and per-cell feature arrays ``(10, 10)`` (for the live tracker's motion/occlusion logic)."""

    labels: list[list[str]]
    confidence: np.ndarray
    features: dict[str, np.ndarray] = field(default_factory=dict)


def _cell_masks(geom: GridGeometry, cfg: ReaderConfig) -> tuple[np.ndarray, np.ndarray]:
    """Flat indices into the rectified grid (``(10h * 10w)`` pixels) of every cell's central disc
    and outer corners: two int arrays ``(100, n_core)`` and ``(100, n_outer)``, cells row-major."""
    h, w = geom.cell_h, geom.cell_w
    side = min(h, w)
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    dy, dx = (ys + 0.5 - h / 2) / side, (xs + 0.5 - w / 2) / side
    rho = np.sqrt(dx * dx + dy * dy)
    bh, bw = max(1, round(cfg.border * h)), max(1, round(cfg.border * w))
    inside = np.zeros((h, w), dtype=bool)
    inside[bh : h - bh, bw : w - bw] = True
    out = []
    for mask in (rho <= cfg.core_radius, inside & (rho >= cfg.outer_radius)):
        my, mx = np.nonzero(mask)
        rows, cols = np.divmod(np.arange(N_CELLS), SIZE)
        gy = rows[:, None] * h + my[None, :]
        gx = cols[:, None] * w + mx[None, :]
        out.append((gy * (SIZE * w) + gx).astype(np.intp))
    return out[0], out[1]


def _ring_samples(geom: GridGeometry, cfg: ReaderConfig) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Flat rectified-grid indices of inner, on-rim and outer samples for every cell.

    Returns ``(inner, rim, outer)``, each ``(100, n_hyp, A)``: one hypothesis per (centre shift,
    radius), ``A`` angles each.
    """
    h, w = geom.cell_h, geom.cell_w
    side = min(h, w)
    shifts = np.linspace(-cfg.ring_shift, cfg.ring_shift, cfg.ring_shift_steps) * side
    sy, sx = np.meshgrid(shifts, shifts, indexing="ij")
    radii = np.asarray(cfg.ring_radii, dtype=np.float32) * side
    angles = np.linspace(0, 2 * np.pi, cfg.ring_angles, endpoint=False)
    hy = np.repeat(sy.ravel(), len(radii))
    hx = np.repeat(sx.ravel(), len(radii))
    hr = np.tile(radii, sy.size)
    step = cfg.ring_step * side
    rows, cols = np.divmod(np.arange(N_CELLS), SIZE)
    cy = rows[:, None, None] * h + h / 2 + hy[None, :, None]
    cx = cols[:, None, None] * w + w / 2 + hx[None, :, None]
    cos, sin = np.cos(angles)[None, None, :], np.sin(angles)[None, None, :]
    out = []
    for r in (hr[None, :, None] - step, hr[None, :, None], hr[None, :, None] + step):
        y = np.clip(np.floor(cy + r * sin), 0, SIZE * h - 1).astype(np.intp)
        x = np.clip(np.floor(cx + r * cos), 0, SIZE * w - 1).astype(np.intp)
        out.append(y * (SIZE * w) + x)
    return out[0], out[1], out[2]


def _neighbour_median(values: np.ndarray) -> np.ndarray:
    """Median over each cell's 3x3 neighbourhood (edge-replicated) of ``(10, 10, C)`` values."""
    padded = np.pad(values, ((1, 1), (1, 1), (0, 0)), mode="edge")
    stack = np.stack([padded[dy : dy + SIZE, dx : dx + SIZE] for dy in range(3) for dx in range(3)])
    return np.median(stack, axis=0)


class CellReader:
    """Reads all 100 cells of a board; build once per table, call ``read`` per frame."""

    def __init__(
        self,
        *,
        edition: str = "classic",
        colour_model: ColourModel | None = None,
        reference_patches: np.ndarray | None = None,
        config: ReaderConfig = ReaderConfig(),
    ) -> None:
        """``reference_patches``: the empty board rectified by ``rectify`` (``(10h, 10w, 3)`` uint8
        BGR), e.g. ``reader.rectify(empty_frame, empty_corners)``; None reads without one."""
        self.edition = edition
        self.config = config
        self.geometry = grid_geometry(edition, config.warp)
        self.colour_model = colour_model or ColourModel.default(edition)
        self._core, self._outer = _cell_masks(self.geometry, config)
        self._ring_in, self._ring_mid, self._ring_out = _ring_samples(self.geometry, config)
        self._kernel = np.ones((3, 3), np.uint8)
        self._ref_lab: np.ndarray | None = None
        if reference_patches is not None:
            self.set_reference(reference_patches)

    def rectify(self, frame: np.ndarray, corners: np.ndarray) -> np.ndarray:
        """The rectified grid ``(10h, 10w, 3)`` uint8 BGR for this reader's edition."""
        return warp_grid(frame, corners, self.geometry, self.config.warp)

    def set_reference(self, reference_patches: np.ndarray) -> None:
        """Use a rectified empty board (``(10h, 10w, 3)`` uint8 BGR) as each cell's empty look."""
        w, h = self.geometry.size
        if reference_patches.shape != (h, w, 3):
            raise ValueError(f"reference_patches must be {(h, w, 3)}, got {reference_patches.shape}")
        lab, _white = self._balanced_lab(reference_patches)
        self._ref_lab = lab

    # -- stages ---------------------------------------------------------------------------------

    def _local_white(self, img: np.ndarray) -> np.ndarray:
        """Per-cell white ``(10, 10, 3)`` float32 from the brightest outer pixels of each cell,
        replaced by the neighbours' median where it disagrees with them (art, glare, a chip)."""
        cfg = self.config
        outer = np.take(img.reshape(-1, 3), self._outer, axis=0)  # (100, n, 3)
        bright = outer.sum(axis=2)
        k = int(cfg.white_quantile * (bright.shape[1] - 1))
        thr = np.partition(bright, k, axis=1)[:, k : k + 1]
        sel = (bright >= thr)[..., None].astype(np.float32)
        own = (outer * sel).sum(axis=1) / np.maximum(sel.sum(axis=1), 1.0)
        log_own = np.log(np.maximum(own, cfg.white_floor)).reshape(SIZE, SIZE, 3)
        log_nb = _neighbour_median(log_own)
        bad = np.abs(log_own - log_nb).max(axis=2, keepdims=True) > cfg.white_max_dev
        return np.exp(np.where(bad, log_nb, log_own)).astype(np.float32)

    def _balanced_lab(self, grid: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Rectified BGR uint8 -> white-balanced Lab ``(10h, 10w, 3)`` float32, and whites ``(10, 10, 3)``."""
        k = self.config.blur_ksize
        img = (cv2.blur(grid, (k, k)) if k > 1 else grid).astype(np.float32)
        white = self._local_white(img)
        gain = cv2.resize(1.0 / white, self.geometry.size, interpolation=cv2.INTER_NEAREST)
        return balanced_lab(cv2.multiply(img, gain)), white

    def features(self, grid: np.ndarray) -> dict[str, np.ndarray]:
        """Per-cell cues from a rectified grid; every value ``(100,)`` or ``(100, k)`` float32."""
        cfg = self.config
        lab, white = self._balanced_lab(grid)
        flat = lab.reshape(-1, 3)
        raw_max = np.take(grid.max(axis=2).reshape(-1), self._core)
        saturated = (raw_max >= cfg.saturated_level).mean(axis=1)
        core = np.take(flat, self._core, axis=0)  # (100, n, 3)
        med = np.median(core, axis=1)  # (100, 3)
        spread = np.median(np.linalg.norm(core - med[:, None, :], axis=2), axis=1)
        inner = np.take(flat, self._ring_in, axis=0)
        outer = np.take(flat, self._ring_out, axis=0)
        mid = np.take(flat, self._ring_mid, axis=0)
        step = outer - inner  # a chip face against the card: a colour step across the rim
        line = mid - 0.5 * (inner + outer)  # a chip's dark edge and shadow: a line on the rim
        edge = np.maximum(np.sqrt((step * step).sum(axis=-1)), np.sqrt((line * line).sum(axis=-1)))
        k = int(cfg.ring_quantile * (cfg.ring_angles - 1))
        k2 = (cfg.ring_angles - 1) // 2
        parted = np.partition(edge, (k, k2), axis=2)
        ring = parted[:, :, k].max(axis=1)
        ring_median = parted[:, :, k2].max(axis=1)
        dist = self.colour_model.distances(med)  # (100, P)
        feats = {
            "core_lab": med,
            "spread": spread,
            "ring": ring,
            "ring_median": ring_median,
            "proto_dist": dist,
            "white": white.reshape(N_CELLS, 3),
            "brightness": white.reshape(N_CELLS, 3).mean(axis=1),
            "saturated": saturated,
        }
        if self._ref_lab is not None:
            feats["ref_change"], feats["ref_median"] = self._reference_change(lab)
        return feats

    def _reference_change(self, lab: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """How each central disc differs from the empty board: the fraction of changed pixels and
        the median ΔE, both ``(100,)``.

        The reference is dilated/eroded by one pixel per channel first, so a pixel of
        misregistration along a printed edge is not a change.
        """
        ref = self._ref_lab
        assert ref is not None
        hi = cv2.dilate(ref, self._kernel)
        lo = cv2.erode(ref, self._kernel)
        excess = np.maximum(lab - hi, 0) + np.maximum(lo - lab, 0)
        delta = np.sqrt((excess * excess).sum(axis=2))
        core = np.take(delta.reshape(-1), self._core)
        return (core > self.config.ref_delta).mean(axis=1), np.median(core, axis=1)

    def decision_inputs(self, feats: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        """The named cues the decision weighs, each ``(100,)`` float32, clipped to its range."""
        labels = self.colour_model.labels
        dist = feats["proto_dist"]
        colour_idx = [i for i, n in enumerate(labels) if n != "flipped"]
        big = np.full(N_CELLS, 1e3, np.float32)
        inputs = {
            "spread": feats["spread"],
            "ring": feats["ring"],
            "ring_median": feats["ring_median"],
            "d_colour": dist[:, colour_idx].min(axis=1) if colour_idx else big,
            "d_flipped": dist[:, labels.index("flipped")] if "flipped" in labels else big,
            "court_spread": COURT_MASK.ravel() * feats["spread"],
            "l_deficit": 100.0 - feats["core_lab"][:, 0],
            "chroma": np.hypot(feats["core_lab"][:, 1], feats["core_lab"][:, 2]),
            "saturated": feats["saturated"],
        }
        if "ref_change" in feats:
            inputs["ref_change"] = feats["ref_change"]
            inputs["ref_median"] = feats["ref_median"]
        for name, lo, hi in self.config.input_caps:
            if name in inputs:
                inputs[name] = np.clip(inputs[name], lo, hi)
        return inputs

    @staticmethod
    def _score(inputs: dict[str, np.ndarray], weights: tuple[tuple[str, float], ...]) -> np.ndarray:
        z = np.zeros(N_CELLS, np.float32)
        for name, w in weights:
            z += w if name == "bias" else w * inputs[name]
        return z

    def decide(self, feats: dict[str, np.ndarray]) -> tuple[list[list[str]], np.ndarray, np.ndarray]:
        """Labels ``(10, 10)``, confidence ``(10, 10)`` and chip logit ``(100,)`` from features."""
        cfg = self.config
        labels = self.colour_model.labels
        inputs = self.decision_inputs(feats)
        ref = "ref_change" in inputs
        z_colour = self._score(inputs, cfg.colour_weights_ref if ref else cfg.colour_weights)
        has_white = "flipped" in labels
        white_weights = cfg.white_weights_ref if ref else cfg.white_weights
        z_white = self._score(inputs, white_weights) if has_white else None
        colour_idx = np.array([i for i, n in enumerate(labels) if n != "flipped"], dtype=np.intp)
        names = np.array([labels[i] for i in colour_idx], dtype=object)
        dist = feats["proto_dist"][:, colour_idx]
        order = np.argsort(dist, axis=1)
        best = order[:, 0]
        rows = np.arange(N_CELLS)
        if dist.shape[1] > 1:
            margin = dist[rows, order[:, 1]] - dist[rows, best]
            colour_conf = _sigmoid(cfg.colour_margin_gain * margin)
        else:
            colour_conf = np.ones(N_CELLS, np.float32)
        p_colour = _sigmoid(z_colour)
        p_white = _sigmoid(z_white) if z_white is not None else np.zeros(N_CELLS, np.float32)
        is_colour = z_colour > 0
        is_white = ~is_colour & (z_white > 0) if z_white is not None else np.zeros(N_CELLS, bool)
        out = np.where(is_colour, names[best], np.where(is_white, "flipped", "empty"))
        conf = np.where(
            is_colour, p_colour * colour_conf, np.where(is_white, p_white, (1 - p_colour) * (1 - p_white))
        )
        conf = conf * (1.0 - cfg.saturated_doubt * inputs["saturated"])
        logit = np.maximum(z_colour, z_white) if z_white is not None else z_colour
        out = out.reshape(SIZE, SIZE)
        out[CORNER_MASK] = "free"
        conf = conf.reshape(SIZE, SIZE).astype(np.float32)
        conf[CORNER_MASK] = 1.0
        return out.tolist(), conf, logit.astype(np.float32)

    def read(self, frame: np.ndarray, corners: np.ndarray) -> CellReading:
        """Read all cells of ``frame`` (``(H, W, 3)`` uint8 BGR) with canonical ``corners`` ``(4, 2)``."""
        return self.read_grid(self.rectify(frame, corners))

    def read_grid(self, grid: np.ndarray) -> CellReading:
        """Read all cells of an already rectified grid (``(10h, 10w, 3)`` uint8 BGR)."""
        feats = self.features(grid)
        labels, conf, logit = self.decide(feats)
        feats["chip_logit"] = logit
        shaped = {k: v.reshape(SIZE, SIZE, *v.shape[1:]).astype(np.float32) for k, v in feats.items()}
        return CellReading(labels, conf, shaped)
