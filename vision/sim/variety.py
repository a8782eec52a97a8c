"""Random scenes: every parameter of a frame drawn from a seed, at three difficulties.

``random_spec(seed, ...)`` draws the camera pose, lighting, print variant, table, clutter,
chips and camera defects into a frozen ``SceneSpec`` (same seed and arguments, same spec).
"easy", "normal" and "hard" are ranges; "hard" sits at the nasty end of every one that still gives
a readable frame; "extreme" adds optics that do not (reported apart, outside the targets).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from engine.labels import CLASSIC_COLOURS, JUMBO_COLOURS
from engine.layout import EDITIONS, SIZE
from vision.framing import cell_px
from vision.sim.board_art import PRINTINGS, variants_of
from vision.sim.camera import CameraPose
from vision.sim.chips import CHIP_BGR, CHIP_SETS, other_set_tints, other_white_mark
from vision.sim.clutter import SKIN_TONES, Clutter
from vision.sim.optics import Lighting, Optics
from vision.sim.scene import CONFIG, Labels, SceneSpec, check_labels, empty_labels, occlusion_of
from vision.sim.table import EXTRA_TABLE_KINDS, TABLE_KINDS

Range = tuple[float, float]
PLAIN_TABLE_CHANCE = 0.25  # share of random scenes on a plain white or dark table


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
    # The nasty end of every range that still gives a readable still frame: steep, small, glare,
    # shadows, clutter, a strong colour cast, and a cheap webcam's blur, noise and compression.
    "hard": Difficulty(
        tilt=(35, 50), roll_spread=45, fill=(0.35, 0.5), fov=(60, 78), exposure=(0.4, 1.6),
        white_balance=0.28, gradient=(0.2, 0.35), vignette=(0.3, 0.5), glare_chance=1.0, glare=(0.5, 0.9),
        shadow_count=(1, 2), shadow=(0.35, 0.55), clutter_count=(3, 4), max_occluded=5, defocus=(0.6, 1.2),
        motion_chance=0.3, motion=(2, 4), noise=(4, 7), jpeg=(50, 70), saturation=(0.7, 1.3),
        chip_jitter=(0.08, 0.12), tint=0.12, distortion=(0.04, 0.07), fold=(0.6, 1.5)),
}

# "hard" with the optics of a shaken, smeared, over-compressed frame (9 px motion blur, JPEG
# quality 35, noise 10+): white chips on white cards are often invisible to a person too.
# Reported for information, outside the accuracy targets.
DIFFICULTIES["extreme"] = replace(
    DIFFICULTIES["hard"], defocus=(1.0, 1.8), motion_chance=0.5, motion=(4, 9), noise=(6, 10), jpeg=(35, 55)
)


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
                chip_density: float | None = None, printing: str = "standard",
                chips: str = "standard") -> SceneSpec:
    """Draw a whole scene from ``seed`` (same seed and arguments -> same spec -> same frame).
    ``printing``: which printing of the board (``board_art.PRINTINGS``); ``chips``: which chip set
    (``chips.CHIP_SETS``); neither draws anything else."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a whole number >= 0, got {seed!r}")
    if difficulty not in DIFFICULTIES:
        raise ValueError(f"unknown difficulty {difficulty!r}; expected one of: {', '.join(DIFFICULTIES)}")
    if edition is not None and edition not in EDITIONS:
        raise ValueError(f"unknown edition {edition!r}; expected one of: {', '.join(EDITIONS)}")
    if len(size) != 2 or min(size) < 64:
        raise ValueError(f"size must be (width, height) of at least 64 pixels, got {size!r}")
    if printing not in PRINTINGS:
        raise ValueError(f"unknown printing {printing!r}; expected one of: {', '.join(PRINTINGS)}")
    if chips not in CHIP_SETS:
        raise ValueError(f"unknown chip set {chips!r}; expected one of: {', '.join(CHIP_SETS)}")
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
    white_mark = "ring_dot"
    if chips == "other":  # own streams: the rest of the scene stays as it was
        tints = list(other_set_tints(np.random.default_rng([seed, 0xC41])))
        white_mark = other_white_mark(np.random.default_rng([seed, 0xC42]))
    table = TABLE_KINDS[int(rng.integers(len(TABLE_KINDS)))]
    extra = np.random.default_rng([seed, 0x7AB1E])  # own stream: earlier draws stay as they were
    if extra.random() < PLAIN_TABLE_CHANCE:
        table = EXTRA_TABLE_KINDS[int(extra.integers(len(EXTRA_TABLE_KINDS)))]
    # chip sets differ: rim width, embossed groove, gloss, thickness (same stream, drawn after)
    style = (float(extra.uniform(0.08, 0.2)), float(extra.uniform(0.5, 0.72)), float(extra.uniform(0.1, 0.55)),
             float(extra.uniform(0.06, 0.12)))
    spec = SceneSpec(
        seed=seed, edition=ed, variant=variant, size=(int(size[0]), int(size[1])), labels=labs,
        camera=pose, lighting=lighting, optics=optics, table=table, table_variant=int(rng.integers(3)),
        chip_radius=float(rng.uniform(0.3, 0.4)), chip_jitter=_u(rng, d.chip_jitter),
        chip_tints=tuple(tints), chip_style=style, noise_seed=seed, fold=_u(rng, d.fold) if ed == "classic" else 0.0,
        printing=printing, white_mark=white_mark,
    )
    n_items = int(rng.integers(d.clutter_count[0], d.clutter_count[1] + 1))
    items = _random_clutter(rng, n_items, EDITIONS[ed].grid_aspect)
    return _fit_clutter(spec, items, d.max_occluded)


def with_chip_piles(spec: SceneSpec, piles: int, teams: tuple[str, ...] | None = None) -> SceneSpec:
    """``spec`` with ``piles`` piles of chips on the table beside the grid, one team's each, in
    turn (each player keeps a pile within reach; some of a pile may spill onto the board's edge).
    ``teams``: the colours in play (default: the edition's). Drawn from the spec's seed on a
    stream of their own, so the scene is otherwise unchanged."""
    rng = np.random.default_rng([spec.seed, 0xC41B5])
    if teams is None:
        teams = CLASSIC_COLOURS if spec.edition == "classic" else JUMBO_COLOURS
    items = []
    for k in range(piles):
        along, out = float(rng.uniform(0, 10)), float(rng.uniform(1.0, 2.5))
        x, y = [(along, -out), (10 + out, along), (along, 10 + out), (-out, along)][int(rng.integers(4))]
        items.append(Clutter("chips", x, y, colour=CHIP_BGR[teams[k % len(teams)]]))
    return replace(spec, clutter=spec.clutter + tuple(items))


MAX_CHIP_OFFSET = 0.5
"""Farthest a chip is put down off its card's centre, in cells each way: past it, it lies on the next card."""


def check_chip_offset(cells: float | None) -> float | None:
    """``cells`` as a chip offset (None: none given); ``ValueError`` outside 0 to ``MAX_CHIP_OFFSET``."""
    if cells is not None and not 0 <= cells <= MAX_CHIP_OFFSET:
        raise ValueError(f"chip_offset must be between 0 and {MAX_CHIP_OFFSET:g} cells, got {cells!r}")
    return cells


def with_chip_offset(spec: SceneSpec, cells: float | None) -> SceneSpec:
    """``spec`` with its chips put down up to ``cells`` of a cell off centre each way, as careless
    players do (None: as the spec drew them); see ``check_chip_offset``."""
    return spec if check_chip_offset(cells) is None else replace(spec, chip_jitter=float(cells))


def clicked_corners(corners: np.ndarray, cells: float, seed: int) -> np.ndarray:
    """Grid ``corners`` ``(4, 2)`` each moved ``cells`` of the grid's cells (``cell_px``) in a
    direction drawn from ``seed``: where a person's clicks on a photo's grid corners land."""
    if cells == 0:
        return corners
    angle = np.random.default_rng([seed, 0xC11C]).uniform(0.0, 2.0 * np.pi, 4)
    step = cells * cell_px(corners) * np.stack([np.cos(angle), np.sin(angle)], axis=1)
    return (np.asarray(corners, np.float64) + step).astype(np.float32)


def _fit_clutter(spec: SceneSpec, items: list[Clutter], max_cells: int) -> SceneSpec:
    """Keep items (pushing each outward if needed) while they hide at most ``max_cells`` cells."""
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
