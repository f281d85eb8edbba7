"""`doce web` for a board on a serial port, `doce snapshot`, and the server's answers to bad input."""

import asyncio
import json
import struct
import sys
import xml.etree.ElementTree as ET
from concurrent.futures import ThreadPoolExecutor

import aiohttp
import pytest

from pages import Page
from waiting import completed, stretched, until
from doce_host.paths import BOARD_FILE
from doce_host.sim.serial_sim import SerialSim

SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture
def board(tmp_path):
    """A board on a serial path, as doce web sees a real one: the page cannot move its dice."""
    with SerialSim(tmp_path) as sim:
        yield sim


def doce(*args):
    return completed([sys.executable, "-m", "doce_host.cli", *args], timeout=60)


def pieces(svg_text):
    root = ET.fromstring(svg_text)
    return {g.get("data-cell"): g.get("data-piece") for g in root.iter(SVG + "g") if g.get("class") == "square"}


def test_doce_web_follows_a_board_moved_by_hand(browser, board, shots):
    page = Page("web", "--port", board.path)
    try:
        tab = browser.new_page()
        tab.goto(page.url)
        tab.wait_for_selector("#board svg .square")
        assert tab.locator("#source").text_content().startswith("board: DOCE board")
        assert tab.locator("#cut-power").is_hidden()
        board.place("c3", "white 4")  # a hand at the board
        tab.wait_for_selector('#board .square[data-cell="c3"][data-piece="white 4"][data-last="white"]')
        assert "white put a 4 on c3" in tab.locator("#log").inner_text()
        tab.locator('#board .square[data-cell="d4"]').click()
        assert tab.locator("#message").text_content() == "This is a real board: move its dice by hand."
        assert tab.locator("#picker").is_hidden()
        tab.click("#hint")  # asked over the link, as of any board
        tab.wait_for_selector("#hint-answer:has-text('Hint for black: ')")
        tab.screenshot(path=str(shots("doce-web-real-board.png")))
        tab.close()
    finally:
        page.close()


def test_doce_web_names_a_wrong_port_in_one_line():
    run = doce("web", "--port", "/dev/no-such-board", "--http", "0")
    assert run.returncode == 2
    assert run.stderr.strip().splitlines() == [
        "doce: /dev/no-such-board: no such port (is the board plugged in? doce sim --serial-only prints its path)"]


def test_snapshot_from_a_serial_port_and_from_a_page(board, tmp_path):
    until(lambda: board.state()["mode"] == "playing", what="the board starting its round")
    board.place("c3", "white 4")
    until(lambda: board.state()["board"] == {"c3": "white 4"}, what="the board counting the die")
    out = tmp_path / "board.svg"
    run = doce("snapshot", "--port", board.path, "--svg", str(out))
    assert run.returncode == 0, run.stderr
    drawn = pieces(out.read_text())
    assert len(drawn) == 25 and drawn["c3"] == "white 4" and drawn["a1"] == ""
    page = Page("web", "--port", board.path)
    try:
        png = tmp_path / "board.png"
        run = doce("snapshot", "--url", page.url, "--png", str(png))
        assert run.returncode == 0, run.stderr
        data = png.read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n"
        width, height = struct.unpack(">II", data[16:24])
        assert width > 500 and height > 300
        run = doce("snapshot", "--url", page.url, "--svg", str(out))
        assert run.returncode == 0 and pieces(out.read_text())["c3"] == "white 4"
    finally:
        page.close()


def test_snapshot_errors_are_one_line(tmp_path):
    run = doce("snapshot", "--url", "http://127.0.0.1:9", "--svg", str(tmp_path / "x.svg"))
    assert run.returncode == 2 and len(run.stderr.strip().splitlines()) == 1
    assert run.stderr.startswith("doce: http://127.0.0.1:9: no picture from the page")
    run = doce("snapshot", "--port", "/dev/no-such-board", "--svg", str(tmp_path / "x.svg"))
    assert run.returncode == 2 and "no such port" in run.stderr


@pytest.mark.parametrize("body, says", [
    (b"<svg><g>", "the picture is not an SVG that can be drawn"),  # a cairosvg traceback before
    (b"<html>not a picture</html>", "the picture is not an SVG that can be drawn"),
    (b"\xff\xfe", "no picture from the page"),
    (b"<svg>" + b" " * (2 << 20) + b"</svg>", "no picture from the page (a picture over 1024 KB)"),
])
def test_a_page_that_sends_no_drawable_picture_is_one_line(tmp_path, body, says):
    pytest.importorskip("cairosvg")
    import http.server
    import threading

    class Lying(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Type", "image/svg+xml")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Lying)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        run = doce("snapshot", "--url", "http://127.0.0.1:%d" % server.server_port, "--png", str(tmp_path / "x.png"))
    finally:
        server.shutdown()
    assert run.returncode == 2 and "Traceback" not in run.stderr and len(run.stderr.strip().splitlines()) == 1
    assert says in run.stderr, run.stderr


def test_a_page_reached_by_another_name_is_refused(sim_page):
    """DNS rebinding: another site's name made to point at this computer. Its page's Origin and
    its requests' Host are both that name, so only the Host tells: it must name this computer."""
    import http.client
    from urllib.parse import urlsplit
    where = urlsplit(sim_page.url)

    def status(method, path, host, body=None, headers=()):
        connection = http.client.HTTPConnection(where.hostname, where.port, timeout=stretched(10))
        try:
            connection.request(method, path, body=body, headers={"Host": host, **dict(headers)})
            return connection.getresponse().status
        finally:
            connection.close()
    upgrade = {"Connection": "Upgrade", "Upgrade": "websocket", "Sec-WebSocket-Version": "13",
               "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ=="}
    for host in ("rebind.example:%d" % where.port, "rebind.example", "127.0.0.1.nip.io:%d" % where.port):
        assert status("GET", "/", host) == 421
        assert status("GET", "/board.svg", host) == 421
        assert status("GET", "/ws", host, headers=dict(upgrade, Origin="http://" + host)) == 421
        assert status("POST", "/replay", host, body=b'{"moves": []}',
                      headers={"Content-Type": "application/json", "Origin": "http://" + host}) == 421
    for host in ("127.0.0.1:%d" % where.port, "localhost:%d" % where.port):
        assert status("GET", "/", host) == 200


def test_the_server_refuses_strangers_and_bad_uploads(sim_page):
    async def check():
        async with aiohttp.ClientSession() as http:
            with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                await http.ws_connect(sim_page.url + "ws", headers={"Origin": "http://elsewhere.example"})
            assert refused.value.status == 403  # another site's page may not move the dice
            async with http.ws_connect(sim_page.url + "ws") as ws:
                frame = json.loads((await ws.receive()).data)
                while not frame["svg"]:  # the page may come before the board has answered
                    assert frame["problem"].startswith("connecting to /dev/")
                    frame = json.loads((await ws.receive()).data)
                assert frame["type"] == "frame" and frame["sim"]["power"] is True and frame["svg"].startswith("<svg")
                # the page's picker offers what a hand can put down: the pieces the board file's die code reads
                dice = json.loads(BOARD_FILE.read_text())["dice"]
                assert sorted(frame["sim"]["pieces"]) == sorted(set(dice.values()))
                for odd in ('{"do": "place", "cell": [1], "piece": "white 1"}', "[" * 2000 + "]" * 2000):
                    await ws.send_str(odd)
                    reply = json.loads((await ws.receive()).data)
                    while reply["type"] == "frame":
                        reply = json.loads((await ws.receive()).data)
                    assert reply["type"] == "refused", reply
                await ws.send_str('{"do": "lift", "cell": "c3"}')  # the connection lives on
                reply = json.loads((await ws.receive()).data)
                while reply["type"] == "frame":
                    reply = json.loads((await ws.receive()).data)
                assert reply["message"] == "there is nothing on c3 to lift"
            json_body = {"Content-Type": "application/json"}
            async with http.post(sim_page.url + "replay", data=b'{"moves": []}') as r:
                assert r.status == 415  # what a form on another site could send
            async with http.post(sim_page.url + "replay", data=b'{"moves": []}',
                                 headers=dict(json_body, Origin="http://elsewhere.example")) as r:
                assert r.status == 403
            for body in (b"\xff\xfe", b"[]", b'{"moves": "c3"}', b'{"moves": [], "colour": 1}'):
                async with http.post(sim_page.url + "replay", data=body, headers=json_body) as r:
                    assert r.status == 400
                    assert (await r.json())["error"]
            async with http.post(sim_page.url + "replay", data=b'{"moves": [{"player": "white"}]}',
                                 headers=json_body) as r:
                steps = (await r.json())["steps"]
                assert [s["note"] for s in steps] == ["round 1 begins: white opens",
                                                      "move 0 refused: that is not a square on this board"]
    with ThreadPoolExecutor(1) as thread:  # Playwright's loop may be running in this one
        thread.submit(asyncio.run, check()).result()


def test_a_page_port_given_and_taken_is_refused_in_one_line(tmp_path):
    import socket
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        run = doce("sim", "--http", str(port), "--folder", str(tmp_path / "board"))
        assert run.returncode == 2 and run.stdout == ""
        assert run.stderr == ("doce: port %d is taken on 127.0.0.1 (another doce page?): give another with --http "
                              "PORT, or --http 0 for any free one\n" % port)
        assert not (tmp_path / "board").exists()  # refused at once, before a board was made and booted for nothing
        # the default port, nobody's choice, falls back to a free one: the page's address says which
        from doce_host.commandline import DefaultPort
        from doce_host.web.server import listen_on
        with listen_on("127.0.0.1", DefaultPort(port)) as other:
            assert other.getsockname()[1] != port


def test_a_mistyped_command_gets_a_guess():
    run = doce("simm")
    assert run.returncode == 2
    assert run.stderr.splitlines()[-1] == ("doce: error: invalid choice: 'simm'; did you mean sim? "
                                           "(doce --help lists them all)")
    run = doce("fleet", "statsu")
    assert "did you mean status?" in run.stderr
    assert "did you mean" not in doce("xyzzy").stderr  # nothing near: the list of commands, as argparse gives it
