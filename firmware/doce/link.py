"""The link to a host over the USB serial port: one JSON object per line, each way.

docs/protocol.md is the reference, with an example of every message. In short:
  host -> board   {"cmd": "state", "id": 7}
  board -> host   {"re": "state", "id": 7, "ok": true, ...}   a reply, one per request
                  {"event": "placed", "seq": 12, ...}         an event, numbered
Bad input never changes the game: it gets {"ok": false, "error": CODE, "message": ...}.
Ctrl-C is never caught here, so it still stops the app and leaves the REPL to mpremote.
"""

import binascii
import json

from .board import UNSETTLED, piece_name
from .game import PLAYER_NAMES, square_name
from .referee import round_event

PROTOCOL = 1
FIRMWARE = "0.1.0"
MAX_LINE = 1024  # a rules chunk of 512 bytes is 684 characters of base64
MAX_RULES = 4096
BYTES_PER_STEP = 256  # so a flood of input cannot stall the scan loop


class BadArgument(ValueError):
    pass


class Link:
    def __init__(self, app, stream, out, poller, reboot):
        self.app = app
        self.stream = stream  # readinto() for bytes from the host
        self.out = out  # write(str) towards the host
        self.poller = poller  # select.poll() registered for `stream`
        self.reboot = reboot
        self.buf = bytearray(MAX_LINE)
        self.one = bytearray(1)
        self.n = 0
        self.overflow = False
        self.seq = 0
        self.transfer = None  # a rules transfer in progress: [bytearray, received, checksum]
        self.reboot_pending = False

    # -- bytes in -------------------------------------------------------------------

    def poll(self):
        """Take whatever the host has sent. Allocates nothing when it has sent nothing."""
        for _ in range(BYTES_PER_STEP):
            if not self._readable() or not self.stream.readinto(self.one):
                return
            self._byte(self.one[0])

    def _readable(self):
        for _ in self.poller.ipoll(0):
            return True
        return False

    def _byte(self, b):
        if b == 3:  # Ctrl-C: the ESP32's UART driver acts before we see it; elsewhere, we do
            raise KeyboardInterrupt
        if b == 10:  # end of line
            line = bytes(self.buf[:self.n]) if self.n and not self.overflow else None
            overflow = self.overflow
            self.n = 0  # before handling: whatever happens there, the next line starts clean
            self.overflow = False
            if overflow:
                self.reply(None, None, error="line_too_long", message="a line is at most %d bytes" % MAX_LINE)
            elif line:
                self.handle(line)
        elif b == 13:
            pass
        elif self.n < MAX_LINE:
            self.buf[self.n] = b
            self.n += 1
        else:
            self.overflow = True

    # -- messages out -----------------------------------------------------------------

    def send(self, message):
        self.out.write(json.dumps(message))
        self.out.write("\n")

    def event(self, event):
        self.seq += 1
        event["seq"] = self.seq
        self.send(event)

    def reply(self, cmd, ident, error=None, message=None, **fields):
        fields["re"] = cmd
        if ident is not None:
            fields["id"] = ident
        fields["ok"] = error is None
        if error:
            fields["error"] = error
            fields["message"] = message
        self.send(fields)

    # -- requests ---------------------------------------------------------------------

    def handle(self, line):
        try:
            request = json.loads(line)
        except ValueError:  # also bytes that are not UTF-8
            return self.reply(None, None, error="bad_json", message="not a JSON object")
        if not isinstance(request, dict) or not isinstance(request.get("cmd"), str):
            return self.reply(None, None, error="bad_request", message='a request is {"cmd": NAME, ...}')
        cmd = request["cmd"]
        ident = request.get("id")
        if isinstance(ident, bool) or not isinstance(ident, (int, float, str)):
            ident = None  # a number or a string, echoed; anything else is not an id
        command = COMMANDS.get(cmd)
        if command is None:
            return self.reply(cmd, ident, error="unknown_command",
                              message="commands: " + ", ".join(sorted(COMMANDS)))
        try:
            result = command(self, request)
        except BadArgument as e:
            return self.reply(cmd, ident, error="bad_argument", message=str(e))
        except CommandError as e:
            return self.reply(cmd, ident, error=e.args[0], message=e.args[1])
        except Exception as e:  # a fault (say, flash that will not write): still one reply
            return self.reply(cmd, ident, error="failed", message="%s: %s" % (type(e).__name__, e))
        self.reply(cmd, ident, **(result or {}))

    def hello(self, request):
        app = self.app
        return {"protocol": PROTOCOL, "firmware": FIRMWARE, "board": app.board.name,
                "rules": app.tables.name, "rules_checksum": "%08x" % app.tables.checksum}

    def state(self, request):
        return {"state": snapshot(self.app), "seq": self.seq}

    def new_match(self, request):
        first = player_argument(request, "first", 1 - self.app.controller.game.first)
        self.app.controller.new_match(first)

    def new_round(self, request):
        if not self.app.controller.restart_round():
            raise CommandError("no_round", "there is no round in play to restart")

    def brightness(self, request):
        value = request.get("value")
        if not isinstance(value, (int, float)) or isinstance(value, bool) or not 0 <= value <= 1:
            raise BadArgument("value is a number from 0 to 1")
        self.app.set_brightness(value)

    def calibrate(self, request):
        error = self.app.calibrate()
        if error:
            raise CommandError("calibration_failed", error)

    def dice_check(self, request):
        """{"on": true}: the dice check (the game waits); {"on": false}: back to the game."""
        on = request.get("on")
        if not isinstance(on, bool):
            raise BadArgument("on is true (start the dice check) or false (back to the game)")
        error = self.app.dice_check(on)
        if error:
            raise CommandError("not_free", error)
        check = self.app.check
        return {"on": check.on, "leaving": check.leaving, "cell": square_name(self.app.tables, check.square),
                "pieces": list(self.app.board.dice.values())}

    def reboot_command(self, request):
        self.reboot_pending = True  # after this reply has gone out

    def rules_get(self, request):
        return {"tables": binascii.b2a_base64(self.app.tables.blob).decode().strip()}

    def rules_begin(self, request):
        size = request.get("size")
        checksum = request.get("checksum")
        if not isinstance(size, int) or isinstance(size, bool) or not 0 < size <= MAX_RULES:
            raise BadArgument("size is the tables' length in bytes, 1 to %d" % MAX_RULES)
        if (not isinstance(checksum, str) or len(checksum) != 8
                or any(c not in "0123456789abcdefABCDEF" for c in checksum)):
            raise BadArgument("checksum is the tables' CRC-32 as 8 hex digits")
        crc = int(checksum, 16)
        self.transfer = [bytearray(size), 0, crc]

    def rules_chunk(self, request):
        if self.transfer is None:
            raise CommandError("no_transfer", "send rules_begin first")
        data = request.get("data")
        offset = request.get("offset")
        blob, received, _ = self.transfer
        if offset != received:
            raise BadArgument("offset must be %d, the bytes received so far" % received)
        try:
            chunk = binascii.a2b_base64(data)
        except (TypeError, ValueError):
            raise BadArgument("data is base64")
        if received + len(chunk) > len(blob):
            raise BadArgument("more bytes than rules_begin announced")
        blob[received:received + len(chunk)] = chunk
        self.transfer[1] = received + len(chunk)
        return {"received": self.transfer[1]}

    def rules_commit(self, request):
        if self.transfer is None:
            raise CommandError("no_transfer", "send rules_begin first")
        blob, received, crc = self.transfer
        self.transfer = None  # whatever happens next, this transfer is over
        if received != len(blob):
            raise CommandError("incomplete", "received %d of %d bytes" % (received, len(blob)))
        if binascii.crc32(blob) & 0xFFFFFFFF != crc:
            raise CommandError("checksum_mismatch", "the tables arrived damaged; the old rules stay")
        error = self.app.set_rules(bytes(blob), force=request.get("force") is True)
        if error:
            raise CommandError(error[0], error[1])
        return self.hello(request)

    def rules_abort(self, request):
        self.transfer = None


class CommandError(Exception):
    """(code, message): a well-formed request the board cannot carry out now."""


def player_argument(request, key, default):
    value = request.get(key)
    if value is None:
        return default
    if value not in ("white", "black"):
        raise BadArgument('%s is "white" or "black"' % key)
    return PLAYER_NAMES.index(value)


def snapshot(app):
    """Everything a host needs to draw the game, as plain JSON values."""
    c = app.controller
    state = game_state(c.game)
    state["mode"] = c.mode
    state["problems"] = {square_name(c.game.tables, sq): p for sq, p in enumerate(c.problems) if p}
    state["seen"] = seen(c)
    state["leds"] = binascii.hexlify(app.lights.colours()).decode()
    state["animated"] = app.lights.animated
    state["brightness"] = app.lights.brightness
    return state


def seen(c):
    """What the sensors read where it differs from the game: a piece, None, or "unreadable"."""
    if not c.looked:
        return {}  # just booted: the sensors have not settled yet, so nothing is known to differ
    board = c.game.board
    t = c.game.tables
    return {square_name(t, sq): "unreadable" if got == UNSETTLED else piece_name(got)
            for sq, got in enumerate(c.physical) if got != board[sq]}


def game_state(g):
    """The game itself as plain JSON values (no board around it: snapshot adds that)."""
    t = g.tables
    names = PLAYER_NAMES[:2]
    state = {
        "round": g.round, "rounds": t.rounds, "first": names[g.first],
        "to_move": names[g.to_move], "blocker_this_turn": g.blocker_this_turn,
        "board": {square_name(t, sq): piece_name(cell) for sq, cell in enumerate(g.board) if cell},
        "zones": {names[p]: [square_name(t, sq) for sq in g.no_play_zone(p)] for p in (0, 1)},
        "last": {names[p]: square_name(t, g.last_placed[p]) if g.last_placed[p] < t.squares else None
                 for p in (0, 1)},
        "dice_left": {names[p]: g.dice_left[p] for p in (0, 1)},
        "blockers_left": {names[p]: g.blockers_left[p] for p in (0, 1)},
        "scores": [{"white": r.points[0], "black": r.points[1]} for r in g.rounds],
        "rules": t.name, "rules_checksum": "%08x" % t.checksum,
    }
    w, b = g.totals()
    state["totals"] = {"white": w, "black": b}
    if g.round_over and g.rounds:  # until the board is cleared: the line stays to be seen
        state["round_end"] = round_event(g, g.rounds[-1])
    if g.match_over:
        state["winner"] = PLAYER_NAMES[g.winner()]
    return state


COMMANDS = {
    "hello": Link.hello, "state": Link.state, "new_match": Link.new_match, "new_round": Link.new_round,
    "brightness": Link.brightness, "calibrate": Link.calibrate, "reboot": Link.reboot_command,
    "dice_check": Link.dice_check,
    "rules_get": Link.rules_get, "rules_begin": Link.rules_begin, "rules_chunk": Link.rules_chunk,
    "rules_commit": Link.rules_commit, "rules_abort": Link.rules_abort,
}
