"""The one exception the command line turns into a one-line message and a non-zero exit."""

from __future__ import annotations


class CliError(Exception):
    """A failure the user caused (bad file, bad option, camera missing): message, exit code."""

    def __init__(self, message: str, *, exit_code: int = 2) -> None:
        super().__init__(message)
        self.exit_code = exit_code
