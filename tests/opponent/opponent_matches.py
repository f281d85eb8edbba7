# Seeded matches between opponent levels, checked move by move by the rules engine.
# Runs unchanged on CPython and MicroPython (mp_matches.py), so the two can be compared.
from doce.game import Game
from doce.opponent import BUDGET, NO_BLOCKER, Opponent


def play_match(tables, white, black, seed, budget=BUDGET):
    """A whole match, levels `white` and `black`; (white points, black points, digest of the moves).
    `budget`: the strongest level's work a move.

    Raises AssertionError on the first move the engine refuses."""
    game = Game(tables, seed % 2)
    players = (Opponent(tables, white, seed, budget), Opponent(tables, black, seed + 1, budget))
    digest = 0
    while not game.match_over:
        if game.round_over:
            game.start_round()
        p = game.to_move
        blk, sq, face = players[p].choose(game)
        if blk != NO_BLOCKER:
            why = game.place_blocker(p, blk)
            assert why is None, "level %d blocker on %d: %s" % (players[p].level, blk, why)
            digest = (digest * 31 + 1000 + blk) % 1000003
        why = game.place(p, sq, face)
        assert why is None, "level %d die %d on %d: %s" % (players[p].level, face, sq, why)
        digest = (digest * 31 + sq * 16 + face) % 1000003
    w, b = game.totals()
    return w, b, digest


def schedule(levels, matches):
    """(white level, black level, seed) for `matches` matches of each level against each, both ways."""
    out = []
    seed = 1
    for a in range(levels):
        for i in range(matches):
            b = (a + 1 + i) % levels
            out.append((a, b, seed) if i % 2 == 0 else (b, a, seed))
            seed += 1
    return out
