"""docs/protocol.schema.json: the one description of every message, held to the document,
the firmware, and the check every test run makes of what the board sends."""

import json
import re
from pathlib import Path

import jsonschema
import pytest
from protocol_check import Checked

from doce import link
from doce_host.protocol import problem, schema

ROOT = Path(__file__).resolve().parent.parent
FIRMWARE_SOURCES = ROOT / "firmware" / "doce"


def examples():
    """Every JSON object the protocol document shows, whole (those abbreviated with ... are left out)."""
    text = (ROOT / "docs" / "protocol.md").read_text()
    blocks = re.findall(r"(?:^    .*\n)+", text, re.M) + re.findall(r"`(\{.*?\})`", text)
    found = []
    decoder = json.JSONDecoder()
    for block in blocks:
        i = block.find("{")
        while i >= 0:
            try:
                obj, end = decoder.raw_decode(block, i)
            except ValueError:
                i = block.find("\n    {", i + 1)
                i = i + 5 if i >= 0 else -1
                continue
            if isinstance(obj, dict) and {"cmd", "re", "event"} & set(obj) and "..." not in json.dumps(obj):
                found.append(obj)
            i = block.find("{", end)
    return found


def test_the_schema_is_valid_json_schema():
    jsonschema.Draft202012Validator.check_schema(schema())


def test_every_whole_example_in_the_document_fits_the_schema():
    shown = examples()
    assert len(shown) >= 20  # the events table, the replies and requests
    for message in shown:
        kind = "request" if "cmd" in message else "from_board"
        assert problem(message, kind) is None, message
    kinds = {m.get("event") or m.get("re") or m.get("cmd") for m in shown}
    assert {"placed", "round_end", "match_end", "hello", "new_match"} <= kinds


def test_every_command_the_firmware_knows_is_in_the_schema():
    assert set(schema()["$defs"]["request"]["properties"]["cmd"]["enum"]) == set(link.COMMANDS)


def test_every_event_and_error_the_firmware_sends_is_in_the_schema():
    source = "\n".join(p.read_text() for p in FIRMWARE_SOURCES.glob("*.py"))
    events = set(re.findall(r'"event": "(\w+)"', source))
    assert len(events) >= 12
    assert events <= set(schema()["$defs"]["event"]["properties"]["event"]["enum"])
    errors = set(re.findall(r'(?:CommandError\(|error=|return \(?)"(\w+)",\s', source))
    errors -= {"white", "black"}  # player_argument's tuple, not an error
    assert {"bad_json", "no_transfer", "mid_round"} <= errors
    enum = schema()["$defs"]["reply"]["then"]["properties"]["error"]["enum"]
    assert errors <= set(enum), errors - set(enum)


@pytest.mark.parametrize("message, kind", [
    ({"event": "placed", "seq": 3}, "from_board"),  # no player, no cell
    ({"event": "placed", "player": "white", "cell": "c3", "value": 4, "blocker": True, "seq": 3}, "from_board"),
    ({"event": "placed", "player": "white", "cell": "f0", "value": 4, "seq": 3}, "from_board"),
    ({"event": "placed", "player": "white", "cell": "c3", "value": 4, "seq": 0}, "from_board"),
    ({"re": "state", "ok": False, "error": "oops", "message": "x"}, "from_board"),
    ({"re": "state", "ok": True, "error": "bad_json", "message": "x"}, "from_board"),
    ({"re": "hello", "ok": True, "protocol": 2}, "from_board"),
    ({"re": "net", "ok": True, "config": {"password": "secret", "password_set": True,
                                          "mqtt_password_set": False}}, "from_board"),
    ("placed c3", "from_board"),
    ({"re": "hello", "ok": True, "protocol": 2, "firmware": "0.1.0", "board": "b", "rules": "standard",
      "rules_checksum": "51e68463", "versus": {"colour": "red", "level": 3}}, "from_board"),
    ({"re": "hello", "ok": True, "protocol": 2, "firmware": "0.1.0", "board": "b", "rules": "standard",
      "rules_checksum": "51e68463", "versus": {"colour": "black", "level": 3, "move": None}}, "from_board"),
    ({"event": "versus", "versus": {"colour": "black"}, "seq": 4}, "from_board"),
    ({"cmd": "new_match", "frist": "black"}, "request"),
    ({"cmd": "rules_chunk", "offset": 0, "data": "not base64!"}, "request"),
])
def test_what_breaks_the_protocol_is_named(message, kind):
    assert problem(message, kind)


def test_the_run_wide_check_reports_a_board_that_breaks_the_protocol():
    checked = Checked()
    checked.check({"event": "placed", "player": "white", "cell": "c3", "value": 4, "seq": 1})
    checked.check({"event": "placed", "player": "grey", "cell": "c3", "value": 4, "seq": 2}, where="serial:")
    assert checked.count == 2
    assert len(checked.problems) == 1 and "player" in checked.problems[0] and "grey" in checked.problems[0]


def test_the_run_wide_check_sees_the_board_itself(sim, protocol_checked):
    sim.place("c3", "white 4")
    assert protocol_checked.count >= 2  # boot, round_start, placed... from the real firmware
    assert not protocol_checked.problems


def test_a_state_whose_versus_has_more_than_the_protocol_says_is_named():
    from doce_host.recorded import board_state
    from doce_host.rules import load_tables
    from doce.game import Game
    state = board_state(Game(load_tables("standard")))
    assert state["versus"] is None  # a replay is a match for two
    reply = {"re": "state", "ok": True, "seq": 1, "state": state}
    assert problem(reply, "from_board") is None
    state["versus"] = {"colour": "black", "level": 3, "move": None}
    assert problem(reply, "from_board") is None
    state["versus"] = {"colour": "black", "level": 3, "move": None, "thinking": True}
    assert problem(reply, "from_board")
    state["versus"] = {"colour": "black", "level": 3, "move": {"cell": "c4", "value": 5, "blocker": "b2"}}
    assert problem(reply, "from_board") is None
