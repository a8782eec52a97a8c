"""Which team colours a still frame shows in play, and doubtful chips read in any other colour
or unlike their team's hue; and court art read as a chip unlike its team's.

A game has two or three teams, and each puts down a chip a turn, so every team in play has
about as many chips on the board as the next. A colour that none of the frame's many clear chips
has, read only in a few doubtful cells, is not a team of this game: those cells are chips of the
team colour nearest to what they show. Glare over a green felt tints green chips cyan, and the
reader's hue rule (``vision.colour.ColourModel.hue_labels``) can call them blue, though it knows
it is unsure (seed 9660, hard: five green chips read blue at confidence 0.00 beside 34 clear
green and 26 clear red chips).

A team's chips look alike in one frame: a doubtful chip of one team's hue is that team's,
whatever colour the reader gave it (green chips of another set, teal, read blue on court cards
beside the frame's clear green ones); and a "chip" on a Queen or King far greyer than the team's
clear chips, where no glare washed it out, is the card's art (a court figure drawn by another
hand, its robe a dull brown-red, read as a red chip at 0.99 by both networks).

Used by ``detect`` on still frames. The live tracker does not need it: it knows the teams from
the game.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from engine.labels import TEAM_COLOURS
from engine.layout import SIZE
from vision.cells import COURT_MASK
from vision.classify import CellReading, chip_confidence
from vision.colour import display_hue, hue_difference
from vision.reader_config import ReaderConfig


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
    court_chroma: float = 0.4
    """A chip read on a court card with less than this share of the median chroma of its team's
    clear chips in the frame (at least ``team_chips`` of them) is the card's art, read empty
    (0: never), unless glare washed it out: the camera clipped the cell (``court_clipped``) or it
    is lighter than those chips (``court_lighter``). On boards drawn by another hand (120 frames,
    true corners) 16 court cards were read as red chips at 0.20 to 0.61 of the team's chroma, 12 of
    them under 0.4; of the court chips glare had not washed out, the greyest had 0.56 on 300 of our
    frames (seeds 38600-38899) and 0.81 on the other hand's."""
    court_clipped: float = 0.05
    """A cell whose central disc the camera clipped over more than this share keeps its chip:
    glare washes a chip's colour out (seed 48485, hard Jumbo: a yellow chip at 0.23 of its team's
    chroma, its disc 88 % clipped; the other hand's courts, 0 %)."""
    court_lighter: float = 5.0
    """... or more than this lighter than their median (L units): a haze of glare the camera did
    not clip lightens a chip as it greys it (seed 48065, hard Jumbo: a blue chip at 0.32 of its
    team's chroma, 29 L lighter), while court art is as dark as the chips or darker."""
    team_chips: int = 3
    """Clear chips a team must show before its look is a measure for the frame's other chips."""
    court_confidence: float = 0.45
    """Confidence given to a court card so read (inferred from the frame, not seen)."""
    like_hue: float = 10.0
    """A doubtful chip (read with less confidence than ``doubt``) whose display hue lies within
    this many degrees of the median hue of one team's clear chips (at least ``team_chips``
    of them) takes that team's colour (0: never), where every other team's clear chips lie at
    least ``like_apart`` degrees off it, or there are none: a team's chips look alike in one
    frame. On a board drawn by another hand, six green chips (hue 161, as the frame's 22 clear
    green ones) on court cards were read blue at confidence 0.0: the patch network, which never
    saw a green that teal, was sure they were blue."""
    like_apart: float = 25.0
    like_confidence: float = 0.6
    """Confidence given to a chip so recoloured (its colour inferred from its team's)."""


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


def recoloured_like_sure_chips(labels: np.ndarray, confidence: np.ndarray, core_lab: np.ndarray,
                               prior: TeamsPrior = TeamsPrior()) -> np.ndarray:
    """``(100,)`` object: ``labels`` (``(100,)`` object) with each doubtful chip (``confidence``
    ``(100,)``) whose hue sits among one team's clear chips read in that team's colour
    (``TeamsPrior.like_hue``), by each cell's central colour ``core_lab`` ``(100, 3)``."""
    out = np.asarray(labels, dtype=object).copy()
    if prior.like_hue <= 0:
        return out
    hue = display_hue(np.asarray(core_lab, np.float32).reshape(SIZE * SIZE, 3))
    sure = confidence >= prior.sure
    teams = [t for t in TEAM_COLOURS if (sure & (out == t)).sum() >= prior.team_chips]
    if not teams:
        return out
    centres = np.array([_median_hue(hue[sure & (out == t)]) for t in teams], np.float32)
    apart = np.abs(hue_difference(hue[:, None], centres[None, :]))  # (100, teams)
    ranked = np.sort(np.column_stack([apart, np.full(SIZE * SIZE, np.inf)]), axis=1)  # nearest, next
    doubtful = np.isin(out, TEAM_COLOURS) & (confidence < prior.doubt)
    like = doubtful & (ranked[:, 0] <= prior.like_hue) & (ranked[:, 1] >= prior.like_apart)
    out[like] = np.asarray(teams, dtype=object)[apart.argmin(axis=1)[like]]
    return out


def _median_hue(hues: np.ndarray) -> float:
    """Median of hues in degrees, taken around the circular mean (a red team spans 350 to 10)."""
    angle = np.deg2rad(hues)
    mean = np.rad2deg(np.arctan2(np.sin(angle).mean(), np.cos(angle).mean()))
    return float((mean + np.median(hue_difference(hues, mean))) % 360.0)


def with_teams_in_play(reading: CellReading, names: tuple[str, ...], prior: TeamsPrior | None, *,
                       margin_gain: float = ReaderConfig.colour_margin_gain) -> CellReading:
    """``reading`` with doubtful chips of colours out of play recoloured
    (``recoloured_to_teams_in_play``), doubtful chips of one team's hue given its colour
    (``recoloured_like_sure_chips``), then court art read as chips read empty
    (``court_art_read_as_chips``); as it is where no prior is given or the reading carries no
    per-cell features (a stand-in reader)."""
    features = getattr(reading, "features", None) or {}
    if prior is None or "chip_logit" not in features or "proto_dist" not in features:
        return reading
    labels, confidence = recoloured_to_teams_in_play(reading.labels, reading.confidence, features["chip_logit"],
                                                     features["proto_dist"], names, prior, margin_gain=margin_gain)
    if "core_lab" in features and "saturated" in features:
        flat = np.asarray(labels, dtype=object).reshape(-1)
        conf = np.asarray(confidence, np.float32).reshape(-1).copy()
        like = recoloured_like_sure_chips(flat, conf, features["core_lab"], prior)
        conf[like != flat] = np.maximum(conf[like != flat], prior.like_confidence)
        flat = like
        art = court_art_read_as_chips(flat, conf, features["core_lab"], features["saturated"], prior)
        flat[art] = "empty"
        conf[art] = np.minimum(conf[art], prior.court_confidence)
        labels, confidence = flat.reshape(SIZE, SIZE).tolist(), conf.reshape(SIZE, SIZE)
    return replace(reading, labels=labels, confidence=confidence)


def court_art_read_as_chips(labels: np.ndarray, confidence: np.ndarray, core_lab: np.ndarray,
                            clipped: np.ndarray, prior: TeamsPrior = TeamsPrior()) -> np.ndarray:
    """``(100,)`` bool: the court cards whose chip (``labels`` ``(100,)`` object, ``confidence``
    ``(100,)``) is far greyer than its team's clear chips (``TeamsPrior.court_chroma``), by each
    cell's central colour ``core_lab`` ``(100, 3)`` (L, a, b), where glare did not wash it out
    (``clipped`` ``(100,)``: the clipped share of its central disc)."""
    out = np.zeros(SIZE * SIZE, bool)
    if prior.court_chroma <= 0:
        return out
    lab = np.asarray(core_lab, np.float32).reshape(SIZE * SIZE, 3)
    chroma = np.hypot(lab[:, 1], lab[:, 2])
    court = COURT_MASK.ravel() & (np.asarray(clipped, np.float32).reshape(-1) <= prior.court_clipped)
    for team in TEAM_COLOURS:
        own = labels == team
        sure = own & (confidence >= prior.sure)
        if sure.sum() < prior.team_chips:
            continue
        unwashed = lab[:, 0] <= np.median(lab[sure, 0]) + prior.court_lighter
        out |= court & own & unwashed & (chroma < prior.court_chroma * np.median(chroma[sure]))
    return out
