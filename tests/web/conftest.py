"""The web view in a real browser: headless Chromium (Debian's package) driven by Playwright.

Each test gets its own `doce sim` (the real firmware on a simulated board) serving the
page on a free port, and a fresh browser page on it. Screenshots go to test-artifacts/web/.
"""

import os
from pathlib import Path

import pytest

from pages import SimPage
from waiting import stretched

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = Path(os.environ.get("DOCE_ARTIFACTS", ROOT / "test-artifacts")) / "web"


@pytest.fixture
def sim_page(tmp_path):
    page = SimPage(tmp_path / "flash")
    yield page
    page.close()


@pytest.fixture
def shots():
    """Where a test keeps a screenshot: shots("name.png") is its path."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return lambda name: ARTIFACTS / name


# A phone as a lone player holds it: 390 CSS px wide, three device pixels to one, touch.
PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 3, "is_mobile": True, "has_touch": True}


# The screens a club uses: a laptop, the hall's 1920x1080 screen, a phone.
SCREENS = {"laptop": {"viewport": {"width": 1280, "height": 800}},
           "hall": {"viewport": {"width": 1920, "height": 1080}}, "phone": PHONE}


@pytest.fixture(params=sorted(SCREENS))
def screen(browser, sim_page, request):
    """The page on each of SCREENS in turn."""
    yield from tab_on(browser, sim_page, request, **SCREENS[request.param])


@pytest.fixture
def page(browser, sim_page, request):
    """A browser tab showing the simulated board; a screenshot of it is kept when the test ends."""
    yield from tab_on(browser, sim_page, request, viewport={"width": 1400, "height": 900})


@pytest.fixture
def phone(browser, sim_page, request):
    """The same, on a phone."""
    yield from tab_on(browser, sim_page, request, **PHONE)


def tab_on(browser, sim_page, request, **device):
    context = browser.new_context(**device)
    tab = context.new_page()
    tab.set_default_timeout(stretched(15) * 1000)
    tab.goto(sim_page.url)
    tab.wait_for_selector("#board svg .square")
    yield tab
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    tab.screenshot(path=str(ARTIFACTS / ("%s.png" % request.node.name)), full_page=True)
    context.close()
