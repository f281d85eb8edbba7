"""Rules files: a bad file is refused with a message naming the field and the reason."""

import json
import struct

import pytest

from doce import tables
from doce.tables import Tables
from doce_host import rules


def standard(**changes):
    r = rules.load("standard")
    for key, value in changes.items():
        if value is DELETE:
            r.pop(key)
        else:
            r[key] = value
    return r


DELETE = object()

BAD = [
    # (what is wrong, the rules object, words the message must contain)
    ("line longer than the grid", standard(line_length=6), "line_length: a line of 6 does not fit on a 5x5 grid"),
    ("target above any line", standard(target=30),
     "target: no line of 4 dice with faces 1-6 sums to 30 (possible: 4 to 24)"),
    ("target below any line", standard(target=3), "target: no line of 4 dice"),
    ("wrong type", standard(grid="5"), "grid: '5' is not of type 'integer'"),
    ("bool is not a number", standard(rounds=True), "rounds: True is not of type 'integer'"),
    ("unknown key", standard(colour="red"), "'colour' was unexpected"),
    ("missing key", standard(rounds=DELETE), "'rounds' is a required property"),
    ("negative points", standard(scoring=dict(standard()["scoring"], win=-1)),
     "scoring.win: -1 is less than the minimum of 0"),
    ("unknown scoring key", standard(scoring=dict(standard()["scoring"], bonus=1)), "scoring: Additional properties"),
    ("not a d6", standard(faces=7), "faces: 7 is greater than the maximum of 6"),
    ("3+1 needs lines of 3", standard(grid=3, line_length=2, target=4, dice_per_player=3),
     "opponent_end: needs line_length of at least 3"),
    ("more dice than squares", standard(dice_per_player=20),
     "dice_per_player: 42 dice and blockers do not fit on 25 squares"),
    ("too many lines for the tables", standard(grid=15, line_length=3, target=9), "too many lines"),
    ("not an object", [], "rules: [] is not of type 'object'"),
    ("bad name", standard(name="Big Board!"), "name: 'Big Board!' does not match"),
]


@pytest.mark.parametrize("what, bad, message", BAD, ids=[b[0] for b in BAD])
def test_bad_rules_are_refused_with_a_clear_message(what, bad, message):
    with pytest.raises(rules.RulesError) as e:
        rules.validate(bad)
    assert message in str(e.value)


def test_shipped_rules_are_valid_and_compile():
    assert rules.shipped_names() == ["four-by-four", "six-by-six", "standard"]
    for name in rules.shipped_names():
        t = rules.load_tables(name)
        assert t.name == name
        assert len(t.blob) <= 2048  # a rules push must stay within 2 KB


def test_standard_tables_hold_the_rulebook_geometry():
    t = rules.load_tables("standard")
    assert (t.grid, t.line_length, t.target, t.faces, t.dice_per_player) == (5, 4, 12, 6, 11)
    assert t.line_count == 28  # 10 in rows, 10 in columns, 8 on diagonals
    centre = 12
    through = [x for x in t.through[centre * t.through_stride:(centre + 1) * t.through_stride] if x != tables.END]
    assert len(through) == 8  # 2 per direction through c3: a3-d3 and b3-e3, and so on
    assert all(centre in t.line_squares(line) for line in through)


@pytest.mark.parametrize("text, message", [
    ("{\"grid\": ", "not valid JSON (line 1, column 10"),
    ("", "not valid JSON"),
])
def test_broken_files_name_the_file_and_the_place(tmp_path, text, message):
    path = tmp_path / "broken.json"
    path.write_text(text)
    with pytest.raises(rules.RulesError) as e:
        rules.load(str(path))
    assert str(path) in str(e.value) and message in str(e.value)


def test_missing_files_and_unknown_names(tmp_path):
    with pytest.raises(rules.RulesError, match="cannot read"):
        rules.load(str(tmp_path / "nope.json"))
    with pytest.raises(rules.RulesError, match="no such rules; shipped rules are four-by-four, six-by-six, standard"):
        rules.load("nope")


def test_a_variant_is_a_new_file_not_new_code(tmp_path):
    r = rules.load("standard")
    r.update(name="no-corners", diagonals=False, no_play_radius=2)
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(r))
    t = rules.load_tables(str(path))
    assert t.line_count == 20 and t.zone_stride == 24


def damaged(blob, at, value):
    b = bytearray(blob)
    b[at] = value
    return bytes(b)


def resealed(blob):
    """The blob with a correct checksum again, as a careless compiler might send it."""
    import binascii
    body = blob[:-4]
    return body + struct.pack("<I", binascii.crc32(body))


@pytest.mark.parametrize("what, make, message", [
    ("a flipped byte", lambda b: damaged(b, 40, b[40] ^ 1), "checksum mismatch"),
    ("cut short", lambda b: b[:-10], "checksum mismatch"),
    ("empty", lambda b: b"", "not a DOCE tables file"),
    ("another format", lambda b: b"PK\x03\x04" + b[4:], "not a DOCE tables file"),
    ("a newer version", lambda b: resealed(damaged(b, 4, 9)), "version 9, this firmware reads 1"),
    ("a line off the board", lambda b: resealed(damaged(b, struct.calcsize(tables.HEADER) + len("standard"), 200)),
     "an index points off the board"),
    ("sizes that disagree", lambda b: resealed(damaged(b, 6, 3)), "sizes do not match the header"),
])
def test_damaged_tables_are_refused(what, make, message):
    blob = rules.load_tables("standard").blob
    with pytest.raises(ValueError, match=message):
        Tables(make(blob))
