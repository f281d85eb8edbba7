"""The tournament screen read from across a hall, in Chromium: at 1920x1080 eight boards on one
page, each drawn at least 400 px wide, no text under 16 px, nothing off the screen; 32 boards
paged eight at a time, the standings a page of their own; a laptop; a phone's viewport. The
boards are fakes holding states the board's own code drew (doce_host.recorded)."""

import asyncio
import os
import threading
from pathlib import Path

import pytest
from aiohttp import web
from casebook import expand

from doce_host.fleet.standings import Tournament
from doce_host.fleet.tournament import application
from doce_host.recorded import steps
from doce_host.web.server import listen, url_of

from test_fleet_web import FakeBoard, FakeRoom
from waiting import stretched, until

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = Path(os.environ.get("DOCE_ARTIFACTS", ROOT / "test-artifacts")) / "web"
MOVES = [expand(m) for m in ("W a1 2", "B a5 1", "W c1 4", "B c5 1", "W e3 1", "B e5 1", "W b1 3", "B a3 1",
                             "W d1 3")]
SMALLEST_TEXT = 16  # px, read from 3 m
SMALLEST_BOARD = 400  # px wide

# What is on screen: every board's drawing, every text too small, and whether the page scrolls.
MEASURE = """(smallest) => {
  const shown = (el) => {
    const box = el.getBoundingClientRect();
    if (!box.width || !box.height) return false;
    for (let e = el; e; e = e.parentElement) if (getComputedStyle(e).display === "none") return false;
    return true;
  };
  const small = [];
  const texts = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = texts.nextNode(); node; node = texts.nextNode()) {
    const el = node.parentElement;
    if (!node.textContent.trim() || el.closest("title, script, style") || !shown(el)) continue;
    let px = parseFloat(getComputedStyle(el).fontSize);
    if (el instanceof SVGElement) { const m = el.getScreenCTM(); px *= Math.hypot(m.a, m.b); }
    if (px < smallest - 0.01) small.push([node.textContent.trim().slice(0, 30), px]);
  }
  const boards = Array.from(document.querySelectorAll(".tile")).filter(shown).map((tile) => {
    const box = tile.querySelector("svg").getBoundingClientRect();
    return {id: tile.dataset.board, width: box.width, top: box.top, bottom: box.bottom, left: box.left,
            right: box.right, tile: tile.getBoundingClientRect().bottom};
  });
  return {small, boards, width: innerWidth, height: innerHeight,
          scrollsX: document.documentElement.scrollWidth > innerWidth,
          scrollsY: document.documentElement.scrollHeight > innerHeight,
          standings: shown(document.querySelector("table.standings")),
          viewport: (document.querySelector('meta[name="viewport"]') || {}).content};
}"""


def room_of(count, paired=True):
    """A room of `count` boards, each somewhere in a round, paired unless told."""
    states = [state for state, _ in steps({"moves": MOVES})]
    boards = [FakeBoard("0200000000%02x" % n, "Table %d" % n, states[n % len(states)], changed=n)
              for n in range(1, count + 1)]
    pairings = {1: [(b.name, "Player %dW" % n, "Player %dB" % n) for n, b in enumerate(boards, 1)]}
    return Tournament(FakeRoom(boards), pairings if paired else None)


class Served:
    """The tournament page's app on a free port, in a thread of its own (Playwright has this one)."""

    def __init__(self, t):
        self.sock = listen("127.0.0.1", 0)
        self.url = url_of(self.sock)
        self.loop = asyncio.new_event_loop()
        self.runner = web.AppRunner(application(t))
        up = threading.Event()

        def run():
            asyncio.set_event_loop(self.loop)
            self.loop.run_until_complete(self.runner.setup())
            self.loop.run_until_complete(web.SockSite(self.runner, self.sock).start())
            up.set()
            self.loop.run_forever()
        self.thread = threading.Thread(target=run, daemon=True)
        self.thread.start()
        until(up.is_set, 30, what="the tournament page's server")

    def close(self):
        asyncio.run_coroutine_threadsafe(self.runner.cleanup(), self.loop).result(30)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(30)


@pytest.fixture
def served(request):
    made = []

    def serve(count, long_name=None, paired=True):
        t = room_of(count, paired)
        if long_name:
            next(iter(t.room.boards.values())).name = long_name
        made.append(Served(t))
        return made[-1].url
    yield serve
    for s in made:
        s.close()


def open_screen(browser, url, width, height, **device):
    context = browser.new_context(viewport={"width": width, "height": height}, **device)
    tab = context.new_page()
    tab.set_default_timeout(stretched(15) * 1000)
    tab.goto(url)
    tab.wait_for_selector(".tile svg .square")
    tab.wait_for_function("() => window.doceHall && window.doceHall.shown")
    return context, tab


def readable(found):
    """What keeps the page from being read across the room; [] when all is well."""
    wrong = [["text", *s] for s in found["small"]]
    for b in found["boards"]:
        if b["width"] < SMALLEST_BOARD - 0.5:
            wrong.append(["board", b["id"], b["width"]])
        if b["top"] < 0 or b["tile"] > found["height"] + 0.5 or b["left"] < 0 or b["right"] > found["width"] + 0.5:
            wrong.append(["off the screen", b["id"], b])
    if found["scrollsX"] or found["scrollsY"]:
        wrong.append(["scrolls", found["scrollsX"], found["scrollsY"]])
    return wrong


def test_eight_boards_on_a_1920_screen_each_400_px_wide_no_text_under_16_px(browser, served):
    context, tab = open_screen(browser, served(8), 1920, 1080)
    try:
        found = tab.evaluate(MEASURE, SMALLEST_TEXT)
        assert len(found["boards"]) == 8 and readable(found) == []
        assert min(b["width"] for b in found["boards"]) >= 400
        assert tab.evaluate("window.doceHall.shown")["perPage"] == 8
        # the standings beside them, every player, on the screen: no paging
        assert found["standings"] and tab.evaluate("window.doceHall.pages") == 1
        assert tab.evaluate("window.doceHall.shown")["beside"]
        assert tab.locator("table.standings tbody tr:visible").count() == 16
        box = tab.locator("aside.tables").bounding_box()
        right = max(b["right"] for b in found["boards"])
        assert box["x"] >= right and box["x"] + box["width"] <= 1920 and box["y"] + box["height"] <= 1080
        places = tab.locator("table.standings td.place").all_text_contents()
        assert places[0] == "=1" and len(set(places)) < len(places)  # level players share a place
        tab.screenshot(path=str(ARTIFACTS / "hall-8-boards.png"))
        # the words under a board: its players, their points, who is to move
        first = tab.locator(".tile").first
        assert first.locator(".players .who").all_text_contents() == ["Player 1W", "Player 1B"]
        assert first.locator(".players .to-move .who").text_content() == "Player 1B"  # after white's a1
    finally:
        context.close()


def test_thirty_two_boards_page_eight_at_a_time(browser, served):
    context, tab = open_screen(browser, served(32), 1920, 1080)
    try:
        # the organiser pauses the rotation to look, so the walk below is the only thing turning
        # pages: rotating, a page turned every 15 s under the walk where the machine was loaded
        tab.click("#rotate")
        assert tab.locator("#rotate").get_attribute("aria-pressed") == "false"
        pages = tab.evaluate("window.doceHall.pages")
        seen, players = [], set()
        for page in range(pages):
            found = tab.evaluate(MEASURE, SMALLEST_TEXT)
            assert readable(found) == [], page
            seen.append([b["id"] for b in found["boards"]])
            if not found["boards"]:  # the standings' pages: their rows, as many as fit
                players |= set(tab.eval_on_selector_all("table.standings tbody tr:not([hidden]) td.player .name",
                                                        "tds => tds.map(td => td.textContent)"))
            if page in (0, pages - 1):
                tab.screenshot(path=str(ARTIFACTS / ("hall-32-boards.png" if page == 0 else "hall-32-standings.png")))
            tab.click("#page-on")
        assert [len(ids) for ids in seen[:4]] == [8, 8, 8, 8] and not any(seen[4:])
        assert sorted(sum(seen, [])) == ["0200000000%02x" % n for n in range(1, 33)]  # each board once
        assert players == {"Player %d%s" % (n, c) for n in range(1, 33) for c in "WB"}  # each player on a page
        assert tab.locator("#page-at").text_content() == "page 1 of %d" % pages  # round again
        tab.click("#rotate")  # and sets it going again
        assert tab.locator("#rotate").get_attribute("aria-pressed") == "true"
    finally:
        context.close()


def test_with_no_pairings_loaded_the_hall_shows_no_empty_standings_page(browser, served):
    context, tab = open_screen(browser, served(32, paired=False), 1920, 1080)
    try:
        pages = tab.evaluate("window.doceHall.pages")
        assert pages == 4  # 32 boards, 8 a page, and no page of empty tables
        for page in range(pages):
            assert len(tab.evaluate(MEASURE, SMALLEST_TEXT)["boards"]) == 8, page
            tab.click("#page-on")
    finally:
        context.close()


def test_a_laptop_pages_boards_it_cannot_show_400_px_wide(browser, served):
    context, tab = open_screen(browser, served(8), 1280, 800)
    try:
        found = tab.evaluate(MEASURE, SMALLEST_TEXT)
        assert readable(found) == [] and 1 <= len(found["boards"]) < 8
    finally:
        context.close()


def test_a_phone_gets_a_mobile_viewport_one_board_a_row(browser, served):
    context, tab = open_screen(browser, served(3), 390, 844, device_scale_factor=3, is_mobile=True, has_touch=True)
    try:
        found = tab.evaluate(MEASURE, SMALLEST_TEXT)
        assert found["viewport"] == "width=device-width, initial-scale=1"
        assert found["small"] == [] and not found["scrollsX"]
        assert all(b["width"] >= 0.9 * 390 - 40 and b["right"] <= 390 for b in found["boards"])
        tab.screenshot(path=str(ARTIFACTS / "hall-phone.png"), full_page=True)
    finally:
        context.close()


@pytest.mark.parametrize("count, long_name", [(8, None), (3, "The big table by the window, " * 4)])
def test_a_phone_never_scrolls_sideways_however_many_boards_or_long_their_names(browser, served, count, long_name):
    """Each tile as wide as the phone at most: a grid track of 1fr grows to its widest content (a
    board's name, what it is doing), and the page then scrolled sideways (a tile 8..883 px)."""
    context, tab = open_screen(browser, served(count, long_name), 390, 844, device_scale_factor=3, is_mobile=True,
                               has_touch=True)
    try:
        tiles = tab.eval_on_selector_all(".tile", "ts => ts.map(t => [t.getBoundingClientRect().left, "
                                                  "t.getBoundingClientRect().right])")
        assert len(tiles) == count and all(left >= 0 and right <= 390 for left, right in tiles), tiles
        assert tab.evaluate("document.documentElement.scrollWidth") <= 390
        assert tab.evaluate(MEASURE, SMALLEST_TEXT)["small"] == []
        if long_name:  # cut short where it must be, with an ellipsis, not wrapped or hidden
            # in one evaluation: the screen redraws its tiles as boards report, and a name element
            # taken before a redraw is detached after it, where its computed style is empty
            cut = tab.evaluate("() => { const n = document.querySelector('.tile .name');"
                               " return [getComputedStyle(n).textOverflow, n.scrollWidth > n.clientWidth]; }")
            assert cut == ["ellipsis", True]
    finally:
        context.close()
