"""The web view's figures: the time from a click to the picture that shows it, and to the
picture with the die's light under it, measured in the browser (headless Chromium), on `doce
sim`. The page itself times each click, from its click handler to the animation frame that
paints the new picture (board.js: doceTimings, doceLightTimings)."""

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


def board_round(tab, sim):
    """doce web's path: a hand puts each die on the board itself (a board on a serial line, its
    page only watching); ms from the die landing on the sensors to the page showing it."""
    import time
    times = []
    for move in map(expand, ROUND):
        cell, piece = move["cell"], piece_of(move)
        selector = '#board .square[data-cell="%s"][data-piece="%s"]' % (cell, piece)
        sim.place(cell, piece)
        landed = time.time() - (time.monotonic() - sim.moved_at)  # when its readings went to the board
        # the page notes the animation frame that first shows it, on the same clock
        seen = tab.wait_for_function("(s) => document.querySelector(s) && performance.timeOrigin + performance.now()",
                                     arg=selector, polling="raf").json_value()
        times.append(seen - landed * 1000)
    return times


def real_board_figures(browser):
    """The same speed through doce web, which watches a board it cannot move: a SerialSim on its
    serial path is that board, its dice put down by the bench's hand."""
    from doce_host.sim.serial_sim import SerialSim
    with tempfile.TemporaryDirectory() as folder, SerialSim(folder, module="wrover") as sim:  # the reference board
        page = Page("web", "--port", sim.path)
        try:
            tab = browser.new_page(viewport={"width": 1400, "height": 900})
            tab.goto(page.url)
            tab.wait_for_selector('#board svg[data-mode="playing"]')
            times = sorted(board_round(tab, sim))
        finally:
            page.close()
    print("  doce web on a board (the simulator on its serial path, 115200 baud), die landing on the sensors to"
          " the page's frame showing it, %d dice:" % len(times))
    print("    median %.0f ms, 90th percentile %.0f ms, worst %.0f ms"
          % (statistics.median(times), times[int(0.9 * (len(times) - 1))], times[-1]))


def web_figures():
    print("Web view (doce sim and doce web, headless Chromium)")
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium:
        print("  skipped: no chromium (apt-get install chromium)")
        return
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=ARGS)
        try:
            report(*clicks(browser))
            real_board_figures(browser)
        finally:
            browser.close()


def clicks(browser):
    """ms from each click on doce sim's page to the picture that shows it (the page's own timings)."""
    with tempfile.TemporaryDirectory() as folder:
        page = Page("sim", "--folder", folder)
        try:
            tab = browser.new_page(viewport={"width": 1400, "height": 900})
            tab.goto(page.url)
            tab.wait_for_selector("#board svg .square")
            play_round(tab, SAME)  # round 1, white opens
            play_round(tab, SWAP)  # round 2, black opens
            tab.wait_for_function("() => window.doceTimings.length === %d" % (4 * len(ROUND)))
            tab.wait_for_function("() => window.doceLightTimings.length === %d" % (2 * len(ROUND)))
            return sorted(tab.evaluate("window.doceTimings")), sorted(tab.evaluate("window.doceLightTimings"))
        finally:
            page.close()


def report(timings, lights):
    placed = len(timings)
    print("  click to updated picture, %d clicks (placing and lifting dice through the simulated sensors and"
          " the firmware, its events on the simulator's serial line paced at 115200 baud as a board's USB"
          " is; the page draws each die from its event, doce_host/follow.py; goal < 100 ms at the 90th"
          " percentile):" % placed)
    print("    median %.0f ms, 90th percentile %.0f ms, worst %.0f ms"
          % (statistics.median(timings), timings[int(0.9 * (placed - 1))], timings[-1]))
    print("  click to the die's light in the picture, %d dice (the lights worked out from the die's event by the"
          " board's own code, doce_host/follow.py; goal < 100 ms at the 90th percentile):" % len(lights))
    print("    median %.0f ms, 90th percentile %.0f ms, worst %.0f ms"
          % (statistics.median(lights), lights[int(0.9 * (len(lights) - 1))], lights[-1]))
