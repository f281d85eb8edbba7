"""A DOCE player: the board's opponent and its hints.

Pure, like the rules engine it plays through (game.py): no I/O, the same moves on
CPython and MicroPython for the same seed, and every rule read from the tables, so
the variants are played too. docs/opponent.md says how it thinks.

A move is (blocker square or NO_BLOCKER, square, face): the optional blocker first,
then the die, as a turn is played.

Levels: 0 plays at random and sees a winning move half the time (a child learning);
1 takes wins, blocks, and never hands over a line; 2 weighs every move (threats, two
threats at once, the lines it builds and spoils, the points); 3 also looks at the
opponent's best answer to its best moves, within a budget of positions.
"""

from .game import BLOCKER, EMPTY, NOWHERE, Game, die
from .tables import END

LEVELS = 4
STRONGEST = LEVELS - 1
NO_BLOCKER = NOWHERE
# Level 3 looks at the opponent's answers while it has examined fewer positions (a square
# and face each) than this: about 1 s on an ESP32 (bench/opponent.py prints the figure).
BUDGET = 700
ANSWERS = 6  # best moves whose answers level 3 examines, best first

# Scores. A point is 10; the heuristic terms are in the same units.
WON = 100000
LOST = -100000
FORK = 30000  # threats the opponent cannot all block: a win next turn
DRAWN = 0


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


class Opponent:
    def __init__(self, tables, level=STRONGEST, seed=1, budget=BUDGET):
        if not 0 <= level < LEVELS:
            raise ValueError("opponent level: 0 to %d" % STRONGEST)
        self.t = tables
        self.level = level
        self.rng = Rng(seed)
        self.budget = budget
        self.g = Game(tables)  # the position it thinks on, never the real game
        n = tables.squares
        self.thr = (bytearray(n), bytearray(n))  # per player: 1 where a die would win now
        self.zone = bytearray(n)  # 1 in the no-play zone of the mover's opponent
        self.mine = bytearray(n)  # the mover's winning squares, as a list
        self.blk = bytearray(n)  # squares worth the mover's blocker, as a list
        self.news = bytearray(tables.through_stride)
        self.ls = bytearray(4 * tables.through_stride)  # the lines through one square
        self.acc = [0] * 16  # per face: how the die on a square changes the lines through it
        self.counts = bytearray(16)  # the mover's dice on the board, per face
        self.top = []
        self.nodes = 0

    def choose(self, game):
        """The move for the player to move in `game`: (blocker square or NO_BLOCKER, square, face).

        None if the round or match is over or no die can be placed."""
        for _ in self.think(game):
            pass
        return self.chosen

    def think(self, game):
        """choose(), in slices: a generator to step between scans, a square's faces a step
        (a few ms on an ESP32). The move is in self.chosen once it is done. It thinks on its
        own copy of the position, taken at the first step."""
        self.chosen = None
        if game.round_over or game.match_over or not game.has_legal_square(game.to_move):
            return
        me = game.to_move
        g = self.g
        g.board[:] = game.board
        g.dice_left[:] = game.dice_left
        g.blockers_left[:] = game.blockers_left
        g.last_placed[:] = game.last_placed
        self.may_block = not game.blocker_this_turn
        self.nodes = 0
        if self.level == 0:
            yield from self._child(me)
            return
        self.top = [] if self.level == STRONGEST else None
        yield from self._search(me, self.level)
        self.chosen = self.move
        if self.top:
            yield from self._answers(me)
        self.top = None

    # -- level 0 ------------------------------------------------------------

    def _child(self, me):
        if self.rng.below(2):
            yield from self._search(me, 1)
            if self.score >= WON:
                self.chosen = self.move
                return
        g = self.g
        squares = [sq for sq in range(self.t.squares) if g.is_legal_square(me, sq)]
        self.chosen = NO_BLOCKER, squares[self.rng.below(len(squares))], 1 + self.rng.below(self.t.faces)

    # -- level 3: the opponent's answers ------------------------------------

    def _answers(self, me):
        """The best of `top` by the opponent's best answer, looked at while the budget lasts."""
        g = self.g
        b = g.board
        opp = 1 - me
        top = self.top
        self.top = None
        top.sort(reverse=True)
        best = None
        most = 0  # the most positions one answer took
        for score, blk, sq, f in top:
            if score >= WON or score <= LOST // 2:  # already decided: nothing to look at
                value = score
            elif best is not None and self.nodes + most > self.budget:
                break  # another answer could overrun the budget
            else:
                before = self.nodes
                last = g.last_placed[me]
                if blk != NO_BLOCKER:
                    b[blk] = BLOCKER | me
                    g.blockers_left[me] -= 1
                b[sq] = die(me, f)
                g.last_placed[me] = sq
                g.dice_left[me] -= 1
                if not g.dice_left[me] and not g.dice_left[opp] or not g.has_legal_square(opp):
                    value = DRAWN
                else:
                    self.may_block = True
                    yield from self._search(opp, 2)
                    value = -self.score
                most = max(most, self.nodes - before)
                g.dice_left[me] += 1
                g.last_placed[me] = last
                b[sq] = EMPTY
                if blk != NO_BLOCKER:
                    b[blk] = EMPTY
                    g.blockers_left[me] += 1
            if best is None or value > best[0]:
                best = (value, blk, sq, f)
        self.chosen = best[1], best[2], best[3]

    # -- levels 1 and 2: every move, weighed ---------------------------------

    def _search(self, me, level):
        """Weigh every move of `me` in the thinking position: the best score in self.score,
        its move in self.move."""
        g = self.g
        t = self.t
        opp = 1 - me
        self.score = LOST * 2
        self.move = None
        self._threats()
        yield from self._dice(me, level, NO_BLOCKER)
        if not (g.blockers_left[me] and self.may_block):
            return
        # The blocker goes where the opponent would win: the only square worth its 5 points.
        nb = 0
        for u in range(t.squares):
            if self.thr[opp][u] and not g.in_no_play_zone(opp, u):
                self.blk[nb] = u
                nb += 1
        for i in range(nb):
            u = self.blk[i]
            g.board[u] = BLOCKER | me
            g.blockers_left[me] -= 1
            if g.has_legal_square(me):
                self._threats()
                yield from self._dice(me, level, u)
            g.blockers_left[me] += 1
            g.board[u] = EMPTY
        return self.score

    def _threats(self):
        """Mark, for each player, the empty squares where one of their dice would win now."""
        t = self.t
        g = self.g
        b = g.board
        n = t.line_length
        for p in (0, 1):
            thr = self.thr[p]
            for q in range(t.squares):
                thr[q] = 0
        for line in range(t.line_count):
            e = s = 0
            u = NOWHERE
            for j in range(line * n, line * n + n):
                q = t.lines[j]
                c = b[q]
                if c == EMPTY:
                    e += 1
                    u = q
                elif c >= BLOCKER:
                    e = 99
                    break
                else:
                    s += c & 0x0F
            if e != 1:
                continue
            need = t.target - s
            if 1 <= need <= t.faces:
                for p in (0, 1):
                    b[u] = die(p, need)
                    if g.line_winner(line) == p:
                        self.thr[p][u] = 1
                b[u] = EMPTY

    def _dice(self, me, level, blk):
        """Weigh each legal square and face for `me`'s die, after the blocker on `blk`."""
        g = self.g
        t = self.t
        b = g.board
        opp = 1 - me
        zone = self.zone
        theirs = self.thr[opp]
        mine = self.thr[me]
        live = lat = nm = 0
        counts = self.counts
        for f in range(16):
            counts[f] = 0
        for q in range(t.squares):
            z = 1 if g.in_no_play_zone(opp, q) else 0
            zone[q] = z
            if theirs[q]:
                if z:
                    lat += 1
                else:
                    live += 1
            if mine[q]:
                self.mine[nm] = q
                nm += 1
            if b[q] >> 4 == me + 1:
                counts[b[q] & 0x0F] += 1
        self.live_opp = live
        self.lat_opp = lat
        self.nm = nm
        self.blocker_cost = 0
        if blk != NO_BLOCKER and g.blockers_left[me] + 1 == t.blockers_per_player:
            self.blocker_cost = 10 * t.unused_blocker
        for sq in range(t.squares):
            if g.is_legal_square(me, sq):
                self._square(me, sq, level, blk)
                yield

    def _seen(self, u, nn):
        for i in range(nn):
            if self.news[i] == u:
                return True
        return False

    def _square(self, me, sq, level, blk):
        """Weigh each face of `me`'s die on sq."""
        g = self.g
        t = self.t
        b = g.board
        ls = self.ls
        acc = self.acc
        n = t.line_length
        faces = t.faces
        target = t.target
        opp = 1 - me
        for f in range(faces + 1):
            acc[f] = 0
        # The lines through sq, read once. A line with room left adds to the faces that keep
        # it winnable (a square of the dice on it: how far it has come); the lines a die
        # fills or leaves one short are kept in ls for the faces to look at.
        k = 0
        row = sq * t.through_stride
        for i in range(row, row + t.through_stride):
            line = t.through[i]
            if line == END:
                break
            start = line * n
            xm = xo = s = e = 0
            u = NOWHERE
            for j in range(start, start + n):
                q = t.lines[j]
                c = b[q]
                if c == EMPTY:
                    e += 1
                    if q != sq:
                        u = q
                elif c >= BLOCKER:
                    e = 99
                    break
                elif c >> 4 == me + 1:
                    xm += 1
                    s += c & 0x0F
                else:
                    xo += 1
                    s += c & 0x0F
            if e == 99:
                continue
            if e <= 2:
                ls[k] = line
                ls[k + 1] = e - 1
                ls[k + 2] = u
                ls[k + 3] = s
                k += 4
            if level < 2:
                continue
            first = b[t.lines[start]] >> 4
            last = b[t.lines[start + n - 1]] >> 4
            mend = first == me + 1 or last == me + 1
            oend = t.opponent_end and (first == opp + 1 or last == opp + 1)
            need = target - s
            if e <= need <= e * faces:  # before: the line as it stands
                if xo == 0 or xo == 1 and oend:
                    acc[0] -= 60 * xm * xm
                if xm == 0 or xm == 1 and mend and t.opponent_end:
                    acc[0] += 50 * xo * xo
            e -= 1
            if e == 0:
                continue
            mend = t.opponent_end and (mend or t.lines[start] == sq or t.lines[start + n - 1] == sq)
            value = 0
            if xo == 0 or xo == 1 and oend:
                value = 60 * (xm + 1) * (xm + 1)
            if xm == 0 and mend:
                value -= 50 * xo * xo
            if value:
                for f in range(max(1, need - e * faces), min(faces, need - e) + 1):
                    acc[f] += value
        # My winning squares for my next turn, as the die on sq leaves them.
        last_placed = g.last_placed[me]
        g.last_placed[me] = sq
        a = z = lat = 0
        for i in range(self.nm):
            q = self.mine[i]
            if q == sq:
                continue
            if g.in_no_play_zone(me, q):
                lat += 1
            elif self.zone[q]:
                z += 1
            else:
                a += 1
        live_opp = self.live_opp
        lat_opp = self.lat_opp
        if self.thr[opp][sq]:
            if self.zone[sq]:
                lat_opp -= 1
            else:
                live_opp -= 1
        their_blocker = 1 if g.blockers_left[opp] else 0
        for f in range(1, faces + 1):
            self.nodes += 1
            b[sq] = die(me, f)
            won = lost = False
            wline = 0
            fa, fz, flat, flive, flat_opp = a, z, lat, live_opp, lat_opp
            nn = 0
            for j in range(0, k, 4):
                s = ls[j + 3] + f
                if ls[j + 1] == 0:
                    if s == target:
                        p = g.line_winner(ls[j])
                        if p == me:
                            won = True
                            wline = ls[j]
                        elif p == opp:
                            lost = True
                    continue
                need = target - s
                if not 1 <= need <= faces:
                    continue
                u = ls[j + 2]
                b[u] = die(me, need)
                if g.line_winner(ls[j]) == me and not self.thr[me][u] and not self._seen(u, nn):
                    self.news[nn] = u
                    nn += 1
                    if g.in_no_play_zone(me, u):
                        flat += 1
                    elif self.zone[u]:
                        fz += 1
                    else:
                        fa += 1
                b[u] = die(opp, need)
                if g.line_winner(ls[j]) == opp and not self.thr[opp][u]:
                    if self.zone[u]:
                        flat_opp += 1
                    else:
                        flive += 1
                b[u] = EMPTY
            if won and lost:
                score = DRAWN
            elif lost:
                score = LOST
            elif won:
                score = WON + 10 * g.win_points(me, wline)
            elif flive:
                score = LOST // 2  # the opponent wins next turn
            elif level < 2:
                score = self.rng.below(1000)
            else:
                score = FORK if fz > their_blocker or fa + fz > 1 + their_blocker else 0
                score += (600 * (fa + fz) + 200 * flat - 400 * flat_opp
                          + acc[0] + acc[f] - self.blocker_cost)
                if (self.counts[f] + 1) % t.same_face_group == 0:
                    score -= 10 * t.same_face_penalty
                score += self.rng.below(10)
            if score > self.score:
                self.score = score
                self.move = (blk, sq, f)
            top = self.top
            if top is not None:
                if len(top) < ANSWERS:
                    top.append((score, blk, sq, f))
                else:
                    worst = 0
                    for i in range(1, ANSWERS):
                        if top[i][0] < top[worst][0]:
                            worst = i
                    if score > top[worst][0]:
                        top[worst] = (score, blk, sq, f)
        b[sq] = EMPTY
        g.last_placed[me] = last_placed
