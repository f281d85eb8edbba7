"""The web view's server: one page that shows a board live, for the simulator and for a
real board alike, fed by the link protocol's state and events (web/watch.py).

    GET  /           the page (static/: plain HTML, SVG and JS, no build step)
    GET  /ws         a WebSocket: the current frame at once, then every new one; the page
                     sends what a hand does ({"do": "place", "cell": "c3", "piece": "white 4"})
                     and what a player asks the board ({"do": "hint"}, {"do": "new_match",
                     "opponent": {"colour": "black", "level": 3}}); {"do": "press"} presses
                     the simulated board's button
    GET  /board.svg  the picture as it is now
    POST /replay     a recorded game (doce referee's format) in, its steps out
    GET  /docs/rules.md, /docs/lights.md...  the project's docs, as HTML (the page links to the
                     rules and to what the lights mean), and their pictures (/docs/images/)

/ws and /replay take ?picture=tall: the picture laid out for a phone (web/picture.py).

With the simulator, `world` is its SerialSim: the page's hands move dice in the simulated
world, and the firmware sees them through its sensors. A real board's dice move by hand.
"""

import asyncio
import collections
import errno
import ipaddress
import json
import re
import socket
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from aiohttp import WSMsgType, web
from doce.squares import parse_square
from doce.squares import piece as piece_value

from ..link import LinkError
from ..paths import ROOT, load_board
from ..recorded import GameFileError, steps
from ..round_score import how_scored
from ..rules import load_tables
from ..sim import SimError
from ..view import button_press, problems_in_words
from . import picture
from .watch import ANIMATED_EVERY, Watch

STATIC = Path(__file__).resolve().parent / "static"
DOCS = ROOT / "docs"
DOC_NAME = re.compile(r"[a-z]+\.md")  # docs/rules.md, docs/lights.md...: a name, never a path
IMAGE_NAME = re.compile(r"[a-z-]+\.png")
POWER_OFF_S = 1.5  # how long a "cut power" leaves the simulated board dark
MAX_MESSAGE = 4096  # bytes of one message from the page
ANSWER_WAIT = 15.0  # s the page waits for the board's answer (a hint: watch.SLOW, and a reconnect)
LEVELS = range(4)  # of the board's opponent (docs/opponent.md)


DOC_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>DOCE board: %s</title><link rel="stylesheet" href="/static/docs.css"></head>
<body><p class="back"><a href="/">Back to the board</a></p>
%s</body></html>
"""


class Refused(Exception):
    """A request from the page that cannot be carried out; the page shows the message."""


class Server:
    def __init__(self, port, world=None, timeout=3.0):
        self.world = world
        self.watch = Watch(port, self._from_watch, timeout,
                           ANIMATED_EVERY["simulator" if world else "board"])
        self.clients = set()  # a Client per connected page
        self.hands = asyncio.Lock()
        self.replayer = ThreadPoolExecutor(1)  # replays take turns: one cannot starve the board's page
        self.latest = {}  # the last frame as sent, per layout ("wide", "tall"), for a page that connects now
        self.frame = None  # the watch's last frame, before the server adds its own fields
        self.loop = None
        self.index = None  # the page as served, made at the first request
        self.board = load_board()
        # What a hand can put down: the pieces the board's die code reads. The page's picker shows these.
        self.pieces = sorted(set(self.board.dice.values()), key=piece_value)

    # -- frames out ---------------------------------------------------------------------

    def _from_watch(self, frame):
        """From the watch thread: hand the frame to the event loop (if it still runs)."""
        try:
            self.loop.call_soon_threadsafe(self._publish, frame)
        except RuntimeError:
            pass  # the server is shutting down

    def _publish(self, frame=None):
        """Send a frame to every page: the watch's, or (frame None) one made now."""
        self.frame = frame or self.watch.frame()
        self.latest = {}
        for client in self.clients:
            client.offer_frame(self._frame_text(client.layout))

    def _frame_text(self, layout):
        """The frame as a page with this layout is sent it: one picture, its layout's."""
        if self.frame is None:
            return None
        if layout not in self.latest:
            sim = {"power": self.world.wanted_on, "pieces": self.pieces} if self.world else None
            frame = {k: v for k, v in self.frame.items() if k != "svg_tall"}
            if layout == "tall":
                frame["svg"] = self.frame["svg_tall"]
            self.latest[layout] = json.dumps(dict(frame, type="frame", sim=sim))
        return self.latest[layout]

    # -- requests -----------------------------------------------------------------------

    async def page(self, request):
        if self.index is None:  # the page, with the key to its picture (picture.key)
            self.index = (STATIC / "index.html").read_text().replace("<!-- key -->", picture.key())
        return web.Response(text=self.index, content_type="text/html")

    async def doc(self, request):
        """One of the project's docs as a page: docs/NAME.md in HTML (markdown-it, raw HTML off)."""
        name = request.match_info["name"]
        path = DOCS / name
        if not DOC_NAME.fullmatch(name) or not path.is_file():
            raise web.HTTPNotFound(text="no such doc\n")
        from markdown_it import MarkdownIt
        body = MarkdownIt("commonmark", {"html": False}).enable("table").render(path.read_text())
        return web.Response(text=DOC_PAGE % (name, body), content_type="text/html")

    async def doc_image(self, request):
        name = request.match_info["name"]
        path = DOCS / "images" / name
        if not IMAGE_NAME.fullmatch(name) or not path.is_file():
            raise web.HTTPNotFound(text="no such picture\n")
        return web.FileResponse(path)

    async def picture_now(self, request):
        if not self.frame or not self.frame.get("svg"):
            raise web.HTTPServiceUnavailable(text="no picture yet: %s\n" % (self.frame or {}).get("problem"))
        return web.Response(text=self.frame["svg"], content_type="image/svg+xml")

    async def replay(self, request):
        stranger(request)
        if request.content_type != "application/json":  # another site's form cannot send this
            return web.json_response({"error": "send the recorded game as application/json"}, status=415)
        tall = request.query.get("picture") == "tall"
        try:
            recorded = json.loads(await request.text())
            frames = await asyncio.get_running_loop().run_in_executor(self.replayer, replay_steps, recorded, tall)
        except (ValueError, RecursionError) as e:  # not JSON or UTF-8, or not a game (GameFileError)
            message = str(e) if isinstance(e, GameFileError) else "not a recorded game: %s" % e
            return web.json_response({"error": message}, status=400)
        return web.json_response({"steps": frames})

    async def socket(self, request):
        stranger(request)
        ws = web.WebSocketResponse(heartbeat=20, max_msg_size=MAX_MESSAGE)
        await ws.prepare(request)
        layout = "tall" if request.query.get("picture") == "tall" else "wide"
        client = Client(ws, self._frame_text(layout), layout)  # a page that (re)connects sees the board at once
        self.clients.add(client)
        try:
            async for message in ws:
                if message.type == WSMsgType.TEXT:
                    client.reply(await self.answer(message.data))
        finally:
            self.clients.discard(client)
            client.close()
        return ws

    async def answer(self, text):
        """The reply to one message from the page: done, or refused with the reason."""
        try:
            request = json.loads(text)
        except (ValueError, RecursionError):
            return {"type": "refused", "message": "not JSON"}
        if not isinstance(request, dict):
            return {"type": "refused", "message": 'a request is {"do": ...}'}
        reply = {"type": "done", "id": request.get("id")}
        try:
            if request.get("do") in ("new_match", "new_round", "hint"):  # for the board, not a hand
                reply.update(await self.ask_board(request))
            else:
                async with self.hands:  # one hand at a time: the simulated world is not shared
                    reply.update(await self.act(request) or {})
        except (Refused, ValueError, SimError) as e:  # the simulated world's own refusal
            reply.update(type="refused", message=str(e))
        return reply

    # -- what a player asks the board -----------------------------------------------------

    async def ask_board(self, request):
        do = request["do"]
        if do == "new_round":
            self.watch.ask(do)
        elif do == "new_match":
            opponent = request.get("opponent")
            self.watch.ask(do, **({} if opponent is None else {"opponent": opponent_argument(opponent)}))
        else:  # the hint: its answer goes to the page that asked
            try:
                answer = await asyncio.wait_for(asyncio.wrap_future(self.watch.ask(do, log_refusal=False)),
                                                ANSWER_WAIT)
            except asyncio.TimeoutError:
                raise Refused("the board has not answered the hint (is it connected?)") from None
            except LinkError as e:
                raise Refused(str(e)) from None
            if not answer.get("ok"):
                raise Refused("No hint: %s" % (answer.get("message") or answer.get("error")))
            return {"hint": answer["hint"]}  # its shape checked by the link (docs/protocol.schema.json)
        return {}

    # -- what a hand does -----------------------------------------------------------------

    async def act(self, request):
        do = request.get("do")
        if do not in ("place", "lift", "clear", "cut_power", "press"):
            raise Refused("unknown request %s" % json.dumps(do))
        world = self.world
        if world is None:
            raise Refused("this is a real board: move its dice by hand")
        run = asyncio.get_running_loop().run_in_executor
        if do == "place":
            cell, piece = self._cell(request), request.get("piece")
            if piece not in self.pieces:
                white = [p for p in self.pieces if p.startswith("white ") and p != "white blocker"]
                raise Refused('a piece is "%s" to "%s", "white blocker", or the same for black' % (white[0], white[-1]))
            if cell in world.pieces:
                raise Refused("%s has a piece on it: lift it first" % cell)
            await run(None, world.place, cell, piece)
        elif do == "lift":
            cell = self._cell(request)
            if cell not in world.pieces:
                raise Refused("there is nothing on %s to lift" % cell)
            await run(None, world.lift, cell)
        elif do == "clear":
            for cell in list(world.pieces):
                await run(None, world.lift, cell)
        elif do == "press":  # a finger on the board's button, a tenth of a second
            await run(None, world.press)
            state = self.watch.state
            return {"said": button_press(state)} if state else {}
        elif do == "cut_power":
            if not world.wanted_on:
                raise Refused("the power is already off")
            await run(None, world.cut_power)
            self.watch.note("the power is cut; the dice stay where they are", "power")
            self._publish()
            await asyncio.sleep(POWER_OFF_S)
            await run(None, world.power_on)
            self.watch.note("the power is back", "power")
            self._publish()

    def _cell(self, request):
        cell = request.get("cell")
        if parse_square(self.board.grid, cell) is None:
            raise Refused("%s is not a square of this board" % json.dumps(cell))
        return cell

    # -- running ------------------------------------------------------------------------

    def app(self):
        app = web.Application(client_max_size=1 << 20, middlewares=[named_as_itself])
        app.on_response_prepare.append(no_foreign_code)
        app.add_routes([web.get("/", self.page), web.get("/ws", self.socket),
                        web.get("/board.svg", self.picture_now), web.post("/replay", self.replay),
                        web.get("/docs/images/{name}", self.doc_image), web.get("/docs/{name}", self.doc),
                        web.static("/static", STATIC)])
        return app

    async def run(self, sock, ready):
        self.loop = asyncio.get_running_loop()
        runner = web.AppRunner(self.app(), access_log=None)
        await runner.setup()
        await web.SockSite(runner, sock).start()
        self.watch.start()
        ready()
        try:
            await asyncio.Event().wait()  # until Ctrl-C
        finally:
            self.watch.stopping = True
            clients = list(self.clients)
            for client in clients:  # or the server waits for each page to leave
                await client.ws.close()
                client.close()
            if clients:
                await asyncio.wait([c.sender for c in clients], timeout=5)  # their last frames through
            await runner.cleanup()
            self.replayer.shutdown(wait=False, cancel_futures=True)


def opponent_argument(opponent):
    """The page's choice of opponent, as the board takes it, or Refused."""
    if (not isinstance(opponent, dict) or set(opponent) != {"colour", "level"}
            or opponent["colour"] not in ("white", "black") or type(opponent["level"]) is not int
            or opponent["level"] not in LEVELS):
        raise Refused('the opponent is {"colour": "white" or "black", "level": 0 to 3}')
    return {"colour": opponent["colour"], "level": opponent["level"]}


class Client:
    """A connected page: replies in order, and of the frames only the newest, so a page that
    reads slowly is sent the board as it is, not a backlog. `layout`: the picture it shows."""

    def __init__(self, ws, frame, layout="wide"):
        self.ws = ws
        self.layout = layout
        self.replies = collections.deque()
        self.frame = frame
        self.closing = False
        self.ready = asyncio.Event()
        if frame:
            self.ready.set()
        self.sender = asyncio.create_task(self._send())

    def offer_frame(self, text):
        self.frame = text
        self.ready.set()

    def reply(self, message):
        self.replies.append(json.dumps(message))
        self.ready.set()

    def close(self):
        """The page has gone. The sender ends once a frame on its way is through: cancelled
        mid-send, it would leave aiohttp's shielded task compressing a large frame to fail on
        the closed connection with no one to hear it ("Task exception was never retrieved")."""
        self.closing = True
        self.ready.set()

    async def _send(self):
        while not self.ws.closed and not self.closing:
            await self.ready.wait()
            self.ready.clear()
            if self.closing:
                return
            texts = list(self.replies) + ([self.frame] if self.frame else [])
            self.replies.clear()
            self.frame = None
            try:
                for text in texts:
                    await self.ws.send_str(text)
            except ConnectionError:
                return


def stranger(request):
    """Refuse a request made by another site's page (a browser says where a page came from)."""
    origin = request.headers.get("Origin")
    if origin and origin.split("://", 1)[-1] != request.host:
        raise web.HTTPForbidden(text="the board's page only takes requests from itself\n")


def own_name(host):
    """Whether a request's Host names this computer: an IP address, localhost, or the computer's
    own name. Any other name may be a DNS rebinding: another site's name made to point here, so
    its page would pass the Origin check (its Origin and our Host would both be its name)."""
    name = host.rsplit(":", 1)[0] if host.count(":") == 1 else host  # a port after a name or IPv4
    if name.startswith("[") and "]" in name:
        name = name[1:name.index("]")]  # [::1]:8000
    name = name.rstrip(".").lower()
    try:
        ipaddress.ip_address(name)
        return True
    except ValueError:
        pass
    me = socket.gethostname().lower()
    return name in ("localhost", me, me + ".local")


@web.middleware
async def named_as_itself(request, handler):
    if not own_name(request.host):
        raise web.HTTPMisdirectedRequest(text="this page answers at this computer's address (an IP address or "
                                              "localhost), not at another name\n")
    return await handler(request)


async def no_foreign_code(request, response):
    # Defence in depth: the picture is built from a device's words; no script may come with it.
    response.headers["Content-Security-Policy"] = "default-src 'self'; style-src 'self' 'unsafe-inline'"


def replay_steps(recorded, tall=False):
    """Each step of a recorded game: its picture, what happened, and in words what to put right
    and how a round that ended was scored, as the live page shows them."""
    out, tables = [], {}
    for state, note in steps(recorded):
        if state["rules"] not in tables:  # a shipped name: steps() takes no other
            tables[state["rules"]] = load_tables(state["rules"])
        out.append({"svg": picture.draw(state, tall=tall), "note": note, "put_right": problems_in_words(state),
                    "scored": how_scored(tables[state["rules"]], state)})
    return out


class PortTaken(OSError):
    """The port someone asked for is taken, in one line."""

    def __str__(self):
        return self.strerror


def listen_on(host, port):
    """A socket for a page on the port asked for: a port someone typed (--http N) is used or refused
    in one line, never quietly swapped; the default one (commandline.DefaultPort) falls back to any
    free port, and the page's address says which; 0 is any free one."""
    from ..commandline import DefaultPort
    try:
        return listen(host, port, fallback=isinstance(port, DefaultPort))
    except OSError as e:
        if e.errno != errno.EADDRINUSE:
            raise
        raise PortTaken(e.errno, "port %d is taken on %s (another doce page?): give another with --http PORT, or "
                                 "--http 0 for any free one" % (port, host)) from None


def listen(host, port, fallback=True):
    """A socket bound to (host, port); if that port is taken and `fallback`, any free one."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    if sys.platform != "win32":  # there it would let two servers share a port
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as e:
        if e.errno != errno.EADDRINUSE or not fallback:
            sock.close()
            raise
        sock.bind((host, 0))
    sock.listen(64)
    return sock


def url_of(sock):
    host, port = sock.getsockname()[:2]
    return "http://%s:%d/" % ("[%s]" % host if ":" in host else host, port)


def serve(port, world=None, host="127.0.0.1", http_port=8000, ready=print, timeout=3.0, sock=None):
    """Serve the page for the board on serial `port` until Ctrl-C; `ready(url)` once it is up.
    `sock`: the page's socket, bound already (listen_on), else one on host:http_port."""
    serve_several([(port, world)], host, http_port, lambda urls: ready(urls[0]), timeout,
                  socks=[sock] if sock else None)


def serve_until_stopped(main):
    """asyncio.run(main), ended by Ctrl-C, SIGTERM or SIGHUP alike. asyncio.run ends its task cleanly on
    Ctrl-C (it cancels it); the doce command's own handler for the others (cli.py) raised KeyboardInterrupt
    wherever the loop was, and left its tasks pending ("Task was destroyed but it is pending!",
    "coroutine ignored GeneratorExit"): here they cancel the task as Ctrl-C does."""
    import signal
    kept = {}

    async def run():
        task, loop = asyncio.current_task(), asyncio.get_running_loop()
        for sig in (signal.SIGTERM, getattr(signal, "SIGHUP", None)):
            if sig is not None:
                try:
                    kept[sig] = signal.getsignal(sig)
                    loop.add_signal_handler(sig, task.cancel)
                except (ValueError, RuntimeError, NotImplementedError):  # not the main thread (a test's)
                    kept.pop(sig, None)
        await main
    try:
        asyncio.run(run())
    except (KeyboardInterrupt, asyncio.CancelledError):
        pass
    finally:
        for sig, handler in kept.items():  # the doce command's again, for what it closes next
            signal.signal(sig, handler)


def serve_several(boards, host="127.0.0.1", http_port=8000, ready=print, timeout=3.0, first=0, socks=None):
    """Serve a page for each (serial port, world) of `boards`, the n-th on `http_port` + `first` + n
    (listen_on: a port typed is used or refused, the default one falls back to a free one; 0: any
    free ones), all in one event loop, until Ctrl-C; `ready([url, ...])` once every one is up."""
    socks = list(socks or [])
    try:
        for n in range(len(socks), len(boards)):
            socks.append(listen_on(host, type(http_port)(http_port + first + n) if http_port else 0))
    except OSError:
        for sock in socks:
            sock.close()
        raise
    servers = [Server(port, world, timeout) for port, world in boards]
    up = []

    def one_up():
        up.append(True)
        if len(up) == len(servers):
            ready([url_of(sock) for sock in socks])

    async def run_all():
        await asyncio.gather(*(server.run(sock, one_up) for server, sock in zip(servers, socks)))
    try:
        serve_until_stopped(run_all())
    finally:
        for server in servers:
            server.watch.stop()
