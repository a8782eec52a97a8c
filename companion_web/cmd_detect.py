"""``sequence-companion detect IMAGE``: read the board in one still image.

Prints the 10x10 grid in the engine's text notation (``*`` free corner, ``.`` empty, ``B G R Y``
a chip; a flipped white chip has no team colour and is printed ``W``) and the grid corners; with
``--json`` exactly one JSON object instead (the authoritative output), ``{"error": ...}`` on
failure. ``--overlay OUT.png`` writes the frame with the grid and labels drawn on it.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import cv2

from companion_web.errors import CliError
from companion_web.options import EDITION_CHOICES, parse_corners

HELP = "read the board in one image: the chip in every cell"
UNSURE_TURN = 0.5
"""An orientation confidence under this is said in the readable output, with what to do: the
print did not tell which corner is cell (0, 0) (a crowded board in dim light can hide it)."""


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "detect",
        help=HELP,
        description=HELP + ". Prints the grid in the engine's text notation (* free corner, . empty, "
        "B/G/R/Y a chip, W a flipped white chip) and the corners; --json prints one JSON object.",
    )
    parser.add_argument("image", metavar="IMAGE", help="photo or frame of the board (PNG, JPEG, ...)")
    parser.add_argument(
        "--corners", metavar="X1,Y1,X2,Y2,X3,Y3,X4,Y4",
        help="outer corners of the 10x10 grid in pixels, TL, TR, BR, BL of the printed layout "
        "(TL is the free corner left of 2S); skips finding the board",
    )
    parser.add_argument("--reference", metavar="EMPTY_BOARD_IMAGE",
                        help="image of the empty board from the same camera (re-finds the board and "
                        "compares each cell with its empty look)")
    parser.add_argument("--profile", metavar="PROFILE", help="calibration profile (from `calibrate`)")
    parser.add_argument("--edition", choices=EDITION_CHOICES, help="board edition (default: guessed)")
    parser.add_argument("--json", action="store_true", help="print one JSON object (authoritative)")
    parser.add_argument("--overlay", metavar="OUT.png", help="write the frame with grid and labels drawn")
    parser.set_defaults(func=run)
    return parser


def run(args: argparse.Namespace) -> int:
    """Run ``detect``; user errors print one line (a JSON error object with ``--json``)."""
    try:
        det, frame = _detect(args)
    except (CliError, ValueError, OSError) as exc:
        if not args.json:
            raise
        _print_json({"error": str(exc)})
        print(f"sequence-companion detect: {exc}", file=sys.stderr)
        return exc.exit_code if isinstance(exc, CliError) else 2
    if not det:
        if args.json:
            _print_json({"error": det.reason})
        print(f"sequence-companion detect: {det.reason}", file=sys.stderr)
        return 1
    if args.overlay:
        _write_overlay(args.overlay, frame, det)
    if args.json:
        _print_json(det.to_dict())
    else:
        _print_text(det)
    return 0


def _detect(args: argparse.Namespace) -> tuple[Any, Any]:
    from vision.detect import detect
    from vision.geometry import check_corners_in
    from vision.images import load_image

    corners = parse_corners(args.corners) if args.corners is not None else None
    frame = load_image(args.image)
    if corners is not None:
        corners = check_corners_in(corners, (frame.shape[1], frame.shape[0]), "--corners")
    profile = reference = None
    if args.profile:
        from calibration.profile import load_profile_and_reference

        profile, reference = load_profile_and_reference(args.profile)
    if args.reference:
        reference = load_image(args.reference)
    det = detect(frame, corners=corners, reference=reference, profile=profile, edition=args.edition)
    return det, frame


def _write_overlay(path: str, frame: Any, det: Any) -> None:
    from vision.overlay import draw_overlay

    image = draw_overlay(frame, det.corners, det.labels, det.confidence, glare=det.glare)
    out = Path(path)
    ext = out.suffix.lower() or ".png"
    ok, data = cv2.imencode(ext if ext in (".png", ".jpg", ".jpeg", ".bmp") else ".png", image)
    if not ok:
        raise CliError(f"{path}: cannot encode the overlay image")
    try:
        out.write_bytes(data.tobytes())
    except OSError as exc:
        raise CliError(f"{path}: cannot write the overlay ({exc.strerror or exc})") from None


def _print_json(obj: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")


def _print_text(det: Any) -> None:
    from vision.advice import outside_advice
    from vision.detect import label_grid_text
    from vision.glare import glare_advice

    lines = [label_grid_text(det.labels), ""]
    names = ("TL", "TR", "BR", "BL")
    points = (f"{n} {x:.1f},{y:.1f}" for n, (x, y) in zip(names, det.corners, strict=True))
    lines.append("corners: " + "  ".join(points))
    lines.append(f"edition: {det.edition}   orientation confidence: {det.orientation_confidence:.2f}")
    if det.orientation_confidence < UNSURE_TURN:
        lines.append("the board's turn is unsure (its print barely shows): check in --overlay that cell (0, 0) "
                     "is the free corner left of 2S, or give --corners, or calibrate a --profile")
    if det.mirrored:
        lines.append("the picture is mirrored (the camera's mirror setting is on): the board was read through it")
    lines += [advice for advice in (glare_advice(det.glare), outside_advice(det.outside)) if advice]
    doubtful = int((det.confidence < 0.6).sum())
    if doubtful:
        lines.append(f"{doubtful} cell(s) read with low confidence (see --json or --overlay)")
    sys.stdout.write("\n".join(lines) + "\n")
