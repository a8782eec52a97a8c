"""The scene seeds each shipped network was fitted and checked on, in one place.

A benchmark run over any of these seeds renders scenes a network learned from (or was chosen
on), and its figures flatter the code: the fit scripts take their seeds and default frame
counts from here, and the accuracy benchmarks warn (``fitted_warning``) when their seeds reach
into them. The counts are the fit scripts' defaults, which the shipped models were fitted with
(their commands are in each script's docstring). A held-out block is the script's present one:
the shipped board network was checked on 54000-54199, inside its own training block, before
the held-out seeds were moved apart.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SeedBlock:
    """Consecutive scene seeds one fit renders for one purpose."""

    fit: str
    """What is fitted on them (``"patch network"``)."""
    part: str
    """What for (``"training"``, ``"held-out"``, ``"training, white chips"``)."""
    start: int
    frames: int
    """How many: the fit script's default."""

    @property
    def seeds(self) -> range:
        return range(self.start, self.start + self.frames)


CELL_STANDARD = SeedBlock("cell model", "training", 200, 600)
CELL_HARD = SeedBlock("cell model", "training, hard", 3000, 600)
CELL_FLIPPED = SeedBlock("cell model", "training, white chips", 5100, 200)
CELL_HARD_FLIPPED = SeedBlock("cell model", "training, white chips, hard", 5300, 300)
PATCH_STANDARD = SeedBlock("patch network", "training", 30000, 2000)
PATCH_HELD_OUT = SeedBlock("patch network", "held-out", 32000, 300)
PATCH_FLIPPED = SeedBlock("patch network", "training, white chips", 40000, 1600)
PATCH_HARD_FLIPPED = SeedBlock("patch network", "training, white chips, hard", 44000, 1600)
BOARD_TRAIN = SeedBlock("board network", "training", 50000, 6000)
BOARD_HELD_OUT = SeedBlock("board network", "held-out", 59000, 200)
TURN_TRAIN = SeedBlock("turn network", "training", 70000, 12000)
TURN_HELD_OUT = SeedBlock("turn network", "held-out", 90000, 400)
CORNER_TRAIN = SeedBlock("corner networks", "training", 100000, 6000)
CORNER_HELD_OUT = SeedBlock("corner networks", "held-out", 110000, 200)
LINE_TRAIN = SeedBlock("white-line model", "training", 130000, 3000)

BLOCKS: tuple[SeedBlock, ...] = (
    CELL_STANDARD, CELL_HARD, CELL_FLIPPED, CELL_HARD_FLIPPED,
    PATCH_STANDARD, PATCH_HELD_OUT, PATCH_FLIPPED, PATCH_HARD_FLIPPED,
    BOARD_TRAIN, BOARD_HELD_OUT, TURN_TRAIN, TURN_HELD_OUT, CORNER_TRAIN, CORNER_HELD_OUT, LINE_TRAIN,
)
"""Every block, by fit."""


def shared_seeds(a: range, b: range) -> range:
    """The seeds two consecutive ranges have in common (empty where none)."""
    return range(max(a.start, b.start), min(a.stop, b.stop))


def fitted_on(seeds: range) -> list[tuple[SeedBlock, range]]:
    """The blocks ``seeds`` reaches into, each with the seeds they share."""
    return [(block, both) for block in BLOCKS if len(both := shared_seeds(seeds, block.seeds))]


def _span(seeds: range) -> str:
    """``"30000-30299"``, or the one seed."""
    return str(seeds.start) if len(seeds) == 1 else f"{seeds.start}-{seeds.stop - 1}"


def fitted_warning(seeds: range) -> str | None:
    """One line naming the fits whose scenes ``seeds`` renders again, or None where it renders
    none of them."""
    shared = fitted_on(seeds)
    if not shared:
        return None
    parts = "; ".join(f"{len(both)} of the {block.fit}'s {block.part} scenes ({_span(both)})" for block, both in shared)
    return f"warning: these seeds render {parts}: the figures flatter the code, choose other seeds"
