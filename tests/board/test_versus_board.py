"""A match against the board, through the simulated sensors: it shows its move in light, the
players put it down for it, a wrong one goes through correction, a power cut keeps the move."""

import json

import pytest

import fakes
from doce_host import image
from doce_host.sim import SimBoard
from hands import ask, ask_later, blink, events

from doce import journal
from doce.game import BLACK, WHITE, Game
from doce.opponent import LEVELS
from doce.state import move_names
from doce.versus import hint
from doce_host import rules


def board_move(sim):
    """The board's move once it has thought (between scans): the hint for the player to move is
    the same move, the strongest level seeded by the position as the board's is."""
    reply, _ = ask_later(sim, "hint")
    assert reply["ok"], reply
    return reply["hint"]


def test_a_hint_over_the_link_is_thought_between_scans_and_shown_until_answered(sim):
    tables = rules.load_tables("standard")
    game = Game(tables, WHITE)
    sim.place("b2", "white 4")  # not the centre: level 3's answer there is read from doce/openings.py's table
    game.place(WHITE, 6, 4)
    reply, scans = ask_later(sim, "hint", id=7)
    assert scans > 10  # the board scanned on while it thought, a slice a scan
    assert reply == {"re": "hint", "id": 7, "ok": True, "hint": move_names(5, hint(tables, game))}
    move = reply["hint"]
    assert "blue" in blink(sim, move.get("blocker", move["cell"]), 2000)  # shown in black's colour
    sim.place("a1", "black 2")
    game.place(BLACK, 0, 2)
    # Asked for white, who moves before it is ready: the answer is for the position now, black's.
    assert sim.command(do="send", line='{"cmd": "hint", "id": 8}\n').get("link", []) == []
    replies = sim.place("e5", "white 3").get("link", [])
    game.place(WHITE, 24, 3)
    assert sim.state()["to_move"] == "black"
    while not replies:
        replies = sim.run(10).get("link", [])
    assert replies == [{"re": "hint", "id": 8, "ok": True, "hint": move_names(5, hint(tables, game))}]


def test_a_match_against_the_board(sim):
    assert sim.state()["versus"] is None  # a match for two
    r = ask(sim, "new_match", first="white", opponent={"colour": "black", "level": 3})
    assert r["ok"], r
    sim.settle()
    events(sim)
    assert sim.state()["versus"] == {"colour": "black", "level": 3, "move": None}  # white's turn
    sim.place("c3", "white 4")
    move = board_move(sim)
    assert "blocker" not in move
    assert sim.state()["versus"] == {"colour": "black", "level": 3, "move": move}  # what a page shows
    assert {"blue", "off"} <= blink(sim, move["cell"], 2000)  # its square flashes black's colour
    # Another face on its square is not its move: a problem, as any wrong piece is.
    wrong = move["value"] % 6 + 1
    sim.place(move["cell"], "black %d" % wrong)
    assert [e["reason"] for e in events(sim, "illegal")] == ["not_the_move"]
    assert sim.state()["mode"] == "correcting"
    sim.lift(move["cell"])
    assert events(sim, "corrected")
    sim.place(move["cell"], "black %d" % move["value"])
    assert events(sim, "placed") == [{"event": "placed", "player": "black", "cell": move["cell"],
                                      "value": move["value"]}]
    assert sim.state()["versus"]["move"] is None  # put down: the person's turn
    # The person's pieces are judged by the rules as usual.
    free = next(c for c in ("a1", "e1", "a5", "e5") if c not in sim.pieces)
    sim.place(free, "white 2")
    assert events(sim, "placed")
    before = board_move(sim)
    sim.cut_power()  # on the board's turn
    sim.power_on()
    sim.run(sim.debounce + sim.quiet)
    assert board_move(sim) == before
    assert "blue" in blink(sim, before.get("blocker", before["cell"]), 2000)


def test_a_bad_opponent_is_refused(sim):
    assert ask(sim, "new_match", opponent={"colour": "white", "level": 2})["ok"]
    sim.settle()
    sim.place("c3", "black 4")  # black opens against the board: a match in play
    for bad in ({"colour": "red"}, {"colour": "black", "level": 9}, 3, [], "black", {"colour": "black", "level": True},
                {"colour": "black", "level": 2.5}, {"colour": "black", "level": "3"}, {"colour": "black", "level": -1},
                {"colour": "black", "level": 3, "move": None}, {"colour": ["black"]}):
        reply = ask(sim, "new_match", opponent=bad)
        assert reply["error"] == "bad_argument" and "opponent" in reply["message"], (bad, reply)
    state = ask(sim, "state")["state"]  # nothing changed: the same match, the same opponent
    assert state["board"] == {"c3": "black 4"} and state["versus"]["colour"] == "white"
    assert ask(sim, "hello")["versus"] == {"colour": "white", "level": 2}


def test_hello_says_who_the_board_plays(sim):
    assert ask(sim, "hello")["versus"] is None
    assert ask(sim, "new_match", opponent={"colour": "white", "level": 1})["ok"]
    assert ask(sim, "hello")["versus"] == {"colour": "white", "level": 1}
    assert ask(sim, "state")["state"]["versus"]["colour"] == "white"
    assert ask(sim, "new_match")["ok"]  # without opponent: two players again
    assert ask(sim, "hello")["versus"] is None


NONSENSE = [bytes((5, 2)), bytes((1, 9)), bytes((255, 255)), bytes((0, 4))]  # whole records, checksum and all


def test_a_burst_of_hints_is_bounded_each_answered_once(sim):
    """A host that asks again and again while the board thinks: four wait for the answer, the
    rest are refused at once (busy), so the board's memory never grows with the burst."""
    sim.place("b2", "white 4")  # not the centre, whose answer is read at once from a table (doce/openings.py)
    burst = "".join(json.dumps({"cmd": "hint", "id": n}) + "\n" for n in range(12))
    replies = sim.command(do="send", line=burst).get("link", [])
    for _ in range(2000):
        if len(replies) >= 12:
            break
        replies += sim.run(10).get("link", [])
    assert sorted(r["id"] for r in replies) == list(range(12))  # each once
    busy = [r["id"] for r in replies if not r["ok"]]
    assert busy == list(range(4, 12)) and {r["error"] for r in replies if not r["ok"]} == {"busy"}
    answers = [r["hint"] for r in replies if r["ok"]]
    assert len(answers) == 4 and all(a == answers[0] for a in answers)


@pytest.mark.parametrize("payload", NONSENSE)
def test_a_who_plays_record_that_makes_no_sense_is_named_and_the_board_plays_for_two(tmp_path, payload):
    sensors = fakes.FakeSensors(fakes.board())
    rig = fakes.Rig(tmp_path, sensors)
    rig.settle()
    sensors.place("a1", "white 4")  # a game in play
    rig.settle()
    with open(tmp_path / "journal", "ab") as f:
        f.write(journal.record(journal.VERSUS, payload))
    rig = fakes.Rig(tmp_path, sensors)  # a reboot
    rig.settle()
    warnings = [e["message"] for e in rig.take("warning")]
    assert len(warnings) == 1 and warnings[0].startswith("journal: who plays") and "two players" in warnings[0]
    assert rig.app.versus is None and rig.app.controller.versus is None
    assert rig.app.controller.game.board[0] and rig.app.controller.mode == "playing"  # the game is kept


def test_who_plays_is_journaled_and_kept_through_a_reboot(tmp_path):
    rig = fakes.Rig(tmp_path, fakes.FakeSensors(fakes.board()))
    rig.app.play_against(1, 2)  # as the button chooses it, before the match's first piece
    rig.run(1)  # written with the scan's other writes
    assert journal.record(journal.VERSUS, bytes((1, 2))) in (tmp_path / "journal").read_bytes()
    rig = fakes.Rig(tmp_path, fakes.FakeSensors(fakes.board()))
    assert (rig.app.versus.colour, rig.app.versus.level) == (1, 2) and rig.take("warning") == []


def test_a_who_plays_record_that_makes_no_sense_on_the_board_itself(tmp_path):
    with SimBoard(tmp_path) as sim:
        assert ask(sim, "new_match", first="white", opponent={"colour": "black", "level": 2})["ok"]
        sim.settle()
        sim.place("c3", "white 4")
    files = image.read((tmp_path / "flash.img").read_bytes())
    assert journal.record(journal.VERSUS, bytes((1, 2))) in files["journal"]  # with the match, in its file
    files["journal"] += journal.record(journal.VERSUS, bytes((0xFF, 2)))
    (tmp_path / "flash.img").write_bytes(image.build(files))
    with SimBoard(tmp_path) as sim:
        warnings = [e["message"] for e in sim.take_events() if e["event"] == "warning"]
        assert any(w.startswith("journal: who plays") and "two players" in w for w in warnings), warnings
        state = ask(sim, "state")["state"]
        assert state["versus"] is None and state["board"] == {"c3": "white 4"}


def test_a_power_cut_at_any_write_of_a_new_match_keeps_the_match_and_its_opponent_together(tmp_path):
    """After the cut the board has the old match for two, or the new one against the board: never
    one match with the other's players (the opponent was a file of its own, written first)."""
    cuts = 0
    for write in range(1, 20):
        with SimBoard(tmp_path / str(write)) as sim:
            sim.place("c3", "white 4")  # a match for two, in play
            sim.cut_power_at_flash_write(after=write, torn=True)
            sim.command(do="send", line=json.dumps({"cmd": "new_match", "first": "black",
                                                    "opponent": {"colour": "white", "level": 2}}) + "\n")
            if not sim.power_was_cut:
                sim.settle()
            if not sim.power_was_cut:
                break
            cuts += 1
            sim.power_on()
            sim.run(sim.debounce + sim.quiet)
            state = ask(sim, "state")["state"]
            old = state["versus"] is None and state["mode"] == "playing" and state["to_move"] == "black"
            new = state["versus"] == {"colour": "white", "level": 2, "move": None} and state["mode"] == "clearing"
            assert old or new, "cut at write %d: %s" % (write, state)
    assert cuts >= 2  # the new match's file and its rename, at least


def test_showing_the_boards_move_allocates_nothing(sim):
    """The scan loop allocates nothing while the board waits for its move to be put down."""
    assert ask(sim, "new_match", first="white", opponent={"colour": "black", "level": 1})["ok"]
    sim.settle()
    sim.place("c3", "white 4")
    sim.wait(3)
    assert ask(sim, "state")["state"]["versus"]["move"] is not None
    assert sim.command(do="idle_allocation", scans=300)["bytes"] == 0


@pytest.mark.parametrize("level", range(LEVELS))
def test_the_board_shows_its_own_move_and_a_hint_at_every_level(sim, level):
    """At each level the board thinks between scans, shows its move in its colour, takes it
    when it is put down; and the hint (the strongest level's move) is shown on the person's turn."""
    assert ask(sim, "new_match", first="white", opponent={"colour": "black", "level": level})["ok"]
    sim.settle()
    events(sim)
    for cell, free in (("c3", "a1"), (None, "e5")):
        if cell is None:  # the person's turn again: a hint first
            reply, _ = ask_later(sim, "hint")
            hinted = reply["hint"]
            assert reply["ok"] and "yellow" in blink(sim, hinted.get("blocker", hinted["cell"]), 2000)  # white's colour
            cell = free if free not in sim.pieces else next(c for c in ("e1", "a5") if c not in sim.pieces)
        sim.place(cell, "white 2")
        assert events(sim, "placed")
        move = None
        for _ in range(2000):
            move = sim.state()["versus"]["move"]
            if move:
                break
            sim.run(10)
        assert move and sim.state()["versus"]["level"] == level
        square = move.get("blocker", move["cell"])
        assert "blue" in blink(sim, square, 2000)  # shown in black's colour
        if "blocker" in move:
            sim.place(move["blocker"], "black blocker")
            sim.settle()
        sim.place(move["cell"], "black %d" % move["value"])
        assert events(sim, "placed")[-1]["cell"] == move["cell"]
        assert sim.state()["versus"]["move"] is None  # the person's turn
