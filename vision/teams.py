"""Which team colours a still frame shows in play, and doubtful chips read in any other colour.

A game has two or three teams, and each puts down a chip a turn, so every team in play has
about as many chips on the board as the next. A colour that none of the frame's many clear chips
has, read only in a few doubtful cells, is not a team of this game: those cells are chips of the
team colour nearest to what they show. Glare over a green felt tints green chips cyan, and the
reader's hue rule (``vision.colour.ColourModel.hue_labels``) can call them blue, though it knows
it is unsure (seed 9660, hard: five green chips read blue at confidence 0.00 beside 34 clear
green and 26 clear red chips).

Used by ``detect`` on still frames. The live tracker does not need it: it knows the teams from
the game.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from engine.labels import TEAM_COLOURS
from engine.layout import SIZE
from vision.classify import CellReading, ReaderConfig, chip_confidence


@dataclass(frozen=True)
class TeamsPrior:
    """When a colour counts as out of play, and which of its cells are read again."""

    sure: float = 0.9
    """A chip read with at least this confidence shows its team is in play."""
    min_sure_chips: int = 12
    """Clear team chips the frame must hold before a colour is judged out of play: early in a
    game a team may have one chip down, or none yet."""
    most_doubtful: float = 0.25
    """A colour is out of play only where the chips read in it number at most this share of the
    fewest clear chips of a colour in play; a team's chips are about as many as another's."""
    doubt: float = 0.5
    """Only chips read with less confidence than this are given another colour."""


def colours_in_play(labels: np.ndarray, confidence: np.ndarray, prior: TeamsPrior) -> tuple[str, ...] | None:
    """The team colours ``labels`` (``(100,)`` object) show in play, in ``TEAM_COLOURS`` order,
    or None where the frame holds too few clear chips to tell (``TeamsPrior.min_sure_chips``)."""
    sure = confidence >= prior.sure
    counts = {team: int(((labels == team) & sure).sum()) for team in TEAM_COLOURS}
    if sum(counts.values()) < prior.min_sure_chips:
        return None
    in_play = tuple(team for team in TEAM_COLOURS if counts[team])
    fewest = min(counts[team] for team in in_play)
    read = {team: int((labels == team).sum()) for team in TEAM_COLOURS}
    too_many = {team for team in TEAM_COLOURS if read[team] > prior.most_doubtful * fewest}
    return tuple(team for team in TEAM_COLOURS if team in in_play or team in too_many)


def recoloured_to_teams_in_play(labels: list[list[str]], confidence: np.ndarray, chip_logit: np.ndarray,
                                proto_dist: np.ndarray, names: tuple[str, ...],
                                prior: TeamsPrior = TeamsPrior(), *,
                                margin_gain: float = ReaderConfig.colour_margin_gain,
                                ) -> tuple[list[list[str]], np.ndarray]:
    """Labels and confidence ``(10, 10)`` with each doubtful chip of a colour out of play read as
    the nearest colour in play (by ``proto_dist`` ``(10, 10, len(names))``, in ``names`` order),
    its confidence as the reader would give it among the colours in play (``margin_gain``: the
    reader's ``colour_margin_gain``). Unchanged where the frame cannot tell which colours are in
    play, or where none of them is among ``names`` (a profile that taught other colours)."""
    unchanged = labels, np.asarray(confidence, dtype=np.float32)
    flat = np.asarray(labels, dtype=object).reshape(-1)
    conf = np.asarray(confidence, dtype=np.float32).reshape(-1)
    in_play = colours_in_play(flat, conf, prior)
    if in_play is None:
        return unchanged
    allowed = [i for i, name in enumerate(names) if name in in_play]
    out_of_play = np.isin(flat, TEAM_COLOURS) & ~np.isin(flat, in_play) & (conf < prior.doubt)
    if not allowed or not out_of_play.any():
        return unchanged
    dist = np.asarray(proto_dist, dtype=np.float32).reshape(SIZE * SIZE, -1)[:, allowed]
    best = dist.argmin(axis=1)
    logit = np.asarray(chip_logit, dtype=np.float32).reshape(-1)
    out, new_conf = flat.copy(), conf.copy()
    out[out_of_play] = np.asarray(names, dtype=object)[allowed][best][out_of_play]
    new_conf[out_of_play] = chip_confidence(logit, dist, best, margin_gain)[out_of_play]
    return out.reshape(SIZE, SIZE).tolist(), new_conf.reshape(SIZE, SIZE)


def with_teams_in_play(reading: CellReading, names: tuple[str, ...], prior: TeamsPrior | None, *,
                       margin_gain: float = ReaderConfig.colour_margin_gain) -> CellReading:
    """``reading`` with doubtful chips of colours out of play recoloured
    (``recoloured_to_teams_in_play``); as it is where no prior is given or the reading carries no
    per-cell features (a stand-in reader)."""
    features = getattr(reading, "features", None) or {}
    if prior is None or "chip_logit" not in features or "proto_dist" not in features:
        return reading
    labels, confidence = recoloured_to_teams_in_play(reading.labels, reading.confidence, features["chip_logit"],
                                                     features["proto_dist"], names, prior, margin_gain=margin_gain)
    return replace(reading, labels=labels, confidence=confidence)
