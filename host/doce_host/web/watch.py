"""Follow a board over its link, for the web page: the game as its events leave it, the
board's own state when the events do not say enough, and what happened, in words. A real
board and the simulator are followed the same way.

A state is about 1.3 KB, some 110 ms of a 115200-baud line: asked for after every event, it
held each die back from the page that long, and held up the next event behind it. So each
event is applied to the last state on the host (doce_host/follow.py), its lights worked out
by the board's own code as the board works them out, and shown at once: a die, its light,
the zone and the last die's marker in one picture. The board's own state is asked for once
the events have paused (SETTLE), or at once after an event only the board can explain (a
refused die: which face is it?), whose lights only it knows (a problem to put right), or a
gap in their numbers.

One thread owns the link. It hands each new frame to `publish`, and carries out the
page's requests to the board (new match, new round, hint) between events.
"""

import concurrent.futures
import queue
import threading
import time

from doce.tables import Tables

from .. import rules as rulesfiles
from ..fleet.topics import BOARD_ID
from ..follow import after, lights, zones
from ..game_log import GameLog
from ..link import BoardLink, LinkError
from ..paths import load_board
from ..round_score import how_scored
from ..view import describe, printable, problems_in_words
from . import picture

LOG = 100  # events kept for a page that connects late
# Seconds between states while the lights blink or pulse: a state keeps the line busy some
# 110 ms, so a real board is asked less often than the simulator.
ANIMATED_EVERY = {"simulator": 0.25, "board": 1.0}
# Seconds without events before the board's state is asked for, for its lights: a hand
# clearing the board or playing quickly is not made to wait behind a state on the line.
SETTLE = 0.3
HEARTBEAT = 2.0  # s without a state or an event before a state is asked for, to notice a silent board
RETRY = 0.5  # s before opening the port again
SLOW = {"hint": 30.0}  # s a reply may take: a hint is thought between scans (docs/protocol.md, hint)


class Watch:
    def __init__(self, port, publish, timeout=3.0, animated_every=ANIMATED_EVERY["board"]):
        self.port = port
        self.publish = publish  # publish(frame), called from the watch thread
        self.timeout = timeout
        self.animated_every = animated_every
        self.requests = queue.Queue()
        self.log = GameLog(LOG)  # written from the server's thread too
        self.hello = None
        self.state = None
        self.seq = None  # the number of the last event the state shows
        self.heard = 0  # the highest event number heard since the board last started
        self.from_board = False  # whether the state is the board's own, or worked out from events since
        self.tables = None  # the board's rule tables, once known: its no-play zones and its scoring
        self.zone_of = None  # the no-play zones of the board's rules (doce_host/follow.py)
        self.rules = None  # the checksum of the rules zone_of is for
        self.problem = "connecting to %s" % port  # why there is no live state, or None
        self.stopping = False
        self.state_at = 0.0  # time.monotonic() when the board's state came
        # A paired board whose match does not run on it (out of memory starting it, doce/offline.py) has
        # no "remote" in its state, as a match for two: the `remote` command says whom it is paired with
        # and why it waits. Asked after a connect, a boot, an error or a warning (the pause and its end
        # are each one), not with every state: {"peer", "colour", "paused"} or None.
        self.paused = None
        self.ask_paused = True
        self.thread = threading.Thread(target=self._run, name="watch", daemon=True)

    def start(self):
        self.thread.start()

    def stop(self):
        self.stopping = True
        self.thread.join(timeout=5)

    def ask(self, cmd, log_refusal=True, **args):
        """Send a request to the board from any thread: a Future of its reply. A refusal
        shows in the log, unless the asker shows it itself."""
        reply = concurrent.futures.Future()
        self.requests.put((cmd, args, log_refusal, reply))
        return reply

    def frame(self):
        """What the page shows now: the picture (wide, and tall for a phone), the state it
        was drawn from, what to put right and how the round was scored in words, the log."""
        log = self.log.shown()
        state = self.state
        paused = self.paused if state and state.get("remote") is None else None
        return {"hello": self.hello, "state": state, "problem": self.problem, "from_board": self.from_board,
                "paused": paused,
                "svg": picture.draw(state) if state else None,
                "svg_tall": picture.draw(state, tall=True) if state else None, "log": log,
                "put_right": problems_in_words(state) if state else [],
                "scored": how_scored(self.tables, state) if state and self.tables else None}

    def note(self, text, kind="note"):
        self.log.note(text, kind)

    # -- the thread ---------------------------------------------------------------------

    def _run(self):
        self.publish(self.frame())  # "connecting", till the board answers
        while not self.stopping:
            try:
                with BoardLink(self.port, timeout=self.timeout) as link:
                    try:
                        self.hello = link.hello()
                        self.problem = None  # the first state, next, shows that
                        self.note("connected: %s, rules %s" % (self.hello.get("board"), self.hello.get("rules")))
                        self._follow(link)
                    finally:
                        self._apply_unread(link)
            except LinkError as e:
                self._set_problem(str(e))
                time.sleep(RETRY)
            except Exception as e:  # a reply this host cannot read or draw: say so, and start again
                self.state = None
                self._set_problem("%s: a reply this page cannot show (%s: %s); reconnecting"
                                  % (self.port, type(e).__name__, e))
                time.sleep(RETRY)

    def _apply_unread(self, link):
        """The events the link read while a request waited in vain: a board whose power was cut
        never answers the request, and then boots and says so. Taken before the port is opened
        again, which starts afresh."""
        while link.events:
            try:
                self._apply(link.next_event(timeout=0))
            except LinkError:
                pass  # not an event of the protocol's shape: the port opened again starts afresh

    def _set_problem(self, problem):
        if problem != self.problem:
            self.problem = problem
            if problem:
                self.note(problem, "error")
            self.publish(self.frame())

    def _follow(self, link):
        self.ask_paused = True
        self._refresh(link)
        events_at = 0.0  # when the last event came
        stale = False  # the lights shown are older than the last event
        while not self.stopping:
            self._carry_out(link)
            event = link.next_event(timeout=0.05)
            must = False
            if event is not None:
                while event is not None:  # a burst (placed, round_end, match_end): one frame after it
                    must = not self._apply(event) or must
                    event = link.next_event(timeout=0)
                events_at = time.monotonic()
                stale = True
                if not must:
                    self.publish(self.frame())
            now = time.monotonic()
            quiet = now - events_at >= SETTLE
            animated = self.state and self.state.get("animated")
            heard_from = max(self.state_at, events_at)  # a board silent that long may be gone
            if (must or (stale and quiet) or (animated and quiet and now - self.state_at >= self.animated_every)
                    or now - heard_from >= HEARTBEAT):
                self._refresh(link)
                stale = False

    def _apply(self, event):
        """Log an event, and follow the game with it: False if the board's state is needed."""
        self.log.event(event)  # a refusal waits for the board's own state, which shows the piece refused
        if event["event"] in ("boot", "error", "warning"):
            self.ask_paused = True
        seq = event.get("seq")
        self.heard = seq if event["event"] == "boot" else max(self.heard, seq)
        if self.seq is None:
            return False  # lost track: till the board's state comes, every event waits for it
        if seq <= self.seq:
            return True  # sent before the state we have: it shows it already
        followed = seq == self.seq + 1 and self.zone_of and after(self.state, event, self.zone_of)
        self.seq = seq if followed else None
        if not followed:
            return False
        lit = lights(followed, self.tables, load_board())
        if lit is None:
            return False  # lights only the board knows: its state, at once
        followed["leds"], followed["animated"] = lit
        self.state, self.from_board = followed, False
        return True

    def _carry_out(self, link):
        while not self.requests.empty():
            cmd, args, log_refusal, answer = self.requests.get_nowait()
            if not answer.set_running_or_notify_cancel():
                continue  # the asker gave up waiting
            try:
                reply = link.request(cmd, timeout=SLOW.get(cmd), **args)
            except Exception as e:  # the link is gone: the asker hears it, and the watch reconnects
                answer.set_exception(e)
                raise
            answer.set_result(reply)
            if log_refusal and not reply.get("ok"):
                self.note("%s: %s" % (cmd.replace("_", " "), reply.get("message") or reply.get("error")), "error")
                self.publish(self.frame())

    def _refresh(self, link):
        reply = link.ask("state")
        self.state, self.seq, self.from_board = reply["state"], reply.get("seq"), True
        if self.seq < self.heard:  # its numbers began again while no one listened: a reset or a power cut
            self.note(describe({"event": "boot"}), "boot")
        self.heard = self.seq
        self.state_at = time.monotonic()
        self.log.state(self.state)
        if self.ask_paused:
            self.ask_paused = False
            self.paused = None if self.state.get("remote") is not None else paused_match(link)
        self.publish(self.frame())
        checksum = self.state.get("rules_checksum")
        if self.rules != checksum:
            self.rules, self.tables = checksum, self._tables(link, self.state.get("rules"), checksum)
            self.zone_of = zones(self.tables) if self.tables else None

    def _tables(self, link, name, checksum):
        """The rule tables the board plays: the shipped rules of that name, if they are the
        board's (same checksum), else the board's own (rules_get, about 1 KB, once). None if
        neither can be had: then every die waits for the board's state."""
        try:
            tables = rulesfiles.load_tables(name) if name in rulesfiles.shipped_names() else None
            if tables is None or "%08x" % tables.checksum != checksum:
                tables = Tables(link.pull_rules())
        except (rulesfiles.RulesError, ValueError, LinkError):
            return None
        return tables


def paused_match(link):
    """The `remote` command's answer when the board is paired and its match paused ({"peer", "colour",
    "paused"}: whom with, and why, in the board's words), else None. What the board says is checked:
    the page shows it as text only, and only in this shape."""
    reply = link.request("remote")
    remote = reply.get("remote") if reply.get("ok") else None
    if not isinstance(remote, dict) or not isinstance(remote.get("paused"), str):
        return None
    peer, colour = remote.get("peer"), remote.get("colour")
    return {"peer": peer if isinstance(peer, str) and BOARD_ID.match(peer) else "?",
            "colour": colour if colour in ("white", "black") else "?", "paused": printable(remote["paused"][:400])}
