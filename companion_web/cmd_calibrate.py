"""``sequence-companion calibrate SOURCE -o PROFILE``: learn one table once.

From a frame of the EMPTY board (an image file, or one frame grabbed from a camera) it finds
the grid (or takes ``--corners``), checks the board really is empty, and saves the profile
JSON with the frame beside it as the empty-board reference. With ``--chips FRAME`` and
``--chip COLOUR=ROW,COL`` (one per team) it also learns the chip colours from a second frame
in which one chip of each team sits on the named cell. The tablet wizard writes the same file.
It prints what it saved and any advice on the camera in sentences; with ``--json``, exactly one
JSON object instead (``{"error": ...}`` on failure), for scripts.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from companion_web.errors import CliError
from companion_web.options import EDITION_CHOICES, add_camera_size, corners_arg, source_config

if TYPE_CHECKING:
    from vision.sources import SourceConfig

HELP = "calibrate a table from a frame of its empty board and save its profile"
GRAB_TIMEOUT_S = 8.0
"""How long to wait for a camera's first frame before saying it gave none."""


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    parser = subparsers.add_parser("calibrate", help=HELP, description=HELP + ".")
    parser.add_argument(
        "source", metavar="SOURCE",
        help="image of the empty board, or a camera (index, /dev/videoN or URL) to grab one frame from",
    )
    parser.add_argument("-o", "--output", metavar="PROFILE", required=True, help="profile file to write (.json)")
    parser.add_argument("--corners", type=corners_arg, metavar="X1,Y1,X2,Y2,X3,Y3,X4,Y4",
                        help="outer grid corners, TL, TR, BR, BL of the printed layout (skips the search)")
    parser.add_argument("--edition", choices=EDITION_CHOICES, help="board edition (default: guessed)")
    parser.add_argument("--chips", metavar="FRAME",
                        help="second frame (same camera) with one chip of each team on the --chip cells")
    parser.add_argument("--chip", action="append", default=[], metavar="COLOUR=ROW,COL",
                        help="a taught chip, e.g. blue=2,3 (repeat per team; any marker can be taught "
                        "under a colour name, coins as red for instance)")
    add_camera_size(parser)
    parser.add_argument("--name", default="", help="a name for this table (shown on the tablet)")
    parser.add_argument("--force", action="store_true", help="overwrite an existing profile file")
    parser.add_argument("--json", action="store_true",
                        help="print one JSON object (profile, edition, corners, advice) instead of sentences")
    parser.set_defaults(func=run)
    return parser


def parse_chip(text: str) -> tuple[tuple[int, int], str]:
    """``"blue=2,3"`` -> ``((2, 3), "blue")``."""
    match = re.fullmatch(r"\s*([A-Za-z]+)\s*=\s*(\d+)\s*,\s*(\d+)\s*", text)
    if not match:
        raise CliError(f"--chip must look like COLOUR=ROW,COL (e.g. blue=2,3), got {text!r}")
    return (int(match.group(2)), int(match.group(3))), match.group(1).lower()


def grab_frame(source: str, config: SourceConfig) -> np.ndarray:
    """One frame from an image file, or from a camera/URL given by ``source`` (opened with the
    sources' ``config``)."""
    from vision.images import load_image

    path = Path(source)
    if path.suffix.lower() in {".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp"} or path.is_file():
        return load_image(path)
    from vision.sources import open_source

    with open_source(source, config=config) as camera:
        frame = camera.read(timeout=GRAB_TIMEOUT_S)  # a camera's newest frame, a video's first
        if frame is None:
            raise CliError(f"{source}: the camera gave no picture within {GRAB_TIMEOUT_S:.0f} s ({camera.state})")
        return frame.image


def run(args: argparse.Namespace) -> int:
    """Run ``calibrate``; with ``--json`` a user error is also an ``{"error": ...}`` object on stdout."""
    try:
        return _calibrate(args)
    except (CliError, ValueError, OSError) as exc:  # (the command line says them on stderr too)
        if args.json:
            print(json.dumps({"error": str(exc)}))
        raise


def _calibrate(args: argparse.Namespace) -> int:
    from calibration.build import calibrate, camera_advice_for, learn_colours
    from calibration.profile import save_profile
    from vision.geometry import check_corners_in

    output = Path(args.output)
    if output.suffix.lower() != ".json":
        raise CliError(f"{output}: the profile file name must end in .json")
    if output.exists() and not args.force:
        raise CliError(f"{output} exists; pass --force to replace it")
    samples = dict(parse_chip(text) for text in args.chip)
    if samples and not args.chips:
        raise CliError("--chip needs --chips FRAME (the frame with those chips on the board)")
    if args.chips and not samples:
        raise CliError("--chips needs at least one --chip COLOUR=ROW,COL")
    empty = grab_frame(args.source, source_config(args))
    corners = None
    if args.corners:
        try:
            corners = check_corners_in(args.corners, (empty.shape[1], empty.shape[0]), "--corners")
        except ValueError as exc:
            raise CliError(str(exc)) from None
    profile = calibrate(empty, corners=corners, edition=args.edition, name=args.name)
    if not profile:
        raise CliError(profile.reason, exit_code=1)
    if args.chips:
        chips = grab_frame(args.chips, source_config(args))
        if chips.shape != empty.shape:
            raise CliError(
                f"{args.chips}: {chips.shape[1]}x{chips.shape[0]} px, but the empty board frame is "
                f"{empty.shape[1]}x{empty.shape[0]} px; use the same camera without moving it"
            )
        profile = learn_colours(profile, chips, samples, empty_frame=empty)
        if not profile:
            raise CliError(profile.reason, exit_code=1)
    saved = save_profile(profile, output, reference_image=empty)
    learned = sorted(set(samples.values()))
    advice = [camera_advice_for(saved, empty)]
    if args.edition is None:
        # An empty board shows no chips, so only its outline told the edition, and that needs
        # the camera's focal length: from a steep view it is a poor guess.
        advice.append(f"The edition ({saved.edition}) was guessed from the board's outline; "
                      "if it is wrong, calibrate again with --edition classic or --edition jumbo")
    advice = [line for line in advice if line]
    if args.json:
        print(json.dumps({"profile": str(output), "edition": saved.edition,
                          "corners": [list(p) for p in saved.corners],
                          "reference_image": str(saved.reference_image), "colours_learned": learned,
                          "advice": advice}))
        return 0
    corners_text = " ".join(f"({x:.1f},{y:.1f})" for x, y in saved.corners)
    print(f"Saved {output} ({saved.edition}; grid corners TL TR BR BL {corners_text}; "
          f"reference image {saved.reference_image}"
          + (f"; colours learned: {', '.join(learned)}" if learned else "") + ")")
    for line in advice:
        print(line)
    return 0
