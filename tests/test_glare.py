"""Cells a lamp's glare blinded: found in rendered frames, and said to the people at the table."""

from __future__ import annotations

import numpy as np
import pytest
from glarescenes import glare_scene

from engine.layout import CORNERS, SIZE
from vision.advice import MAX_NAMED
from vision.detect import detect
from vision.glare import DOUBT_LOGIT, GLARE_SHARE, glare_advice, glare_cells


def features(share: float = 0.0, logit: float = -10.0) -> dict[str, np.ndarray]:
    return {"glare": np.full((SIZE, SIZE), share, np.float32), "chip_logit": np.full((SIZE, SIZE), logit, np.float32)}


def test_a_cell_is_blinded_only_where_clipped_and_read_unsurely() -> None:
    feats = features()
    feats["glare"][2, 3] = feats["glare"][4, 4] = feats["glare"][6, 6] = 1.0
    feats["chip_logit"][2, 3] = 0.5  # clipped, unsure: blinded
    feats["chip_logit"][4, 4] = -DOUBT_LOGIT - 1  # clipped, but the rim still showed: seen
    feats["chip_logit"][7, 7] = 0.0  # unsure, not clipped: something else
    feats["glare"][1, 1], feats["chip_logit"][1, 1] = GLARE_SHARE - 0.01, 0.0  # barely clipped
    assert np.argwhere(glare_cells(feats)).tolist() == [[2, 3]]


def test_free_corners_and_readings_without_the_cues_are_never_blinded() -> None:
    everywhere = glare_cells(features(share=1.0, logit=0.0))
    assert everywhere.sum() == SIZE * SIZE - 4
    assert not any(everywhere[r, c] for r, c in CORNERS)
    assert not glare_cells({}).any()
    assert not glare_cells({"glare": np.ones((SIZE, SIZE))}).any()


def test_advice_names_a_few_cells_and_spans_many() -> None:
    blinded = np.zeros((SIZE, SIZE), bool)
    assert glare_advice(blinded) == ""
    blinded[4, 5] = True
    one = glare_advice(blinded)
    assert one.startswith("glare: the camera sees 1 cell ") and "(4, 5)" in one and "move the lamp" in one
    blinded[3:6, 2:7] = True
    many = glare_advice(blinded)
    assert f"{blinded.sum()} cells" in many and "rows 3-5, columns 2-6" in many
    assert "(4, 5)" not in many and blinded.sum() > MAX_NAMED


@pytest.mark.parametrize("empty", [False, True])
def test_a_glare_spot_on_the_mat_blinds_the_cells_under_it(empty: bool) -> None:
    scene = glare_scene(empty=empty)
    det = detect(scene.frame, corners=scene.corners, edition="jumbo")
    blinded = np.argwhere(det.glare)
    assert len(blinded) >= 3
    # The spot sits on the board's centre; cells far from it are seen.
    assert np.abs(blinded - (SIZE - 1) / 2).max() <= 3
    assert det.to_dict()["glare"] == blinded.tolist()


def test_the_same_table_without_the_spot_has_no_glare() -> None:
    scene = glare_scene(glare=False)
    det = detect(scene.frame, corners=scene.corners, edition="jumbo")
    assert not det.glare.any() and det.to_dict()["glare"] == []


@pytest.mark.parametrize("glare", [True, False])
def test_the_live_tracker_reports_the_blinded_cells_with_its_updates(glare: bool) -> None:
    from vision.track import BoardTracker

    scene = glare_scene(glare=glare)
    tracker = BoardTracker(edition="jumbo", corners=scene.corners)
    updates = [tracker.update(scene.frame, t=i / 15, index=i) for i in range(15)]
    assert updates[-1].state == "live"
    assert updates[-1].glare.any() == glare
    if glare:
        assert np.abs(np.argwhere(updates[-1].glare) - (SIZE - 1) / 2).max() <= 3


def test_the_overlay_outlines_the_blinded_cells_and_nothing_else() -> None:
    from vision.overlay import draw_overlay
    from vision.warp import grid_to_image

    scene = glare_scene()
    det = detect(scene.frame, corners=scene.corners, edition="jumbo")
    plain = draw_overlay(scene.frame, det.corners, det.labels, det.confidence)
    marked = draw_overlay(scene.frame, det.corners, det.labels, det.confidence, glare=det.glare)
    changed = np.argwhere((plain != marked).any(axis=2))
    assert len(changed) > 0
    # Every changed pixel lies on the outline of a blinded cell: its box, grown by half the dark
    # edge's width and its anti-aliasing (4 px at this frame size).
    boxes = []
    for r, c in np.argwhere(det.glare):
        square = grid_to_image(np.array([[c, r], [c + 1, r], [c + 1, r + 1], [c, r + 1]], np.float32), det.corners)
        boxes.append((square.min(axis=0) - 4, square.max(axis=0) + 4))
    inside = np.zeros(len(changed), bool)
    for low, high in boxes:
        inside |= np.all((changed[:, ::-1] >= low) & (changed[:, ::-1] <= high), axis=1)
    assert inside.all()
