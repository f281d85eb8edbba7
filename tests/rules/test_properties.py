"""Property tests: random games, the engine checked move by move against oracle.py."""

from hypothesis import HealthCheck, event, given, settings, strategies as st

from doce.game import Game, WHITE, BLACK
from doce.referee import referee
from doce.tables import Tables
from doce_host import rules
from oracle import Oracle

VARIANTS = {name: rules.load(name) for name in ("standard", "six-by-six", "four-by-four")}
TABLES = {name: Tables(rules.compile_tables(r)) for name, r in VARIANTS.items()}
PLAYERS = ("white", "black")


def cell(col, row):
    return chr(ord("a") + col) + str(row + 1)


# The moves' strategies built once: a composite built per move cost hypothesis more than the
# games did (it works out each new strategy's properties before drawing from it)
KIND = st.sampled_from(["die"] * 8 + ["blocker", "wild"])
WILD = st.one_of(
    st.none(), st.integers(), st.text(max_size=3),
    st.fixed_dictionaries({"player": st.sampled_from(PLAYERS + ("red",)),
                           "cell": st.one_of(st.text(max_size=3), st.integers()),
                           "value": st.one_of(st.integers(-1, 8), st.floats(), st.booleans())}))
ANY_PLAYER = st.sampled_from(PLAYERS)
TENTH, SIXTH = st.integers(0, 9), st.integers(0, 5)
ANY_VALUE, FACE = st.integers(0, 7), st.integers(1, 6)
COORD = {}  # grid -> st.integers(0, grid)


def any_move(draw, oracle):
    """Mostly plausible moves by the player to move, sometimes anything at all (`draw`: a
    st.data()'s)."""
    grid = oracle.r["grid"]
    kind = draw(KIND)
    if kind == "wild":
        return draw(WILD)
    player = oracle.to_move if draw(TENTH) else draw(ANY_PLAYER)
    legal = oracle.legal(player)
    if legal and draw(SIXTH):
        col, row = draw(st.sampled_from(legal))
    else:
        coord = COORD.setdefault(grid, st.integers(0, grid))
        col, row = draw(coord), draw(coord)
    move = {"player": player, "cell": cell(col, row)}
    if kind == "blocker":
        move["blocker"] = True
    else:
        move["value"] = draw(ANY_VALUE) if not draw(TENTH) else draw(FACE)
    return move


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), variant=st.sampled_from(sorted(VARIANTS)), first=st.sampled_from(PLAYERS),
       moves=st.integers(1, 400))
def test_engine_agrees_with_oracle_on_every_move_and_every_round(data, variant, first, moves):
    """Never accepts an illegal move, never refuses a legal one, and scores rounds by the rules."""
    oracle = Oracle(VARIANTS[variant], first)
    game = Game(TABLES[variant], WHITE if first == "white" else BLACK)
    for _ in range(moves):
        if oracle.match_over:
            break
        move = any_move(data.draw, oracle)
        want = oracle.verdict(move)
        events = list(referee(game, [move]))
        got = events[0].get("error")
        assert got == want, (move, events)
        if want is None:
            ended = oracle.play(move)
            rounds = [e for e in events if "round" in e]
            if ended is None:
                assert rounds == []
            else:
                result, reason, lines, points = ended
                assert len(rounds) == 1
                e = rounds[0]
                assert (e["result"], e["reason"], e["points"]) == (result, reason, points)
                assert sorted(sorted(line) for line in e["lines"]) == lines
                event("round ended: " + reason)
                if not oracle.match_over:
                    oracle.new_round()
    event("rounds finished: %d" % len(oracle.results))


@settings(max_examples=200, deadline=None)
@given(data=st.data(), variant=st.sampled_from(sorted(VARIANTS)))
def test_a_round_always_ends(data, variant):
    """Any sequence of legal plays ends the round before the dice run out of squares."""
    t = TABLES[variant]
    game = Game(t)
    limit = 2 * (t.dice_per_player + t.blockers_per_player)
    for _ in range(limit):
        p = game.to_move
        if game.blockers_left[p] and not game.blocker_this_turn and data.draw(st.integers(0, 9)) == 0:
            empties = [sq for sq in range(t.squares) if game.board[sq] == 0]
            assert game.place_blocker(p, data.draw(st.sampled_from(empties))) is None
        else:
            sq = data.draw(st.sampled_from(game.legal_squares(p)))
            assert game.place(p, sq, data.draw(st.integers(1, t.faces))) is None
        if game.round_over:
            break
    assert game.round_over
