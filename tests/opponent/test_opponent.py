"""The opponent (firmware/doce/opponent.py): legal, it wins and blocks, and it reproduces on MicroPython."""

import sys
from pathlib import Path

import pytest

from doce.game import Game
from doce.opponent import BUDGET, LEVELS, NO_BLOCKER, SLICE, STRONGEST, Opponent
from doce_host import rules
from opponent_matches import play_match, schedule

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import position_text  # noqa: E402

RULES = rules.shipped_names()
MATCHES = 25  # per level, against each other level in turn: 4 levels x 25 x 4 rounds = 400 rounds a rules file
SMALL = 4000  # a budget for the strongest level where a test plays many of its moves: the same search, cut sooner


@pytest.fixture(scope="module", params=RULES)
def tables(request):
    return rules.load_tables(request.param)


def test_never_an_illegal_move(tables):
    """Every level, both colours, every shipped rules file: play_match asserts each move is accepted."""
    results = [play_match(tables, w, b, seed, SMALL) for w, b, seed in schedule(LEVELS, MATCHES)]
    assert len(results) == LEVELS * MATCHES
    assert len({r[2] for r in results}) > LEVELS * MATCHES // 2  # the seeds make different games


def test_the_same_seed_plays_the_same_match():
    tables = rules.load_tables("standard")
    match = play_match(tables, STRONGEST, 1, 7)
    assert play_match(tables, STRONGEST, 1, 7) == match
    assert play_match(tables, STRONGEST, 1, 8) != match


def test_levels_out_of_range_are_refused():
    tables = rules.load_tables("standard")
    for level in (-1, LEVELS):
        with pytest.raises(ValueError):
            Opponent(tables, level)


def test_no_move_once_the_round_is_over():
    tables = rules.load_tables("standard")
    game = Game(tables)
    for sq, face in ((2, 3), (24, 1), (0, 3), (20, 1), (3, 3), (19, 1)):  # c1 a1 d1 for white
        assert game.place(game.to_move, sq, face) is None
    assert game.place(0, 1, 3) is None and game.round_over  # b1 completes a1-d1: 3+3+3+3
    assert Opponent(tables).choose(game) is None


# -- positions from seeded random play, judged by brute force through the engine ----------

def clone(game):
    g = Game(game.tables, game.first)
    g.board[:] = game.board
    g.dice_left[:] = game.dice_left
    g.blockers_left[:] = game.blockers_left
    g.last_placed[:] = game.last_placed
    g.to_move = game.to_move
    g.blocker_this_turn = game.blocker_this_turn
    return g


def after(game, move):
    g = clone(game)
    blk, sq, face = move
    if blk != NO_BLOCKER:
        assert g.place_blocker(g.to_move, blk) is None
    assert g.place(g.to_move, sq, face) is None
    return g


def die_moves(game):
    return [(NO_BLOCKER, sq, f) for sq in game.legal_squares(game.to_move) for f in range(1, game.tables.faces + 1)]


def wins(game, move):
    p = game.to_move
    g = after(game, move)
    return g.round_over and g.rounds[-1].result == p


def can_win(game):
    return not game.round_over and any(wins(game, m) for m in die_moves(game))


def blocker_moves(game, squares):
    p = game.to_move
    if not game.blockers_left[p] or game.blocker_this_turn:
        return []
    out = []
    for blk in squares:
        g = clone(game)
        if g.place_blocker(p, blk) is None and not g.round_over:
            out += [(blk, sq, f) for _, sq, f in die_moves(g)]
    return out


def threats(game):
    """The squares where the player not to move would win on their next turn."""
    g = clone(game)
    g.to_move = 1 - game.to_move
    g.blocker_this_turn = False
    if not g.dice_left[g.to_move]:
        return []  # the round ends out of dice before their turn
    return sorted({sq for _, sq, f in die_moves(g) if wins(g, (NO_BLOCKER, sq, f))})


def stops_them(game, move):
    g = after(game, move)
    return g.round_over or not g.dice_left[g.to_move] or not can_win(g)


def positions(tables, count, seed):
    """Positions of seeded matches between level 0 players, before each move."""
    out = []
    while len(out) < count:
        game = Game(tables, seed % 2)
        players = (Opponent(tables, 0, seed), Opponent(tables, 0, seed + 1))
        seed += 2
        while not game.round_over:
            out.append(clone(game))
            blk, sq, face = players[game.to_move].choose(game)
            if blk != NO_BLOCKER:
                game.place_blocker(game.to_move, blk)
            game.place(game.to_move, sq, face)
    return out


@pytest.mark.parametrize("name", RULES)
def test_takes_a_winning_move_when_there_is_one(name):
    tables = rules.load_tables(name)
    found = 0
    for game in positions(tables, 1500, 1):
        if not can_win(game):
            continue
        found += 1
        for level in range(1, LEVELS):
            move = Opponent(tables, level, found).choose(game)
            assert wins(game, move), "level %d missed a win:\n%s" % (level, show(game))
    assert found >= 20  # the positions held enough wins to mean something


@pytest.mark.parametrize("name", RULES)
def test_blocks_a_single_winning_threat(name):
    tables = rules.load_tables(name)
    found = 0
    for game in positions(tables, 1500, 1001):
        if can_win(game):
            continue
        them = threats(game)
        if len(them) != 1:
            continue
        moves = [m for m in die_moves(game) if m[1] in them] + blocker_moves(game, them)
        if not any(stops_them(game, m) for m in moves):
            continue  # it cannot be blocked
        found += 1
        for level in range(1, LEVELS):
            move = Opponent(tables, level, found).choose(game)
            assert stops_them(game, move), "level %d let a line through with %r:\n%s" % (level, move, show(game))
    assert found >= 20


def show(game):
    from doce_host.play import draw_board
    who = ("white", "black")[game.to_move]
    return draw_board(game) + "\n%s to move, blockers %r" % (who, list(game.blockers_left))


@pytest.mark.parametrize("name", RULES)
def test_thinking_in_slices_gives_the_same_move_a_slice_at_a_time(name):
    """think() is what the board steps between scans: each step stops soon after SLICE work
    (the weighing of one position's dice at most beyond it, with its blocker's), and the move
    is choose()'s."""
    tables = rules.load_tables(name)
    for i, game in enumerate(positions(tables, 40, 77)):
        expected = Opponent(tables, STRONGEST, i, SMALL).choose(game)
        player = Opponent(tables, STRONGEST, i, SMALL)
        most = SLICE + 3 * player.pass_work()
        steps = 0
        last = 0
        for _ in player.think(game):
            assert player.work - last <= most
            last = player.work
            steps += 1
        assert player.chosen == expected
        assert steps >= 2 or player.work <= most


def root_work(tables, game, seed):
    """The work of the strongest level's first ply alone: what it always weighs, whatever its budget."""
    player = Opponent(tables, STRONGEST, seed, 0)
    player.choose(game)
    return player.work


def test_the_work_budget_is_never_exceeded():
    """The strongest level never starts a weighing that could take its work past its budget,
    a small one or the board's; only the first ply (its own moves) always runs whole."""
    tables = rules.load_tables("standard")
    games = positions(tables, 120, 5)
    deeper = 0
    for budget in (300, 1500, 5000, BUDGET):
        for i, game in enumerate(games):
            player = Opponent(tables, STRONGEST, i, budget)
            move = player.choose(game)
            assert game.refusal(game.to_move, move[1], move[2]) is None or move[0] != NO_BLOCKER
            root = root_work(tables, game, i)
            assert player.work <= max(budget, root), (budget, player.work, root)
            deeper += player.work > root
    assert deeper > len(games)  # it did look deeper, within the budget


def test_the_budget_holds_wherever_it_falls():
    """Budgets a few units apart stop the search at every kind of step (a weighing, a blocker
    tried, a move taken back): never past the budget."""
    tables = rules.load_tables("standard")
    for i, game in enumerate(positions(tables, 8, 9)):
        root = root_work(tables, game, i)
        for budget in range(root, root + 6000, 149):
            player = Opponent(tables, STRONGEST, i, budget)
            player.choose(game)
            assert player.work <= budget, (i, budget, player.work)


def test_the_strongest_level_weighs_the_answers():
    """Level 3 looks ahead at the other player's answers and its own: against level 2 (the same
    weights, one ply deep) in seeded matches it wins far more than it loses."""
    tables = rules.load_tables("standard")
    won = lost = 0
    for seed in range(12):
        if seed % 2:
            mine, theirs, _ = play_match(tables, STRONGEST, 2, seed)
        else:
            theirs, mine, _ = play_match(tables, 2, STRONGEST, seed)
        won += mine > theirs
        lost += mine < theirs
    assert won > lost + 6, (won, lost)


def test_the_strongest_level_spoils_a_fork_square():
    """A position of a match against Monte Carlo (bench/ladder.py's match 4, round 1): white opened
    on the centre (square 12), black answered on two squares diagonal to it, 8 and 18, with one
    square between them in a column of five. Black's die on that square, 13, would make two
    winning squares at once (the column's two lines through it, each one die from a winning
    square). White spoils it now; before, it played the corner 0 and lost the round to the four
    dice black built around its centre."""
    tables = rules.load_tables("standard")
    game = Game(tables)
    position_text.read(game, "00000000000000002100000013000000000025001300000000 0909 0101 1412 0")
    for seed in range(1, 6):
        assert Opponent(tables, STRONGEST, seed).choose(game)[1] == 13, seed


def zone_traps(tables, game, me, square):
    """The empty squares of the no-play zone a die of me's on `square` makes, where one more die
    of the other player's would make them a winning square: each on a line with two of their
    dice, its other square empty and their sum still able to reach the target. Only a blocker
    answers a winning square in the zone."""
    n = tables.line_length
    zone = set(tables.zone[square * tables.zone_stride:(square + 1) * tables.zone_stride]) - {0xFF}
    traps = set()
    for line in range(tables.line_count):
        squares = tables.lines[line * n:(line + 1) * n]
        if square in squares:
            continue  # the die takes one of its squares
        empty = [q for q in squares if game.board[q] == 0]
        theirs = [game.board[q] for q in squares if game.board[q] and game.board[q] >> 4 == 2 - me]
        rest = tables.target - sum(c & 0x0F for c in theirs)
        if len(empty) == 2 and len(theirs) == 2 and 2 <= rest <= 2 * tables.faces:
            traps |= zone.intersection(empty)
    return traps


@pytest.mark.parametrize("position, match, before", [
    # bench/ladder.py's match 1030 against greedy, round 4, white's 4th die: black's 2 and 5 on
    # squares 13 and 8 leave 18 and 23 one die from a winning square; white's die on 17 puts both
    # in its zone. Here white is 20 points behind.
    ("00220000000000142315000011260000000000000000000000 0808 0101 0708 0", "4 20 40", 17),
    # match 1053, round 4, black's 4th die: white's 3 and 5 on 17 and 18 leave 3 and 8; 7 puts
    # 3 and 8 in black's zone. Here black is 24 behind.
    ("00000000000000000000000022160000002313250014000000 0808 0101 1211 1", "4 44 20", 7),
])
def test_when_only_a_big_win_wins_the_match_the_strongest_level_keeps_its_zone_clear(position, match, before):
    """In the match's last round, so far behind that a win with its blocker spent scores too little
    to win the match (NEEDS), its die no longer makes a no-play zone where the other player's next
    die could make a winning square: only its blocker could answer one there. Greedy answered
    level 3's first winning square with its blocker and such a die, and level 3 then spent its
    own blocker, and its 5 points, in 391 of the 400 rounds it opened (docs/opponent.md). Not
    behind, it plays as before: there such a die can be the better move."""
    from doce.opponent import NEEDS, needs_points
    tables = rules.load_tables("standard")
    game = Game(tables)
    position_text.read(game, position)
    position_text.read_match(game, match.split())
    me = game.to_move
    totals = game.totals()
    assert totals[1 - me] - totals[me] + 1 >= NEEDS and needs_points(game, me)
    assert zone_traps(tables, game, me, before)  # the position shows what it should
    for seed in range(1, 6):
        move = Opponent(tables, STRONGEST, seed).choose(game)
        assert not zone_traps(tables, game, me, move[1]), (seed, move)
    position_text.read_match(game, "4 30 30".split())
    assert not needs_points(game, me)


def test_in_the_last_round_the_strongest_level_takes_a_draw_that_wins_the_match():
    """White's die of 4 on square 3 completes its row and black's column at once: a line each, a
    drawn round. In the match's last round, 20 points ahead, that draw wins white the match, and
    the strongest level takes it; in the first round, or with the points level, it blocks black's
    column with another face and plays on."""
    from doce.opponent import draw_wins
    tables = rules.load_tables("standard")
    position = "13121300000000002300000000220000000023002100001100 0707 0101 1714 0"
    for match, draw in (("1 0 0", False), ("4 40 20", True), ("4 40 36", False), ("4 20 40", False)):
        game = Game(tables)
        position_text.read(game, position)
        position_text.read_match(game, match.split())
        assert position_text.write_match(game) == match
        assert draw_wins(game, 0) == draw
        for seed in range(1, 4):
            move = Opponent(tables, STRONGEST, seed).choose(game)
            assert (move == (NO_BLOCKER, 3, 4)) == draw, (match, seed, move)


def test_in_the_last_round_the_strongest_level_lets_a_win_go_that_cannot_overtake_its_lead():
    """bench/ladder.py's match 1000 against greedy, round 4, white's 6th die: black has a winning
    square, 20, only white's blocker can answer. 67 points ahead, no win of black's this round can
    score that much (12, 2 for a line all its own, 5 for its blocker, a point an empty square), so
    white keeps its blocker and plays on; 30 ahead, black's win would overtake, and white blocks."""
    tables = rules.load_tables("standard")
    position = "00001300000000242600001521132400232616000000150000 0605 0101 1208 0"
    for match, blocks in (("4 67 0", False), ("4 30 0", True)):
        game = Game(tables)
        position_text.read(game, position)
        position_text.read_match(game, match.split())
        for seed in range(1, 4):
            move = Opponent(tables, STRONGEST, seed).choose(game)
            assert (move[0] == 20) == blocks, (match, seed, move)


def test_a_match_text_out_of_range_is_refused():
    game = Game(rules.load_tables("standard"))
    for words in ("5 0 0", "0 0 0", "2 -1 0", "3 4"):
        with pytest.raises(ValueError):
            position_text.read_match(game, words.split())


def test_the_native_weighing_chooses_as_the_bytecode_one_did():
    """chosen_moves.txt: levels 1 and 2's moves from 300 positions of real matches, as the
    opponent chose them while it weighed in bytecode. The native loops must weigh alike."""
    tables = rules.load_tables("standard")
    game = Game(tables)
    lines = [x for x in (Path(__file__).parent / "chosen_moves.txt").read_text().splitlines()
             if x and not x.startswith("#")]
    assert len(lines) == 300
    for text in lines:
        position, expected = text.split(": ")
        for level, want in zip((1, 2), expected.split(", ")):
            seed = position_text.read(game, position)[0]
            player = Opponent(tables, level)
            player.rng.x = int(seed)
            assert "%d %d %d" % player.choose(game) == want, (level, position)


def test_every_number_it_holds_is_a_small_int_on_the_chip():
    """An ESP32's MicroPython keeps ints under 2^30 in the object itself; one past that is a new
    object on the heap each time it is made (and a viper loop's would wrap at 2^31). Every int
    the opponent's functions hold while they think (the native loops' too: on CPython they run as
    plain Python) stays under 2^30, on every shipped board."""
    import doce.opponent
    here = doce.opponent.__file__
    largest = [0]

    def watch(frame, event, arg):
        if frame.f_code.co_filename != here:
            return None
        if event in ("line", "return"):
            values = list(frame.f_locals.values()) + ([arg] if event == "return" else [])
            for v in values:
                if isinstance(v, int) and not isinstance(v, bool):
                    largest[0] = max(largest[0], abs(v))
                elif isinstance(v, tuple):
                    largest[0] = max([largest[0]] + [abs(x) for x in v if isinstance(x, int)])
        return watch

    for name in RULES:
        tables = rules.load_tables(name)
        for i, game in enumerate(positions(tables, 30, 31)[10::5]):
            player = Opponent(tables, STRONGEST, i, 1500)
            sys.settrace(watch)
            try:
                player.choose(game)
            finally:
                sys.settrace(None)
            for array_ in (player.mem32, player.layout, player.mem16):
                largest[0] = max([largest[0]] + [abs(x) for x in array_])
    assert 100000 < largest[0] < 1 << 30, largest[0]  # scores reach WON (1e5); never 2^30
    assert Path(here).read_text().count("1 << 30") == 0
