"""The rules of DOCE: a match of rounds, played from compiled rule tables.

Pure: no I/O and no hardware, so it runs unchanged on the board (MicroPython)
and on a PC (CPython). docs/rules.md states every rule and every decision the
rulebook leaves open.

A square holds one byte: EMPTY, a die, (player + 1) << 4 | face, or a player's
blocker, BLOCKER | player.
Playing a move allocates nothing until a round ends.
"""

from .tables import END

WHITE = 0
BLACK = 1
DRAW = 2  # as a round or match result
PLAYER_NAMES = ("white", "black", "draw")

EMPTY = 0
BLOCKER = 0x30  # | player: each player's blocker is their own
NOWHERE = 0xFF  # no last-placed die yet this round

# Why a play is refused. These strings are also the referee's and the link's codes.
MATCH_ENDED = "match_over"
ROUND_OVER = "round_over"  # the round has ended; start the next one first
OFF_BOARD = "off_board"
NOT_YOUR_TURN = "not_your_turn"
OCCUPIED = "occupied"
NO_BLOCKER = "no_blocker"
BAD_VALUE = "bad_value"
NO_PLAY_ZONE = "no_play_zone"

# Why a round ended.
LINE = "line"
DOUBLE_LINE = "double_line"
NO_LEGAL_SQUARE = "no_legal_square"
OUT_OF_DICE = "out_of_dice"


def die(player, face):
    return (player + 1) << 4 | face


def blocker(player):
    return BLOCKER | player


def is_blocker(cell):
    return cell >> 4 == BLOCKER >> 4


def owner(cell):
    """WHITE or BLACK for a die; None for an empty square or a blocker."""
    p = (cell >> 4) - 1
    return p if p == WHITE or p == BLACK else None


def face(cell):
    return cell & 0x0F


class RoundEnd:
    """How a round ended. `lines` holds (player, line index) for each winning line."""

    def __init__(self, number, result, reason, lines, points):
        self.number = number
        self.result = result  # WHITE, BLACK or DRAW
        self.reason = reason
        self.lines = lines
        self.points = points  # (white, black)


class Game:
    """One match. Players alternate; a round ends on a winning line or a draw."""

    def __init__(self, tables, first=WHITE):
        self.tables = tables
        self.first = first  # who opens round 1; the opener alternates
        self.board = bytearray(tables.squares)
        self.dice_left = bytearray(2)
        self.blockers_left = bytearray(2)
        self.last_placed = bytearray(2)
        self._won = bytearray(2 * tables.line_count)  # scratch: (player, line) pairs
        self._n_won = 0
        self.rounds = []  # a RoundEnd per finished round
        self.round = 0
        self.start_round()

    def copy(self):
        """This match in objects of its own. Made once a journal's replay is collected, they take the
        heap's lowest free places, where those the replay made lay above its garbage (doce/app.py)."""
        g = Game(self.tables, self.first)
        g.board[:] = self.board
        g.dice_left[:] = self.dice_left
        g.blockers_left[:] = self.blockers_left
        g.last_placed[:] = self.last_placed
        g._won[:] = self._won
        g._n_won = self._n_won
        g.rounds = [None] * len(self.rounds)
        for i, r in enumerate(self.rounds):
            lines = [None] * len(r.lines)
            for k, (player, line) in enumerate(r.lines):
                lines[k] = (player, line)
            g.rounds[i] = RoundEnd(r.number, r.result, r.reason, lines, (r.points[0], r.points[1]))
        g.round, g.opener, g.to_move = self.round, self.opener, self.to_move
        g.blocker_this_turn = self.blocker_this_turn
        return g

    # -- state ------------------------------------------------------------

    @property
    def round_over(self):
        return len(self.rounds) == self.round

    @property
    def match_over(self):
        return len(self.rounds) == self.tables.rounds

    def totals(self):
        w = b = 0
        for r in self.rounds:
            w += r.points[0]
            b += r.points[1]
        return w, b

    def winner(self):
        """WHITE, BLACK or DRAW once the match is over, else None."""
        if not self.match_over:
            return None
        w, b = self.totals()
        return WHITE if w > b else BLACK if b > w else DRAW

    def in_no_play_zone(self, player, square):
        centre = self.last_placed[player]
        if centre == NOWHERE:
            return False
        t = self.tables
        row = centre * t.zone_stride
        for i in range(row, row + t.zone_stride):
            if t.zone[i] == square:
                return True
        return False

    def no_play_zone(self, player):
        """The squares `player` may not put a numbered die on, as a list."""
        centre = self.last_placed[player]
        if centre == NOWHERE:
            return []
        t = self.tables
        row = t.zone[centre * t.zone_stride:(centre + 1) * t.zone_stride]
        return [sq for sq in row if sq != END]

    def is_legal_square(self, player, square):
        return self.board[square] == EMPTY and not self.in_no_play_zone(player, square)

    def has_legal_square(self, player):
        for sq in range(self.tables.squares):
            if self.is_legal_square(player, sq):
                return True
        return False

    def legal_squares(self, player):
        return [sq for sq in range(self.tables.squares) if self.is_legal_square(player, sq)]

    def refusal(self, player, square, face=0, blocker=False):
        """Why `player` may not play here now (a code above), or None if they may.

        The checks run in the order the referee reports them.
        """
        if self.match_over:
            return MATCH_ENDED
        if self.round_over:
            return ROUND_OVER
        if not 0 <= square < self.tables.squares:
            return OFF_BOARD
        if player != self.to_move:
            return NOT_YOUR_TURN
        if self.board[square] != EMPTY:
            return OCCUPIED
        if blocker:
            if self.blocker_this_turn or not self.blockers_left[player]:
                return NO_BLOCKER
            return None
        if not 1 <= face <= self.tables.faces:
            return BAD_VALUE
        if self.in_no_play_zone(player, square):
            return NO_PLAY_ZONE
        return None

    # -- play -------------------------------------------------------------

    def start_round(self):
        """Clear the board for the next round. Does nothing mid-round or after the match."""
        if self.match_over or not self.round_over:
            return
        self.round += 1
        self._clear_round()

    def restart_round(self):
        """Abandon the round in play and start it again on a cleared board. False if none is."""
        if self.round_over:
            return False
        self._clear_round()
        return True

    def _clear_round(self):
        t = self.tables
        for sq in range(t.squares):
            self.board[sq] = EMPTY
        for p in (WHITE, BLACK):
            self.dice_left[p] = t.dice_per_player
            self.blockers_left[p] = t.blockers_per_player
            self.last_placed[p] = NOWHERE
        self.opener = self.first if self.round % 2 else 1 - self.first
        self.to_move = self.opener
        self.blocker_this_turn = False

    def place(self, player, square, face):
        """Put `player`'s die on `square`, `face` up. Returns a refusal code or None."""
        why = self.refusal(player, square, face)
        if why:
            return why
        self.board[square] = die(player, face)
        self.dice_left[player] -= 1
        self.last_placed[player] = square
        self.blocker_this_turn = False
        self._after_die(player, square)
        return None

    def _after_die(self, player, square):
        """A line, a draw, or the other player's turn."""
        won = self._winning_lines_through(square)
        if won:
            self._end_by_lines(won)
        elif not self.dice_left[player] and not self.dice_left[1 - player]:
            self._end(DRAW, OUT_OF_DICE)
        else:
            self.to_move = 1 - player
            if not self.has_legal_square(self.to_move):
                self._end(DRAW, NO_LEGAL_SQUARE)

    def _end_by_lines(self, won):
        first = self._won[0]
        for i in range(2, won, 2):
            if self._won[i] != first:
                self._end(DRAW, DOUBLE_LINE, won)
                return
        self._end(first, LINE, won)

    def place_blocker(self, player, square):
        """Put `player`'s blocker on `square`, their first play of a turn."""
        why = self.refusal(player, square, blocker=True)
        if why:
            return why
        self.board[square] = blocker(player)
        self.blockers_left[player] -= 1
        self.blocker_this_turn = True
        if not self.has_legal_square(player):
            self._end(DRAW, NO_LEGAL_SQUARE)
        return None

    # -- lines and scoring ------------------------------------------------

    def line_winner(self, line):
        """WHITE or BLACK if `line` is a winning line for them, else None."""
        whites = self._line_whites(line)
        return None if whites < 0 else self._line_owner(line, whites)

    # The win check runs after every die: small functions, because MicroPython puts
    # a frame of more than 11 slots on the heap at every call.
    def _line_whites(self, line):
        """How many of the line's dice are white; -1 for a gap, a blocker or another sum."""
        total = whites = 0
        for i in range(line * self.tables.line_length, (line + 1) * self.tables.line_length):
            cell = self.board[self.tables.lines[i]]
            if cell == EMPTY or cell >= BLOCKER:
                return -1
            total += cell & 0x0F
            if cell >> 4 == WHITE + 1:
                whites += 1
        return whites if total == self.tables.target else -1

    def _line_owner(self, line, whites):
        n = self.tables.line_length
        if whites == n:
            return WHITE
        if whites == 0:
            return BLACK
        if not self.tables.opponent_end or (whites != 1 and whites != n - 1):
            return None
        lone = WHITE if whites == 1 else BLACK  # the opponent's die must sit at one end
        return 1 - lone if self._at_an_end(line, lone) else None

    def _at_an_end(self, line, player):
        t = self.tables
        start = line * t.line_length
        return (owner(self.board[t.lines[start]]) == player
                or owner(self.board[t.lines[start + t.line_length - 1]]) == player)

    def _winning_lines_through(self, square):
        """Fill self._won with (player, line) pairs; return the number of bytes used."""
        self._n_won = 0
        row = square * self.tables.through_stride
        for i in range(row, row + self.tables.through_stride):
            if not self._check_line(self.tables.through[i]):
                break
        return self._n_won

    def _check_line(self, line):
        """Note `line` if it wins; False at the end of the square's list."""
        if line == END:
            return False
        p = self.line_winner(line)
        if p is not None:
            self._won[self._n_won] = p
            self._won[self._n_won + 1] = line
            self._n_won += 2
        return True

    def is_all_own(self, line):
        t = self.tables
        first = owner(self.board[t.lines[line * t.line_length]])
        for sq in t.line_squares(line):
            if owner(self.board[sq]) != first:
                return False
        return True

    def _end(self, result, reason, won=0):
        lines = [(self._won[i], self._won[i + 1]) for i in range(0, won, 2)]
        if result == DRAW:
            points = (self._draw_points(WHITE), self._draw_points(BLACK))
        else:
            best = self.win_points(result, lines[0][1])
            for k in range(1, len(lines)):  # the best of the winner's lines
                best = max(best, self.win_points(result, lines[k][1]))
            points = (best, 0) if result == WHITE else (0, best)
        self.rounds.append(RoundEnd(self.round, result, reason, lines, points))

    def _unused_blocker(self, player):
        t = self.tables
        return t.unused_blocker if self.blockers_left[player] == t.blockers_per_player else 0

    def _draw_points(self, player):
        return self.tables.draw + self._unused_blocker(player)

    def win_points(self, player, line):
        """What `player` scores for winning the round with `line` on the board as it stands."""
        t = self.tables
        empty = 0
        per_face = bytearray(16)
        own = player + 1  # the high nibble of the player's dice (a blocker's is 3)
        for cell in self.board:
            if cell == EMPTY:
                empty += 1
            elif cell >> 4 == own:
                per_face[cell & 0x0F] += 1
        groups = 0
        for n in per_face:
            groups += n // t.same_face_group
        return (t.win
                + (t.all_own_line if self.is_all_own(line) else 0)
                + self._unused_blocker(player)
                + t.empty_square * empty
                - t.same_face_penalty * groups)
