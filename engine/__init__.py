"""Sequence rules and game state. Imports only the standard library."""

from engine.labels import Label
from engine.layout import CELLS, CORNERS, LAYOUT, SIZE, Cell, card_at, cells_of, ink_of

__all__ = ["CELLS", "CORNERS", "LAYOUT", "SIZE", "Cell", "Label", "card_at", "cells_of", "ink_of"]
