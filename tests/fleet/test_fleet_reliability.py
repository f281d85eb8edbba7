"""A room under strain: boards away during a rules sync, a broker restarted mid-match."""

import json
import threading
from pathlib import Path

from fleet_helpers import join

from doce_host.cli import main
from doce_host.fleet.broker import Mosquitto
from doce_host.fleet.room import Room, wait_until
from doce_host.fleet.simroom import SimRoom, mac_of

WAIT_S = 30
STANDARD = Path(__file__).resolve().parents[2] / "rules" / "standard.json"


def club_rules(folder):
    """The standard rules under another name (so another checksum): what a club might push."""
    rules = json.loads(STANDARD.read_text())
    rules["name"] = "club-night"
    path = folder / "club-night.json"
    path.write_text(json.dumps(rules))
    return str(path)


def test_a_rules_sync_to_16_boards_reaches_the_two_offline_once_they_are_back(mosquitto, tmp_path, capsys):
    with Room(mosquitto.url) as room, SimRoom(16, mosquitto.url, folder=tmp_path) as sims:
        ids = [mac_of(n) for n in range(1, 17)]
        assert wait_until(lambda: all(room.boards.get(i) and room.boards[i].online for i in ids), WAIT_S)
        away = sims.boards[1:3]
        for sim in away:
            sim.wifi(False)
        assert wait_until(lambda: not room.boards[ids[1]].online and not room.boards[ids[2]].online, WAIT_S)
        back = threading.Timer(4.0, lambda: [sim.wifi(True) for sim in away])
        back.start()
        try:
            code = main(["fleet", "rules", "push", club_rules(tmp_path), "--broker", mosquitto.url, "--wait", "25",
                         "--boards", ",".join(ids), "--json"])
        finally:
            back.cancel()
        results = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
        assert code == 0, results
        assert sorted(r["board"] for r in results) == ids and all(r["ok"] for r in results)
        assert wait_until(lambda: all((room.boards[i].state or {}).get("state", {}).get("rules") == "club-night"
                                      for i in ids), WAIT_S)


def test_a_board_mid_round_keeps_its_rules_unless_forced(embedded, tmp_path, capsys):
    with Room(embedded.url) as room, SimRoom(1, embedded.url, folder=tmp_path) as sims:
        ident = mac_of(1)
        assert wait_until(lambda: room.boards.get(ident) and room.boards[ident].online, WAIT_S)
        sims.boards[0].place("c3", "white 4")
        assert wait_until(lambda: room.boards[ident].events, WAIT_S)
        rules = club_rules(tmp_path)
        assert main(["fleet", "rules", "push", rules, "--broker", embedded.url, "--wait", "1", "--json"]) == 1
        result = json.loads(capsys.readouterr().out)
        assert result["error"] == "mid_round"
        assert main(["fleet", "rules", "push", rules, "--broker", embedded.url, "--force", "--json"]) == 0
        assert json.loads(capsys.readouterr().out)["ok"]


def test_a_broker_restart_mid_match_loses_no_event_and_repeats_none(sim, tmp_path):
    from fleet_helpers import mosquitto_or_skip
    mosquitto_or_skip()
    broker = Mosquitto(folder=tmp_path / "broker",
                       extra=["persistence true", "persistence_location %s/" % (tmp_path / "broker")])
    with broker:
        with Room(broker.url, session="organiser") as room:
            join(sim, broker)
            assert wait_until(lambda: room.boards.get("b1") and room.boards["b1"].online, WAIT_S,
                              lambda: sim.run(2))
            b = room.boards["b1"]
            moves = [("c3", "white 4"), ("a1", "black 2"), ("e5", "white 1"), ("b4", "black 6")]
            sim.place(*moves[0])
            sim.place(*moves[1])
            broker.stop()  # mid-match: the board plays on; its events wait
            sim.place(*moves[2])
            sim.place(*moves[3])
            sim.run(50)
            broker.start()
            assert wait_until(lambda: sum(e["event"] == "placed" for _, e in b.events) >= 4, WAIT_S,
                              lambda: sim.run(5))
            sim.run(300)  # anything coming twice would be here by now
            seqs = [e["seq"] for _, e in b.events]
            assert seqs == list(range(seqs[0], seqs[0] + len(seqs)))  # each once, in order
            placed = [e["cell"] for _, e in b.events if e["event"] == "placed"]
            sent = [e for e in sim.take_events() if e["event"] == "placed"]
            assert placed == [e["cell"] for e in sent]  # what the USB line saw, the same


def test_a_boards_events_can_be_read_while_pahos_thread_keeps_more():
    """A page or a test reads a board's events on its own thread while paho's keeps new ones:
    what it reads is never changed under it (a deque changed while iterated raises RuntimeError;
    under load one test's wait saw it). The thread switch is forced often to make it likely."""
    import sys
    import types
    room = Room("mqtt://127.0.0.1:1")  # never connected: messages are handed to it as paho would

    def message(kind, payload):
        return types.SimpleNamespace(topic="doce/b1/" + kind, payload=json.dumps(payload).encode(), retain=False)

    room._on_message(None, None, message("status", {"online": True, "id": "b1", "name": "b1", "boot": "0000beef",
                                                   "seq": 0}))
    count = 3000

    def keep():
        for seq in range(1, count + 1):
            room._on_message(None, None, message("events", {"event": "placed", "seq": seq, "player": "white",
                                                            "cell": "c3", "value": 4}))

    b = room.boards["b1"]
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        paho = threading.Thread(target=keep)
        paho.start()
        reads = 0
        while paho.is_alive():
            seqs = [e["seq"] for _, e in b.events]
            assert seqs == sorted(seqs)
            reads += 1
        paho.join()
    finally:
        sys.setswitchinterval(old)
    assert reads and room.fault is None and b.count == count
    assert [e["seq"] for _, e in b.events][-1] == count
