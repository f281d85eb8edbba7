"""The tournament's standings over whole matches, checked against `doce referee`: two simulated
boards (the real firmware, stepped) play whole matches through their sensors on a broker,
`doce fleet record` writes each match as a recorded-game file, and the standings must be what
the referee makes of those files, credited to the players the pairings seat at each board."""

import io
import json
from contextlib import redirect_stdout

from casebook import expand, piece_of
from fleet_helpers import join, link

from waiting import wait_until
from doce_host.cli import main
from doce_host.fleet.record import Recorder
from doce_host.fleet.room import Room
from doce_host.fleet.standings import Tournament
from doce_host.sim import SimBoard

WAIT_S = 60
SWAP = {"W": "B", "B": "W"}
ALL_OWN = ("W a1 2", "B a5 1", "W c1 4", "B c5 1", "W e3 1", "B e5 1", "W b1 3", "B a3 1", "W d1 3")
BLOCKER_USED = ("W a1 2", "B a5 1", "W e1 b", "W c1 4", "B c5 1", "W e3 1", "B e5 1", "W b1 3", "B a3 1", "W d1 3")
FOR_BOTH = ("W b1 3", "B a2 3", "W d1 3", "B a4 3", "W e4 1", "B e5 1", "W c1 3", "B a3 3", "W e2 1", "B a1 3")
PAIRINGS = {1: [("t1", "Ana", "Ben"), ("t2", "Cleo", "Dev")]}
SEATS = {"t1": {"white": "Ana", "black": "Ben"}, "t2": {"white": "Cleo", "black": "Dev"}}


def swapped(moves):
    return tuple(SWAP[m[0]] + m[1:] for m in moves)


# Whole matches of four rounds, each round's opener alternating from white's.
MATCHES = {"t1": [ALL_OWN, swapped(ALL_OWN), FOR_BOTH, swapped(BLOCKER_USED)],
           "t2": [FOR_BOTH, swapped(ALL_OWN), ALL_OWN, swapped(ALL_OWN)]}


def play_round(sim, moves):
    for move in map(expand, moves):
        sim.place(move["cell"], piece_of(move))
        sim.run(5)  # the network's turn: a few hundred bytes a scan
    for cell in list(sim.pieces):
        sim.lift(cell)
        sim.run(5)


def refereed(path):
    """What `doce referee` makes of a recorded game: its events."""
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["referee", str(path)]) == 0
    return [json.loads(line) for line in out.getvalue().splitlines()]


def expected(files):
    """The standings the referee's events give, each file credited to its board's seats."""
    table = {}
    for path in files:
        seats = SEATS[path.name.split("-")[0]]
        for player in seats.values():
            table.setdefault(player, {"player": player, "won": 0, "rounds": 0, "points": 0, "played": 0})
        for event in refereed(path):
            if "round" in event:
                for colour, player in seats.items():
                    table[player]["points"] += event["points"][colour]
                    table[player]["rounds"] += event["result"] == colour
            if "match" in event:
                for colour, player in seats.items():
                    table[player]["played"] += 1
                    table[player]["won"] += event["match"]["winner"] == colour
    return table


def test_the_standings_are_what_doce_referee_makes_of_the_recorded_matches(embedded, tmp_path):
    recorder = Recorder(tmp_path / "games", say=lambda line: None)
    with Room(embedded.url) as room, SimBoard(tmp_path / "t1", module="wrover") as one, \
            SimBoard(tmp_path / "t2", module="wrover") as two:
        room.on_event = recorder.event
        tournament = Tournament(room, PAIRINGS)
        sims = {"t1": one, "t2": two}

        def pump():
            one.run(2)
            two.run(2)
        for ident, sim in sims.items():
            join(sim, embedded, board_id=ident)
        assert wait_until(lambda: all(room.boards.get(i) and room.boards[i].online for i in sims), WAIT_S, pump)
        for n in range(4):
            for ident, sim in sims.items():
                play_round(sim, MATCHES[ident][n])
        # t1 starts its next match (the other player opens): one round in play, black's
        assert link(one, cmd="new_match")["ok"]
        one.run(20)
        play_round(one, swapped(ALL_OWN))
        # (the room keeps only a board's latest events: the page's own matches say what came)
        assert wait_until(lambda: recorder.games.get("t1") and len(recorder.games["t1"].recorded["moves"]) == 9
                          and sum(len(m.rounds) for m in tournament.matches if m.board == "t1") == 5,
                          WAIT_S, pump)
        assert wait_until(lambda: sum(1 for m in tournament.matches if m.board == "t2" and m.over) == 1,
                          WAIT_S, pump)
        standings = tournament.snapshot()["standings"]
    files = sorted((tmp_path / "games").glob("*.json"))
    assert [f.name for f in files] == ["t1-1.json", "t1-2.json", "t2-1.json"]
    assert recorder.disagreements == 0  # each round, as the board scored it and as the referee does
    want = expected(files)
    got = {r["player"]: {k: r[k] for k in ("player", "won", "rounds", "points", "played")} for r in standings}
    assert got == want, (got, want)
    assert {r["player"]: r["playing"] for r in standings} == {"Ana": 1, "Ben": 1, "Cleo": 0, "Dev": 0}
    assert want["Ben"]["rounds"] >= 1 and want["Ben"]["played"] == 1  # counted through the next match
    assert [r["player"] for r in standings] == [r["player"] for r in sorted(
        want.values(), key=lambda r: (-r["won"], -r["points"], -r["rounds"], r["player"]))]
