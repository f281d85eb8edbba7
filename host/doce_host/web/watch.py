"""Follow a board over its link, for the web page: the state after every event, and what
happened, in words. A real board and the simulator are followed the same way.

One thread owns the link. It hands each new frame to `publish`, and carries out the
page's requests to the board (new match, new round, hint) between events.
"""

import collections
import concurrent.futures
import queue
import threading
import time

from ..link import BoardLink, LinkError
from ..view import describe
from . import picture

LOG = 100  # events kept for a page that connects late
# Seconds between states while the lights blink or pulse. A state is about 1.3 KB, some
# 110 ms of a 115200-baud line, so a real board is asked less often than the simulator.
ANIMATED_EVERY = {"simulator": 0.25, "board": 1.0}
HEARTBEAT = 2.0  # s between states while nothing happens, to notice a silent board
RETRY = 0.5  # s before opening the port again
SLOW = {"hint": 30.0}  # s a reply may take: a hint is thought between scans (docs/protocol.md, hint)


class Watch:
    def __init__(self, port, publish, timeout=3.0, animated_every=ANIMATED_EVERY["board"]):
        self.port = port
        self.publish = publish  # publish(frame), called from the watch thread
        self.timeout = timeout
        self.animated_every = animated_every
        self.requests = queue.Queue()
        self.log = collections.deque(maxlen=LOG)
        self.lock = threading.Lock()  # the log is written from the server's thread too
        self.hello = None
        self.state = None
        self.problem = "connecting to %s" % port  # why there is no live state, or None
        self.stopping = False
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
        was drawn from, the log."""
        with self.lock:
            log = list(self.log)
        state = self.state
        return {"hello": self.hello, "state": state, "problem": self.problem,
                "svg": picture.draw(state) if state else None,
                "svg_tall": picture.draw(state, tall=True) if state else None, "log": log}

    def note(self, text, kind="note"):
        with self.lock:
            self.log.append({"text": text, "kind": kind, "at": time.time()})

    # -- the thread ---------------------------------------------------------------------

    def _run(self):
        self.publish(self.frame())  # "connecting", till the board answers
        while not self.stopping:
            try:
                with BoardLink(self.port, timeout=self.timeout) as link:
                    self.hello = link.hello()
                    self.problem = None  # the first state, next, shows that
                    self.note("connected: %s, rules %s" % (self.hello.get("board"), self.hello.get("rules")))
                    self._follow(link)
            except LinkError as e:
                self._set_problem(str(e))
                time.sleep(RETRY)
            except Exception as e:  # a reply this host cannot read or draw: say so, and start again
                self.state = None
                self._set_problem("%s: a reply this page cannot show (%s: %s); reconnecting"
                                  % (self.port, type(e).__name__, e))
                time.sleep(RETRY)

    def _set_problem(self, problem):
        if problem != self.problem:
            self.problem = problem
            if problem:
                self.note(problem, "error")
            self.publish(self.frame())

    def _follow(self, link):
        self._refresh(link)
        last = time.monotonic()
        while not self.stopping:
            self._carry_out(link)
            event = link.next_event(timeout=0.05)
            quiet_for = time.monotonic() - last
            animated = self.state and self.state.get("animated")
            if event is None and quiet_for < (self.animated_every if animated else HEARTBEAT):
                continue
            while event is not None:  # a burst (placed, round_end, match_end): one state after it
                self.note(describe(event), event["event"])
                event = link.next_event(timeout=0)
            self._refresh(link)
            last = time.monotonic()

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
        self.state = link.state()
        self.publish(self.frame())
