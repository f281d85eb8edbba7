"""`doce fleet update` over Mosquitto (doce_host/fleet/update.py): each simulated board of a room takes its own
package on its cmd topic, one command at a time, the boards side by side; a board in a match is busy and takes
it once the match is over; a package signed with another key is refused and said so; a canary refused stops the
rest."""

import hashlib
import json

from broker_turns import Turns
from fleet_helpers import room_of, until_scanned

from doce_host import image, update
from doce_host.fleet import update as fleet_update

FILES = image.slot_files(image.app_files(chip="host"))  # what doce sim's boards run, as doce flash builds it
OTHER_KEY = "cd" * 32
# Seconds of a core's time, sized from the work: a reply is one scan of the board's away (a few ms); each
# transfer's --wait covers the whole of it, some 1,750 commands of 96 bytes for the full app
REPLY_S = 30
WAIT_S = 600


def pump(room, sims):
    """Each board scanned once what it was sent has reached it (broker_turns.Turns: not on a fixed turn of the
    broker's, whose idle scans grow with the machine's load)."""
    return Turns(room, lambda: [sim.run(2) for sim in sims.values()])


def packages(keys, version=1, forged=()):
    return {i: update.package(FILES, version, i, OTHER_KEY if i in forged else k) for i, k in keys.items()}


def warnings(sim):
    return [e["message"] for e in sim.events if e["event"] == "warning"]


def test_boards_take_their_packages_side_by_side_byte_for_byte(tmp_path, mosquitto):
    """The transfer itself, on three boards at once: what each stores in its new slot is its package's files."""
    small = {"doce/tiny.py": b"x = 1\n", "doce/other.py": bytes(range(256)) * 3}  # stored, switched, no app
    with room_of(tmp_path, mosquitto, ["t1", "t2", "t3"]) as (room, sims, keys):
        data = {i: update.package(small, 2, i, k) for i, k in keys.items()}
        results = fleet_update.update(room, data, WAIT_S, REPLY_S, keys, pump=pump(room, sims))
        assert results == {i: ("done", None, 2) for i in sims}
    for ident, sim in sims.items():
        stored = image.read(sim.flash.read_bytes())
        assert {p[2:]: d for p, d in stored.items() if p.startswith("b/doce/")} == small
        n = int.from_bytes(data[ident][:4], "little")  # its own manifest, signed for it
        assert stored["b/manifest"] == data[ident][4:4 + n]
        assert stored["b/header"] == (data[ident][:4] + data[ident][4 + n:4 + n + 32]
                                      + hashlib.sha256(data[ident]).digest())


def test_a_board_takes_the_app_over_mqtt_and_boots_it(tmp_path, mosquitto):
    """The whole app (42 files, a 4 KB manifest) on a board on the broker: the manifest streamed to flash and
    checked from there, doce/update.py loaded only for the transfer (it ran out of heap at the manifest). (Two
    boards taking it side by side, and booting it: test_fleet_update_room's b1 and b7.)"""
    with room_of(tmp_path, mosquitto, ["t1"]) as (room, sims, keys):
        results = fleet_update.update(room, packages(keys, 3), WAIT_S, REPLY_S, keys, pump=pump(room, sims))
        assert results == {"t1": ("done", None, 3)}
        sim = sims["t1"]  # it reboots on the new slot, on trial, and is healthy once on the broker
        assert until_scanned(lambda: [e for e in sim.events if e["event"] == "update"], sim, step=50)
        assert [(e["stage"], e["slot"]) for e in sim.events if e["event"] == "update"] == [("done", "b")]
    stored = image.read(sim.flash.read_bytes())
    assert {p[2:]: d for p, d in stored.items() if p.startswith(("b/doce/", "b/umqtt/"))} == FILES


def test_a_board_in_a_match_takes_it_once_the_match_is_over_and_a_forged_one_is_refused(tmp_path, mosquitto,
                                                                                          monkeypatch):
    """A board in a match answers busy and its flash is untouched till the match is over; it is asked again and
    then takes it, while a board sent a forged package refuses it, said so."""
    monkeypatch.setattr(fleet_update, "MATCH_RETRY_S", 0.5)
    with room_of(tmp_path, mosquitto, ["t1", "t2", "t3"]) as (room, sims, keys):
        t1 = sims["t1"]
        t1.place("c3", "white 4")  # t1's match is in play
        t1.run(100)  # the move written to the journal
        small = {"doce/tiny.py": b"x = 1\n"}
        data = {i: update.package(small, 2, i, OTHER_KEY if i == "t3" else k) for i, k in keys.items()}
        del data["t2"]
        before = t1.command(do="flash")
        seen = {"pumps": 0}

        def pumping():
            for sim in sims.values():
                sim.run(2)
            if "flash" in seen:
                return
            if [w for w in warnings(sims["t3"]) if w.startswith("update refused")]:
                seen["pumps"] += 1  # t3 is over; t1 asked in its match meanwhile, and a while after
            if seen["pumps"] > 200:
                seen["flash"] = t1.command(do="flash")
                t1.command(do="send", line=json.dumps({"cmd": "new_match", "first": "black"}) + "\n")
                t1.lift("c3")  # the board cleared: an update waits for that too (doce/app.py App.clear)
        results = fleet_update.update(room, data, WAIT_S, REPLY_S, keys, pump=pumping)
        assert results["t1"] == ("done", None, 2)
        assert (seen["flash"]["erases"], seen["flash"]["programs"]) == (before["erases"], before["programs"])
        outcome, message, _ = results["t3"]
        assert outcome == "refused" and "signed with another key" in message, results["t3"]
        assert [w for w in warnings(sims["t3"]) if w.startswith("update refused")] == ["update refused: " + message]
        assert not [w for w in warnings(t1) if w.startswith("update refused")]


def test_a_canary_refused_stops_the_rest(tmp_path, mosquitto):
    with room_of(tmp_path, mosquitto, ["t1", "t2"]) as (room, sims, keys):
        results = fleet_update.update(room, packages(keys, 4, forged=["t1"]), WAIT_S, REPLY_S, keys, canary="t1",
                                      pump=pump(room, sims))
        assert results["t1"][0] == "refused"
        assert results["t2"][0] == "not_sent" and "the canary t1 was refused" in results["t2"][1]
        assert not [e for e in sims["t2"].events if e["event"] == "warning"]  # nothing reached it


def test_a_canary_that_rolls_back_stops_the_rest(tmp_path, mosquitto):
    no_app = {"doce/tiny.py": b"x = 1\n"}  # taken, switched to, and it cannot boot: the board goes back
    with room_of(tmp_path, mosquitto, ["t1", "t2"]) as (room, sims, keys):
        data = {i: update.package(no_app, 2, i, k) for i, k in keys.items()}
        results = fleet_update.update(room, data, WAIT_S, REPLY_S, keys, canary="t1", trial_wait=WAIT_S,
                                      pump=pump(room, sims))
        assert results["t1"] == ("rolled_back", "did not come up healthy in 3 boots", 2) and sims["t1"].resets == 3
        assert results["t2"] == ("not_sent", "the canary t1 rolled back: did not come up healthy in 3 boots", None)
        assert "b/header" not in image.read(sims["t2"].flash.read_bytes())


TINY = {"doce/tiny.py": b"x = 1\n"}  # one file: stored, switched to, it cannot boot (no app)
SMALL = update.package({"doce/tiny.py": b"x = 1\n" * 80}, 3, "t1", OTHER_KEY)  # never sent: replies made up


def test_a_reply_that_does_not_fit_is_one_line(tmp_path, mosquitto):
    """A board (or anyone with its credentials) answering nonsense ends its transfer with a line, not a trace."""
    t = fleet_update.Transfer(None, "t1", SMALL, REPLY_S)
    t.take(("begin", 0), {"ok": True, "received": "\x1b[2J" * 3})
    assert t.outcome == "refused" and "\x1b" not in t.message and "does not fit" in t.message
    t = fleet_update.Transfer(None, "t1", SMALL, REPLY_S)
    t.take(("chunk", 96), {"ok": True, "received": 10 ** 9})
    assert t.outcome == "refused"
    t = fleet_update.Transfer(None, "t1", SMALL, REPLY_S)
    t.take(("chunk", 0), {"ok": False, "error": "refused", "message": "bad\x1b]0;title\x07" + "y" * 500})
    assert t.outcome == "refused" and "\x1b" not in t.message and "\x07" not in t.message and len(t.message) < 200




def test_a_file_refused_or_a_chunk_out_of_step_is_sent_again_a_few_times_then_refused():
    """Chunks and commits carry no signature: another on the broker can send one into a transfer. The board then
    loses that file's bytes at most (doce/update.py) and the transfer begins again from what it stored; a
    package whose file is refused every time is refused after MAX_AGAIN tries, saying the board's reason."""
    t = fleet_update.Transfer(None, "t1", SMALL, REPLY_S)
    replies = [{"ok": False, "error": "corrupted", "message": "corrupted: doce/tiny.py does not match"},
               {"ok": False, "error": "bad_argument", "message": "offset must be 40, the bytes received so far"},
               {"ok": False, "error": "incomplete", "message": "truncated: 40 of 520 bytes arrived"}]
    for reply in replies:
        t.begun = True
        t.take(("chunk", 40) if reply["error"] != "incomplete" else ("commit", 0), reply)
        assert not t.outcome and not t.begun
    t.take(("chunk", 40), replies[0])
    assert t.outcome == "refused" and "corrupted: doce/tiny.py" in t.message, t.message


def test_what_a_board_reports_is_checked_against_the_version_sent():
    """A commit reply, or the canary's `done`, naming another version than the package's is not reported as the
    board's: the transfer ends refused (or the canary not healthy), saying what the board said."""
    t = fleet_update.Transfer(None, "t1", SMALL, REPLY_S)
    t.take(("commit", 0), {"ok": True, "version": 2, "deferred": False})
    assert t.outcome == "refused" and "stored version 2, not the package's 3" in t.message
    import threading
    import types
    t = fleet_update.Transfer(types.SimpleNamespace(lock=threading.Lock(), boards={}), "t1", SMALL, REPLY_S)
    t.take(("commit", 0), {"ok": True, "version": 3, "deferred": False})
    assert (t.outcome, t.version) == ("done", 3)
    for said, healthy in ((2, False), (None, False), (3, True)):
        t.outcome = "done"
        t.trial = lambda: {"event": "update", "stage": "done", "slot": "b", "version": said}
        assert fleet_update.canary_healthy(t, REPLY_S)[0] is healthy, said


def test_a_transfer_goes_on_from_what_the_board_stored_after_it_went_away(tmp_path, mosquitto):
    big = {"doce/big.py": bytes(range(97, 123)) * 400}  # some 110 chunks: cut a third of the way
    with room_of(tmp_path, mosquitto, ["t1"]) as (room, sims, keys):
        sim = sims["t1"]
        t = fleet_update.Transfer(room, "t1", update.package(big, 2, "t1", keys["t1"]), 5, keys["t1"])
        seen = {"cut_at": None, "off": 0}

        def pumping():
            if seen["cut_at"] is None and t.received >= 3000:
                seen["cut_at"] = t.received
                sim.cut_power()  # the broker sees its connection drop, and says it is offline
            elif sim.power_was_cut:
                seen["off"] += 1
                if not t.online() or seen["off"] > 2000:
                    sim.power_on()
            elif t.received == len(t.data) and t.idle() and "match" not in seen:
                seen["match"] = sim.place("c3", "white 4")  # a match before the commit: never booted (no app)
            else:
                sim.run(2)
        fleet_update.run([t], WAIT_S, pump=pumping, match_wait=1.0)
        assert t.outcome == "waiting" and "a match in play" in t.message and seen["cut_at"], (t.outcome, t.message)
        # begun again after the cut, from what the board had stored (not from 0, not past what was sent)
        assert len(t.begins) >= 2 and 0 < t.begins[-1] <= seen["cut_at"] + update.CHUNK, t.begins
    stored = image.read(sim.flash.read_bytes())
    assert stored["b/doce/big.py"] == big["doce/big.py"]


def test_the_command_reports_a_board_not_on_the_broker_as_offline(tmp_path, mosquitto, capsys):
    from doce_host.cli import main
    room = tmp_path / "room"
    assert main(["fleet", "secure", str(room), "--boards", "t1,t2"]) == 0
    capsys.readouterr()
    broker = "mqtt://%s:%d" % (mosquitto.host, mosquitto.port)
    assert main(["fleet", "update", str(room), "--boards", "t1,t9", "--broker", broker]) == 2  # t9 has no key
    assert "no update key for t9" in capsys.readouterr().err
    # nothing joins: t1 is tried for --wait, then said offline (exit 1: not every board took it)
    assert main(["fleet", "update", str(room), "--boards", "t1", "--broker", broker, "--chip", "host",
                 "--wait", "1", "--json"]) == 1
    assert [json.loads(line) for line in capsys.readouterr().out.splitlines()] == [
        {"board": "t1", "outcome": "offline", "version": None, "message": "not on the broker"}]


class Answering:
    """A room whose boards answer at once as doce/update.py does; a board in `playing` answers every update
    command busy, as doce/link.py does in a match."""

    def __init__(self, ids, version):
        import itertools
        import threading
        import types
        self.lock = threading.Lock()
        self.boards = {i: types.SimpleNamespace(online=True, count=0, events=[]) for i in ids}
        self.version, self.playing, self.stored, self.answers, self.sent = version, set(), {}, {}, []
        self.ids = itertools.count(1)

    def send(self, ident, cmd, **args):
        import base64
        rid = next(self.ids)
        self.sent.append((ident, cmd, ident in self.playing))
        if ident in self.playing:
            r = {"ok": False, "error": "busy", "message": "in a match: an update waits for its end"}
        elif cmd == "update_begin":
            r = {"ok": True, "received": self.stored.get(ident, 0), "slot": "b"}
        elif cmd == "update_chunk":
            self.stored[ident] = args["offset"] + len(base64.b64decode(args["data"]))
            r = {"ok": True, "received": self.stored[ident]}
        else:
            r = {"ok": True, "version": self.version, "deferred": False}
        self.answers[rid] = r
        return rid

    def reply(self, rid, forget=False):
        return self.answers.pop(rid, None)


def test_a_board_in_a_match_waits_for_its_end_while_the_others_go_on_and_then_takes_it(monkeypatch):
    """A board busy in a match is asked again (here at once: MATCH_RETRY_S 0) for as long as its match lasts,
    past --wait and past the others' end; it never counts as offline, and its transfer goes on from what it had
    stored once the match is over. A match that outlasts match_wait leaves it `waiting`, said so."""
    from doce_host.core_time import Deadline
    monkeypatch.setattr(fleet_update, "MATCH_RETRY_S", 0.0)
    room = Answering(["t1", "t2"], 3)
    data = {"t1": SMALL, "t2": update.package({"doce/tiny.py": b"x = 1\n" * 80}, 3, "t2", OTHER_KEY)}
    room.stored["t1"] = 300  # part of it stored before the match began
    room.playing.add("t1")
    ended = {}

    def pump():
        with room.lock:
            if "t2" in room.stored and room.stored["t2"] == len(data["t2"]) and "at" not in ended:
                ended["at"] = Deadline(1.0)  # the match goes on a while after t2 is done: past --wait
            elif "at" in ended and ended["at"].passed():
                room.playing.discard("t1")
    results = fleet_update.update(room, data, 0.2, REPLY_S, {}, pump=pump)
    assert results == {"t1": ("done", None, 3), "t2": ("done", None, 3)}
    in_match = [cmd for ident, cmd, playing in room.sent if ident == "t1" and playing]
    assert len(in_match) > 2 and set(in_match) == {"update_begin"}  # asked again, never past its begin
    first = [cmd for ident, cmd, playing in room.sent if ident == "t1" and not playing][:2]
    assert first == ["update_begin", "update_chunk"] and len(
        [1 for ident, cmd, _ in room.sent if ident == "t1" and cmd == "update_chunk"]) == -(-(len(SMALL) - 300) // 96)
    room = Answering(["t1"], 3)
    room.playing.add("t1")
    [(outcome, message, _)] = fleet_update.update(room, {"t1": SMALL}, 0.0, REPLY_S, {}, match_wait=0.2).values()
    assert outcome == "waiting" and "a match in play" in message


def test_a_board_that_says_it_took_other_than_the_chunk_is_refused_not_sent_byte_by_byte():
    """A board takes a chunk whole or refuses it (doce/update.py chunk): one that answers it took part of one (a
    byte, say) would have the host send the package again from every byte, ~96 times the requests, and wait for
    it; one that says it took more than it was sent has lost count. Neither fits the protocol: refused."""
    t = fleet_update.Transfer(None, "t1", SMALL, REPLY_S)
    t.take(("begin", 0), {"ok": True, "received": 0})
    t.take(("chunk", 0), {"ok": True, "received": 1})
    assert t.outcome == "refused" and "received: 1" in t.message, t.message
    t = fleet_update.Transfer(None, "t1", SMALL, REPLY_S)
    t.take(("chunk", 0), {"ok": True, "received": fleet_update.CHUNK + 1})  # more than it was sent: as unfit
    assert t.outcome == "refused", t.outcome
    t = fleet_update.Transfer(None, "t1", SMALL, REPLY_S)
    t.take(("chunk", 0), {"ok": True, "received": fleet_update.CHUNK})
    last = len(SMALL) - len(SMALL) % fleet_update.CHUNK
    t.take(("chunk", last), {"ok": True, "received": len(SMALL)})  # the last chunk is short: whole all the same
    assert (t.outcome, t.received) == (None, len(SMALL))


class Restarting:
    """A room with one board that loses its update_commit reply in its own restart (over MQTT on an ESP32 the reply
    in lwIP dies with the Wi-Fi: doce/app.py restarts in the scan the read-back ends). It is back `away` pumps later,
    its status naming the version sent (retained, on trial: it comes before any reply of the new boot), and healthy
    `trial` pumps after that, its update event `done`. Its replies are the firmware's own (doce/update.py begin:
    `trial`, then the running version's replay)."""

    def __init__(self, version, away=10, trial=150):
        import itertools
        import threading
        import types
        self.lock = threading.Lock()
        self.version, self.away, self.trial = version, away, trial
        self.board = types.SimpleNamespace(online=True, count=0, events=[], version=1)
        self.boards = {"t1": self.board}
        self.answers, self.ids, self.restarted = {}, itertools.count(1), False

    def pump(self):
        import time
        b = self.board
        if self.restarted and self.away > 0:
            self.away -= 1
            if self.away == 0:
                b.online, b.version = True, self.version
        elif self.restarted and self.trial > 0:
            self.trial -= 1
            if self.trial == 0:
                b.events = b.events + [(2, {"event": "update", "stage": "done", "slot": "b", "version": self.version})]
                b.count += 1
        time.sleep(0.01)

    def send(self, ident, cmd, **args):
        import base64
        rid = next(self.ids)
        b = self.board
        if not b.online:
            return rid  # lost
        if b.version == 1 and cmd == "update_begin":
            r = {"ok": True, "received": 0, "slot": "b"}
        elif b.version == 1 and cmd == "update_chunk":
            r = {"ok": True, "received": args["offset"] + len(base64.b64decode(args["data"]))}
        elif b.version == 1:  # the commit: stored, switched, restarted; its reply never leaves
            self.restarted, b.online = True, False
            return rid
        elif self.trial > 0:
            r = {"ok": False, "error": "trial", "message": "this board is trying a new version: it takes an update "
                                                          "once that is done"}
        else:
            r = {"ok": False, "error": "refused", "message": "version %d is not newer than the running version %d "
                                                             "(a replay)" % (self.version, self.version)}
        self.answers[rid] = r
        return rid

    def reply(self, rid, forget=False):
        return self.answers.pop(rid, None)


def test_a_board_that_restarts_into_the_version_before_its_commit_reply_leaves_has_taken_it():
    """The board's status naming the version sent, after an update_commit unanswered, is the board's own word that
    it took the package: done (and a canary's trial followed to `done` as usual), never 'refused ... a replay'."""
    data = update.package({"doce/tiny.py": b"x = 1\n" * 80}, 7, "t1", OTHER_KEY)
    lost = 0.5  # seconds a reply is waited for: the commit's never comes
    wait = 30.0  # the board's restart and a trial begin or two (1 s apart)
    room = Restarting(7)
    outcome, message, version = fleet_update.update(room, {"t1": data}, wait, lost, {}, pump=room.pump)["t1"]
    assert (outcome, version) == ("done", 7) and "its status says it runs version 7" in message, message
    room = Restarting(7)
    results = fleet_update.update(room, {"t1": data}, wait, lost, {}, canary="t1", trial_wait=wait, pump=room.pump)
    assert results["t1"] == ("done", "healthy on trial", 7), results
    # a board already on the version sent, before any commit of ours, refuses it as a replay, as it says
    room = Restarting(7, trial=0)
    room.board.version = 7
    assert fleet_update.update(room, {"t1": data}, wait, lost, {}, pump=room.pump)["t1"] == (
        "refused", "version 7 is not newer than the running version 7 (a replay)", None)


def test_a_board_on_the_broker_whose_commit_reply_is_lost_is_followed_by_its_status_to_done(tmp_path, mosquitto):
    """The same on Mosquitto, a simulated board taking the whole app (its reply to update_commit dropped as it
    arrives: the simulator's sockets are the host's, so its own reply would still leave): the canary's status from
    its new boot says the version sent, and its trial is followed to `done` as usual; the rest are then sent theirs
    (t2 one file: its commit's reply is what is checked; the whole app, its commit answered: the test before)."""
    with room_of(tmp_path, mosquitto, ["t1", "t2"]) as (room, sims, keys):
        sent, commits = room.send, set()

        def send(ident, cmd, **args):
            rid = sent(ident, cmd, **args)
            if ident == "t1" and cmd == "update_commit":
                commits.add(rid)
            return rid
        kept = room.reply
        room.send = send
        room.reply = lambda rid, forget=False: None if rid in commits else kept(rid, forget)
        data = dict(packages({"t1": keys["t1"]}, 5), t2=update.package(TINY, 5, "t2", keys["t2"]))
        results = fleet_update.update(room, data, WAIT_S, 2.0, keys, canary="t1", trial_wait=WAIT_S,
                                      pump=pump(room, sims))
        assert commits and results["t1"] == ("done", "healthy on trial", 5), results
        assert results["t2"] == ("done", None, 5), results
        assert [(e["stage"], e["version"]) for e in sims["t1"].events if e["event"] == "update"] == [("done", 5)]

def test_a_clock_behind_the_rooms_record_sends_a_version_above_it(tmp_path, mosquitto, capsys):
    """The default version is the time now, kept above the highest the room's record (update-signed.json) has for
    the boards sent to: a laptop whose clock is an hour behind would else send a version every board refuses as a
    replay. Said on stderr, naming the clock."""
    import time

    from doce_host.cli import main
    room = tmp_path / "room"
    assert main(["fleet", "secure", str(room), "--boards", "t1,t2"]) == 0
    ahead = int(time.time()) + 3600  # the last update, sent from a clock an hour ahead of this one
    update.record_signed(room, {"t1": ahead, "t2": ahead - 10})
    capsys.readouterr()
    broker = "mqtt://%s:%d" % (mosquitto.host, mosquitto.port)
    assert main(["fleet", "update", str(room), "--boards", "t1,t2", "--broker", broker, "--chip", "host",
                 "--wait", "0", "--json"]) == 1  # nobody on the broker: each board offline
    assert update.load_signed(room) == {"t1": ahead + 1, "t2": ahead + 1}
    err = capsys.readouterr().err
    assert "is behind version %d, the highest %s records" % (ahead, room) in err and "version %d" % (ahead + 1) in err
    assert update.version_for(None, now=100, recorded=40) == 100 and update.version_for(None, now=100,
                                                                                         recorded=100) == 101
