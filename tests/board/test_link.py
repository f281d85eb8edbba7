"""The link protocol against the real firmware: every command, and bad input of every kind."""

import binascii
import json
import random

import pytest

from doce.link import MAX_LINE, PROTOCOL
from doce_host import rules
from doce_host.link import begin, chunks, encode
from hands import ask, events, play, send_raw
from casebook import expand


def test_hello_names_the_protocol_firmware_board_and_rules(sim):
    r = ask(sim, "hello", id=3)
    assert r["ok"] and r["id"] == 3 and r["re"] == "hello"
    assert r["protocol"] == PROTOCOL and r["firmware"] and r["board"].startswith("DOCE board")
    assert (r["rules"], r["rules_checksum"]) == ("standard", "%08x" % rules.load_tables("standard").checksum)


def test_a_cr_inside_a_string_ends_the_line_there_and_neither_half_is_a_command(sim):
    play(sim, [expand(m) for m in ("W c3 4", "B a1 2")])
    before = ask(sim, "state")["state"]
    replies = send_raw(sim, b'{"cmd": "new\r_round"}\n')  # (MicroPython's parser would take a raw CR in it)
    assert [r["error"] for r in replies] == ["bad_json", "bad_json"]
    assert ask(sim, "state")["state"] == before


def test_a_line_ends_at_lf_cr_lf_or_cr_alone_as_docs_protocol_says(sim):
    """Issue 41, 7: a CR before the LF is no byte of the line: a blank CR LF line is no line, a
    request of MAX_LINE bytes ends CR LF fits, and a CR alone (a terminal's Enter) ends a line."""
    hello = b'{"cmd":"hello","id":"%s"}'
    assert send_raw(sim, b"\r\n") == [] and send_raw(sim, b"\n") == []
    longest = hello.replace(b"%s", b"x" * (MAX_LINE - len(hello) + 2))
    assert len(longest) == MAX_LINE
    for end in (b"\n", b"\r\n", b"\r"):
        r = send_raw(sim, longest + end)
        assert [(x["re"], x["ok"]) for x in r] == [("hello", True)], (end, r)
    r = send_raw(sim, hello % b"1" + b"\r" + hello % b"2" + b"\r\n\r\n" + hello % b"3" + b"\n")
    assert [(x["re"], x["id"]) for x in r] == [("hello", "1"), ("hello", "2"), ("hello", "3")]
    r = send_raw(sim, longest + b"x\r\n")  # one byte over is still too long, and refused once
    assert [x["error"] for x in r] == ["line_too_long"]


def test_state_is_a_full_snapshot(sim):
    play(sim, [expand(m) for m in ("W c3 4", "B a1 b", "B e5 2")])
    s = ask(sim, "state")["state"]
    assert s["board"] == {"c3": "white 4", "a1": "black blocker", "e5": "black 2"}
    assert s["to_move"] == "white" and s["round"] == 1 and s["mode"] == "playing"
    assert sorted(s["zones"]["white"]) == ["b2", "b3", "b4", "c2", "c4", "d2", "d3", "d4"]
    assert sorted(s["zones"]["black"]) == ["d4", "d5", "e4"]
    assert s["last"] == {"white": "c3", "black": "e5"}
    assert s["blockers_left"] == {"white": 1, "black": 0} and s["dice_left"] == {"white": 10, "black": 10}
    assert s["scores"] == [] and s["totals"] == {"white": 0, "black": 0} and s["problems"] == {}
    sim.place("d4", "white 1")  # in white's zone
    assert ask(sim, "state")["state"]["problems"] == {"d4": "no_play_zone"}


def test_state_shows_the_lights_what_the_sensors_see_and_the_won_line(sim):
    play(sim, [expand(m) for m in ("W a1 2", "B a5 1")])
    s = ask(sim, "state")["state"]
    strip = bytes.fromhex(s["leds"])
    assert [tuple(strip[i:i + 3]) for i in range(0, len(strip), 3)] == sim.leds()  # as the strip got them
    assert s["seen"] == {} and "round_end" not in s and s["animated"] is False
    sim.place("b2", "white 1")  # in white's zone: seen, but not part of the game
    s = ask(sim, "state")["state"]
    assert s["seen"] == {"b2": "white 1"} and "b2" not in s["board"]
    assert s["animated"] is True  # the problem blinks
    sim.hover("b2", 2)  # left on the well's rim, not just being handled
    sim.run(sim.quiet + sim.debounce)
    assert ask(sim, "state")["state"]["seen"] == {"b2": "unreadable"}
    sim.lift("b2")
    sim.lift("a1")  # a piece of the game gone
    assert ask(sim, "state")["state"]["seen"] == {"a1": None}
    sim.place("a1", "white 2")
    play(sim, [expand(m) for m in ("W c1 4", "B c5 1", "W e3 1", "B e5 1", "W b1 3", "B a3 1", "W d1 3")])
    s = ask(sim, "state")["state"]
    assert s["mode"] == "clearing" and s["round_end"] == {
        "round": 1, "result": "white", "reason": "line", "lines": [["a1", "b1", "c1", "d1"]],
        "points": {"white": 35, "black": 0}}
    sim.lift("e3")
    assert ask(sim, "state")["state"]["seen"] == {"e3": None}  # cleared away, the line still shown


def test_a_board_just_booted_does_not_report_its_dice_missing(sim):
    play(sim, [expand(m) for m in ("W a1 2", "B a5 1")])
    sim.power_on(settle=False)  # the dice stay; the sensors have not settled yet
    assert ask(sim, "state")["state"]["seen"] == {}
    sim.settle()
    assert ask(sim, "state")["state"]["seen"] == {} and events(sim, "illegal") == []
    sim.lift("a5")  # taken while the board was off: the first look finds it gone
    sim.power_on()
    sim.settle()
    assert ask(sim, "state")["state"]["seen"] == {"a5": None}


def test_events_are_numbered_without_gaps(sim):
    play(sim, [expand(m) for m in ("W c3 4", "B a1 2")])
    sim.place("b2", "white 1")
    seqs = [e["seq"] for e in sim.take_events()]
    assert seqs == list(range(1, len(seqs) + 1)) and len(seqs) >= 4
    assert ask(sim, "state")["seq"] == seqs[-1]  # a host that missed one sees where to resume


def test_new_match_new_round_and_brightness(sim):
    play(sim, [expand(m) for m in ("W c3 4", "B a1 2")])
    assert ask(sim, "new_round")["ok"]
    assert ask(sim, "state")["state"]["mode"] == "clearing"
    sim.lift("c3")
    sim.lift("a1")
    s = ask(sim, "state")["state"]
    assert s["mode"] == "playing" and s["board"] == {} and s["to_move"] == "white"
    sim.power_on()  # the restart was journaled
    sim.settle()
    assert ask(sim, "state")["state"]["board"] == {}
    assert ask(sim, "new_match", first="black")["ok"]
    assert ask(sim, "state")["state"]["to_move"] == "black"
    bright = sim.leds()[25]
    assert ask(sim, "brightness", value=0.5)["ok"]
    sim.run(2)
    assert sum(sim.leds()[25]) < sum(bright) and ask(sim, "state")["state"]["brightness"] == 0.5


def push(sim, blob, force=False, crc=None):
    """A rules push as the host sends it (doce_host.link's chunks)."""
    request = begin(blob)
    if crc is not None:
        request["checksum"] = "%08x" % crc
    r = ask(sim, **request)
    assert r["ok"], r
    for request in chunks(blob):
        r = ask(sim, request.pop("cmd"), **request)
        assert r["ok"], r
    return ask(sim, "rules_commit", force=force)


def variant(**changes):
    r = rules.load("standard")
    r.update(changes)
    rules.validate(r)
    return rules.compile_tables(r)


def test_a_rules_push_swaps_the_tables_whole(sim):
    blob = variant(name="short-match", rounds=2)
    r = push(sim, blob)
    assert r["ok"] and r["rules"] == "short-match"
    assert ask(sim, "state")["state"]["rounds"] == 2
    sim.power_on()  # the new tables are on the board's flash
    assert ask(sim, "hello")["rules"] == "short-match"
    pulled = binascii.a2b_base64(ask(sim, "rules_get")["tables"])
    assert pulled == blob


def test_a_corrupt_or_unfitting_push_keeps_the_old_rules(sim):
    blob = variant(name="short-match", rounds=2)
    assert push(sim, blob, crc=binascii.crc32(blob[:-4]) ^ 1)["error"] == "checksum_mismatch"
    six = rules.load_tables("six-by-six").blob
    assert push(sim, six)["error"] == "wrong_grid"
    damaged = bytearray(blob)
    damaged[-1] ^= 0xFF  # its own checksum no longer matches: not tables at all
    assert push(sim, bytes(damaged))["error"] == "bad_tables"
    assert ask(sim, "hello")["rules"] == "standard"


def test_a_push_cut_midway_changes_nothing(sim):
    blob = variant(name="short-match", rounds=2)
    assert ask(sim, **begin(blob))["ok"]
    assert ask(sim, "rules_chunk", offset=0, data=binascii.b2a_base64(blob[:100]).decode().strip())["ok"]
    assert ask(sim, "rules_commit")["error"] == "incomplete"
    assert ask(sim, "rules_commit")["error"] == "no_transfer"  # that transfer is over
    assert ask(sim, **begin(blob))["ok"]
    sim.power_on()  # the cable is pulled: a transfer does not survive
    assert ask(sim, "rules_commit")["error"] == "no_transfer"
    assert ask(sim, "hello")["rules"] == "standard"


def test_rules_do_not_change_mid_round_unless_forced(sim):
    play(sim, [expand("W c3 4")])
    blob = variant(name="short-match", rounds=2)
    assert push(sim, blob)["error"] == "mid_round"
    assert ask(sim, "hello")["rules"] == "standard" and ask(sim, "state")["state"]["board"] == {"c3": "white 4"}
    assert push(sim, blob, force=True)["ok"]
    assert ask(sim, "state")["state"]["mode"] == "clearing"  # a new match, once the board is clear


@pytest.mark.parametrize("line, error", [
    (b"garbage\n", "bad_json"),
    (b"\xff\xfe\x00\n", "bad_json"),
    (b"[1, 2]\n", "bad_json"),
    (b"{}\n", "bad_request"),
    (b'{"cmd": 5}\n', "bad_request"),
    (b'{"cmd": "dance"}\n', "unknown_command"),
    (b'{"cmd": "new_match", "first": "red"}\n', "bad_argument"),
    (b'{"cmd": "brightness", "value": "max"}\n', "bad_argument"),
    (b'{"cmd": "brightness", "value": 7}\n', "bad_argument"),
    (b'{"cmd": "rules_begin", "size": -1, "checksum": "00000000"}\n', "bad_argument"),
    (b'{"cmd": "rules_begin", "size": 10, "checksum": "zz"}\n', "bad_argument"),
    (b'{"cmd": "rules_chunk", "offset": 0, "data": "AAAA"}\n', "no_transfer"),
    (b"x" * 1100 + b"\n", "line_too_long"),
    # what strict JSON refuses and MicroPython's parser takes: no command may come of it
    (b'{"cmd": "new_round", "id": "\\a"}\n', "bad_json"),
    (b'{"cmd": "new_round", "id": "\\x41"}\n', "bad_json"),
    (b'{"cmd": "new_round", "id": "\\U0041"}\n', "bad_json"),
    (b'{"cmd": "new_round", "id": "\\\'"}\n', "bad_json"),
    (b'{"cmd": "new_round", "id": "\\u00zz"}\n', "bad_json"),
    (b'{"cmd": "new_round", "id": 01}\n', "bad_json"),
    (b'{"cmd": "new_round", "id": 1.}\n', "bad_json"),
    (b'{"cmd": "new_round", "id": -}\n', "bad_json"),
    (b'{"cmd": "new_round", "id": 1e}\n', "bad_json"),
    (b'{"cmd": "new_round", "id": tru}\n', "bad_json"),
    # ... nested, where a lenient parse would start a match against the board and end this one
    (b'{"cmd": "new_match", "opponent": {"colour": "black", "level": 01}}\n', "bad_json"),
    (b'{"cmd": "new_match", "opponent": {"colour": "black", "level": 1,}}\n', "bad_json"),
    (b'{"cmd": "new_match", "opponent": {"colour": "black",, "level": 1}}\n', "bad_json"),
    (b'{"cmd": "new_match", "opponent": {"colour" "black", "level": 1}}\n', "bad_json"),
    (b'{"cmd": "new_match", "opponent": {"colour": "bl\\ack", "level": 1}}\n', "bad_json"),
    (b'{"cmd": "new_match", "opponent": {"colour": "black", "level": 1.}}\n', "bad_json"),
    (b'{"cmd": "new_match", "opponent": {"colour": "black", "level": [1,,]}}\n', "bad_json"),
    (b'{"cmd": "new_match", "opponent": {"colour": "black", "level": [tru]}}\n', "bad_json"),
    (b'{"cmd": "new_match", "opponent": [[[[[1]]]]]}\n', "bad_json"),
    (b'{"cmd": "new_match", "opponent": {"colour": "black", "colour": "white", "level": 1}}\n', "bad_json"),
    (b'{"cmd": "new_round", "id": [{"a": 1, "a": 2}]}\n', "bad_json"),
    (b'{"cmd": "state", "id": "' + b"x" * MAX_LINE + b'"}\n', "line_too_long"),
])
def test_bad_input_gets_an_error_and_changes_nothing(sim, line, error):
    play(sim, [expand(m) for m in ("W c3 4", "B a1 2")])
    before = ask(sim, "state")["state"]
    replies = send_raw(sim, line)
    assert [r["error"] for r in replies] == [error] and not replies[0]["ok"] and replies[0]["message"]
    assert ask(sim, "state")["state"] == before


READ_ONLY = {"ok state", "ok hello", "ok rules_get", "ok rules_abort"}
ANY_BYTE_BUT_CTRL_C_OR_NEWLINE = [b for b in range(256) if b not in (3, 10)]
HARMLESS = [b'"cmd"', b'"state"', b'"hello"', b'"rules_get"', b'"id"', b"{", b"}", b":", b",", b"[", b"]", b"1e999",
            b'"\xc3\xa9"', b'"frist"', b" "]  # a burst's bytes: dropped ones must not splice into a move


def test_ten_thousand_malformed_inputs_change_nothing(sim):
    play(sim, [expand(m) for m in ("W c3 4", "B a1 2")])
    before = ask(sim, "state")["state"]
    events(sim)
    rng = random.Random(11)
    pieces = [b"{", b"}", b'"cmd"', b":", b'"state"', b'"new_match"', b'"first"', b'"red"', b"null",
              b"[", b"]", b",", b"1e99", b'"\\u0000"', b"\x00", b"\xff", b"\r", b" ", b'"rules_chunk"',
              b'"brightness"', b'"value"', b"-1", b'"rules_commit"', b'"reboot_"', b"true",
              # issue 14: nesting, numbers no JSON holds, text that is not UTF-8, arguments no command takes
              b"[[[[[[", b'{"a":{"b":', b"1e999", b"-1e999", b"NaN", b"Infinity", b'"id"',
              b"\xc0\xaf", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xe2\x82", b'"\\ud800"', b'"\\uDFFF"',
              b'"\xc3\xa9"', b'"frist"', b'"force"', b'"on"', b'"data"', b'"offset"', b'"new_round"']
    sent = replies = 0
    batch = bytearray()
    while sent < 10000:
        line = b"".join(rng.choice(pieces) for _ in range(rng.randint(0, 12)))
        if rng.random() < 0.05:  # any bytes but Ctrl-C, which stops the app for the REPL (as on a board)
            line = bytes(rng.choice(ANY_BYTE_BUT_CTRL_C_OR_NEWLINE) for _ in range(rng.randint(1, 40)))
        batch += line + b"\n"
        sent += 1
        if len(batch) > 800 or sent == 10000:
            # paced: each line once the one before is answered, as a host sends them
            counts = sim.command(do="send", hex=bytes(batch[:-1]).hex(), summary=True, paced=True)["link_summary"]
            for kind, n in counts.items():
                replies += n
                assert not kind.startswith("ok ") or kind in READ_ONLY, counts
            batch = bytearray()
    assert replies >= 9000  # nearly every line gets an answer (blank lines get none)
    # bursts at once, no waiting for replies: larger than the port's 260-byte ring, a line and the
    # board's 4 KB rules buffer, asking for more than its 1 KB and 8 KB output limits (12 states of
    # 800 bytes and more): bytes are dropped, the board goes on.
    for size in (300, 1500, 4500):
        burst = bytearray(b'{"cmd":"state"}\n' * 12)
        while len(burst) < size:
            burst += b"".join(rng.choice(HARMLESS) for _ in range(rng.randint(0, 30))) + b"\n"
        counts = sim.command(do="send", line=burst.decode(), summary=True)["link_summary"]
        late = sim.run(2000).get("link", [])  # what the ring still held once the replies were out
        late += send_raw(sim, b'\n{"cmd":"hello","id":"after"}\n')  # a host ends any partial line, resyncs by id
        assert late[-1].get("id") == "after" and late[-1]["ok"], (size, late, counts)
        assert sum(counts.values()) and all(not k.startswith("ok ") or k in READ_ONLY for k in counts), counts
        assert all(not r["ok"] or "ok " + r["re"] in READ_ONLY for r in late), late
    sim.run(5)
    assert ask(sim, "state")["state"] == before
    assert events(sim, "placed") == [] and events(sim, "new_match") == []


# -- the link against a port as strict as the ESP32's (doce_host/sim/device/serial_port.py) --

FLASH_ERASE_MS = 45  # a 4 KB sector erase, typical (Winbond W25Q32JV datasheet, AC characteristics, tSE)


def port(sim):
    """What the simulated serial port went through since last asked: dropped bytes, waits."""
    return sim.command(do="port")


def test_a_line_longer_than_the_ring_sent_while_the_board_is_busy_loses_bytes(sim):
    port(sim)
    line = encode({"cmd": "state", "id": "x" * 500})  # no host sends this: too long for the ring
    replies = sim.command(do="send", line=line.decode() + "\n", busy_ms=FLASH_ERASE_MS).get("link", [])
    assert port(sim)["dropped"] > 0
    assert all(r["re"] != "state" for r in replies)  # what was left of it is not a request


def test_every_line_of_a_rules_push_fits_while_the_board_is_busy(sim):
    """The host's own lines, each sent while the board erases flash: none loses a byte."""
    blob = variant(name="short-match", rounds=2)
    port(sim)
    requests = [begin(blob)]
    requests += list(chunks(blob)) + [{"cmd": "rules_commit", "id": 1 << 30}]
    for request in requests:
        line = encode(request)
        assert len(line) <= MAX_LINE
        replies = sim.command(do="send", line=line.decode() + "\n", busy_ms=FLASH_ERASE_MS)["link"]
        assert [r["ok"] for r in replies] == [True], replies
    assert port(sim)["dropped"] == 0
    assert ask(sim, "hello")["rules"] == "short-match"


def test_a_long_reply_goes_out_in_parts_and_never_holds_the_scan(sim):
    play(sim, [expand(m) for m in ("W c3 4", "B a1 2", "W a5 3", "B e1 5")])
    sim.place("b2", "white 1")  # a problem too: the state grows
    port(sim)
    line = json.dumps({"cmd": "state", "id": 9}) + "\n"
    replies = sim.command(do="send", line=line)["link"]
    assert len(json.dumps(replies[0])) > 800  # far more than the 128-byte FIFO
    assert port(sim)["longest_hold_us"] == 0  # written as the FIFO drains: the loop never waited
    seqs = [e["seq"] for e in sim.take_events()]
    assert seqs == sorted(seqs)


def test_a_host_that_floods_the_board_gets_each_line_answered_or_refused(sim):
    """3 KB at once, no waiting for replies: the board reads on (it no longer leaves the bytes in
    the ring while its replies go out), so none is lost; past 1 KB of output a request is refused
    with busy. A flood past what its output buffer holds: tests/board/test_link_bursts.py."""
    play(sim, [expand(m) for m in ("W c3 4", "B a1 2")])
    before = ask(sim, "state")["state"]
    port(sim)
    flood = '{"cmd": "hello"}\n' * 60 + "x" * 2000 + "\n"
    counts = sim.command(do="send", line=flood, summary=True)["link_summary"]
    assert port(sim)["dropped"] == 0
    assert counts.get("ok hello", 0) + counts.get("busy", 0) == 60 and counts.get("ok hello") and counts.get("busy")
    assert counts.get("line_too_long") == 1 and sum(counts.values()) == 61, counts
    assert ask(sim, "state")["state"] == before


@pytest.mark.parametrize("line", [
    b'\r {"cmd""new_match""new_match"',  # from the fuzz test on v1.24: it started a new match
    b'{"cmd" "new_match" "first" "black"}',  # no colons: 1.28's json.loads takes it
    b'{"cmd": "new_match"',  # no closing brace: v1.24's takes it
    b'{"cmd": "new_match", "first"}',
    b'{"cmd": "new_match", : "white"}',
    b'{"cmd": "new_round",}',
    b'{"cmd": "new_round",,}',
    b'{"cmd": "new_round"} {"cmd": "new_match"}',
    b'{"cmd": "new_round"}}',
    b'{"cmd": "new_round", "cmd": "new_match"}',
    b'{"cmd": "new_match" "first": "black"}',
    b'{"cmd": "new_match", "first": "black" "id": 1}',
    b'{"cmd": "new_round", "x": ' + b"[" * 200,
    b'{"cmd": "new_round", "x": [[[[[[1]]]]]]}',
    b' {"cmd": "new_round" ',
    b'"cmd": "new_round"}',
])
def test_a_line_that_is_not_one_json_object_is_no_command(sim, line):
    play(sim, [expand(m) for m in ("W c3 4", "B a1 2")])
    before = ask(sim, "state")["state"]
    replies = send_raw(sim, line + b"\n")
    assert [(r["ok"], r["error"]) for r in replies] == [(False, "bad_json")] or \
        [r["error"] for r in replies] == ["line_too_long"]
    assert ask(sim, "state")["state"] == before
    assert events(sim, "new_match") == [] and ask(sim, "hello")["ok"]


def test_a_strict_line_with_spaces_and_nesting_is_a_request(sim):
    r = send_raw(sim, b'  {  "cmd" :"hello" , "id":\t7 }  \r\n')
    assert len(r) == 1 and r[0]["ok"] and r[0]["id"] == 7 and r[0]["protocol"] == PROTOCOL
    r = send_raw(sim, b'{"cmd": "hello", "id": [1, {"a": "}"}]}\n')  # one object, parsed; a list is no id
    assert [(x["re"], x["error"], "id" in x) for x in r] == [("hello", "bad_argument", False)]
    r = send_raw(sim, b'{"cmd": "hello", "id": 1e999}\n')  # inf would not be JSON
    assert [(x["error"], "id" in x) for x in r] == [("bad_argument", False)]


def test_remote_on_a_board_without_wifi_is_no_network_and_loads_no_network_code():
    """The Linux target has no Wi-Fi (link.network is None): `remote` must say so in one reply,
    not load doce/pairing.py, nor any of the network's modules (umqtt, network)."""
    import sys

    from doce.link import Link
    sent = []
    link = Link(None, None, None, None, None)
    link.send = sent.append
    before = set(sys.modules)
    line = b'{"cmd": "remote", "peer": "ben", "colour": "white", "match": "7f3a01c2"}'
    link.handle(bytearray(line), len(line))
    assert [(r["ok"], r["error"]) for r in sent] == [(False, "no_network")]
    network = {"doce.pairing", "doce.remote", "doce.net", "doce.mqtt", "doce.wifi", "doce.outbox", "doce.netconfig",
               "doce.tls_paced"}
    assert not network & (set(sys.modules) - before)


def test_a_restart_waits_for_its_reply_to_leave_the_broker_pipe_at_most_reboot_wait_ms():
    """An update switched to, or a reboot, restarts the board once its reply has gone out: over MQTT that is the
    session's pipe (doce/mqtt.py Pipe.out) handed to the socket, not only the USB backlog; an ESP32's restart stops
    the Wi-Fi, and a reply still in the pipe dies with it. A broker that takes nothing holds the restart at most
    REBOOT_WAIT_MS (the time doce fleet update waits for a reply), never for ever."""
    import types

    from doce.link import REBOOT_WAIT_MS, Link
    link = Link(None, None, None, None, None)
    pipe = types.SimpleNamespace(out=bytearray(b"\x30\x20 the commit's reply"))
    link.net = types.SimpleNamespace(pipe=pipe)
    assert not link.reboot_due(0)  # nothing asked
    link.reboot_asked = True
    link.backlog = 12
    assert not link.reboot_due(0)  # the USB backlog first
    link.backlog = 0
    assert not link.reboot_due(1000) and not link.reboot_due(1000 + REBOOT_WAIT_MS - 1)  # the pipe holds the reply
    pipe.out[:] = b""
    assert link.reboot_due(1000 + REBOOT_WAIT_MS - 1)  # handed to the socket
    held = Link(None, None, None, None, None)
    held.net, held.reboot_asked = types.SimpleNamespace(pipe=types.SimpleNamespace(out=b"stuck")), True
    assert not held.reboot_due(5) and held.reboot_due(5 + REBOOT_WAIT_MS)  # a broker that takes nothing: bounded
    usb = Link(None, None, None, None, None)
    usb.reboot_asked = True
    assert usb.reboot_due(0)  # no broker set up: the USB backlog alone
