"""The printed board as a flat texture: card faces, pips, court art, corner logos, margin text.

The texture is drawn once per (edition, variant, printing), cached, and warped into each frame
by ``vision.sim.scene``. Which card sits in which cell comes from ``engine.layout``; this
module only knows how a card *looks*. Images are ``(H, W, 3) uint8`` BGR.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from engine.layout import EDITIONS, FREE, LAYOUT, SIZE, SUIT_INK, split_card

BGR = tuple[int, int, int]


@dataclass(frozen=True)
class BoardVariant:
    """How one printing of a board looks: colours of the board, the margin and its text."""

    name: str
    edition: str
    board: BGR  # colour between the cards
    margin: BGR  # colour of the border band around the grid
    text: BGR  # "SEQUENCE" lettering in the margin
    card: BGR  # card face white
    margin_cells: tuple[float, float]  # (left/right, top/bottom) margin, in cell heights; the
    # classic folding board is 15 x 19 inches around a square grid: wide bands top and bottom
    crease: bool  # a folding board shows a crease across the middle
    glossy: float  # 0 matte card board .. 1 vinyl mat (scales glare)


VARIANTS: dict[str, BoardVariant] = {
    v.name: v
    for v in (
        BoardVariant("modern", "classic", (196, 198, 196), (190, 192, 190), (70, 70, 72),
                     (238, 242, 244), (0.4, 1.6), True, 0.25),
        BoardVariant("modern_warm", "classic", (182, 192, 198), (176, 186, 192), (60, 62, 70),
                     (228, 238, 244), (0.45, 1.5), True, 0.2),
        BoardVariant("old_black", "classic", (34, 32, 30), (28, 26, 24), (70, 190, 225),
                     (232, 240, 244), (0.5, 1.4), True, 0.35),
        BoardVariant("old_green", "classic", (52, 82, 32), (44, 72, 26), (215, 225, 230),
                     (230, 238, 242), (0.5, 1.45), True, 0.3),
        BoardVariant("vinyl", "jumbo", (200, 200, 198), (196, 196, 194), (58, 58, 60),
                     (240, 243, 245), (0.35, 0.55), False, 1.0),
        BoardVariant("vinyl_dark", "jumbo", (48, 70, 30), (40, 60, 24), (220, 228, 232),
                     (236, 242, 245), (0.35, 0.55), False, 1.0),
    )
}


def variants_of(edition: str) -> tuple[str, ...]:
    """Names of the print variants of ``edition`` ("classic" or "jumbo")."""
    return tuple(v.name for v in VARIANTS.values() if v.edition == edition)


@dataclass(frozen=True)
class ArtConfig:
    """Texture resolution and card proportions (fractions of a cell or card)."""

    cell_px: int = 96  # cell height at mip level 0
    card_gap: float = 0.035  # gap from cell edge to card face, fraction of cell height
    corner_radius: float = 0.09  # card corner radius, fraction of card width
    index_height: float = 0.15  # rank letters, fraction of card height
    pip_small: float = 0.13  # pip size for 2..6, fraction of card height
    pip_many: float = 0.115  # pip size for 7..10
    print_noise: float = 2.0  # grey levels of print/paper texture noise
    levels: int = 3  # mip levels kept (each half the previous)
    court_style: str = "blocks"  # how Queens and Kings are drawn: a key of COURT_STYLES
    red_ink: BGR = (38, 30, 200)


PRINTINGS: dict[str, ArtConfig] = {
    "standard": ArtConfig(),
    "other": ArtConfig(pip_small=0.16, pip_many=0.135, index_height=0.18, court_style="patchwork",
                       red_ink=(45, 25, 175)),
}
"""Printings of the same board. ``standard`` is the one every network was fitted on; ``other``,
drawn by another hand (its own court art, bigger pips and indices, a deeper red), is fitted on
by nothing, so what is read on it shows how much the reader learned one print rather than the
game. A real board is neither."""


BLACK_INK: BGR = (28, 26, 26)  # the red ink is a printing's own (``ArtConfig.red_ink``)
COURT_COLOURS: tuple[BGR, ...] = ((40, 40, 205), (165, 85, 25), (40, 195, 240), (30, 28, 28))
SKIN: BGR = (175, 205, 240)


@dataclass(frozen=True)
class BoardArt:
    """The board texture at several resolutions with the grid's position in it.

    ``levels[k]`` is the texture downsampled ``2**k`` times. ``grid`` is
    ``(x0, y0, x1, y1)`` of the 10x10 grid's outer edges at level 0, in pixels.
    """

    edition: str
    variant: BoardVariant
    levels: tuple[np.ndarray, ...]
    grid: tuple[float, float, float, float]
    cell_px: int

    @property
    def size(self) -> tuple[int, int]:
        """(width, height) of the level-0 texture."""
        h, w = self.levels[0].shape[:2]
        return w, h

    @property
    def cell_size(self) -> tuple[float, float]:
        """(width, height) of one cell at level 0."""
        x0, y0, x1, y1 = self.grid
        return (x1 - x0) / SIZE, (y1 - y0) / SIZE

    def grid_corners(self) -> np.ndarray:
        """(4, 2) float32 outer grid corners at level 0: TL, TR, BR, BL (cell (0,0) is TL)."""
        x0, y0, x1, y1 = self.grid
        return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float32)

    def cell_centre(self, row: int, col: int) -> tuple[float, float]:
        """Centre of a cell at level 0, in texture pixels."""
        x0, y0, _, _ = self.grid
        cw, ch = self.cell_size
        return x0 + (col + 0.5) * cw, y0 + (row + 0.5) * ch


# ---------------------------------------------------------------- suit shapes


def _suit_polys(suit: str, cx: float, cy: float, s: float, flip: bool) -> list[np.ndarray]:
    """Outline polygons of a suit symbol of height ``s`` centred at (cx, cy)."""
    t = np.linspace(0, 2 * np.pi, 40, endpoint=False)
    parts: list[np.ndarray] = []

    def circle(x: float, y: float, r: float) -> np.ndarray:
        return np.stack([x + r * np.cos(t), y + r * np.sin(t)], 1)

    if suit == "D":
        parts.append(np.array([[0, -0.5], [0.36, 0], [0, 0.5], [-0.36, 0]]))
    elif suit in ("H", "S"):
        # A heart: two lobes and a point; a spade is an upside-down heart with a stem.
        lobe = 0.245
        parts += [circle(-0.22, -0.16, lobe), circle(0.22, -0.16, lobe)]
        parts.append(np.array([[-0.462, -0.1], [0.462, -0.1], [0.0, 0.45]]))
        if suit == "S":
            parts = [p * np.array([1, -1]) + np.array([0, -0.08]) for p in parts]
            parts.append(np.array([[0, 0.1], [0.16, 0.5], [-0.16, 0.5]]))
    else:  # clubs
        r = 0.19
        parts += [circle(0, -0.26, r), circle(-0.22, 0.06, r), circle(0.22, 0.06, r)]
        parts.append(np.array([[0, -0.1], [0.1, 0.1], [-0.1, 0.1]]))
        parts.append(np.array([[0, 0.0], [0.15, 0.5], [-0.15, 0.5]]))
    sign = -1.0 if flip else 1.0
    return [np.stack([cx + s * p[:, 0], cy + sign * s * p[:, 1]], 1) for p in parts]


def draw_suit(img: np.ndarray, suit: str, centre: tuple[float, float], height: float,
              colour: BGR, *, flip: bool = False) -> None:
    """Draw a filled suit symbol on ``img`` in place (anti-aliased, sub-pixel)."""
    shift = 4
    polys = [np.round(p * (1 << shift)).astype(np.int32) for p in
             _suit_polys(suit, centre[0], centre[1], height, flip)]
    for poly in polys:  # one at a time: overlapping parts would cancel under even-odd filling
        cv2.fillPoly(img, [poly], colour, cv2.LINE_AA, shift)


# ---------------------------------------------------------------- card faces

PIP_LAYOUT: dict[int, tuple[tuple[float, float], ...]] = {
    2: ((0.5, 0), (0.5, 1)),
    3: ((0.5, 0), (0.5, 0.5), (0.5, 1)),
    4: ((0, 0), (1, 0), (0, 1), (1, 1)),
    5: ((0, 0), (1, 0), (0.5, 0.5), (0, 1), (1, 1)),
    6: ((0, 0), (1, 0), (0, 0.5), (1, 0.5), (0, 1), (1, 1)),
    7: ((0, 0), (1, 0), (0.5, 0.25), (0, 0.5), (1, 0.5), (0, 1), (1, 1)),
    8: ((0, 0), (1, 0), (0.5, 0.25), (0, 0.5), (1, 0.5), (0.5, 0.75), (0, 1), (1, 1)),
    9: ((0, 0), (1, 0), (0, 1 / 3), (1, 1 / 3), (0.5, 0.5), (0, 2 / 3), (1, 2 / 3), (0, 1), (1, 1)),
    10: ((0, 0), (1, 0), (0.5, 1 / 6), (0, 1 / 3), (1, 1 / 3), (0, 2 / 3), (1, 2 / 3),
         (0.5, 5 / 6), (0, 1), (1, 1)),
}
"""Standard pip positions of number cards in a unit box (x across, y down)."""


def _text_size(text: str, font: int, height: float, thick: int) -> tuple[float, tuple[int, int]]:
    (_, h), _ = cv2.getTextSize(text, font, 1.0, thick)
    scale = height / max(h, 1)
    (w2, h2), _ = cv2.getTextSize(text, font, scale, thick)
    return scale, (w2, h2)


def _draw_index(card: np.ndarray, rank: str, suit: str, colour: BGR, cfg: ArtConfig) -> None:
    """Rank and small suit in the top-left corner, and the same rotated in the bottom-right."""
    h, w = card.shape[:2]
    patch = np.full((int(h * 0.42), int(w * 0.24), 3), 255, np.uint8)
    font = cv2.FONT_HERSHEY_DUPLEX
    thick = max(1, round(h / 55))
    text = "10" if rank == "10" else rank
    th = h * cfg.index_height
    scale, (tw, _) = _text_size(text, font, th, thick)
    if tw > patch.shape[1] * 0.95:  # "10" is wide: squeeze it
        scale *= patch.shape[1] * 0.95 / tw
        _, (tw, _) = _text_size(text, font, th, thick)
        tw = min(tw, int(patch.shape[1] * 0.95))
    x = max(1, (patch.shape[1] - tw) // 2)
    cv2.putText(patch, text, (x, int(h * 0.04 + th)), font, scale, colour, thick, cv2.LINE_AA)
    draw_suit(patch, suit, (patch.shape[1] / 2, h * 0.04 + th + h * 0.1), h * 0.11, colour)
    ph, pw = patch.shape[:2]
    ox, oy = int(w * 0.02), int(h * 0.02)
    card[oy:oy + ph, ox:ox + pw] = np.minimum(card[oy:oy + ph, ox:ox + pw], patch)
    rot = patch[::-1, ::-1]
    card[h - oy - ph:h - oy, w - ox - pw:w - ox] = np.minimum(
        card[h - oy - ph:h - oy, w - ox - pw:w - ox], rot)


def _draw_pips(card: np.ndarray, rank: str, suit: str, colour: BGR, cfg: ArtConfig) -> None:
    h, w = card.shape[:2]
    if rank == "A":
        draw_suit(card, suit, (w / 2, h / 2), h * (0.42 if suit == "S" else 0.32), colour)
        return
    n = int(rank)
    size = h * (cfg.pip_small if n <= 6 else cfg.pip_many)
    x0, x1 = w * 0.33, w * 0.67
    y0, y1 = h * 0.2, h * 0.8
    for px, py in PIP_LAYOUT[n]:
        draw_suit(card, suit, (x0 + px * (x1 - x0), y0 + py * (y1 - y0)), size, colour, flip=py > 0.5)


def _court_blocks(fw: int, hh: int, rank: str, suit: str) -> np.ndarray:
    """The upper half ``(hh, fw, 3)`` of a court card's art: blocks of colour for the robe, a
    crown and a face."""
    rng = np.random.default_rng(zlib.crc32(f"{rank}{suit}".encode()))
    half = np.full((hh, fw, 3), 235, np.uint8)
    cols = [COURT_COLOURS[i] for i in rng.permutation(len(COURT_COLOURS))]
    # robe: vertical blocks of colour from the shoulders down to the fold line
    xs = np.linspace(0, fw, 5).astype(int)
    for i in range(4):
        cv2.rectangle(half, (int(xs[i]), int(hh * 0.55)), (int(xs[i + 1]), hh), cols[i % 4], -1)
    cv2.rectangle(half, (0, int(hh * 0.48)), (fw, int(hh * 0.58)), cols[(2 + rng.integers(2)) % 4], -1)
    # head: crown (yellow zig-zag), hair, face
    cx = int(fw * (0.45 + 0.1 * rng.random()))
    r = int(fw * 0.16)
    cv2.rectangle(half, (cx - int(r * 1.6), int(hh * 0.18)), (cx + int(r * 1.6), int(hh * 0.56)),
                  cols[3] if rank == "K" else cols[1], -1)
    cv2.ellipse(half, (cx, int(hh * 0.36)), (r, int(r * 1.2)), 0, 0, 360, SKIN, -1, cv2.LINE_AA)
    crown = np.array([[cx - r * 1.3, hh * 0.2], [cx - r * 1.3, hh * 0.02], [cx - r * 0.6, hh * 0.12],
                      [cx, hh * 0.0], [cx + r * 0.6, hh * 0.12], [cx + r * 1.3, hh * 0.02],
                      [cx + r * 1.3, hh * 0.2]], np.int32)
    cv2.fillPoly(half, [crown], COURT_COLOURS[2], cv2.LINE_AA)
    cv2.polylines(half, [crown], True, BLACK_INK, 1, cv2.LINE_AA)
    cv2.line(half, (cx - r // 2, int(hh * 0.33)), (cx - r // 4, int(hh * 0.33)), (30, 30, 30), 1)
    cv2.line(half, (cx + r // 4, int(hh * 0.33)), (cx + r // 2, int(hh * 0.33)), (30, 30, 30), 1)
    for x in xs[1:-1]:
        cv2.line(half, (int(x), int(hh * 0.58)), (int(x), hh), (30, 30, 30), 1)
    return half


PATCHWORK_COLOURS: tuple[BGR, ...] = ((30, 40, 190), (150, 70, 20), (30, 180, 230), (25, 25, 25), (60, 120, 40))


def _court_patchwork(fw: int, hh: int, rank: str, suit: str) -> np.ndarray:
    """The upper half of a court card drawn by another hand: overlapping areas of flat colour
    outlined in black, some striped, under a face and a crown."""
    rng = np.random.default_rng(zlib.crc32(f"patchwork{rank}{suit}".encode()))
    half = np.full((hh, fw, 3), 245, np.uint8)
    stripes = np.zeros((hh, fw), np.uint8)
    for k in range(-hh, fw + hh, max(3, fw // 10)):
        cv2.line(stripes, (k, 0), (k + hh, hh), 255, 1)
    for _ in range(14):
        pts = np.stack([rng.uniform(-0.1, 1.1, 5) * fw, rng.uniform(0.25, 1.1, 5) * hh], 1)
        hull = cv2.convexHull(pts.astype(np.int32))
        cv2.fillPoly(half, [hull], PATCHWORK_COLOURS[rng.integers(len(PATCHWORK_COLOURS))], cv2.LINE_AA)
        if rng.random() < 0.5:
            area = np.zeros((hh, fw), np.uint8)
            cv2.fillPoly(area, [hull], 255)
            half[(area > 0) & (stripes > 0)] = PATCHWORK_COLOURS[rng.integers(len(PATCHWORK_COLOURS))]
        cv2.polylines(half, [hull], True, BLACK_INK, 1, cv2.LINE_AA)
    cx, r = fw // 2, int(fw * 0.13)
    for colour, fill in ((SKIN, -1), (BLACK_INK, 1)):
        cv2.ellipse(half, (cx, int(hh * 0.3)), (r, int(r * 1.25)), 0, 0, 360, colour, fill, cv2.LINE_AA)
    crown = np.array([[cx - r, hh * 0.15], [cx - r, 0], [cx, hh * 0.08], [cx + r, 0], [cx + r, hh * 0.15]], np.int32)
    cv2.fillPoly(half, [crown], COURT_COLOURS[2], cv2.LINE_AA)
    return half


COURT_STYLES = {"blocks": _court_blocks, "patchwork": _court_patchwork}


def _draw_court(card: np.ndarray, rank: str, suit: str, colour: BGR, cfg: ArtConfig) -> None:
    """A Queen or King: a framed picture of colourful art, double-headed like a real court card."""
    h, w = card.shape[:2]
    fx0, fy0, fx1, fy1 = int(w * 0.2), int(h * 0.14), int(w * 0.8), int(h * 0.86)
    fw, fh = fx1 - fx0, fy1 - fy0
    half = COURT_STYLES[cfg.court_style](fw, fh // 2 + 1, rank, suit)
    art = np.concatenate([half, half[::-1, ::-1]], 0)[:fh]
    card[fy0:fy1, fx0:fx1] = art
    cv2.rectangle(card, (fx0, fy0), (fx1 - 1, fy1 - 1), BLACK_INK, 1, cv2.LINE_AA)
    draw_suit(card, suit, (fx0 + fw * 0.13, fy0 + fh * 0.08), h * 0.08, colour)
    draw_suit(card, suit, (fx1 - fw * 0.13, fy1 - fh * 0.08), h * 0.08, colour, flip=True)


def _draw_logo(card: np.ndarray) -> None:
    """The round printed logo of a free corner."""
    h, w = card.shape[:2]
    c = (w // 2, h // 2)
    r = int(min(w, h) * 0.4)
    cv2.circle(card, c, r, (110, 45, 15), -1, cv2.LINE_AA)
    cv2.circle(card, c, int(r * 0.86), (40, 190, 235), max(1, r // 12), cv2.LINE_AA)
    for i, col in enumerate(((40, 40, 205), (165, 85, 25), (60, 140, 40), (40, 195, 240))):
        a = np.deg2rad(45 + 90 * i)
        p = (int(c[0] + 0.5 * r * np.cos(a)), int(c[1] + 0.5 * r * np.sin(a)))
        cv2.circle(card, p, max(2, r // 6), col, -1, cv2.LINE_AA)
    scale, (tw, th) = _text_size("FREE", cv2.FONT_HERSHEY_DUPLEX, r * 0.32, 1)
    cv2.putText(card, "FREE", (c[0] - tw // 2, c[1] + th // 2), cv2.FONT_HERSHEY_DUPLEX, scale,
                (245, 245, 245), 1, cv2.LINE_AA)


def draw_card(card_name: str, w: int, h: int, cfg: ArtConfig = ArtConfig()) -> np.ndarray:
    """One card face (or the free-corner logo) as a white ``(h, w, 3)`` BGR picture."""
    card = np.full((h, w, 3), 255, np.uint8)
    if card_name == FREE:
        _draw_logo(card)
        return card
    rank, suit = split_card(card_name)
    colour = cfg.red_ink if SUIT_INK[suit] == "red" else BLACK_INK
    _draw_index(card, rank, suit, colour, cfg)
    if rank in ("Q", "K"):
        _draw_court(card, rank, suit, colour, cfg)
    else:
        _draw_pips(card, rank, suit, colour, cfg)
    return card


# ---------------------------------------------------------------- the whole board


def _rounded_mask(w: int, h: int, radius: int) -> np.ndarray:
    mask = np.zeros((h * 4, w * 4), np.uint8)
    r = radius * 4
    cv2.rectangle(mask, (r, 0), (w * 4 - r, h * 4), 255, -1)
    cv2.rectangle(mask, (0, r), (w * 4, h * 4 - r), 255, -1)
    for cx, cy in ((r, r), (w * 4 - r, r), (r, h * 4 - r), (w * 4 - r, h * 4 - r)):
        cv2.circle(mask, (cx, cy), r, 255, -1)
    return cv2.resize(mask, (w, h), interpolation=cv2.INTER_AREA)


def _margin_text(img: np.ndarray, grid: tuple[int, int, int, int], v: BoardVariant) -> None:
    """ "SEQUENCE" centred in each of the four margins, reading outward-up like the real board."""
    h, w = img.shape[:2]
    x0, y0, x1, y1 = grid
    font = cv2.FONT_HERSHEY_TRIPLEX
    for side in range(4):
        band = (y0 if side % 2 == 0 else x0)  # margin thickness on this side
        length = (x1 - x0) if side % 2 == 0 else (y1 - y0)
        if band < 12:
            continue
        th = band * 0.42
        scale, (tw, thh) = _text_size("SEQUENCE", font, th, max(1, int(th / 9)))
        if tw > length * 0.5:
            scale *= length * 0.5 / tw
            _, (tw, thh) = _text_size("SEQUENCE", font, th * length * 0.5 / tw, 1)
        strip = np.zeros((band, length), np.uint8)
        cv2.putText(strip, "SEQUENCE", ((length - tw) // 2, (band + thh) // 2), font, scale, 255,
                    max(1, int(th / 9)), cv2.LINE_AA)
        # side 0 top, 1 right, 2 bottom, 3 left: rotate so letters face the nearest player
        alpha = np.rot90(strip, k=-side)
        if side == 0:
            ys, xs = slice(0, band), slice(x0, x0 + length)
        elif side == 1:
            ys, xs = slice(y0, y0 + length), slice(w - band, w)
        elif side == 2:
            ys, xs = slice(h - band, h), slice(x0, x0 + length)
        else:
            ys, xs = slice(y0, y0 + length), slice(0, band)
        a = alpha.astype(np.float32)[..., None] / 255.0
        roi = img[ys, xs].astype(np.float32)
        img[ys, xs] = (roi * (1 - a) + np.array(v.text, np.float32) * a).astype(np.uint8)


def _build_level0(edition: str, v: BoardVariant, cfg: ArtConfig) -> tuple[np.ndarray, tuple[int, ...]]:
    ch = cfg.cell_px
    gw = round(SIZE * ch * EDITIONS[edition].grid_aspect)
    gh = SIZE * ch
    mx, my = round(v.margin_cells[0] * ch), round(v.margin_cells[1] * ch)
    W, H = gw + 2 * mx, gh + 2 * my
    img = np.empty((H, W, 3), np.uint8)
    img[:] = v.margin
    x0, y0, x1, y1 = mx, my, mx + gw, my + gh
    img[y0:y1, x0:x1] = v.board
    xs = np.round(np.linspace(x0, x1, SIZE + 1)).astype(int)
    ys = np.round(np.linspace(y0, y1, SIZE + 1)).astype(int)
    gap = max(1, round(cfg.card_gap * ch))
    for r in range(SIZE):
        for c in range(SIZE):
            cx0, cx1, cy0, cy1 = xs[c] + gap, xs[c + 1] - gap, ys[r] + gap, ys[r + 1] - gap
            cw, chh = cx1 - cx0, cy1 - cy0
            face = draw_card(LAYOUT[r][c], cw, chh, cfg).astype(np.float32)
            face *= np.array(v.card, np.float32) / 255.0
            a = _rounded_mask(cw, chh, max(2, round(cfg.corner_radius * cw)))[..., None] / 255.0
            roi = img[cy0:cy1, cx0:cx1].astype(np.float32)
            img[cy0:cy1, cx0:cx1] = (roi * (1 - a) + face * a).astype(np.uint8)
    _margin_text(img, (x0, y0, x1, y1), v)
    if v.crease:  # the board folds in four (15 x 19 inches into a 10 x 8 inch box): two creases
        mid = (y0 + y1) // 2
        img[mid - 1:mid + 1] = (img[mid - 1:mid + 1] * 0.82).astype(np.uint8)
        mid = (x0 + x1) // 2
        img[:, mid - 1:mid + 1] = (img[:, mid - 1:mid + 1] * 0.85).astype(np.uint8)
    edge = max(2, ch // 30)  # darker board edge
    img[:edge] = img[:edge] * 0.6
    img[-edge:] = img[-edge:] * 0.6
    img[:, :edge] = img[:, :edge] * 0.6
    img[:, -edge:] = img[:, -edge:] * 0.6
    rng = np.random.default_rng(zlib.crc32(v.name.encode()))
    noise = cv2.resize(rng.normal(0, cfg.print_noise, (H // 2, W // 2)).astype(np.float32), (W, H))
    img = np.clip(img.astype(np.float32) + noise[..., None], 0, 255).astype(np.uint8)
    return img, (x0, y0, x1, y1)


@lru_cache(maxsize=8)
def board_art(edition: str, variant: str, cfg: ArtConfig = ArtConfig()) -> BoardArt:
    """The cached texture of one printed board (drawn on first use, ~0.2 s)."""
    if edition not in EDITIONS:
        raise ValueError(f"unknown edition {edition!r}; expected one of: {', '.join(EDITIONS)}")
    if variant not in VARIANTS or VARIANTS[variant].edition != edition:
        raise ValueError(f"unknown {edition} board variant {variant!r}; expected one of: "
                         f"{', '.join(variants_of(edition))}")
    v = VARIANTS[variant]
    img, grid = _build_level0(edition, v, cfg)
    levels = [img]
    for _ in range(cfg.levels - 1):
        levels.append(cv2.pyrDown(levels[-1]))
    for lv in levels:
        lv.setflags(write=False)
    # continuous coordinates, pixel centres at integers: an edge lies half a pixel before its index
    return BoardArt(edition, v, tuple(levels), tuple(float(g) - 0.5 for g in grid), cfg.cell_px)
