"""`doce remote`: one match on two boards through a broker (docs/remote.md; the board's side is
firmware/doce/remote.py).

    doce remote pair B1 B2 --broker URL    the organiser names both boards: B1 plays white
    doce remote invite FRIEND --port P     on a board's own computer: prints a code for the friend
    doce remote join CODE --port P         on the friend's: pairs its board from the code
    doce remote show|end --port P          where it stands; end the pairing

Each way ends in the same request to each board (`remote`, docs/protocol.md), which checks the
friend's rules checksum against its own: other rules are refused in one line and nothing starts.
"""

import json
import re
import secrets
import time

from ..commandline import UsageError, board_args, link_errors, open_link, seconds
from ..protocol import carried_out
from .topics import BOARD_ID, board_id_text

PLAYERS = ("white", "black")
# <inviter's id>.<match>.<friend's colour><who opens>.<rules checksum>: b1.7f3a01c2.bw.51e68463
CODE = re.compile(r"([A-Za-z0-9_-]{1,64})\.([0-9a-f]{8})\.([wb])([wb])\.([0-9a-f]{8})\Z")


class RemoteError(Exception):
    """A pairing that cannot be made: one line, and nothing started."""


def other(colour):
    return PLAYERS[1 - PLAYERS.index(colour)]


def request(peer, colour, first, match, checksum, force=False, invite=False):
    """The `remote` request that pairs a board with `peer`, playing `colour`. `invite`: this board
    is the first told, so `peer` waits for nothing yet, and a refusal here is told to no one."""
    r = {"cmd": "remote", "peer": peer, "colour": colour, "first": first, "match": match,
         "rules_checksum": checksum}
    if force:
        r["force"] = True
    if invite:
        r["invite"] = True
    return r


def new_match():
    """A match's own number: 8 hex digits, drawn, so no message of an earlier match passes for its."""
    return secrets.token_hex(4)


def refused(board, reply):
    return RemoteError("%s: %s" % (board, reply.get("message") or reply.get("error")))


# -- the organiser's way: both boards named, over the broker ---------------------------------


HELLO_AGAIN_S = 2.0  # a hello that reached no one is asked again this often


def hello(room, board, timeout, pump):
    """`board`'s hello over the broker, or None after `timeout` s. Asked again every HELLO_AGAIN_S:
    the broker keeps no command for a board that is not subscribed yet (one just connected, or
    reconnecting), so a first hello can reach no one; asking again is harmless."""
    deadline = time.monotonic() + timeout
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return None
        reply = room.command(board, "hello", timeout=min(HELLO_AGAIN_S, left), pump=pump)
        if reply is not None:
            return reply


def pair_on_broker(room, white, black, first="white", force=False, timeout=5.0, pump=None):
    """Pair `white` and `black`, two boards on the Room's broker: their rules compared first
    (other rules: RemoteError, nothing sent), then each told of the other. The match number."""
    if white == black:
        raise RemoteError("a board cannot play itself: name two boards")
    hellos = {}
    for board in (white, black):
        reply = hello(room, board, timeout, pump)
        if reply is None:
            raise RemoteError("%s does not answer on the broker (is it on, and on %s?)" % (board, room.prefix))
        hellos[board] = reply
    w, b = hellos[white], hellos[black]
    if w.get("rules_checksum") != b.get("rules_checksum"):
        raise RemoteError("%s plays %s (%s) and %s plays %s (%s): give both the same rules first "
                          "(doce fleet rules push RULES --boards %s,%s)" % (
                              white, w.get("rules"), w.get("rules_checksum"), black, b.get("rules"),
                              b.get("rules_checksum"), white, black))
    match = new_match()
    checksum = w["rules_checksum"]
    done = []
    for board, colour, peer in ((white, "white", black), (black, "black", white)):
        r = request(peer, colour, first, match, checksum, force, invite=not done)
        r.pop("cmd")
        reply = room.command(board, "remote", timeout=timeout, pump=pump, **r)
        if reply is None or not carried_out(reply):  # (no_room: paired, its full reply too long for its heap)
            for paired in done:  # nothing starts: the one already told is told it is off
                room.command(paired, "remote", timeout=timeout, pump=pump, peer=None)
            if reply is None:
                raise RemoteError("%s did not answer the pairing in %g s; nothing started" % (board, timeout))
            raise refused(board, reply)
        done.append(board)
    return match


def cmd_pair(args):
    from .commands import room_for
    room, broker = room_for(args)
    try:
        match = pair_on_broker(room, args.white, args.black, args.first, args.force, args.timeout)
    except RemoteError as e:
        raise UsageError(str(e)) from None
    finally:
        room.close()
        if broker:
            broker.stop()
    if args.json:
        print(json.dumps({"white": args.white, "black": args.black, "first": args.first, "match": match}))
    else:
        print("%s plays white and %s black, match %s; %s opens once both boards are clear"
              % (args.white, args.black, match, args.first))


# -- a player's way: a code from one board's computer, typed on the other's ------------------


def code_of(board_id, match, friend_colour, first, checksum):
    return "%s.%s.%s%s.%s" % (board_id, match, friend_colour[0], first[0], checksum)


def read_code(code):
    """(inviter's board id, match, the joining board's colour, who opens, rules checksum)."""
    found = CODE.match(code.strip())
    if not found:
        raise UsageError("%r is not a pairing code: it looks like b1.7f3a01c2.bw.51e68463 "
                         "(doce remote invite prints it)" % code[:80])
    inviter, match, colour, first, checksum = found.groups()
    name = {"w": "white", "b": "black"}
    return inviter, match, name[colour], name[first], checksum


def own_id(link):
    """This board's id on its broker, or a UsageError: no network set up."""
    reply = link.request("net")
    status = reply.get("status")
    if not status and reply.get("refused"):  # Wi-Fi set up, but the board's supply cannot carry it
        from ..view import printable
        raise UsageError("%s: %s (docs/remote.md)" % (link.port, printable(reply["refused"])))
    if not status:
        raise UsageError("%s: the board has no broker set up: doce config wifi and doce config mqtt first "
                         "(docs/remote.md)" % link.port)
    return status["board_id"]


def ask(link, r):
    reply = link.request(**r)
    if not carried_out(reply):
        raise UsageError("%s: %s" % (link.port, reply.get("message") or reply.get("error")))
    return reply


@link_errors
def cmd_invite(args):
    if not BOARD_ID.match(args.friend):
        raise UsageError("%r: a board id is 1 to 64 letters, digits, _ or -" % args.friend)
    link, hello = open_link(args)
    with link:
        me = own_id(link)
        if me == args.friend:
            raise UsageError("%s is this board's own id: name your friend's board" % me)
        match = new_match()
        ask(link, request(args.friend, args.colour, args.first, match, hello["rules_checksum"], args.force,
                          invite=True))
    code = code_of(me, match, other(args.colour), args.first, hello["rules_checksum"])
    if args.json:
        print(json.dumps({"code": code, "board": me, "friend": args.friend, "colour": args.colour,
                          "first": args.first, "match": match}))
    else:
        print("This board (%s) plays %s against %s. Give your friend this code: %s" % (me, args.colour,
                                                                                    args.friend, code))
        print("they run: doce remote join %s --port THEIR_PORT" % code)


@link_errors
def cmd_join(args):
    inviter, match, colour, first, checksum = read_code(args.code)
    link, hello = open_link(args)
    with link:
        me = own_id(link)
        if me == inviter:
            raise UsageError("this code is this board's own invitation: it is for your friend's board")
        ask(link, request(inviter, colour, first, match, checksum, args.force))
    if args.json:
        print(json.dumps({"board": me, "friend": inviter, "colour": colour, "first": first, "match": match}))
    else:
        print("This board (%s) plays %s against %s; %s opens once both boards are clear" % (me, colour, inviter,
                                                                                          first))


@link_errors
def cmd_show(args):
    link, _ = open_link(args)
    with link:
        reply = ask(link, {"cmd": "remote"} if args.action == "show" else {"cmd": "remote", "peer": None})
    remote = reply["remote"]
    if args.json:
        print(json.dumps(remote))
    elif args.action == "end":
        print("no match with a friend's board now")
    elif remote is None:
        print("not paired with a friend's board")
    else:
        print(describe(remote))


def describe(remote):
    """A board's `remote` state, in words (docs/remote.md)."""
    from ..view import printable, remote_words
    if remote.get("paused"):  # paired, its match not running on this board (doce/offline.py)
        return printable("paired with %s (%s), match %s, not running on this board: %s" % (
            remote["peer"], remote["colour"], remote["match"], remote["paused"]))
    return printable("playing %s (%s), match %s, %d move%s so far: %s" % (
        remote["peer"], remote["colour"], remote["match"], remote["plays"], "" if remote["plays"] == 1 else "s",
        remote_words(remote)))


def add_remote(commands):
    from .commands import broker_args
    remote = commands.add_parser("remote", help="play a friend on their own board, through a broker",
                                 description="One match on two boards through an MQTT broker (docs/remote.md): "
                                             "each board shows the other's move in light. Pair them from the "
                                             "organiser's computer (pair), or from each board's own (invite, "
                                             "then join with the code it prints).")
    actions = remote.add_subparsers(dest="action", required=True, metavar="ACTION")
    pair = actions.add_parser("pair", help="pair two boards on the broker: the first named plays white",
                              description="Pair two boards on the broker for a new match: the first plays white. "
                                          "Both must play the same rules; other rules are refused in one line "
                                          "and nothing starts.")
    pair.add_argument("white", metavar="WHITE_BOARD", type=board_id_text, help="the id of the board that plays white")
    pair.add_argument("black", metavar="BLACK_BOARD", type=board_id_text, help="the id of the board that plays black")
    pair.add_argument("--first", choices=PLAYERS, default="white", help="who opens the match (default white)")
    pair.add_argument("--force", action="store_true", help="pair even if a match is in play on a board (it ends)")
    pair.add_argument("--timeout", type=seconds, default=10.0, metavar="S", help="seconds to wait for each board")
    broker_args(pair)
    pair.set_defaults(run=cmd_pair)
    invite = actions.add_parser("invite", help="pair this board with a friend's: prints a code for them",
                                description="Pair the board on --port with your friend's (FRIEND: its board id) "
                                            "and print a code; they pair theirs with doce remote join CODE.")
    invite.add_argument("friend", metavar="FRIEND", help="your friend's board id, on the same broker")
    invite.add_argument("--colour", choices=PLAYERS, default="white", help="the colour you play (default white)")
    invite.add_argument("--first", choices=PLAYERS, default="white", help="who opens the match (default white)")
    invite.add_argument("--force", action="store_true", help="pair even if a match is in play (it ends)")
    board_args(invite)
    invite.set_defaults(run=cmd_invite)
    join = actions.add_parser("join", help="pair this board from a friend's code",
                              description="Pair the board on --port with your friend's, from the code their "
                                          "doce remote invite printed. Other rules are refused in one line.")
    join.add_argument("code", metavar="CODE", help="like b1.7f3a01c2.bw.51e68463")
    join.add_argument("--force", action="store_true", help="pair even if a match is in play (it ends)")
    board_args(join)
    join.set_defaults(run=cmd_join)
    for name, text in (("show", "where this board's match with a friend's stands"),
                       ("end", "end this board's pairing (its friend's board is told)")):
        action = actions.add_parser(name, help=text, description=text[0].upper() + text[1:] + ".")
        board_args(action)
        action.set_defaults(run=cmd_show)
