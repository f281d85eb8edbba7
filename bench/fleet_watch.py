"""The organiser's end and a page reader for bench/fleet.py, each in a process of its own, as on
the organiser's computer and in a viewer's browser (not sharing the bench's interpreter, where
the simulator works out the dice's fields):

    python bench/fleet_watch.py room BROKER_URL   # a Room (doce fleet): boards online, dice placed
    python bench/fleet_watch.py page PAGE_URL     # asks ROOM.html?since=V again as each answer comes

Each prints one JSON line per thing seen, with time.monotonic() (the same clock in every process):
    ["online", id]                        a board's status says online
    ["message", t, kind]                  a board's message reached the Room (kind: state, events, status...)
    ["placed", t, id, cell]               a placed event reached the Room (t: as paho handed it over)
    ["shown", t, id, cell, piece]         the page's answer at t shows a piece on a cell it did not
    ["answer", t, bytes, waited_s]        one answer of the page: its size, and how long it was waited for
"""

import json
import re
import sys
import time
import urllib.request

TILE = re.compile(r'data-board="([^"]*)"')
SQUARE = re.compile(r'data-cell="(\w+)"[^>]*?data-piece="([^"]*)"')


def say(*fields):
    sys.stdout.write(json.dumps(fields) + "\n")
    sys.stdout.flush()


def room(url):
    from doce_host.fleet.room import Room
    with Room(url) as r:
        kept = r._on_message
        online = set()

        def timed(client, userdata, msg):
            at = time.monotonic()
            kept(client, userdata, msg)
            ident, kind = msg.topic.split("/")[-2:]
            say("message", at, kind)
            if kind == "status" and ident not in online and r.boards.get(ident) and r.boards[ident].online:
                online.add(ident)
                say("online", ident)
            elif kind == "events" and b'"placed"' in msg.payload:
                say("placed", at, ident, json.loads(msg.payload).get("cell"))
        r.client.on_message = timed
        say("ready")
        sys.stdin.read()  # until the bench closes our stdin


def page(url):
    """What the page's script does (doce_host/fleet/tournament.py SCRIPT): fetch the fragment with
    ?since=V, take X-Version, put the text in place and ask again at once. The time is taken when
    the whole answer is in, as the script's fetch resolves."""
    since = -1
    shown = {}  # (board, cell) -> piece
    say("ready")
    while True:
        asked = time.monotonic()
        try:
            with urllib.request.urlopen("%sroom.html?since=%s" % (url, since), timeout=30) as answer:
                since = answer.headers["X-Version"]
                text = answer.read().decode()
        except OSError:
            time.sleep(0.1)
            continue
        at = time.monotonic()
        say("answer", at, len(text), at - asked)
        tiles = TILE.split(text)
        for ident, tile in zip(tiles[1::2], tiles[2::2]):
            for cell, piece in SQUARE.findall(tile):
                if piece and shown.get((ident, cell)) != piece:
                    say("shown", at, ident, cell, piece)
                shown[(ident, cell)] = piece


if __name__ == "__main__":
    {"room": room, "page": page}[sys.argv[1]](sys.argv[2])
