"""Live tracking's tuned constants (``TrackConfig``), apart from the tracker so the numbers a
game night depends on can be read, and overridden, in one place (``vision.track`` uses them)."""

from __future__ import annotations

from dataclasses import dataclass, field

from vision.motion import MotionConfig


@dataclass(frozen=True)
class TrackConfig:
    """Every tuned number of live tracking (times in seconds, differences on the 0..255 scale)."""

    motion: MotionConfig = field(default_factory=MotionConfig)
    motion_threshold: float = 6.0
    """Per-cell mean absolute difference between consecutive frames that counts as motion."""
    change_threshold: float = 8.0
    """Per-cell mean absolute difference against the background that counts as a change."""
    change_keep_threshold: float = 6.0
    """On a quiet board (nothing moving, no hand, arm or sleeve in view), a changed cell stays
    one to read while its difference is above this (hysteresis). A dark chip in dim light can
    change its cell by about ``change_threshold`` itself; with one threshold it flickers in and
    out of "changed", is never clear for ``still_seconds`` and never read (game 151003 of
    ``live_accuracy``: a green chip on the King of Diamonds at 7.6 to 8.5). Where the board's
    median change is high (a new light not yet taken in) the band starts that much above it.
    Held cells never make a hand, an arm or a large region (games 150006, 153002), and beside a
    hand nothing is held (the fringe of its shadow, game 152003). Also: a cell within this of
    its empty look looks as it did empty."""
    min_chip_colour: float = 0.015
    """A new chip of a coloured team must change its empty cell's colour at least this much
    (``vision.motion.chroma_change`` against the background): an arm's shadow over a red card
    changes its light only, and was read as a red chip (game 151004 of ``live_accuracy``)."""
    chip_colour_over_board: float = 4.0
    """... and at least this many times the median colour change of the untouched empty cards:
    a large sleeve in view tints the whole picture unevenly (game 160007: the untouched cards
    moved 0.018 and a card in the arm's shadow 0.021, read green). The 310 readings of chips put
    down in 9 games changed their cells 14 to 112 times the board's level."""
    max_cell_gain: float = 2.5
    """Light may brighten or darken one cell at most this much (beyond it is a change)."""
    max_change_region: int = 10
    """A connected changed region larger than this (cells) is an arm or sleeve, never moves."""
    relight_after_seconds: float = 3.0
    """Most of the board changed, unmoved and still, this long: accept it as the new look."""
    relight_quiet_seconds: float = 3.0
    """... or still this long in all since the change (hands come and go over a game, so a lamp
    switched on may never see 3 quiet seconds in a row) and now still ``relight_settle_seconds``,
    once an alignment with no hand in view found the board unmoved (a bump is no new light)."""
    relight_settle_seconds: float = 0.4
    relight_even_spread: float = 1.5
    """... or still ``relight_settle_seconds`` now, where every cell changed alike: the cells'
    90th-percentile change within this factor of their median, and their 10th-percentile within
    it below. A lamp or a cloud moves every cell's look a little; a bump moves the print (pips
    and edges far more than blank card), an arm or a hand a region of it. (Game 175003: a cloud
    moved every cell by 7 to 11 against a threshold of 8; hands came and went, and the board
    waited 6.4 s for its quiet seconds while two moves were made.)"""
    relight_settled_drift: float = 1.5
    relight_regional_share: float = 0.5
    """... and once an alignment found the board unmoved, the bump test (the 10th percentile) is
    not asked if no hand is in view, the cells' change has moved at most ``relight_settled_drift``
    (90th percentile) since the board became still, and a smooth surface over the board explains
    at most ``relight_regional_share`` of its spread (``vision.motion.regional_share``). A warmer
    lamp moves coloured print more than blank card too (game 167007: 4 to 13, steady within 0.4,
    share 0.14; a move waited 4.2 s). A shadow sweeping over slowly, though no cell moves from
    one frame to the next, moved them by 5 in 0.4 s, and where it turned back it stood still
    with a share of 0.74 to 0.86 (game 154001)."""
    relight_gone_cells: int = 2
    """A board with at most this many changed cells looks as it did (a move or two): a large
    changed region that left it was no new light, and the time toward a relight starts again."""
    max_blown_fraction: float = 0.8
    """A board this much blown out (a channel clipped: ``vision.clipping``) is not taken as a new look: an arm
    or hand is as white as the cards there, so the tracker says the light is too bright instead."""
    max_relight_moves: int = 3
    """After a relight, or a re-lock once most of the board changed, cells read surely as
    something other than committed are read again as pending (a chip placed while the light
    changed or the board was bumped); more than this many is the reader misjudging the new
    view, and none are."""
    skin_fraction: float = 0.2
    """Fraction of a cell's pixels newly skin-like that means a hand is over it."""
    hand_min_cells: int = 3
    """Skin-like cells count as a hand only in a changed region at least this large."""
    arm_threshold: float = 10.0
    """Mean difference of the margin beside a changed edge cell (beyond the median along the edge
    around it, ``arm_ring_half``) that means something reaches in over the edge (an arm): its
    changed region is unknown even when it holds still."""
    arm_ring_half: int = 4
    """Edge cells each side of an edge cell (round the grid) whose margin's median is the light's
    share of its change: an arm crosses the margin over one to four cells (a classic board's are
    small), a lamp or a cast shadow changes a longer stretch of it."""
    arm_outer_threshold: float = 5.0
    """The same for the margin's outer half (beside the cell or a neighbour): a chip on an edge
    cell may overhang the inner half, an arm crosses it all."""
    arm_still_seconds: float = 6.0
    """An edge cell's margin that has looked reached into this long with nothing moving or
    skin-coloured on or beside it is light, not an arm: its background is renewed. (A hand
    resting still over the board rests for a second or two; it came in moving.)"""
    lone_arm_still_seconds: float = 2.0
    """The same for the margin beside one edge cell alone, where that cell is the only one changed
    around it: a chip put down off centre overhangs the margin (the whole strip, on a narrow
    border seen at a slant), and an arm reaching to one cell still covers more than that cell.
    (Game 158006: a yellow chip overhanging the margin beside (1, 9) was an arm for 4.5 s, and
    the next team's move, committed first, was an out-of-turn alert.)"""
    arm_light: float = 180.0
    """Grey level of the card faces (the background cells' upper quartile) in ordinary light.
    Under less light both arm thresholds shrink with it (down to ``arm_light_floor`` times):
    an arm changes the margin in proportion to the light on it (game 154006: a dark arm in
    light of 140 changed the margin by 9)."""
    arm_light_floor: float = 0.3
    occlusion_grow: int = 1
    """Cells around moving or skin cells that are unknown too (fingers, shadows)."""
    still_seconds: float = 0.2
    """A changed cell must be clear (not unknown, nor its neighbours) this long before it is read:
    its look is then stable, so one sure reading commits it (the reader is the costly part)."""
    min_stable_frames: int = 1
    """Sure readings needed (in a row, same label) to commit."""
    min_confidence: float = 0.5
    """Readings at least this sure commit at once ..."""
    reread_seconds: float = 0.25
    """... less sure ones are read again this often ..."""
    patient_seconds: float = 1.0
    """... and commit (down to ``min_confidence_patient``) once the same for this long."""
    min_confidence_patient: float = 0.2
    removed_empty_ratio: float = 0.5
    """A team chip read surely empty by a reader told a white chip may lie there (no flip owed
    there), in a cell now at most this fraction as far from its own empty look as from its look
    with the chip, was taken off, however out of date that empty look (chips put down beside it
    since shade it; the light moved on). Games 160002 and 162006 of ``live_accuracy``: two
    jacks' removals, 9 and 13 from the empty look and 39 and 31 from the chip, were refused."""
    first_board_stray_chips: int = 1
    """A first board with this few chips (or only white ones) is a new game's empty board, misread."""
    empty_reference: bool = True
    """When the first board is empty, give it to the reader as the empty-board reference."""
    first_still_seconds: float = 0.4
    """The first board is committed once the whole board was still and read the same this long."""
    colour_check_seconds: float = 0.25
    """How often the frame is checked for colour (``vision.colour.lacks_colour``: a webcam's grey
    night mode). A switch between checks is a change of the whole board, which is not read
    before the light settles (``relight_after_seconds``), nor is a first board before
    ``first_still_seconds``."""
    first_board_lines: bool = True
    """White chips on the first board are read as whole sequences, as ``detect`` reads them
    (``vision.flipped.with_flipped_lines``): a game picked up on the Jumbo mat may hold locked
    lines. Later, each chip is judged alone as it changes."""
    global_fraction: float = 0.4
    """Changed (or moving) cells beyond this fraction of the board: a bump or the light, not moves."""
    settle_seconds: float = 0.2
    """After a global change, the board must be still this long before it is judged."""
    realign_min_px: float = 0.6
    """Corner displacement (rectified pixels) below which a global change is lighting."""
    realign_min_correlation: float = 0.6
    """ECC correlation a re-alignment must reach to be trusted."""
    relock_improvement: float = 0.6
    """A re-lock is kept only if the per-cell change (at ``relock_quantile``) drops below this
    fraction of before."""
    relock_quantile: float = 0.9
    """Quantile of the cells' change a re-lock is judged at. A lamp changed since the last still
    look leaves an even change in every cell under any lock (the camera's tone curve and
    clipping are no gain), which the mean counts in full; a grid off the cards shows most in the
    busiest cells. (Game 150005 of ``live_accuracy``: the board bumped under a new lamp; the
    true re-lock took the mean from 15.5 to 9.5 and was refused, leaving the grid a quarter cell
    off and two moves unseen; at 0.9, 28.1 to 10.8.)"""
    drift_check_seconds: float = 0.2
    """Check the lock by phase correlation once the board has been still this long, and as often
    while it stays still. In seconds, not frames: at 5 frames a second a cell is read on its
    second clear frame (``still_seconds``), and a check every third still frame came after a
    bump's first cells were committed through the old grid (game 195104 of ``live_accuracy
    --fps 5``: a court card's art read as a yellow chip a third of a cell off)."""
    drift_px: float = 0.6
    """Phase-correlation shift (rectified pixels) that means the board moved under the lock."""
    drift_quarter_px: float = 1.0
    """The same for a quarter of the board (a turn shifts the quarters, not the whole): less
    of the board, a noisier shift."""
    drift_backoff_seconds: float = 2.0
    """After a drift alarm that re-alignment did not confirm, the check rests this long."""
    adapt_rate: float = 0.05
    """How fast unchanged cells follow slow light changes (per frame)."""
    adapt_below: float = 0.5
    """Cells whose change is below this fraction of ``change_threshold`` adapt."""
    max_pending_cells: int = 2
    """At most this many changed cells stay pending across a re-lock (more is the bump or drift itself)."""
    pending_seconds: float = 2.0
    """A pending cell not committed within this is given up (its reading was never sure). The
    time most of the board is changed (covered, or waiting to be re-locked), or a hand lies over a
    pending cell, does not count."""
    fit_recheck_seconds: float = 5.0
    """A lock found automatically is re-checked at most this often, and only on doubt (see above)."""
    fit_min_shift_cells: float = 0.25
    """A re-located grid whose corners moved less than this (cells) is the same fit."""
    order_hold_seconds: float = 1.0
    """A change whose cell cleared after another changed cell that still waits for a sure
    reading is held until that one is committed too, at most this long after it first cleared:
    moves reach the engine in the order they were played (a later move first is an out-of-turn
    alert for each of the two); 1 s bounds what that costs the later move."""
    blob_hold_seconds: float = 3.0
    """Touching cells read as new chips at once (on empty cells, or a team colour over another's
    chip) are committed only after their reading has held this long (a still hand is read as a
    blob of chips; moves come one by one)."""
    blob_together_seconds: float = 1.0
    """... touching new chips count as one blob only where each cleared of hands at most this
    long after the other: a hand resting still is read as all its chips at once, while two moves
    are a hand's visit apart (entering, placing and leaving take over a second)."""
    blob_apart_confidence: float = 0.9
    """... and only a chip read at least this surely is told apart so (game 183006 at 5 frames a
    second: an arm lying still along the edge shifted, and its cells, read at 0.5 to 0.77,
    cleared over a second apart)."""
    blob_region_cells: int = 4
    """A new chip in a changed region of more cells than this waits ``blob_hold_seconds`` too: a
    chip put down changes its cell, at most with a shadow or an overhang on a neighbour or two."""
    fit_doubt_seconds: float = 30.0
    """How long the message keeps saying the grid may be off after the last evidence of it."""
    search_every_seconds: float = 0.5
    """How often to run full localisation while no grid is locked (about 100 ms when it finds
    the board; see the back-off below for when it does not)."""
    search_backoff_after: int = 4
    search_every_max_seconds: float = 2.0
    """After this many failed searches in a row the interval doubles per failure, up to the
    maximum: a failed search costs 0.5-2 s of CPU, and a camera that sees no board (set up
    before the board is out) must not keep a core busy all evening."""
    mirrored_search_every: int = 8
    """Of the failed searches in a row, the first and every this many after also look for the
    board the other way than it was last seen (flipped left to right or not:
    ``DetectConfig.look_both_ways``, for a webcam set to mirror), which doubles what a failed
    search costs; the others look only the way the last board was seen, as seen before any was.
    A mirroring camera's board is found at its first search after one was seen mirrored, else
    within about 16 s of being put down."""
    lost_after_seconds: float = 2.0
    """Unreadable for this long: the state says ``no_board``."""
