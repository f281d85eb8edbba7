"""`doce referee`: its input and output are an interface other tools rely on."""

import json
import subprocess
import sys

import pytest

from casebook import expand


def referee(*args, stdin=None):
    run = subprocess.run([sys.executable, "-m", "doce_host.cli", "referee", *args],
                         input=stdin, capture_output=True, text=True, timeout=60)
    return run.returncode, run.stdout, run.stderr


GAME = {"rules": "standard", "first": "white",
        "moves": [expand(m) for m in ["W a1 2", "B a5 1", "W c1 4", "B c5 1", "W e3 1", "B e5 1",
                                      "W b1 3", "B a3 1", "B b2 1", "W d1 3", "W d2 1"]]}


def test_scores_a_recorded_game_from_a_file(tmp_path):
    path = tmp_path / "game.json"
    path.write_text(json.dumps(GAME))
    code, out, err = referee(str(path))
    assert (code, err) == (0, "")
    events = [json.loads(line) for line in out.splitlines()]
    assert events[8] == {"move": 8, "ok": False, "error": "not_your_turn"}
    assert events[10] == {"round": 1, "result": "white", "reason": "line",
                          "lines": [["a1", "b1", "c1", "d1"]], "points": {"white": 35, "black": 0}}
    # Round 2 starts on a cleared board with black to open.
    assert events[11] == {"move": 10, "ok": False, "error": "not_your_turn"}
    assert len(events) == 12


def test_reads_stdin_and_other_rules(tmp_path):
    game = {"moves": [expand("W a1 1"), expand("B a1 1")]}
    code, out, _ = referee("-", stdin=json.dumps(game))
    assert code == 0 and out.splitlines()[1] == '{"move": 1, "ok": false, "error": "occupied"}'
    code, out, _ = referee("--rules", "four-by-four", "-", stdin=json.dumps({"moves": [expand("W e5 1")]}))
    assert out.strip() == '{"move": 0, "ok": false, "error": "off_board"}'


@pytest.mark.parametrize("stdin, message", [
    ("{\"moves\": [", "not valid JSON"),
    ("", "not valid JSON"),
    ("[]", "a recorded game is a JSON object"),
    ("{\"moves\": 3}", "\"moves\" must be a list"),
    ("{}", "\"moves\" must be a list"),
    ("{\"moves\": [], \"first\": \"red\"}", "\"first\" must be \"white\" or \"black\""),
    ("{\"moves\": [], \"rules\": 5}", "\"rules\" must name a rules file"),
    ("{\"moves\": [], \"rules\": \"chess\"}", "chess: no such rules"),
    ("{\"moves\": [], \"player\": \"white\"}", "unknown key 'player'"),
    ("{\"moves\": [], \"versus\": \"black\"}", "\"versus\" must be null or"),
    ("{\"moves\": [], \"versus\": 3}", "\"versus\" must be null or"),
    ("{\"moves\": [], \"versus\": []}", "\"versus\" must be null or"),
    ("{\"moves\": [], \"versus\": {}}", "\"versus\" must be null or"),
    ("{\"moves\": [], \"versus\": {\"colour\": \"red\", \"level\": 3}}", "\"versus\" must be null or"),
    ("{\"moves\": [], \"versus\": {\"colour\": \"black\"}}", "\"versus\" must be null or"),
    ("{\"moves\": [], \"versus\": {\"level\": 3}}", "\"versus\" must be null or"),
    ("{\"moves\": [], \"versus\": {\"colour\": \"black\", \"level\": 4}}", "\"versus\" must be null or"),
    ("{\"moves\": [], \"versus\": {\"colour\": \"black\", \"level\": -1}}", "\"versus\" must be null or"),
    ("{\"moves\": [], \"versus\": {\"colour\": \"black\", \"level\": true}}", "\"versus\" must be null or"),
    ("{\"moves\": [], \"versus\": {\"colour\": \"black\", \"level\": 2.0}}", "\"versus\" must be null or"),
    ("{\"moves\": [], \"versus\": {\"colour\": \"black\", \"level\": \"3\"}}", "\"versus\" must be null or"),
    ("{\"moves\": [], \"versus\": {\"colour\": \"black\", \"level\": 3, \"move\": null}}",
     "\"versus\" must be null or"),
    ("{\"moves\": [], \"versus\": {\"colour\": \"\\u001b[2J\", \"level\": 3}}", "\"versus\" must be null or"),
])
def test_bad_input_is_one_line_on_stderr_and_exit_2(stdin, message):
    code, out, err = referee("-", stdin=stdin)
    assert code == 2 and out == ""
    assert message in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_unreadable_files_and_broken_rules(tmp_path):
    code, _, err = referee(str(tmp_path / "missing.json"))
    assert code == 2 and "cannot read" in err
    binary = tmp_path / "game.json"
    binary.write_bytes(b"\xff\xfe\x00")
    code, _, err = referee(str(binary))
    assert code == 2 and "not UTF-8" in err
    broken = tmp_path / "rules.json"
    broken.write_text('{"grid": 5}')
    code, _, err = referee("--rules", str(broken), "-", stdin='{"moves": []}')
    assert code == 2 and "'name' is a required property" in err and "Traceback" not in err


@pytest.mark.parametrize("versus", [{"colour": "black", "level": 3}, {"colour": "white", "level": 0}, None])
def test_a_match_against_the_board_is_refereed_as_any_match(versus):
    """The board's moves are a colour's moves: the same output as for two people."""
    _, two, _ = referee("-", stdin=json.dumps(GAME))
    code, out, err = referee("-", stdin=json.dumps(dict(GAME, versus=versus)))
    assert (code, err) == (0, "") and out == two


def test_a_whole_match_the_opponent_played_is_refereed(tmp_path):
    """A match doce.opponent played on one side (level 1) against the strongest on the other,
    written down move by move as a recorder would, with versus: its rounds as the game scored them."""
    from doce.game import PLAYER_NAMES, WHITE, Game
    from doce.opponent import NO_BLOCKER, Opponent
    from doce.squares import square_name
    from doce_host.rules import load_tables
    tables = load_tables("standard")
    game = Game(tables, WHITE)
    players = {0: Opponent(tables, 3, seed=5), 1: Opponent(tables, 1, seed=6)}  # the board plays black at 1
    moves = []
    while not game.match_over:
        if game.round_over:
            game.start_round()
        player = game.to_move
        move = players[player].choose(game)
        assert move is not None
        blk, sq, f = move
        if blk != NO_BLOCKER:
            assert game.place_blocker(player, blk) is None
            moves.append({"player": PLAYER_NAMES[player], "cell": square_name(tables.grid, blk), "blocker": True})
        assert game.place(player, sq, f) is None
        moves.append({"player": PLAYER_NAMES[player], "cell": square_name(tables.grid, sq), "value": f})
    rounds = [list(r.points) for r in game.rounds]
    path = tmp_path / "match.json"
    path.write_text(json.dumps({"rules": "standard", "first": "white", "versus": {"colour": "black", "level": 1},
                                "moves": moves}))
    code, out, err = referee(str(path))
    events = [json.loads(line) for line in out.splitlines()]
    assert (code, err) == (0, "") and all(e["ok"] for e in events if "move" in e)
    assert [[e["points"]["white"], e["points"]["black"]] for e in events if "round" in e] == rounds
    assert events[-1]["match"]["winner"] == PLAYER_NAMES[game.winner()]
