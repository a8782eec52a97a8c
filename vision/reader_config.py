"""Every threshold of the cell reader (``vision.classify``), in one frozen dataclass.

Its fields are documented where they are defined, with the frames that set them; a
calibration profile or a benchmark builds a variant with ``dataclasses.replace``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from vision.patch_net import PatchConfig
from vision.warp import WarpConfig


@dataclass(frozen=True)
class ReaderConfig:
    """Every threshold of the cell reader, in cell-relative units or Lab ΔE units."""

    warp: WarpConfig = field(default_factory=WarpConfig)
    blur_ksize: int = 3
    """Box blur before anything else: tames sensor noise and JPEG blocks."""
    core_radius: float = 0.22
    """Central disc (fraction of the cell's smaller side) always inside a chip, even off centre."""
    cover_radius: float = 0.28
    """Disc a chip always covers (radius minus the largest offset): compared with the empty look."""
    sparse_stride: int = 2
    """The outer corners and the covered disc are sampled on this pixel lattice (enough, and fast)."""
    outer_radius: float = 0.47
    """Pixels beyond this radius (the cell's corners) sample the card face for the local white."""
    border: float = 0.06
    """Fraction of the cell ignored at each edge (grid lines, neighbours' bleed)."""
    white_quantile: float = 0.6
    """The brightest (1 - q) of the outer pixels average to the local white."""
    white_max_dev: float = 0.18
    """A cell's white may differ this much (log ratio) from its neighbours' before it is replaced."""
    white_floor: float = 8.0
    """Smallest white (0..255) trusted; darker means the board is not lit at all."""
    ring_radii: tuple[float, ...] = (0.30, 0.34, 0.38)
    """Chip radii searched, as fractions of the cell's smaller side."""
    ring_shift: float = 0.08
    """Largest chip centre offset searched, fraction of the cell's smaller side."""
    ring_shift_steps: int = 3
    ring_angles: int = 16
    rim_offsets: tuple[float, ...] = (-1.0, 0.0, 1.0)
    """Radial gradient is read this many pixels either side of each rim hypothesis (the best wins)."""
    ring_step: float = 0.07
    """Inner and outer samples sit this far (fraction of the side) either side of the rim."""
    ring_quantile: float = 0.25
    """A rim counts only if the edge is there nearly all around: this low quantile over angles."""
    arc_quantile: float = 0.75
    """An arc counts where only part of a rim shows (a white chip's shadow or edge beside a glare
    that clipped the rest): this high quantile over angles."""
    texture_scale: float = 4.0
    """Mean ΔE from the disc's median by which a twin must be busier to count as uncovered."""
    saturated_level: int = 250
    """A raw channel at or above this is clipped by the camera (glare): its colour is unknown.
    (Scaled down where the channel's clipped plateau lies lower: ``vision.clipping``.)"""
    glare_floor: float = 0.7
    """A pixel is glare (the ``glare`` cue, ``vision.glare``) where two channels or three are
    clipped and none is under this share of its clip level: a white highlight, the third channel
    perhaps scaled down by the white balance after the sensor clipped (a cold camera's glare is
    cyan-white, a warm one's cream). A bright red or yellow chip clips one or two channels and
    keeps another far lower. (Hard Jumbo frames of seeds 11800-11949: of 63 wrong cells, 60 lay
    in blinded cells with this, 25 with all three channels clipped.)"""
    ref_delta_low: float = 4.0
    """Smaller ΔE counted as a slight change (white plastic on white card)."""
    ncc_floor: float = 4.0
    """Lightness variance (L units squared) added to each side of a print correlation."""
    ref_delta: float = 14.0
    """ΔE between a pixel and the same place on the empty board that counts as changed."""
    chroma_quantile: float = 0.8
    """Quantile of per-pixel chroma over the covered disc read as its colour where glare spared it."""
    coherence_floor: float = 0.5
    """Chroma added to the mean per-pixel chroma in the hue agreement, so a disc with no colour at all
    (grey noise only) does not score full agreement."""
    input_caps: tuple[tuple[str, float, float], ...] = (
        ("spread", 0.0, 40.0), ("ring", 0.0, 60.0), ("ring_median", 0.0, 60.0),
        ("d_colour", 0.0, 5.0), ("d_flipped", 0.0, 5.0), ("court_spread", 0.0, 40.0),
        ("l_deficit", -40.0, 40.0), ("chroma", 0.0, 60.0), ("chroma_high", 0.0, 60.0), ("ref_median", 0.0, 40.0),
        ("twin_texture_gap", -20.0, 20.0), ("texture", 0.0, 40.0), ("twin_texture", 0.0, 40.0),
    )
    """Each cue is clipped to a range, so one absurd value cannot outvote the others."""
    white_net_cap: float = 2.0
    """Most chip logit the Jumbo white-chip network alone can give: enough for a white line to take
    the cell, never a sure chip that ``vision.flipped`` would keep as another colour off a line."""
    colour_margin_gain: float = 2.0
    """Confidence in the colour: logistic of (second-best - best) prototype distance times this."""
    saturated_doubt: float = 0.5
    """Confidence of a cell read empty or white is scaled by (1 - this * clipped fraction) where
    the camera clipped the centre: there a white chip and a white card look alike. A team
    colour keeps its confidence: a bright yellow or red chip clips its brightest channel but keeps
    its hue, and the colour margin already says how clear that is (a clear yellow chip under a
    lamp read at 0.5, and the live tracker waited seconds to commit it)."""
    unreachable_distance: float = 1e6
    """Prototype distance given to white where no white chip can be (see ``decide``)."""
    patch_doubt: float = 5.0
    """Cells whose chip logit is nearer zero than this are also read by the patch network
    (``vision.patch_net``); 0 never asks it. About a quarter of the cells of a hard frame, an
    eighth of a normal one. (At 3, a seventh and a sixteenth: with the true corners, hard
    frames of seeds 6000-6199 and 8000-8099 read 115 cells wrong at 3, 106 at 4, 106 at 5
    and 104 at 6; normal frames 6200-6299 none at any.)"""
    patch_clipped: float = 0.3
    """Where a white chip can be, cells read empty whose central disc the camera clipped over more
    than this fraction are read by the patch network too, however sure the cue network is: glare
    takes the colour and edges the cues weigh, a white chip's on a white card most of all, not
    the faint face and shadow the network sees. 1 or more never asks. (With the true corners,
    hard frames of seeds 6000-6149 read 31 cells wrong without it and 25 with it. Asking about
    every clipped cell, chip or not, on either edition, read the same 25 at any value from 0.05
    to 0.6, and 31 at 0.9, but cost the speed benchmark's reads 3.5 ms: glare spots on normal
    frames.) Not with an empty-board reference: its cues see what glare changed, while the
    network, blind to the reference, takes a clipped white card for a white chip (seed 6040,
    hard, classic, with its reference: 4 cells wrong without it, 7 with it, four of them
    clipped cards read white)."""
    patch_court: bool = True
    """The cells printed with a Queen or King that the cue network reads as chips are read by the
    patch network too, however sure the cue network is. It learned the court art of one
    printing, and took plain courts drawn by another hand for red and yellow chips, where the
    patch network, which sees each cell beside its twin card, stayed sure they were plain. A real
    board's court art is neither. (True corners, seeds 140600-140719, the court art of a one-off,
    ``altart.py``: 40 cells wrong without this, 11 with it; the shipped art read 8.
    ``vision_accuracy --printing other``, seeds 140600-140899: 27 without, 23 with.) Not the
    courts read empty: where the grid was placed a little off (11 px on seed 1250, hard), the
    patch network took two plain courts for chips of the cells beside them. Not with an
    empty-board reference: the cue network then compares each court with the board's own art
    (with this, the benchmark's 300 frames read 49 cells wrong where they read 44 without it).
    Costs about 0.8 ms a read (``vision_speed``: 7.18 ms before, 7.99 ms after)."""
    patch_red_print: bool = True
    """Cells printed in red ink (hearts and diamonds) that the cue network reads as a red chip of
    the default colour are read by the patch network too, however sure the cue network is: it
    learned the red pips of one printing, and took the big heart of another hand's Ace of Hearts,
    and the crowded pips of its Eight and Nine, for red chips at 0.99, where the patch network,
    which sees each cell beside its twin card, was sure they were plain. (A board drawn apart from
    ``vision.sim``, 120 frames, true corners: 22 such cells, every one of them right with this; on
    600 of our own frames, seeds 36200-36799, the same readings with and without.) Not with an
    empty-board reference, whose comparison already sees the print."""
    patch_weight: float = 1.0
    """Share of the patch network's logit in such a cell's final logit (the rest: the cue network's)."""
    patch_colour_sure: float = 0.9
    """Probability of one class at which the patch network overrules a white reading with a team
    colour, and a team colour with another where both are the default chip colours
    (``CellReader.default_colours``), and at which its reading counts in the edition vote
    (``seen_colours``). A lamp's cast can move a dim chip's hue into the next colour's sector
    (blue chips under a green-felt glow read green at confidence 1.0 on seed 6284, hard), but
    not the network, which sees the chip beside its twin card: on hard frames of seeds 6000-6899
    it recoloured 4 chips at 0.9, every one to its true colour, and none on normal frames
    7000-7599."""
    patch_white_doubt: float = 6.5
    """Where a white chip can be, cells read empty with a chip logit above minus this are read by
    the patch network too, and become white chips where it is sure of one (``patch_white_sure``):
    the cue network can be firmly wrong about a white chip on a white card (logit -4 to -6.4 on
    seed 6007, hard, where the patch network said white at 0.98 to 1.0). Costs about 1.3 ms
    per read. 0 never asks. Without an empty-board reference, such a cell the network is as sure
    holds a team's chip holds that chip: on seed 12011 (hard, Jumbo) two blue chips on the two
    cells of one court card read empty at logit -5 to -6 (the cue network took the card's art for
    the change), where the network said blue at 1.0. On 300 fresh Jumbo frames (seeds 13900-14199,
    normal and hard) it changed no reading."""
    patch_white_lines: bool = True
    """Where a white chip can be, cells read empty on a line with two chips read white (a window
    of five with no team's chip) are read by the patch network too, however sure the cue network
    is, and are white where it is sure of that (``patch_white_line_sure``): white chips lie only
    in lines, and the cue network misses a white chip on a card with few pips, whose print it
    hides little of (a mat drawn by another hand, 120 frames with the true corners: three white
    chips of one line, on a 3, a 2 and a 2, read at logit -5.6 to -8.8, where the network said
    white at 1.0 and 0.95 for two of them)."""
    patch_white_line_sure: float = 0.9
    """Probability at which the patch network's view of a cell on such a line is taken: lower
    than ``patch_white_sure``, as a cell in line with two white chips is likelier one. On our
    rendered Jumbo frames with white chips (seeds 47400-47699) it gave no empty cell 0.9."""
    patch_team_distance: float = 1.5
    """Without an empty-board reference, cells read empty whose disc lies within this prototype
    distance of a team colour are read by the patch network too, however sure the cue network
    is, and hold the chip the network is sure of (``patch_white_sure``) where that is a default
    chip colour (``CellReader.default_colours``): a finger over a chip on a court card breaks
    its rim and lifts its spread, the cues the cue network tells a court by (seed 33889, hard,
    Jumbo: a blue chip at logit -8.9, where the patch network said blue at 1.0). About one cell
    a frame (true corners, seeds 33800-33919). 0 never asks."""
    patch_white_sure: float = 0.97
    """Probability at which the patch network's view of a faint cell (``patch_white_doubt``) is
    taken."""
    patch_pale_margin: float = 3.0
    """Where a white chip can be, a chip read as a team colour whose prototype distance to white
    is within this of its own is read by the patch network too, and is white where it is sure
    (``patch_colour_sure``): a lamp's cast tints a white chip pale blue or pink (on seed 6089,
    hard, white chips read blue were 0.5 to 1.7 nearer white than their blue; blue chips, 4.3
    and more)."""
    patch_white_certain: float = 0.99
    """Where a white chip can be, a chip read as a team colour that the patch network (asked for
    any of the reasons above) gives white at least this probability is white, however far its
    colour is from white: a colour cast, and a camera's saturation boost most of all, can push a
    white chip's tint past ``patch_pale_margin``, not the face and shadow the network sees.
    Above 1, never. (True corners, 600 fresh Jumbo frames, seeds 24300-24899 normal and hard,
    each as rendered and through several of ``vision_stress``'s camera processings: of the chips
    read in a team colour that the network gave white 0.5 or more, this and the pale rule with
    the chip logit as it stands made 61 white chips white that ended another colour, 26 of them
    by the pale rule alone; and one yellow chip white, at 0.9991 under local tone mapping.)"""
    patch: PatchConfig = field(default_factory=PatchConfig)
    off_centre_chroma: float = 0.6
    """A pixel may be a chip's face where its chroma (white-balanced Lab) is at least this share of
    its colour's chips' (``CellReader._chip_looks``)."""
    off_centre_chroma_min: float = 22.0
    """And at least this (a card's white reads under 10)."""
    off_centre_chips: int = 3
    """Sure chips of a colour the frame must show for their look to count (else the prototype's)."""
    off_centre_hue: float = 25.0
    """Degrees of Lab hue a chip's face may be from its colour's (a team's chips agree within a
    few; skin and brown lie 20 to 30 from the red chips)."""
    off_centre_inset: float = 0.2
    """A chip's middle lies at least this far (fraction of the cell's smaller side) inside a region
    of that chroma: pips, indices and print strokes are narrower; a chip, 0.3 to 0.4 of the
    side in radius, is deeper, though the face a blurred frame shows of a small one (60 % of the
    cell across), inside its rim and moulded ring, is only 0.21 to 0.24 deep. (At 0.24, a set of
    independently rendered photographs lost four such chips of one frame a quarter of a cell
    off centre, read empty at 0.99.)"""
    off_centre_depth: float = 0.5
    """And at most this far: a wider coloured region is a box, a sleeve or a card lying over the
    board, not a chip."""
    off_centre_reach: float = 0.25
    off_centre_fall: float = 0.5
    """A middle's depth falls by at least this share of ``off_centre_reach`` (fraction of the
    smaller side) that far away, every way but one: a chip's disc is a cone of depth (a chip of
    the same team touching it holds it up one way); along an arm, a sleeve, a finger or a mug's
    rim the depth stays, both ways."""
    off_centre_apart: float = 0.2
    """Two middles of one colour are at least this far apart (fraction of the smaller side): two
    chips of one team in neighbouring cells, each put down off centre towards the other."""
    off_centre_shift: float = 0.18
    """A chip's middle this far from its cell's centre (fraction of the smaller side) has the cell
    read again about it (``CellReader._off_centre_chips``); nearer, the first read saw the chip
    where it was (chips up to 0.2 of a cell off each way lose nothing)."""
    off_centre_edge: float = 0.1
    """A middle nearer than this to the cell's edge (fraction of the cell) is not read again: which
    cell such a chip is in, the picture cannot say (nor, often, the players)."""
    off_centre_logit: float = 2.0
    """Chip logit the read about the middle must reach for the cell to hold that chip."""
    off_centre_sure: float = 0.9
    """And the confidence (its colour as plain as its chip): a hand's fingers over a card show a
    pale, roundish patch of a red chip's hue, but nothing like its colour."""
