"""Where each board's app update stands, as the room sees it (doce fleet status, the hall's tiles).

A board says it in pieces, on its own topics: its replies to the update commands (whoever sent them: the
organiser's `doce fleet update` in another window), its `update` events and `update refused` warnings, and
its retained status (its version, and `trial` while a new version is on trial). STAGES is the one table:
what message says a stage, and the words shown for it; a new stage is one row. Every field is a board's
(or anyone's with its broker credentials), so each is checked: a reason is cut short and its control
characters escaped, a percentage is clamped to 0-100 of a size the update_begin command named.
"""

from doce.link import IN_A_MATCH as IN_PLAY  # the busy reply's words while a match is in play: the firmware's own

from ..view import printable

# How each busy reply starts that waits for the board (doce/link.py): a match in play, or a piece on the board with
# none in play (a match about to begin, one not yet cleared, a forgotten die or a magnet by a sensor)
IN_A_MATCH = "in a match"

MAX_REASON = 160  # characters of a board's reason kept: a line of a terminal, a tile's line
UPDATE_COMMANDS = ("update_begin", "update_chunk", "update_commit")
REFUSED = "update refused: "  # how a board's warning names an update it refused (doce/update.py)


def _reply(*commands, **fields):
    """A test on a reply: to one of `commands`, every field as given."""
    return lambda p: p.get("re") in commands and all(same(p.get(k), v) for k, v in fields.items())


def _event(event, **fields):
    return lambda p: p.get("event") == event and all(same(p.get(k), v) for k, v in fields.items())


def same(said, value):
    return said is value if isinstance(value, bool) else said == value and not isinstance(said, bool)


# (stage, the message it is seen in, the test on it, the words shown): the first row that fits a message wins
STAGES = (
    # a board in a match answers `busy` to an update command: the sender tries again after the match
    ("waiting", "reply", lambda p: _reply(*UPDATE_COMMANDS, ok=False, error="busy", message=IN_PLAY)(p),
     "waiting for the match to end"),
    # ... and with a piece on the board: as long, and the board says why (a die left on it shows no match)
    ("waiting_clear", "reply", lambda p: _reply(*UPDATE_COMMANDS, ok=False, error="busy")(p)
     and str(p.get("message", "")).startswith(IN_A_MATCH), "waiting for the board to be clear: {reason}"),
    ("busy", "reply", _reply(*UPDATE_COMMANDS, ok=False, error="busy"), "busy, asked again: {reason}"),
    # a damaged chunk costs its file, sent again; a commit before the last byte changes nothing
    ("resending", "reply", _reply(*UPDATE_COMMANDS, ok=False, error="corrupted"), "sending again: {reason}"),
    ("resending", "reply", _reply(*UPDATE_COMMANDS, ok=False, error="incomplete"), "sending again: {reason}"),
    ("receiving", "reply", _reply("update_begin", "update_chunk", ok=True), "receiving {percent}"),
    ("stored", "reply", _reply("update_commit", ok=True, deferred=True), "stored, waiting for the match to end"),
    ("switching", "reply", _reply("update_commit", ok=True, deferred=False), "stored, booting it"),
    ("on_trial", "reply", _reply(*UPDATE_COMMANDS, ok=False, error="trial"), "on trial"),
    ("refused", "reply", _reply(*UPDATE_COMMANDS, ok=False, error="refused"), "refused: {reason}"),
    ("on_trial", "status", lambda p: p.get("trial") is True, "on trial"),
    ("done", "events", _event("update", stage="done"), "done"),
    ("rolled_back", "events", _event("update", stage="rolled_back"), "rolled back: {reason}"),
    ("refused", "events", lambda p: p.get("event") == "warning" and str(p.get("message", "")).startswith(REFUSED),
     "refused: {reason}"),
)
WORDS = {stage: words for stage, _, _, words in STAGES}


def reason_of(kind, payload):
    """The board's reason, checked: at most MAX_REASON characters, control characters escaped."""
    said = payload.get("reason") if kind == "events" and payload.get("event") == "update" else payload.get("message")
    said = str(said or "no reason given")
    if said.startswith(REFUSED):
        said = said[len(REFUSED):]
    return printable(said[:MAX_REASON])


def whole(value):
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def percent(received, size):
    """Whole percent of `size` received, clamped to 0-100; None if either is not a count."""
    if not whole(received) or not whole(size) or size == 0:
        return None
    return max(0, min(100, received * 100 // size))


class Stage:
    """One board's update: its stage (a STAGES name, or None before anything was seen), the reason, the size
    the last update_begin named and the bytes the board said it has of it."""

    def __init__(self):
        self.stage = None
        self.reason = None
        self.size = None
        self.received = None

    def begun(self, size):
        """An update_begin command on the board's cmd topic (anyone's): its size, if a count."""
        self.size = size if whole(size) else None
        self.received = None

    def seen(self, kind, payload):
        """A message of the board's (`kind`: reply, events, status): the stage moved on if one says so."""
        if kind == "status" and payload.get("online") is not True:
            # the broker's last will: the status the board wrote as it connected (doce/net.py will), so its trial
            # may long be over (a board dropped at a missed keepalive after its `done`): it moves no stage
            return
        for stage, where, test, _ in STAGES:
            if where == kind and test(payload):
                break
        else:
            if kind == "status" and self.stage == "on_trial":
                self.stage = None  # its status no longer says trial: the `done` or `rolled_back` event says how
            return
        self.stage = stage
        self.reason = reason_of(kind, payload) if "{reason}" in WORDS[stage] else None
        if stage == "receiving":
            self.received = payload.get("received") if whole(payload.get("received")) else None

    def words(self):
        """The stage in words, or None."""
        if self.stage is None:
            return None
        at = percent(self.received, self.size)
        # the size is in the update_begin: a room that joined after it has only the bytes the board has
        so_far = "%d%%" % at if at is not None else "%d bytes so far" % self.received if whole(self.received) else ""
        return WORDS[self.stage].format(percent=so_far, reason=self.reason).strip()
