"""Frames in, per-cell observations out: sources, localisation, orientation, reading, tracking."""
