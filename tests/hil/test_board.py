"""A board through its serial link and its world only: the simulator, or a real one (--port)."""

import base64
import binascii
import json
import random
import time

from doce.game import WHITE, Game
from doce.referee import referee
from doce.link import MAX_LINE
from doce_host.link import PROTOCOL, chunks
from doce_host.rules import load, compile_tables, load_tables, validate
from test_match import MATCH
from casebook import piece_of


def test_hello_and_a_full_state(board):
    hello = board.link.hello()
    assert hello["protocol"] == PROTOCOL and hello["rules"] == "standard"
    state = board.link.state()
    assert state["mode"] == "playing" and state["to_move"] == "white" and state["board"] == {}


def test_a_whole_match_scores_as_the_referee_does(board):
    recorded = [m for round_moves in MATCH for m in round_moves]
    expected = [e for e in referee(Game(load_tables("standard"), WHITE), recorded) if "move" not in e]
    got = []
    for number, round_moves in enumerate(MATCH, 1):
        for move in round_moves:
            assert board.put(move["cell"], piece_of(move))["event"] == "placed"
        end, _ = board.link.wait_for("round_end")
        got.append(end)
        if number == 4:
            got.append(board.link.wait_for("match_end")[0])
        else:
            board.clear()
            board.link.wait_for("round_start")
    for e in got:
        e.pop("event")
        e.pop("seq")
    assert got == expected


def test_every_illegal_situation_gets_its_reason_and_is_corrected(board):
    assert board.put("c3", "white 4")["event"] == "placed"
    assert board.put("a1", "black 2")["event"] == "placed"
    cases = [("d4", "white 1", "no_play_zone"), ("e5", "black 1", "not_your_turn")]
    for cell, piece, reason in cases:
        assert board.put(cell, piece)["reason"] == reason
        board.world.lift(cell)
        board.link.wait_for("corrected")
    board.world.lift("c3")
    assert board.answer("c3")["reason"] == "lifted"
    board.world.place("c3", "white 4")
    board.link.wait_for("corrected")
    board.world.slide("c3", "c4")
    assert board.answer("c4")["reason"] == "moved"
    board.world.slide("c4", "c3")
    board.link.wait_for("corrected")
    assert board.put("e1", "white blocker")["event"] == "placed"
    assert board.put("e2", "white blocker")["reason"] == "no_blocker"
    board.world.lift("e2")
    board.link.wait_for("corrected")


def test_a_host_that_reconnects_mid_game_needs_only_state(board):
    board.put("c3", "white 4")
    board.put("a1", "black 2")
    before = board.link.state()
    link = board.connect()  # a new connection: say, the monitor was restarted
    assert link.state() == before
    board.put("e5", "white 1")
    assert link.state()["board"]["e5"] == "white 1"


def test_rules_pushes_good_corrupt_and_cut_midway(board):
    short = load("standard")
    short.update(name="short-match", rounds=2)
    validate(short)
    blob = compile_tables(short)
    assert board.link.push_rules(blob)["ok"]
    assert board.link.hello()["rules"] == "short-match"
    damaged = bytearray(load_tables("standard").blob)
    damaged[100] ^= 1  # a bit flipped on the way
    assert board.link.request("rules_begin", size=len(damaged), checksum="%08x" % binascii.crc32(blob))["ok"]
    for request in chunks(bytes(damaged)):  # in the host's own chunks: each line fits the board's
        assert board.link.request(request.pop("cmd"), **request)["ok"]
    assert board.link.request("rules_commit")["error"] == "checksum_mismatch"
    standard = load_tables("standard").blob
    board.link.request("rules_begin", size=len(standard), checksum="%08x" % binascii.crc32(standard))
    board.link.request("rules_chunk", offset=0, data=base64.b64encode(standard[:96]).decode())
    board.connect()  # the cable is pulled and put back: the transfer is over
    assert board.link.request("rules_commit")["error"] in ("no_transfer", "incomplete")
    assert board.link.hello()["rules"] == "short-match"  # the good push stands


def test_a_power_cut_and_resume(board):
    board.put("c3", "white 4")
    board.put("a1", "black 2")
    before = board.link.state()
    board.link.close()
    board.world.cut_power()
    board.world.power_on()
    board.link = None
    board.connect_once_booted()
    after = board.link.state()
    assert after["board"] == before["board"] and after["to_move"] == before["to_move"]
    assert board.put("e5", "white 1")["event"] == "placed"


def test_two_thousand_malformed_lines_change_nothing(board):
    """Sent as a host may: never more unanswered than one line's worth (MAX_LINE), which the
    board's 260-byte receive buffer holds however busy it is (docs/protocol.md)."""
    board.put("c3", "white 4")
    before = board.link.state()
    rng = random.Random(5)
    pieces = [b"{", b"}", b'"cmd"', b":", b'"new_match"', b'"first"', b'"red"', b"null", b"[", b"]", b",",
              b'"rules_commit"', b'"brightness"', b'"value"', b"-1", b"\xff", b"\x00", b" ", b"true"]
    answered = sent = 0
    batch = []
    while sent < 2000:
        line = b"".join(rng.choice(pieces) for _ in range(rng.randint(1, 10)))
        if sum(len(b) + 1 for b in batch) + len(line) + 1 > MAX_LINE:
            board.link.serial.write(b"\n".join(batch) + b"\n")
            answered += count_replies(board.link, len(batch))
            batch = []
        batch.append(line)
        sent += 1
    board.link.serial.write(b"\n".join(batch) + b"\n")
    answered += count_replies(board.link, len(batch))
    assert answered == 2000
    after = board.link.state()
    assert after == before


def count_replies(link, n, timeout=10):
    """Read until `n` replies have come back (each malformed line gets exactly one)."""
    got = 0
    deadline = time.monotonic() + timeout
    while got < n and time.monotonic() < deadline:
        for message in link._messages():
            if "re" in message:
                assert not message["ok"] or message["re"] in ("state", "hello"), message
                got += 1
    return got


def test_json_lines_are_what_the_board_sends(board):
    """Every byte the board sends is a line of strict JSON: UTF-8, an object, no NaN or
    Infinity, within the line limit. Read raw, so nothing is skipped as the host does."""
    board.put("c3", "white 4")
    board.link.send_line(b'{"cmd": "state", "id": "x"}')
    raw, deadline = board.link.pending, time.monotonic() + 10  # lines the link had read, but not yet split
    while b'"re": "state"' not in raw and time.monotonic() < deadline:
        raw += board.link.serial.read(board.link.serial.in_waiting or 1)
    while not raw.endswith(b"\n") and time.monotonic() < deadline:
        raw += board.link.serial.read(1)
    lines = raw.split(b"\n")
    assert lines.pop() == b""  # ended with its newline
    assert not any(line.endswith(b"\r") for line in lines)  # written raw: no \r the link did not count

    def no_constant(name):
        raise AssertionError("%s is not JSON" % name)

    messages = [json.loads(line.decode("utf-8", "strict"), parse_constant=no_constant) for line in lines]
    assert all(isinstance(m, dict) for m in messages)
    reply = messages[-1]
    assert reply["re"] == "state" and reply["id"] == "x" and reply["ok"]
    assert reply["state"]["board"]["c3"] == "white 4"
