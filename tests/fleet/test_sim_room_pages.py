"""A simulated room an organiser can play before the club arrives: `doce sim --boards N` gives
every board its page (the simulator's: click dice, Cut power, Press the button), `doce sim
--broker URL` puts one more board with its page into that room, and the tournament page links
each board's page from its tile. In Chromium, through real processes and the embedded broker."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from browser import chromium
from fleet_helpers import Line
from waiting import Lines, completed, stop, stretched, until

from doce_host import core_time
from doce_host.fleet.room import Room
from doce_host.fleet.simroom import PageNotices
from test_fleet_web import WebProcess

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = Path(os.environ.get("DOCE_ARTIFACTS", ROOT / "test-artifacts")) / "web"
BOOT_S = 120  # boards built and booted one after another, on two busy cores


class Sims:
    """A `doce sim` process running boards in a room: {board id: its page} as it printed them."""

    def __init__(self, *args, http="0"):
        self.process = subprocess.Popen([sys.executable, "-u", "-m", "doce_host.cli", "sim", *args, "--http", http],
                                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                        start_new_session=True)
        lines = Lines(self.process.stdout)
        self.pages = {}
        while True:
            line = lines.next(timeout=BOOT_S)
            found = re.match(r"\s+([0-9a-f]{12})\s+page (http://\S+/)\s+serial (\S+)", line)
            if found:
                self.pages[found.group(1)] = found.group(2)
            if line.startswith("doce fleet web"):
                return

    def close(self):
        stop(self.process, strict=False)


def room_pages(web):
    return {b["id"]: b["page"] for b in json.loads(web.get("room.json"))["boards"] if b["online"]}


def test_every_simulated_board_in_a_room_is_played_from_its_tile(embedded, tmp_path):
    room = Sims("--boards", "2", "--broker", embedded.url, "--folder", str(tmp_path / "room"))
    joined = None
    web = None
    try:
        assert len(room.pages) == 2
        joined = Sims("--broker", embedded.url, "--folder", str(tmp_path / "mine"))
        (mine, my_page), = joined.pages.items()
        assert mine not in room.pages  # an id of its own in the room
        web = WebProcess("--broker", embedded.url)
        every = dict(room.pages, **joined.pages)
        until(lambda: room_pages(web) == every, timeout=60, what="the room knowing every board's page")
        with chromium() as browser:
            context = browser.new_context(viewport={"width": 1920, "height": 1080})
            tab = context.new_page()
            tab.set_default_timeout(stretched(30) * 1000)
            tab.goto(web.url)
            tab.wait_for_selector('.tile[data-board="%s"] a.hands' % mine)
            links = {t.get_attribute("data-board"): t.locator("a.hands").get_attribute("href")
                     for t in tab.locator(".tile").all()}
            assert links == every
            tab.screenshot(path=str(ARTIFACTS / "sim-room.png"))
            # From the tile to the board's own page: the simulator's, with its hands
            tab.click('.tile[data-board="%s"] a.hands' % mine)
            tab.wait_for_selector("#board svg .square")
            assert tab.url == my_page
            for control in ("#cut-power", "#press", "#clear"):
                assert tab.locator(control).is_visible(), control
            tab.click('#board .square[data-cell="c3"]')
            tab.click('#picker button[data-piece="white 4"]')
            tab.wait_for_selector('#board .square[data-cell="c3"][data-piece="white 4"]')
            tab.go_back()
            tab.wait_for_selector('.tile[data-board="%s"] [data-cell="c3"][data-piece="white 4"]' % mine)
            context.close()
        joined.close()  # the board leaves: its page goes from the room with it
        until(lambda: mine not in room_pages(web), timeout=60, what="the room forgetting the board's page")
        assert [b["page"] for b in json.loads(web.get("room.json"))["boards"] if b["id"] == mine] == [None]
    finally:
        for process in (web, joined, room):
            if process:
                process.close()


def doce_sim(*args):
    return completed([sys.executable, "-m", "doce_host.cli", "sim", *args, "--http", "0"], timeout=BOOT_S)


def free_run(length):
    """A port after which `length` ports are free (as far as can be told before they are used)."""
    import socket
    for _ in range(50):
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            base = probe.getsockname()[1]
        try:
            held = []
            for n in range(1, length + 1):
                held.append(socket.socket())
                held[-1].bind(("127.0.0.1", base + n))
            return base
        except OSError:
            continue
        finally:
            for sock in held:
                sock.close()
    raise AssertionError("no %d free ports in a row" % length)


def test_each_simulated_boards_page_is_on_its_numbers_port(embedded):
    """Sim 1's page on --http + 1, Sim 2's on + 2: a tile's number is its page's port's (8001, 8002...)."""
    base = free_run(2)
    room = Sims("--boards", "2", "--broker", embedded.url, http=str(base))
    try:
        assert [int(re.search(r":(\d+)/$", page).group(1)) for page in room.pages.values()] == [base + 1, base + 2]
    finally:
        room.close()


def test_two_simulated_rooms_on_one_broker_keep_their_own_boards(mosquitto, tmp_path):
    """Each `doce sim --boards N --broker URL` took ids 020000000001...: a second room on the same
    broker took the first's ids, and Mosquitto closed one board's connection for the other's every
    few seconds; the second's exit cleared the first's page links."""
    first = Sims("--boards", "2", "--broker", mosquitto.url, "--folder", str(tmp_path / "first"))
    second = web = None
    try:
        second = Sims("--boards", "1", "--broker", mosquitto.url, "--folder", str(tmp_path / "second"))
        assert len(first.pages) == 2 and len(second.pages) == 1
        assert not set(first.pages) & set(second.pages)  # ids of their own
        # the same folder twice: the same boards, which the room has online: refused in one line
        again = doce_sim("--boards", "2", "--broker", mosquitto.url, "--folder", str(tmp_path / "first"))
        assert again.returncode != 0 and "already in the room" in again.stderr, again
        assert len(again.stderr.strip().splitlines()) == 1 and "page" not in again.stdout
        web = WebProcess("--broker", mosquitto.url)
        every = dict(first.pages, **second.pages)
        until(lambda: room_pages(web) == every, timeout=60, what="the room knowing every board's page")
        second.close()
        until(lambda: room_pages(web) == first.pages, timeout=60, what="the second room's boards leaving")
        assert "already connected" not in (mosquitto.folder / "mosquitto.log").read_text()
    finally:
        for process in (web, second, first):
            if process:
                process.close()


PAGE = "http://127.0.0.1:8001/"


def page_in_room(broker, ident):
    with Room(broker.url) as room:
        return until(lambda: room.boards.get(ident) and room.boards[ident].page, timeout=30,
                     what="the page link retained at the broker")


def test_a_page_link_is_told_again_when_the_broker_restarts(mosquitto):
    """fleet secure's Mosquitto keeps no retained message across a restart (no persistence): a
    link told once was gone for a `fleet web` started after it."""
    notices = PageNotices(mosquitto.url)
    try:
        notices.tell("06aabbccddee", PAGE)
        assert page_in_room(mosquitto, "06aabbccddee") == PAGE
        mosquitto.stop()
        mosquitto.start()
        assert page_in_room(mosquitto, "06aabbccddee") == PAGE
    finally:
        notices.close()


def test_a_page_link_another_process_told_since_is_not_cleared(embedded):
    mine, theirs = PageNotices(embedded.url), PageNotices(embedded.url)
    try:
        mine.tell("06aabbccddee", PAGE)
        assert page_in_room(embedded, "06aabbccddee") == PAGE  # at the broker before theirs is told:
        theirs.tell("06aabbccddee", "http://127.0.0.1:8002/")  # two clients' messages keep no order
        topic, told = "doce/06aabbccddee/sim", json.dumps({"page": "http://127.0.0.1:8002/"}).encode()
        until(lambda: mine.heard.get(topic) == told, timeout=30, what="theirs heard by mine")
        mine.close()
        assert page_in_room(embedded, "06aabbccddee") == "http://127.0.0.1:8002/"
    finally:
        theirs.close()


def test_the_pages_wait_for_a_busy_computers_broker_in_a_cores_time(embedded, monkeypatch):
    """doce sim ended once at twice the CI's load before it printed its boards: it waited for its
    own embedded broker 10 wall seconds, where the rest of the room waits 10 s of a core's time."""
    monkeypatch.setattr(core_time, "runnable", lambda: 4 * core_time.CORES)  # a core's share is a quarter
    line = Line(int(embedded.url.rsplit(":", 1)[1]), delay_s=2)
    notices = PageNotices("mqtt://127.0.0.1:%d" % line.port, timeout=1)  # 1 s of a core's: 4 s of the wall
    notices.close()
    line.close()
