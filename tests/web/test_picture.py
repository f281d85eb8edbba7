"""The picture, the replay and the watch on their own, without a browser: bad input of
every kind gets drawn safely, refused, or reported, and never kills the page."""

import json
import time
import xml.etree.ElementTree as ET

import pytest
from devices import FakeDevice
from waiting import Deadline

from doce.game import Game
from doce.lights import YELLOW, scaled
from doce_host.link import PROTOCOL
from doce_host.paths import load_board
from doce_host.protocol import problem
from doce_host.recorded import GameFileError, board_state, steps
from doce_host.rules import load_tables
from doce_host.web import picture
from doce_host.web.watch import Watch

SVG = "{http://www.w3.org/2000/svg}"
# A new game's state as a board reports it: from the firmware's own state builder (by way of
# the recorded-game replay), and checked against the protocol schema below.
EMPTY = board_state(Game(load_tables("standard")))


def test_the_fixture_state_is_one_a_board_could_send():
    assert problem(EMPTY, "state") is None
    assert problem(dict(EMPTY, mode="sleeping"), "state")  # and the check can fail


def squares(svg):
    root = ET.fromstring(svg)  # well-formed, or this raises
    return {g.get("data-cell"): g for g in root.iter(SVG + "g") if g.get("class") == "square"}


@pytest.mark.parametrize("tall", [False, True])
def test_words_from_the_wire_stay_words(tall):
    hostile = 'a1"><image href="x" onerror="alert(1)"/>'
    svg = picture.draw(dict(EMPTY, mode="correcting", problems={hostile: "<script>x</script>"},
                            board={"c3": 'white 4"/><script>'}), tall=tall)
    root = ET.fromstring(svg)
    assert not [e for e in root.iter() if e.tag in (SVG + "image", SVG + "script")]
    reasons = ["".join(t.itertext()) for t in root.iter(SVG + "text") if t.get("class") == "problem-reason"]
    assert reasons == [hostile + ": <script>x</script>"]  # shown as text, escaped in the file
    c3 = squares(svg)["c3"]
    assert c3.get("data-piece") == 'white 4"/><script>'
    assert c3.find(SVG + "rect[@class='die']") is None  # not a piece it knows: drawn unreadable


def test_pieces_lines_and_lights_are_drawn_from_the_state():
    cap = load_board().brightness_cap
    yellow = scaled(YELLOW, 8, cap)  # yellow at the board file's cap, full level
    leds = bytearray(3 * 31)
    leds[3 * 12:3 * 12 + 3] = bytes(yellow)  # c3 is LED 12
    state = dict(EMPTY, board={"c3": "white 4", "a1": "black blocker", "e5": "white 12"},
                 last={"white": "c3", "black": None}, leds=leds.hex(),
                 round_end={"round": 1, "result": "white", "reason": "line", "lines": [["a1", "z9"], ["a1", "b1"]],
                            "points": {"white": 3, "black": 0}})
    drawn = squares(picture.draw(state))
    assert len(drawn) == 25
    c3 = drawn["c3"]
    assert len(c3.findall(SVG + "circle[@class='pip']")) == 4 and c3.get("data-last") == "white"
    # The hue at full strength (brightest channel 255) and how bright it is of the cap.
    assert c3.get("data-light") == "#%02x%02x%02x" % tuple(round(c * 255 / max(yellow)) for c in yellow)
    assert float(c3.get("data-level")) == pytest.approx(max(yellow) / (cap * 255), abs=0.01)
    assert drawn["a1"].find(SVG + "circle[@class='blocker']") is not None
    assert [t.text for t in drawn["e5"].iter(SVG + "text")] == ["12"]  # a die beyond six faces
    lines = [p for p in ET.fromstring(picture.draw(state)).iter(SVG + "polyline") if p.get("class")]
    assert [p.get("data-cells") for p in lines] == ["a1 b1"]  # a line off the board is not drawn


def test_the_tall_picture_keeps_every_word_and_two_lines_of_headline():
    state = dict(EMPTY, mode="correcting", problems={"b2": "no_play_zone"}, board={"c3": "white 4"},
                 scores=[{"white": 35, "black": 0}], totals={"white": 35, "black": 0})
    wide, tall = (ET.fromstring(picture.draw(state, tall=t)) for t in (False, True))
    assert [float(n) for n in tall.get("viewBox").split()][2] < 560  # a phone's width: the board and no more
    def words(svg):
        return ["".join(t.itertext()) for t in svg.iter(SVG + "text") if t.get("class") != "headline"]
    assert words(wide) == words(tall)  # the same words, laid out for a phone
    headline = [t.text for t in tall.iter(SVG + "text") if t.get("class") == "headline"]
    assert headline == ["Round 1: put the board right", "(white to move)"]
    assert picture.headline(state) == " ".join(headline)
    long = [t.text for t in ET.fromstring(picture.draw(state, title="Table " * 20, tall=True)).iter(SVG + "text")
            if t.get("class") == "headline"]
    assert len(long) == 2 and long[1].endswith("…") and max(map(len, long)) <= picture.HEADLINE_CHARS


def test_the_board_move_is_marked_where_it_goes():
    def marks(versus, **more):
        drawn = squares(picture.draw(dict(EMPTY, versus=versus, **more), tall=True))
        return {c: g.get("data-board-move") for c, g in drawn.items() if g.get("data-board-move")}
    assert marks({"colour": "black", "level": 3, "move": {"cell": "c4", "value": 5}}) == {"c4": "black 5"}
    # its blocker first: the blocker's square
    assert marks({"colour": "black", "level": 3, "move": {"cell": "c4", "value": 5, "blocker": "b2"}}) == \
        {"b2": "black blocker"}
    assert marks({"colour": "black", "level": 3, "move": None}) == {}  # thinking
    assert marks(None) == {}
    assert marks({"colour": "black", "level": 3, "move": {"cell": "c4", "value": 5}}, mode="correcting") == {}
    state = dict(EMPTY, versus={"colour": "white", "level": 1, "move": None})
    assert picture.headline(state) == "Round 1 of 4: white (the board) to move"
    state = dict(EMPTY)
    del state["versus"]  # from a board older than the field
    assert picture.headline(state) == "Round 1 of 4: white to move" and picture.draw(state, tall=True)
    # An odd move from a board is drawn as nothing it could be taken for
    odd = squares(picture.draw(dict(EMPTY, versus={"colour": "black", "level": 3,
                                                   "move": {"cell": "c4", "value": '5"/><script>'}})))
    assert odd["c4"].get("data-board-move") == 'black 5"/><script>'
    assert odd["c4"].find(".//" + SVG + "rect[@class='die']") is None


def move(player, cell, value=None, blocker=False):
    m = {"player": player, "cell": cell}
    if blocker:
        m["blocker"] = True
    elif value is not None:
        m["value"] = value
    return m


@pytest.mark.parametrize("odd", [
    {"player": "white"}, {"cell": "c3", "value": 4}, {"player": None, "cell": "c3", "value": 4},
    move("black", "c3", "x"), move("black", "c3"), move("black", "c3", 0), move("black", "c3", 7),
    move("black", "c3", 255), move("black", "c3", -1), move("white", 5, 4), move("white", "z9", 4),
    move("white", "c3", True), 0, "c3 4", None, [1, 2],
])
def test_a_replay_refuses_odd_moves_and_goes_on(odd):
    shown = steps({"moves": [odd, move("white", "c3", 4)]})
    assert shown[1][1].startswith("move 0 refused: ")  # numbered as doce referee numbers them
    assert shown[2][1] == "move 1: white put a 4 on c3" and shown[2][0]["board"] == {"c3": "white 4"}
    assert picture.draw(shown[1][0]).startswith("<svg")


def test_a_replay_shows_a_refused_die_where_it_was_put():
    state, note = steps({"moves": [move("black", "c3", 4)]})[1]
    assert note == "move 0 refused: c3: that is a black die; white is to move"
    assert state["seen"] == {"c3": "black 4"} and state["problems"] == {"c3": "not_your_turn"}


def test_a_match_against_the_board_replays_as_any_other():
    versus = {"colour": "black", "level": 3}
    shown = steps({"versus": versus, "moves": [move("white", "c3", 4), move("black", "a1", 2)]})
    assert [note for _, note in shown[1:]] == ["move 0: white put a 4 on c3", "move 1: black put a 2 on a1"]
    with pytest.raises(GameFileError, match='"level" must be an integer 0 to 3'):
        steps({"versus": dict(versus, level=7), "moves": []})


def test_a_replay_has_limits():
    with pytest.raises(GameFileError, match="at most 1000"):
        steps({"moves": [move("white", "c3", 4)] * 1001})
    with pytest.raises(GameFileError, match="not a shipped rules name"):
        steps({"moves": [], "rules": "/etc/passwd"})


def board_answering(state):
    """A fake DOCE board that says hello, and answers `state` with state["now"]."""
    def answer(line):
        request = json.loads(line)
        reply = {"re": request["cmd"], "id": request["id"], "ok": True, "seq": 0}
        if request["cmd"] == "hello":
            reply.update(protocol=PROTOCOL, board="fake", rules="standard", firmware="0", rules_checksum="0" * 8)
        elif request["cmd"] == "remote":  # as a board with no Wi-Fi answers (the watch asks after a problem)
            reply.update(ok=False, error="no_network", message="this board has no Wi-Fi")
        else:
            reply["state"] = state["now"]
        return json.dumps(reply).encode() + b"\n"
    return FakeDevice(answer)


@pytest.mark.board_may_lie  # its fake board leaves fields out on purpose
def test_a_reply_the_page_cannot_show_is_reported_and_the_watch_goes_on():
    state = {"now": dict(EMPTY, leds="not hex")}
    board = board_answering(state)
    frames = []
    watch = Watch(board.path, frames.append, timeout=1.0)
    watch.start()
    try:
        deadline = Deadline(10)
        # the link checks the reply against the protocol's schema before the page draws it
        odd = "its reply to state that does not fit the protocol"
        while not any(odd in (f["problem"] or "") for f in frames) and not deadline.passed():
            time.sleep(0.05)
        problem = [f for f in frames if f["problem"] and odd in f["problem"]][0]
        assert problem["svg"] is None and "leds" in problem["problem"]
        state["now"] = EMPTY  # the board is sane again: the watch, still running, shows it
        while not any(f["svg"] for f in frames) and not deadline.passed():
            time.sleep(0.05)
        assert frames[-1]["svg"] and frames[-1]["problem"] is None
    finally:
        watch.stop()
        board.close()
