"""The names in a room's MQTT topics, <prefix>/<id>/<kind>: one rule for each, as the board's
own (doce/netconfig.py, is_topic_level and is_prefix), and the largest message a room carries.
Light to import: the CLI's arguments use it."""

import argparse
import re

# A board's longest message, its retained state, is about 2 KB; an organiser's, a command, 200
# bytes. The room's Mosquitto drops anything longer (doce fleet secure), and the organiser's tools
# pass it over (room.py).
MAX_MESSAGE = 16384
BOARD_ID = re.compile(r"[A-Za-z0-9_-]{1,64}\Z")  # a topic level with no wildcard or separator
# The organiser's prefix: one to four such levels, 64 characters at most (as the board checks:
# doce/netconfig.py is_prefix). No '+', '#', empty level or control character: a topic, never a filter.
PREFIX = re.compile(r"(?=.{1,64}\Z)[A-Za-z0-9_-]+(/[A-Za-z0-9_-]+){0,3}\Z")


def topic_prefix(text):
    """--prefix, checked (argparse type)."""
    if not PREFIX.match(text):
        raise argparse.ArgumentTypeError("%r: a prefix is 1 to 4 topic levels of letters, digits, _ and -, "
                                         "separated by /, 64 characters at most" % text)
    return text


def board_id_text(text):
    """--board-id, checked (argparse type)."""
    if not BOARD_ID.match(text):
        raise argparse.ArgumentTypeError("%r: a board id is 1 to 64 letters, digits, _ or -" % text)
    return text


def board_ids(text):
    """--boards ID,ID, checked (argparse type): at least one, each a board id, none twice."""
    ids = text.split(",")
    if not text or not all(ids):
        raise argparse.ArgumentTypeError("%r: give board ids separated by commas, like t1,t2" % text)
    for ident in ids:
        board_id_text(ident)
    if len(set(ids)) != len(ids):
        raise argparse.ArgumentTypeError("%r names a board twice" % text)
    return ids
