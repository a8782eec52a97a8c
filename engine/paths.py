"""Where the program keeps its data (game database, table profiles) by default."""

from __future__ import annotations

import os
from pathlib import Path

APP_DIR_NAME = "sequence-companion"
DATA_DIR_ENV = "SEQUENCE_COMPANION_DATA"


def default_data_dir() -> Path:
    """``$SEQUENCE_COMPANION_DATA``, else ``$XDG_DATA_HOME/sequence-companion``, else
    ``~/.local/share/sequence-companion`` (the XDG default). Not created here."""
    override = os.environ.get(DATA_DIR_ENV)
    if override:
        return Path(override).expanduser()
    xdg = os.environ.get("XDG_DATA_HOME")
    if xdg:
        return Path(xdg).expanduser() / APP_DIR_NAME
    return Path.home() / ".local" / "share" / APP_DIR_NAME
