"""Browser tests: the real page in Debian's headless chromium, against an in-process waitress server."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tests/webfakes.py

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
    "--disable-sync", "--no-first-run",
]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    reason = f"browser tests need Debian's chromium at {CHROMIUM} (apt-get install chromium)"
    skip = pytest.mark.skip(reason=reason)
    for item in items:
        if "browser" in item.keywords and not os.path.exists(CHROMIUM):
            item.add_marker(skip)


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def context(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    yield context
    context.close()
