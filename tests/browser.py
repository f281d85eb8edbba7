"""Headless Chromium (Debian's package) for the browser tests in tests/web and tests/fleet."""

import os
import shutil
from contextlib import contextmanager

import pytest

CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


def chromium_path():
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found:
        return found
    message = "no chromium: apt-get install chromium chromium-driver (.ci/run does)"
    if os.environ.get("CI"):
        pytest.fail(message)  # on CI a missing browser is a broken setup, never a pass
    pytest.skip(message)


def stretching(make):
    """A context or page whose waits are Playwright's default 30 s of a core's time, stretched by the
    machine's load (waiting.stretched): Playwright counts wall time."""
    from waiting import stretched

    def made(*args, **kwargs):
        thing = make(*args, **kwargs)
        thing.set_default_timeout(stretched(30) * 1000)
        return thing
    return made


@contextmanager
def chromium():
    """A headless Chromium driven by Playwright's sync API. That API keeps an event loop running
    in this thread until it stops, which fails any other sync_playwright() or asyncio.run() in
    the meantime: so a browser lives no longer than one test module."""
    executable = chromium_path()
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        browser.new_context, browser.new_page = stretching(browser.new_context), stretching(browser.new_page)
        try:
            yield browser
        finally:
            browser.close()
