"""The board's application: sensors -> scanner -> controller -> lights and link, one step
at a time.

Hardware comes in through the constructor, so the same App runs on an ESP32
(doce/esp32.py), on a Linux board (doce/linux.py) and in the simulator.

A board never calibrated (no calibration.bin, or a damaged one) calibrates itself: it boots
waiting for an empty board (the controller's CLEARING, whatever its game), reads one on a
single baseline from its first read (Calibration.centre: an empty board reads empty on it by
a wide margin, make physics), and once the board has settled empty and still takes the
3 s hold's calibration (32 reads, stored) and only then starts the round. A die on the board
is never calibrated on: the board must read empty first, and `measure` refuses a sensor far
from the median or too noisy. If it refuses, one warning says why and the board keeps
waiting, trying again every SELF_CALIBRATE_RETRY_MS while it stays empty and still (a hand
over it, a faulty sensor named by square: the 3 s hold reports the same).
"""

import gc
import os

from .calibration import TABLES, Calibration, CalibrationError, measure
from .controller import MATCH_OVER, PLAYING, Controller
from .game import BLACK, WHITE, Game
from .journal import TWO_PLAYERS, Journal
from .lights import FRAME_MS, Lights
from .scanner import Scanner
from .state import who_plays
from .tables import Tables
from .ticks import ticks_add, ticks_diff

RULES_PATH = "rules.doct"
DEFAULT_RULES_PATH = "default.doct"  # the tables installed with the firmware (doce_host/image.py)
RETRY_MS = 1000  # after a failed journal write
BUTTON_HOLD_MS = 3000  # a long press of the button: recalibrate
SELF_CALIBRATE_RETRY_MS = 2000  # a board calibrating itself tries again this long after a refusal
DOUBLE_PRESS_MS = 500  # a second press within this of the first is a double press
CHOICE_MS = 4000  # before a match's first piece, a press shows who plays for this long
# Who plays, in the order the button steps through them: two players, then the board plays
# black at level 0 to 3, then white at level 0 to 3, then two players again.
CHOICES = 1 + 2 * 4
# The free heap a die's landing finds, at least. A landing does only its own work (LANDING_MS), at most
# 1.6 KB to its light in the simulator (64-bit unix port), searched over random rounds (bench/
# landing_heap.py: a round-winning die is the worst); a host's requests and a hint's thinking, 22-28 KB
# when they ran in a landing, wait. On the reference module the heap is in PSRAM (make bench), where
# 32 KB kept free costs nothing.
HEADROOM = 32 * 1024
# While a die lands the board does only the landing's own work (read, rules, lights): a host's
# requests wait in the UART's ring (docs/protocol.md: one line at a time, which fits), the network,
# the button and the opponent's or a hint's thinking wait too, for at most this long from the first
# move since rest. What they allocate has no bound a board could promise (a hint's search, a module
# loaded on first use, a burst of requests: bench/landing_heap.py); a landing's own work has one.
LANDING_MS = 250
if hasattr(gc, "threshold"):
    from .heap import free as mem_free  # the heap's own: the port's gc.mem_free() counts PSRAM in
    threshold = gc.threshold
else:  # CPython (the firmware's tests on fakes): its collector is not MicroPython's
    from .native import gc  # noqa: F811 - its collections, cheap ones there

    def threshold(amount):
        pass

    def mem_free():
        return 0


def versus_of(payload):
    """(colour, level) from the journal's V record, or None: two players. ValueError for one no
    firmware writes (its checksum proves only that it is whole)."""
    if payload is None or payload[0] == TWO_PLAYERS:
        return None
    if payload[0] > 1 or payload[1] > 3:
        raise ValueError("colour %d, level %d: out of range" % (payload[0], payload[1]))
    return payload[0], payload[1]


def begun(game):
    """Whether a match has had a piece played (a round restarted in round 1 counts as none)."""
    return bool(game.rounds) or any(game.board)


def load_rules(path=RULES_PATH):
    """The stored tables; if they are missing or will not load (stored by a firmware that checked
    less), the tables installed with the firmware, with a `warning` for the App to send."""
    try:
        with open(path, "rb") as f:
            return Tables(f.read())
    except (OSError, ValueError) as e:
        with open(DEFAULT_RULES_PATH, "rb") as f:
            tables = Tables(f.read())
        tables.warning = "%s: %s; playing the installed %s rules" % (path, e, tables.name)
        return tables


class App:
    def __init__(self, board, sensors, pixels, show, tables, emit, journal_path="journal",
                 calibration_path="calibration.bin", rules_path=RULES_PATH):
        self.board = board
        self.sensors = sensors
        self.tables = tables
        self.emit = emit
        self.link = None  # a doce.link.Link, if a host may talk to the board
        self.net = None  # a doce.net.Net, on a board with Wi-Fi set up
        self.led_power = None  # a doce.ledpower.LedPower, on a board that switches its strip's supply
        self.supply = None  # a doce.supply.Supply, on a board with a USB-C input (revision B)
        self.last_warning = None  # so a failing journal is reported once, not every scan
        self.retry_at = None  # when to try a failed journal write again
        self.rules_path = rules_path
        self.calibration_path = calibration_path
        # Boot makes much garbage (the board file parsed whole, the modules loaded, the journal
        # replayed) among what lasts (the board's tables, the app's objects): each phase's garbage is
        # collected before the next phase's lasting objects, which then fill the heap from the bottom
        # instead of lying scattered through it. Left till the heap is full, they split the free heap
        # for good: cut late in a match, a board came back with 68 KB free and no 1.4 KB in one piece,
        # and never got back on the broker (issue 41; tests/fleet/test_remote_rounds.py, the power-cut
        # campaign). doce/net.py and doce/remote.py do the same after their own phases.
        gc.collect()
        self.calibration = Calibration(board)
        note = self.calibration.load(calibration_path)
        if note:
            emit({"event": "warning", "message": note})
        self.scanner = Scanner(sensors, board, self.calibration)
        if getattr(tables, "warning", None):
            emit({"event": "warning", "message": tables.warning})
        journal = Journal(journal_path)
        game, waiting, note = journal.replay(tables)
        gc.collect()  # (a replay's garbage grows with the match: a few small objects a record)
        if game is not None:  # its objects, made among that garbage, lay above it: made again, they fill
            game = game.copy()  # the heap's lowest holes (the power-cut campaign's late boots)
        if note:
            emit({"event": "warning", "message": note})
        if game is None:  # a new match, once the board is clear
            game = Game(tables, WHITE)
            try:
                journal.new_match(WHITE, tables.checksum)
            except OSError as e:
                emit({"event": "warning", "message": "journal cannot be written (%s)" % e})
        self.held = []  # the controller's events of this scan, sent once the lights show it
        self.resting = True  # nothing moving on the board at the last scan
        self.moved_at = 0  # the tick of the first scan that read a move since the board rested
        self.landing = False  # a move read less than LANDING_MS ago and the board not at rest yet
        self.holding = False
        self.controller = Controller(game, journal, self._event, waiting)
        self.lights = Lights(pixels, show, board)
        self.next_frame = 0
        self.check = None  # the dice-check mode (doce.dice.DiceCheck), loaded when first asked for
        self.bringup = None  # the board check (doce.bringup.BringUp) while one runs: the game waits
        self.meter = None  # the chip's figures being timed (doce.meter.Meter), when a host asks
        self.free_after_boot = None  # gc.mem_free() once the board has booted (doce/esp32.py sets it)
        self.versus_level = 3  # the level of the last match against the board: the swap's choice
        self.versus = None  # a match against the board (doce.versus.Versus, loaded only then)
        self.remote = None  # a match with a friend's board (doce.remote.Remote, loaded only then)
        self.update_ready = None  # an update checked and stored: its slot, till no match is in play (doce/update.py)
        self.trial = None  # the slot's health check while it is on trial (doce/esp32.py on_trial, doce/trial.py)
        self.version = 0  # the running slot's update version (doce/esp32.py on_trial); 0: the app doce flash installed
        self.later = None  # the network or a friend's match, out of heap at boot: tried again at rest (doce/offline.py)
        try:
            chosen = versus_of(journal.versus)  # chosen before a power cut
        except ValueError as e:  # the game itself is in the journal: only the opponent is lost
            chosen = None
            emit({"event": "warning", "message": "journal: who plays: %s; two players" % e})
        if chosen:
            self.play_against(chosen[0], chosen[1], remember=False)
        self.checking = False  # in the dice check: the game waits
        self.choice_until = None  # while who plays is on show (a press before a match's first piece)
        self.pressed_at = None  # when the button went down
        self.long_press = False  # the press being held has already acted
        self.released_at = None  # a short press, waiting to see whether a second follows
        self.calibrate_at = None  # never calibrated and the board settled empty: when to calibrate on it
        self.calibration_warned = False  # a refused self-calibration is reported once
        if not self.calibration.measured:  # never calibrated: this chip's baseline, from a first read,
            # only to see the board empty (last, so its passing lists leave no holes between the
            # app's lasting objects)
            note = self.calibration.centre(sensors.read(board.all_groups))
            if note:
                emit({"event": "warning", "message": note})
            self.controller.await_calibration()
        gc.collect()
        emit({"event": "boot", "round": self.controller.game.round, "mode": self.controller.mode})

    def _event(self, event):
        if self.holding:
            self.held.append(event)
        else:
            self.emit(event() if callable(event) else event)

    def quiet(self):
        """Whether nothing is moving on the board: the loop may sleep between scans."""
        return not (self.scanner.wanted or self.scanner.pending)

    def in_play(self):
        """A match from its first piece to its end: new rules, an update and a trial's deadline wait for it."""
        g = self.controller.game
        return not g.match_over and bool(g.rounds or any(g.board))

    def clear(self):
        """No piece on the board and none moving over it: no one is at the board to play. An update's flash
        erases wait for it (doce/link.py): a 4 KB sector erase holds both cores 45 ms typical, 400 ms at most
        (host/doce_host/sim/device/flash.py), and the ESP32 cannot suspend it to run a scan (ESP-IDF
        components/soc/esp32/include/soc/soc_caps.h has no SOC_SPI_MEM_SUPPORT_AUTO_SUSPEND: its caches are
        off for the whole erase), so a piece landing in one waits for its light until the erase ends."""
        return self.quiet() and not any(self.controller.physical)

    def at_the_board(self):
        """A match in play or a piece on the board: an update's flash steps wait (doce/link.py), and a trial's
        deadline (firmware/slots.py busy)."""
        return self.in_play() or not self.clear()

    def step(self, now_ms):
        """One scan, and whatever it leads to. Allocates nothing while the board is idle."""
        if self.bringup is not None:
            return self.bringup.step(now_ms)
        if self.meter is not None:
            self.meter.scan()
        c = self.controller
        if self.checking:  # its square read whole every scan: a die missing its centre magnet shows too
            self.scanner.want(self.check.square)
        settled = self.scanner.scan()
        if self.resting and not self.quiet():  # a die moved: no collection until the board rests again
            # -1 turns off only the threshold's early collection: an allocation that finds no room
            # still collects first (MicroPython v1.28.0 py/gc.c gc_alloc; py/modgc.c), so a die held
            # hovering while traffic arrives costs a collection at worst, never a MemoryError
            threshold(-1)
            self.moved_at = now_ms
            if self.meter is not None:
                self.meter.moved()
        # (settled: the scan that hands the move on, the board quiet from here, lights it below)
        self.landing = (settled or not self.quiet()) and ticks_diff(now_ms, self.moved_at) < LANDING_MS
        # The host's and the network's work after the read: a collection their allocations start at
        # rest (gc.threshold, below) then falls after a scan's read, never between a die's landing and
        # the read that sees it. While a die lands only what waits to go out moves (LANDING_MS).
        if self.link and self.landing:  # now_ms: to pace what it sends at the line's speed
            self.link.flush(now_ms)
        elif self.link:
            self.link.poll(now_ms)
        if self.net and not self.landing:
            self.net.poll(now_ms)  # a little of the network's work; it never waits
        if settled and not self.checking:  # in the dice check, the game does not see the board
            if self.meter is not None:
                self.meter.settled()
            self._settled(now_ms)
        elif c.again and not self.checking:  # a turn's die, put down with its blocker (Controller._turn)
            c.again = False
            self._settled(now_ms)
        if self.checking:
            self.check.step(now_ms)
        else:
            if not self.landing:  # the thinking waits for the landing's light
                self._think(c)
            self._render(now_ms)
        if self.calibrate_at is not None and self.quiet() and ticks_diff(now_ms, self.calibrate_at) >= 0:
            self._calibrate_self(now_ms)
        if c.unwritten and (self.retry_at is None or ticks_diff(now_ms, self.retry_at) >= 0):
            note = c.commit()  # after the lights: a play shows before it is written
            self.retry_at = None  # a stale tick would read as the future half the time
            if note:
                self.retry_at = ticks_add(now_ms, RETRY_MS)
                if note != self.last_warning:
                    self.emit({"event": "warning", "message": note})
            self.last_warning = note
        if self.update_ready is not None and self.clear() and not self.in_play():  # (clear: no one at the board)
            self._apply_update()
        if self.link and self.link.reboot_due(now_ms):
            self._restart()
        # Come to rest (a move shown, its events sent and written): collect now. A collection
        # sweeps the whole heap (a few ms, make bench): none may fall in a die's path to its light.
        # At rest the board's own scans allocate nothing, but a host's commands and the network
        # do: the threshold collects at rest, as soon as the free heap falls to HEADROOM, so a
        # landing starts with at least that much free, and none collects in it (threshold off).
        resting = self.quiet()
        if self.later is not None and resting and self.resting:
            self.later.step(now_ms)
        if resting and not self.resting:
            if self.meter is not None:
                self.meter.collect()  # timed: the chip's own figure (doce bench --port)
            else:
                gc.collect()
            threshold(max(mem_free() - HEADROOM, HEADROOM))
        self.resting = resting

    # Its own function: the import's local would take step()'s frame past what MicroPython keeps on the C
    # stack, putting it on the heap at every scan (tests/board/test_versus_board.py, idle allocation).
    def _apply_update(self):
        """An update checked and stored (doce/update.py), no match in play and the board clear (no restart under a
        player's hands): booted on trial from the next boot
        (firmware/slots.py, in memory since the boot). doce/update.py is not loaded again for this: its
        8 KB of .mpy need more heap than a board on the broker may have by then (it ran out)."""
        import slots
        slots.switch(self.update_ready)
        os.remove("update.json")  # doce/update.py STATE: done with
        self.update_ready = None
        self.link.reboot_asked = True  # once what waits to go out has gone (Link.reboot_due)

    def _restart(self):
        """A reset the app asks for (a reboot command, an update switched to): on trial, not the slot's crash."""
        if self.trial is not None:
            self.trial.restarting()
        self.link.reboot()

    # Its own function: a try block's slots would push step()'s frame onto the heap
    # at every scan (MicroPython keeps frames of up to 11 slots on the C stack).
    def _settled(self, now_ms):
        """The board settled: act on it, show it, and only then send its events (a few
        ms of JSON and UART that the players need not wait for)."""
        self.holding = True
        if self.choice_until is not None:  # a piece moved: back to the game's lights at once
            self.choice_until = None
            self.controller.changed = True
        try:
            self.controller.reconcile(self.scanner.settled)
            self._render(now_ms)
        finally:
            self.holding = False
            self._send_held()
        if self.controller.uncalibrated:
            self.calibrate_at = None if any(self.scanner.settled) else now_ms
            self.calibration_warned = False  # the board changed: a new refusal is news

    def _calibrate_self(self, now_ms):
        """Calibrate on the empty, still board the first time there is one (see the top)."""
        error = self.calibrate(announce=True)
        if error is None:
            self.calibrate_at = None
            return
        self.calibrate_at = ticks_add(now_ms, SELF_CALIBRATE_RETRY_MS)
        if not self.calibration_warned:
            self.calibration_warned = True
            self.emit({"event": "warning", "message": "the board calibrates its sensors on an empty board before "
                       "its first round, and could not: %s. It waits, and tries again while the board is "
                       "empty and still" % error})

    def _render(self, now_ms):
        c = self.controller
        if self.choice_until is not None:
            if ticks_diff(now_ms, self.choice_until) < 0:
                if c.changed:
                    c.changed = False
                    self.lights.render_choice(self.versus)
                return
            self.choice_until = None
            c.changed = True
        if c.changed or (self.lights.animated and ticks_diff(now_ms, self.next_frame) >= 0):
            c.changed = False
            self.lights.render(c, now_ms)
            self.next_frame = ticks_add(now_ms, FRAME_MS)

    def show_lights(self):
        """Draw the lights as they stand and send them now, not at the next scan (doce/net.py's Net:
        the strip is within the Wi-Fi budget before doce/wifi.py starts the radio)."""
        now = self.next_frame  # the last frame's tick: only where a blink or pulse is depends on it
        self.controller.changed = False
        if self.checking:
            self.lights.render_check(self.check, now)
        elif self.choice_until is not None:
            self.lights.render_choice(self.versus)
        else:
            self.lights.render(self.controller, now)

    def _send_held(self):
        held = self.held
        while held:  # in order; each leaves the queue before it is sent, so none goes twice
            event = held.pop(0)
            self.emit(event() if callable(event) else event)

    # -- the dice check (doce/dice.py, loaded on first use: the game's RAM does not carry it) -----

    def dice_check(self, on):
        """Enter the dice check, or leave it (see DiceCheck.turn). None, or why it cannot start."""
        if self.check is None:
            from .dice import DiceCheck
            self.check = DiceCheck(self)
        self.choice_until = None  # who plays gives way to the dice check's lights
        return self.check.turn(on)

    # -- the button --------------------------------------------------------------------------------

    def button(self, down, now_ms):
        """The board's button, sampled once a scan (`down` while pressed).
          held 3 s        recalibrate (the board must be empty)
          a short press   after a match, the next match, same players; in the dice check, back
                          to the game; before a match's first piece, show who plays
                          (docs/opponent.md), and while that shows, each press moves the choice
                          on at once; once the match has begun, a hint for the player to move
          a double press  after a match, the next match, swapping between a match against the
                          board (it plays the colour that does not open) and one for two players;
                          otherwise on an empty board, the dice check; in it, back to the game
        A short press acts once no second press has followed within DOUBLE_PRESS_MS. While a die
        lands (LANDING_MS) the button is read at the next scan: it is sampled, so nothing is lost."""
        if self.bringup is not None:
            return self.bringup.button(down)
        if self.landing:
            return
        if down:
            if self.pressed_at is None:
                self.pressed_at, self.long_press = now_ms, False
            elif not self.long_press and ticks_diff(now_ms, self.pressed_at) >= BUTTON_HOLD_MS:
                self.long_press = True
                self.released_at = None
                error = self.calibrate(announce=True)
                if error:
                    self.emit({"event": "calibrated", "error": error})
        elif self.pressed_at is not None:  # released
            self.pressed_at = None
            if self.long_press:
                return
            if (self.choice_until is not None and not self.checking and ticks_diff(now_ms, self.choice_until) < 0
                    and not self.paused()):
                self.released_at = None  # no double press here: quick presses step quickly
                self._choose(now_ms, True)
            elif self.released_at is None:
                self.released_at = now_ms
            else:
                self.released_at = None
                self._pressed(True, now_ms)
        elif self.released_at is not None and ticks_diff(now_ms, self.released_at) >= DOUBLE_PRESS_MS:
            self.released_at = None
            self._pressed(False, now_ms)

    def paused(self):
        """Why who plays and the match must stay as they are (doce/offline.py's Away), or None."""
        return getattr(self.controller.versus, "paused", None)  # (Away's: out of memory, or a fault)

    def _pressed(self, twice, now_ms):
        c = self.controller
        paused = self.paused()
        if self.checking:
            self.dice_check(False)
        elif paused and (c.mode == MATCH_OVER or not twice and not begun(c.game)):
            self.emit({"event": "warning", "message": paused})
        elif c.mode == MATCH_OVER:
            first = 1 - c.game.first  # the other player opens the next match
            if twice:  # against the board if this one was for two, and the other way round
                self.play_against(None if self.versus else 1 - first, self.versus_level, remember=False)
            c.new_match(first)  # who plays is written with it
            if twice:
                self.emit({"event": "versus", "versus": who_plays(self.versus)})
        elif not twice:
            if not begun(c.game):
                self._choose(now_ms, False)
            elif c.mode == PLAYING:
                self.ask_hint()
        elif any(self.scanner.settled):
            self.emit({"event": "warning", "message": "the dice check starts on an empty board"})
        else:
            error = self.dice_check(True)
            if error:
                self.emit({"event": "warning", "message": error})

    def _choose(self, now_ms, step):
        """Show who plays for CHOICE_MS; `step`: the next choice first (CHOICES), told to hosts."""
        if step:
            v = self.versus
            i = 0 if v is None else 1 + v.level + (4 if v.colour == WHITE else 0)
            i = (i + 1) % CHOICES
            if i == 0:
                self.play_against(None)
            else:
                self.play_against(BLACK if i <= 4 else WHITE, (i - 1) % 4)
            self.emit({"event": "versus", "versus": who_plays(self.versus)})
        self.choice_until = ticks_add(now_ms, CHOICE_MS)
        self.controller.changed = True

    def ask_hint(self):
        """The strongest move for the player to move, thought in slices between scans and shown
        in light; not on the board's own turn (its move shows), nor once the round is over."""
        c = self.controller
        g = c.game
        if g.round_over or (c.versus and g.to_move == c.versus.colour) or c.hint is not None:
            return  # (a hint already thinking or shown is for this very position)
        from .versus import Hint
        c.hint = Hint(self.tables, g.to_move)
        c.changed = True

    def _think(self, c):
        """A slice of the opponent's or a hint's thinking, between scans; hints answered once chosen."""
        if self.versus and self.versus.step(c.game):
            c.changed = True
        h = c.hint
        if h is not None:
            if h.step(c.game):
                c.changed = True
            if h.over:
                c.hint = None
        if self.link and self.link.hints:
            self.link.answer_hints()

    def play_against(self, colour=None, level=3, remember=True):
        """From now on the board plays `colour` (WHITE or BLACK) at `level`; None: two players.
        remember: journaled now (the button's choice); else with the new match that follows.
        A match with a friend's board ends here: who plays changed on this one."""
        if self.remote:
            self.remote.end()
        self.versus = None
        if colour is not None:
            from .versus import Versus
            self.versus_level = level
            self.versus = Versus(self.tables, colour, level)
        c = self.controller
        c.versus = self.versus
        c.changed = True
        if remember:  # in order with the plays, retried as they are if the flash fails
            c.unwritten.append((c.journal.opponent, (None if colour is None else (colour, level),)))

    def set_brightness(self, value):
        self.lights.set_brightness(value)
        self.controller.changed = True

    def set_rules(self, blob, force=False):
        """Play by new rule tables from the next match on. None, or (code, message) and
        the old rules stay. Mid-round only with `force`, which abandons the match."""
        paused = self.paused()
        if paused:
            return "remote", paused
        try:
            tables = Tables(blob)
        except ValueError as e:
            return "bad_tables", str(e)
        if tables.grid != self.board.grid:
            return "wrong_grid", "rules for a %dx%d grid; this board is %dx%d" % (
                tables.grid, tables.grid, self.board.grid, self.board.grid)
        g = self.controller.game
        if not force and self.in_play():
            return "mid_round", "a match is in play (round %d of %d): finish it, or force the change" % (
                g.round, g.tables.rounds)
        try:
            with open(self.rules_path + ".new", "wb") as f:
                f.write(tables.blob)
            os.rename(self.rules_path + ".new", self.rules_path)
        except OSError as e:
            return "storage", "could not store the rules (%s); the old rules stay" % e
        self.tables = tables
        self.controller.new_match(WHITE, tables)
        if self.versus:  # it plays by the new rules
            self.play_against(self.versus.colour, self.versus.level)
        return None

    def calibrate(self, scans=32, announce=False):
        """Measure an empty board and keep the result. Returns an error message or None.
        A board waiting for its first calibration then goes on (its round starts); announce:
        the `calibrated` event goes first."""
        try:
            cal = measure(self.sensors, self.board, scans)
        except CalibrationError as e:
            return str(e)
        cal.save(self.calibration_path)
        for name in TABLES:
            getattr(self.calibration, name)[:] = getattr(cal, name)
        self.calibration.opposite[:] = cal.opposite
        self.calibration.measured = True
        if announce:
            self.emit({"event": "calibrated", "error": None})
        self.controller.calibrated()
        return None
