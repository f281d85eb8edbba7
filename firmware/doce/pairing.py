"""Pairing a board with a friend's for a match through the broker (the `remote` command,
docs/protocol.md; docs/remote.md). Loaded only when that command comes: the match itself is
doce/remote.py's, which a paired board loads at boot without this.
"""

import binascii
import json

from .app import begun
from .arguments import BadArgument, CommandError, player_argument
from .game import PLAYER_NAMES, WHITE
from .netconfig import is_topic_level
from .offline import RETRY_MS
from .remote import NOBODY, Remote, begin, digest, forget, is_hex, save, to_peer
from .remote_news import tell


def command(link, request):
    """`remote` with a peer: pair with a friend's board for a new match, or end the pairing (peer
    null). (Where it stands, with no peer, is doce/link.py's answer: it needs none of this.)"""
    app = link.app
    paused = app.paused()
    if paused:
        raise CommandError("remote", paused)
    peer = request["peer"]
    if peer is None:
        if app.remote:
            app.remote.end()
        return {"remote": None}
    if app.net is None and app.later is not None:  # set up, but it did not start (doce/offline.py)
        raise CommandError("no_network", "this board's network did not start (out of memory, or a fault: its "
                                         "error event said which); the board tries it again every %d s: pair "
                                         "once it runs" % (RETRY_MS // 1000))
    if app.net is None and app.supply is not None and not app.supply.carries_wifi():  # (doce/supply.py)
        raise CommandError("no_network", app.supply.refusal())
    if app.net is None:
        raise CommandError("no_network", "a friend's board is reached through a broker: set this board's Wi-Fi "
                                         "and MQTT first (doce config)")
    if not is_topic_level(peer) or peer == app.net.id:
        raise BadArgument("peer is the friend's board id (1 to 64 letters, digits, _ or -), not this board's own")
    match = request.get("match")
    if not is_hex(match):
        raise BadArgument("match is the match's number: 8 hex digits (0-9, a-f), the same on both boards")
    try:
        return pair(app, peer, match, request)
    except (BadArgument, CommandError) as e:
        if request.get("invite") is not True:  # an inviting board's friend waits for nothing yet
            refuse(app, peer, match, e)
        raise


def refuse(app, peer, match, e):
    """The friend's board, waiting for this one in `match`, is told it will not come, and why (the
    error's code; the rules when they are why), on the topic it reads for this board's moves;
    retained, so a friend's board off the broker now hears it when it is back, and sent once this board
    is on the broker if it is not now (doce/remote.py tell). Nothing, if this board plays that match
    with it: a request refused here changes nothing there."""
    r = app.remote
    if r and r.peer == peer and r.match == match:
        return
    m = {"match": match, "refused": "bad_argument" if isinstance(e, BadArgument) else e.args[0]}
    if m["refused"] == "rules_mismatch":
        m["rules"] = app.tables.name
        m["rules_checksum"] = "%08x" % app.tables.checksum
    net = app.net
    tell(net, to_peer(net, peer), json.dumps(m))


def pair(app, peer, match, request):
    colour = player_argument(request, "colour", None)
    if colour is None:
        raise BadArgument('colour is this board\'s: "white" or "black"')
    first = player_argument(request, "first", WHITE)
    checksum = request.get("rules_checksum")
    if not is_hex(checksum):
        raise BadArgument("rules_checksum is the friend's board's rules checksum: 8 hex digits, as its hello says")
    tables = app.tables
    if int(checksum, 16) != tables.checksum:
        raise CommandError("rules_mismatch", "the code's rules checksum (%s) is not this board's (%s, %08x): the "
                                             "friend's board plays other rules, or the code was mistyped; give both "
                                             "the same rules, or type it again" % (checksum, tables.name,
                                                                                   tables.checksum))
    r = app.remote
    if r and r.peer == peer and r.match == match and r.colour == 1 - colour:
        return {"remote": r.state()}  # asked again (the reply went missing): the same match goes on
    g = app.controller.game
    if request.get("force") is not True and not g.match_over and begun(g):
        raise CommandError("mid_round", "a match is in play on this board (round %d of %d): finish it, or "
                                        "force the pairing" % (g.round, g.tables.rounds))
    # The reply is made first, while nothing has changed: out of heap after the match is on, an accepted
    # pairing was answered "failed". (It is what state() says once begun: no play, no move, and not
    # connected till the friend's board says it plays this match.)
    remote = Remote(app, peer, match, colour)
    reply = {"remote": remote.state()}
    app.play_against(None, remember=False)  # two players here, and any other pairing over
    save({"peer": peer, "match": match, "colour": PLAYER_NAMES[colour], "stopped": None})
    c = app.controller
    c.journal.next_paired = binascii.unhexlify(match) + bytes((colour,))  # written with the match
    c.new_match(first)
    try:
        remote.digest = digest(c.game)
        remote._keep((0, NOBODY, 0, 0, remote.digest))
        begin(app, remote)
    except BaseException:  # (out of heap): not paired, as the failed reply says, this boot or the next
        c.journal.next_paired = None  # the new match, unwritten yet, is for two players here
        forget()
        raise
    return reply
