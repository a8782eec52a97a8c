"""Accuracy of `detect` on seeded simulated frames, in three modes, with per-stage timings.

Modes: corners given (the reader alone); empty-board reference given (re-find + compare with the
empty look); nothing given (locate + orient + read). For each: board found rate, orientation
accuracy, corner error as a fraction of the grid diagonal, per-cell error (cells hidden by
clutter excluded), all-cells-right rate, and median milliseconds per frame.

    .venv/bin/python benchmarks/vision_accuracy.py                  # 300 frames
    .venv/bin/python benchmarks/vision_accuracy.py --frames 60 --seed 7 --modes corners
    .venv/bin/python benchmarks/vision_accuracy.py --dump /tmp/fails   # crops of wrong cells
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.fit_seeds import fitted_warning
from companion_web.options import parse_frame_size
from engine.layout import SIZE
from vision.classify import CellReader
from vision.detect import Detection, detect
from vision.sim import random_spec, render
from vision.sim.board_art import PRINTINGS
from vision.sim.chips import CHIP_SETS
from vision.sim.variety import check_chip_offset, clicked_corners, with_chip_offset, with_chip_piles
from vision.warp import grid_geometry, warp_grid

MODES = ("corners", "reference", "nothing")
EXTRA_MODES = ("corners+reference",)
"""Not in the issue: the reader with the true corners and the empty board (isolates the reader)."""
BLOWN = 0.3
"""Share of a cell's centre clipped to white from which the cell counts as blown out."""
UNSEEN = 3.0
"""A chip whose cell the frame shows changed by less than this from the same frame rendered without
chips (grey levels, 90th percentile of the cell) leaves nothing a reader could see."""
SURE = 0.5
"""Confidence from which a reading counts as sure."""
FOUND_CELLS = 0.5
"""A board counts as found when every corner is within this many cell widths of the truth; a
grid returned farther off is a false board (wrong cells read), counted apart, never as found."""
DIFFICULTIES = ("easy", "normal", "hard")
"""The targets' difficulties; ``--difficulty extreme`` runs the unreadable-optics level on its own."""
EDITIONS = ("classic", "jumbo")


@dataclass
class Tally:
    """Running totals of one mode."""

    frames: int = 0
    found: int = 0
    false_boards: int = 0
    """Frames where a grid was returned but lies elsewhere (over ``FOUND_CELLS`` off)."""
    oriented: int = 0
    corner_err: list[float] = field(default_factory=list)
    cells: int = 0
    cell_errors: int = 0
    doubtful: int = 0
    """Cells read with confidence below ``SURE`` (the reader says it is unsure)."""
    sure_errors: int = 0
    """Wrong cells the reader was sure of: the errors nothing downstream can catch."""
    blown_cells: int = 0
    blown_errors: int = 0
    """Cells (and wrong cells among them) whose centre the camera blew out to white (glare)."""
    unseen_cells: int = 0
    unseen_errors: int = 0
    """Cells (and wrong cells among them) holding a chip the frame does not show (``unseen_chips``)."""
    glare_cells: int = 0
    glare_errors: int = 0
    glare_frames: int = 0
    """Cells (wrong cells among them, and frames with any) ``detect`` itself reported glare had
    blinded (``Detection.glare``): the errors the person at the table was warned of."""
    all_right: int = 0
    ms: list[float] = field(default_factory=list)
    confusions: dict[tuple[str, str], int] = field(default_factory=dict)
    by_difficulty: dict[str, list[int]] = field(default_factory=dict)

    def score(self, det: Detection, corners: np.ndarray, truth: np.ndarray, visible: np.ndarray, *,
              blown: np.ndarray | None = None, unseen: np.ndarray | None = None
              ) -> list[tuple[int, int, str, str]] | None:
        """Count one frame's detection (and its time) against the truth (true ``corners``, ``truth`` and
        ``visible`` ``(10, 10)``; ``blown`` and ``unseen`` ``(10, 10)`` bool where known). Returns
        the wrong cells as (row, col, truth, read), or None where the board was not found and
        oriented (no cell is scored then)."""
        self.frames += 1
        self.ms.append(det.timings.get("total", float("nan")))
        if not det:
            return None
        err, oriented = corner_error(det.corners, corners)
        self.corner_err.append(err)
        if err * SIZE * np.sqrt(2.0) > FOUND_CELLS:
            self.false_boards += 1
            return None
        self.found += 1
        if not oriented:
            return None
        self.oriented += 1
        read = np.asarray(det.labels, dtype=object)
        wrong_mask = (read != truth) & visible
        self.cells += int(visible.sum())
        sure = np.asarray(det.confidence) >= SURE
        self.doubtful += int((~sure & visible).sum())
        self.sure_errors += int((wrong_mask & sure).sum())
        if blown is not None:
            self.blown_cells += int(blown.sum())
            self.blown_errors += int((wrong_mask & blown).sum())
        if unseen is not None:
            self.unseen_cells += int(unseen.sum())
            self.unseen_errors += int((wrong_mask & unseen).sum())
        glare = det.glare & visible
        self.glare_cells += int(glare.sum())
        self.glare_errors += int((wrong_mask & glare).sum())
        self.glare_frames += bool(glare.any())
        self.cell_errors += int(wrong_mask.sum())
        self.all_right += not wrong_mask.any()
        wrong = [(int(r), int(c), str(truth[r, c]), str(read[r, c])) for r, c in np.argwhere(wrong_mask)]
        for _, _, t, rd in wrong:
            self.confusions[(t, rd)] = self.confusions.get((t, rd), 0) + 1
        return wrong

    def report(self, name: str) -> str:
        n = max(self.frames, 1)
        err = 100.0 * self.cell_errors / max(self.cells, 1)
        med_ce = statistics.median(self.corner_err) if self.corner_err else float("nan")
        max_ce = max(self.corner_err) if self.corner_err else float("nan")
        lines = [
            f"[{name}] frames {self.frames}",
            f"  board found            {100.0 * self.found / n:6.2f} %  (within {FOUND_CELLS} cell; "
            f"{self.false_boards} false boards returned elsewhere)",
            f"  found and oriented     {100.0 * self.oriented / n:6.2f} %",
            f"  corner error / diag    median {med_ce:.4f}  max {max_ce:.4f}",
            f"  per-cell error         {err:.4f} %  ({self.cell_errors} of {self.cells} cells)",
            f"  sure but wrong         {100.0 * self.sure_errors / max(self.cells, 1):.4f} %  "
            f"({self.sure_errors}; {100.0 * self.doubtful / max(self.cells, 1):.2f} % of cells read with "
            f"confidence < {SURE})",
            f"  outside glare          "
            f"{100.0 * (self.cell_errors - self.blown_errors) / max(self.cells - self.blown_cells, 1):.4f} %"
            f"  ({self.blown_errors} of the wrong cells are among the {self.blown_cells} whose centre is blown out)",
            f"  chips the frame shows  "
            f"{100.0 * (self.cell_errors - self.unseen_errors) / max(self.cells - self.unseen_cells, 1):.4f} %"
            f"  ({self.unseen_errors} of the wrong cells are among the {self.unseen_cells} holding a chip that "
            f"changes its cell by under {UNSEEN:g} grey levels)",
            f"  outside glare reported "
            f"{100.0 * (self.cell_errors - self.glare_errors) / max(self.cells - self.glare_cells, 1):.4f} %"
            f"  ({self.glare_errors} of the wrong cells are among the {self.glare_cells} detect said glare "
            f"blinded, on {self.glare_frames} frames)",
            f"  all cells right        {100.0 * self.all_right / n:6.2f} %",
            f"  median ms per frame    {statistics.median(self.ms) if self.ms else float('nan'):.1f}",
        ]
        for diff, (frames, right) in sorted(self.by_difficulty.items()):
            lines.append(f"    {diff:7s} all-right {right}/{frames}")
        if self.confusions:
            worst = sorted(self.confusions.items(), key=lambda kv: -kv[1])[:8]
            lines.append("  confusions (truth->read): " + ", ".join(f"{t}->{r} {c}" for (t, r), c in worst))
        return "\n".join(lines)


def corner_error(found: np.ndarray, truth: np.ndarray) -> tuple[float, bool]:
    """Largest corner distance over the grid diagonal, and whether the (0, 0) corner is right."""
    diag = float(np.linalg.norm(truth[2] - truth[0]))
    errs = [float(np.linalg.norm(np.roll(found, k, axis=0) - truth, axis=1).max()) for k in range(4)]
    return errs[0] / diag, int(np.argmin(errs)) == 0


def blown_out(frame: np.ndarray, corners: np.ndarray, edition: str) -> np.ndarray:
    """``(10, 10)`` bool: cells whose central box is at least ``BLOWN`` pixels at 250+ in every
    channel (a glare the camera clipped: what was there is not in the frame)."""
    geom = grid_geometry(edition)
    white = per_cell(warp_grid(frame, corners, geom).min(axis=2) >= 250, geom)
    qh, qw = geom.cell_h // 4, geom.cell_w // 4
    centre = white[:, :, qh : geom.cell_h - qh, qw : geom.cell_w - qw]
    return centre.mean(axis=(2, 3)) >= BLOWN


def per_cell(plane: np.ndarray, geom) -> np.ndarray:
    """A rectified one-channel grid ``(10h, 10w)`` as ``(10, 10, h, w)``: each cell's block."""
    return plane.reshape(SIZE, geom.cell_h, SIZE, geom.cell_w).swapaxes(1, 2)


def unseen_chips(spec, scene) -> np.ndarray:
    """``(10, 10)`` bool: chips that leave no trace in ``scene``'s frame: their cell differs by less
    than ``UNSEEN`` from the same frame (same exposure and sensor noise) rendered without chips.

    A white chip on a white card of a blown-out mat is such a chip: no reader can find it, so the
    figure says how much of the error is the frame's and how much the reader's."""
    bare = render(dataclasses.replace(spec, auto_exposure=scene.auto_exposure), empty=True).frame
    geom = grid_geometry(scene.edition)
    with_chips, without = (warp_grid(f, scene.corners, geom).astype(np.int16) for f in (scene.frame, bare))
    change = cv2.blur(np.abs(with_chips - without).max(axis=2).astype(np.float32), (3, 3))
    cells = per_cell(change, geom).reshape(SIZE, SIZE, -1)
    chip = np.isin(np.asarray(scene.labels, dtype=object), ("free", "empty"), invert=True)
    return chip & (np.percentile(cells, 90, axis=2) < UNSEEN)


def read_with_reference(scene, empty: np.ndarray) -> Detection:
    """The cell reader alone, with the true corners and the empty board as each cell's reference."""
    start = time.perf_counter()
    reader = CellReader(edition=scene.edition)
    reader.set_reference(reader.rectify(empty, scene.corners))
    reading = reader.read(scene.frame, scene.corners)
    ms = 1000.0 * (time.perf_counter() - start)
    return Detection(corners=scene.corners, labels=reading.labels, confidence=reading.confidence,
                     orientation_confidence=1.0, edition=scene.edition, timings={"total": ms})


def dump_failures(out: Path, tag: str, frame: np.ndarray, corners: np.ndarray, edition: str,
                  wrong: list[tuple[int, int, str, str]]) -> None:
    """Write a 3x3-cell crop around each wrong cell, named with truth and reading."""
    geom = grid_geometry(edition)
    grid = warp_grid(frame, corners, geom)
    h, w = geom.cell_h, geom.cell_w
    pad = cv2.copyMakeBorder(grid, h, h, w, w, cv2.BORDER_CONSTANT)
    for r, c, truth, read in wrong:
        crop = pad[r * h : r * h + 3 * h, c * w : c * w + 3 * w]
        crop = cv2.resize(crop, None, fx=4, fy=4, interpolation=cv2.INTER_NEAREST)
        cv2.imwrite(str(out / f"{tag}_r{r}c{c}_{truth}_as_{read}.png"), crop)


def frame_size(text: str) -> tuple[int, int]:
    """``WxH`` as ``(width, height)``, for ``--size``."""
    try:
        return parse_frame_size(text, option="--size")
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1000)
    parser.add_argument("--modes", default=",".join(MODES), help=f"any of {', '.join(MODES + EXTRA_MODES)}")
    parser.add_argument("--difficulty", choices=(*DIFFICULTIES, "extreme"),
                        help="only this difficulty (extreme: outside the targets, for information)")
    parser.add_argument("--edition", choices=EDITIONS, help="only this edition")
    parser.add_argument("--dump", type=Path, help="write crops of wrongly read cells here")
    parser.add_argument("--printing", choices=PRINTINGS, default="standard",
                        help="the board's printing: other is one no network was fitted on")
    parser.add_argument("--chips", choices=CHIP_SETS, default="standard",
                        help="the chip set: other is another set's colours (hue, saturation, value), "
                             "none a network was fitted on")
    parser.add_argument("--size", type=frame_size, default=(1280, 720), metavar="WxH",
                        help="frame size in pixels (default 1280x720; webcams often give 1920x1080)")
    parser.add_argument("--piles", type=int, default=0,
                        help="piles of chips laid on the table beside the board (one team's each)")
    parser.add_argument("--click", type=float, default=0.0, metavar="CELLS",
                        help="corners given as a person clicks them on a photo: each this many cells "
                             "off the truth, in a direction drawn from the frame's seed (default 0: exact)")
    parser.add_argument("--chip-offset", type=float, default=None, metavar="CELLS",
                        help="chips placed sloppily: each off its cell's centre by up to this many cells "
                             "along each side (default: the difficulty's own, 0.02 to 0.12)")
    args = parser.parse_args(argv)
    try:
        check_chip_offset(args.chip_offset)
    except ValueError as exc:
        parser.error(str(exc).replace("chip_offset", "--chip-offset"))
    cv2.setNumThreads(1)
    modes = [m for m in args.modes.split(",") if m]
    tallies = {m: Tally() for m in modes}
    if args.dump:
        args.dump.mkdir(parents=True, exist_ok=True)
    diffs = [args.difficulty] if args.difficulty else list(DIFFICULTIES)
    eds = [args.edition] if args.edition else list(EDITIONS)
    combos = itertools.cycle(itertools.product(diffs, eds))
    start = time.perf_counter()
    for i in range(args.frames):
        difficulty, edition = next(combos)
        seed = args.seed + i
        spec = random_spec(seed, edition=edition, difficulty=difficulty, printing=args.printing, chips=args.chips,
                           size=args.size)
        spec = with_chip_piles(spec, args.piles)
        spec = with_chip_offset(spec, args.chip_offset)
        scene = render(spec)
        truth = np.asarray(scene.labels, dtype=object)
        visible = ~np.asarray(scene.occluded, dtype=bool)
        blown = blown_out(scene.frame, scene.corners, scene.edition) & visible
        unseen = unseen_chips(spec, scene) & visible
        for mode in modes:
            tally = tallies[mode]
            if mode == "corners":
                given = clicked_corners(scene.corners, args.click, seed)
                det = detect(scene.frame, corners=given, edition=scene.edition)
            elif mode == "corners+reference":
                det = read_with_reference(scene, render(spec, empty=True).frame)
            elif mode == "reference":
                det = detect(scene.frame, reference=render(spec, empty=True).frame)
            else:
                det = detect(scene.frame)
            per = tally.by_difficulty.setdefault(difficulty, [0, 0])
            per[0] += 1
            wrong = tally.score(det, scene.corners, truth, visible, blown=blown, unseen=unseen)
            if wrong == []:
                per[1] += 1
            if args.dump and wrong:
                dump_failures(args.dump, f"{mode}_s{seed}_{difficulty}_{scene.edition}", scene.frame,
                              scene.corners, scene.edition, wrong)
    sloppy = f"chips up to {args.chip_offset:g} cell off centre; " if args.chip_offset is not None else ""
    print(f"vision accuracy: {args.frames} frames from seed {args.seed} ({', '.join(diffs)}; {', '.join(eds)}; "
          f"{args.printing} printing; {args.chips} chips; {args.piles} piles of chips; {sloppy}"
          f"{args.size[0]}x{args.size[1]}) in {time.perf_counter() - start:.0f} s")
    if warning := fitted_warning(range(args.seed, args.seed + args.frames)):
        print(warning)
    for mode in modes:
        print(tallies[mode].report(mode))
    return 0


if __name__ == "__main__":
    sys.exit(main())
