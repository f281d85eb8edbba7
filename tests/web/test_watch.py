"""web/watch.py on a board's 115200-baud line: a die shows from its event, before the board is
asked for its whole state (some 110 ms of the line), and the state follows once play pauses."""

import threading

import pytest
from waiting import until

import doce_host.web.watch as watch_module
from doce_host.link import BoardLink
from doce_host.sim.serial_sim import SerialSim
from doce_host.web.watch import Watch


class Seen:
    """In order: each frame the watch published (who drew it, the piece on c3) and each state
    request it sent the board."""

    def __init__(self, monkeypatch):
        self.log = []
        self.lock = threading.Lock()
        request = BoardLink._request

        def counted(link, cmd, timeout, args):
            if cmd == "state":
                self.add(("asked", "state"))
            return request(link, cmd, timeout, args)
        monkeypatch.setattr(BoardLink, "_request", counted)

    def add(self, entry):
        with self.lock:
            self.log.append(entry)

    def frame(self, frame):
        state = frame.get("state") or {}
        self.add(("frame", "board" if frame["from_board"] else "events", state.get("board", {}).get("c3")))

    def since(self, n):
        with self.lock:
            return self.log[n:]


@pytest.fixture
def following(tmp_path, monkeypatch):
    """A simulated board on its serial line, a Watch following its round in play, and what it did."""
    seen = Seen(monkeypatch)
    # a state asked of a board silent for 2 s: not what these tests watch, and on a busy machine one
    # came between a die's event and the frame drawn from it
    monkeypatch.setattr(watch_module, "HEARTBEAT", 3600)
    with SerialSim(tmp_path) as sim:
        watch = Watch(sim.path, seen.frame)
        watch.start()
        try:
            until(lambda: watch.state and watch.state["mode"] == "playing" and watch.zone_of, timeout=30,
                  what="the watch following a round in play")
            yield sim, watch, seen
        finally:
            watch.stop()


def test_a_die_shows_from_its_event_before_the_board_is_asked_for_its_state(following):
    sim, watch, seen = following
    start = len(seen.log)
    sim.place("c3", "white 4")
    until(lambda: ("frame", "board", "white 4") in seen.since(start), timeout=30,
          what="the board's own state with the die")
    after = seen.since(start)
    shown = after.index(("frame", "events", "white 4"))
    assert ("asked", "state") not in after[:shown]  # the die was on the page before any state was asked
    assert after.index(("asked", "state")) > shown  # and the lights came after, from the board


def test_a_refused_die_is_drawn_from_the_boards_state(following):
    sim, watch, seen = following
    start = len(seen.log)
    sim.place("c3", "black 4")  # white opens: not black's turn; which die is it? the state says
    # the watch sets its state, then publishes the frame drawn from it: wait for both
    until(lambda: watch.state.get("problems") == {"c3": "not_your_turn"}
          and ("frame", "board", None) in seen.since(start), timeout=30, what="the refusal, drawn")
    assert [e for e in seen.since(start) if e[0] == "frame"][-1][1] == "board"
    assert watch.state["seen"] == {"c3": "black 4"}


def test_a_paused_remote_match_is_shown_with_the_friend_and_why(monkeypatch):
    """Review of issue 41, finding 6: while a remote match is paused (out of memory starting it, doce/
    offline.py) the board's state has no "remote", as a match for two, so the page showed no friend and
    offered "Play against the board" and "New match", which the board refuses. The watch asks `remote`
    after a connect, a boot, an error or a warning, and the frame says whom with and why."""
    from doce.offline import PAUSED
    asked = []
    paired = {"peer": "b2", "colour": "black", "match": "7f3a01c2", "connected": False, "paused": PAUSED}

    class Link:
        remote = paired

        def ask(self, cmd, **args):
            return {"ok": True, "seq": 1, "state": {"remote": None, "mode": "playing", "rules_checksum": None}}

        def request(self, cmd, **args):
            asked.append(cmd)
            return {"ok": True, "remote": self.remote}
    watch = Watch("/dev/null", lambda frame: None)
    link = Link()
    monkeypatch.setattr(watch_module.picture, "draw", lambda state, tall=False: "")
    monkeypatch.setattr(watch_module, "problems_in_words", lambda state: [])
    watch.ask_paused = True
    watch._refresh(link)
    frame = watch.frame()
    assert frame["paused"] == {"peer": "b2", "colour": "black", "paused": PAUSED} and asked == ["remote"]
    watch._refresh(link)  # a state every few seconds: the board is not asked again for nothing
    assert asked == ["remote"]
    link.remote = dict(paired, peer="x\n\x1b[2J", colour="red")  # what a board says is checked
    watch._apply({"event": "warning", "message": "the match with the friend's board b2 goes on", "seq": 2})
    watch._refresh(link)
    assert watch.frame()["paused"] == {"peer": "?", "colour": "?", "paused": PAUSED} and asked == ["remote"] * 2
    link.remote = None  # it runs now
    watch._apply({"event": "boot", "seq": 1})
    watch._refresh(link)
    assert watch.frame()["paused"] is None
