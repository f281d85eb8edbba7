"""Noise, flicker, hands passing over and dice being handled: no false action, ever."""

import random

from doce.squares import square_name
from hands import events, play
from casebook import expand


def test_a_noise_soak_makes_no_false_action(sim):
    play(sim, [expand(m) for m in ("W c3 4", "B a1 2", "W e5 1", "B e1 b", "B b4 6")])
    before = sim.state()
    events(sim)
    sim.command(do="noise", level=1500)  # a quarter of the no-magnet threshold, on every read
    rng = random.Random(2024)
    empty = [c for c in map(square_name, [5] * 25, range(25)) if c not in sim.pieces]
    scans = 0
    while scans < 3000:
        what = rng.random()
        if what < 0.4:  # a hand or a die in the air over an empty square
            sim.pass_over(rng.choice(empty), mm=rng.choice([3, 5, 8, 15]))
            n = rng.randint(1, 2)
        elif what < 0.8:  # a die on the board knocked or half lifted for a moment
            cell = rng.choice(sorted(sim.pieces))
            if rng.random() < 0.5:
                sim.tilt(cell, degrees=rng.choice([5, 15, 30, 60]))
            else:
                sim.hover(cell, mm=rng.choice([1, 3, 6, 20]))
            n = rng.randint(1, 2)
            sim.run(n)
            sim.drop(cell)
        else:
            n = 0
        sim.run(n)
        sim.clear_stray()
        sim.run(3)
        scans += 2 * n + 3
    sim.run(sim.quiet + sim.debounce)
    after = sim.state()
    assert events(sim) == []  # no play, no error
    assert after["board"] == before["board"] and after["to_move"] == before["to_move"]
    assert after["mode"] == "playing"


def test_an_idle_scan_allocates_nothing(sim):
    play(sim, [expand(m) for m in ("W c3 4", "B a1 2")])
    assert sim.command(do="idle_allocation", scans=200)["bytes"] == 0


def test_animated_frames_allocate_nothing(sim):
    from test_match import ALL_OWN, MATCH
    play(sim, [expand(m) for m in ("W c3 4", "B a1 2")])
    sim.lift("c3")  # correcting: blinking lights
    assert sim.state()["mode"] == "correcting"
    assert sim.command(do="idle_allocation", scans=300)["bytes"] == 0
    sim.place("c3", "white 4")
    sim.lift("c3")
    sim.lift("a1")
    sim.command(do="new_match", first="white")
    sim.settle()
    play(sim, [expand(m) for m in ALL_OWN])  # the winning line pulses while the board is cleared
    assert sim.state()["mode"] == "clearing"
    assert sim.command(do="idle_allocation", scans=300)["bytes"] == 0
    for cell in list(sim.pieces):
        sim.lift(cell)
    for number, moves in enumerate(MATCH[1:], 2):
        play(sim, moves)
        if number < 4:
            for cell in list(sim.pieces):
                sim.lift(cell)
    assert sim.state()["mode"] == "match_over"
    assert sim.command(do="idle_allocation", scans=300)["bytes"] == 0
