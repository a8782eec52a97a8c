"""The ``sequence-companion`` command: one subcommand per module, errors as one line.

Each subcommand module exposes ``add_parser(subparsers)`` (which sets ``func`` to its
``run(args) -> int``). Failures the user can cause raise ``CliError`` (or a ``ValueError``
/ ``OSError`` subclass) and become a one-line message on stderr with a non-zero exit,
never a traceback.
"""

from __future__ import annotations

import argparse
import functools
import importlib
import logging
import sys
from collections.abc import Sequence

from companion_web import __version__
from companion_web.errors import CliError

SUBCOMMANDS: tuple[str, ...] = ("serve", "detect", "calibrate", "replay")
"""Subcommand names; each lives in ``companion_web/cmd_<name>.py``."""


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser, with every subcommand that is installed."""
    # No abbreviated options: "--camera 1" must not quietly mean --camera-size.
    parser = argparse.ArgumentParser(
        prog="sequence-companion",
        allow_abbrev=False,
        description="A camera companion for the Sequence board game: it reads the real board "
        "through a webcam, follows the game and shows it live on any tablet.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log more detail to stderr")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND",
                                       parser_class=functools.partial(argparse.ArgumentParser, allow_abbrev=False))
    for name in SUBCOMMANDS:
        try:
            module = importlib.import_module(f"companion_web.cmd_{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"companion_web.cmd_{name}":
                raise
            continue
        module.add_parser(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the process exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.WARNING,
        format="%(levelname)s %(name)s: %(message)s",
    )
    if not getattr(args, "func", None):
        parser.print_help()
        return 0
    try:
        return int(args.func(args) or 0)
    except CliError as exc:
        print(f"sequence-companion {args.command}: {exc}", file=sys.stderr)
        return exc.exit_code
    except (ValueError, OSError) as exc:
        print(f"sequence-companion {args.command}: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"sequence-companion {args.command}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
