"""A remote match over MQTT over TLS (docs/remote.md, "Security"): two simulated boards, each with
the room's CA sent over USB as `doce config mqtt --ca` sends it and its own credentials, pair
through a real Mosquitto on the TLS-only config `doce fleet secure --tls` wrote, and play moves
that land on both boards. (The plain-TCP matches: test_remote.py.)"""

import pytest
from fleet_helpers import link
from remote_helpers import Pair
from test_board_tls import configure, secured_room


@pytest.fixture
def tls_broker(tmp_path):
    yield from secured_room(tmp_path, "127.0.0.1")


class TlsPair(Pair):
    """b1 and b2 on the room's TLS port, the room's CA theirs, each under its own name."""

    def __init__(self, folder, broker, room, credentials):
        self.room = room
        super().__init__(folder, broker, credentials=credentials)

    def join(self, sim, ident):
        configure(sim, self.room / "ca.crt", port=self.broker.port, user=ident, password=self.credentials[ident],
                  board_id=ident)


def test_two_boards_pair_and_play_over_tls_with_the_rooms_ca(tmp_path, tls_broker):
    broker, room, credentials, _ = tls_broker
    pair = TlsPair(tmp_path, broker, room, credentials)
    try:
        pair.pair()
        for sim in (pair.a, pair.b):  # TLS, the room's CA, and no fault on the way

            net = link(sim, cmd="net")
            assert net["config"]["tls"] is True and net["config"]["ca_set"] is True, net
            assert net["status"]["broker"] is True and net["status"]["fault"] is None, net
        moves = ((pair.a, "c3", "white 4"), (pair.b, "a1", "black 2"), (pair.a, "b2", "white blocker"),
                 (pair.a, "e5", "white 1"), (pair.b, "d4", "black 5"))
        for mover, cell, piece in moves:
            pair.play(mover, cell, piece)  # shown in light on the friend's board, put down there
        assert pair.until(pair.boards_agree)
        board = {"c3": "white 4", "a1": "black 2", "b2": "white blocker", "e5": "white 1", "d4": "black 5"}
        assert pair.a.state()["board"] == pair.b.state()["board"] == board
        assert pair.remote(pair.a)["plays"] == pair.remote(pair.b)["plays"] == len(moves)
        assert pair.remote(pair.a)["mismatch"] is None and pair.remote(pair.b)["mismatch"] is None
    finally:
        pair.close()
