"""Sequence rules and game state. Imports only the standard library."""

from engine.board import Board, BoardTextError, Chip
from engine.events import Event
from engine.game import Game
from engine.labels import Label
from engine.layout import CELLS, CORNERS, LAYOUT, SIZE, Cell, card_at, cells_of, ink_of
from engine.sequences import find_sequences
from engine.store import GameStore, StoreError

__all__ = [
    "CELLS",
    "CORNERS",
    "LAYOUT",
    "SIZE",
    "Board",
    "BoardTextError",
    "Cell",
    "Chip",
    "Event",
    "Game",
    "GameStore",
    "Label",
    "StoreError",
    "card_at",
    "cells_of",
    "find_sequences",
    "ink_of",
]
