"""A match against the board, through the simulated sensors: it shows its move in light, the
players put it down for it, a wrong one goes through correction, a power cut keeps the move."""


from hands import ask, blink, events


def board_move(sim):
    """The board's move once it has thought (between scans): the hint for the player to move is
    the same move, the strongest level seeded by the position as the board's is."""
    sim.wait(4)
    hint = ask(sim, "hint")
    assert hint["ok"], hint
    return hint["hint"]


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
    assert ask(sim, "new_match", opponent={"colour": "red"})["error"] == "bad_argument"
    assert ask(sim, "new_match", opponent={"colour": "black", "level": 9})["error"] == "bad_argument"
    assert ask(sim, "new_match", opponent=3)["error"] == "bad_argument"
