"""`doce fleet web`: the tournament page. Every board of the room live on one screen (each the
simulator page's own picture, doce_host/web/picture.py), a click opens that board's page, and
the standings and the round's pairings beside them.

Pairings come from a CSV file that assigns players to boards, one row per board and round:

    round,board,white,black
    1,table1,Ana,Ben
    1,table2,Cleo,Dev

`round` may be left out (then every row is round 1). `board` is a board's id (as in its topics)
or its name. Standings count, per player, the DOCE points their boards scored for them (the
rulebook's round scoring, as the boards' `totals` say) and the matches they won: every match
this page saw end, credited to the players paired on that board in the round on show, and the
matches in play as they stand.

    GET /               the page (it asks for /room.html?since=V again as each answer comes)
    GET /room.html      the boards, standings and pairings, as HTML; with ?since=V, once a board
                        has said something since version V (or after WAIT_S), and then only the
                        boards that did (X-Part: changed; X-Part: all when every board is in it,
                        as when a board joined since V); the version now in X-Version
    GET /room.json      the same, as JSON
    GET /board/ID       one board's page: its picture, large, and its latest events
    GET /board/ID.svg   its picture
"""

import asyncio
import csv
import html
import json
import threading
from pathlib import Path
from urllib.parse import quote

from aiohttp import web

from ..web import picture
from ..web.server import named_as_itself

TEXT_MAX = 64  # a name or id in the CSV: as long as a board's own settings (doce/net.py)
BAD_ID = set("/+#")  # not in an MQTT topic level (MQTT 3.1.1, 4.7)
COLUMNS = ("round", "board", "white", "black")
MAX_ROWS = 10000
WAIT_S = 20  # the longest a page's request waits for news: well inside browsers' and proxies' limits


class PairingsError(ValueError):
    """A CSV that is not a pairings file: one line saying where and why."""


def load_pairings(path):
    """{round: [(board, white, black), ...]} from a pairings CSV, checked strictly."""
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except OSError as e:
        raise PairingsError("%s: cannot read (%s)" % (path, e.strerror)) from None
    except UnicodeDecodeError:
        raise PairingsError("%s: not UTF-8 text" % path) from None
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


class Tournament:
    """What the page shows, from a Room (doce_host/fleet/room.py) and the pairings."""

    def __init__(self, room, pairings=None, round_number=None):
        self.room = room
        self.pairings = pairings or {}
        self.round = round_number or (max(self.pairings) if self.pairings else None)
        self.finished = []  # (white player, black player, match totals), each match seen to end
        self.lock = threading.Lock()
        self.pictures = {}  # board id -> (the state it was drawn from, svg)
        self.before = room.on_event
        room.on_event = self._event

    def _event(self, ident, event, state):
        if self.before:
            self.before(ident, event, state)
        if event.get("event") == "match_end" and isinstance(event.get("match"), dict):
            players = self.players_of(ident)
            if players:
                with self.lock:
                    self.finished.append((players[0], players[1], event["match"], ident))

    def pairs(self):
        return self.pairings.get(self.round, [])

    def players_of(self, ident):
        """(white, black) paired on this board in the round on show, or None."""
        board = self.room.boards.get(ident)
        name = board.name if board else None
        for key, white, black in self.pairs():
            if key == ident or key == name:
                return white, black
        return None

    def snapshot(self):
        """Boards, pairings and standings as plain JSON values."""
        boards = []
        for row in self.room.rows():
            players = self.players_of(row["id"])
            row = dict(row, white_player=players[0] if players else None, black_player=players[1] if players else None)
            s = self.state(row["id"])
            row["winner"] = s.get("winner") if isinstance(s, dict) else None
            boards.append(row)
        ids = {b["id"] for b in boards} | {b["name"] for b in boards}
        pairings = [{"board": key, "white": w, "black": b, "seen": key in ids} for key, w, b in self.pairs()]
        return {"round": self.round, "boards": boards, "pairings": pairings, "standings": self.standings(boards)}

    def state(self, ident):
        board = self.room.boards.get(ident)
        payload = board.state if board else None
        s = payload.get("state") if isinstance(payload, dict) else None
        return s if isinstance(s, dict) else None

    def standings(self, boards):
        table = {}

        def credit(player, points, won, played):
            row = table.setdefault(player, {"player": player, "points": 0, "won": 0, "played": 0})
            row["points"] += points
            row["won"] += won
            row["played"] += played

        with self.lock:
            finished = list(self.finished)
        ended_on = {ident for *_, ident in finished}
        for white, black, match, _ in finished:
            for player, colour in ((white, "white"), (black, "black")):
                credit(player, number(match.get(colour)), match.get("winner") == colour, 1)
        for _, white, black in self.pairs():
            for player in (white, black):
                credit(player, 0, 0, 0)  # everyone paired shows, from nought
        for b in boards:
            if not b["white_player"] or (b["id"] in ended_on and b["winner"]):
                continue  # no pairing, or its ended match is counted above
            totals = b.get("totals") if isinstance(b.get("totals"), dict) else {}
            for player, colour in ((b["white_player"], "white"), (b["black_player"], "black")):
                credit(player, number(totals.get(colour)), b["winner"] == colour, 1 if b["winner"] else 0)
        return sorted(table.values(), key=lambda r: (-r["won"], -r["points"], r["player"]))

    def svg(self, ident):
        """The board's picture (cached per state it was drawn from), or None."""
        board = self.room.boards.get(ident)
        payload = board.state if board else None
        cached = self.pictures.get(ident)
        if cached and cached[0] is payload:
            return cached[1]
        s = self.state(ident)
        try:
            drawn = picture.draw(s, title=board.name) if s else None
        except (KeyError, TypeError, ValueError, AttributeError, IndexError):  # a state that is not one
            drawn = None
        self.pictures[ident] = (payload, drawn)
        return drawn


def number(value):
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


# -- HTML: every text from a board or the CSV goes through esc() -------------------------------

def esc(value):
    return html.escape("" if value is None else str(value), quote=True)


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
        svg = t.svg(b["id"])
        players = ("%s &ndash; %s" % (esc(b["white_player"]), esc(b["black_player"]))
                   if b["white_player"] else "no pairing")
        out.append('<a class="tile %s" href="/board/%s" data-board="%s"><div class="name">%s</div>'
                   '<div class="players">%s</div><div class="picture">%s</div>'
                   '<div class="line">round %s &middot; %s&ndash;%s &middot; %s</div></a>'
                   % ("online" if b["online"] else "offline", esc(quote(b["id"], safe="")), esc(b["id"]),
                      esc(b["name"]), players, svg or '<p class="none">no picture yet</p>', esc(b["round"]),
                      esc((b["totals"] or {}).get("white", "?") if isinstance(b["totals"], dict) else "?"),
                      esc((b["totals"] or {}).get("black", "?") if isinstance(b["totals"], dict) else "?"),
                      "online" if b["online"] else "offline"))
    if not snap["boards"]:
        out.append('<p class="none">No boards yet: they show as they join the broker.</p>')
    out.append('</section><aside><h2>Standings</h2><table class="standings"><tr><th>#</th><th>player</th>'
               '<th>won</th><th>points</th><th>played</th></tr>')
    for i, r in enumerate(snap["standings"], 1):
        out.append("<tr><td>%d</td><td>%s</td><td>%d</td><td>%d</td><td>%d</td></tr>"
                   % (i, esc(r["player"]), r["won"], r["points"], r["played"]))
    out.append('</table><h2>Pairings%s</h2><table class="pairings"><tr><th>board</th><th>white</th>'
               '<th>black</th></tr>' % (", round %d" % snap["round"] if snap["round"] else ""))
    for p in snap["pairings"]:
        out.append('<tr class="%s"><td>%s</td><td>%s</td><td>%s</td></tr>'
                   % ("seen" if p["seen"] else "unseen", esc(p["board"]), esc(p["white"]), esc(p["black"])))
    if not snap["pairings"]:
        out.append('<tr><td colspan="3">none loaded (--pairings FILE.csv)</td></tr>')
    out.append("</table></aside>")
    return "".join(out), whole


def board_html(t, ident):
    board = t.room.boards[ident]
    players = t.players_of(ident)
    events = [e for _, e in board.events[-12:]]
    out = ['<p><a href="/">&larr; every board</a> &middot; %s &middot; %s</p>'
           '<div class="picture large">%s</div>'
           % (esc(ident), ("%s (white) &ndash; %s (black)" % tuple(map(esc, players)))
              if players else "no pairing", t.svg(ident) or '<p class="none">no picture yet</p>'),
           '<h2>Latest events</h2><ol class="events">']
    for e in reversed(events):
        out.append("<li>%s</li>" % esc(json.dumps(e, sort_keys=True)))
    out.append("</ol>")
    return "".join(out)


PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>%s</title>
<link rel="stylesheet" href="/fleet.css"></head>
<body data-source="%s" class="%s"><header><h1>%s</h1></header><main id="room">%s</main>
<script src="/fleet.js"></script></body></html>
"""


def page(title, source, body, kind="room"):
    return PAGE % (esc(title), esc(source), kind, esc(title), body)


# The page's own script: ask for news since the version it shows, put the answer in place, and
# ask again at once. An answer of the boards that changed replaces their tiles and the standings;
# any other, the whole part. (A file of its own, not inline: the Content-Security-Policy lets no
# inline script run.)
SCRIPT = """
(function () {
  var source = document.body.getAttribute("data-source");
  var main = document.getElementById("room");
  var since = -1;
  function patch(text) {  // the tiles of the boards that changed, and the standings
    var part = document.createElement("template");
    part.innerHTML = text;
    var boards = main.querySelector(".boards");
    part.content.querySelectorAll(".tile").forEach(function (tile) {
      var id = tile.getAttribute("data-board");
      var shown = Array.prototype.find.call(boards.children, function (t) {
        return t.getAttribute("data-board") === id;
      });
      if (shown) shown.replaceWith(tile); else boards.appendChild(tile);
    });
    var aside = part.content.querySelector("aside");
    if (aside) main.querySelector("aside").replaceWith(aside);
  }
  function refresh() {  // the server answers once a board has news: ask again at once
    var changed = false;
    fetch(source + "?since=" + since, {cache: "no-store"}).then(function (r) {
      if (!r.ok) throw new Error(r.status);
      since = r.headers.get("X-Version");
      changed = r.headers.get("X-Part") === "changed" && main.querySelector(".boards");
      return r.text();
    }).then(function (text) {
      // built by the server, every board's and the CSV's words escaped
      if (changed) patch(text); else main.innerHTML = text;
      document.body.classList.remove("stale");
      refresh();
    }).catch(function () {
      document.body.classList.add("stale");
      setTimeout(refresh, 1000);
    });
  }
  refresh();
})();
"""
STYLE = """
body { font-family: "DejaVu Sans", Verdana, sans-serif; margin: 0 1em; background: #f7f5f0; color: #222; }
body.stale main { opacity: 0.5; }
.room #room { display: flex; gap: 1.5em; align-items: flex-start; }
.boards { display: grid; grid-template-columns: repeat(auto-fill, minmax(230px, 1fr)); gap: 0.8em; flex: 1; }
.tile { display: block; background: #fff; border: 2px solid #bbb; border-radius: 8px; padding: 0.4em;
        color: inherit; text-decoration: none; }
.tile.online { border-color: #009e73; }
.tile.offline { opacity: 0.6; }
.tile .name { font-weight: bold; }
.tile svg, .picture.large svg { width: 100%; height: auto; }
.picture.large { max-width: 900px; }
aside { width: 22em; }
table { border-collapse: collapse; width: 100%; }
td, th { border-bottom: 1px solid #ddd; padding: 0.2em 0.4em; text-align: left; }
tr.unseen td:first-child { color: #d55e00; }
.none { color: #777; }
"""


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
            self.loop.call_soon_threadsafe(self._came)
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
        svg = t.svg(known(request))
        if svg is None:
            raise web.HTTPServiceUnavailable(text="no picture yet\n")
        return web.Response(text=svg, content_type="image/svg+xml")

    async def script(request):
        return web.Response(text=SCRIPT, content_type="application/javascript")

    async def style(request):
        return web.Response(text=STYLE, content_type="text/css")

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
                    web.get("/board/{ident}", board_page), web.get("/fleet.js", script), web.get("/fleet.css", style)])
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
