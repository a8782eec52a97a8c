"""Load and long play, scaled down: no error, no page behind, nothing missed, memory flat.

Both scenarios live in ``benchmarks/soak.py`` (which prints the full-size figures); these tests
run them small. ``SEQUENCE_RELIABILITY_FULL=1`` runs them at the issue's size instead: 20 pages
for 10 minutes plus 50 requests/s, and four simulated hours of play.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

import pytest

FULL = os.environ.get("SEQUENCE_RELIABILITY_FULL") == "1"


def load_soak():
    path = Path(__file__).resolve().parent.parent / "benchmarks" / "soak.py"
    saved = list(sys.path)
    spec = importlib.util.spec_from_file_location("soak_benchmark", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the file runs
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path[:] = saved  # the script trims sys.path for itself; keep the test run's
    return module


soak = load_soak()


@pytest.mark.slow
def test_pages_and_api_polling_under_load_get_everything_in_time() -> None:
    pages, seconds, rps = (20, 600.0, 50.0) if FULL else (6, 6.0, 30.0)
    report = soak.run_load(pages, seconds, rps, move_interval=0.5, pollers=5 if FULL else 3)
    print("\n".join(report.lines()))
    assert report.errors == 0, report.error_notes
    assert report.moves >= seconds / 0.5 * 0.8
    assert len(report.delivery_ms) >= pages * report.moves * 0.3, "the pages saw too few updates"
    assert report.max_delivery_ms < 1000, "a page fell more than a second behind"
    assert report.requests >= rps * seconds * 0.8, "the API could not keep up with the polling"
    settled = report.rss_mb[len(report.rss_mb) // 2:]
    assert settled[-1] - settled[0] < (40 if FULL else 15), f"server memory grew: {report.rss_mb}"


@pytest.mark.slow
def test_long_play_keeps_memory_flat_and_the_event_log_consistent(tmp_path) -> None:
    hours, move_s = (4.0, 20.0) if FULL else (1.0, 4.0)
    report = soak.run_long_play(hours, move_s=move_s, data_dir=tmp_path)
    print("\n".join(report.lines()))
    assert report.errors == 0 and report.store_errors == 0
    assert report.games >= 3 and report.events >= 300
    assert report.log_consistent
    assert report.pages_dropped == 0
    assert report.peak_rss_mb - report.rss_by_hour_mb[0] < 60, report.rss_by_hour_mb
