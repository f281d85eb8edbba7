"""Issue 14, the board's side: each defect the hostile campaign found, through the real firmware
in the simulator (the MicroPython unix port)."""

import binascii
import json
import re
import struct
from pathlib import Path

import pytest

from doce import tables
from doce.link import COMMANDS
from doce_host import image, rules
from doce_host.link import begin, chunks
from doce_host.sim import SimBoard
from casebook import expand
from hands import ask, events, play, send_raw

ROOT = Path(__file__).resolve().parents[2]
NET_COMMANDS = {"wifi", "mqtt"}  # doce/netconfig.py checks their arguments itself


def push(sim, blob, force=False):
    r = ask(sim, **begin(blob))
    assert r["ok"], r
    for request in chunks(blob):
        r = ask(sim, request.pop("cmd"), **request)
        assert r["ok"], r
    return ask(sim, "rules_commit", force=force)


def standard_with(**fields):
    """The standard tables with header fields changed, their CRC made right again: bytes that
    arrive whole but make no sense."""
    blob = bytearray(rules.load_tables("standard").blob)
    for name, value in fields.items():
        blob[5 + tables.PARAMS.index(name)] = value  # after magic and version
    body = bytes(blob[:-4])
    return body + struct.pack("<I", binascii.crc32(body))


NONSENSE = [  # (field, value): the campaign's five, and the rest of each field's edge
    ("same_face_group", 0), ("rounds", 0), ("dice_per_player", 0), ("faces", 1), ("target", 0),
    ("faces", 7), ("rounds", 100), ("target", 25), ("no_play_radius", 8), ("flags", 4), ("grid", 16),
    ("blockers_per_player", 12),  # with 10 dice each: 44 pieces on 25 squares
]


# -- item 3: tables that pass their CRC but make no sense --------------------------------------

def test_nonsense_tables_with_a_good_checksum_are_refused_naming_the_field(sim):
    play(sim, [])
    for field, value in NONSENSE:
        blob = standard_with(**{field: value})
        r = push(sim, blob)
        expected = "dice_per_player" if field == "blockers_per_player" else field  # pieces that do not fit
        assert (r["ok"], r["error"]) == (False, "bad_tables") and expected in r["message"], (field, r)
    assert ask(sim, "hello")["rules"] == "standard"
    assert ask(sim, "state")["state"]["rounds"] == rules.load("standard")["rounds"]


def named(name):
    """The standard tables named `name` (bytes, UTF-8 or not), their CRC right."""
    blob = rules.load_tables("standard").blob
    at = struct.calcsize(tables.HEADER)  # the name follows the header's name length and line count
    body = blob[:at - 2] + bytes([len(name)]) + blob[at - 1:at] + name + blob[at + blob[at - 2]:-4]
    return body + struct.pack("<I", binascii.crc32(body))


@pytest.mark.parametrize("name", [b"st\xffndard", b"\xed\xa0\x80", b"../x", b"/abs/path", b"", b"\x1b[2J", b"-x",
                                  b"a" * 33])
def test_tables_named_what_no_rules_file_may_be_named_are_refused_saying_why(sim, name):
    assert tables.Tables(named(b"short-match")).name == "short-match"  # the helper makes good tables
    reply = push(sim, named(name))
    assert reply["error"] == "bad_tables" and "name" in reply["message"]
    assert ask(sim, "hello")["rules"] == "standard"


def test_a_board_with_nonsense_tables_stored_still_boots_on_the_installed_tables(tmp_path):
    files = image.app_files("standard", chip="host")  # native code for the unix port
    files["rules.doct"] = standard_with(same_face_group=0)  # stored by a firmware that checked less
    (tmp_path / "flash.img").write_bytes(image.build(files))
    with SimBoard(tmp_path) as sim:
        warnings = [e["message"] for e in sim.take_events() if e["event"] == "warning"]
        assert any("same_face_group" in w and "standard" in w for w in warnings), warnings
        assert ask(sim, "hello")["rules"] == "standard"
        play(sim, [expand(m) for m in ("W a1 2", "B a5 1", "W c1 4", "B c5 1", "W e3 1", "B e5 1",
                                        "W b1 3", "B a3 1", "W d1 3")])
        assert events(sim, "round_end")[0]["points"] == {"white": 35, "black": 0}  # the group of 3 divides


def test_the_host_compiler_and_the_board_check_the_same_ranges():
    """One set of ranges: the schema a rules file is checked against says what tables.LIMITS says."""
    schema = json.loads((ROOT / "rules" / "rules.schema.json").read_text())
    props = dict(schema["properties"], **schema["properties"]["scoring"]["properties"])
    for name, (low, high) in zip(tables.PARAMS, tables.LIMITS):
        if name in props:
            assert (props[name]["minimum"], props[name]["maximum"]) == (low, high), name
    standard = rules.load("standard")
    for field, value in [("target", 25), ("blockers_per_player", 12), ("faces", 7), ("rounds", 0)]:
        bad = dict(standard, scoring=dict(standard["scoring"]), **{field: value})
        with pytest.raises(rules.RulesError):
            rules.validate(bad)
        fields = rules.params(bad)
        assert tables.bad_field([fields[p] for p in tables.PARAMS]) in (field, "dice_per_player")


# -- item 7: the checksum rules_begin carries -------------------------------------------------

def test_the_rules_push_the_protocol_document_shows_is_accepted(sim):
    doc = (ROOT / "docs" / "protocol.md").read_text()
    line = re.search(r'\{"cmd": "rules_begin"[^}]*\}', doc).group(0)
    blob = rules.load_tables("standard").blob
    shown = json.loads(line)
    assert shown["size"] == len(blob)  # the document's example is the standard tables
    replies = send_raw(sim, line.encode() + b"\n")  # exactly the bytes the document shows
    assert replies[0]["ok"], replies
    for request in chunks(blob):
        assert ask(sim, request.pop("cmd"), **request)["ok"]
    r = ask(sim, "rules_commit", force=False)
    assert r["ok"] and r["rules_checksum"] == shown["checksum"]  # the one checksum hello reports


def test_a_checksum_that_is_not_the_tables_own_is_refused(sim):
    other = rules.compile_tables(dict(rules.load("standard"), name="short-match", rounds=2))
    assert ask(sim, "rules_begin", size=len(other), checksum="%08x" % binascii.crc32(other))["ok"]
    for request in chunks(other):
        assert ask(sim, request.pop("cmd"), **request)["ok"]
    r = ask(sim, "rules_commit")  # the old check: CRC of it all, which is the same for any tables
    assert r["error"] == "checksum_mismatch"
    assert ask(sim, "hello")["rules"] == "standard"


# -- item 2: a rules push never silently ends a match ------------------------------------------

WHITE_WINS_ROUND_1 = ("W a1 2", "B a5 1", "W c1 4", "B c5 1", "W e3 1", "B e5 1", "W b1 3", "B a3 1", "W d1 3")


def test_a_rules_push_is_refused_from_a_matchs_first_play_to_its_end_unless_forced(sim):
    blob = rules.compile_tables(dict(rules.load("standard"), name="short-match", rounds=2))
    play(sim, [expand(m) for m in WHITE_WINS_ROUND_1])
    assert ask(sim, "state")["state"]["totals"] == {"white": 35, "black": 0}
    r = push(sim, blob)  # the round is over, the board not yet cleared
    assert r["error"] == "mid_round" and "match" in r["message"]
    for cell in ("a1", "a5", "c1", "c5", "e3", "e5", "b1", "a3", "d1"):
        sim.lift(cell)
    s = ask(sim, "state")["state"]
    assert (s["round"], s["mode"], s["board"]) == (2, "playing", {})  # before round 2's first die
    assert push(sim, blob)["error"] == "mid_round"
    assert ask(sim, "state")["state"]["totals"] == {"white": 35, "black": 0}
    assert ask(sim, "hello")["rules"] == "standard"
    assert push(sim, blob, force=True)["ok"]  # forced: the match is given up
    assert ask(sim, "hello")["rules"] == "short-match"


def test_a_rules_push_before_a_matchs_first_play_is_accepted(sim):
    blob = rules.compile_tables(dict(rules.load("standard"), name="short-match", rounds=2))
    assert push(sim, blob)["ok"] and ask(sim, "state")["state"]["rounds"] == 2


# -- item 6: arguments no command takes ---------------------------------------------------------

@pytest.mark.parametrize("cmd", sorted(set(COMMANDS) - NET_COMMANDS))
def test_an_argument_no_command_takes_is_refused_naming_it(sim, cmd):
    play(sim, [expand(m) for m in ("W c3 4", "B a1 2")])
    before = ask(sim, "state")["state"]
    r = ask(sim, cmd, id=4, frist="black")
    assert (r["ok"], r["error"], r["id"]) == (False, "bad_argument", 4) and "frist" in r["message"]
    assert ask(sim, "state")["state"] == before and events(sim, "new_match") == []


def test_the_arguments_each_command_takes_are_the_schemas():
    schema = json.loads((ROOT / "docs" / "protocol.schema.json").read_text())["$defs"]["request"]
    for cmd, (_, takes) in COMMANDS.items():
        if cmd in NET_COMMANDS:
            continue
        allowed = [rule["then"]["propertyNames"]["enum"] for rule in schema["allOf"]
                   if cmd in rule["if"]["properties"]["cmd"].get("enum", [])
                   or cmd == rule["if"]["properties"]["cmd"].get("const")]
        assert allowed == [["cmd", "id", *takes]], cmd


# -- item 5: every line the board sends is strict JSON ------------------------------------------

@pytest.mark.parametrize("line", [
    b'{"cmd": "hello", "id": 1e999}',
    b'{"cmd": "hello", "id": -1e999}',
    b'{"cmd": "hello", "id": [1]}',
    b'{"cmd": "hello", "id": "\\ud800"}',
    b'{"cmd": "hello", "id": "\\uDFFF"}',
    b'{"cmd": "hello", "id": "\xc0\xaf"}',
    b'{"cmd": "hello", "id": "\xed\xa0\x80"}',
    b'{"cmd": "hello", "id": "\xf4\x90\x80\x80"}',
    b'{"cmd": "hello", "id": "\xe2\x82"}',
    b'{"cmd": "\xc0\xaf"}',
    b'{"cmd": "\\ud83d\\ude00"}',
    b'{"cmd": "hello", "id": "a\tb"}',
])
def test_an_id_or_text_that_would_not_come_back_as_json_is_refused(sim, line):
    replies = send_raw(sim, line + b"\n")  # a line that is not UTF-8 would stop the harness's reader
    assert len(replies) == 1 and replies[0]["ok"] is False and "id" not in replies[0], replies
    assert replies[0]["error"] in ("bad_json", "bad_argument")


def test_text_that_is_utf8_comes_back_as_it_went(sim):
    r = send_raw(sim, '{"cmd": "hello", "id": "é€😀 \\u00e9"}\n'.encode())
    assert r[0]["ok"] and r[0]["id"] == "é€😀 é"


# -- item 8: data that is not what it claims ---------------------------------------------------

@pytest.mark.parametrize("data", ["!!!!", "AAA", "A===", "", "QUJD\n", 12, ["QUJD"], "QUJD!"])
def test_a_chunk_that_is_not_base64_is_refused(sim, data):
    blob = rules.load_tables("standard").blob
    assert ask(sim, **begin(blob))["ok"]
    r = ask(sim, "rules_chunk", offset=0, data=data)
    assert r["error"] == "bad_argument" and "base64" in r["message"]
    assert ask(sim, "rules_chunk", offset=0, data="QUJD")["received"] == 3  # the transfer goes on


# -- item 4: nesting -------------------------------------------------------------------------

def test_deep_nesting_within_a_line_gets_one_reply_and_the_board_goes_on(sim):
    line = b'{"cmd":"state","x":' + b"[" * 180
    assert [r["error"] for r in send_raw(sim, line + b"\n")] == ["bad_json"]
    assert [r["error"] for r in send_raw(sim, b"[" * 199 + b"\n")] == ["bad_json"]
    assert ask(sim, "hello")["ok"]


def test_the_nesting_docs_protocol_shows_is_where_the_board_draws_the_line(sim):
    """docs/protocol.md's bad_json row shows the deepest request read and the shallowest refused;
    it said "nested more than 4 deep" with the request's own object left unsaid, one off either way."""
    doc = (ROOT / "docs" / "protocol.md").read_text()
    row = next(line for line in doc.splitlines() if line.startswith("| `bad_json` |"))
    read, refused = re.findall(r"`(\{\"cmd\": \"hello\"[^`]*\})`", row)
    assert [r["error"] for r in send_raw(sim, read.encode() + b"\n")] == ["bad_argument"]  # parsed: x is no field
    assert [r["error"] for r in send_raw(sim, refused.encode() + b"\n")] == ["bad_json"]


# -- item 15: a reading at the detection threshold -----------------------------------------------

def test_a_die_read_at_the_detection_threshold_is_reported_once_the_quiet_wait_passes(sim):
    spec = json.loads((ROOT / "hardware" / "board.json").read_text())
    assert sim.command(do="calibrate")["error"] is None  # each sensor's baseline, to the count
    centre = spec["squares"]["c3"][0]
    # a die half on c3: its centre sensor's mean right at the no-magnet threshold, so each read's
    # noise puts it one side or the other (the ring sensors see nothing)
    sim.command(do="sense", set=[centre, sim.hands.sent[centre] + spec["sensing"]["absent_below"]])
    sim.run(sim.quiet + 3 * sim.debounce)
    assert events(sim, "illegal") == [{"event": "illegal", "reason": "unreadable", "cells": ["c3"]}]
    s = ask(sim, "state")["state"]
    assert s["seen"] == {"c3": "unreadable"} and s["problems"] == {"c3": "unreadable"}
    sim.command(do="sense", set=[centre, sim.hands.sent[centre]])  # taken away
    sim.run(sim.quiet)
    assert events(sim, "corrected") and ask(sim, "state")["state"]["seen"] == {}


def test_the_threshold_hold_outlasts_the_adcs_noise():
    from doce.scanner import HOLD_BETWEEN
    spec = json.loads((ROOT / "hardware" / "board.json").read_text())
    noise = spec["physics"]["adc"]["noise_counts"]
    assert 2 * noise <= HOLD_BETWEEN < spec["sensing"]["absent_below"] - spec["sensing"]["baseline_spread"]
