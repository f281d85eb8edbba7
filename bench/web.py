"""The web view's figure: the time from a click to the picture that shows it, measured in
the browser (headless Chromium), on `doce sim`. The page itself times each click, from its
click handler to the animation frame that paints the new picture (board.js: doceTimings)."""

import shutil
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "web"))
sys.path.insert(0, str(ROOT / "tests" / "rules"))
from casebook import expand, piece_of  # noqa: E402
from pages import Page  # noqa: E402

ROUND = ("W a1 2", "B a5 1", "W c1 4", "B c5 1", "W e3 1", "B e5 1", "W b1 3", "B a3 1", "W d1 3")
SWAP = {"white": "black", "black": "white"}
SAME = {"white": "white", "black": "black"}
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]


def play_round(tab, colours):
    for move in map(expand, ROUND):
        cell, piece = move["cell"], piece_of(dict(move, player=colours[move["player"]]))
        tab.click('#board .square[data-cell="%s"]' % cell)
        tab.click('#picker button[data-piece="%s"]' % piece)
        tab.wait_for_selector('#board .square[data-cell="%s"][data-piece="%s"]' % (cell, piece))
    for move in map(expand, ROUND):  # clear the board by hand, a click per die
        cell = move["cell"]
        tab.click('#board .square[data-cell="%s"]' % cell)
        tab.wait_for_selector('#board .square[data-cell="%s"][data-piece=""]' % cell)


def web_figures():
    print("Web view (doce sim, headless Chromium)")
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium:
        print("  skipped: no chromium (apt-get install chromium)")
        return
    from playwright.sync_api import sync_playwright
    with tempfile.TemporaryDirectory() as folder:
        page = Page("sim", "--folder", folder)
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=chromium, args=ARGS)
                tab = browser.new_page(viewport={"width": 1400, "height": 900})
                tab.goto(page.url)
                tab.wait_for_selector("#board svg .square")
                play_round(tab, SAME)  # round 1, white opens
                play_round(tab, SWAP)  # round 2, black opens
                tab.wait_for_function("() => window.doceTimings.length === %d" % (4 * len(ROUND)))
                timings = sorted(tab.evaluate("window.doceTimings"))
                browser.close()
        finally:
            page.close()
    placed = len(timings)
    print("  click to updated picture, %d clicks (placing and lifting dice through the simulated sensors and"
          " the firmware, its events on the simulator's serial line paced at 115200 baud as a board's USB"
          " is; the page draws each die from its event, doce_host/follow.py; goal < 100 ms at the 90th"
          " percentile):" % placed)
    print("    median %.0f ms, 90th percentile %.0f ms, worst %.0f ms"
          % (statistics.median(timings), timings[int(0.9 * (placed - 1))], timings[-1]))
