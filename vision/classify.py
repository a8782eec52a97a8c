"""Read every cell of a located board: chip or not, which colour, and how sure.

All 100 cells are read at once from the rectified grid (``vision.warp``): fixed index sets
(central disc, covered disc, outer corners, rim samples) are gathered for every cell in one
``np.take``; nothing loops over pixels or cells. Per cell:

1. *White balance*: the card faces in the cell's outer corners give its local white (checked
   against the neighbours, so a Queen's art, a chip or a glare spot cannot fake it); the cell is
   divided by it and converted to Lab (``vision.colour``), keeping values above the white.
2. *Cues* (``CellReader.features``): how uniform the central disc is (pips and indices are not,
   a chip is); a round edge at chip radius, searched over off-centre shifts and radii, both as a
   colour step/line and as radial lightness gradient, required nearly all around (printed art
   has straight edges); the disc's colour against the colour model; how the disc differs from
   its *twin*, the other cell printed with the same card (a free reference on any board), and,
   with an empty-board reference, from the same cell empty, each after a per-cell one-pixel
   alignment; a partial arc at chip radius (a white chip's shadow or edge where glare clipped
   the rest); the twin's own chip cues (a change from the twin is mine only if the twin looks
   plain) and a few cues against their 3x3 neighbourhood (glare lifts a region, a chip one cell);
   the disc's colour where glare spared it and how well its pixels agree on one hue (a washed-out
   chip is faint but of one hue, a plain card's faint tints point every way).
3. *Decision* (``CellReader.decide``): a small network over those named cues
   (``vision.cell_model``, fitted by ``benchmarks/fit_cell_model.py``; on the Jumbo mat without
   a reference a second one, over more cues, may add white chips) says whether a chip is
   there; the label of a chip is its nearest colour prototype, or where that is a coloured one
   the one whose hue sector holds the disc's hue (``ColourModel.chip_colours``: glare, a camera
   or another maker's paint changes a chip's lightness and chroma far more than its hue); the
   confidence is the network's probability times the colour margin, lowered where the camera
   clipped a cell read empty or white. The cells it leaves in doubt (and, where a white chip can
   be, those read empty that glare clipped, or lie in line with two white chips), and the chips
   read white, are read again by a small CNN over the cell's pixels beside its twin card's
   (``vision.patch_net``): its chip-or-not replaces the doubtful logit, and where it is sure a
   chip read white is a team colour (glare), that colour is taken.
4. *Chips off centre* (``CellReader._off_centre_chips``): a coloured chip put down a quarter of
   a cell or more off its card's centre shows half a disc where the cues look; its middle is
   found as a peak of the distance to the edge of its colour's region (``vision.off_centre.chip_middles``) and
   the cell read again about it, every sample set moved there.

``CellReader`` prepares the index sets once (``vision.cell_samples``); ``read`` is the
per-frame hot path, and ``CellReading.features`` exposes every per-cell cue (``(10, 10)``) for
the live tracker. Its thresholds are ``vision.reader_config.ReaderConfig``.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

import cv2
import numpy as np

from engine.labels import TEAM_COLOURS
from engine.layout import SIZE
from vision import patch_net
from vision.cell_model import ChipNet, load_chip_nets
from vision.cell_samples import Samples, sample_plan
from vision.cells import CORNER_MASK, COURT_MASK, N_CELLS, NEIGHBOURS, RED_PRINT_MASK, WINDOW_CELLS
from vision.clipping import clip_levels
from vision.colour import DEFAULT_PROTOTYPES, ColourModel, balanced_lab
from vision.off_centre import chip_middles
from vision.patch_net import PatchNet, cell_patches, load_patch_net
from vision.reader_config import ReaderConfig
from vision.twins import TWIN
from vision.warp import grid_geometry, warp_grid


def _row_median(values: np.ndarray) -> np.ndarray:
    """Median along the last axis of ``(..., n)`` (the upper one for even ``n``): one partition,
    no copy of NumPy's general median machinery."""
    k = values.shape[-1] // 2
    return np.partition(values, k, axis=-1)[..., k]


def _order_stats(values: np.ndarray, ks: tuple[int, ...]) -> tuple[np.ndarray, ...]:
    """The ``k``-th smallest along the last axis, for each ``k`` in ``ks``. Rows here are short
    (one value per ring angle): NumPy's vectorised sort is several times faster on them than
    ``np.partition``, and the order statistics are the same numbers."""
    ordered = np.sort(values, axis=-1)
    return tuple(ordered[..., k] for k in ks)


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return (1.0 / (1.0 + np.exp(-np.clip(z, -30, 30)))).astype(np.float32)


def chip_confidence(logit: np.ndarray, dist: np.ndarray, best: np.ndarray, margin_gain: float) -> np.ndarray:
    """``(N,)`` confidence that each cell holds a chip of colour ``best`` (prototype index into the
    columns of ``dist`` ``(N, P)``): the chip probability from ``logit`` ``(N,)`` times the
    logistic of how much nearer ``best`` is than the next prototype, times ``margin_gain`` (1
    where there is no other prototype)."""
    if dist.shape[1] < 2:
        return _sigmoid(logit)
    rows = np.arange(dist.shape[0])
    others = dist.copy()
    others[rows, best] = np.inf
    return _sigmoid(logit) * _sigmoid(margin_gain * (others.min(axis=1) - dist[rows, best]))


@dataclass(frozen=True)
class CellReading:
    """One frame's reading: labels ``(10, 10)`` str, confidence ``(10, 10)`` float32 in [0, 1],
    and per-cell feature arrays ``(10, 10)`` (for the live tracker's motion/occlusion logic)."""

    labels: list[list[str]]
    confidence: np.ndarray
    features: dict[str, np.ndarray] = field(default_factory=dict)


TEAM_HUES = ColourModel({name: DEFAULT_PROTOTYPES[name] for name in TEAM_COLOURS})
"""The four team colours' default prototypes: the hue sectors a chip of any set falls in."""


def _on_white_lines(white: np.ndarray, team: np.ndarray) -> np.ndarray:
    """``(100,)`` bool: the cells of every window holding at least two of the chips read white
    (``white``, ``(100,)`` bool) and none read in a team colour (``team``): where the rest of a
    line of white chips would be."""
    windows = (white[WINDOW_CELLS].sum(axis=1) >= 2) & ~team[WINDOW_CELLS].any(axis=1)
    on = np.zeros(N_CELLS, bool)
    on[WINDOW_CELLS[windows].ravel()] = True
    return on


TWIN_CUES = ("ring_median", "rim_median", "chroma", "d_colour", "spread", "l_deficit")
"""Decision cues also given as the twin cell's value (``twin_<name>``)."""
LOCAL_CUES = ("ring_median", "rim_median", "l_deficit", "twin_change", "spread", "chroma", "chroma_high",
              "hue_coherence")
"""Decision cues also given relative to their 3x3 neighbourhood's median (``<name>_rel``)."""


def _neighbour_median(values: np.ndarray) -> np.ndarray:
    """Median over each cell's 3x3 neighbourhood (edge-replicated) of ``(10, 10, C)`` values: one
    gather and a sort of nine, the middle one (what ``np.median`` of nine values returns)."""
    channels = values.shape[2]
    stack = np.take(values.reshape(N_CELLS, channels).T, NEIGHBOURS, axis=1)  # (C, 100, 9)
    middle = np.sort(stack, axis=-1)[..., 4]
    return np.ascontiguousarray(middle.T).reshape(SIZE, SIZE, channels)


@dataclass
class _Prepared:
    """One rectified grid as every cue is read from it, computed once per read."""

    grid: np.ndarray
    """The rectified grid ``(10h, 10w, 3)`` uint8 BGR."""
    lab: np.ndarray
    """It white-balanced per cell, in Lab ``(10h, 10w, 3)`` float32."""
    lab_planes: tuple[np.ndarray, ...]
    """The L, a and b planes of ``lab``."""
    white: np.ndarray
    """Each cell's white ``(10, 10, 3)``."""
    levels: np.ndarray
    """Each channel's clipping level (``vision.clipping.clip_levels``) ``(3,)``."""

    @functools.cached_property
    def gradient(self) -> tuple[np.ndarray, np.ndarray]:
        """The lightness gradient across and down, flat ``(10h * 10w,)`` each (L units per pixel)."""
        lightness = self.lab_planes[0]
        return (cv2.Sobel(lightness, cv2.CV_32F, 1, 0, ksize=3, scale=0.125).reshape(-1),
                cv2.Sobel(lightness, cv2.CV_32F, 0, 1, ksize=3, scale=0.125).reshape(-1))


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
        # How white a disc is counts even where no white chip can be (it is then the card).
        self._white_model = ColourModel(
            {"flipped": self.colour_model.prototypes.get("flipped", DEFAULT_PROTOTYPES["flipped"])}
        )
        plan = sample_plan(self.geometry, config)
        self._outer, self._cos, self._sin = plan[1], plan[7], plan[8]
        channel = np.arange(3).reshape(3, 1, 1)
        # The outer corners as indices into an interleaved ``(10h, 10w, 3)`` image, ``(3, 100, n)``.
        self._outer3 = self._outer[None] * 3 + channel
        self._samples = Samples.centred(plan, self.geometry.size[0])
        self._ref_lab: np.ndarray | None = None
        self._ref_planes: list[np.ndarray] = []
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
        self._ref_planes = [p.reshape(-1) for p in cv2.split(lab)]

    # -- stages ---------------------------------------------------------------------------------

    def _local_white(self, img: np.ndarray) -> np.ndarray:
        """Per-cell white ``(10, 10, 3)`` float32 from the brightest outer pixels of each cell,
        replaced by the neighbours' median where it disagrees with them (art, glare, a chip)."""
        cfg = self.config
        outer = np.take(img.reshape(-1), self._outer3)  # (3, 100, n): B, G, R in one gather
        bright = outer[0] + outer[1] + outer[2]
        k = int(cfg.white_quantile * (bright.shape[1] - 1))
        thr = np.partition(bright, k, axis=1)[:, k : k + 1]
        sel = (bright >= thr).astype(np.float32)
        count = np.maximum(sel.sum(axis=1), 1.0)
        own = np.stack([(o * sel).sum(axis=1) / count for o in outer], axis=1)
        log_own = np.log(np.maximum(own, cfg.white_floor)).reshape(SIZE, SIZE, 3)
        log_nb = _neighbour_median(log_own)
        bad = np.abs(log_own - log_nb).max(axis=2, keepdims=True) > cfg.white_max_dev
        return np.exp(np.where(bad, log_nb, log_own)).astype(np.float32)

    def _balanced_lab(self, grid: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Rectified BGR uint8 -> white-balanced Lab ``(10h, 10w, 3)`` float32, and whites ``(10, 10, 3)``."""
        k = self.config.blur_ksize
        img = (cv2.blur(grid, (k, k)) if k > 1 else grid).astype(np.float32)
        white = self._local_white(img)
        # Each cell's pixels times its gain: one broadcast over rows of cells, no gain image.
        h, w = self.geometry.cell_h, self.geometry.cell_w
        row_gain = np.repeat(1.0 / white, w, axis=1).reshape(SIZE, 1, -1)  # (10, 1, 10w * 3)
        balanced = (img.reshape(SIZE, h, -1) * row_gain).reshape(img.shape)
        return balanced_lab(balanced, overwrite=True), white

    def features(self, grid: np.ndarray) -> dict[str, np.ndarray]:
        """Per-cell cues from a rectified grid; every value ``(100,)`` or ``(100, k)`` float32."""
        return self._features(self._prepared(grid))

    def _prepared(self, grid: np.ndarray) -> _Prepared:
        """What every cue of ``grid`` is read from (``_Prepared``)."""
        lab, white = self._balanced_lab(grid)
        return _Prepared(grid, lab, cv2.split(lab), white, clip_levels(grid, self.config.saturated_level))

    def _features(self, prep: _Prepared) -> dict[str, np.ndarray]:
        """``features`` of a ``_prepared`` grid."""
        feats = self._disc_cues(prep, self._samples)
        feats["white"] = prep.white.reshape(N_CELLS, 3)
        feats["brightness"] = feats["white"].mean(axis=1)
        return feats

    def _disc_cues(self, prep: _Prepared, smp: Samples) -> dict[str, np.ndarray]:
        """The cues read about each cell's chip disc, for the cells (rows) of the sample sets
        ``smp``: every value ``(cells,)`` or ``(cells, k)`` float32.

        Channels are handled as separate planes (``cv2.split``) or gathered as a leading axis of
        three: NumPy reduces a trailing axis of length 3 slowly, and this is the per-frame hot path.
        """
        cfg = self.config
        grid, lab, lab_planes = prep.grid, prep.lab, prep.lab_planes
        planes = [p.reshape(-1) for p in lab_planes]
        raw = np.take(grid.reshape(-1), smp.core3)  # (3, 100, n): B, G, R
        levels = prep.levels[:, None, None]
        clipped = (raw >= levels).sum(axis=0)  # channels the camera clipped, per pixel
        saturated = (clipped > 0).mean(axis=1)
        glare = ((clipped >= 2) & (raw >= cfg.glare_floor * levels).all(axis=0)).mean(axis=1)
        flat = lab.reshape(-1)
        core = np.take(flat, smp.core3)  # (3, 100, n): L, a, b
        core_med = _row_median(core)  # (3, 100)
        med = np.ascontiguousarray(core_med.T)  # (100, 3)
        spread = _row_median(np.sqrt(np.square(core - core_med[..., None]).sum(axis=0)))
        cover = np.take(flat, smp.cover3)
        texture = np.sqrt(np.square(cover - _row_median(cover)[..., None]).sum(axis=0)).mean(axis=1)
        chroma_high, hue_coherence = self._disc_colour(cover)
        # A chip face against the card is a colour step across the rim; a chip's dark edge and
        # shadow a line on it. Both in L1 Lab units (cheaper than ΔE, same ordering of evidence).
        step = np.zeros(smp.ring_in.shape, np.float32)
        line = np.zeros(smp.ring_in.shape, np.float32)
        for p in planes:  # in place: these are the largest temporaries of a read
            inner, mid, outer = np.take(p, smp.ring_in), np.take(p, smp.ring_mid), np.take(p, smp.ring_out)
            half_sum = np.add(inner, outer)
            half_sum *= 0.5
            step += np.abs(np.subtract(outer, inner, out=outer), out=outer)
            line += np.abs(np.subtract(mid, half_sum, out=mid), out=mid)
        edge = np.maximum(step, line, out=step)
        k = int(cfg.ring_quantile * (cfg.ring_angles - 1))
        k2 = (cfg.ring_angles - 1) // 2
        k3 = int(cfg.arc_quantile * (cfg.ring_angles - 1))
        ring, ring_median, ring_high = (q.max(axis=1) for q in _order_stats(edge, (k, k2, k3)))
        rim = self._rim_gradient(prep, smp.rim)
        rim_low, rim_median, rim_high = (q.max(axis=1) for q in _order_stats(rim, (k, k2, k3)))
        feats = {
            "white_dist": self._white_model.distances(med)[:, 0],
            "core_lab": med,
            "spread": spread,
            "texture": texture,
            "ring": ring,
            "ring_median": ring_median,
            "rim": rim_low,
            "rim_median": rim_median,
            "ring_high": ring_high,
            "rim_high": rim_high,
            "proto_dist": self.colour_model.distances(med),  # (100, P)
            "saturated": saturated,
            "glare": glare,
            "chroma_high": chroma_high,
            "hue_coherence": hue_coherence,
        }
        feats["twin_change"], feats["twin_change_low"], feats["twin_ncc"] = self._twin_change(planes, smp)
        if self._ref_lab is not None:
            (feats["ref_change"], feats["ref_change_low"], feats["ref_median"],
             feats["ref_ncc"]) = self._reference_change(planes, smp)
        return feats

    def _disc_colour(self, cover: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """How coloured the covered disc is where it is most coloured, and how much its pixels
        agree on one hue, ``(100,)`` each, from its Lab samples ``(3, 100, n)``.

        Glare washes out part of a chip: its median colour nears the card's white, but the
        unclipped part still shows the chip's colour (a high quantile of per-pixel chroma), and a
        pale chip's pixels still share one hue, where a plain card's faint tints (noise, paper)
        point every way: the length of the mean (a, b) vector over the mean chroma."""
        cfg = self.config
        chroma = np.hypot(cover[1], cover[2])  # (100, n)
        k = int(cfg.chroma_quantile * (chroma.shape[1] - 1))
        high = np.partition(chroma, k, axis=1)[:, k]
        resultant = np.hypot(cover[1].sum(axis=1), cover[2].sum(axis=1))
        coherence = resultant / (chroma.sum(axis=1) + cfg.coherence_floor * chroma.shape[1])
        return high, coherence

    def _shifted_delta(self, planes: list[np.ndarray], other: list[np.ndarray], own_idx: np.ndarray,
                       shifted_idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """ΔE between Lab ``planes`` (flat L, a, b) at ``own_idx`` ``(100, n)`` and ``other`` at
        ``shifted_idx`` (``(9, 100, n)``: its indices plus each one-pixel shift), ``(100, n)``, with
        ``other`` shifted per cell by the one-pixel offset that matches it best (misregistration
        is not change; one shift per cell, so a hidden pip still counts); and the correlation of
        the two lightness patterns, ``(100,)``: the same print correlates whatever the light, a
        chip over it does not."""
        own = [np.take(p, own_idx) for p in planes]
        shifted = np.take(other[0], shifted_idx)
        cost = np.abs(np.subtract(own[0], shifted, out=shifted), out=shifted).sum(axis=2)
        # (9, 100): how well each one-pixel shift matches, on lightness
        idx = shifted_idx[cost.argmin(axis=0), np.arange(cost.shape[1])]
        aligned = [np.take(q, idx) for q in other]
        d2 = sum((o - q) ** 2 for o, q in zip(own, aligned, strict=True))
        a = own[0] - own[0].mean(axis=1, keepdims=True)
        b = aligned[0] - aligned[0].mean(axis=1, keepdims=True)
        # The floor keeps two plain discs (no print to compare) at a correlation near 0.
        floor = self.config.ncc_floor * a.shape[1]
        ncc = (a * b).sum(axis=1) / np.sqrt(((a * a).sum(axis=1) + floor) * ((b * b).sum(axis=1) + floor))
        return np.sqrt(d2), ncc

    def _twin_change(self, planes: list[np.ndarray], smp: Samples) -> tuple[np.ndarray, ...]:
        """Fraction of each covered disc clearly / slightly different from the same place in its
        twin cell (the other cell printed with the same card), and their print correlation, ``(100,)`` each."""
        delta, ncc = self._shifted_delta(planes, planes, smp.cover, smp.twin_shifted)
        cfg = self.config
        return (delta > cfg.ref_delta).mean(axis=1), (delta > cfg.ref_delta_low).mean(axis=1), ncc

    def _rim_gradient(self, prep: _Prepared, rims: np.ndarray) -> np.ndarray:
        """|radial lightness gradient| (L units per pixel) on each rim hypothesis, ``(100, n_hyp, A)``:
        a round chip edge is a radial step or line all around, whichever its colour."""
        gx, gy = prep.gradient
        best = None
        for idx in rims:  # in place: (100, n_hyp, A) temporaries are the bulk of the work
            radial = np.take(gx, idx)
            radial *= self._cos
            along_y = np.take(gy, idx)
            along_y *= self._sin
            radial += along_y
            np.abs(radial, out=radial)
            best = radial if best is None else np.maximum(best, radial, out=best)
        assert best is not None
        return best

    def _reference_change(self, planes: list[np.ndarray], smp: Samples) -> tuple[np.ndarray, ...]:
        """How each covered disc differs from the empty board: the fraction of clearly changed
        pixels, of slightly changed pixels (a white chip on white card), the median ΔE and the
        print correlation, ``(100,)`` each."""
        assert self._ref_lab is not None
        delta, ncc = self._shifted_delta(planes, self._ref_planes, smp.cover, smp.cover_shifted)
        cfg = self.config
        return (
            (delta > cfg.ref_delta).mean(axis=1),
            (delta > cfg.ref_delta_low).mean(axis=1),
            np.median(delta, axis=1),
            ncc,
        )

    def decision_inputs(self, feats: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        """The named cues the decision weighs, each ``(100,)`` float32, clipped to its range."""
        cfg = self.config
        labels = self.colour_model.labels
        dist = feats["proto_dist"]
        colour_idx = [i for i, n in enumerate(labels) if n != "flipped"]
        big = np.full(N_CELLS, 1e3, np.float32)
        inputs = {
            "spread": feats["spread"],
            "ring": feats["ring"],
            "ring_median": feats["ring_median"],
            "rim": feats["rim"],
            "rim_median": feats["rim_median"],
            "ring_high": feats["ring_high"],
            "rim_high": feats["rim_high"],
            "d_colour": dist[:, colour_idx].min(axis=1) if colour_idx else big,
            "d_flipped": feats["white_dist"],
            "white_possible": np.full(N_CELLS, float("flipped" in labels), np.float32),
            "court": COURT_MASK.ravel().astype(np.float32),
            "court_spread": COURT_MASK.ravel() * feats["spread"],
            "l_deficit": 100.0 - feats["core_lab"][:, 0],
            "chroma": np.hypot(feats["core_lab"][:, 1], feats["core_lab"][:, 2]),
            "saturated": feats["saturated"],
            "texture": feats["texture"],
            "twin_change": feats["twin_change"],
            "twin_change_low": feats["twin_change_low"],
            # my disc differs from my twin's and is plainer than it: something covers my print
            "twin_cover": feats["twin_change_low"]
            * np.clip((feats["texture"][TWIN] - feats["texture"]) / cfg.texture_scale, 0.0, 1.0),
            "twin_texture_gap": feats["texture"][TWIN] - feats["texture"],
            "twin_texture": feats["texture"][TWIN],
            "twin_ncc": feats["twin_ncc"],
            "chroma_high": feats["chroma_high"],
            "hue_coherence": feats["hue_coherence"],
        }
        if "ref_change" in feats:
            inputs["ref_change"] = feats["ref_change"]
            inputs["ref_median"] = feats["ref_median"]
            inputs["ref_change_low"] = feats["ref_change_low"]
            inputs["ref_ncc"] = feats["ref_ncc"]
        for name, lo, hi in cfg.input_caps:
            if name in inputs:
                inputs[name] = np.clip(inputs[name], lo, hi)
        # A change from the twin is my chip only where the twin looks plain: the twin's own cues.
        for name in TWIN_CUES:
            inputs["twin_" + name] = inputs[name][TWIN]
        # The same cue against the 3x3 neighbourhood's median: glare and shade lift or lower a
        # whole region, a chip only its cell.
        cues = np.stack([inputs[name] for name in LOCAL_CUES], axis=1)  # (100, k)
        local = _neighbour_median(cues.reshape(SIZE, SIZE, -1)).reshape(N_CELLS, -1)
        for i, name in enumerate(LOCAL_CUES):
            inputs[name + "_rel"] = cues[:, i] - local[:, i]
        return inputs

    @property
    def chip_net(self) -> ChipNet:
        """The decision network in use: with the empty-board comparison when a reference is set."""
        return load_chip_nets()["reference" if self._ref_lab is not None else "plain"]

    @property
    def white_chip_net(self) -> ChipNet | None:
        """On the Jumbo mat without a reference, a second network fitted with more cues and more
        glare-hidden white chips; it may only add white chips (see ``decide``). None elsewhere."""
        if self._ref_lab is not None or self.edition != "jumbo" or "flipped" not in self.colour_model.labels:
            return None
        return load_chip_nets().get("jumbo_white")

    @property
    def patch_net(self) -> PatchNet | None:
        """The patch network asked about doubtful cells; None when ``patch_doubt`` is 0."""
        return load_patch_net() if self.config.patch_doubt > 0 else None

    @functools.cached_property
    def default_colours(self) -> np.ndarray:
        """``(len(labels),)`` bool: the colour model's team colours that are still the default
        chip colours (``DEFAULT_PROTOTYPES``). The patch network knows those chips; a colour taught
        from this table's own chips or markers (coins) is read by its prototype alone."""
        return np.array([name in TEAM_COLOURS and self.colour_model.prototypes[name] == DEFAULT_PROTOTYPES.get(name)
                         for name in self.colour_model.labels])

    def _second_opinion(self, grid: np.ndarray, feats: dict[str, np.ndarray], logit: np.ndarray,
                        best: np.ndarray, names: np.ndarray, dist: np.ndarray
                        ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``logit`` ``(100,)`` and chip colour ``best`` (prototype index, ``(100,)``) after the
        patch network has read the doubtful cells (``patch_doubt``) and the chips read white; and
        the network's class probabilities ``(100, len(patch_net.CLASSES))`` (zero in the cells it
        did not read), for judging white readings later (``vision.flipped``).

        A doubtful cell's logit is blended with the network's, and so, where a white chip can be
        and there is no reference, is that of a cell read empty that glare clipped
        (``patch_clipped``). A chip the prototypes call white but the network is sure
        (``patch_colour_sure``) is a team colour takes that colour: glare washes a blue or red
        chip to white in colour, not in the shape of its face and shadow; and where the chip and
        the colour the network is sure of are both default chip colours (``default_colours``),
        a team colour takes the other: a lamp's cast moves a dim chip's hue, not its face.
        Where a white chip can be (``dist``: the allowed prototype distances), the network also
        reads cells read empty but not by far (``patch_white_doubt``) and chips read in a team
        colour close to white (``patch_pale_margin``), and where it is sure of a white chip,
        that is what they are; where it is sure of a team's chip in a cell read empty, so is
        that, unless an empty-board reference is compared. Without one it also reads cells read
        empty whose disc is a team colour (``patch_team_distance``), and a default-coloured chip
        it is sure of there is that chip. Any chip it read in a team colour and is all but
        certain is white (``patch_white_certain``) is white too.
        """
        cfg = self.config
        net = self.patch_net
        board = ~CORNER_MASK.ravel()
        doubt = (np.abs(logit) < cfg.patch_doubt) & board
        if self._ref_lab is None:
            # Print the cue network learned from one printing, read as a chip: court art as any
            # chip, red pips as a red one.
            if cfg.patch_court:
                doubt |= COURT_MASK.ravel() & (logit > 0)
            if cfg.patch_red_print:
                doubt |= RED_PRINT_MASK.ravel() & (logit > 0) & (names[best] == "red") & self.default_colours[best]
        white = names[best] == "flipped"
        white_at = np.flatnonzero(names == "flipped")
        faint = np.zeros(N_CELLS, bool)
        pale = np.zeros(N_CELLS, bool)
        reachable = np.zeros(N_CELLS, bool)
        if white_at.size and white_at.size < names.size:
            to_white = dist[:, white_at[0]]
            reachable = board & (to_white < cfg.unreachable_distance)
            if self._ref_lab is None:
                doubt |= reachable & (logit <= 0) & (feats["saturated"] > cfg.patch_clipped)
            faint = reachable & ~doubt & (logit <= 0) & (logit > -cfg.patch_white_doubt)
            near = to_white - dist[np.arange(N_CELLS), best] < cfg.patch_pale_margin
            pale = reachable & ~white & near
        team_at = np.asarray(names != "flipped", bool)
        colourful = np.zeros(N_CELLS, bool)
        if self._ref_lab is None and team_at.any():
            colourful = board & ~doubt & (logit <= 0) & (dist[:, team_at].min(axis=1) < cfg.patch_team_distance)
        asked = np.flatnonzero(doubt | (white & (logit > 0) & board) | faint | (pale & (logit > 0)) | colourful)
        probs = np.zeros((N_CELLS, len(patch_net.CLASSES)), np.float32)
        if net is None or asked.size == 0:
            return logit, best, probs
        scores, prob = self._patch_view(grid, feats, asked, names)
        probs[asked] = prob
        logit, best = logit.copy(), best.copy()
        in_doubt = doubt[asked]
        patch = patch_net.chip_logit(scores)
        logit[asked[in_doubt]] = cfg.patch_weight * patch[in_doubt] + (1.0 - cfg.patch_weight) * logit[asked[in_doubt]]
        seen = patch_net.sure_class(prob, cfg.patch_colour_sure)
        default = self.default_colours
        index = {name: i for i, name in enumerate(names)}
        for team in set(TEAM_COLOURS) & set(names):
            recolourable = white | (default[best] & default[index[team]])
            sure = recolourable[asked] & (logit[asked] > 0) & (seen == team)
            best[asked[sure]] = index[team]
        # A faint cell the network is sure holds a chip holds that chip: white, or a team's
        # where no empty-board reference is compared (the network does not see the board's own
        # art, the cue network then does); so does a team-coloured cell read empty, where the
        # chip is a default colour (the network never saw a taught marker).
        found_as = patch_net.sure_class(prob, cfg.patch_white_sure)
        chips = names if self._ref_lab is None else names[white_at]
        found = (faint[asked] & np.isin(found_as, chips)) \
            | (colourful[asked] & np.isin(found_as, names[team_at & default]))
        logit[asked[found]] = patch[found]
        best[asked[found]] = [index[name] for name in found_as[found]]
        if white_at.size:
            # A chip read in a team colour is white where the network is sure of that and the
            # colour is near white, or where it is all but certain whatever the colour says
            # (the chip logit as it stands now: a doubtful cell the network found a chip in too).
            chip = (logit[asked] > 0) & reachable[asked]
            certain = prob[:, patch_net.CLASSES.index("flipped")] >= cfg.patch_white_certain
            best[asked[chip & ((pale[asked] & (seen == "flipped")) | certain)]] = int(white_at[0])
            if cfg.patch_white_lines:
                unasked = reachable.copy()
                unasked[asked] = False
                self._white_lines_read(grid, feats, logit, best, probs, int(white_at[0]), unasked, names)
        return logit, best, probs

    def _patch_view(self, grid: np.ndarray, feats: dict[str, np.ndarray], asked: np.ndarray,
                    names: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The patch network's class scores and probabilities ``(len(asked), classes)`` for the
        cells ``asked`` (flat indices), over "empty", every team colour and this reader's chip
        ``names``: a chip of a colour the table lacks (a marker taught as a team's, a stray chip of
        the other set) is still a chip; only a white chip is ruled out where the table has none,
        a white card looking so like one."""
        patches = cell_patches(grid, feats["white"], asked, self.config.patch)
        possible = ("empty", *TEAM_COLOURS, *names)
        scores = patch_net.only_classes(self.patch_net.class_logits(patches), possible)
        return scores, patch_net.probabilities(scores)

    def _white_lines_read(self, grid: np.ndarray, feats: dict[str, np.ndarray], logit: np.ndarray,
                          best: np.ndarray, probs: np.ndarray, white_at: int, unasked: np.ndarray,
                          names: np.ndarray) -> None:
        """The cells read empty on a line with two white chips (``patch_white_lines``; of the
        ``unasked`` ``(100,)`` bool) read by the patch network: where it is sure of a white chip
        (``patch_white_line_sure``) that is what it is. Updates ``logit``, ``best`` and ``probs`` (as
        ``_second_opinion`` returns them) in place."""
        chip = logit > 0
        chip[CORNER_MASK.ravel()] = False
        white = chip & (best == white_at)
        asked = np.flatnonzero(unasked & ~chip & _on_white_lines(white, chip & ~white))
        if asked.size == 0:
            return
        scores, prob = self._patch_view(grid, feats, asked, names)
        probs[asked] = prob
        found = patch_net.sure_class(prob, self.config.patch_white_line_sure) == "flipped"
        logit[asked[found]] = patch_net.chip_logit(scores)[found]
        best[asked[found]] = white_at

    def seen_colours(self, frame: np.ndarray, corners: np.ndarray, reading: CellReading) -> list[list[str]]:
        """``reading``'s labels ``(10, 10)`` with each cell's chip as the patch network sees it
        where it is sure (``patch_colour_sure``), for telling the edition by the chips: a white
        chip the classic reader took for a green chip or for no chip at all is still a white chip.
        A team colour it sees counts only where the disc's hue lies in that colour's sector among
        all four (``TEAM_HUES``): the network learned one paint per colour, and took the bright
        green chips of another set (hue 133) for yellow ones, the Jumbo mat's, on a classic board.
        Not for the labels themselves: a profile's taught colours are not the network's."""
        labels = np.asarray(reading.labels, dtype=object).ravel()
        chips = np.flatnonzero(labels != "free")
        net = self.patch_net
        if net is None or chips.size == 0:
            return reading.labels
        white = np.asarray(reading.features["white"], np.float32).reshape(N_CELLS, 3)
        patches = cell_patches(self.rectify(frame, corners), white, chips, self.config.patch)
        seen = patch_net.sure_class(patch_net.probabilities(net.class_logits(patches)),
                                   self.config.patch_colour_sure)
        core_lab = np.asarray(reading.features["core_lab"], np.float32).reshape(N_CELLS, 3)[chips]
        by_hue = np.asarray(TEAM_HUES.labels, dtype=object)[TEAM_HUES.hue_labels(core_lab)]
        chip_seen = (seen != "") & (seen != "empty") & (~np.isin(seen, TEAM_COLOURS) | (seen == by_hue))
        labels[chips[chip_seen]] = seen[chip_seen]
        return labels.reshape(SIZE, SIZE).tolist()

    def _allowed_distances(
        self, dist: np.ndarray, names: np.ndarray, white_possible: np.ndarray | None
    ) -> np.ndarray:
        """Prototype distances ``(100, P)`` with white out of reach where ``white_possible`` is
        False (so neither the label nor the colour margin can pick it there)."""
        white = names == "flipped"
        if white_possible is None or not white.any() or white.all():
            return dist
        no_white = ~np.asarray(white_possible, dtype=bool).reshape(N_CELLS)
        out = dist.copy()
        out[np.ix_(no_white, white)] = self.config.unreachable_distance
        return out

    def decide(
        self, feats: dict[str, np.ndarray], *, white_possible: np.ndarray | None = None,
        grid: np.ndarray | None = None,
    ) -> tuple[list[list[str]], np.ndarray, np.ndarray, np.ndarray]:
        """Labels ``(10, 10)``, confidence ``(10, 10)``, chip logit ``(100,)`` and the patch
        network's class probabilities ``(100, len(patch_net.CLASSES))`` (zero where it was not
        asked) from features.

        A chip is there when the network says so; its label is the nearest colour prototype
        (white included, so a white chip found by the reference comparison is still "flipped"),
        a team colour chosen by the disc's hue (``ColourModel.chip_colours``).
        Where that prototype is white, the Jumbo white-chip network may also say so: it finds
        white chips the first one misses in glare, and leaves every other decision alone.
        ``white_possible`` (``(10, 10)`` bool, None: everywhere): where a white chip can be at
        all; elsewhere a chip is the nearest team colour (a red chip half under a white playing
        card looks white, but a chip is never put down white side up).
        ``grid``: the rectified board the features came from; with it, the cells left in doubt
        are also read by the patch network (``_second_opinion``).
        """
        cfg = self.config
        inputs = self.decision_inputs(feats)
        logit = self.chip_net.logit(inputs)
        names = np.array(self.colour_model.labels, dtype=object)
        dist = self._allowed_distances(feats["proto_dist"], names, white_possible)
        best = self.colour_model.chip_colours(dist.argmin(axis=1), feats["core_lab"])
        white_net = self.white_chip_net
        if white_net is not None:
            white = names[best] == "flipped"
            added = np.minimum(white_net.logit(inputs), cfg.white_net_cap)
            logit = np.where(white, np.maximum(logit, added), logit).astype(np.float32)
        patch_probs = np.zeros((N_CELLS, len(patch_net.CLASSES)), np.float32)
        if grid is not None:
            logit, best, patch_probs = self._second_opinion(grid, feats, logit, best, names, dist)
        chip = logit > 0
        out = np.where(chip, names[best], "empty").reshape(SIZE, SIZE)
        conf = np.where(chip, chip_confidence(logit, dist, best, cfg.colour_margin_gain), 1.0 - _sigmoid(logit))
        team_chip = chip & np.isin(names, TEAM_COLOURS)[best]
        conf = conf * (1.0 - cfg.saturated_doubt * inputs["saturated"] * ~team_chip)
        out[CORNER_MASK] = "free"
        conf = conf.reshape(SIZE, SIZE).astype(np.float32)
        conf[CORNER_MASK] = 1.0
        return out.tolist(), conf, logit, patch_probs

    def _chip_looks(self, feats: dict[str, np.ndarray], labels: list[list[str]], conf: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray]:
        """Per coloured chip (``ColourModel.coloured_labels``), the Lab hue angle (degrees) and the
        chroma floor a pixel needs to be taken for its face (``chip_middles``): the hue the frame's
        own sure chips of that colour show, and ``off_centre_chroma`` of their chroma (a camera and
        a lamp set how vivid a team looks), or the prototype's where the frame shows too few
        (``off_centre_chips``); the floor never under ``off_centre_chroma_min``. Skin, a sleeve or
        a wooden table seen past a card are paler than the chips beside them, and of another hue
        than any team's."""
        cfg = self.config
        flat = np.asarray(labels, dtype=object).reshape(N_CELLS)
        sure = conf.reshape(N_CELLS) >= cfg.off_centre_sure
        lab = feats["core_lab"]
        hues, floors = [], []
        for name in self.colour_model.coloured_labels:
            seen = (flat == name) & sure
            if seen.sum() >= cfg.off_centre_chips:
                a, b = np.median(lab[seen, 1]), np.median(lab[seen, 2])
            else:
                a, b = self.colour_model.prototypes[name].mean[1:]
            hues.append(np.degrees(np.arctan2(b, a)) % 360.0)
            floors.append(max(cfg.off_centre_chroma * float(np.hypot(a, b)), cfg.off_centre_chroma_min))
        return np.array(hues, np.float64), np.array(floors, np.float32)

    def _off_centre_chips(
        self, prep: _Prepared, feats: dict[str, np.ndarray], labels: list[list[str]], conf: np.ndarray,
        logit: np.ndarray, white_possible: np.ndarray | None,
    ) -> tuple[list[list[str]], np.ndarray, np.ndarray]:
        """``decide``'s labels, confidence and chip logit, with each cell that holds a coloured
        chip's middle off its centre (``chip_middles``, ``_worth_reading_again``) read again about
        that middle, and given that chip where the network is sure of it there
        (``off_centre_logit``, ``off_centre_sure``) and surer than about the centre, or sees the
        same colour. Such a cell's cues in ``feats`` become those of the second read (the rules
        after the read judge the chip by them); ``feats["chip_middle"]`` holds the middles.

        A read looks for a chip about the cell's centre (a disc, a rim a little either way): a
        chip put down a quarter of a cell or more off centre shows half a disc there, and card
        beside it, and reads empty or greyer than it is (rendered frames with chips up to 0.3 of
        a cell off each way, ``vision_accuracy.py --chip-offset``). The middles are coloured ones
        only: a white chip off centre on a white card is left to the first read."""
        cfg = self.config
        hues, floors = self._chip_looks(feats, labels, conf)
        middle = feats["chip_middle"] = chip_middles(prep.lab_planes[1], prep.lab_planes[2], hues, floors,
                                                     self.geometry, cfg)
        first = np.asarray(labels, dtype=object).reshape(N_CELLS)
        cells = np.flatnonzero(self._worth_reading_again(middle, first, conf.reshape(N_CELLS)))
        if cells.size == 0:
            return labels, conf, logit
        moved = {name: values.copy() for name, values in feats.items()}
        smp = self._samples.of_cells(cells).moved(np.rint(middle[cells, :2]).astype(np.intp), self.geometry.size)
        for name, values in self._disc_cues(prep, smp).items():
            moved[name][cells] = values
        moved_logit = self.chip_net.logit(self.decision_inputs(moved))
        names = np.array(self.colour_model.labels, dtype=object)
        dist = self._allowed_distances(moved["proto_dist"], names, white_possible)
        best = self.colour_model.chip_colours(dist.argmin(axis=1), moved["core_lab"])
        sure = chip_confidence(moved_logit, dist, best, cfg.colour_margin_gain)
        take = np.zeros(N_CELLS, dtype=bool)
        take[cells] = True
        take &= (moved_logit >= cfg.off_centre_logit) & (sure >= cfg.off_centre_sure) & (names[best] != "flipped")
        take &= (moved_logit > logit) | (first == names[best])
        if not take.any():
            return labels, conf, logit
        for name, values in moved.items():
            feats[name][take] = values[take]
        out = first.copy()
        out[take] = names[best[take]]
        conf = np.where(take.reshape(SIZE, SIZE), sure.reshape(SIZE, SIZE), conf).astype(np.float32)
        return out.reshape(SIZE, SIZE).tolist(), conf, np.where(take, moved_logit, logit).astype(np.float32)

    def _worth_reading_again(self, middle: np.ndarray, labels: np.ndarray, conf: np.ndarray) -> np.ndarray:
        """``(100,)`` bool: the cells whose chip middle (``chip_middles``, ``(100, 3)``) lies at
        least ``off_centre_shift`` from their centre but not on the line to the next cell
        (``off_centre_edge``: which cell such a chip is in, the picture cannot say, nor often the
        players), and that the first read (flat ``labels``, ``conf``) did not already see sure in
        the middle's colour, unless on a court card: there the rules after the read take a chip
        greyer than its team's for the card's art."""
        cfg = self.config
        geom = self.geometry
        far = np.hypot(middle[:, 0], middle[:, 1]) >= cfg.off_centre_shift * min(geom.cell_h, geom.cell_w)
        near_edge = np.maximum(np.abs(middle[:, 0]) / geom.cell_h, np.abs(middle[:, 1]) / geom.cell_w)
        # (colour index -1, no middle, picks the "" after the names: no cell reads that)
        colour = np.array([*self.colour_model.coloured_labels, ""], dtype=object)[middle[:, 2].astype(np.intp)]
        seen = (labels == colour) & (conf >= cfg.off_centre_sure) & ~COURT_MASK.ravel()
        return far & (near_edge <= 0.5 - cfg.off_centre_edge) & ~CORNER_MASK.ravel() & ~seen

    def read(
        self, frame: np.ndarray, corners: np.ndarray, *, white_possible: np.ndarray | None = None
    ) -> CellReading:
        """Read all cells of ``frame`` (``(H, W, 3)`` uint8 BGR) with canonical ``corners`` ``(4, 2)``
        (``white_possible``: see ``decide``)."""
        return self.read_grid(self.rectify(frame, corners), white_possible=white_possible)

    def read_grid(self, grid: np.ndarray, *, white_possible: np.ndarray | None = None) -> CellReading:
        """Read all cells of an already rectified grid (``(10h, 10w, 3)`` uint8 BGR)."""
        prep = self._prepared(grid)
        feats = self._features(prep)
        labels, conf, logit, patch_probs = self.decide(feats, white_possible=white_possible, grid=grid)
        labels, conf, logit = self._off_centre_chips(prep, feats, labels, conf, logit, white_possible)
        feats["chip_logit"] = logit
        feats["patch_probs"] = patch_probs
        shaped = {k: v.reshape(SIZE, SIZE, *v.shape[1:]).astype(np.float32, copy=False) for k, v in feats.items()}
        return CellReading(labels, conf, shaped)
