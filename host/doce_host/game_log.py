"""What happened on a board, in a player's words, as its pages show it: the simulator's and a
real board's page (web/watch.py) and its page in the room (fleet/tournament.py) keep the same
lines, so a player reads the same game the same way on either.

- Clearing the board is one line, its count of pieces left updated in place.
- A refused piece is worded with the first state that came after it, which shows what was put
  down ("refused: b4: that is a white die; black is to move").
"""

import collections
import threading
import time

from .view import describe


class FriendNews:
    """Whether a board's event is news for a person reading its log (the page's, doce monitor's): a
    `remote` event with no move to put down, the friend's board neither come nor gone, is not. A board
    sends one each time the move to put down changes, so after every move of the friend's."""

    def __init__(self):
        self.said = None  # whether the friend's board was last said connected, or None

    def __call__(self, event):
        if event.get("event") == "boot":  # a board started again says where it stands again
            self.said = None
        if event.get("event") != "remote":
            return True
        said, self.said = self.said, event.get("connected")
        return bool(event.get("move")) or self.said != said


class GameLog:
    def __init__(self, keep):
        self.lines = collections.deque(maxlen=keep)  # {"text", "kind", "at"}, oldest first
        self.lock = threading.Lock()  # written from a link's or a broker's thread, read from a page's
        self.unworded = []  # refusals waiting for a state that shows them
        self.news = FriendNews()

    def note(self, text, kind="note"):
        with self.lock:
            if kind == "clearing" and self.lines and self.lines[-1]["kind"] == "clearing":
                self.lines.pop()  # one line for the whole clearing, the count as it stands
            self.lines.append({"text": text, "kind": kind, "at": time.time()})

    def event(self, event, state=None, seq=None):
        """An event from the board. `state` (numbered `seq`), the board's latest, words a refusal
        if it came after it; else the refusal waits for the next state (see state())."""
        if event.get("event") == "boot":  # its numbers start again: no later state shows them
            for waiting in self.unworded:
                self.note(describe(waiting), "illegal")
            self.unworded = []
        if not self.news(event):
            return
        if event.get("event") != "illegal":
            self.note(describe(event), event.get("event"))
        elif state is not None and after(seq, event):
            self.note(describe(event, state), "illegal")
        else:
            self.unworded.append(event)
            if len(self.unworded) > self.lines.maxlen:  # a board that sends no state: said as the event says it
                self.note(describe(self.unworded.pop(0)), "illegal")

    def state(self, state, seq=None):
        """The board's state, numbered `seq` (None: newer than every event heard): the refusals
        it comes after are worded with it."""
        waiting = []
        for event in self.unworded:
            if after(seq, event):
                self.note(describe(event, state), "illegal")
            else:
                waiting.append(event)
        self.unworded = waiting

    def shown(self, most=None):
        """The lines, oldest first; the last `most` of them if given."""
        with self.lock:
            lines = list(self.lines)
        return lines[-most:] if most else lines


def after(seq, event):
    """Whether a state numbered `seq` shows what `event` did (None: it does)."""
    number = event.get("seq")
    return seq is None or not isinstance(number, int) or not isinstance(seq, int) or seq >= number
