"""`doce referee`: its input and output are an interface other tools rely on."""

import json
import sys

import pytest

from casebook import expand
from waiting import completed


def referee(*args, stdin=None):
    run = completed([sys.executable, "-m", "doce_host.cli", "referee", *args], input=stdin, timeout=60)
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


def versus_game(level=3, colour="black", seed=7):
    """A whole recorded match against the board: white plays at random (level 0), the board's
    colour plays doce.opponent.Opponent's moves, recorded as the board would see them."""
    from doce.game import BLACK, WHITE, Game
    from doce.opponent import NO_BLOCKER, Opponent
    from doce.squares import square_name
    from doce_host import rules as rulesfiles

    tables = rulesfiles.load_tables("standard")
    game = Game(tables, WHITE)
    board = BLACK if colour == "black" else WHITE
    players = {board: Opponent(tables, level, seed), 1 - board: Opponent(tables, 0, seed + 1)}
    moves = []
    while not game.match_over:
        if game.round_over:
            game.start_round()
        p = game.to_move
        name = ("white", "black")[p]
        blk, sq, face = players[p].choose(game)
        if blk != NO_BLOCKER:
            assert game.place_blocker(p, blk) is None
            moves.append({"player": name, "cell": square_name(tables.grid, blk), "blocker": True})
        assert game.place(p, sq, face) is None
        moves.append({"player": name, "cell": square_name(tables.grid, sq), "value": face})
    return {"rules": "standard", "first": "white", "versus": {"colour": colour, "level": level},
            "moves": moves}, game.totals()


@pytest.mark.parametrize("level, colour", [(3, "black"), (0, "white")])
def test_a_match_against_the_board_is_refereed(level, colour):
    game, (white, black) = versus_game(level, colour)
    code, out, err = referee("-", stdin=json.dumps(game))
    assert (code, err) == (0, "")
    events = [json.loads(line) for line in out.splitlines()]
    assert all(e["ok"] for e in events if "move" in e)
    winner = "white" if white > black else "black" if black > white else "draw"
    assert events[-1] == {"match": {"white": white, "black": black, "winner": winner}}


@pytest.mark.parametrize("versus, message", [
    ('"black"', '"versus" must be an object'),
    ('[]', '"versus" must be an object'),
    ('null', '"versus" must be an object'),
    ('{"colour": "red", "level": 1}', '"colour" must be "white" or "black", not "red"'),
    ('{"level": 1}', '"colour" must be "white" or "black", not null'),
    ('{"colour": "black"}', '"level" must be an integer 0 to 3, not null'),
    ('{"colour": "black", "level": 4}', '"level" must be an integer 0 to 3, not 4'),
    ('{"colour": "black", "level": -1}', '"level" must be an integer 0 to 3, not -1'),
    ('{"colour": "black", "level": 2.0}', '"level" must be an integer 0 to 3, not 2.0'),
    ('{"colour": "black", "level": true}', '"level" must be an integer 0 to 3, not true'),
    ('{"colour": "black", "level": "3"}', '"level" must be an integer 0 to 3, not "3"'),
    ('{"colour": "black", "level": 3, "seed": 1}', '"versus": unknown key \'seed\''),
    ('{"colour": "\\u001b[2J", "level": 1}', '"colour" must be "white" or "black", not "\\u001b[2J"'),
])
def test_nonsense_versus_is_one_line_and_exit_2(versus, message):
    code, out, err = referee("-", stdin='{"moves": [], "versus": %s}' % versus)
    assert code == 2 and out == ""
    assert message in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


@pytest.mark.parametrize("versus", [{"colour": "black", "level": 3}, {"colour": "white", "level": 0}])
def test_a_match_against_the_board_is_refereed_exactly_as_one_for_two(versus):
    """The board's moves are a colour's moves: versus changes nothing in the output."""
    _, two, _ = referee("-", stdin=json.dumps(GAME))
    code, out, err = referee("-", stdin=json.dumps(dict(GAME, versus=versus)))
    assert (code, err) == (0, "") and out == two
