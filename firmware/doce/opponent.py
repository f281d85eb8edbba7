"""A DOCE player: the board's opponent and its hints.

Pure, like the rules engine (game.py): no I/O, the same moves on CPython and MicroPython for
the same seed, and every rule read from the tables, so the variants are played too.
docs/opponent.md says how it thinks and how each level plays.

A move is (blocker square or NO_BLOCKER, square, face): the optional blocker first, then the
die, as a turn is played.

It thinks on its own copy of the position, kept line by line: each line's sum, its dice and
whose they are (a bit a place), and the square where one more die would win it (a winning
square). A die updates only the lines through its square. Sets of squares are bits of an int
(masks), so "my winning squares outside my no-play zone" is one `&`.
"""

from .game import BLOCKER, EMPTY, NOWHERE
from .tables import END

LEVELS = 4
STRONGEST = LEVELS - 1
NO_BLOCKER = NOWHERE

# Thinking is counted in work: a line read or updated, or a face weighed, is 1. A step of
# think() ends after SLICE; the strongest level stops looking at the other player's answers
# before its work could pass BUDGET, so no move costs more (bench/opponent.py measures a
# unit's cost on the unix port and gives the worst move's time on an ESP32).
SLICE = 60
BUDGET = 6000
ANSWERS = 28  # the strongest level's best moves whose answers it weighs (more if all of those lose)
CHILD_SEES = 20  # level 0 takes a winning move one turn in this many

# Scores, in bands: a point is 10, and a quiet move weighs well within +-20000.
WON = 100000  # plus the points
FORK = 70000  # winning squares the other player cannot all answer: a win next turn
DRAWN = -30000  # a line each
DOOMED = -50000  # below this, the other player has a fork or a win: the move loses
LOSES_NEXT = -90000  # the other player wins next turn (worse than a fork: that wins a turn later)
LOST = -100000  # it completes the other player's line
# Weights of a quiet move, in tenths of a point.
LIVE = 600  # a winning square of mine I may play next turn
IN_THEIR_ZONE = 400  # more, if it is in the other player's zone: only their blocker answers it
LATENT = 200  # one in my no-play zone: it opens when my zone moves
THEIRS_LATENT = -400  # one of the other player's, in their zone
OWN = 40  # x (my dice on it)^2: a line I can still win
THEIRS = 50  # x (their dice on it)^2: one of the other player's, spoilt
BLOCKER_USED = 400  # its 5 points, and the only answer to a winning square in my zone


class Rng:
    """xorshift16 (Marsaglia 2003, shifts 7, 9, 8; period 65535): small ints only, so no
    allocation on a 32-bit MicroPython, and the same numbers on every port."""

    def __init__(self, seed):
        self.x = seed % 65535 + 1

    def below(self, n):
        x = self.x
        x ^= (x << 7) & 0xFFFF
        x ^= x >> 9
        x ^= (x << 8) & 0xFFFF
        self.x = x
        return x % n


def bits(m):
    """How many squares a mask holds."""
    c = 0
    while m:
        m &= m - 1
        c += 1
    return c


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
        self.n = n
        self.full = (1 << n) - 1
        # A full line wins for the player whose dice fill it, or all of it but one end (3+1).
        self.win_a = self.full ^ 1 if t.opponent_end else self.full
        self.win_b = self.full ^ (1 << (n - 1)) if t.opponent_end else self.full
        self.ends = (self.full ^ self.win_a) | (self.full ^ self.win_b)
        # What a line still open is worth, by the dice on it.
        self.own = [OWN * c * c for c in range(n + 1)]
        self.theirs_w = [THEIRS * c * c for c in range(n + 1)]
        stride = t.through_stride
        self.at = bytearray(t.squares * stride)  # where square i // stride sits in its i-th line
        for q in range(t.squares):
            for i in range(q * stride, q * stride + stride):
                line = t.through[i]
                if line != END:
                    for j in range(n):
                        if t.lines[line * n + j] == q:
                            self.at[i] = j
        self.zm = [0] * t.squares  # each square's no-play zone, as a mask
        zs = t.zone_stride
        for q in range(t.squares):
            for x in t.zone[q * zs:(q + 1) * zs]:
                if x != END:
                    self.zm[q] |= 1 << x
        lines = t.line_count
        self.b = bytearray(t.squares)  # the position it thinks on, never the real game
        self.sum = bytearray(lines)
        self.dice = bytearray(lines)
        self.blocked = bytearray(lines)
        self.mask = ([0] * lines, [0] * lines)  # per player: their dice on the line
        self.count = (bytearray(lines), bytearray(lines))
        self.wsq = bytearray(lines)  # the line's winning square, or NOWHERE
        self.wface = bytearray(lines)
        self.wwho = bytearray(lines)  # whose winning square it is: bit 0 white, bit 1 black
        self.wcount = (bytearray(t.squares), bytearray(t.squares))  # winning lines through a square
        self.wins = [0, 0]  # per player: their winning squares
        self.left = bytearray(2)  # dice
        self.blockers = bytearray(2)
        self.last = bytearray(2)
        faces = t.faces + 1
        self.zeros = bytes(faces)
        self.zero_list = [0] * faces
        self.done = bytearray(faces)  # _preview's findings, face by face
        self.mine = [0] * faces
        self.theirs = [0] * faces
        self.rise = [0] * (faces + 1)  # one more: a run of faces up to the last ends past it
        self.zero_rise = [0] * (faces + 1)
        self.same_face = [0] * faces
        # Line masks answered by a table: does it win the line; can a line still be won by the
        # player whose dice are not these; the highest square of it.
        self.winning = bytes([1 if m in (self.full, self.win_a, self.win_b) else 0 for m in range(1 << n)])
        self.unspoilt = bytes([1 if m == 0 or m & self.ends == m and m != self.ends else 0 for m in range(1 << n)])
        self.top_bit = bytes([len(bin(m)) - 3 if m else 0 for m in range(1 << n)])
        # What _preview reads, in one tuple: one attribute look-up a square, not twenty.
        self.hot = (n, t.faces, t.target, self.full, self.ends, self.at, t.lines, t.through, self.blocked,
                    self.dice, self.sum, self.own, self.theirs_w, self.winning, self.unspoilt, self.top_bit,
                    self.done, self.mine, self.theirs, self.rise)
        self.per_face = bytearray(16)
        self.moves = []  # (score, blocker, square, face): the moves weighed, best first
        self.work = 0
        self.nodes = 0  # faces weighed
        self.limit = budget

    # -- the position ---------------------------------------------------------

    def _load(self, game):
        t = self.t
        n = self.n
        b = self.b
        b[:] = game.board
        self.left[:] = game.dice_left
        self.blockers[:] = game.blockers_left
        self.last[:] = game.last_placed
        for p in (0, 1):
            self.wins[p] = 0
            c = self.wcount[p]
            for q in range(t.squares):
                c[q] = 0
        for line in range(t.line_count):
            s = d = x = m0 = m1 = c0 = c1 = 0
            for j in range(n):
                c = b[t.lines[line * n + j]]
                if c >= BLOCKER:
                    x += 1
                elif c:
                    s += c & 0x0F
                    d += 1
                    if c >> 4 == 1:
                        m0 |= 1 << j
                        c0 += 1
                    else:
                        m1 |= 1 << j
                        c1 += 1
            self.sum[line] = s
            self.dice[line] = d
            self.blocked[line] = x
            self.mask[0][line] = m0
            self.mask[1][line] = m1
            self.count[0][line] = c0
            self.count[1][line] = c1
            self.wsq[line] = NOWHERE
            self._mark(line)
        self.work += t.line_count

    def zone(self, p):
        last = self.last[p]
        return 0 if last == NOWHERE else self.zm[last]

    def legal(self, p):
        """The squares p may put a die on."""
        m = 0
        b = self.b
        for q in range(self.t.squares):
            if b[q] == EMPTY:
                m |= 1 << q
        self.work += self.t.squares >> 2
        return m & ~self.zone(p)

    def live(self, p):
        """p's winning squares they may play next turn (none once out of dice)."""
        return self.wins[p] & ~self.zone(p) if self.left[p] else 0

    def _unmark(self, line):
        u = self.wsq[line]
        if u == NOWHERE:
            return
        who = self.wwho[line]
        for p in (0, 1):
            if who >> p & 1:
                c = self.wcount[p]
                c[u] -= 1
                if not c[u]:
                    self.wins[p] &= ~(1 << u)
        self.wsq[line] = NOWHERE

    def _mark(self, line):
        """Note the line's winning square, if it has one."""
        n = self.n
        if self.blocked[line] or self.dice[line] != n - 1:
            return
        need = self.t.target - self.sum[line]
        if not 1 <= need <= self.t.faces:
            return
        full = self.full
        a = self.win_a
        z = self.win_b
        gap = full & ~(self.mask[0][line] | self.mask[1][line])
        m = self.mask[0][line] | gap
        who = 1 if m == full or m == a or m == z else 0
        m = self.mask[1][line] | gap
        if m == full or m == a or m == z:
            who |= 2
        if not who:
            return
        j = 0
        while gap > 1:
            gap >>= 1
            j += 1
        u = self.t.lines[line * n + j]
        self.wsq[line] = u
        self.wface[line] = need
        self.wwho[line] = who
        for p in (0, 1):
            if who >> p & 1:
                self.wcount[p][u] += 1
                self.wins[p] |= 1 << u

    def put(self, p, sq, f):
        """p's die on sq, f up. Returns whom it completes a line for (bit 0 white, bit 1 black).
        take(p, sq, last) undoes it, `last` being p's last square before."""
        self.b[sq] = (p + 1) << 4 | f
        self.left[p] -= 1
        self.last[p] = sq
        return self._lines(p, sq, f, 1)

    def take(self, p, sq, last):
        f = self.b[sq] & 0x0F
        self.b[sq] = EMPTY
        self.left[p] += 1
        self.last[p] = last
        self._lines(p, sq, f, -1)

    def _lines(self, p, sq, f, step):
        """The lines through sq with p's die f added (step 1) or taken off (-1)."""
        t = self.t
        n = self.n
        won = 0
        mask = self.mask[p]
        count = self.count[p]
        full = self.full
        row = sq * t.through_stride
        for i in range(row, row + t.through_stride):
            line = t.through[i]
            if line == END:
                break
            self.work += 1
            self._unmark(line)
            self.sum[line] += step * f
            self.dice[line] += step
            count[line] += step
            mask[line] ^= 1 << self.at[i]
            if self.dice[line] < n:
                self._mark(line)
            elif self.sum[line] == t.target and not self.blocked[line]:
                for q in (0, 1):
                    m = self.mask[q][line]
                    if m == full or m == self.win_a or m == self.win_b:
                        won |= 1 << q
        return won

    def put_blocker(self, p, sq):
        self.b[sq] = BLOCKER | p
        self.blockers[p] -= 1
        self._blocked(sq, 1)

    def take_blocker(self, p, sq):
        self.b[sq] = EMPTY
        self.blockers[p] += 1
        self._blocked(sq, -1)

    def _blocked(self, sq, step):
        t = self.t
        row = sq * t.through_stride
        for i in range(row, row + t.through_stride):
            line = t.through[i]
            if line == END:
                break
            self.work += 1
            self._unmark(line)
            self.blocked[line] += step
            self._mark(line)

    # -- one die, looked at without playing it -----------------------------------

    def _preview(self, p, s):
        """What p's die on the empty square s would do, face by face, read from the lines
        through s: `done[f]` whom it completes a line for; `mine[f]` and `theirs[f]` the winning
        squares it makes for p and for the other player; how far it takes p's lines on and the
        other player's back (levels 2 and 3): `rise[0]` for any face, and `rise[f]` what face f
        adds over face f - 1 (a run of faces is then two writes, not one a face: _dice sums them)."""
        (n, faces, target, full, ends, at, lines, through, blocked, dice, sums, own, spoilt,
         winning, unspoilt, top_bit, done, mine, theirs, rise) = self.hot
        o = 1 - p
        done[:] = self.zeros
        mine[:] = self.zero_list
        theirs[:] = self.zero_list
        rise[:] = self.zero_rise
        weigh = self.level >= 2
        my_masks = self.mask[p]
        their_masks = self.mask[o]
        my_counts = self.count[p]
        their_counts = self.count[o]
        rise0 = 0
        row = s * self.t.through_stride
        i = row
        for i in range(row, row + self.t.through_stride):
            line = through[i]
            if line == END:
                break
            if blocked[line]:
                continue
            gaps = n - dice[line]
            rest = target - sums[line]
            bit = 1 << at[i]
            mp = my_masks[line]
            mo = their_masks[line]
            if gaps == 1:
                if 1 <= rest <= faces:
                    if winning[mp | bit]:
                        done[rest] |= 1 << p
                    if winning[mo]:  # their 3+1, p's die at its end
                        done[rest] |= 1 << o
                    if weigh:  # the die fills the line's last square: whoever's it was is spoilt
                        if unspoilt[mo]:
                            rise0 -= own[my_counts[line]]
                        if unspoilt[mp]:
                            rise0 += spoilt[their_counts[line]]
                continue
            lo = rest - (gaps - 1) * faces  # the faces that leave the line winnable
            if lo < 1:
                lo = 1
            hi = rest - gaps + 1
            if hi > faces:
                hi = faces
            if gaps == 2:
                gap = full & ~(mp | mo | bit)  # the line's one other empty square
                u = 1 << lines[line * n + top_bit[gap]]
                if winning[mp | bit | gap]:
                    for f in range(lo, hi + 1):
                        mine[f] |= u
                if winning[mo | gap]:
                    for f in range(lo, hi + 1):
                        theirs[f] |= u
            if not weigh or not gaps <= rest <= gaps * faces:
                continue
            # A line p can still win is worth own[its dice]; the other player's, spoilt, theirs_w.
            # Here lo <= hi, so faces lo to hi add w: rise[lo] += w, rise[hi + 1] -= w.
            if unspoilt[mo]:
                c = my_counts[line]
                rise0 -= own[c]
                w = own[c + 1]
                rise[lo] += w
                rise[hi + 1] -= w
            if unspoilt[mp]:
                w = spoilt[their_counts[line]]
                rise0 += w
                if mp == 0 and bit & ends:  # p's die at an end: the other player's 3+1 stays
                    rise[lo] -= w
                    rise[hi + 1] += w
        rise[0] = rise0
        self.work += i - row + 1  # the lines read

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
        self.work = 0
        self.nodes = 0
        self.slice = SLICE
        self.limit = 0x3FFFFFFF  # no limit: the first ply always runs whole (the largest small int on the chip)
        self._load(game)
        self.may_block = not game.blocker_this_turn
        if self.level == 0:
            self._child(me)
            return
        w = self.live(me)
        if w:
            self.chosen = self._best_win(me, w)
            if self.chosen:
                return
        yield from self._weigh_all(me, True)
        moves = self.moves
        self.moves = []
        if self.level == 1:  # a beginner: any of the moves that do not lose at once
            k = 1
            while k < len(moves) and moves[k][0] == moves[0][0]:
                k += 1
            best = moves[self.rng.below(k)]
        elif self.level == 2:
            best = moves[0]
        else:
            best = yield from self._answers(me, moves)
        self.chosen = best[1], best[2], best[3]

    def _pause(self):
        """True when this slice's work is done: the caller yields."""
        if self.work >= self.slice:
            self.slice = self.work + SLICE
            return True
        return False

    def _weigh_all(self, me, keep):
        """Every die on every legal square and face, after the blocker where the other player
        would win: weighed one ply deep. Into self.moves, best first, if `keep`; the best score
        in self.best. self.cut is set if the work limit stopped it."""
        o = 1 - me
        self.moves = []
        self.best = LOST * 2
        self.keep = keep
        self.cut = False
        yield from self._dice(me, NO_BLOCKER)
        must = self.live(o)
        if must and self.blockers[me] and self.may_block:
            for u in range(self.t.squares):
                if must >> u & 1 and not self.cut:
                    if self.work + 2 * self.t.through_stride > self.limit:
                        self.cut = True
                        break
                    self.put_blocker(me, u)
                    if self.legal(me):
                        yield from self._dice(me, u)
                    self.take_blocker(me, u)
        if keep:
            self.moves.sort(reverse=True)

    def _dice(self, me, blk):
        t = self.t
        o = 1 - me
        if self.work + t.squares > self.limit:
            self.cut = True
            return
        legal = self.legal(me)
        faces = t.faces
        zm = self.zm
        their_zone = self.zone(o)
        # the other player's winning squares they may play next turn: a move that leaves one loses
        their_open = ~their_zone if self.left[o] else 0
        their_blocker = self.blockers[o] > 0
        per_face = self.per_face
        for f in range(16):
            per_face[f] = 0
        for c in self.b:
            if c >> 4 == me + 1:
                per_face[c & 0x0F] += 1
        same_face = self.same_face  # the same-face penalty a die of each face would complete
        group = t.same_face_group
        for f in range(1, faces + 1):
            same_face[f] = 10 * t.same_face_penalty if (per_face[f] + 1) % group == 0 else 0
        cost = BLOCKER_USED if blk != NO_BLOCKER and self.blockers[me] + 1 == t.blockers_per_player else 0
        more = self.left[me] > 1  # a die left for a next turn
        level = self.level
        # the most work a square costs: its lines read, then a face each weighed (twice if
        # kept) and a threat each counted
        step = t.through_stride + (4 if self.keep else 3) * faces
        face_work = faces + faces if self.keep else faces  # a kept move is a tuple, sorted later
        dones = self.done
        new_mine = self.mine
        new_theirs = self.theirs
        rise = self.rise
        wins = self.wins
        rng = self.rng
        best = self.best
        keep = self.moves.append if self.keep else None
        for s in range(t.squares):
            if not legal >> s & 1:
                continue
            if self.work + step > self.limit:
                self.cut = True
                break
            self._preview(me, s)
            zone = zm[s]
            gone = ~(1 << s)
            my_wins = wins[me] & gone
            their_wins = wins[o] & gone
            base = rise[0] - cost + rng.below(10)  # and a little chance, between equals
            self.nodes += faces
            work = face_work
            weighed = 0
            for f in range(1, faces + 1):
                weighed += rise[f]
                done = dones[f]
                if done:
                    score = WON if done == 1 << me else DRAWN if done == 3 else LOST
                else:
                    theirs = their_wins | new_theirs[f]
                    if theirs & their_open:
                        score = LOSES_NEXT
                    elif level == 1:
                        score = -cost  # a beginner keeps the blocker when a die will do
                    else:
                        score = base + weighed - same_face[f]
                        if more:
                            mine = my_wins | new_mine[f]
                            m = mine & ~zone
                            if m:
                                work += 2  # a threat counted
                                k = bits(m) if m & (m - 1) else 1
                                score += LIVE * k
                                # A fork wins next turn: the other player cannot answer all of
                                # m with a die outside their zone and their blocker.
                                answerable = m & ~their_zone
                                if k == 1:
                                    answerable = their_blocker or answerable
                                elif k == 2:
                                    answerable = their_blocker and answerable
                                if k > 2 or not answerable:
                                    score += FORK
                                m &= their_zone
                                if m:  # only their blocker can answer it
                                    score += IN_THEIR_ZONE * (bits(m) if m & (m - 1) else 1)
                            m = mine & zone
                            if m:
                                score += LATENT * (bits(m) if m & (m - 1) else 1)
                        m = theirs & their_zone
                        if m:
                            score += THEIRS_LATENT * (bits(m) if m & (m - 1) else 1)
                if score > best:
                    best = score
                if keep:
                    keep((score, blk, s, f))
            self.work += work
            if self._pause():
                self.best = best
                yield
        self.best = best

    def _answers(self, me, moves):
        """The strongest level: the best of `moves` by the other player's best answer,
        weighed one ply deep from their side; the best first, ANSWERS of them (more while
        all of those lose), while the work budget lasts."""
        o = 1 - me
        best = None
        looked = 0
        stride = self.t.through_stride
        self.limit = self.budget - 2 * stride  # room to take the move back
        for score, blk, s, f in moves:
            if self.work + 2 * stride + self.t.squares > self.limit:
                break
            if looked >= ANSWERS and best[0] > DOOMED:
                break  # past the best few, only while all of those lose
            if score >= FORK or score <= DRAWN:
                value = score  # decided one ply deep
            else:
                looked += 1
                if blk != NO_BLOCKER:
                    self.put_blocker(me, blk)
                last = self.last[me]
                self.put(me, s, f)
                if not self.left[o] or not self.legal(o):
                    value = self.rng.below(10)  # the round ends drawn
                else:
                    may_block = self.may_block
                    self.may_block = True
                    yield from self._weigh_all(o, False)
                    self.may_block = may_block
                    value = score - self.best  # its own weight less their best answer's
                self.take(me, s, last)
                if blk != NO_BLOCKER:
                    self.take_blocker(me, blk)
                if self.cut:
                    break  # out of budget: this answer was not weighed whole
            if best is None or value > best[0]:
                best = (value, blk, s, f)
        return best or moves[0]  # nothing weighed deeper: the best one ply deep

    # -- wins, and the child ---------------------------------------------------------

    def _best_win(self, me, w):
        """The winning move on the squares `w` that scores most, or None."""
        best = None
        t = self.t
        for line in range(t.line_count):
            u = self.wsq[line]
            if u == NOWHERE or not w >> u & 1 or not self.wwho[line] >> me & 1:
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
        per_face = self.per_face
        for f in range(16):
            per_face[f] = 0
        for c in self.b:
            if c == EMPTY:
                empty += 1
            elif c >> 4 == me + 1:
                per_face[c & 0x0F] += 1
        row = sq * t.through_stride
        for i in range(row, row + t.through_stride):
            line = t.through[i]
            if line == END:
                break
            if self.mask[me][line] == self.full and self.sum[line] == t.target and not self.blocked[line]:
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
            w = self.live(me)
            if w:
                self.chosen = self._best_win(me, w)
                if self.chosen:
                    return
        legal = self.legal(me)
        k = self.rng.below(bits(legal))
        for q in range(self.t.squares):
            if legal >> q & 1:
                if not k:
                    self.chosen = NO_BLOCKER, q, 1 + self.rng.below(self.t.faces)
                    return
                k -= 1
