"""The board's button, at a café table with no computer: before a match's first piece a press
shows who plays and further presses choose it (docs/opponent.md); once the match has begun a
press asks a hint, thought between scans and shown in light. Through the real firmware on the
step simulator: a finger on its button pin, the lights as the strip received them."""

import json

import fakes
from doce.game import BLACK, WHITE, Game
from doce.squares import parse_square
from doce.versus import hint
from doce_host import rules
from doce_host.paths import BOARD_FILE
from hands import ask, ask_later, events, light, looks

EDGES = json.loads(BOARD_FILE.read_text())["leds"]["turn"]  # {"white": [...], "black": [...]}
ROWS = {"white": ["a1", "b1", "c1", "d1", "e1"], "black": ["a5", "b5", "c5", "d5", "e5"]}


def press(sim, then=0.6):
    """One short press, and time for the board to know no second press follows."""
    sim.press(0.1)
    sim.wait(then)


def shown(sim):
    """What the board shows of who plays: {side: (edge, [each square of its home row])}."""
    leds = sim.leds()
    return {side: (looks(leds[EDGES[side][0]]), [looks(leds[sim.led(c)]) for c in ROWS[side]])
            for side in ("white", "black")}


def squares_lit(sim):
    leds = sim.leds()
    return sorted(c for c in sim.led_of if looks(leds[sim.led(c)]) != "off")


def ever_lit(sim, ms):
    """Every square lit at some moment of `ms`, looked at every 50 ms (a flash is off half the time)."""
    lit = set()
    for _ in range(ms // 50):
        sim.wait(0.05)
        lit.update(squares_lit(sim))
    return sorted(lit)


def test_who_plays_is_chosen_with_the_button_before_the_first_piece(sim):
    events(sim)
    press(sim)  # shows who plays, changes nothing
    assert events(sim) == [] and ask(sim, "hello")["versus"] is None
    assert shown(sim) == {"white": ("yellow", ["off"] * 5), "black": ("blue", ["off"] * 5)}  # two players
    assert squares_lit(sim) == []
    press(sim, then=0.05)  # while it shows, each press moves the choice on at once
    assert events(sim) == [{"event": "versus", "versus": {"colour": "black", "level": 0}}]
    assert shown(sim) == {"white": ("off", ["off"] * 5), "black": ("blue", ["blue"] + ["off"] * 4)}
    for _ in range(3):
        press(sim, then=0.05)
    assert [e["versus"]["level"] for e in events(sim, "versus")] == [1, 2, 3]
    assert shown(sim)["black"] == ("blue", ["blue"] * 4 + ["off"])  # level 3: four squares
    press(sim, then=0.05)
    assert events(sim) == [{"event": "versus", "versus": {"colour": "white", "level": 0}}]
    assert shown(sim) == {"white": ("yellow", ["yellow"] + ["off"] * 4), "black": ("off", ["off"] * 5)}
    assert ask(sim, "hello")["versus"] == {"colour": "white", "level": 0}
    sim.cut_power()  # the choice is kept, as one made over the link is
    sim.power_on()
    assert ask(sim, "hello")["versus"] == {"colour": "white", "level": 0}
    # Its lights then go back to the game: white opens, and the board plays white.
    sim.wait(4)
    move = ask(sim, "state")["state"]["versus"]["move"]
    assert move is not None and ever_lit(sim, 3000) == [move.get("blocker", move["cell"])]


def test_the_choice_goes_round_to_two_players_and_a_piece_put_down_ends_it(sim):
    press(sim)
    for _ in range(9):
        press(sim, then=0.05)
    chosen = [e["versus"] for e in events(sim, "versus")]
    assert chosen[:4] == [{"colour": "black", "level": n} for n in range(4)]
    assert chosen[4:8] == [{"colour": "white", "level": n} for n in range(4)]
    assert chosen[8] is None and ask(sim, "hello")["versus"] is None
    sim.place("c3", "white 4")  # while it still shows: the game's lights at once
    assert looks(light(sim, "c3")) == "yellow" and squares_lit(sim) == ["c3"]
    assert shown(sim)["white"][0] == "off"  # only black's edge: black to move, not "two players"
    press(sim)  # the match has begun: a hint, not a choice
    assert events(sim, "versus") == []


def flashes(sim, cell, ms):
    """The light under `cell` every 25 ms for `ms`: its colour names, and how many times it came
    on bright (a flash) from off."""
    names, runs, was = set(), 0, 0
    for _ in range(ms // 25):
        sim.wait(0.025)
        rgb = light(sim, cell)
        names.add(looks(rgb))
        now = max(rgb)
        runs += was == 0 and now > 0
        was = now
    return names, runs


def test_a_press_during_a_match_shows_the_hint_in_the_movers_colour_until_they_play(sim):
    # white c1, a1, d1 with a 3 each: a 3 on b1 completes white's line
    for cell, piece in (("c1", "white 3"), ("e5", "black 1"), ("a1", "white 3"), ("a5", "black 1"),
                        ("d1", "white 3"), ("d4", "black 1")):
        sim.place(cell, piece)
    before = squares_lit(sim)
    press(sim)
    sim.wait(3)  # thought between scans; then it shows
    assert ask_later(sim, "hint")[0]["hint"] == {"cell": "b1", "value": 3}  # the link's: the same hint
    names, runs = flashes(sim, "b1", 2500)  # one whole cycle: three flashes, a rest
    assert names == {"yellow", "off"} and runs in (3, 4)  # the cycle may start mid-flash
    assert ever_lit(sim, 2500) == sorted(before + ["b1"])
    assert sim.command(do="idle_allocation", scans=300)["bytes"] == 0  # showing it allocates nothing
    sim.place("b3", "white 2")  # white plays something else: its turn is over, the hint goes
    sim.wait(0.3)
    assert looks(light(sim, "b1")) == "off"


def test_a_hint_that_plays_the_blocker_first_flickers_then_shows_the_die(sim):
    # black to move; white's a1 b1 c1 want a 3 on d1, where black's die may not go (next to d2)
    for cell, piece in (("a1", "white 3"), ("e5", "black 1"), ("c1", "white 3"), ("a5", "black 1"),
                        ("c4", "white 1"), ("d2", "black 1"), ("b1", "white 3")):
        sim.place(cell, piece)
    press(sim)
    sim.wait(3)
    hint = ask_later(sim, "hint")[0]["hint"]
    assert hint["blocker"] == "d1"
    names, runs = flashes(sim, "d1", 1000)
    assert names == {"blue", "off"} and runs >= 4  # a flicker: 100 ms on, 100 off
    sim.place("d1", "black blocker")
    sim.wait(0.3)
    names, runs = flashes(sim, hint["cell"], 2 * (2 * hint["value"] + 4) * 250)
    assert names == {"blue", "off"} and runs >= hint["value"]
    assert looks(light(sim, "d1")) == "off"  # blockers get no light of their own


def test_in_a_match_against_the_board_a_press_on_its_turn_asks_nothing(sim):
    assert ask(sim, "new_match", first="white", opponent={"colour": "black", "level": 1})["ok"]
    sim.settle()
    sim.place("c3", "white 4")
    press(sim)  # the board's turn: its own move shows, and no hint for it
    sim.wait(3)
    move = ask(sim, "state")["state"]["versus"]["move"]
    assert ever_lit(sim, 3000) == sorted(["c3", move.get("blocker", move["cell"])])


def test_the_buttons_hint_is_thought_over_many_scans_not_in_the_one_that_heard_the_press(tmp_path):
    sensors = fakes.FakeSensors(fakes.board())
    rig = fakes.Rig(tmp_path, sensors)
    rig.settle()
    game = Game(rules.load_tables("standard"), WHITE)
    for cell, piece in (("c1", "white 3"), ("e5", "black 1"), ("a1", "white 3")):  # black to move
        sensors.place(cell, piece)
        rig.settle()
        colour, value = piece.split()
        game.place(WHITE if colour == "white" else BLACK, parse_square(5, cell), int(value))
    app, c = rig.app, rig.app.controller
    app.button(True, rig.now)
    rig.run(100)
    app.button(False, rig.now)
    scans = 0
    while c.hint is None:  # the press acts once no second press can follow
        rig.run(1)
        app.button(False, rig.now)
        scans += 1
        assert scans < 1000
    assert c.hint.move is None  # asked, not yet thought
    scans = 0
    while c.hint.move is None:
        rig.run(1)
        scans += 1
        assert scans < 10000
    assert scans > 10 and c.hint.move == hint(game.tables, game)  # thought a slice a scan


def test_who_plays_is_told_in_words_and_a_lying_board_gets_its_json_back():
    from doce_host.view import describe
    assert describe({"event": "versus", "versus": None}) == "who plays: two players"
    assert describe({"event": "versus", "versus": {"colour": "white", "level": 2}}) == \
        "who plays: the board plays white at level 2"
    odd = {"event": "versus", "versus": {"colour": "\x1b[2J", "level": "x"}}
    assert "\x1b" not in describe(odd) and "unknown" in describe(odd)


def test_a_press_in_the_dice_check_still_leaves_it_while_who_plays_would_show(tmp_path):
    rig = fakes.Rig(tmp_path, fakes.FakeSensors(fakes.board()))
    rig.settle()
    app = rig.app
    app.button(True, rig.now)
    rig.run(100)
    app.button(False, rig.now)
    while app.choice_until is None:  # one press: who plays shows
        rig.run(10)
        app.button(False, rig.now)
    assert app.dice_check(True) is None  # a host starts the dice check meanwhile
    rig.run(5)
    app.button(True, rig.now)
    rig.run(100)
    app.button(False, rig.now)
    for _ in range(100):
        rig.run(10)
        app.button(False, rig.now)
    assert not app.checking and app.versus is None  # back to the game; who plays unchanged
