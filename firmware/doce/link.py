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

from .arguments import LATER, BadArgument, CommandError, base64_chunk, player_argument
from .squares import square_name
from .state import move_names, snapshot, who_plays
from .ticks import ticks_diff

PROTOCOL = 2  # 2: lines of at most MAX_LINE bytes, strict framing
FIRMWARE_VERSION = "0.1.0"
# The ESP32 port keeps what the host sends in a 260-byte ring buffer and drops what does not
# fit (ports/esp32/mphalport.c, uart.c), whatever the firmware is busy with. The host sends one
# line and waits for its reply, so the ring never holds more than one line: one line at most
# MAX_LINE bytes, and its newline, fits with room to spare for a stray byte or two.
MAX_LINE = 200
MAX_DEPTH = 4  # nesting a request may have: deeper is refused before the parser tries it
MAX_RULES = 4096
BYTES_PER_STEP = 256  # so a flood of input cannot stall the scan loop
# Output goes out at the baud rate through the UART's 128-byte transmit FIFO; a write that
# overfills it holds the loop in 10 ms ticks (ports/esp32/uart.c). So the link writes no more
# than it estimates the FIFO has room for, a part of a long reply per step, never waiting.
TX_FIFO = 128  # ESP32 TRM, UART: a 128-byte TX FIFO
BYTES_PER_S = 11520  # 115200 baud (ports/esp32/uart.h), 8N1: ten bits a byte
# What waits to go out is kept in one buffer, allocated at boot: a burst of requests costs the
# heap nothing more than one reply's text at a time (a list of reply strings, each a run of heap
# of its own, grew with the burst). The longest message (rules_get, 5.5 KB) fits.
TX_BUFFER = 8192
IN_A_MATCH = "in a match: an update waits for its end"  # update commands' busy (doce_host/fleet/update.py)
# ... and with a piece on the board or moving over it, no match in play yet (a player setting up) or any more (the
# last one's pieces not yet cleared): the same start, so a host waits as for a match (doce_host/fleet/update.py)
AT_THE_BOARD = "in a match or about to be (a piece on the board): an update waits for it to be clear"
TX_BACKLOG = 1024  # while more waits to go out, a second request is refused with busy, not carried out
# The board reads the host's bytes while the buffer keeps this much free: the refusal of the line
# being read (its command and id, at most a line, echoed) and a scan's events (a play, its
# round_end and match_end). Past it the bytes wait in the UART's ring, and what the ring cannot
# hold is lost: only a host that goes on sending after a burst's refusals gets there.
REFUSAL_ROOM = 384
EVENT_ROOM = 512
READ_ROOM = REFUSAL_ROOM + EVENT_ROOM
NEWLINE = b"\n"
# A command carried out whose reply does not fit the heap (a split heap has no block its text needs) is answered
# so, no_room, in a short reply of some 200 bytes. With no reply at all a host says the board did not answer,
# and is asked again: a second new match, a second pairing. (A reply made in pieces, needing no block at all,
# cost 0.3 KB more bytecode, which every board loads: a remote match's heap had less than that to spare.)
UNSAID = "carried out, but its reply did not fit the board's memory: do not send it again; ask state or remote"
MAX_HINTS = 4  # hint requests waiting for the answer at once
# A restart the app asked for (a reboot, an update switched to) waits for its reply to leave: the USB backlog, and
# on a board with a broker its MQTT pipe (doce/mqtt.py Pipe.out), whose bytes an ESP32's restart would lose with the
# Wi-Fi. A broker that takes nothing (gone, its TCP window shut) holds the pipe: the restart waits at most this
# long, the time doce fleet update waits for a reply (--timeout, 10 s); a reply later than that is of no use to it,
# which reads the new boot's status instead (doce_host/fleet/update.py Transfer.runs_it).
REBOOT_WAIT_MS = 10000


def as_bytes(text):
    """A str's bytes without a copy on MicroPython (its str has the buffer protocol)."""
    try:
        return memoryview(text)
    except TypeError:  # CPython
        return text.encode()


class Link:
    def __init__(self, app, stream, out, poller, reboot):
        self.app = app
        self.stream = stream  # readinto() for bytes from the host
        self.out = out  # write(bytes) towards the host
        self.poller = poller  # select.poll() registered for `stream`
        self.reboot = reboot
        self.buf = bytearray(MAX_LINE)
        self.one = bytearray(1)
        self.n = 0
        self.overflow = False
        self.seq = 0
        self.transfer = None  # a rules transfer in progress: [bytearray, received, checksum]
        self.reboot_asked = False
        self.reboot_held = None  # the tick the restart was first held for the broker's pipe (reboot_due)
        self.tx = bytearray(TX_BUFFER)  # a ring: bytes waiting to go out, from tx[head], backlog of them
        self.txv = memoryview(self.tx)
        self.head = 0
        self.backlog = 0
        self.fifo = 0  # bytes we reckon are still in the transmit FIFO
        self.fifo_at = None  # when we last reckoned
        # While more than TX_BACKLOG waits to go out, one request is carried out: the bytes still to
        # write before its reply is out. A request that comes before then is a burst's.
        self.behind = 0
        self.net = None  # doce.net.Net on a board with Wi-Fi: it sends the events to the broker too
        self.network = None  # wifi, mqtt and net go to it: (link, request) -> result
        self.to = None  # where replies go instead of the USB port (net: a command that came by MQTT)
        self.hints = []  # (id, where the reply goes) of each hint asked and not yet answered
        self.update = None  # an update of the app being received (doce/update.py, loaded only then)

    def reboot_due(self, now_ms):
        """A restart asked for, and its reply gone out (REBOOT_WAIT_MS): the USB backlog written, the broker's
        pipe handed to the socket or held REBOOT_WAIT_MS. Allocates nothing."""
        if not self.reboot_asked or self.backlog:
            return False
        net = self.net
        if net is None or not net.pipe.out:
            return True
        if self.reboot_held is None:
            self.reboot_held = now_ms
        return ticks_diff(now_ms, self.reboot_held) >= REBOOT_WAIT_MS

    # -- bytes in -------------------------------------------------------------------

    def poll(self, now_ms=None):
        """Send a part of what waits to go out, take whatever the host has sent. Allocates
        nothing when there is nothing to send or take."""
        self.flush(now_ms)
        if self.update is not None:
            if self.app is not None and self.app.in_play():
                self.pause_update()
            elif self.update.asker is not None:
                if self.clear():
                    self.update.scan()  # a part of an update's emptying or read-back (doce/update.py), the board clear
            elif now_ms is not None and self.update.stale(now_ms) and self.clear():  # its host gone; its file's
                self.pause_update()  # close is a flash write: it waits for a clear board as the others do
        for _ in range(BYTES_PER_STEP):
            if TX_BUFFER - self.backlog < READ_ROOM:
                return  # the bytes wait in the ring until replies have gone out
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
        if b == 10 or b == 13:  # end of line: LF, CR LF (its LF then ends an empty line: none) or CR alone
            n = self.n
            overflow = self.overflow
            self.n = 0  # before handling: whatever happens there, the next line starts clean
            self.overflow = False
            if overflow:
                self.reply(None, None, error="line_too_long", message="a line is at most %d bytes" % MAX_LINE)
            elif n:
                self.handle(self.buf, n)
                if self.behind < 0:
                    self.behind = self.backlog
        elif self.n < MAX_LINE:
            self.buf[self.n] = b
            self.n += 1
        else:
            self.overflow = True

    # -- messages out -----------------------------------------------------------------

    def send(self, message):
        data = as_bytes(json.dumps(message))
        self._put(data)
        self._put(NEWLINE)

    def _put(self, data):
        """data into the ring. One that does not fit (events after a flood's refusals: never
        dropped) has the oldest bytes written out first, waiting for the FIFO."""
        n = len(data)
        if n > TX_BUFFER:  # never, by the sizes above; still whole, in order
            self.flush_all()
            self.out.write(data)
            return
        while TX_BUFFER - self.backlog < n:
            self._write(self.backlog)
        end = self.head + self.backlog
        end = end - TX_BUFFER if end >= TX_BUFFER else end
        first = TX_BUFFER - end
        if first >= n:
            self.tx[end:end + n] = data
        else:
            self.tx[end:] = data[:first]
            self.tx[:n - first] = data[first:]
        self.backlog += n

    def flush(self, now_ms=None):
        """Write what the transmit FIFO has room for, by our reckoning of how much of what we
        wrote before has gone out since (all of it, at most a FIFO's worth, without a clock)."""
        if not self.backlog:
            return
        if now_ms is None or self.fifo_at is None:
            self.fifo = 0
        else:
            self.fifo = max(0, self.fifo - ticks_diff(now_ms, self.fifo_at) * BYTES_PER_S // 1000)
        self.fifo_at = now_ms
        room = TX_FIFO - self.fifo
        if room > 0:
            self._write(min(room, self.backlog))

    def _write(self, n):
        """The oldest n waiting bytes out (in two writes where the ring wraps)."""
        while n > 0:
            k = min(n, TX_BUFFER - self.head)
            self.out.write(self.txv[self.head:self.head + k])
            self.head = self.head + k if self.head + k < TX_BUFFER else 0
            self.backlog -= k
            if self.behind > 0:
                self.behind = self.behind - k if self.behind > k else 0
            self.fifo += k
            n -= k
        if not self.backlog:
            self.head = 0

    def flush_all(self):
        """Write everything waiting (the harness, between its commands; never the loop)."""
        self._write(self.backlog)

    def event(self, event):
        self.seq += 1
        event["seq"] = self.seq
        if self.net:
            self.net.event(event)
        self.send(event)

    def reply(self, cmd, ident, error=None, message=None, **fields):
        fields["re"] = cmd
        if ident is not None:
            fields["id"] = ident
        fields["ok"] = error is None
        if error:
            fields["error"] = error
            fields["message"] = message
        (self.to or self.send)(fields)

    # -- requests ---------------------------------------------------------------------

    @staticmethod
    def parse(buf, n):
        """The one JSON object in buf[:n], framed strictly (members_of), or None. Also for what
        comes from a friend's board (doce/remote.py)."""
        members = members_of(buf, n)
        request = None
        if members >= 0:
            try:
                request = json.loads(bytes(buf[:n]))
            except (ValueError, MemoryError):  # also bytes that are not UTF-8
                pass
        if not isinstance(request, dict) or members_in(request) != members:  # a key twice, at any depth
            return None
        return request

    def handle(self, buf, n):
        request = self.parse(buf, n)
        if request is None:
            return self.reply(None, None, error="bad_json", message="not one JSON object")
        if not isinstance(request.get("cmd"), str):
            return self.reply(None, None, error="bad_request", message='a request is {"cmd": NAME, ...}')
        cmd = request["cmd"]
        ident = request.get("id")
        if ident is not None and not is_id(ident):  # echoed in the reply, which must stay JSON: refused, not echoed
            return self.reply(cmd, None, error="bad_argument", message="id is a finite number or a string")
        if self.to is None and self.backlog > TX_BACKLOG:
            if self.behind:  # a burst: changes nothing, ask again
                return self.reply(cmd, ident, error="busy", message="wait for the replies, then ask again")
            self.behind = -1  # carried out: a host that waits for each reply is never refused
        command = COMMANDS.get(cmd)
        if command is None:
            return self.reply(cmd, ident, error="unknown_command",
                              message="commands: " + ", ".join(sorted(COMMANDS)))
        command, takes = command
        for key in request:  # a misspelt argument must not pass for its default
            if takes is not None and key != "cmd" and key != "id" and key not in takes:
                return self.reply(cmd, ident, error="bad_argument", message="%s takes no %s" % (cmd, key))
        try:
            result = command(self, request)
        except BadArgument as e:
            return self.reply(cmd, ident, error="bad_argument", message=str(e))
        except CommandError as e:
            return self.reply(cmd, ident, error=e.args[0], message=e.args[1])
        except Exception as e:  # a fault (say, flash that will not write): still one reply
            return self.reply(cmd, ident, error="failed", message="%s: %s" % (type(e).__name__, e))
        if result is not LATER:
            self.answer(cmd, ident, result)

    def answer(self, cmd, ident, result):
        """A command carried out: its reply, or, out of heap making it, a short one that says so."""
        try:
            self.reply(cmd, ident, **(result or {}))
        except MemoryError:
            result = None  # (the reply's garbage with it)
            self.reply(cmd, ident, error="no_room", message=UNSAID)

    def hello(self, request):
        app = self.app
        return {"protocol": PROTOCOL, "firmware": FIRMWARE_VERSION, "board": app.board.name,
                "rules": app.tables.name, "rules_checksum": "%08x" % app.tables.checksum,
                "versus": who_plays(app.versus), "version": app.version}

    def state(self, request):
        return {"state": snapshot(self.app), "seq": self.seq}

    def new_match(self, request):
        paused = self.app.paused()
        if paused:
            raise CommandError("remote", paused)
        first = player_argument(request, "first", 1 - self.app.controller.game.first)
        against = request.get("opponent")  # {"colour": ..., "level": 0-3}: a match against the board
        if against is not None and (not isinstance(against, dict) or set(against) - {"colour", "level"}):
            raise BadArgument('opponent is {"colour": "white" or "black", "level": 0 to 3}')
        colour = level = None
        if against is not None:
            colour = player_argument(against, "colour", 1, "opponent colour")
            level = against.get("level", 3)
            if not isinstance(level, int) or isinstance(level, bool) or not 0 <= level <= 3:
                raise BadArgument("opponent level is 0 to 3")
        self.app.play_against(colour, level, remember=False)
        self.app.controller.new_match(first)  # who plays is written with it, in one file

    def hint(self, request):
        """Thought in slices between scans and shown in light, as the button's hint is: the
        reply goes when the move is chosen (answer_hints), the scans and lights going on."""
        if self.app.controller.game.round_over:
            raise CommandError("no_round", "there is no round in play")
        if len(self.hints) >= MAX_HINTS:  # a host asking in a burst: the board's RAM holds a few
            raise CommandError("busy", "%d hints already wait for the answer" % MAX_HINTS)
        self.app.ask_hint()
        self.hints.append((request.get("id"), self.to))
        return LATER

    def answer_hints(self):
        """A scan's look at the hints asked: once the move for the player to move is chosen
        (on the board's own turn, its move), each gets it. A position that moves on first
        is thought afresh; a round that ends first is no_round."""
        app = self.app
        g = app.controller.game
        move = None
        if not g.round_over:
            v = app.controller.versus  # the board's own opponent, or a friend's board
            v = v if v and g.to_move == v.colour else app.controller.hint
            if v is None:
                return app.ask_hint()  # the position moved on, and with it the hint
            if v.move is None:
                return
            move = move_names(g.tables.grid, v.move)
        to, self.to = self.to, None
        for ident, self.to in self.hints:
            if move is None:
                self.reply("hint", ident, error="no_round", message="the round ended before the hint was ready")
            else:
                self.reply("hint", ident, hint=move)
        self.to = to
        self.hints = []

    def new_round(self, request):
        paused = self.app.paused()  # paired, the match not running here: the friend's board holds the round
        if self.app.remote or paused:  # the friend's board would play on in the round abandoned here
            raise CommandError("remote", paused or "a match with a friend's board: a round cannot be "
                                                   "restarted on one board")
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
        return {"on": check.on, "leaving": check.leaving, "cell": square_name(self.app.tables.grid, check.square),
                "pieces": list(self.app.board.dice.values())}

    def board_check(self, request):
        """The board check (doce/bringup.py, loaded only when asked for: the game's RAM does not carry it)."""
        from .bringup import command
        return command(self, request)

    def bench(self, request):
        """The chip's own figures (doce/meter.py, loaded only when asked for)."""
        from .meter import command
        return command(self, request)

    def reboot_command(self, request):
        self.reboot_asked = True  # after this reply has gone out

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
        self.transfer = [bytearray(size), 0, int(checksum, 16)]

    def rules_chunk(self, request):
        if self.transfer is None:
            raise CommandError("no_transfer", "send rules_begin first")
        data = request.get("data")
        offset = request.get("offset")
        blob, received, _ = self.transfer
        if offset != received or not isinstance(offset, int) or isinstance(offset, bool):
            raise BadArgument("offset must be %d, the bytes received so far" % received)
        chunk = base64_chunk(data)
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
        # the tables' own CRC-32 (of all but its last 4 bytes, which hold it), as hello reports it
        if binascii.crc32(memoryview(blob)[:-4]) & 0xFFFFFFFF != crc:
            raise CommandError("checksum_mismatch", "the tables arrived damaged; the old rules stay")
        error = self.app.set_rules(bytes(blob), force=request.get("force") is True)
        if error:
            raise CommandError(error[0], error[1])
        return self.hello(request)

    def rules_abort(self, request):
        self.transfer = None

    def pause_update(self):
        """A match began with an update's code loaded (doce/update.py), or its host has gone (Update.stale): let
        go, so the match has the heap it held (the module and its lists, some 22 KB, and the largest free block with
        them). What it stored stays: the host begins again after the match, and the transfer goes on from there. A
        reply it owed says busy."""
        u, self.update = self.update, None
        owed = u.pause()
        if owed is not None:
            cmd, ident, self.to = owed
            try:
                self.reply(cmd, ident, error="busy", message=IN_A_MATCH)
            finally:
                self.to = None
        from .update import let_go
        let_go()

    def clear(self):
        """No match in play and no piece on the board (App.clear): an update's flash work may go on."""
        return self.app is None or (not self.app.in_play() and self.app.clear())

    def update_command(self, request):
        """An update of the app (doce/update.py, loaded only when one starts). Never in a match in play: its
        flash erases (45 ms typical, 400 ms at most each, host/doce_host/sim/device/flash.py), hashes and the
        module's load would hold the scans a die waits on; nor with a piece on the board (App.clear). `busy` before
        anything is loaded; the host asks again, and the transfer goes on from what is stored once the board is
        clear."""
        if self.app is not None and self.app.in_play():
            raise CommandError("busy", IN_A_MATCH)
        if self.app is not None and not self.app.clear():  # an erase would hold a piece's light (App.clear)
            raise CommandError("busy", AT_THE_BOARD)
        from .update import command
        return command(self, request)

    def update_key(self, request):
        """This board's update key, over USB only: a command from the broker cannot set it."""
        if self.to is not None:
            raise CommandError("usb_only", "the update key is set over USB only")
        from .update import let_go, set_key
        try:
            return set_key(request)
        finally:
            let_go()  # nothing to keep in memory

    def net_command(self, request):
        """wifi, mqtt and net: handed to the target's network (doce/net.py's command on an ESP32,
        given by doce/esp32.py: a Linux board has no Wi-Fi, and net.py is loaded only when used)."""
        if self.network is None:
            raise CommandError("failed", "this board has no Wi-Fi")
        return self.network(self, request)

    def remote_command(self, request):
        """Pairing with a friend's board (doce/pairing.py), through the broker: a board with no
        Wi-Fi, the Linux target, loads none of it."""
        if self.network is None:
            raise CommandError("no_network", "this board has no Wi-Fi: a friend's board is reached through a broker")
        if "peer" not in request:  # where it stands: a host asks often, and pairing.py's 2 KB, loaded
            app = self.app  # then among the garbage of its reply, would split the heap for good (issue 41)
            if app.remote is None and app.paused():  # paired, the match not running here (doce/offline.py)
                from .offline import paired
                return {"remote": paired(app)}
            return {"remote": app.remote.state() if app.remote else None}
        from .pairing import command
        return command(self, request)

    def resend(self, request):  # MQTT: events a host missed, again from the journal
        if self.net is None:
            raise CommandError("no_network", "this board is not set up for a broker")
        return self.net.outbox.resend(request.get("tag"), request.get("after"))


_nested = [0]  # members of the objects inside the request, counted by end_of_container


def members_in(value):
    """Members of every object in a parsed request: fewer than members_of counted if a key was
    given twice in one of them (the parser keeps the last)."""
    if isinstance(value, dict):
        return len(value) + sum(members_in(v) for v in value.values())
    if isinstance(value, list):
        return sum(members_in(v) for v in value)
    return 0


def members_of(buf, n):
    """How many members buf[:n] has, its own and its objects', if it is one JSON object whose
    every colon and comma is in its place ({"key": value, ...}, nested at most MAX_DEPTH deep),
    else -1. MicroPython's json.loads does not check this: it takes {"cmd" "x"} or a trailing
    comma, and v1.24 a missing closing brace. Nor does it check the values inside: end_of_value does, nested ones too.
    Allocates nothing but the frames of its few nested calls."""
    _nested[0] = 0
    i = skip_space(buf, 0, n)
    if i >= n or buf[i] != 123:  # {
        return -1
    i = skip_space(buf, i + 1, n)
    if i < n and buf[i] == 125:  # {}
        return 0 if skip_space(buf, i + 1, n) >= n else -1
    members = 0
    while i < n:
        if buf[i] != 34:  # a key is a string
            return -1
        i = skip_space(buf, end_of_string(buf, i, n), n)
        if i >= n or buf[i] != 58:  # :
            return -1
        i = skip_space(buf, end_of_value(buf, skip_space(buf, i + 1, n), n), n)
        if i >= n:
            return -1
        members += 1
        if buf[i] == 125:  # }, and nothing after it
            return members + _nested[0] if skip_space(buf, i + 1, n) >= n else -1
        if buf[i] != 44:  # ,
            return -1
        i = skip_space(buf, i + 1, n)
    return -1


def skip_space(buf, i, n):
    """Past JSON's whitespace (RFC 8259, 2): a line feed comes only over MQTT (on USB it ends the
    line), as the file's last newline of `mosquitto_pub -s`."""
    while i < n and (buf[i] == 32 or buf[i] == 9 or buf[i] == 13 or buf[i] == 10):
        i += 1
    return i


def end_of_string(buf, i, n):
    """Just past the string that opens at buf[i]; n if it never closes, or holds what strict
    JSON refuses and MicroPython's parser takes (and would echo back): a control character,
    bytes that are not UTF-8, or a \\uD800-\\uDFFF escape (that parser makes each half of a
    UTF-16 pair a character of its own: bytes that are not UTF-8)."""
    i += 1
    while i < n:
        b = buf[i]
        if b == 34:
            return i + 1
        if b < 32:
            return n
        if b == 92:  # a backslash: one of JSON's escapes, or no string at all
            e = buf[i + 1] if i + 1 < n else 0
            if e == 117:  # \u and four hex digits, not \uD800-\uDFFF
                if i + 5 >= n or not (is_hex(buf[i + 2]) and is_hex(buf[i + 3]) and is_hex(buf[i + 4])
                                      and is_hex(buf[i + 5])):
                    return n
                if buf[i + 2] | 32 == 100 and (56 <= buf[i + 3] <= 57 or 97 <= buf[i + 3] | 32 <= 102):
                    return n
                i += 6
            elif e == 34 or e == 92 or e == 47 or e == 98 or e == 102 or e == 110 or e == 114 or e == 116:
                i += 2  # \" \\ \/ \b \f \n \r \t
            else:
                return n
        elif b > 127:
            i = end_of_character(buf, i, n)
        else:
            i += 1
    return n


def end_of_character(buf, i, n):
    """Just past the UTF-8 character that starts at buf[i]; n if it is not one (RFC 3629: no
    overlong form, no surrogate, nothing past U+10FFFF)."""
    b = buf[i]
    low = 0x80
    high = 0xBF
    if 0xC2 <= b <= 0xDF:
        more = 1
    elif 0xE0 <= b <= 0xEF:
        more = 2
        low = 0xA0 if b == 0xE0 else low
        high = 0x9F if b == 0xED else high
    elif 0xF0 <= b <= 0xF4:
        more = 3
        low = 0x90 if b == 0xF0 else low
        high = 0x8F if b == 0xF4 else high
    else:
        return n
    if i + more >= n or not low <= buf[i + 1] <= high:
        return n
    for j in range(i + 2, i + more + 1):
        if not 0x80 <= buf[j] <= 0xBF:
            return n
    return i + more + 1


def end_of_value(buf, i, n, depth=1):
    """Just past the value at buf[i]: a string, an array or object (nested at most MAX_DEPTH
    deep, every member checked as strictly as the request's own), or a bare word like 12 or
    true; n if there is no value."""
    if i >= n:
        return n
    b = buf[i]
    if b == 34:
        return end_of_string(buf, i, n)
    if b == 123 or b == 91:  # { or [
        return end_of_container(buf, i, n, depth) if depth <= MAX_DEPTH else n
    start = i
    while i < n and is_word_byte(buf[i]):
        i += 1
    return i if i > start and is_json_word(buf, start, i) else n


def end_of_container(buf, i, n, depth):
    """Just past the array or object that opens at buf[i]: its colons and commas in their
    places and its every value strict JSON; n if it is not one."""
    close = 93 if buf[i] == 91 else 125  # ] or }
    i = skip_space(buf, i + 1, n)
    if i < n and buf[i] == close:
        return i + 1
    while i < n:
        if close == 125:  # an object: "key": first
            if buf[i] != 34:
                return n
            _nested[0] += 1
            i = skip_space(buf, end_of_string(buf, i, n), n)
            if i >= n or buf[i] != 58:  # :
                return n
            i = skip_space(buf, i + 1, n)
        i = skip_space(buf, end_of_value(buf, i, n, depth + 1), n)
        if i >= n:
            return n
        if buf[i] == close:
            return i + 1
        if buf[i] != 44:  # ,
            return n
        i = skip_space(buf, i + 1, n)
    return n


def is_hex(b):
    return 48 <= b <= 57 or 97 <= b | 32 <= 102


def past_digits(buf, i, end):
    while i < end and 48 <= buf[i] <= 57:
        i += 1
    return i


def is_json_word(buf, i, end):
    """A bare word strict JSON allows: true, false, null, or a number with no leading zero,
    bare point or bare exponent (MicroPython's parser takes 01, 1. and 1e). Allocates nothing."""
    first = buf[i]
    k = end - i
    if first == 116:  # true
        return k == 4 and buf[i + 1] == 114 and buf[i + 2] == 117 and buf[i + 3] == 101
    if first == 102:  # false
        return k == 5 and buf[i + 1] == 97 and buf[i + 2] == 108 and buf[i + 3] == 115 and buf[i + 4] == 101
    if first == 110:  # null
        return k == 4 and buf[i + 1] == 117 and buf[i + 2] == 108 and buf[i + 3] == 108
    if first == 45:  # -
        i += 1
    j = past_digits(buf, i, end)
    if j == i or (buf[i] == 48 and j > i + 1):
        return False
    if j < end and buf[j] == 46:  # .
        i = j + 1
        j = past_digits(buf, i, end)
        if j == i:
            return False
    if j < end and buf[j] | 32 == 101:  # e
        i = j + 1
        if i < end and (buf[i] == 43 or buf[i] == 45):
            i += 1
        j = past_digits(buf, i, end)
        if j == i:
            return False
    return j == end


def is_word_byte(b):
    """A byte of a bare word (a number, true, false, null): not space, not punctuation."""
    return b > 32 and b != 44 and b != 58 and b != 34 and b != 123 and b != 125 and b != 91 and b != 93


def is_id(ident):
    if isinstance(ident, str):
        return True
    if isinstance(ident, bool) or not isinstance(ident, (int, float)):
        return False
    return ident - ident == 0  # not infinite, not NaN: the reply must stay JSON


# Each command and the arguments it takes besides cmd and id (None: it checks its own).
COMMANDS = {
    "hello": (Link.hello, ()), "state": (Link.state, ()), "new_match": (Link.new_match, ("first", "opponent")),
    "new_round": (Link.new_round, ()), "brightness": (Link.brightness, ("value",)),
    "calibrate": (Link.calibrate, ()), "reboot": (Link.reboot_command, ()),
    "dice_check": (Link.dice_check, ("on",)),
    "board_check": (Link.board_check, ("step", "index", "from")), "bench": (Link.bench, ("step",)),
    "hint": (Link.hint, ()), "rules_get": (Link.rules_get, ()),
    "rules_begin": (Link.rules_begin, ("size", "checksum")), "rules_chunk": (Link.rules_chunk, ("offset", "data")),
    "rules_commit": (Link.rules_commit, ("force",)), "rules_abort": (Link.rules_abort, ()),
    "wifi": (Link.net_command, None), "mqtt": (Link.net_command, None), "net": (Link.net_command, ()),
    "mqtt_ca": (Link.net_command, ("size", "offset", "data")), "resend": (Link.resend, ("tag", "after")),
    "update_begin": (Link.update_command, ("size", "sha256", "version", "sig")),
    "update_chunk": (Link.update_command, ("offset", "data")),
    "update_commit": (Link.update_command, ()), "update_abort": (Link.update_command, ("sig",)),
    "update_key": (Link.update_key, ("board", "key", "floor")),
    "remote": (Link.remote_command, ("peer", "colour", "first", "match", "rules_checksum", "force",
                                            "invite")),
}
