"""The dice check: the board judges each face put on its centre square, names a wrong
magnet, and leaves the game exactly as it was. On fake sensors under CPython (faces no
simulator die can show) and on the simulated board through its link."""

import json

import fakes
import pytest
from hands import events

from fakes import turned

WHITE = ["white %d" % f for f in range(1, 7)] + ["white blocker"]
SIGN = "0+-"
# A made-up code table in which one wrong magnet is nearer its own code than any other,
# so the faults below are named whatever the board file's table is while it is designed.
# (Three changes apart, it cannot also keep a die fading over its well from reading as
# another code: the board loader would refuse it, so it is loaded without that check.)
MARGIN = {"+00++": "white 1", "+0+0+": "white 2", "+0-+-": "white 3", "+0+--": "white 4", "++++-": "white 5",
          "+----": "white 6", "+000-": "white blocker", "-00--": "black 1", "-0-0-": "black 2", "-0+-+": "black 3",
          "-0-++": "black 4", "-+---": "black 5", "-++++": "black 6", "-000+": "black blocker"}


def nearest(read, codes):
    """Every (distance, name) of the table against a reading, written out plainly."""
    return sorted((sum(a != b for a, b in zip(turned(code, turn), read)), name)
                  for code, name in codes.items() for turn in range(4))


def faulty_face(b, position, fault):
    """A face of the dice with its magnet at `position` changed by `fault` (a function of
    the trit), that one turn of its own code is nearer than anything else: (name, reading)."""
    for code, name in b.dice.items():
        read = turned(code, 0)
        if fault(read[position]) is None:
            continue
        read[position] = fault(read[position])
        ranked = nearest(read, b.dice)
        if ranked[0][0] == 1 and ranked.count((1, name)) == 1:
            return name, "".join(SIGN[t] for t in read)
    raise AssertionError("no face of this code table has such a fault at a unique nearest code")


def candidates(event):
    """Every (face, what is wrong) a dice_face event offers."""
    return [(c["face"], c["wrong"]) for c in [event] + event.get("or", [])]


def checking(b=None, **options):
    """Fake sensors for a dice check: a die built right reads at least each place's check_above
    (board.json), so here every magnet reads over the highest."""
    sensors = fakes.FakeSensors(b or fakes.board(), **options)
    if sensors.board.check_above is not None:
        sensors.signal = max(sensors.board.check_above) + 500
    return sensors


def game_in_play(tmp_path, dice=None):
    sensors = checking(fakes.board(dice=dice, fading=dice is None), offset=-2000)
    rig = fakes.Rig(tmp_path, sensors)
    rig.settle()
    sensors.place("a1", "white 4")  # a game in play
    rig.settle()
    assert rig.take("placed")
    return rig


def test_each_face_is_judged_and_the_game_waits_untouched(rig, tmp_path):
    app, sensors = rig.app, rig.sensors
    journal = (tmp_path / "journal").read_bytes()
    board = bytes(app.controller.game.board)
    assert app.dice_check(True) is None
    rig.run(2)
    assert rig.take() == [{"event": "dice_check", "on": True, "cell": "c3"}]
    assert rig.led("c3") != (0, 0, 0) and rig.led("a1") == (0, 0, 0)  # only the check square lit
    for turn, name in enumerate(WHITE):
        sensors.place("c3", name, turn=turn)
        rig.settle()
        face = rig.take()
        assert [(e["event"], e["face"], e["ok"], e["wrong"]) for e in face] == [("dice_face", name, True, [])]
        assert rig.led("c3") == app.lights.palette[4][8]  # steady green
        sensors.lift("c3")
        rig.settle()
        assert rig.take() == []
    sensors.place("e5", "black 2")  # the check ignores the rest of the board
    rig.settle()
    sensors.lift("e5")
    rig.settle()
    assert rig.take() == []
    app.dice_check(False)
    rig.run(2)
    assert rig.take() == [{"event": "dice_check", "on": False}]
    assert bytes(app.controller.game.board) == board and app.controller.mode == "playing"
    assert (tmp_path / "journal").read_bytes() == journal
    assert rig.led("a1") != (0, 0, 0)  # the game's lights are back


@pytest.fixture(params=["board file", "margin"])
def rig(tmp_path, request):
    return game_in_play(tmp_path, MARGIN if request.param == "margin" else None)


@pytest.fixture
def margin_rig(tmp_path):
    return game_in_play(tmp_path, MARGIN)


def test_a_reversed_magnet_is_named(margin_rig):
    rig = margin_rig
    name, read = faulty_face(rig.sensors.board, 2, lambda t: {1: 2, 2: 1}.get(t))
    rig.app.dice_check(True)
    rig.sensors.put("c3", read)
    rig.settle()
    face = rig.take("dice_face")
    assert len(face) == 1 and not face[0]["ok"] and face[0]["read"] == read
    assert (name, [["E", "reversed"]]) in candidates(face[0])
    seen = set()
    for _ in range(40):  # over 800 ms: blinking vermillion
        rig.run(20)
        seen.add(rig.led("c3"))
    assert seen == {(0, 0, 0), rig.app.lights.palette[3][8]}


def test_a_die_missing_its_centre_magnet_is_seen(margin_rig):
    """The game only watches centre sensors; the dice check reads its square whole."""
    rig = margin_rig
    name, read = faulty_face(rig.sensors.board, 0, lambda t: 0)
    rig.app.dice_check(True)
    rig.settle()
    rig.sensors.put("c3", read)
    rig.settle()
    face = rig.take("dice_face")
    assert len(face) == 1 and (name, [["C", "missing"]]) in candidates(face[0])


def test_leaving_with_a_die_on_the_square_waits_until_it_is_taken_off(rig):
    app = rig.app
    app.dice_check(True)
    rig.sensors.place("c3", "white 2")
    rig.settle()
    rig.take()
    app.dice_check(False)
    rig.settle()
    assert app.checking and app.check.leaving and rig.take() == []  # the die is not a play
    rig.sensors.lift("c3")
    rig.settle()
    assert rig.take() == [{"event": "dice_check", "on": False}]
    assert app.controller.mode == "playing" and app.controller.game.to_move == 1


def test_the_check_square_must_be_free_in_the_game(tmp_path):
    sensors = checking()
    rig = fakes.Rig(tmp_path, sensors)
    rig.settle()
    sensors.place("c3", "white 1")
    rig.settle()
    assert rig.app.dice_check(True) == "c3 holds a piece of the game; the dice check needs it free"
    assert not rig.app.checking


def hold(rig, ms):
    for _ in range(ms // 10):
        rig.run(10)
        rig.app.button(True, rig.now)
    rig.run(1)
    rig.app.button(False, rig.now)


def wait(rig, ms):
    for _ in range(ms // 10):
        rig.run(10)
        rig.app.button(False, rig.now)


def test_the_dice_check_keeps_its_lights_moving_across_the_ticks_wrap(tmp_path, monkeypatch):
    """Its frame deadline is a tick (ticks_add): now + FRAME_MS just before the wrap is no tick."""
    from test_timing import WrappingTime
    from doce import ticks
    monkeypatch.setattr(ticks, "time", WrappingTime)
    rig = fakes.Rig(tmp_path, checking())
    rig.now = fakes.TICKS_PERIOD - 300
    rig.settle()
    assert rig.app.dice_check(True) is None
    rig.run(400)  # the empty check square pulses; the ticks wrap meanwhile
    assert rig.now < 1000
    shades = set()
    for _ in range(20):
        rig.run(25)
        shades.add(rig.led("c3"))
    assert len(shades) > 2  # still pulsing after the wrap


def test_a_double_press_on_an_empty_board_starts_the_dice_check_and_a_press_leaves_it(tmp_path):
    sensors = checking()
    rig = fakes.Rig(tmp_path, sensors)
    rig.settle()
    rig.take()
    hold(rig, 100)
    wait(rig, 800)  # one press, before the match's first piece: it shows who plays, and changes nothing
    assert not rig.app.checking and rig.take() == [] and rig.app.choice_until is not None
    wait(rig, 4000)  # while that shows, presses change who plays: wait until it has gone
    hold(rig, 100)
    wait(rig, 200)
    hold(rig, 100)
    wait(rig, 800)
    assert rig.take() == [{"event": "dice_check", "on": True, "cell": "c3"}]
    sensors.place("c3", "white 6")
    rig.settle()
    assert [(e["face"], e["ok"]) for e in rig.take()] == [("white 6", True)]
    sensors.lift("c3")
    rig.settle()
    hold(rig, 100)  # a short press
    wait(rig, 800)
    assert rig.take() == [{"event": "dice_check", "on": False}]
    assert rig.app.controller.mode == "playing"


def test_a_double_press_with_dice_on_the_board_only_says_why_not(tmp_path):
    sensors = checking()
    rig = fakes.Rig(tmp_path, sensors)
    rig.settle()
    sensors.place("b2", "white 6")
    rig.settle()
    rig.take()
    hold(rig, 100)
    wait(rig, 100)
    hold(rig, 100)
    wait(rig, 800)
    assert rig.take() == [{"event": "warning", "message": "the dice check starts on an empty board"}]
    assert not rig.app.checking


def test_a_long_press_on_an_empty_board_still_recalibrates(tmp_path):
    rig = fakes.Rig(tmp_path, checking())
    rig.settle()
    rig.take()
    hold(rig, 3100)
    assert rig.take() == [{"event": "calibrated", "error": None}] and rig.app.calibration.measured


def test_a_short_press_after_the_match_starts_the_next(tmp_path):
    rig = fakes.Rig(tmp_path, checking())
    rig.settle()
    rig.take()
    rig.app.controller.mode = "match_over"
    hold(rig, 100)
    wait(rig, 300)
    assert rig.take("new_match") == []  # not yet: a second press may follow
    wait(rig, 300)
    assert rig.take("new_match") == [{"event": "new_match", "first": "black"}]


def match_over(rig):
    """The match over, as the press after it sees it (the lights shown as white's win)."""
    rig.app.controller.mode = "match_over"
    rig.app.lights.winner, rig.app.lights.winner_of = 0, rig.app.controller.game


def press_twice(rig):
    hold(rig, 100)
    wait(rig, 200)
    hold(rig, 100)
    wait(rig, 800)


def who_plays_journaled(folder):
    """The last V record's payload in the board's journal (doce/journal.py)."""
    from doce import journal
    found = [payload for kind, payload, _ in journal.records((folder / "journal").read_bytes())
             if kind == journal.VERSUS]
    return found[-1] if found else None


def test_a_double_press_after_a_match_swaps_to_a_match_against_the_board_and_back(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rig = fakes.Rig(tmp_path, checking())
    rig.settle()
    rig.take()
    assert rig.app.versus is None
    match_over(rig)
    press_twice(rig)  # against the board, at the strongest level; the person opens
    assert rig.take("new_match") == [{"event": "new_match", "first": "black"}]
    assert not rig.app.checking  # the board is empty, but after a match a double press is the match's
    assert (rig.app.versus.colour, rig.app.versus.level) == (0, 3)  # the board plays white
    rig.run(1)
    assert who_plays_journaled(tmp_path) == bytes((0, 3))  # with the new match: kept over a power cut
    match_over(rig)
    hold(rig, 100)  # one press: the same players, the other opens (the board, now)
    wait(rig, 800)
    assert rig.take("new_match") == [{"event": "new_match", "first": "white"}]
    assert (rig.app.versus.colour, rig.app.versus.level) == (0, 3)
    match_over(rig)
    press_twice(rig)  # back to two players
    assert rig.take("new_match") == [{"event": "new_match", "first": "black"}]
    rig.run(1)
    assert rig.app.versus is None and who_plays_journaled(tmp_path) == bytes((2, 0))  # two players
    # The level last chosen (over the link) is the one the button brings back.
    rig.app.play_against(1, 1)
    rig.app.play_against(None)
    match_over(rig)
    press_twice(rig)
    assert (rig.app.versus.colour, rig.app.versus.level) == (1, 1)  # white opens: the board plays black


def test_a_double_press_during_a_match_is_still_the_dice_check(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rig = fakes.Rig(tmp_path, checking())
    rig.settle()
    rig.take()
    press_twice(rig)
    assert rig.app.checking and rig.app.versus is None and rig.take("new_match") == []


def test_a_press_during_a_match_shows_a_hint_in_light_worked_out_in_slices(tmp_path, monkeypatch):
    from doce.opponent import NO_BLOCKER
    from doce.squares import square_name
    from doce.versus import hint

    monkeypatch.chdir(tmp_path)
    sensors = checking()
    rig = fakes.Rig(tmp_path, sensors)
    rig.settle()
    sensors.place("c3", "white 4")
    rig.settle()
    rig.take()
    app = rig.app
    game = app.controller.game
    expected = hint(app.tables, game)  # what `hint` over the link answers: black's best move
    hold(rig, 100)
    for _ in range(1000):  # a single press acts once no second press has followed (within 0.5 s)
        if app.controller.hint is not None:
            break
        rig.run(1)
        app.button(False, rig.now)
    assert app.controller.hint is not None
    rig.run(1)  # its first slice
    slices = 1
    while app.controller.hint.move is None:  # one slice a scan, as the board's own move
        assert app.controller.hint.thinking is not None and slices < 2000
        rig.run(1)
        slices += 1
    assert slices > 1  # not worked out at once
    blk, sq, face = app.controller.hint.move
    assert (blk, sq, face) == expected and rig.take() == []
    cell = square_name(game.tables.grid, sq if blk == NO_BLOCKER else blk)
    seen = set()
    for _ in range(3000):  # 3 s: its square flashes in black's colour (blue) and goes off
        rig.run(1)
        seen.add(rig.led(cell))
    assert {app.lights.palette[1][8], (0, 0, 0)} <= seen
    # Black plays elsewhere: the hint is gone (it is only shown, never enforced).
    other = next(c for c in ("a1", "e1", "a5", "e5") if c != cell)
    sensors.place(other, "black 1")
    rig.settle()
    assert [e["cell"] for e in rig.take("placed")] == [other]
    assert app.controller.hint is None


def test_no_hint_when_no_round_is_in_play(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rig = fakes.Rig(tmp_path, checking())
    rig.settle()
    rig.app.controller.mode = "clearing"
    hold(rig, 100)
    wait(rig, 800)
    assert rig.app.controller.hint is None


# -- through the link, on the simulated board (MicroPython) --------------------------------


def send(sim, **request):
    replies = sim.command(do="send", line=json.dumps(request) + "\n").get("link", [])
    assert len(replies) == 1, replies
    return replies[0]


def test_dice_check_over_the_link(sim):
    sim.place("a1", "white 3")
    reply = send(sim, cmd="dice_check", on=True, id=1)
    assert reply["ok"] and reply["on"] and reply["cell"] == "c3" and "white blocker" in reply["pieces"]
    assert events(sim, "dice_check") == [{"event": "dice_check", "on": True, "cell": "c3"}]
    sim.place("c3", "black 5", turn=2)
    sim.run(sim.quiet)
    assert [(e["face"], e["ok"]) for e in events(sim, "dice_face")] == [("black 5", True)]
    assert sim.command(do="idle_allocation", scans=200)["bytes"] == 0
    reply = send(sim, cmd="dice_check", on=False)
    assert reply["ok"] and reply["on"] and reply["leaving"]
    sim.lift("c3")
    assert events(sim, "dice_check") == [{"event": "dice_check", "on": False}]
    assert sim.state()["mode"] == "playing" and not events(sim, "placed")
    assert send(sim, cmd="dice_check", on="yes")["error"] == "bad_argument"
    assert send(sim, cmd="dice_check", on=True)["ok"]
    assert sim.command(do="idle_allocation", scans=200)["bytes"] == 0  # the empty square pulsing
    assert not send(sim, cmd="dice_check", on=False)["leaving"]
    sim.place("c3", "black 4")
    assert events(sim, "placed") == [{"event": "placed", "player": "black", "cell": "c3", "value": 4}]  # the game
    reply = send(sim, cmd="dice_check", on=True)
    assert reply["error"] == "not_free" and "c3 holds a piece of the game" in reply["message"]


def test_the_check_judges_a_die_already_on_its_square_from_a_whole_read(tmp_path):
    """A die on the check square that the game did not take (white's blocker on black's
    turn): its ring changed since the board last read it whole (a settled square's ring is
    not read). Entering the check, the first verdict is on the die as it is now, not on this
    scan's centre and an old ring."""
    rig = game_in_play(tmp_path)
    app, sensors = rig.app, rig.sensors
    sensors.place("c3", "white blocker")
    rig.settle()
    assert app.controller.game.board[12] == 0  # not taken: c3 is still free in the game
    ring = [ch for ch, t in zip(sensors.channels("c3"), turned(fakes.code_of(sensors.board, "white blocker"), 0))
            if t][1]
    sensors.field[ring] = 0  # its ring magnet gone, unseen
    rig.run(2)
    rig.take()
    assert app.dice_check(True) is None  # as the link enters it: after this step's scan,
    app.check.step(rig.now)  # before the check's own step
    rig.settle()
    faces = [e for e in rig.take() if e["event"] == "dice_face"]
    assert faces and not faces[0]["ok"], faces


def test_a_blocker_play_would_read_unsettled_fails_the_check(tmp_path):
    """A black blocker whose empty place reads faint of its centre's sign (15 % of it: over
    strict_gone_percent, under gone_percent and absent_below) reads its five trits right but never
    settles in play (Board.strict); the check names that place, as the maker sees it, extra."""
    rig = game_in_play(tmp_path)
    app, sensors, b = rig.app, rig.sensors, rig.sensors.board
    assert app.dice_check(True) is None
    sensors.place("c3", "black blocker")
    c3 = sensors.channels("c3")
    place = [i for i, t in enumerate(turned(fakes.code_of(b, "black blocker"), 0)) if i and not t][0]
    faint = -sensors.signal * 15 // 100
    assert b.strict_gone_percent < 15 < b.gone_percent and -faint < b.absent_below
    sensors.field[c3[place]] = faint
    rig.settle()
    faces = [e for e in rig.take() if e["event"] == "dice_face"]
    assert faces and faces[-1]["face"] == "black blocker" and not faces[-1]["ok"], faces
    assert faces[-1]["wrong"] == [["CNESW"[place], "extra"]], faces
