"""Pairing over the broker asks each board's hello again when the first reaches no one: the
broker keeps no command for a board not yet subscribed (one that has just connected, or is
reconnecting), and a lost hello failed pairing after the whole timeout (seen under load)."""

import pytest

from doce_host.fleet import remote
from doce_host.fleet.remote import RemoteError, pair_on_broker


class Room:
    """A room whose first `lost` hellos to each board reach no one, and which records the rest."""

    prefix = "doce"

    def __init__(self, lost, checksums=None):
        self.lost = dict(lost)
        self.checksums = checksums or {}
        self.sent = []

    def command(self, board, cmd, timeout=5.0, pump=None, **args):
        self.sent.append((board, cmd, args))
        if cmd == "hello":
            if self.lost.get(board, 0):
                self.lost[board] -= 1
                return None
            return {"ok": True, "rules": "standard", "rules_checksum": self.checksums.get(board, "c0ffee00")}
        return {"ok": True, "remote": {"peer": args.get("peer")}}


def test_a_hello_that_reached_no_one_is_asked_again(monkeypatch):
    monkeypatch.setattr(remote, "HELLO_AGAIN_S", 0.01)
    room = Room({"b1": 2, "b2": 1})
    match = pair_on_broker(room, "b1", "b2", timeout=30)
    assert len(match) == 8
    hellos = [board for board, cmd, _ in room.sent if cmd == "hello"]
    assert hellos == ["b1", "b1", "b1", "b2", "b2"]


def test_a_board_that_never_answers_is_one_error_after_the_timeout(monkeypatch):
    monkeypatch.setattr(remote, "HELLO_AGAIN_S", 0.01)
    room = Room({"b1": 10 ** 9})
    with pytest.raises(RemoteError, match="b1 does not answer on the broker"):
        pair_on_broker(room, "b1", "b2", timeout=0.2)
    assert all(board == "b1" for board, _, _ in room.sent)
