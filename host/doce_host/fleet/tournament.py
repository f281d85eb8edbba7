"""`doce fleet web`: the tournament screen. Every board of the room live, readable across the
hall: each tile the board alone (dice, lights, problems, winning lines; web/picture.py
board_only) under its name and round, its players and their points in big type under it. The
screen lays the tiles out as large as it can, each board at least 400 px wide, and pages through
them (and the standings) when they do not all fit, as a hall screen does (static/hall.js). A
click on a tile opens that board's page: its picture, large, and its events in words; a
simulated board's tile also links its own page, where its hands are (doce sim --broker).

The standings and the round's pairings (fleet/standings.py, fleet/pairings.py) come with the
tiles.

    GET /               the screen (it asks for /room.html?since=V again as each answer comes)
    GET /room.html      the boards, standings and pairings, as HTML; with ?since=V, once a board
                        has said something since version V (or after WAIT_S), and then only the
                        boards that did (X-Part: changed; X-Part: all when every board is in it,
                        as when a board joined since V); the version now in X-Version
    GET /room.json      the same, as JSON
    GET /board/ID       one board's page: its picture, large, and its latest events
    GET /board/ID.svg   its picture
"""

import asyncio
import html
from urllib.parse import quote

from aiohttp import web

from ..view import printable
from ..web import picture
from ..web.server import STATIC, named_as_itself
from .room import LINES_SHOWN

WAIT_S = 20  # the longest a page's request waits for news: well inside browsers' and proxies' limits
EVENTS_SHOWN = LINES_SHOWN  # lines on a board's page, a clearing one line (game_log.py)


def svg(t, ident, kind="page"):
    """The board's picture, for its page ("page") or its tile ("tile"), drawn once per state; or None."""
    board = t.room.boards.get(ident)
    payload = board.state if board else None
    cache = t.pictures
    cached = cache.get((ident, kind))
    if cached and cached[0] is payload:
        return cached[1]
    s = t.state(ident)
    try:
        drawn = None if not s else picture.board_only(s) if kind == "tile" else picture.draw(s, title=board.name)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError):  # a state that is not one
        drawn = None
    cache[(ident, kind)] = (payload, drawn)
    return drawn


# -- HTML: every text from a board or the CSV goes through esc() -------------------------------

def esc(value):
    return html.escape("" if value is None else str(value), quote=True)


def doing(b):
    """What a tile says of its board, beside its name: the round, or what needs doing."""
    s = b.get("state") or {}
    if not b["online"]:
        return "offline"
    mode = s.get("mode")
    if mode == "match_over":
        winner = s.get("winner")
        return "match over: a draw" if winner == "draw" else "match over: %s wins" % winner
    if mode == "correcting":
        return "put the board right"
    if mode == "clearing":
        return "clearing for round %s" % s.get("round") if not s.get("round_end") else \
            "round %s over: clearing" % s.get("round")
    if s.get("round"):
        return "round %s of %s" % (s.get("round"), s.get("rounds"))
    return "no game yet"


def update_line(b):
    """A board's app version and where its update stands, in words (fleet/update_stage.py checked both)."""
    return "version %s: update %s" % ("?" if b.get("version") is None else b["version"], b["update"])


def remote_match(s):
    """A board's match with another board (docs/remote.md), from its state: {"white": board id,
    "black": board id, "words": what a spectator reads}, or None."""
    r = s.get("remote")
    if not isinstance(r, dict) or r.get("colour") not in ("white", "black"):
        return None
    found = {r["colour"]: r.get("peer"), "black" if r["colour"] == "white" else "white": None}
    found["words"] = "remote match with %s%s" % (r.get("peer"), "" if r.get("connected") else ", not connected")
    return found


def tile_html(t, b):
    s = b.get("state") or {}
    totals = s.get("totals") if isinstance(s.get("totals"), dict) else {}
    to_move = s.get("to_move") if s.get("mode") == "playing" else None
    remote = remote_match(s)
    if remote:  # a match between two boards: this one plays the colour its friend does not
        remote[next(c for c in ("white", "black") if remote[c] is None)] = b["id"]
    players = []
    for colour in ("white", "black"):
        name = b["%s_player" % colour] or (remote and "board %s" % remote[colour]) or colour
        players.append('<li class="%s%s"><span class="swatch" aria-label="%s"></span><span class="who">%s</span>'
                       '<span class="points">%s</span></li>'
                       % (colour, " to-move" if to_move == colour else "", colour, esc(name),
                          esc(totals.get(colour, "?"))))
    drawing = svg(t, b["id"], "tile")
    hands = ('<a class="hands" href="%s">its page: play it &#8599;</a>' % esc(b["page"])
             if b.get("page") and b["online"] else "")
    if remote:
        hands = '<p class="remote">%s</p>%s' % (esc(remote["words"]), hands)
    if b.get("update"):  # an app update under way, or how the last one ended: the organiser looks here
        hands = '<p class="update">%s</p>%s' % (esc(update_line(b)), hands)
    classes = ["tile", "online" if b["online"] else "offline"]
    if s.get("mode") == "correcting":
        classes.append("problem")
    return ('<article class="%s" data-board="%s"><a class="open" href="/board/%s">'
            '<div class="head"><span class="name">%s</span><span class="doing">%s</span></div>'
            '<div class="picture">%s</div><ul class="players">%s</ul></a>%s</article>'
            % (" ".join(classes), esc(b["id"]), esc(quote(b["id"], safe="")), esc(b["name"]), esc(doing(b)),
               drawing or '<p class="none">no picture yet</p>', "".join(players), hands))


def room_html(t, since=None):
    """The room's part of the page; with `since` (a version the page has), only the tiles of the
    boards that said something after it, unless a board joined since. (HTML, whether all is in it)."""
    snap = t.snapshot()
    room = t.room
    whole = since is None or not room.joined <= since <= room.version
    out = ['<section class="boards">']
    for b in snap["boards"]:
        board = room.boards.get(b["id"])
        if not whole and board is not None and board.changed <= since:
            continue  # the page shows it as it is
        out.append(tile_html(t, b))
    if not snap["boards"]:
        out.append('<p class="none">No boards yet: they show as they join the broker.</p>')
    # no pairings, no standings: nothing for a page of their own in the hall's rotation (hall.js)
    out.append('</section><aside class="tables"%s><section><h2>Standings</h2><table class="standings"><thead><tr>'
               '<th>#</th><th>player</th><th title="matches won">won</th><th title="rounds won">rounds</th>'
               '<th title="DOCE points, by the rulebook">points</th><th title="matches played to the end">played'
               '</th></tr></thead><tbody>' % (" data-empty" if not snap["pairings"] and not snap["standings"] else ""))
    for r in snap["standings"]:
        # beside eight boards the table is narrow (hall.js: aside.narrow): the place, and the player with
        # their matches won and points under the name; the other columns show when there is room
        out.append('<tr><td class="place">%s</td><td class="player"><span class="name">%s</span>'
                   '<small class="sum">%d won, %d points</small></td><td>%d</td><td>%d</td><td>%d</td>'
                   '<td>%d%s</td></tr>'
                   % (esc(r["place"]), esc(r["player"]), r["won"], r["points"], r["won"], r["rounds"], r["points"],
                      r["played"], " <small>+1 in play</small>" if r["playing"] else ""))
    out.append('</tbody></table><p class="key">won: matches won; rounds: rounds won; points: DOCE points of every '
               'match, the one in play too; played: matches played to the end; =4: level on all three.</p>'
               '<p class="key narrow-key">Matches won, then DOCE points; =4: level.</p></section>')
    out.append('<section><h2>Pairings%s</h2><table class="pairings"><thead><tr><th>board</th><th>white</th>'
               '<th>black</th></tr></thead><tbody>' % (", round %d" % snap["round"] if snap["round"] else ""))
    for p in snap["pairings"]:
        out.append('<tr class="%s"><td>%s</td><td>%s</td><td>%s</td></tr>'
                   % ("seen" if p["seen"] else "unseen", esc(p["name"]), esc(p["white"]), esc(p["black"])))
    if not snap["pairings"]:
        out.append('<tr><td colspan="3">none loaded (--pairings FILE.csv)</td></tr>')
    out.append("</tbody></table></section></aside>")
    return "".join(out), whole


def board_html(t, ident):
    board = t.room.boards[ident]
    players = t.players_of(ident)
    hands = (' &middot; <a class="hands" href="%s">its own page: play it &#8599;</a>' % esc(board.page)
             if board.page and board.online else "")
    row = board.row()
    app = " &middot; %s" % esc(update_line(row) if row["update"] else "version %s" % row["version"]) \
        if row["version"] is not None else ""  # its app, always on its own page (a tile says it during an update)
    out = ['<p class="crumbs"><a href="/">&larr; every board</a> &middot; %s &middot; %s%s%s</p>'
           '<div class="picture large">%s</div>'
           % (esc(ident), ("%s (white) &ndash; %s (black)" % tuple(map(esc, players)))
              if players else "no pairing", app, hands, svg(t, ident) or '<p class="none">no picture yet</p>'),
           '<h2>What happened</h2><ol class="events" reversed>']
    for line in reversed(board.log.shown(EVENTS_SHOWN)):  # in words, as the board's own page says them
        out.append('<li class="%s">%s</li>' % (esc(line["kind"]), esc(printable(line["text"]))))
    out.append("</ol>")
    return "".join(out)


PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>%s</title><link rel="stylesheet" href="/static/hall.css"></head>
<body data-source="%s" class="%s"><header><h1>%s</h1><nav id="pager" hidden>
<button type="button" id="page-back" aria-label="Previous page">&#9664;</button><span id="page-at"></span>
<button type="button" id="page-on" aria-label="Next page">&#9654;</button>
<button type="button" id="rotate" aria-pressed="true">Pause</button></nav></header>
<svg class="defs" width="0" height="0" aria-hidden="true"><defs><pattern id="zone" width="12" height="12"
patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="5" height="12" fill="#cc79a7"
opacity="0.55"/></pattern></defs></svg>
<main id="room">%s</main>
<script src="/static/hall.js"></script></body></html>
"""


def page(title, source, body, kind="room"):
    return PAGE % (esc(title), esc(source), kind, esc(title), body)


# -- the server ----------------------------------------------------------------------------------

class News:
    """Wakes the page's waiting requests as the room changes: the Room calls poke() from paho's
    thread after each message, and the requests, on the server's loop, wait for the next one."""

    def __init__(self, room):
        self.room = room
        self.loop = None
        self.next = None

    def start(self):  # on the server's loop
        self.loop = asyncio.get_running_loop()
        self.next = asyncio.Event()
        before = self.room.on_change

        def poke():
            if before:
                before()
            try:
                self.loop.call_soon_threadsafe(self._came)
            except RuntimeError:  # the loop has closed (Ctrl-C) while paho's thread still hands messages over
                pass
        self.room.on_change = poke

    def _came(self):
        self.next.set()
        self.next = asyncio.Event()

    async def since(self, version):
        """Wait (at most WAIT_S) until the room is past `version`; the version now."""
        deadline = self.loop.time() + WAIT_S
        while self.room.version == version:
            left = deadline - self.loop.time()
            if left <= 0:
                break
            try:
                await asyncio.wait_for(self.next.wait(), left)
            except asyncio.TimeoutError:
                break
        return self.room.version


def application(t, title="DOCE tournament"):
    news_of = News(t.room)

    async def start(app):
        news_of.start()

    async def index(request):
        return web.Response(text=page(title, "/room.html", room_html(t)[0]), content_type="text/html")

    async def news(request):
        """Wait (at most WAIT_S) until the room has changed since ?since=V: (V, the version now)."""
        try:
            since = int(request.query.get("since", "-1"))
        except ValueError:
            raise web.HTTPBadRequest(text="since is a number\n") from None
        return since, await news_of.since(since)

    async def fragment(request):
        since, version = await news(request)
        text, whole = room_html(t, since if since >= 0 else None)
        return web.Response(text=text, content_type="text/html",
                            headers={"X-Version": str(version), "X-Part": "all" if whole else "changed"})

    async def as_json(request):
        return web.json_response(t.snapshot())

    def known(request):
        ident = request.match_info["ident"]
        if ident not in t.room.boards:
            raise web.HTTPNotFound(text="no board %s here\n" % ident)
        return ident

    async def board_page(request):
        ident = known(request)
        return web.Response(text=page(t.room.boards[ident].name, "/board/%s.part" % quote(ident, safe=""),
                                      board_html(t, ident), "one-board"), content_type="text/html")

    async def board_part(request):
        ident = known(request)
        _, version = await news(request)
        return web.Response(text=board_html(t, ident), content_type="text/html", headers={"X-Version": str(version)})

    async def board_svg(request):
        drawn = svg(t, known(request))
        if drawn is None:
            raise web.HTTPServiceUnavailable(text="no picture yet\n")
        return web.Response(text=drawn, content_type="image/svg+xml")

    @web.middleware
    async def no_foreign_code(request, handler):
        response = await handler(request)
        # the page is built from boards' and the CSV's words: no script may come with them
        response.headers["Content-Security-Policy"] = "default-src 'self'; style-src 'self' 'unsafe-inline'"
        return response

    app = web.Application(middlewares=[named_as_itself, no_foreign_code])
    app.on_startup.append(start)
    app.add_routes([web.get("/", index), web.get("/room.html", fragment), web.get("/room.json", as_json),
                    web.get("/board/{ident}.svg", board_svg), web.get("/board/{ident}.part", board_part),
                    web.get("/board/{ident}", board_page), web.static("/static", STATIC)])
    return app


def serve(t, sock, ready):
    """Serve the page on the bound socket `sock` until Ctrl-C; ready(url) once it is up."""
    async def run():
        runner = web.AppRunner(application(t))
        await runner.setup()
        site = web.SockSite(runner, sock)
        await site.start()
        ready()
        try:
            while True:
                await asyncio.sleep(3600)
        finally:
            await runner.cleanup()
    try:
        asyncio.run(run())
    except KeyboardInterrupt:
        pass
