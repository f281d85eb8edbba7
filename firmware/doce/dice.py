"""The dice check: one face of a die, as the five sensors of a square read it, against
every code of the board file, so a maker finds a magnet glued wrong before play.

`verdict` is the whole comparison, pure: the board runs it in its dice-check mode and
the host (doce dice check) words its result. The nearest code, in any of its four
turns, is the one with the fewest positions that differ; each differing position is
named as the maker sees it on the square (C the centre, N E S W its sides):
  reversed  a magnet the other way up
  missing   no magnet where the code has one
  extra     a magnet where the code has none; for the pieces play reads only without one
            (Board.strict: each colour's blocker), also a faint magnet there of the centre's
            sign, at or over strict_gone_percent of the centre (a sunk extra magnet): the
            board would never read that die in play
  weak      a reading between the thresholds, or a magnet's reading short of the least a
            magnet of its place reads on a die built right, seated anywhere in the well, at
            every corner of the tolerances (board.json sensing.check_above): a weak or sunken
            magnet, or a die not flat

`DiceCheck` is the mode's state on the board: which square, and what was last judged.
Few names on purpose: every new name is a qstr in the board's RAM, and the game already
fills MicroPython's qstr pools close to the point where the next pool (5-8 KB in one
piece) would be needed. For the same reason one-letter strings are sliced, not indexed:
indexing a str interns the letter as a new qstr at run time, when no such piece may be free.
"""

from .board import BETWEEN, EMPTY, SENSORS_PER_SQUARE, TRITS, UNSETTLED
from .lights import FRAME_MS
from .squares import piece, square_name
from .ticks import ticks_add, ticks_diff


def verdict(read, codes, level=None, least=None, strict=()):
    """What one square's reading is, as a dict for the dice_face event; None if empty.

    `read`: the five trits C, N, E, S, W (0 none, 1 '+', 2 '-', 3 between), and optionally the
    bits of the places read as none though faint of the centre's sign, as Scanner.read_square
    reads them;
    `codes`: the board file's die table, {code: piece name};
    `level`, `least`: the five readings (counts at the board file's gain) and the least
    each place's magnet reads on a die built right (Board.check_above: five counts a code
    in the code's order, the codes sorted): a magnet reading less is weak;
    `strict`: the pieces (values) read in play only without such a faint place (Board.strict).
      {"face": "white 3", "ok": True, "wrong": [], "read": "+--00"}
      {"face": "white 3", "ok": False, "wrong": [["S", "extra"]], "read": "+---0",
       "or": [{"face": "white 4", "wrong": [["E", "extra"]]}, {"face": "white 6", ...}]}
    "face" is the nearest piece; "or" lists every other piece just as near, each with
    what would be wrong if it were that one (the maker knows which die is in hand).
    """
    near = read[SENSORS_PER_SQUARE] if len(read) > SENSORS_PER_SQUARE else 0  # the faint places' bits
    read = [read[i] for i in range(SENSORS_PER_SQUARE)]
    if not any(read):
        return None
    best = []  # (name, wrong) of each piece at the smallest distance so far
    order = sorted(codes) if least else None
    for code, name in codes.items():
        trits = [TRITS[c] for c in code]
        flags = near if piece(name) in strict else 0  # its faint places, if play reads it only without
        floor = 5 * order.index(code) if least else None  # where its five are in `least`
        for turn in range(4):
            expected = trits[:1] + trits[1 + turn:] + trits[1:1 + turn]  # the ring turned, as decode_table turns it
            low = [least[floor]] + [least[floor + 1 + (i + turn) % 4] for i in range(4)] if least else None
            wrong = []
            for i in range(SENSORS_PER_SQUARE):
                want, got = expected[i], read[i]
                if want != got:
                    wrong.append(["CNESW"[i:i + 1], "weak" if got == BETWEEN else "extra" if want == 0
                                  else "missing" if got == 0 else "reversed"])
                elif flags >> i & 1:  # none (want == got == 0) but faint: play reads it not
                    wrong.append(["CNESW"[i:i + 1], "extra"])
                elif want and low is not None and level[i] < low[i]:
                    wrong.append(["CNESW"[i:i + 1], "weak"])
            if not best or len(wrong) < len(best[0][1]):
                best = [(name, wrong)]
            elif len(wrong) == len(best[0][1]) and all(name != b[0] for b in best):
                best.append((name, wrong))
    name, wrong = best[0]
    result = {"face": name, "ok": not wrong, "wrong": wrong, "read": "".join("0+-?"[t:t + 1] for t in read)}
    if wrong:
        result["or"] = [{"face": b[0], "wrong": b[1]} for b in best[1:]]
    return result


class DiceCheck:
    """The dice-check mode of an App: the game waits, untouched, while faces are judged on
    one square (the centre one).

    on       in the mode
    leaving  asked to leave while a die is still on the square: the game resumes once it
             is taken off, so the die cannot pass for a play
    result   the verdict on what the square holds (None: nothing)
    """

    def __init__(self, app):
        self.app = app
        self.board = board = app.board
        self.square = (board.grid // 2) * board.grid + board.grid // 2
        self.on = False
        self.leaving = False
        self.result = None
        self.judged = EMPTY  # the square's settled value last judged

    def turn(self, on):
        """Enter the dice check (the game waits as it is), or leave it: at once if the square
        is empty, else once the die is off it. None, or why it cannot start."""
        app = self.app
        app.controller.changed = True  # in the mode: the check's lights need drawing
        if not on:
            if self.on:
                self.leaving = True
                if self.judged == EMPTY and not app.scanner.moving[self.square]:
                    self.leave()
            return None
        if self.on:
            self.leaving = False  # asked again before the die was taken off: stay
            return None
        cell = square_name(app.tables.grid, self.square)
        if app.controller.game.board[self.square] != EMPTY:
            return "%s holds a piece of the game; the dice check needs it free" % cell
        self.on = app.checking = True
        self.leaving, self.result = False, None
        self.judged = UNSETTLED + 1  # no settled value: whatever is there gets judged
        app.emit({"event": "dice_check", "on": True, "cell": cell})
        return None

    def leave(self):
        app = self.app
        self.on = self.leaving = app.checking = False
        app.emit({"event": "dice_check", "on": False})
        app.controller.changed = True
        app.controller.reconcile(app.scanner.settled)  # the game as it was, against the board as it is

    def step(self, now_ms):
        """After each scan in the mode: judge what settled, and draw."""
        app = self.app
        if self.look(app.scanner):
            app.controller.changed = True
            if self.result is not None:
                event = {"event": "dice_face", "cell": square_name(app.tables.grid, self.square)}
                event.update(self.result)
                app.emit(event)
        if self.leaving and self.judged == EMPTY:
            self.leave()
        elif app.controller.changed or (app.lights.animated and ticks_diff(now_ms, app.next_frame) >= 0):
            app.controller.changed = False
            app.lights.render_check(self, now_ms)
            app.next_frame = ticks_add(now_ms, FRAME_MS)

    def look(self, scanner):
        """After a scan: True if the square has settled on something new, now in .result."""
        settled = scanner.settled[self.square]
        if scanner.moving[self.square] or settled == self.judged:
            return False
        if not scanner._read_whole(self.square * SENSORS_PER_SQUARE):  # entered after this scan:
            return False  # its ring was last read whole long ago; next scan reads it all
        self.result = verdict(self.trits(scanner), self.board.dice, self.levels(scanner), self.board.check_above,
                              self.board.strict)  # no new local in look(): see trits()
        self.judged = settled  # after the verdict: a failure there is tried again next scan
        return True

    def trits(self, scanner):
        """The square's five trits as the scanner last read them. (A separate function:
        MicroPython puts a frame of more than 11 slots on the heap at every call, and look()
        runs every scan in the mode.)"""
        return list(scanner.read_square(self.square))

    def levels(self, scanner):
        """The square's five readings as the scanner last read them, at the board file's gain
        (each board's thresholds are the file's scaled by its ADC's: calibration.scaled)."""
        board, hi = self.board, scanner.present_above
        first = self.square * SENSORS_PER_SQUARE
        return [scanner.level[board.square_channels[first + i]] * board.present_above
                // hi[board.square_channels[first + i]] for i in range(SENSORS_PER_SQUARE)]
