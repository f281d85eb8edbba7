"""The round's pairings: which players sit at which board, from a CSV the organiser writes,
one row per board and round:

    round,board,white,black
    1,table1,Ana,Ben
    1,table2,Cleo,Dev

`round` may be left out (then every row is round 1). `board` is a board's id (as in its topics)
or its name. The file is checked strictly: a wrong line is one error naming it.
"""

import csv

from ..files import FileError, read_text

TEXT_MAX = 64  # a name or id in the CSV: as long as a board's own settings (doce/netconfig.py)
BAD_ID = set("/+#")  # not in an MQTT topic level (MQTT 3.1.1, 4.7)
COLUMNS = ("round", "board", "white", "black")
MAX_ROWS = 10000
MAX_FILE = 1 << 20  # 10,000 rows of four names of 64 characters at most, and more


class PairingsError(ValueError):
    """A CSV that is not a pairings file: one line saying where and why."""


def load_pairings(path):
    """{round: [(board, white, black), ...]} from a pairings CSV, checked strictly."""
    try:
        text = read_text(path, MAX_FILE, "a pairings CSV", encoding="utf-8-sig")
    except FileError as e:
        raise PairingsError(str(e)) from None
    try:
        rows = list(csv.reader(text.splitlines()))
    except csv.Error as e:  # a field over the csv module's limit (128 KB), say
        raise PairingsError("%s: not a CSV of pairings (%s)" % (path, e)) from None
    where = lambda n: "%s line %d" % (path, n)  # noqa: E731
    if not rows:
        raise PairingsError("%s: empty; the first line names the columns: round,board,white,black" % path)
    header = [h.strip().lower() for h in rows[0]]
    if header not in (list(COLUMNS), list(COLUMNS[1:])):
        raise PairingsError("%s: the columns must be round,board,white,black (or board,white,black), not %s"
                            % (where(1), ",".join(rows[0])))
    if len(rows) > MAX_ROWS:
        raise PairingsError("%s: more than %d rows" % (path, MAX_ROWS))
    rounds = {}
    seen_boards, seen_players = set(), set()
    for n, row in enumerate(rows[1:], start=2):
        if not row or all(not cell.strip() for cell in row):
            continue
        if len(row) != len(header):
            raise PairingsError("%s: %d fields, expected %d (%s)" % (where(n), len(row), len(header), ",".join(header)))
        cells = dict(zip(header, (cell.strip() for cell in row)))
        number = cells.get("round", "1")
        if not (number.isascii() and number.isdigit()) or not 1 <= int(number) <= 999:  # not '²' or '٣'
            raise PairingsError("%s: round %r is not a number from 1 to 999" % (where(n), number))
        number = int(number)
        for key in ("board", "white", "black"):
            value = cells[key]
            if not value:
                raise PairingsError("%s: %s is empty" % (where(n), key))
            if len(value) > TEXT_MAX or not value.isprintable():
                raise PairingsError("%s: %s is not text of at most %d printable characters" % (where(n), key, TEXT_MAX))
        if BAD_ID & set(cells["board"]):
            raise PairingsError("%s: board %r holds / + or #, which no board id has" % (where(n), cells["board"]))
        if cells["white"] == cells["black"]:
            raise PairingsError("%s: %r cannot play themself" % (where(n), cells["white"]))
        if (number, cells["board"]) in seen_boards:
            raise PairingsError("%s: board %r has two pairings in round %d" % (where(n), cells["board"], number))
        for player in (cells["white"], cells["black"]):
            if (number, player) in seen_players:
                raise PairingsError("%s: %r plays twice in round %d" % (where(n), player, number))
            seen_players.add((number, player))
        seen_boards.add((number, cells["board"]))
        rounds.setdefault(number, []).append((cells["board"], cells["white"], cells["black"]))
    if not rounds:
        raise PairingsError("%s: no pairings, only the column names" % path)
    return rounds
