"""A DOCE player: the board's opponent and its hints.

Pure, like the rules engine (game.py): no I/O, the same moves on CPython and MicroPython for
the same seed, and every rule read from the tables, so the variants are played too.
docs/opponent.md says how it thinks and how each level plays.

A move is (blocker square or NO_BLOCKER, square, face): the optional blocker first, then the
die, as a turn is played.

It thinks on its own copy of the position, kept line by line: each line's sum, its dice and
whose they are (a bit a place), and the square where one more die would win it (a winning
square), counted square by square for each player. A die updates only the lines through its
square. The loops that do that and weigh every die on every square are viper native code on
MicroPython (plain Python on CPython, through doce.native's stand-ins): they read and write
bytearrays and arrays only, and every number they hold stays far under 2^30, so they allocate
nothing and run the same on a 32-bit ESP32 as on a 64-bit PC. Python around them keeps only the
search: which moves to look at, and in what order.
"""

import sys
from array import array

from .game import BLOCKER, EMPTY, NOWHERE
from .openings import reply
from .tables import END

if sys.implementation.name == "micropython":
    import micropython
    from micropython import const
else:  # CPython: viper's decorator and casts do nothing
    from .native import const, micropython, ptr8, ptr16, ptr32, uint

LEVELS = 4
STRONGEST = LEVELS - 1
NO_BLOCKER = NOWHERE

# Thinking is counted in work: a line read or updated, a face weighed, a square looked at for a
# winning square is 1; a move the search looks at costs NODE more (the Python around the native
# loops). A step of think() ends once SLICE more work is done, or a weighing of every die at most
# beyond it (bench/opponent.py gives a step's time on an ESP32, the slowest searched for); the
# strongest level never starts what could take its work past BUDGET, so no move costs more
# (bench/opponent.py measures a unit's cost on the unix port and gives the worst move's time on
# an ESP32).
SLICE = 400
# What Python's own handling of a move takes of a slice, in units of work's time (a unit of work is
# some 840 unix-port instructions): a move listed as a tuple (levels 1 and 2) about 4,000, one
# decided one ply deep, passed over by the strongest level, about 12,000. Uncounted, a step listing
# every die's moves took 2 M instructions for 600 work, and one passing over 168 decided moves
# 1.2 M for none (callgrind, opponent_think.py's steps). It shortens the slice, not the budget.
LISTING = 5
DECIDED = 14
BUDGET = 40000
NODE = 40
CHILD_SEES = 20  # level 0 takes a winning move one turn in this many
# Chance between moves of nearly equal weight, in tenths of a point: levels 1 and 2 up to 1 point;
# the strongest up to 4, so it varies more between moves it weighs nearly alike (tried on the
# ladder, bench/ladder.py: with 1 or 2 points it lost more often to the greedy baseline).
NOISE = 10
STRONGEST_NOISE = 40

# The strongest level: a search of its own moves, the other player's answers, its answers to
# those and theirs again (four plies), each ply over the best few moves one ply deep. WIDTHS: how
# many at each ply (more while all of those lose). The budget binds: 30 moves two plies deep leave
# room to look at 3 four plies deep (issue 44, against greedy, bench/ladder.py: matches 5000-5399
# 372 won where 40 and 2 won 358; held out, 2000-2399 374 (370) and 4000-4399 366 (360)); with 60
# two plies deep the four-ply look was cut and it won 163 of 1000-1199 (188).
WIDTHS = (30, 6, 4)
VERIFY = 3  # the best moves two plies deep looks at again, four plies deep
WINS = 40000  # a move worth this much four plies deep wins whatever the other player answers
KEEP = const(16)  # the most moves a ply keeps, best first

# Scores, in bands: a point is 10, and a quiet move weighs well within +-20000.
WON = const(100000)  # plus the points
FORK = const(70000)  # winning squares the other player cannot all answer: a win next turn
DRAWN = const(-30000)  # a line each
DOOMED = const(-50000)  # below this, the other player has a fork or a win: the move loses
LOSES_NEXT = const(-90000)  # the other player wins next turn (worse than a fork: that wins a turn later)
LOST = const(-100000)  # it completes the other player's line
# Weights of a quiet move, in tenths of a point.
LIVE = const(600)  # a winning square of mine I may play next turn
IN_THEIR_ZONE = const(400)  # more, if it is in the other player's zone: only their blocker answers it
LATENT = const(200)  # one in my no-play zone: it opens when my zone moves
THEIRS_LATENT = const(-400)  # one of the other player's, in their zone
OWN = const(40)  # x (my dice on it)^2: a line I can still win
THEIRS = const(50)  # x (their dice on it)^2: one of the other player's, spoilt
# The strongest level: a fork square is an empty square on two lines of one player's that are each one
# die from a winning square, so that one die there makes two winning squares at once (in a row of
# five, two dice with a gap between them and both ends empty; four dice around a die of the other
# player's make four). Monte Carlo's play built them around level 3's opening die and won with them
# (bench/ladder.py's matches 0-19: 1 round of 6 so built won by level 3, 30 of 34 otherwise).
SPOIL_FORK = const(300)  # one of the other player's that the die spoils
MAKE_FORK = const(200)  # one of mine that it makes
BLOCKER_USED = const(400)  # its 5 points, and the only answer to a winning square in my zone
# The strongest level, in the match's last round when a drawn round wins it the match: it plays to
# stop the other player, not to win. Spoiling their lines and making winning squares only their
# blocker answers (a win that costs them its 5 points may no longer overtake) count this many
# times. Against the greedy baseline (bench/ladder.py's matches 1000-1199) it had lost 7 matches
# of 200 by losing that round, more points than its lead.
KEEN = const(4)
# The strongest level, in the match's last round when only a win by at least NEEDS points wins it the
# match (its points so far behind the other player's by NEEDS - 1 or more): with its blocker spent a
# win scores too little, so it keeps it. While it holds it, each empty square of the no-play zone a die
# makes where one more die of the other player's would make them a winning square costs TRAP: only its
# blocker could answer one there. Against greedy (bench/ladder.py's matches 1000-1199) the round's
# opener's first winning square drew greedy's blocker and a die making a winning square in that zone,
# so level 3 spent its own blocker in 391 of the 400 rounds it opened, and won them by 16 to 22 points.
# Chosen on matches 0-399, 1000-1199, 3000-3399 and 5000-5399: of the 37 it reaches, 6 went better, none
# worse (from 19 behind; 17 or 18 behind it had won 13 of 14).
NEEDS = 20
TRAP = const(100)

# The native loops keep scores in arrays of 32-bit ints as score + ZERO, never negative: a 64-bit
# port's viper reads a 32-bit element unsigned, a 32-bit one signed, and only a value that is
# never negative reads the same on both. 0 is "no move".
ZERO = const(1 << 20)
NO_STOP = const(1 << 22)  # a pass's `stop` that no score reaches


def needs_points(game, me):
    """Whether, in the match's last round, me wins the match only by a win of NEEDS points or more."""
    if game.round != game.tables.rounds:
        return False
    totals = game.totals()
    return totals[1 - me] - totals[me] + 1 >= NEEDS


def draw_wins(game, me):
    """Whether, in the match's last round, a drawn round wins the match for me: the points so far
    ahead of the other player's by more than their unused blocker could add to a draw's."""
    t = game.tables
    if game.round != t.rounds:
        return False
    totals = game.totals()
    return totals[me] > totals[1 - me] + t.unused_blocker


class Rng:
    """xorshift16 (Marsaglia 2003, shifts 7, 9, 8; period 65535): small ints only, so no
    allocation on a 32-bit MicroPython, and the same numbers on every port. Its state is in an
    array, so the native loops draw from it too."""

    def __init__(self, seed):
        self.state = array("H", [seed % 65535 + 1])

    @property
    def x(self):
        return self.state[0]

    @x.setter
    def x(self, value):
        self.state[0] = value

    def below(self, n):
        x = self.state[0]
        x ^= (x << 7) & 0xFFFF
        x ^= x >> 9
        x ^= (x << 8) & 0xFFFF
        self.state[0] = x
        return x % n


# Where each of the native loops' arrays starts, in `layout`: the bytes in mem8, the 16-bit line
# masks in mem16, the 32-bit ints in mem32 (offsets in bytes, as viper's pointers count), and the
# numbers they read. A native function looks up three attributes, not one an array: a look-up
# costs more than most of its loops.
_N = const(0)  # squares in a line
_LINES = const(1)  # lines
_SQUARES = const(2)
_FACES = const(3)
_STRIDE = const(4)  # a square's entries in `through`
_ZS = const(5)  # a square's entries in `zone`
_TARGET = const(6)
_FULL = const(7)  # a line's mask, all of it
_ENDS = const(8)  # its two ends
_LEVEL = const(9)
_B = const(10)  # the board
_SUM = const(11)  # each line's sum, dice, blockers
_DICE = const(12)
_BLOCKED = const(13)
_COUNT = const(14)  # each player's dice on each line
_WSQ = const(15)  # each line's winning square or NOWHERE, its face, whose (bit 0 white, 1 black)
_WFACE = const(16)
_WWHO = const(17)
_WCOUNT = const(18)  # each player's winning lines through each square
_LEFT = const(19)  # each player's dice, blockers, last square
_BLOCKERS = const(20)
_LAST = const(21)
_ZMAP = const(22)  # bit 0 my no-play zone, 1 theirs, 2 the zone a die would make
_LISTED = const(23)  # my winning squares, for a pass
_BLOCKS = const(24)  # each ply's squares for the blocker
_GAPS = const(25)  # a square's lines one die from a winning square: square, faces, whose
_DONE = const(26)  # whom each face completes a line for
_PER_FACE = const(27)
_KEPT = const(28)  # how many moves each ply keeps
_TLINES = const(29)  # the tables: each line's squares, each square's lines and zone
_THROUGH = const(30)
_ZONE = const(31)
_AT = const(32)  # where a square sits in each of its lines
_WINNING = const(33)  # by a line's mask: does it win
_UNSPOILT = const(34)  # can the player whose dice are not these still win it
_TOP_BIT = const(35)  # its highest square
_MASK = const(36)  # mem16: each player's dice on each line, a bit a place
_OWN = const(37)  # mem32: what an open line is worth to its owner, by their dice
_SPOILT = const(38)  # what the other player's is worth, spoilt
_RISE = const(39)  # a pass's weights, face by face
_SAME = const(40)  # the same-face penalty a die of each face would complete
_SCORES = const(41)  # the last pass: score + ZERO, 0 if no die may go there
_TOP = const(42)  # each ply's best moves: score + ZERO
_TOP_MOVE = const(43)  # and the move, blocker << 12 | square << 4 | face
_TALLY = const(44)  # work, faces weighed
_POINTS = const(45)  # whether a pass counts a win's points (the strongest level)
_SQUARE_FACES = const(46)  # how many faces of one square a ply keeps
_NOISE = const(47)  # a pass's chance between equals: 0 to this less 1, in tenths of a point
_FORKS = const(48)  # the strongest level: bit 0 a pass weighs fork squares, bit 1 the zone's traps (TRAP)
_TWO = const(49)  # each player's lines one die from a winning square, counted on each empty square
_KIND = const(50)  # each line: bit 0 one such of the other player's, bit 1 one die of mine short of it
_UNDO = const(51)  # the lines one die's weighing counted on: taken back after it
_DRAWS = const(52)  # the last round: 1 + the player a drawn round wins the match for, else 0
_LEAD = const(53)  # with _DRAWS: that player's points ahead of the other's before the round
_LAYOUT = const(54)


class Opponent:
    def __init__(self, tables, level=STRONGEST, seed=1, budget=BUDGET):
        if not 0 <= level < LEVELS:
            raise ValueError("opponent level: 0 to %d" % STRONGEST)
        t = tables
        self.t = t
        self.level = level
        self.rng = Rng(seed)
        self.budget = budget
        n = t.line_length
        squares = t.squares
        faces = t.faces
        lines = t.line_count
        stride = t.through_stride
        plies = len(WIDTHS) + 1
        self.n = n
        self.squares = squares
        self.faces = faces
        self.line_count = lines
        self.stride = stride
        full = (1 << n) - 1
        # A full line wins for the player whose dice fill it, or all of it but one end (3+1).
        win_a = full ^ 1 if t.opponent_end else full
        win_b = full ^ (1 << (n - 1)) if t.opponent_end else full
        ends = (full ^ win_a) | (full ^ win_b)
        self.full = full
        sizes8 = {_B: squares, _SUM: lines, _DICE: lines, _BLOCKED: lines, _COUNT: 2 * lines, _WSQ: lines,
                  _WFACE: lines, _WWHO: lines, _WCOUNT: 2 * squares, _LEFT: 2, _BLOCKERS: 2, _LAST: 2,
                  _ZMAP: squares, _LISTED: squares, _BLOCKS: squares * (plies + 1), _GAPS: 4 * stride,
                  _DONE: faces + 1, _PER_FACE: 16, _KEPT: plies, _TLINES: lines * n,
                  _THROUGH: squares * stride, _ZONE: squares * t.zone_stride, _AT: squares * stride,
                  _WINNING: 1 << n, _UNSPOILT: 1 << n, _TOP_BIT: 1 << n, _TWO: 2 * squares, _KIND: lines,
                  _UNDO: stride}
        sizes32 = {_OWN: n + 2, _SPOILT: n + 2, _RISE: faces + 2, _SAME: faces + 1, _SCORES: squares * faces,
                   _TOP: plies * KEEP, _TOP_MOVE: plies * KEEP, _TALLY: 2}
        layout = array("i", bytes(4 * _LAYOUT))
        for k, v in ((_N, n), (_LINES, lines), (_SQUARES, squares), (_FACES, faces), (_STRIDE, stride),
                     (_ZS, t.zone_stride), (_TARGET, t.target), (_FULL, full), (_ENDS, ends), (_LEVEL, level),
                     (_POINTS, 0), (_FORKS, 1 if level == STRONGEST else 0), (_DRAWS, 0),
                     (_SQUARE_FACES, 2), (_NOISE, STRONGEST_NOISE if level == STRONGEST else NOISE)):
            layout[k] = v
        size = 0
        for k in sorted(sizes8):
            layout[k] = size
            size += sizes8[k]
        self.mem8 = bytearray(size)
        self.mem16 = array("H", bytes(4 * lines))  # _MASK: white's dice on each line, then black's
        size = 0
        for k in sorted(sizes32):
            layout[k] = 4 * size
            size += sizes32[k]
        self.mem32 = array("i", bytes(4 * size))
        self.layout = layout

        def view8(k):
            return memoryview(self.mem8)[layout[k]:layout[k] + sizes8[k]]

        def view32(k):
            return memoryview(self.mem32)[layout[k] // 4:layout[k] // 4 + sizes32[k]]

        # The position it thinks on, never the real game, and what Python reads of the loops' work.
        self.b = view8(_B)
        self.sum = view8(_SUM)
        self.blocked = view8(_BLOCKED)
        self.wsq = view8(_WSQ)
        self.wface = view8(_WFACE)
        self.wwho = view8(_WWHO)
        self.left = view8(_LEFT)
        self.blockers = view8(_BLOCKERS)
        self.last = view8(_LAST)
        self.zmap = view8(_ZMAP)
        self.blocks = view8(_BLOCKS)
        self.kept = view8(_KEPT)
        self.mask = self.mem16
        self.scores = view32(_SCORES)
        self.top = view32(_TOP)
        self.top_move = view32(_TOP_MOVE)
        self.tally = view32(_TALLY)
        # The tables, and what is worked out from them once.
        view8(_TLINES)[:] = t.lines
        view8(_THROUGH)[:] = t.through
        view8(_ZONE)[:] = t.zone
        at = view8(_AT)
        for q in range(squares):
            for i in range(q * stride, q * stride + stride):
                line = t.through[i]
                if line != END:
                    for j in range(n):
                        if t.lines[line * n + j] == q:
                            at[i] = j
        winning = view8(_WINNING)
        unspoilt = view8(_UNSPOILT)
        top_bit = view8(_TOP_BIT)
        for m in range(1 << n):
            winning[m] = 1 if m in (full, win_a, win_b) else 0
            unspoilt[m] = 1 if m == 0 or m & ends == m and m != ends else 0
            top_bit[m] = len(bin(m)) - 3 if m else 0
        own = view32(_OWN)
        spoilt = view32(_SPOILT)
        for c in range(n + 2):
            own[c] = OWN * c * c
            spoilt[c] = THEIRS * c * c
        self.limit = budget
        self.slice = SLICE
        self.rank_score = array("i", bytes(4 * squares * faces))  # _rank_all's moves: grows with more weighings
        self.rank_move = array("i", bytes(4 * squares * faces))
        self.widths = WIDTHS
        self.moves = []

    @property
    def work(self):
        return self.tally[0]

    @property
    def nodes(self):
        """Faces weighed."""
        return self.tally[1]

    # -- the position ---------------------------------------------------------

    def _load(self, game):
        """The game's position, line by line: each piece added to empty lines."""
        self._clear()
        b = self.b
        for q in range(self.squares):
            c = game.board[q]
            if c >= BLOCKER:
                b[q] = c
                self._lines(2, q, 0, 1)
            elif c:
                b[q] = c
                self._lines((c >> 4) - 1, q, c & 0x0F, 1)
        for p in (0, 1):
            self.left[p] = game.dice_left[p]
            self.blockers[p] = game.blockers_left[p]
            self.last[p] = game.last_placed[p]

    @micropython.viper
    def _clear(self):
        """An empty board and empty lines."""
        lay = ptr32(self.layout)
        m8 = uint(ptr8(self.mem8))
        lines_n = lay[_LINES]
        squares = lay[_SQUARES]
        b = ptr8(m8 + lay[_B])
        for q in range(squares):
            b[q] = 0
        sums = ptr8(m8 + lay[_SUM])
        dice = ptr8(m8 + lay[_DICE])
        blocked = ptr8(m8 + lay[_BLOCKED])
        wsq = ptr8(m8 + lay[_WSQ])
        count = ptr8(m8 + lay[_COUNT])
        mask = ptr16(self.mem16)
        for line in range(lines_n):
            sums[line] = 0
            dice[line] = 0
            blocked[line] = 0
            wsq[line] = 0xFF
        for i in range(2 * lines_n):
            count[i] = 0
            mask[i] = 0
        wcount = ptr8(m8 + lay[_WCOUNT])
        for q in range(2 * squares):
            wcount[q] = 0

    @micropython.viper
    def put(self, p: int, sq: int, f: int) -> int:
        """p's die on sq, f up. Returns whom it completes a line for (bit 0 white, bit 1 black).
        take(p, sq, last) undoes it, `last` being p's last square before."""
        lay = ptr32(self.layout)
        m8 = uint(ptr8(self.mem8))
        ptr8(m8 + lay[_B])[sq] = ((p + 1) << 4) | f
        ptr8(m8 + lay[_LEFT])[p] -= 1
        ptr8(m8 + lay[_LAST])[p] = sq
        return int(self._lines(p, sq, f, 1))

    @micropython.viper
    def take(self, p: int, sq: int, last: int):
        lay = ptr32(self.layout)
        m8 = uint(ptr8(self.mem8))
        b = ptr8(m8 + lay[_B])
        f = b[sq] & 0x0F
        b[sq] = 0
        ptr8(m8 + lay[_LEFT])[p] += 1
        ptr8(m8 + lay[_LAST])[p] = last
        self._lines(p, sq, f, -1)

    @micropython.viper
    def put_blocker(self, p: int, sq: int):
        lay = ptr32(self.layout)
        m8 = uint(ptr8(self.mem8))
        ptr8(m8 + lay[_B])[sq] = 0x30 | p  # BLOCKER
        ptr8(m8 + lay[_BLOCKERS])[p] -= 1
        self._lines(2, sq, 0, 1)

    @micropython.viper
    def take_blocker(self, p: int, sq: int):
        lay = ptr32(self.layout)
        m8 = uint(ptr8(self.mem8))
        ptr8(m8 + lay[_B])[sq] = 0
        ptr8(m8 + lay[_BLOCKERS])[p] += 1
        self._lines(2, sq, 0, -1)

    @micropython.viper
    def _lines(self, p: int, sq: int, f: int, step: int) -> int:
        """The lines through sq with p's die f added (step 1) or taken off (-1); p 2: a blocker.
        Each line's winning square is noted afresh. Returns whom the die completes a line for
        (bit 0 white, bit 1 black)."""
        lay = ptr32(self.layout)
        m8 = uint(ptr8(self.mem8))
        n = lay[_N]
        lines_n = lay[_LINES]
        squares = lay[_SQUARES]
        stride = lay[_STRIDE]
        target = lay[_TARGET]
        faces = lay[_FACES]
        full = lay[_FULL]
        through = ptr8(m8 + lay[_THROUGH])
        lines = ptr8(m8 + lay[_TLINES])
        at = ptr8(m8 + lay[_AT])
        sums = ptr8(m8 + lay[_SUM])
        dice = ptr8(m8 + lay[_DICE])
        blocked = ptr8(m8 + lay[_BLOCKED])
        mask = ptr16(self.mem16)
        count = ptr8(m8 + lay[_COUNT])
        wsq = ptr8(m8 + lay[_WSQ])
        wface = ptr8(m8 + lay[_WFACE])
        wwho = ptr8(m8 + lay[_WWHO])
        wcount = ptr8(m8 + lay[_WCOUNT])
        winning = ptr8(m8 + lay[_WINNING])
        top_bit = ptr8(m8 + lay[_TOP_BIT])
        mine = p * lines_n
        won = 0
        row = sq * stride
        i = row
        while i < row + stride:
            line = through[i]
            if line == 0xFF:  # END
                break
            u = wsq[line]
            if u != 0xFF:  # its winning square, noted afresh below
                who = wwho[line]
                if who & 1:
                    wcount[u] -= 1
                if who & 2:
                    wcount[squares + u] -= 1
                wsq[line] = 0xFF
            if p == 2:
                blocked[line] = blocked[line] + step
            else:
                sums[line] = sums[line] + step * f
                dice[line] = dice[line] + step
                count[mine + line] = count[mine + line] + step
                mask[mine + line] = mask[mine + line] ^ (1 << at[i])
            i += 1
            d = dice[line]
            if blocked[line]:
                continue
            if d == n:
                if sums[line] == target:
                    if winning[mask[line]]:
                        won |= 1
                    if winning[mask[lines_n + line]]:
                        won |= 2
                continue
            if d != n - 1:
                continue
            need = target - sums[line]
            if need < 1 or need > faces:
                continue
            m0 = mask[line]
            m1 = mask[lines_n + line]
            gap = full ^ (m0 | m1)
            who = 0
            if winning[m0 | gap]:
                who = 1
            if winning[m1 | gap]:
                who |= 2
            if who:
                u = lines[line * n + top_bit[gap]]
                wsq[line] = u
                wface[line] = need
                wwho[line] = who
                if who & 1:
                    wcount[u] += 1
                if who & 2:
                    wcount[squares + u] += 1
        ptr32(uint(ptr32(self.mem32)) + lay[_TALLY])[0] += i - row
        return won

    @micropython.viper
    def _zones(self, me: int) -> int:
        """zmap: bit 0 on me's no-play zone, bit 1 on the other player's. Returns the squares
        me may put a die on."""
        lay = ptr32(self.layout)
        m8 = uint(ptr8(self.mem8))
        squares = lay[_SQUARES]
        zs = lay[_ZS]
        zone = ptr8(m8 + lay[_ZONE])
        zmap = ptr8(m8 + lay[_ZMAP])
        last = ptr8(m8 + lay[_LAST])
        b = ptr8(m8 + lay[_B])
        for u in range(squares):
            zmap[u] = 0
        z = last[me]
        if z != 0xFF:
            for j in range(z * zs, z * zs + zs):
                if zone[j] != 0xFF:
                    zmap[zone[j]] |= 1
        z = last[1 - me]
        if z != 0xFF:
            for j in range(z * zs, z * zs + zs):
                if zone[j] != 0xFF:
                    zmap[zone[j]] |= 2
        legal = 0
        for u in range(squares):
            if b[u] == 0 and not zmap[u] & 1:
                legal += 1
        ptr32(uint(ptr32(self.mem32)) + lay[_TALLY])[0] += squares >> 2
        return legal

    def legal_count(self, p):
        """How many squares p may put a die on."""
        return self._zones(p)

    @micropython.viper
    def _threats(self, p: int, at: int) -> int:
        """p's winning squares they may play next turn (none once out of dice), listed from
        blocks[at]; how many. Call _zones(p) first."""
        lay = ptr32(self.layout)
        m8 = uint(ptr8(self.mem8))
        squares = lay[_SQUARES]
        wcount = ptr8(m8 + lay[_WCOUNT])
        zmap = ptr8(m8 + lay[_ZMAP])
        blocks = ptr8(m8 + lay[_BLOCKS])
        k = 0
        if ptr8(m8 + lay[_LEFT])[p]:
            base = p * squares
            for u in range(squares):
                if wcount[base + u] and not zmap[u] & 1:
                    blocks[at + k] = u
                    k += 1
        ptr32(uint(ptr32(self.mem32)) + lay[_TALLY])[0] += squares >> 2
        return k

    def live(self, p):
        """p's winning squares they may play next turn, as a list (none once out of dice)."""
        self._zones(p)
        return list(self.blocks[:self._threats(p, 0)])

    # -- every die on every square, one ply deep ----------------------------------------

    @micropython.viper
    def _pass(self, me: int, cost: int, stop: int) -> int:
        """Every die me may put down, on every legal square and face, weighed one ply deep (the
        weights above; docs/opponent.md): into scores[square * faces + face - 1] as score + ZERO,
        0 where no die may go. `cost` is taken off every move (the blocker, if this pass follows
        it). Returns the best score + ZERO, or as soon as a square's reaches `stop` (then the
        scores are not all written). The strongest level counts the points in a win: its own,
        or the other player's. Call _zones(me) first."""
        lay = ptr32(self.layout)
        m8 = uint(ptr8(self.mem8))
        m32 = uint(ptr32(self.mem32))
        squares = lay[_SQUARES]
        faces = lay[_FACES]
        n = lay[_N]
        lines_n = lay[_LINES]
        stride = lay[_STRIDE]
        zs = lay[_ZS]
        target = lay[_TARGET]
        full = lay[_FULL]
        ends = lay[_ENDS]
        level = lay[_LEVEL]
        weigh = level >= 2
        b = ptr8(m8 + lay[_B])
        through = ptr8(m8 + lay[_THROUGH])
        lines = ptr8(m8 + lay[_TLINES])
        at = ptr8(m8 + lay[_AT])
        zone = ptr8(m8 + lay[_ZONE])
        zmap = ptr8(m8 + lay[_ZMAP])
        sums = ptr8(m8 + lay[_SUM])
        dice = ptr8(m8 + lay[_DICE])
        blocked = ptr8(m8 + lay[_BLOCKED])
        mask = ptr16(self.mem16)
        count = ptr8(m8 + lay[_COUNT])
        wcount = ptr8(m8 + lay[_WCOUNT])
        winning = ptr8(m8 + lay[_WINNING])
        unspoilt = ptr8(m8 + lay[_UNSPOILT])
        top_bit = ptr8(m8 + lay[_TOP_BIT])
        own = ptr32(m32 + lay[_OWN])
        spoilt = ptr32(m32 + lay[_SPOILT])
        left = ptr8(m8 + lay[_LEFT])
        blockers = ptr8(m8 + lay[_BLOCKERS])
        listed = ptr8(m8 + lay[_LISTED])
        gaps = ptr8(m8 + lay[_GAPS])
        done = ptr8(m8 + lay[_DONE])
        rise = ptr32(m32 + lay[_RISE])
        same = ptr32(m32 + lay[_SAME])
        per_face = ptr8(m8 + lay[_PER_FACE])
        scores = ptr32(m32 + lay[_SCORES])
        rng = ptr16(self.rng.state)
        tally = ptr32(m32 + lay[_TALLY])
        o = 1 - me
        mine = me * lines_n
        theirs = o * lines_n
        zero = ZERO
        # Their winning squares in their zone and out of it; mine, listed.
        their_out = 0
        their_in = 0
        mine_listed = 0
        for u in range(squares):
            if wcount[o * squares + u]:
                if zmap[u] & 2:
                    their_in += 1
                else:
                    their_out += 1
            if wcount[me * squares + u]:
                listed[mine_listed] = u
                mine_listed += 1
        their_left = left[o]
        their_blocker = blockers[o]
        more = left[me] > 1  # a die left for a next turn
        # the same-face penalty a die of each face would complete
        group = int(self.t.same_face_group)
        penalty = 10 * int(self.t.same_face_penalty)
        for f in range(16):
            per_face[f] = 0
        for u in range(squares):
            c = b[u]
            if c >> 4 == me + 1:
                per_face[c & 0x0F] += 1
        for f in range(1, faces + 1):
            same[f] = penalty if (per_face[f] + 1) % group == 0 else 0
        # The points a win would score, for the strongest level: the win, the blocker kept, the
        # empty squares (the die fills one); the other player's a turn on (two dice more).
        won = WON
        fork = FORK
        loses_next = LOSES_NEXT
        # A line each ends the round drawn: in the last round, as good as a win for the player it
        # wins the match for, as bad as a loss for the other.
        drawn = DRAWN
        draws = lay[_DRAWS]
        keen = 1
        if draws == me + 1:
            drawn = WON
            keen = KEEN
        elif draws == o + 1:
            drawn = LOST
        lead = lay[_LEAD]
        if lay[_POINTS] or (lead and draws):
            empty = 0  # the squares left: what a win now scores
            for u in range(squares):
                if not b[u]:
                    empty += 1
            t = self.t
            per_player = int(t.blockers_per_player)
        if lay[_POINTS]:
            points = int(t.win) + int(t.empty_square) * (empty - 1)
            won += 10 * points
            fork += 10 * (points - 2 * int(t.empty_square))
            if blockers[me] == per_player:
                won += 10 * int(t.unused_blocker)
                fork += 10 * int(t.unused_blocker)
            loses_next -= 10 * (points - int(t.empty_square))
            if their_blocker == per_player:
                loses_next -= 10 * int(t.unused_blocker)
        # Where a drawn round wins the match for one player: a win of the other's that scores less
        # than the lead (even with a line all its own and no same-face penalty) still loses them the
        # match, so to the leader it is as good as the draw.
        if lead and draws:
            pts = int(t.win) + int(t.all_own_line) + int(t.empty_square) * (empty - 1)
            if draws == o + 1:  # my win, now or by a fork next turn
                if blockers[me] == per_player:
                    pts += int(t.unused_blocker)
                if pts < lead:
                    won = LOST
                if pts - 2 * int(t.empty_square) < lead:
                    fork = 0
            else:  # theirs, next turn
                pts -= int(t.empty_square)
                if their_blocker == per_player:
                    pts += int(t.unused_blocker)
                if pts < lead:
                    loses_next = drawn
        # Fork squares (the strongest level): two[o * squares + u] their lines one die from a winning
        # square through u, two[me * squares + u] mine; kind[line] what a die of mine does to it.
        forks = lay[_FORKS]
        two = ptr8(m8 + lay[_TWO])
        kind = ptr8(m8 + lay[_KIND])
        undo = ptr8(m8 + lay[_UNDO])
        work = squares >> 1
        if forks:
            for u in range(2 * squares):
                two[u] = 0
            for line in range(lines_n):
                kind[line] = 0
                if blocked[line]:
                    continue
                rest = target - sums[line]
                d = dice[line]
                mp = mask[mine + line]
                mo = mask[theirs + line]
                gap = full ^ (mp | mo)
                if d == n - 2 and rest >= 2 and rest <= 2 * faces:
                    if winning[mo | gap]:
                        kind[line] = 1
                        for j in range(n):
                            if gap >> j & 1:
                                two[o * squares + lines[line * n + j]] += 1
                    if winning[mp | gap]:
                        for j in range(n):
                            if gap >> j & 1:
                                two[me * squares + lines[line * n + j]] += 1
                elif d == n - 3 and rest >= 3 and rest <= 3 * faces:
                    kind[line] = 2
            work += lines_n
        best = 0
        for s in range(squares):
            if b[s] or zmap[s] & 1:
                for f in range(faces):
                    scores[s * faces + f] = 0
                continue
            for j in range(s * zs, s * zs + zs):  # the zone a die on s makes
                if zone[j] != 0xFF:
                    zmap[zone[j]] |= 4
            # What a die on s does, line by line: done[f] whom face f completes a line for;
            # the lines it leaves one die from a winning square (gaps: the square, the faces that
            # do it, whose); how far it takes my lines on and theirs back (rise0 for any face,
            # rise[f] what face f adds over face f - 1).
            for f in range(faces + 1):
                done[f] = 0
                rise[f] = zero
            rise[faces + 1] = zero
            rise0 = 0
            found = 0
            spoilt_forks = 0
            made_forks = 0
            touched = 0
            if forks and two[o * squares + s] >= 2:
                spoilt_forks = 1  # the die takes the square itself
            row = s * stride
            i = row
            while i < row + stride:
                line = through[i]
                i += 1
                if line == 0xFF:
                    break
                if blocked[line]:
                    continue
                gap_count = n - dice[line]
                rest = target - sums[line]
                bit = 1 << at[i - 1]
                mp = mask[mine + line]
                mo = mask[theirs + line]
                if forks and kind[line]:
                    # Their line through s one die from a winning square is spoilt: the fork squares
                    # it made with another line are gone. One of mine with one die, now two: the
                    # fork squares it makes with another line of mine.
                    gap = full ^ (mp | mo | bit)
                    if kind[line] == 1:
                        for j in range(n):
                            if gap >> j & 1:
                                u = o * squares + lines[line * n + j]
                                if two[u] == 2:
                                    spoilt_forks += 1
                                two[u] -= 1
                        undo[touched] = i - 1 - row
                        touched += 1
                    elif winning[mp | bit | gap]:
                        for j in range(n):
                            if gap >> j & 1:
                                u = me * squares + lines[line * n + j]
                                if two[u] == 1:
                                    made_forks += 1
                                two[u] += 1
                        undo[touched] = i - 1 - row
                        touched += 1
                if gap_count == 1:
                    if rest >= 1 and rest <= faces:
                        if winning[mp | bit]:
                            done[rest] |= 1 << me
                        if winning[mo]:  # their 3+1, my die at its end
                            done[rest] |= 1 << o
                        if weigh:  # the die fills the line's last square: whoever's it was is spoilt
                            if unspoilt[mo]:
                                rise0 -= own[count[mine + line]]
                            if unspoilt[mp]:
                                rise0 += spoilt[count[theirs + line]] * keen
                    continue
                lo = rest - (gap_count - 1) * faces  # the faces that leave the line winnable
                if lo < 1:
                    lo = 1
                hi = rest - gap_count + 1
                if hi > faces:
                    hi = faces
                if gap_count == 2 and lo <= hi:
                    gap = full ^ (mp | mo | bit)  # the line's one other empty square
                    who = 0
                    if winning[mp | bit | gap]:
                        who = 1
                    if winning[mo | gap]:
                        who |= 2
                    if who:
                        g = 4 * found
                        gaps[g] = lines[line * n + top_bit[gap]]
                        gaps[g + 1] = lo
                        gaps[g + 2] = hi
                        gaps[g + 3] = who
                        found += 1
                if not weigh or rest < gap_count or rest > gap_count * faces:
                    continue
                # A line I can still win is worth own[my dice]; theirs, spoilt, spoilt[their dice].
                if unspoilt[mo]:
                    c = count[mine + line]
                    rise0 -= own[c]
                    w = own[c + 1]
                    rise[lo] += w
                    rise[hi + 1] -= w
                if unspoilt[mp]:
                    w = spoilt[count[theirs + line]] * keen
                    rise0 += w
                    if mp == 0 and bit & ends:  # my die at an end: their 3+1 stays
                        rise[lo] -= w
                        rise[hi + 1] += w
            work += i - row
            # My winning squares there already (not s): in the zone a die on s makes (latent),
            # out of it (live), and the live ones in their zone (only their blocker answers).
            had_live = 0
            had_live_theirs = 0
            had_latent = 0
            for k in range(mine_listed):
                u = listed[k]
                if u != s:
                    if zmap[u] & 4:
                        had_latent += 1
                    else:
                        had_live += 1
                        if zmap[u] & 2:
                            had_live_theirs += 1
            had_out = their_out
            had_in = their_in
            if wcount[o * squares + s]:  # s itself is filled
                if zmap[s] & 2:
                    had_in -= 1
                else:
                    had_out -= 1
            # a little chance, between equals (xorshift16, as Rng)
            x = rng[0]
            x ^= (x << 7) & 0xFFFF
            x ^= x >> 9
            x ^= (x << 8) & 0xFFFF
            rng[0] = x
            base = rise0 - cost + x % lay[_NOISE]
            if forks & 1:
                base += SPOIL_FORK * spoilt_forks + MAKE_FORK * made_forks
            if forks & 2 and blockers[me]:
                # The zone this die makes: each empty square of it where one more die of theirs
                # would make a winning square (two[]: their lines one die from one, the die's own
                # effect on them counted) is one that only my blocker could answer.
                for j in range(s * zs, s * zs + zs):
                    u = zone[j]
                    if u != 0xFF and not b[u] and two[o * squares + u]:
                        base -= TRAP
                work += zs
            for k in range(touched):  # the fork squares' counts back as they were
                line = through[row + undo[k]]
                gap = full ^ (mask[mine + line] | mask[theirs + line] | (1 << at[row + undo[k]]))
                for j in range(n):
                    if gap >> j & 1:
                        if kind[line] == 1:
                            two[o * squares + lines[line * n + j]] += 1
                        else:
                            two[me * squares + lines[line * n + j]] -= 1
            work += touched
            weighed = 0
            for f in range(1, faces + 1):
                weighed += rise[f] - zero
                d = done[f]
                if d:
                    if d == 1 << me:
                        score = won - same[f]
                    elif d == 3:
                        score = drawn
                    else:
                        score = LOST
                else:
                    # The winning squares face f makes: theirs, and mine.
                    loses = 0
                    if their_left and had_out:
                        loses = 1
                    new_in = 0
                    new_live = 0
                    new_live_theirs = 0
                    new_latent = 0
                    for e in range(found):
                        g = 4 * e
                        if gaps[g + 1] <= f and f <= gaps[g + 2]:
                            u = gaps[g]
                            who = gaps[g + 3]
                            for e2 in range(e):  # the same square by another line
                                g2 = 4 * e2
                                if gaps[g2] == u and gaps[g2 + 1] <= f and f <= gaps[g2 + 2]:
                                    who &= 3 ^ gaps[g2 + 3]
                            if who & 2 and not wcount[o * squares + u]:
                                if zmap[u] & 2:
                                    new_in += 1
                                elif their_left:
                                    loses = 1
                            if who & 1 and not wcount[me * squares + u]:
                                if zmap[u] & 4:
                                    new_latent += 1
                                else:
                                    new_live += 1
                                    if zmap[u] & 2:
                                        new_live_theirs += 1
                    if loses:
                        score = loses_next
                    elif level == 1:
                        score = 0 - cost  # a beginner keeps the blocker when a die will do
                    else:
                        score = base + weighed - same[f]
                        if more:
                            k = had_live + new_live
                            if k:
                                work += 2  # a threat counted
                                score += LIVE * k
                                # A fork wins next turn: the other player cannot answer all of
                                # them with a die outside their zone and their blocker.
                                in_theirs = had_live_theirs + new_live_theirs
                                outside = k - in_theirs
                                answerable = 0
                                if k == 1 and (their_blocker or outside):
                                    answerable = 1
                                elif k == 2 and their_blocker and outside:
                                    answerable = 1
                                if not answerable:
                                    score += fork
                                if in_theirs:  # only their blocker can answer it
                                    score += IN_THEIR_ZONE * in_theirs * keen
                            k = had_latent + new_latent
                            if k:
                                score += LATENT * k
                        k = had_in + new_in
                        if k:
                            score += THEIRS_LATENT * k
                score += zero
                scores[s * faces + f - 1] = score
                if score > best:
                    best = score
            work += faces
            tally[1] += faces
            for j in range(s * zs, s * zs + zs):
                if zone[j] != 0xFF:
                    zmap[zone[j]] &= 3
            if best >= stop:
                break
        tally[0] += work
        return best

    @micropython.viper
    def _keep(self, ply: int, blk: int, below: int, under: int):
        """The last pass's moves into ply's best KEEP (kept[ply] of them so far), best first;
        ties as one-ply sorting falls: the higher (blocker, square, face) first. Only moves under
        (below, under), in that order: those above were looked at already."""
        lay = ptr32(self.layout)
        m8 = uint(ptr8(self.mem8))
        m32 = uint(ptr32(self.mem32))
        squares = lay[_SQUARES]
        faces = lay[_FACES]
        scores = ptr32(m32 + lay[_SCORES])
        top = ptr32(m32 + lay[_TOP])
        top_move = ptr32(m32 + lay[_TOP_MOVE])
        kept = ptr8(m8 + lay[_KEPT])
        at = ply * KEEP
        k = kept[ply]
        width = KEEP
        floor = 0  # a score that cannot make the list: under the last kept once it is full
        if k == width:
            floor = top[at + k - 1]
        two = lay[_SQUARE_FACES] == 2
        for s in range(squares):
            # its two best faces only: the search sees more squares, not six faces of one
            first = 0
            second = 0
            i = s * faces
            for f in range(1, faces + 1):
                score = scores[i + f - 1]
                if score > below or score == below and (blk << 12) | (s << 4) | f >= under:
                    scores[i + f - 1] = 0  # looked at already
                elif score >= first:
                    second = first
                    first = score
                elif score >= second:
                    second = score
            if first < floor:
                continue
            if not two:
                second = 0
            for f in range(1, faces + 1):
                score = scores[i + f - 1]
                if score < second or score < floor or not score:
                    continue
                move = (blk << 12) | (s << 4) | f
                j = k
                if k == width:
                    if score == floor and move < top_move[at + k - 1]:
                        continue
                    j = k - 1
                else:
                    k += 1
                while j > 0 and (top[at + j - 1] < score or (top[at + j - 1] == score and top_move[at + j - 1] < move)):
                    top[at + j] = top[at + j - 1]
                    top_move[at + j] = top_move[at + j - 1]
                    j -= 1
                top[at + j] = score
                top_move[at + j] = move
                if k == width:
                    floor = top[at + k - 1]
        kept[ply] = k
        ptr32(m32 + lay[_TALLY])[0] += (squares * faces) >> 3

    # -- thinking -------------------------------------------------------------------

    def choose(self, game):
        """The move for the player to move in `game`: (blocker square or NO_BLOCKER, square, face).

        None if the round or match is over or no die can be placed."""
        for _ in self.think(game):
            pass
        return self.chosen

    def think(self, game):
        """choose(), in slices: a generator to step between scans, each step about SLICE work.
        The move is in self.chosen once it is done."""
        self.chosen = None
        if game.round_over or game.match_over or not game.has_legal_square(game.to_move):
            return
        me = game.to_move
        self.tally[0] = 0
        self.tally[1] = 0
        self.slice = SLICE
        self._load(game)
        self.may_block = not game.blocker_this_turn
        if self.level == 0:
            self._child(me)
            return
        w = self._best_win(me)
        if w:
            self.chosen = w
            return
        if self.level == STRONGEST:
            draws = draw_wins(game, me)
            # Its answer to an opening die, chosen on a PC by the rounds played on from it
            # (doce/openings.py); not where a drawn round wins the match, which it was not chosen for.
            w = None if draws else reply(game, me)
            if w:
                self.chosen = w
                return
            yield  # the position loaded: the weighing in the next slices
            self.limit = self.budget
            # Fork squares weighed only for its first four dice of a round it opened (as many dice left
            # as the other player): the four dice diagonal to its centre die are the danger there.
            # Weighed in the rounds the other player opens too, they lost to the two-ply player;
            # through all of its own rounds, its wins came later and scored less against greedy.
            left = game.dice_left
            self.layout[_FORKS] = (1 if left[me] == left[1 - me] and left[me] >= 8 else 0) | (
                2 if needs_points(game, me) else 0)
            self.layout[_DRAWS] = me + 1 if draws else 0
            totals = game.totals()
            self.layout[_LEAD] = totals[me] - totals[1 - me] if draws else 0
            best = yield from self._strongest(me)
            self.chosen = best
            return
        yield from self._weigh_all(me)
        moves = self.moves
        self.moves = []
        if self.level == 1:  # a beginner: any of the moves that do not lose at once
            k = 1
            while k < len(moves) and moves[k][0] == moves[0][0]:
                k += 1
            best = moves[self.rng.below(k)]
        else:
            best = moves[0]
        self.chosen = best[1], best[2], best[3]

    def _drawn(self, me):
        """What a round that ends drawn after me's move is worth to me: nothing (a little chance
        between such moves), unless it is the last round and the draw decides the match."""
        value = self.rng.below(10)
        draws = self.layout[_DRAWS]
        if draws == me + 1:
            return WON
        if draws == 2 - me:
            return LOST
        return value

    def _pause(self):
        """True when this slice's work is done (less LISTING or DECIDED for each move Python
        handled): the caller yields."""
        if self.work >= self.slice:
            self.slice = self.work + SLICE
            return True
        return False

    def _weigh_all(self, me):
        """Levels 1 and 2: every die on every legal square and face, and after the blocker on
        each square where the other player would win next turn: into self.moves, as (score,
        blocker, square, face), best first."""
        moves = []
        faces = self.faces
        for j in range(-1, self._blocks(me, 0)):
            blk = self._blocker(me, 0, j)
            if self._zones(me):
                self._pass(me, BLOCKER_USED if self._first_blocker(me, blk) else 0, NO_STOP)
                scores = self.scores
                for i in range(len(scores)):
                    if scores[i]:
                        moves.append((scores[i] - ZERO, blk, i // faces, i % faces + 1))
                        self.slice -= LISTING
                    if i % faces == faces - 1 and self._pause():
                        yield
            if blk != NO_BLOCKER:
                self.take_blocker(me, blk)
            if self._pause():
                yield
        moves.sort(reverse=True)
        self.moves = moves

    def _rank_all(self, me):
        """The strongest level's _weigh_all: the same moves, into rank_score (score + ZERO) and
        rank_move (blocker << 12 | square << 4 | face), best first as _weigh_all sorts them, by
        native code; returns how many. A list of tuples sorted by MicroPython took up to 2 M
        unix-port instructions in one step between scans (listing 150 moves, and its sort: py/objlist.c
        mp_quicksort, pivoting on the last item, 0.7 M for 168 moves of 6 scores)."""
        n = 0
        for j in range(-1, self._blocks(me, 0)):
            blk = self._blocker(me, 0, j)
            if self._zones(me):
                self._pass(me, BLOCKER_USED if self._first_blocker(me, blk) else 0, NO_STOP)
                if len(self.rank_score) < n + len(self.scores):
                    self.rank_score.extend(self.scores)  # room for one more weighing's moves
                    self.rank_move.extend(self.scores)
                n = self._gather(n, blk)
            if blk != NO_BLOCKER:
                self.take_blocker(me, blk)
            if self._pause():
                yield
        self._rank(n)
        return n

    @micropython.viper
    def _gather(self, n: int, blk: int) -> int:
        """The last pass's moves, from rank_score[n] on; returns how many are listed then."""
        lay = ptr32(self.layout)
        faces = lay[_FACES]
        size = lay[_SQUARES] * faces
        scores = ptr32(uint(ptr32(self.mem32)) + lay[_SCORES])
        rank_score = ptr32(self.rank_score)
        rank_move = ptr32(self.rank_move)
        sq = 0
        f = 1
        for i in range(size):
            if scores[i]:
                rank_score[n] = scores[i]
                rank_move[n] = (blk << 12) | (sq << 4) | f
                n += 1
            f += 1
            if f > faces:
                f = 1
                sq += 1
        return n

    @micropython.viper
    def _rank(self, n: int):
        """rank_score and rank_move's first n, best first: the higher score, then the higher
        move (blocker, square, face), as sorting (score, blocker, square, face) tuples. Shell's
        sort, Ciura's gaps: a few thousand comparisons for the most moves a turn has."""
        rank_score = ptr32(self.rank_score)
        rank_move = ptr32(self.rank_move)
        for gap in (701, 301, 132, 57, 23, 10, 4, 1):
            g = int(gap)
            i = g
            while i < n:
                sc = rank_score[i]
                mv = rank_move[i]
                j = i
                while j >= g and (rank_score[j - g] < sc or (rank_score[j - g] == sc and rank_move[j - g] < mv)):
                    rank_score[j] = rank_score[j - g]
                    rank_move[j] = rank_move[j - g]
                    j -= g
                rank_score[j] = sc
                rank_move[j] = mv
                i += 1

    def _blocks(self, me, ply):
        """How many squares me may put its blocker on before its die this turn (listed at
        blocks[ply * squares]): the other player's winning squares they may play next turn, if me
        still has its blocker and may play it (at the root, not once it has this turn)."""
        if not self.blockers[me] or not (ply or self.may_block):
            return 0
        self._zones(1 - me)
        return self._threats(1 - me, ply * self.squares)

    def _blocker(self, me, ply, j):
        """The j-th of _blocks' squares, me's blocker put on it; NO_BLOCKER for j -1."""
        if j < 0:
            return NO_BLOCKER
        blk = self.blocks[ply * self.squares + j]
        self.put_blocker(me, blk)
        return blk

    def _first_blocker(self, me, blk):
        """Whether blk is the first blocker me has played this round (its points are lost)."""
        return blk != NO_BLOCKER and self.blockers[me] + 1 == self.t.blockers_per_player

    def _strongest(self, me):
        """The strongest level. Every one of its moves weighed one ply deep, best first; for the
        best of them (self.widths[0], more while all of those lose) the other player's best
        answer, weighed one ply deep from their side: a move is worth its own weight less its
        best answer's. Then the VERIFY best of those looked at two plies further (my answers to
        theirs, theirs again: self.widths[1:], each ply over the best few one ply deep): a move
        that wins whatever they answer is played at once, and one that loses whatever I answer
        is passed over for the next that does not. Stops before its work could pass the budget:
        then the moves searched whole decide."""
        self.cut = False
        o = 1 - me
        n = yield from self._rank_all(me)
        rank_score = self.rank_score
        rank_move = self.rank_move
        weighed = []
        order = []  # the VERIFY best of weighed, best first; between equals, the one weighed first
        best = None
        looked = 0
        for k in range(n):
            score = rank_score[k] - ZERO
            move = rank_move[k]
            blk = move >> 12
            s = (move >> 4) & 0xFF
            f = move & 0x0F
            if looked >= self.widths[0] and best > DOOMED:
                break  # past the best few, only while all of those lose
            if score >= FORK or score <= DRAWN:
                value = score  # decided one ply deep
                self.slice -= DECIDED
                if self._pause():
                    yield
            elif self.work + self.pass_work() > self.limit:
                break  # out of budget: the moves searched whole decide
            else:
                looked += 1
                self.tally[0] += NODE
                if blk != NO_BLOCKER:
                    self.put_blocker(me, blk)
                last = self.last[me]
                self.put(me, s, f)
                if not self.left[o] or not self._zones(o):
                    value = self._drawn(me)  # the round ends drawn
                else:
                    value = score - self._leaf(o, 1, NO_STOP)  # its own weight less their best answer's
                self.take(me, s, last)
                if blk != NO_BLOCKER:
                    self.take_blocker(me, blk)
                if self.cut:
                    break  # out of budget: this move was not searched whole
                if self._pause():
                    yield
            if best is None or value > best:
                best = value
            # Kept in order as it goes, not sorted after: MicroPython's sort takes the last item as
            # its pivot and calls a key at every comparison (py/objlist.c, mp_quicksort), so the
            # moves weighed, already best first (all of them when all are decided one ply deep),
            # cost it n^2: 14,000 calls and 25 M instructions in one step between scans for 168.
            i = len(order)
            while i and weighed[order[i - 1]][0] < value:
                i -= 1
            if i < VERIFY:
                order.insert(i, len(weighed))
                if len(order) > VERIFY:
                    order.pop()
            weighed.append((value, score, blk, s, f))
        if not weighed:
            move = rank_move[0]  # nothing weighed deeper: the best one ply deep
            return move >> 12, (move >> 4) & 0xFF, move & 0x0F
        chosen = order[0]
        if len(self.widths) > 1:
            chosen = yield from self._verify(me, weighed, order)
        return weighed[chosen][2:]

    def _verify(self, me, weighed, order):
        """Of the VERIFY best `weighed` moves (in `order`), the first that wins by force two
        plies further; else the first that does not lose by force; else the best."""
        safe = None
        for k in order[:VERIFY]:
            value, score, blk, s, f = weighed[k]
            if score >= FORK or score <= DRAWN or value <= DOOMED:
                if safe is None and value > DOOMED:
                    safe = k
                continue  # decided already
            if self.work + self.pass_work() > self.limit:
                break
            self.tally[0] += NODE
            if blk != NO_BLOCKER:
                self.put_blocker(me, blk)
            last = self.last[me]
            self.put(me, s, f)
            answer = score  # the round ends drawn: nothing further to look at
            if self.left[1 - me] and self._zones(1 - me):
                answer, _ = yield from self._node(1 - me, 1, len(self.widths), -4 * WON, 4 * WON)
            self.take(me, s, last)
            if blk != NO_BLOCKER:
                self.take_blocker(me, blk)
            if self.cut:
                break
            deep = score - answer
            if deep >= WINS:
                return k  # it wins whatever they answer
            if safe is None and deep > DOOMED:
                safe = k
        return order[0] if safe is None else safe

    def _node(self, me, ply, depth, alpha, beta):
        """(value for me, best move packed as in top_move, or -1) of the position, me to move,
        `depth` plies deep (2 or more): its best moves one ply deep, each taken on to the
        other player's best answer; KEEP of them at a time, the next KEEP only while all of
        those lose."""
        o = 1 - me
        width = self.widths[ply]
        at = ply * KEEP
        top = self.top
        top_move = self.top_move
        best = -8 * WON
        best_move = -1
        looked = 0
        below = NO_STOP  # the moves already looked at: those at or above (below, under)
        under = 0
        while True:
            self.kept[ply] = 0
            for j in range(-1, self._blocks(me, ply)):
                if ply and self.work + self.pass_work() > self.limit:
                    self.cut = True
                    return 0, -1
                blk = self._blocker(me, ply, j)
                if self._zones(me):
                    self._pass(me, BLOCKER_USED if self._first_blocker(me, blk) else 0, NO_STOP)
                    self._keep(ply, blk, below, under)
                if blk != NO_BLOCKER:
                    self.take_blocker(me, blk)
            if self._pause():
                yield
            kept = self.kept[ply]
            for i in range(kept):
                if looked >= width and best > DOOMED:
                    return best, best_move  # past the best few, only while all of those lose
                score = top[at + i] - ZERO
                move = top_move[at + i]
                if score >= FORK or score <= DRAWN:
                    value = score  # decided one ply deep
                elif self.work + self.pass_work() > self.limit:
                    self.cut = True  # out of budget: the moves searched whole decide
                    return (0, -1) if ply else (best, best_move)
                else:
                    looked += 1
                    self.tally[0] += NODE
                    blk = move >> 12
                    s = (move >> 4) & 0xFF
                    if blk != NO_BLOCKER:
                        self.put_blocker(me, blk)
                    last = self.last[me]
                    self.put(me, s, move & 0x0F)
                    if not self.left[o] or not self._zones(o):
                        value = self._drawn(me)  # the round ends drawn
                    else:
                        floor = alpha if best < alpha else best
                        if depth > 2:
                            answer, _ = yield from self._node(o, ply + 1, depth - 1, score - beta, score - floor)
                        else:
                            answer = self._leaf(o, ply + 1, score - floor)
                        value = score - answer  # its own weight less their best answer's
                    self.take(me, s, last)
                    if blk != NO_BLOCKER:
                        self.take_blocker(me, blk)
                    if self.cut:  # out of budget: this move was not searched whole
                        return (0, -1) if ply else (best, best_move)
                    if self._pause():
                        yield
                if value > best:
                    best = value
                    best_move = move
                    if value >= beta:
                        return best, best_move
            if kept < KEEP:
                return best, best_move
            below = top[at + kept - 1]  # the next KEEP
            under = top_move[at + kept - 1]

    def _leaf(self, me, ply, stop):
        """The best one ply deep for me, weighed until it reaches `stop` (the move above it is
        refuted then; NO_STOP: weighed whole)."""
        best = 0
        stop = stop + ZERO if stop + ZERO < NO_STOP else NO_STOP
        for j in range(-1, self._blocks(me, ply)):
            if self.work + self.pass_work() > self.limit:
                self.cut = True
                return 0
            blk = self._blocker(me, ply, j)
            if self._zones(me):
                score = self._pass(me, BLOCKER_USED if self._first_blocker(me, blk) else 0, stop)
                if score > best:
                    best = score
            if blk != NO_BLOCKER:
                self.take_blocker(me, blk)
        return best - ZERO if best else 0

    def pass_work(self):
        """The most work one weighing of every die can cost, with all that comes with it: the
        zones and threats looked up, the blocker put down and taken back, the moves kept, a move
        tried (NODE), and every move on the way back to the first ply taken back. The search
        checks that this much still fits its budget before each, so no move's work passes it."""
        squares = self.squares
        stride = self.stride
        weigh = squares // 2 + squares * (stride + 3 * self.faces)  # _pass, at most
        if self.level == STRONGEST:
            weigh += self.line_count + squares * stride  # its fork squares
            if self.layout[_FORKS] & 2:
                weigh += squares * self.t.zone_stride  # the zones' traps
        around = squares // 2 + squares * self.faces // 8 + 2 * stride + NODE
        return weigh + around + (len(self.widths) + 1) * 2 * stride

    # -- wins, and the child ---------------------------------------------------------

    def _best_win(self, me):
        """The winning move for me (its die on a winning square it may play now) that scores
        most, or None."""
        best = None
        self._zones(me)
        if not self._threats(me, 0):
            return None
        for line in range(self.line_count):
            u = self.wsq[line]
            if u == NOWHERE or self.zmap[u] & 1 or not self.wwho[line] >> me & 1:
                continue
            f = self.wface[line]
            last = self.last[me]
            if self.put(me, u, f) == 1 << me:
                points = self._win_points(me, u)
                if best is None or points > best[0]:
                    best = (points, u, f)
            self.take(me, u, last)
        return None if best is None else (NO_BLOCKER, best[1], best[2])

    def _win_points(self, me, sq):
        """The rulebook's points for me winning with the die just put on sq (game.win_points)."""
        t = self.t
        empty = own = 0
        per_face = bytearray(16)
        for c in self.b:
            if c == EMPTY:
                empty += 1
            elif c >> 4 == me + 1:
                per_face[c & 0x0F] += 1
        row = sq * self.stride
        full = self.full
        for i in range(row, row + self.stride):
            line = t.through[i]
            if line == END:
                break
            if (self.mask[me * self.line_count + line] == full and self.sum[line] == t.target
                    and not self.blocked[line]):
                own = t.all_own_line
        groups = 0
        for f in range(16):
            groups += per_face[f] // t.same_face_group
        unused = t.unused_blocker if self.blockers[me] == t.blockers_per_player else 0
        return t.win + own + unused + t.empty_square * empty - t.same_face_penalty * groups

    def _child(self, me):
        """Level 0, a child learning: a random legal square and face; now and then it sees a
        winning move and takes it."""
        if not self.rng.below(CHILD_SEES):
            self.chosen = self._best_win(me)
            if self.chosen:
                return
        k = self.rng.below(self._zones(me))
        for q in range(self.squares):
            if self.b[q] == EMPTY and not self.zmap[q] & 1:
                if not k:
                    self.chosen = NO_BLOCKER, q, 1 + self.rng.below(self.faces)
                    return
                k -= 1
