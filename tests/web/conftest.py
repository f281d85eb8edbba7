"""The web view in a real browser: headless Chromium (Debian's package) driven by Playwright.

Each test gets its own simulated board (the real firmware) and its page's server, as `doce sim`
serves them (pages.SimPage), on a free port, and a fresh browser page on it. A test's screenshots
go to test-artifacts/web/, and a failed test's page as it was left.
"""

import json
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
DESK = {"viewport": {"width": 1400, "height": 900}}


# The screens a club uses: a laptop, the hall's 1920x1080 screen, a phone.
SCREENS = {"laptop": {"viewport": {"width": 1280, "height": 800}},
           "hall": {"viewport": {"width": 1920, "height": 1080}}, "phone": PHONE}


@pytest.fixture(scope="module")
def devices(browser):
    """devices(**options): the module's browser context with those options, made once. A context
    costs Chromium some 0.3 s of a core's work more than a page in it; each test still gets a new
    page (its own document, script and handlers), on its own board's port, so an origin of its own
    (no storage, cache or cookie the page could keep is shared)."""
    made = {}

    def device(**options):
        kind = json.dumps(options, sort_keys=True)
        if kind not in made:
            made[kind] = browser.new_context(**options)
        return made[kind]
    yield device
    for context in made.values():
        context.close()


@pytest.fixture(params=sorted(SCREENS))
def screen(devices, sim_page, request):
    """The page on each of SCREENS in turn."""
    yield from tab_on(devices(**SCREENS[request.param]), sim_page, request)


@pytest.fixture
def page(devices, sim_page, request):
    """A browser tab showing the simulated board (a failed test's is kept as a screenshot)."""
    yield from tab_on(devices(**DESK), sim_page, request)


@pytest.fixture
def phone(devices, sim_page, request):
    """The same, on a phone."""
    yield from tab_on(devices(**PHONE), sim_page, request)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Each phase's report on the test, for its fixtures' teardown to see (tab_on)."""
    outcome = yield
    report = outcome.get_result()
    setattr(item, "report_" + report.when, report)


def tab_on(context, sim_page, request):
    tab = context.new_page()
    tab.set_default_timeout(stretched(15) * 1000)
    tab.goto(sim_page.url)
    tab.wait_for_selector("#board svg .square")
    yield tab
    report = getattr(request.node, "report_call", None)
    if report is None or report.failed:  # what the page showed when the test failed: a screenshot
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        tab.screenshot(path=str(ARTIFACTS / ("%s.png" % request.node.name)), full_page=True)
    tab.close()
