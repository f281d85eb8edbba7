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
        for name, value in zip(PARAMS, fields[2:]):
            setattr(self, name, value)
        name_len, self.line_count = fields[-2], fields[-1]
        self.squares = self.grid * self.grid
        self.diagonals = bool(self.flags & DIAGONALS)
        self.opponent_end = bool(self.flags & OPPONENT_END)
        self.through_stride = through_stride(self.line_length, self.diagonals)
        self.zone_stride = zone_stride(self.no_play_radius)

        at = struct.calcsize(HEADER)
        self.name = blob[at:at + name_len].decode()
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
        if (self.line_length < 2 or not 1 <= self.faces <= 15
                or _out_of_range(self.lines, self.squares, False)
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
