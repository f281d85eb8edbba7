"""Compiled rule tables: the one definition of their binary layout.

The host compiles a rules file (rules/*.json) into this form; the board and the
host's referee both play from it, so a variant is a new file, not new code.

Layout, little-endian:
  HEADER          magic, version, the parameters below, name length, line count
  name            UTF-8
  lines           line_count x line_length square indices
  through         squares x through_stride line indices, END-padded:
                  the lines that pass through each square
  zone            squares x zone_stride square indices, END-padded:
                  the squares around each square (a no-play zone)
  crc32           of everything before it

A square is row * grid + column; row 0 is white's edge, column 0 the left.
"""

import binascii
import struct

MAGIC = b"DOCT"
VERSION = 1
END = 0xFF  # pads a row of `through` or `zone`; never a square or line index

# Header fields in order, after magic and version. Every one is an unsigned byte
# except the line count.
PARAMS = (
    "grid", "line_length", "target", "faces", "dice_per_player",
    "blockers_per_player", "no_play_radius", "flags", "rounds",
    "win", "all_own_line", "unused_blocker", "empty_square",
    "same_face_group", "same_face_penalty", "draw",
)
HEADER = "<4sB" + "B" * len(PARAMS) + "BB"  # ..., name length, line count
DIAGONALS = 1  # flags bits
OPPONENT_END = 2
# What a board can play, (lowest, highest) for each of PARAMS in order; `bad_field` adds the
# limits between fields. The host's rules compiler asks bad_field too (doce_host/rules.py), and
# rules/rules.schema.json gives the same ranges (a test holds them equal).
LIMITS = ((3, 15), (2, 15), (1, 90), (2, 6), (1, 112), (0, 112), (0, 7), (0, 3), (1, 99),
          (0, 255), (0, 255), (0, 255), (0, 255), (1, 255), (0, 255), (0, 255))


def bad_field(values):
    """The name of the first field of `values` (in PARAMS order) a board cannot play by, or None."""
    for name, value, limit in zip(PARAMS, values, LIMITS):
        if not limit[0] <= value <= limit[1]:
            return name
    grid, length, target, faces, dice, blockers = values[:6]
    if length > grid:
        return "line_length"
    if not length <= target <= length * faces:  # else no line can ever win
        return "target"
    if 2 * (dice + blockers) > grid * grid:
        return "dice_per_player"
    if values[7] & OPPONENT_END and length < 3:  # every line of one die each would win for both
        return "opponent_end"
    return None


def through_stride(line_length, diagonals):
    # Each direction contributes at most line_length lines through a square.
    return (4 if diagonals else 2) * line_length


def zone_stride(radius):
    return (2 * radius + 1) ** 2 - 1


def pack(params, name, lines, through, zone):
    """Bytes for the tables; `params` maps every PARAMS name to its value."""
    name = name.encode()
    body = struct.pack(HEADER, MAGIC, VERSION,
                       *[params[p] for p in PARAMS], len(name), len(lines))
    body += name + bytes(sq for line in lines for sq in line)
    body += _rows(through, through_stride(params["line_length"], params["flags"] & DIAGONALS))
    body += _rows(zone, zone_stride(params["no_play_radius"]))
    return body + struct.pack("<I", binascii.crc32(body))


def _rows(rows, stride):
    return bytes(x for row in rows for x in list(row) + [END] * (stride - len(row)))


class Tables:
    """Read-only view of compiled tables. Raises ValueError on a damaged blob."""

    def __init__(self, blob):
        blob = bytes(blob)
        if len(blob) < struct.calcsize(HEADER) + 4 or blob[:4] != MAGIC:
            raise ValueError("rules tables: not a DOCE tables file")
        (self.checksum,) = struct.unpack("<I", blob[-4:])
        if binascii.crc32(blob[:-4]) != self.checksum:
            raise ValueError("rules tables: checksum mismatch (damaged or cut short)")
        fields = struct.unpack_from(HEADER, blob)
        if fields[1] != VERSION:
            raise ValueError("rules tables: version %d, this firmware reads %d" % (fields[1], VERSION))
        # The checksum proves the bytes arrived whole, not that they make sense: every field
        # is checked before any is used (a group of 0 would divide by zero, 0 rounds end nothing).
        name_len, self.line_count = fields[-2], fields[-1]
        field = bad_field(fields[2:-2]) or (not 0 < self.line_count < END and "line_count")
        if field:
            raise ValueError("rules tables: %s out of range" % field)
        for name, value in zip(PARAMS, fields[2:]):
            setattr(self, name, value)
        self.squares = self.grid * self.grid
        self.diagonals = bool(self.flags & DIAGONALS)
        self.opponent_end = bool(self.flags & OPPONENT_END)
        self.through_stride = through_stride(self.line_length, self.diagonals)
        self.zone_stride = zone_stride(self.no_play_radius)

        at = struct.calcsize(HEADER)
        name = blob[at:at + name_len]
        # shown by every host, and a file name there: 1 to 32 of a-z, 0-9 and -, as rules files name it
        if not 0 < len(name) <= 32 or name[0] == 45 or any(not (97 <= c <= 122 or 48 <= c <= 57 or c == 45)
                                                           for c in name):
            raise ValueError("rules tables: name out of range (1 to 32 of a-z, 0-9 and -)")
        self.name = name.decode()
        at += name_len
        sizes = (self.line_count * self.line_length,
                 self.squares * self.through_stride,
                 self.squares * self.zone_stride)
        if at + sum(sizes) + 4 != len(blob):
            raise ValueError("rules tables: sizes do not match the header")
        view = memoryview(blob)  # the tables below share the blob's memory
        self.lines = view[at:at + sizes[0]]
        at += sizes[0]
        self.through = view[at:at + sizes[1]]
        at += sizes[1]
        self.zone = view[at:at + sizes[2]]
        self.blob = blob
        # A correct checksum only proves the bytes arrived intact, not that
        # whoever compiled them made sense: indices must stay on the board.
        if (_out_of_range(self.lines, self.squares, False)
                or _out_of_range(self.through, self.line_count, True)
                or _out_of_range(self.zone, self.squares, True)):
            raise ValueError("rules tables: an index points off the board")

    def line_squares(self, line):
        start = line * self.line_length
        return self.lines[start:start + self.line_length]


def _out_of_range(table, limit, padded):
    for x in table:
        if x >= limit and not (padded and x == END):
            return True
    return False
