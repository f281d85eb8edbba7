"""The players the board's opponent is measured against (bench/ladder.py), as a skilled person
would choose them. They read the rules from the tables and play through nothing but the rules
engine's encoding (firmware/doce/game.py): none of the opponent's own search or weights.

- Random: a random legal square and face; its blocker at random, once in 12 turns.
- Greedy: one ply. It takes the best win (the most points), never completes the other player's
  line, blocks the other player's winning squares (with a die, or its blocker then a die), and
  prefers a double threat (winning squares the other cannot all block) to one threat, one to
  none. Between moves equal in that, it builds its own lines and spoils the other player's.
- MonteCarlo: flat Monte Carlo over greedy's best moves (the best on each of its 6 best squares),
  with a fixed number of rollouts a move (about 0.2 s of CPU), so a seed replays a match. Each
  rollout opens with one of greedy's 3 best answers for the other player (so an answer that
  wins is seen), then plays
  to the end of the round by a quick policy (win, else block, else the best of a few random
  dice, never handing over a winning square it can see), and scores the round's points. It
  takes greedy's move when greedy sees a win now or next turn.
- TwoPly: a two-ply search over greedy's judgement. It takes greedy's 12 best moves, weighs each
  by the other player's best reply as greedy judges it (greedy already checks its own immediate
  answer: a win, a block, an unstoppable double threat), and plays the move whose best reply is
  worst for the other player. It takes a win at once.

A move is (blocker square or NO_BLOCKER, square, face), as the opponent's.
"""

import random

from doce.game import BLOCKER, EMPTY, NOWHERE
from doce.tables import END

NO_BLOCKER = NOWHERE

# Greedy's scores: a win counts its points on top of WIN.
WIN = 10 ** 6
DRAWN = -5 * 10 ** 5  # a line each (a die that completes both players' lines)
LOSE = -10 ** 6  # completing the other player's line
LOSE_NEXT = -10 ** 5  # the other player keeps a winning square they may play next turn
FORK = 10 ** 4  # winning squares the other player cannot all block
LIVE = 100  # a winning square for next turn
LATENT = 40  # one in its own no-play zone: it opens once its zone moves
THEIR_LATENT = -60  # one of the other player's, in their zone
BLOCKER_COST = -50  # the blocker's 5 points, spent
BUILD = 6  # x (its dice on a line through the die)^2, for each line it can still win
SPOIL = 5  # x (their dice on it)^2, for each line of theirs the die spoils

TWO_PLY_MOVES = 12  # greedy's best moves the two-ply player weighs by the best reply

# A move: 180 for each of greedy's 6 best, 0.2 s of CPU a move it weighs (CPython 3.11 on this
# project's AMD EPYC build machine, 2026-12; the moves it takes at once, a win or a block, are quicker).
MC_ROLLOUTS = 1080
MC_CANDIDATES = 6
ANSWERS = 3  # greedy's best answers a rollout opens with, in turn
SAMPLES = 4  # random dice a rollout's quiet turn weighs: the one that makes the most winning squares


class Rules:
    """The tables in shapes quick to read in Python: lines as tuples, zones as bit masks."""

    def __init__(self, tables):
        t = tables
        n = t.line_length
        self.t = t
        self.n = n
        self.squares = t.squares
        self.target = t.target
        self.faces = t.faces
        self.opponent_end = t.opponent_end
        self.lines = [tuple(t.lines[i * n:(i + 1) * n]) for i in range(t.line_count)]
        st = t.through_stride
        self.through = [[x for x in t.through[q * st:(q + 1) * st] if x != END] for q in range(t.squares)]
        zs = t.zone_stride
        self.zone = []
        for q in range(t.squares):
            mask = 0
            for x in t.zone[q * zs:(q + 1) * zs]:
                if x != END:
                    mask |= 1 << x
            self.zone.append(mask)
        self.zone.append(0)  # zone[NOWHERE]: see zone_of
        self.all = (1 << t.squares) - 1

    def zone_of(self, last):
        return self.zone[-1] if last == NOWHERE else self.zone[last]

    def legal(self, board, last):
        """The squares a die may go on, for a player whose last die is on `last`."""
        zone = self.zone_of(last)
        return [q for q in range(self.squares) if board[q] == EMPTY and not zone >> q & 1]

    def winner(self, board, line):
        """0 (white) or 1 (black) if `line` wins for them on `board`, else None (game.py's rule)."""
        squares = self.lines[line]
        total = whites = 0
        for q in squares:
            c = board[q]
            if c == EMPTY or c >= BLOCKER:
                return None
            total += c & 0x0F
            if c < 0x20:
                whites += 1
        if total != self.target:
            return None
        n = self.n
        if whites == n:
            return 0
        if whites == 0:
            return 1
        if not self.opponent_end or (whites != 1 and whites != n - 1):
            return None
        lone = 0 if whites == 1 else 1
        if (board[squares[0]] >> 4) - 1 == lone or (board[squares[-1]] >> 4) - 1 == lone:
            return 1 - lone
        return None

    def threat(self, board, line):
        """(square, face, players) if one die on the line's one empty square would win it:
        players is a bit mask (1 white, 2 black); else None."""
        empty = NOWHERE
        total = 0
        for q in self.lines[line]:
            c = board[q]
            if c == EMPTY:
                if empty != NOWHERE:
                    return None
                empty = q
            elif c >= BLOCKER:
                return None
            else:
                total += c & 0x0F
        need = self.target - total
        if empty == NOWHERE or not 1 <= need <= self.faces:
            return None
        who = 0
        for p in (0, 1):
            board[empty] = (p + 1) << 4 | need
            if self.winner(board, line) == p:
                who |= 1 << p
        board[empty] = EMPTY
        return (empty, need, who) if who else None

    def result(self, board, square):
        """Who the die just put on `square` wins for: a bit mask of players with a line through it."""
        who = 0
        for line in self.through[square]:
            p = self.winner(board, line)
            if p is not None:
                who |= 1 << p
        return who

    def win_points(self, board, player, blockers_left, lines):
        """The rulebook's points for `player` winning with the best of `lines` (game.py's scoring)."""
        t = self.t
        empty = 0
        per_face = [0] * 16
        for c in board:
            if c == EMPTY:
                empty += 1
            elif c < BLOCKER and (c >> 4) - 1 == player:
                per_face[c & 0x0F] += 1
        groups = sum(k // t.same_face_group for k in per_face)
        own = 0
        for line in lines:
            if self.winner(board, line) == player and all((board[q] >> 4) - 1 == player for q in self.lines[line]):
                own = t.all_own_line
        unused = t.unused_blocker if blockers_left == t.blockers_per_player else 0
        return t.win + own + unused + t.empty_square * empty - t.same_face_penalty * groups

    def draw_points(self, blockers_left):
        t = self.t
        return t.draw + (t.unused_blocker if blockers_left == t.blockers_per_player else 0)


class Random:
    """A random legal square and face; the blocker at random, once in 12 turns."""

    name = "random"

    def __init__(self, tables, seed):
        self.r = Rules(tables)
        self.rng = random.Random(seed)

    def choose(self, game):
        r = self.r
        p = game.to_move
        blk = NO_BLOCKER
        if game.blockers_left[p] and not game.blocker_this_turn and not self.rng.randrange(12):
            empty = [q for q in range(r.squares) if game.board[q] == EMPTY]
            blk = self.rng.choice(empty)
        squares = [q for q in game.legal_squares(p) if q != blk]
        if not squares:  # the blocker would leave no square for the die
            blk = NO_BLOCKER
            squares = game.legal_squares(p)
        return blk, self.rng.choice(squares), 1 + self.rng.randrange(r.faces)


class Greedy:
    """One ply: every die on every legal square and face, and the blocker on each of the other
    player's winning squares then every die, scored by the position each leaves (see WIN...)."""

    name = "greedy"

    def __init__(self, tables, seed):
        self.r = Rules(tables)
        self.rng = random.Random(seed)

    def choose(self, game):
        return self.ranked(game)[0][1]

    def ranked(self, game):
        """Every move considered, as (score, move), best first; ties in a random order."""
        r = self.r
        me = game.to_move
        opp = 1 - me
        board = bytearray(game.board)
        threats = {}  # line -> (square, face, players)
        for line in range(len(r.lines)):
            x = r.threat(board, line)
            if x:
                threats[line] = x
        their_zone = r.zone_of(game.last_placed[opp])
        their_blocker = game.blockers_left[opp] > 0
        blockers_left = game.blockers_left[me]
        scored = []
        blocks = [NO_BLOCKER]
        if blockers_left and not game.blocker_this_turn:
            blocks += sorted({x[0] for x in threats.values() if x[2] >> opp & 1 and not their_zone >> x[0] & 1})
        my_zone = r.zone_of(game.last_placed[me])
        for blk in blocks:
            lines = dict(threats)
            left = blockers_left
            if blk != NO_BLOCKER:
                board[blk] = BLOCKER | me
                left -= 1
                for line in r.through[blk]:
                    lines.pop(line, None)
            legal = [q for q in range(r.squares) if board[q] == EMPTY and not my_zone >> q & 1]
            for sq in legal:
                before = self._potential(board, sq, opp)
                for f in range(1, r.faces + 1):
                    board[sq] = (me + 1) << 4 | f
                    score = self._score(board, sq, me, lines, left, their_zone, their_blocker)
                    if LOSE_NEXT < score < WIN:
                        score += BUILD * self._potential(board, sq, me) + SPOIL * (
                            before - self._potential(board, sq, opp))
                    if blk != NO_BLOCKER and score < WIN:
                        score += BLOCKER_COST
                    scored.append((score, self.rng.random(), (blk, sq, f)))
                board[sq] = EMPTY
            if blk != NO_BLOCKER:
                board[blk] = EMPTY
        scored.sort(reverse=True)
        return [(s, m) for s, _, m in scored]

    def _potential(self, board, sq, player):
        """Over the lines through sq that `player` can still win: the sum of (their dice on it)^2."""
        r = self.r
        total = 0
        for line in r.through[sq]:
            squares = r.lines[line]
            s = e = k = other = 0
            for q in squares:
                c = board[q]
                if c == EMPTY:
                    e += 1
                elif c >= BLOCKER:
                    break
                else:
                    s += c & 0x0F
                    if (c >> 4) - 1 == player:
                        k += 1
                    else:
                        other += 1
            else:
                need = r.target - s
                if not e <= need <= e * r.faces or other > 1:
                    continue
                if other and not (r.opponent_end and ((board[squares[0]] >> 4) - 1 == 1 - player
                                                       or (board[squares[-1]] >> 4) - 1 == 1 - player)):
                    continue
                total += k * k
        return total

    def _score(self, board, sq, me, lines, blockers_left, their_zone, their_blocker):
        r = self.r
        opp = 1 - me
        won = r.result(board, sq)
        if won:
            if won == 1 << me:
                return WIN + r.win_points(board, me, blockers_left, r.through[sq])
            return DRAWN if won == 3 else LOSE
        after = dict(lines)
        for line in r.through[sq]:
            after.pop(line, None)
            x = r.threat(board, line)
            if x:
                after[line] = x
        mine = theirs = 0  # winning squares, as bit masks
        for u, _, who in after.values():
            if who >> me & 1:
                mine |= 1 << u
            if who >> opp & 1:
                theirs |= 1 << u
        if theirs & ~their_zone:
            return LOSE_NEXT - bin(theirs & ~their_zone).count("1")
        my_zone = r.zone[sq]
        live = mine & ~my_zone
        n_live = bin(live).count("1")
        score = LIVE * n_live + LATENT * bin(mine & my_zone).count("1") + THEIR_LATENT * bin(theirs).count("1")
        if n_live and not coverable(live, their_zone, their_blocker):
            score += FORK
        return score


class State:
    """A position after a move, with the fields Greedy.ranked reads from a Game."""

    def __init__(self, game):
        self.board = bytearray(game.board)
        self.dice_left = bytearray(game.dice_left)
        self.blockers_left = bytearray(game.blockers_left)
        self.last_placed = bytearray(game.last_placed)
        self.to_move = game.to_move
        self.blocker_this_turn = game.blocker_this_turn


def after(game, move):
    """The position after `move` (not a win: greedy takes those), the other player to move."""
    s = State(game)
    blk, sq, f = move
    p = game.to_move
    if blk != NO_BLOCKER:
        s.board[blk] = BLOCKER | p
        s.blockers_left[p] -= 1
    s.board[sq] = (p + 1) << 4 | f
    s.dice_left[p] -= 1
    s.last_placed[p] = sq
    s.to_move = 1 - p
    s.blocker_this_turn = False
    return s


def coverable(squares, zone, blocker):
    """Can a player whose die may not go in `zone` cover every one of `squares` (bit masks) with
    one die and, if `blocker`, their blocker?"""
    n = bin(squares).count("1")
    if n == 0:
        return True
    if n == 1:
        return blocker or not squares & zone
    if n == 2:
        return blocker and bool(squares & ~zone)
    return False


class TwoPly:
    """Greedy's best TWO_PLY_MOVES moves, each weighed by greedy's best reply for the other player;
    the move whose best reply scores least (by greedy's scores, from the other player's side).
    A move after which the other player has no turn (the round ends: out of dice, or no legal
    square for them) is weighed as a reply of 0, a quiet position."""

    name = "two-ply"

    def __init__(self, tables, seed, moves=TWO_PLY_MOVES):
        self.r = Rules(tables)
        self.greedy = Greedy(tables, seed)
        self.moves = moves

    def choose(self, game):
        ranked = self.greedy.ranked(game)
        if ranked[0][0] >= WIN:
            return ranked[0][1]  # the best win
        best = None
        for score, move in ranked[:self.moves]:
            if score <= LOSE:
                reply = WIN  # it completes the other player's line: they have won
            elif score == DRAWN:
                reply = 0  # a line each: the round is drawn
            else:
                state = after(game, move)
                them = state.to_move
                if not state.dice_left[0] and not state.dice_left[1] or not self.r.legal(
                        state.board, state.last_placed[them]):
                    reply = 0  # the round ends drawn
                else:
                    reply = self.greedy.ranked(state)[0][0]
            if best is None or reply < best[0]:
                best = (reply, move)  # ties: greedy's order
        return best[1]


class MonteCarlo:
    """Flat Monte Carlo: greedy's best moves, each scored by the mean points (its less the other
    player's) of `rollouts` / `candidates` rollouts to the end of the round. Each rollout opens
    with one of greedy's best answers for the other player (its best if that wins or forks), so
    an answer that wins is seen, then plays on by the quick policy."""

    name = "monte carlo"

    def __init__(self, tables, seed, rollouts=MC_ROLLOUTS, candidates=MC_CANDIDATES):
        self.r = Rules(tables)
        self.greedy = Greedy(tables, seed)
        self.rng = random.Random(seed + 1)
        self.rollouts = rollouts
        self.candidates = candidates

    def choose(self, game):
        ranked = self.greedy.ranked(game)
        best_score = ranked[0][0]
        if best_score >= FORK or best_score <= LOSE_NEXT:
            return ranked[0][1]  # a win now or next turn to take, or nothing saves the round
        moves = []
        for s, m in ranked:  # the best move on each of greedy's best squares
            if s > LOSE_NEXT and len(moves) < self.candidates and all(m[:2] != x[:2] for x in moves):
                moves.append(m)
        if len(moves) == 1:
            return moves[0]
        each = max(1, self.rollouts // len(moves))
        seed = self.rng.random()
        best = None
        for move in moves:
            state = after(game, move)
            answers = [None]
            goes_on = state.dice_left[0] or state.dice_left[1]
            if goes_on and self.r.legal(state.board, state.last_placed[state.to_move]):
                ranked = self.greedy.ranked(state)
                answers = [m for _, m in ranked[:1 if ranked[0][0] >= FORK else ANSWERS]]
            self.rng.seed(seed)  # the same dice for every candidate: their differences show sooner
            total = 0
            for i in range(each):
                total += self.rollout(game, move, answers[i % len(answers)])
            if best is None or total > best[0]:
                best = (total, move)
        return best[1]

    def rollout(self, game, move, answer=None):
        """The mover's points less the other player's at the end of the round after `move`, and
        `answer` (a move for the other player) if given."""
        r = self.r
        rng = self.rng
        me = game.to_move
        board = bytearray(game.board)
        dice = list(game.dice_left)
        blockers = list(game.blockers_left)
        last = list(game.last_placed)
        threats = {}
        for line in range(len(r.lines)):
            x = r.threat(board, line)
            if x:
                threats[line] = x
        p = me
        blk, sq, f = move
        while True:
            if blk != NO_BLOCKER:
                board[blk] = BLOCKER | p
                blockers[p] -= 1
                for line in r.through[blk]:
                    threats.pop(line, None)
                if not r.legal(board, last[p]):
                    return self._draw(blockers, me)
            board[sq] = (p + 1) << 4 | f
            dice[p] -= 1
            last[p] = sq
            won = r.result(board, sq)
            if won:
                if won == 3:
                    return self._draw(blockers, me)
                w = 0 if won == 1 else 1
                points = r.win_points(board, w, blockers[w], r.through[sq])
                return points if w == me else -points
            if not dice[0] and not dice[1]:
                return self._draw(blockers, me)
            for line in r.through[sq]:
                threats.pop(line, None)
                x = r.threat(board, line)
                if x:
                    threats[line] = x
            p = 1 - p
            legal = r.legal(board, last[p])
            if not legal:
                return self._draw(blockers, me)
            if answer is not None:
                blk, sq, f = answer
                answer = None
            else:
                blk, sq, f = self._policy(board, p, legal, threats, blockers[p], last, rng)

    def _draw(self, blockers, me):
        return self.r.draw_points(blockers[me]) - self.r.draw_points(blockers[1 - me])

    def _policy(self, board, p, legal, threats, blockers_left, last, rng):
        """Win if it can; else block (a die on one winning square of theirs, its blocker on
        another or on one its die may not reach); else a random die that leaves them no
        winning square they may play."""
        r = self.r
        opp = 1 - p
        zone = r.zone_of(last[p])
        their_zone = r.zone_of(last[opp])
        theirs = []
        for u, need, who in threats.values():
            if who >> p & 1 and not zone >> u & 1:
                return NO_BLOCKER, u, need
            if who >> opp & 1 and not their_zone >> u & 1:
                theirs.append((u, need))
        if theirs:
            blk = NO_BLOCKER
            die = None
            for u, need in theirs:
                if die is None and not zone >> u & 1:
                    die = (u, need)
                elif blk == NO_BLOCKER and blockers_left and (die is None or u != die[0]):
                    blk = u
            if die is not None:
                f = 1 + rng.randrange(r.faces - 1)
                return blk, die[0], f if f < die[1] else f + 1  # any face but the one that completes it
            rest = [q for q in legal if q != blk]
            if rest:
                return blk, rng.choice(rest), 1 + rng.randrange(r.faces)
        best = None
        for _ in range(SAMPLES):
            sq = rng.choice(legal)
            f = 1 + rng.randrange(r.faces)
            board[sq] = (p + 1) << 4 | f
            score = rng.random()
            my_zone = r.zone[sq]
            for line in r.through[sq]:
                if r.winner(board, line) == opp:
                    score -= 1000
                    break
                x = r.threat(board, line)
                if x:
                    if x[2] >> opp & 1 and not their_zone >> x[0] & 1:
                        score -= 1000
                        break
                    if x[2] >> p & 1:
                        score += 4 if my_zone >> x[0] & 1 else 10
            board[sq] = EMPTY
            if best is None or score > best[0]:
                best = (score, sq, f)
        _, sq, f = best
        return NO_BLOCKER, sq, f
