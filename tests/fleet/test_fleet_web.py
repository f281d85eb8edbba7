"""`doce fleet web`: the tournament page, its pairings CSV, and its standings."""

import asyncio
import json
import os
import re
import shutil
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest
from browser import chromium

from waiting import Deadline, stop, stretched, wait_until

from doce_host.cli import main
from doce_host.fleet.simroom import SimRoom, mac_of
from doce_host.fleet.pairings import load_pairings
from doce_host.fleet.standings import Tournament
from doce_host.fleet.tournament import room_html

WAIT_S = 30
ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = Path(os.environ.get("DOCE_ARTIFACTS", ROOT / "test-artifacts")) / "web"
SNEAKY = "Ana <script>alert(1)</script>"


def csv_file(tmp_path, text, name="pairings.csv"):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


@pytest.mark.parametrize("text, says", [
    ("", "empty"),
    ("board,white\nt1,Ana\n", "line 1: the columns must be"),
    ("board,white,black\nt1,Ana\n", "line 2: 2 fields, expected 3"),
    ("board,white,black\nt1,Ana,Ben\nt1,Cleo,Dev\n", "line 3: board 't1' has two pairings in round 1"),
    ("board,white,black\nt1,Ana,Ben\nt2,Ana,Dev\n", "line 3: 'Ana' plays twice in round 1"),
    ("round,board,white,black\nx,t1,Ana,Ben\n", "line 2: round 'x' is not a number"),
    ("board,white,black\nt/1,Ana,Ben\n", "line 2: board 't/1' holds / + or #"),
    ("board,white,black\nt1,,Ben\n", "line 2: white is empty"),
    ("board,white,black\nt1,Ana,Ana\n", "line 2: 'Ana' cannot play themself"),
    ("board,white,black\nt1,%s,Ben\n" % ("A" * 65), "line 2: white is not text of at most 64"),
    ("board,white,black\n", "no pairings"),
    ("round,board,white,black\n\u00b2,t1,Ana,Ben\n", "round '\u00b2' is not a number"),  # int() takes '²'
    ("board,white,black\nt1,Ana,\"%s\"\n" % ("B" * 140000), "not a CSV of pairings (field larger"),
])
def test_a_bad_pairings_file_is_refused_in_one_line(tmp_path, capsys, text, says):
    assert main(["fleet", "web", "--pairings", csv_file(tmp_path, text), "--http", "0"]) == 2
    err = capsys.readouterr().err
    assert says in err and err.count("\n") == 1 and "Traceback" not in err


def test_an_unreadable_pairings_file_and_a_round_it_lacks_are_refused(tmp_path, capsys):
    assert main(["fleet", "web", "--pairings", str(tmp_path / "none.csv")]) == 2
    assert "cannot read" in capsys.readouterr().err
    path = csv_file(tmp_path, "round,board,white,black\n1,t1,Ana,Ben\n2,t1,Ben,Ana\n")
    assert main(["fleet", "web", "--pairings", path, "--round", "3"]) == 2
    assert "the pairings have rounds 1, 2" in capsys.readouterr().err
    assert load_pairings(path) == {1: [("t1", "Ana", "Ben")], 2: [("t1", "Ben", "Ana")]}


class FakeBoard:
    def __init__(self, ident, name, state, changed=1):
        self.id, self.name, self.state, self.events, self.changed = ident, name, {"state": state, "seq": 1}, [], changed
        self.boot, self.page, self.online = "b00", None, True


class FakeRoom:
    def __init__(self, boards):
        self.boards = {b.id: b for b in boards}
        self.on_event = self.on_change = None
        self.version = max((b.changed for b in boards), default=0)
        self.joined = 1

    def said(self, ident):
        """Board `ident` sent a message: what Room._on_message does to the versions."""
        self.version += 1
        self.boards[ident].changed = self.version
        if self.on_change:
            self.on_change()

    def rows(self):
        return [{"id": b.id, "name": b.name, "online": b.online, "round": b.state["state"].get("round"),
                 "totals": b.state["state"].get("totals"), "page": b.page} for b in self.boards.values()]


def test_standings_count_doce_points_rounds_and_matches_won_live_and_ended():
    room = FakeRoom([FakeBoard("t1", "Table 1", {"round": 2, "mode": "playing", "scores": [{"white": 19, "black": 0}],
                                                 "totals": {"white": 19, "black": 0}}),
                     FakeBoard("t2", "Table 2", {"round": 4, "mode": "match_over", "winner": "black",
                                                 "scores": [{"white": 0, "black": 20}, {"white": 2, "black": 0},
                                                            {"white": 0, "black": 20}, {"white": 0, "black": 0}],
                                                 "totals": {"white": 2, "black": 40}})])
    pairings = {1: [("t1", "Ana", "Ben"), ("Table 2", "Cleo", "Dev"), ("t3", "Eve", "Fay")]}
    t = Tournament(room, pairings)
    rows = {r["player"]: r for r in t.snapshot()["standings"]}
    # paired by the board's name
    assert rows["Dev"] == {"player": "Dev", "points": 40, "won": 1, "rounds": 2, "played": 1, "playing": 0,
                           "rank": 1, "place": "1"}
    # a round won is a round won, before the match is over
    assert rows["Ana"] == {"player": "Ana", "points": 19, "won": 0, "rounds": 1, "played": 0, "playing": 1,
                           "rank": 2, "place": "2"}
    assert rows["Eve"]["points"] == 0  # paired, board not seen yet
    # level on matches won, points and rounds: one place, shared, and the next counted past them
    assert [rows[p]["place"] for p in ("Cleo", "Ben", "Eve", "Fay")] == ["3", "=4", "=4", "=4"]
    assert [r["player"] for r in t.snapshot()["standings"]][:2] == ["Dev", "Ana"]
    # The match seen to end stays counted as the board goes on to the next one
    room.on_event("t2", {"event": "match_end", "match": {"white": 2, "black": 40, "winner": "black"}, "seq": 5},
                  None)
    room.on_event("t2", {"event": "new_match", "first": "black", "seq": 6}, None)
    room.boards["t2"].state = {"state": {"round": 1, "mode": "playing", "scores": [],
                                         "totals": {"white": 0, "black": 0}}, "seq": 7}
    rows = {r["player"]: r for r in t.snapshot()["standings"]}
    assert rows["Dev"] == {"player": "Dev", "points": 40, "won": 1, "rounds": 2, "played": 1, "playing": 1,
                           "rank": 1, "place": "1"}
    # a state from before the new match (MQTT keeps no order between a board's topics) is not the new match's
    room.boards["t2"].state = {"state": {"round": 4, "mode": "match_over", "winner": "black", "scores": [
        {"white": 0, "black": 20}], "totals": {"white": 0, "black": 20}}, "seq": 5}
    assert {r["player"]: r for r in t.snapshot()["standings"]}["Dev"]["played"] == 1
    pairings = t.snapshot()["pairings"]
    assert [(p["name"], p["seen"]) for p in pairings] == [("Table 1", True), ("Table 2", True), ("t3", False)]


def test_news_since_a_version_are_the_tiles_of_the_boards_that_changed_and_the_standings():
    room = FakeRoom([FakeBoard("t%d" % n, "Table %d" % n, {"round": 1, "totals": {"white": n, "black": 0}}, changed=n)
                     for n in range(1, 5)])
    t = Tournament(room, {1: [("t1", "Ana", "Ben")]})
    whole, everything = room_html(t)
    assert everything and [m for m in re.findall(r'data-board="(t\d)"', whole)] == ["t1", "t2", "t3", "t4"]
    part, everything = room_html(t, since=2)
    assert not everything and re.findall(r'data-board="(t\d)"', part) == ["t3", "t4"]  # t1 and t2 shown as they are
    assert "Ana" in part and "<aside" in part  # the standings come with every answer
    room.said("t1")
    assert re.findall(r'data-board="(t\d)"', room_html(t, since=4)[0]) == ["t1"]
    assert room_html(t, since=room.version)[0].count("data-board") == 0
    room.joined = room.version  # a board joined: the page gets every tile, in order
    part, everything = room_html(t, since=room.version - 1)
    assert everything and part.count("data-board") == 4
    assert room_html(t, since=room.version + 7)[1]  # a version the room never had (it restarted): all


def test_a_waiting_page_is_answered_by_the_rooms_change_itself(monkeypatch):
    from aiohttp.test_utils import TestClient, TestServer
    from doce_host.fleet import tournament
    monkeypatch.setattr(tournament, "WAIT_S", 3600)  # only news can answer
    monkeypatch.setattr(tournament, "LOOK_S", 3600, raising=False)  # and no timer looking for it
    room = FakeRoom([FakeBoard("t1", "Table 1", {"round": 1}), FakeBoard("t2", "Table 2", {"round": 1})])
    t = Tournament(room)

    async def run():
        async with TestClient(TestServer(tournament.application(t))) as client:
            asked = asyncio.create_task(client.get("/room.html?since=%d" % room.version))
            await asyncio.sleep(0.2)
            assert not asked.done()  # nothing new: it waits
            await asyncio.get_running_loop().run_in_executor(None, room.said, "t2")  # paho's thread
            answer = await asyncio.wait_for(asked, 30)  # (a bound against hanging, not a speed)
            text = await answer.text()
            assert answer.headers["X-Version"] == str(room.version) and answer.headers["X-Part"] == "changed"
            assert re.findall(r'data-board="(t\d)"', text) == ["t2"]
    asyncio.run(run())


class WebProcess:
    def __init__(self, *args):
        self.process = subprocess.Popen([sys.executable, "-u", "-m", "doce_host.cli", "fleet", "web", *args,
                                         "--http", "0", "--json"], stdout=subprocess.PIPE,
                                        stderr=subprocess.STDOUT, text=True, start_new_session=True)
        line = self.process.stdout.readline()  # the first line says where the page is (or why not)
        try:
            self.ready = json.loads(line)
        except ValueError:
            self.close()
            raise AssertionError("no page from doce fleet web: %s" % line) from None
        self.url = self.ready["url"]

    def get(self, path, headers=False):
        with urllib.request.urlopen(self.url + path.lstrip("/"), timeout=stretched(30)) as r:
            text = r.read().decode()
            return (text, r.headers) if headers else text

    def close(self):
        stop(self.process, strict=False)


def test_the_page_shows_every_board_live_escaped_and_opens_each(embedded, tmp_path):
    ids = [mac_of(1), mac_of(2)]
    path = csv_file(tmp_path, "round,board,white,black\n1,%s,%s,Ben\n1,Sim 2,Cleo,Dev\n" % (ids[0], SNEAKY))
    with SimRoom(2, embedded.url, folder=tmp_path) as sims:
        web = WebProcess("--broker", embedded.url, "--pairings", path)
        try:
            assert web.ready["round"] == 1 and web.ready["pairings"] == 2
            assert wait_until(lambda: len(json.loads(web.get("room.json"))["boards"]) == 2, WAIT_S)
            _, headers = web.get("room.html", headers=True)
            version = int(headers["X-Version"])
            sims.boards[0].place("c3", "white 4")
            # what the page does: ask for news since the version it has; the answer comes with it
            deadline = Deadline(WAIT_S)
            while not deadline.passed():
                part, headers = web.get("room.html?since=%d" % version, headers=True)
                assert int(headers["X-Version"]) > version
                version = int(headers["X-Version"])
                if re.search(r'data-cell="c3"[^>]*data-piece="white 4"', part):
                    break
            else:
                raise AssertionError("the die never showed on the page")
            svg = "board/%s.svg" % ids[0]
            assert wait_until(lambda: 'data-cell="c3" data-piece="white 4"' in web.get(svg)
                              or re.search(r'data-cell="c3"[^>]*data-piece="white 4"', web.get(svg)), WAIT_S)
            page = web.get("/")
            assert "<script>alert" not in page and "Ana &lt;script&gt;alert(1)&lt;/script&gt;" in page
            assert page.count('class="tile online"') == 2 and 'href="/board/%s"' % ids[0] in page
            room = json.loads(web.get("room.json"))
            assert [(p["board"], p["white"], p["seen"]) for p in room["pairings"]] == [(ids[0], SNEAKY, True),
                                                                                       ("Sim 2", "Cleo", True)]
            assert {r["player"] for r in room["standings"]} == {SNEAKY, "Ben", "Cleo", "Dev"}
            board = web.get("board/%s" % ids[0])
            assert "Sim 1" in board and "&lt;script&gt;" in board  # escaped
            # events in words: the event may reach the page a moment after the die did (int11's CI: not yet there)
            assert wait_until(lambda: '<li class="placed">white put a 4 on c3</li>' in web.get("board/%s" % ids[0]),
                              WAIT_S)
            with pytest.raises(urllib.error.HTTPError):
                web.get("board/nobody")
            if shutil.which("chromium") or shutil.which("chromium-browser"):  # else tests/web reports it
                with chromium() as browser:
                    screenshot(browser, web.url, ids, sims.boards[1])
        finally:
            web.close()


def test_the_tournament_page_reached_by_another_name_is_refused(embedded):
    """DNS rebinding (tests/web: the board's page): only this computer's names are answered."""
    import http.client
    from urllib.parse import urlsplit
    web = WebProcess("--broker", embedded.url)
    try:
        where = urlsplit(web.url)
        for host, expected in (("rebind.example:%d" % where.port, 421), ("127.0.0.1:%d" % where.port, 200)):
            for path in ("/", "/room.json", "/room.html"):
                connection = http.client.HTTPConnection(where.hostname, where.port, timeout=stretched(10))
                connection.request("GET", path, headers={"Host": host})
                assert connection.getresponse().status == expected, (host, path)
                connection.close()
    finally:
        web.close()


def screenshot(browser, url, ids, second):
    """In Chromium, as the web tests do (tests/web): the page, a die put on the second board
    while it is open (its tile alone comes and takes its place), then a click on a board."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    try:
        tab = context.new_page()
        tab.set_default_timeout(stretched(15) * 1000)
        dialogs = []
        tab.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        tab.goto(url)
        tab.wait_for_selector(".tile svg .square")
        second.place("a1", "black 2")
        tab.wait_for_selector('.tile[data-board="%s"] [data-cell="a1"][data-piece="black 2"]' % ids[1])
        assert tab.locator(".tile").count() == 2 and not dialogs  # still escaped: no script ran
        assert tab.locator('.tile[data-board="%s"] [data-cell="c3"][data-piece="white 4"]' % ids[0]).count() == 1
        assert tab.locator('.tile').first.get_attribute("data-board") == ids[0]  # in their places
        tab.screenshot(path=str(ARTIFACTS / "fleet-web.png"), full_page=True)
        tab.click('.tile[data-board="%s"]' % ids[0])
        tab.wait_for_selector(".picture.large svg .square")
        assert "/board/%s" % ids[0] in tab.url
        tab.screenshot(path=str(ARTIFACTS / "fleet-web-board.png"), full_page=True)
    finally:
        context.close()
