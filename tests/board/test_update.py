"""App updates over the command protocol (doce/update.py, doce_host/update.py): a signed package for this
board stored in the slot not running, checked file by file, switched to on trial; every forged, replayed,
truncated or corrupted package refused with one warning naming why; a match in play answers every update
command busy, and an update stored and waiting is switched to at its end."""

import hashlib
import itertools
import json
import shutil
import sys

import pytest

from doce.update import STALE_MS
from doce_host import image, update
from doce_host.sim import SimBoard
from hands import ask, ask_later

KEY = "11" * 32
OTHER_KEY = "22" * 32


@pytest.fixture(scope="module")
def files():
    return image.app_files(chip="host")


@pytest.fixture(scope="module")
def slot(files):
    return image.slot_files(files)


# update_commit reads the package back a part a scan (doce/update.py STEP bytes, at most one file ended a scan),
# and replies in the scan that ends it: for the app's 45 files here (177 KB), some 90 scans.
COMMIT_SCANS = 400
LANDING_SCANS = 300  # a piece's landing, after which a board's link goes on (doce/app.py LANDING_MS, 250 ms)
SLACK = 1024  # bytes of heap a board's own churn moves between two runs of a match (the simulator's heap)


def commit(sim):
    """update_commit sent, and the scans its read-back takes: the harness's reply (its link lines, rebooted)."""
    return sim.command(do="send", line=json.dumps({"cmd": "update_commit"}) + "\n", scans=COMMIT_SCANS)


def committed(sim):
    """update_commit's one reply."""
    [r] = commit(sim)["link"]
    return r


def handled(link, sent, request):
    """A request through a Link under CPython (its reply to sent.append), and the scans an update_commit's
    read-back takes (link.poll's part of it): the one reply."""
    line = json.dumps(request).encode()
    link.handle(bytearray(line), len(line))
    while not sent and link.update is not None and link.update.asker is not None:
        link.update.scan()
    return sent.pop()


def keyed(sim, board="t1", key=KEY):
    assert ask(sim, "update_key", board=board, key=key) == {"re": "update_key", "ok": True, "board": board}


def asked(sim, cmd, **args):
    """The one reply to a request that may come scans later: an update_begin or update_abort empties the slot a
    file a scan before it answers (doce/update.py _empty)."""
    return ask_later(sim, cmd, **args)[0]


def send(sim, data, upto=None, named=None):
    """update_begin, then the chunks from where the board says it stands (to `upto` bytes): its last reply."""
    r = asked(sim, **update.begin(data, named=named))
    if not r["ok"]:  # refused at its begin: for another board, or not newer
        return r
    for request in update.requests(data, r["received"]):
        if upto is not None and request["offset"] >= upto:
            return r
        r = ask(sim, request.pop("cmd"), **request)
        if not r["ok"]:
            return r
    return r


# Chunks a harness command carries in sent_whole: each still sent once the board has read the one before and
# answered it (run.py, paced), within the 8 KB the harness's wire holds (run.py WIRE_BYTES: a chunk's line is
# some 190 bytes).
BATCH = 40


def sent_whole(sim, data, upto=None):
    """update_begin, then every chunk (to `upto` bytes), for a transfer that must go through: each reply ok, the
    last returned. As send, each chunk on the wire once the board has answered the one before (a paced host);
    a harness command a chunk, its own work was two thirds of a full package's 7 CPU-s."""
    r = asked(sim, **update.begin(data))
    assert r["ok"], r
    requests = [q for q in update.requests(data, r["received"]) if upto is None or q["offset"] < upto]
    for i in range(0, len(requests), BATCH):
        batch = requests[i:i + BATCH]
        out = sim.command(do="send", line="\n".join(json.dumps(q) for q in batch), paced=True)
        replies = [x for x in out.get("link", []) if x.get("re") == "update_chunk"]
        assert len(replies) == len(batch) and all(x["ok"] for x in replies), replies
        r = replies[-1]
    return r


def file_start(slot, data, at):
    """Where a transfer cut at byte `at` goes on from: the start of the file it was writing, kept open from its
    first chunk to its last and stored for good at its close (doce/update.py)."""
    start = len(data) - sum(len(d) for d in slot.values())
    for d in slot.values():
        if at < start + len(d):
            return start
        start += len(d)
    return start


def warnings(sim):
    return [e["message"] for e in sim.take_events() if e["event"] == "warning"]


def stored(sim):
    sim.stop()
    return image.read(sim.flash.read_bytes())


def refused(sim, data, why, named=None):
    sim.take_events()
    r = send(sim, data, named=named)
    if r["ok"]:
        r = committed(sim)
    assert r["ok"] is False and r["error"] == "refused", r
    [told] = warnings(sim)
    assert told.startswith("update refused: ") and why in told, told
    assert why in r["message"]
    return r


def cpython_link(tmp_path, monkeypatch, key=True, broker=False, in_play=lambda: False):
    """doce/link.py's Link run in CPython with tmp_path as the board's flash (its slots.py on the path, as the
    board has it at the top of its flash; update.key written unless `key` is False): (link, do, told), do(request)
    handling one command line and giving its reply, told the events the board emitted. `broker`: the command
    came on `cmd` (link.to, where doce/net.py sends its reply), else over USB (link.send)."""
    import types

    from doce.link import Link
    from doce_host.paths import FIRMWARE_DIR
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(FIRMWARE_DIR))
    monkeypatch.delitem(sys.modules, "slots", raising=False)
    if key:
        (tmp_path / "update.key").write_text(json.dumps({"board": "t1", "key": KEY}))
    sent, told = [], []
    link = Link(None, None, None, None, None)
    link.app = types.SimpleNamespace(emit=told.append, update_ready=None, in_play=in_play, clear=lambda: True)
    if broker:
        link.to = sent.append
    else:
        link.send = sent.append

    def do(request):
        r = handled(link, sent, request)
        assert not sent, sent
        return r
    return link, do, told


def test_forged_replayed_and_misaddressed_packages_are_refused_before_a_file_is_written(slot, tmp_path):
    with SimBoard(tmp_path) as sim:
        refused(sim, update.package(slot, 1, "t1", KEY), "no update key")  # a board never given one
        keyed(sim)
        refused(sim, update.package(slot, 1, "t1", OTHER_KEY), "another key")
        unsigned = bytearray(update.package(slot, 1, "t1", KEY))
        n = int.from_bytes(unsigned[:4], "little")
        unsigned[4 + n:4 + n + 32] = bytes(32)
        refused(sim, bytes(unsigned), "another key")
        refused(sim, update.package(slot, 1, "t2", KEY), "another board")
        refused(sim, update.package(slot, 0, "t1", KEY), "a replay")
        for bad in ("../main.py", "/main.py", "doce/../../main.py", "journal", "lib/x.mpy", "doce/x.txt"):
            files = dict(slot)
            files[bad] = b"x"
            refused(sim, update.package(files, 1, "t1", KEY), "does not have")
        assert not [p for p in stored(sim) if p.startswith("b/doce/")]


def test_a_corrupted_chunk_or_a_truncated_package_is_refused(slot, tmp_path):
    data = bytearray(update.package(slot, 1, "t1", KEY))
    first = next(iter(slot))
    header = len(data) - sum(len(d) for d in slot.values())
    data[header + 10] ^= 1  # a byte of the first file, flipped on the way (its package hash made to fit)
    with SimBoard(tmp_path) as sim:
        keyed(sim)
        sim.take_events()
        r = send(sim, bytes(data))  # the file refused as its last byte is in, sent again from its start
        assert (r["ok"], r["error"]) == (False, "corrupted") and first in r["message"], r
        assert warnings(sim) == ["update refused: " + r["message"]]
        assert asked(sim, "update_abort")["ok"]  # (this version's transfer would else go on)
        data[header + 10] ^= 1
        send(sim, bytes(data), upto=header + 2000)
        r = committed(sim)
        assert r["error"] == "incomplete" and "truncated" in r["message"]
        assert len(warnings(sim)) == 1
        assert json.loads(stored(sim)[image.POINTER]) == {"slot": "a", "good": "a"}


def test_a_transfer_waits_out_a_match_resumes_after_a_power_cut_and_boots_byte_for_byte(slot, tmp_path):
    """A clean update, the long way: half sent, a match started (the update code let go, its file open closed:
    its bytes stored; then every update command busy, the flash untouched), a power cut in the match, and once it
    is over the transfer goes on from what was stored, is committed and booted on trial to the files doce flash
    writes."""
    data = update.package(slot, 1, "t1", KEY)
    with SimBoard(tmp_path) as sim:
        keyed(sim)
        half = send(sim, data, upto=len(data) // 2)["received"]
        assert half > file_start(slot, data, half)  # a file open
        sim.place("c3", "white 4")  # the match's first piece
        sim.run(LANDING_SCANS)  # its light out: the update code goes (doce/link.py pause_update)
        before = sim.command(do="flash")
        for request in (update.begin(data), next(update.requests(data, half)), {"cmd": "update_commit"}):
            r = ask(sim, request.pop("cmd"), **request)
            assert (r["ok"], r["error"]) == (False, "busy") and r["message"].startswith("in a match"), r
        after = sim.command(do="flash")
        assert (after["erases"], after["programs"]) == (before["erases"], before["programs"])
        sim.cut_power()
        sim.power_on()
        assert ask(sim, **update.begin(data))["error"] == "busy"  # the match, from the journal
        assert not sim.command(do="send", line=json.dumps({"cmd": "new_match", "first": "black"}) + "\n").get(
            "rebooted")  # the match over (here, a new one before its first piece): nothing to switch to yet
        sim.lift("c3")  # and the board cleared (a piece on it: busy still, doce/app.py App.clear)
        r = ask(sim, **update.begin(data))
        assert r["ok"] and r["received"] == half  # (its file closed as the match began)
        assert send(sim, data)["received"] == len(data)
        r = commit(sim)
        assert r["link"] == [{"re": "update_commit", "ok": True, "version": 1, "deferred": False}]
        assert r.get("rebooted")  # switched at once: no match in play
        sim.power_on()
        sim.wait(1)
        assert [(e["stage"], e["slot"], e["version"]) for e in sim.events if e["event"] == "update"] == [
            ("done", "b", 1)]
        assert ask(sim, "hello")["version"] == 1  # the room sees which version each board runs
        on_flash = stored(sim)
    assert {p[2:]: d for p, d in on_flash.items() if p.startswith("b/doce/") or p.startswith("b/umqtt/")} == slot
    assert json.loads(on_flash[image.POINTER]) == {"slot": "b", "good": "b", "previous": "a"}


def test_an_update_begin_holds_its_scan_for_one_sector_erase_at_most(tmp_path):
    """A new transfer's update_begin on a board fresh from doce flash (no slot b yet): the slot's folder is made in
    its scan, and each of doce/ and umqtt/ by the chunk that brings its first file, each folder a sector erase (45 ms
    typical, 400 ms at most, that no scan can cut short: doce/app.py App.clear), so no scan holds two."""
    data = update.package(SMALL, 1, "t1", KEY)
    with SimBoard(tmp_path) as sim:
        keyed(sim)
        sim.command(do="flash")
        assert ask(sim, **update.begin(data))["received"] == 0
        assert sim.command(do="flash")["longest_scan"]["erases"] == 1
        assert send(sim, data)["received"] == len(data)
        assert sim.command(do="flash")["longest_scan"]["erases"] == 1
        on_flash = stored(sim)
    assert {p[2:]: d for p, d in on_flash.items() if p.startswith("b/doce/") or p.startswith("b/umqtt/")} == SMALL



# Stored, never booted here: more files than one scan should remove
LOTS = {"%s/f%d.py" % ("umqtt" if i % 4 == 0 else "doce", i): b"x = %d\n" % i for i in range(24)}


def test_a_slot_holding_an_update_is_emptied_a_file_a_scan_while_the_board_is_clear(tmp_path):
    """update_abort, or a second update's update_begin, on a slot that holds a package's files (the app's are 45)
    removes them a file a scan, its version first, and replies once the slot is empty: in one scan, the app's held
    it 577 ms at the flash's maximum times (make bench). No scan of it waits on more than one erase, nor on more
    flash programs than a begin on an empty slot; and it waits, the flash untouched, while a piece is on the
    board (an erase would hold its light: doce/app.py App.clear)."""
    one, two = update.package(LOTS, 1, "t1", KEY), update.package(SMALL, 2, "t1", KEY)
    with SimBoard(tmp_path) as sim:
        keyed(sim)
        send(sim, one)
        sim.command(do="flash")
        r, scans = ask_later(sim, "update_abort")
        aborted = sim.command(do="flash")
        assert r["ok"] and scans > len(LOTS), (r, scans)
        assert asked(sim, **update.begin(one))["received"] == 0  # the slot empty: nothing to remove
        empty = sim.command(do="flash")["longest_scan"]
        send(sim, one)
        sim.command(do="flash")
        r = sim.command(do="send", line=json.dumps(update.begin(two)) + "\n")
        assert not r.get("link")  # the reply waits for the slot's files
        sim.place("c3", "black 4")  # a player at the board: nothing more goes
        before = sim.command(do="flash")
        assert not sim.run(100).get("link")
        after = sim.command(do="flash")
        assert (after["erases"], after["programs"]) == (before["erases"], before["programs"])
        sim.lift("c3")
        replies = sim.run(10 * len(LOTS)).get("link")  # the piece seen gone, then a file a scan
        assert [(x["re"], x["ok"], x["received"]) for x in replies] == [("update_begin", True, 0)], replies
        begun = sim.command(do="flash")
        for figures in (aborted, before, begun):
            most = figures["longest_scan"]  # (+1: a commit crossing a 256-byte page is one program command more,
            # sim/device/flash.py commands; where it falls moves with the image's files: 7 to 8 as slots.py grew)
            assert most["erases"] <= 1 and most["programs"] <= empty["programs"] + 1, (most, empty)
        assert send(sim, two)["received"] == len(two)
        assert committed(sim)["version"] == 2
        on_flash = stored(sim)
    assert {p[2:]: d for p, d in on_flash.items() if p.startswith("b/doce/") or p.startswith("b/umqtt/")} == SMALL


def test_a_transfer_paused_by_a_match_lets_the_update_code_go_and_goes_on_after_it(tmp_path):
    """A match begun mid-transfer: the update code and what it holds are let go at once (kept, they took some
    22 KB of a WROVER's heap on the broker and split its largest free block 62.6 -> 27.5 KB through the match,
    r43f A2), its file open closed, its bytes stored: the match has the heap of a board with no transfer. After
    it, update_begin goes on from the very byte the transfer stood at."""
    big = {"doce/a.py": b"a" * 3000, "umqtt/b.py": b"b" * 3000}
    data = update.package(big, 1, "t1", KEY)
    heaps = {}
    for paused in (False, True):
        with SimBoard(tmp_path / str(paused)) as sim:
            keyed(sim)
            if paused:
                at = send(sim, data, upto=len(data) - 4500)["received"]  # within doce/a.py
                assert "doce.update" in sim.command(do="modules")["loaded"]
            sim.place("c3", "white 4")
            sim.place("d4", "black 2")
            sim.run(LANDING_SCANS)
            sim.command(do="heap")
            sim.run(200)
            heaps[paused] = sim.command(do="heap", largest=True)
            heaps[paused]["loaded"] = sim.command(do="modules")["loaded"]
            if paused:
                assert ask(sim, **update.begin(data))["error"] == "busy"
                sim.lift("c3")
                sim.lift("d4")
                sim.command(do="send", line=json.dumps({"cmd": "new_match", "first": "black"}) + "\n")
                assert asked(sim, **update.begin(data))["received"] == at
                assert send(sim, data)["received"] == len(data)
                assert committed(sim)["version"] == 1
    assert "doce.update" not in heaps[True]["loaded"]
    assert heaps[True]["low"] >= heaps[False]["low"] - SLACK, heaps
    assert heaps[True]["largest"] >= heaps[False]["largest"] - SLACK, heaps


def test_a_begin_whose_manifest_never_came_stops_refusing_older_versions_once_its_host_is_gone(tmp_path):
    """update_begin records its version (update.json): while that transfer is live, a begin of a version at or
    below it is a replay, refused. One whose host went before its manifest came whole (nothing of it checked or
    stored) is let go after doce/update.py STALE_MS with no update command, and the update code with it: from
    then on an older version is taken (else only update_abort, which no host sends, would free the board). A
    transfer whose manifest was checked still refuses them (its version is the slot's)."""
    nine, five = update.package(SMALL, 9, "t1", KEY), update.package(SMALL, 5, "t1", KEY)
    with SimBoard(tmp_path) as sim:
        keyed(sim)
        assert send(sim, nine, upto=update.CHUNK)["received"] == update.CHUNK  # a piece of its manifest
        for skip in (0, STALE_MS - 1000):
            sim.run(1, skip_ms=skip)
            r = asked(sim, **update.begin(five))
            assert (r["ok"], r["error"]) == (False, "refused") and "version 9, being received" in r["message"], r
        sim.run(1, skip_ms=STALE_MS)
        assert "doce.update" not in sim.command(do="modules")["loaded"]
        assert send(sim, five)["received"] == len(five)
        sim.run(1, skip_ms=STALE_MS)  # its manifest checked, stored whole: let go, still the newer
        assert "doce.update" not in sim.command(do="modules")["loaded"]
        r = asked(sim, **update.begin(update.package(SMALL, 4, "t1", KEY)))
        assert (r["ok"], r["error"]) == (False, "refused") and "version 5, being received" in r["message"], r
        assert send(sim, five)["received"] == len(five)  # begun again (its host back), and committed
        assert committed(sim)["version"] == 5


def test_refused_begins_do_not_keep_a_stale_begin_alive(tmp_path):
    """Only an update command the board takes says its host is there: a refused one (a replay of a signed begin
    from the broker, say) does not restart STALE_MS, or a stream of them would keep a begin whose host has gone
    refusing the versions below its own for ever."""
    nine, five = update.package(SMALL, 9, "t1", KEY), update.package(SMALL, 5, "t1", KEY)
    with SimBoard(tmp_path) as sim:
        keyed(sim)
        assert send(sim, nine, upto=update.CHUNK)["received"] == update.CHUNK  # a piece of its manifest
        sim.run(1, skip_ms=STALE_MS - 1000)
        r = asked(sim, **update.begin(five))
        assert (r["ok"], r["error"]) == (False, "refused") and "version 9, being received" in r["message"], r
        sim.run(1, skip_ms=2000)  # STALE_MS and more since the last command it took
        assert "doce.update" not in sim.command(do="modules")["loaded"]
        assert send(sim, five)["received"] == len(five)


# A file of the package big enough to be open between chunks (doce/update.py _append keeps it open to its last)
BIG = {"doce/big.py": b"#" * 2000 + b"\n"}


def test_a_stale_begin_is_let_go_only_once_the_board_is_clear(tmp_path):
    """Letting a stale transfer go closes the file it holds open (a LittleFS metadata commit, an erase when it
    compacts): like every other flash step of an update it waits while a piece is on the board, so a die's light
    is never held by it. Here a piece the game did not take (black's, white to open): no match in play."""
    data = update.package(BIG, 9, "t1", KEY)
    with SimBoard(tmp_path) as sim:
        keyed(sim)
        assert send(sim, data, upto=10 * update.CHUNK)["received"] == 10 * update.CHUNK  # into big.py, open
        sim.place("c3", "black 4")  # not the opener's: refused, the match not begun
        before = sim.command(do="flash")
        sim.run(1, skip_ms=2 * STALE_MS)
        sim.run(LANDING_SCANS)
        assert "doce.update" in sim.command(do="modules")["loaded"]  # held: its host gone, the board not clear
        after = sim.command(do="flash")
        assert (after["erases"], after["programs"]) == (before["erases"], before["programs"])
        sim.lift("c3")
        sim.run(LANDING_SCANS)
        assert "doce.update" not in sim.command(do="modules")["loaded"]  # let go once clear
        assert send(sim, data)["received"] == len(data)  # and it goes on from what its file stored
        assert committed(sim)["version"] == 9


def test_an_update_waits_while_a_piece_is_on_the_board(slot, tmp_path):
    """No match in play, but a player at the board: a piece down that the game did not take (here black's, white to
    open). Every update command is busy (as in a match): a flash erase holds
    the scans 45 ms typical, 400 ms at most, and the ESP32 cannot suspend it for a scan (doce/app.py App.clear), so
    the board erases only while it is clear; then the same begin is taken."""
    data = update.package(slot, 1, "t1", KEY)
    with SimBoard(tmp_path) as sim:
        keyed(sim)
        sim.place("c3", "black 4")  # not the opener's: refused, the match not begun
        before = sim.command(do="flash")
        for request in (update.begin(data), next(update.requests(data)), {"cmd": "update_commit"}, update.abort()):
            r = ask(sim, request.pop("cmd"), **request)
            assert (r["ok"], r["error"]) == (False, "busy") and r["message"].startswith("in a match or about"), r
        after = sim.command(do="flash")
        assert (after["erases"], after["programs"]) == (before["erases"], before["programs"])
        sim.lift("c3")
        r = ask(sim, **update.begin(data))
        assert r["ok"] and r["received"] == 0, r


def test_the_update_key_is_set_over_usb_only(tmp_path, monkeypatch):
    """A command from the broker (link.to: where its reply goes, doce/net.py) cannot set the key; nor is it
    written: a board's broker credentials, or anyone's who has them, give no say over its updates."""
    from doce.link import Link
    monkeypatch.chdir(tmp_path)
    sent = []
    link = Link(None, None, None, None, None)
    link.to = sent.append  # as doce/net.py sets it for a command that came on `cmd`
    line = json.dumps({"cmd": "update_key", "board": "t1", "key": KEY}).encode()
    link.handle(bytearray(line), len(line))
    assert [(r["ok"], r["error"]) for r in sent] == [(False, "usb_only")]
    assert not (tmp_path / "update.key").exists()


def test_an_update_waiting_for_its_match_is_kept_through_it_and_switched_at_its_end(slot, tmp_path):
    """An update stored and checked waits while a match is in play (it was committed as a match began, or a board
    from before kept it through a power cut): nothing the host sends in the match touches it, and it is switched
    to as the match ends, once the board is clear: never with the last match's pieces still on it (a restart
    under a player setting up the next)."""
    with SimBoard(tmp_path) as sim:
        keyed(sim)
        sim.place("c3", "white 4")  # a match in play, in the journal
    files = stored_in_b(image.read(sim.flash.read_bytes()), slot, 1)
    sim.flash.write_bytes(image.build(files))
    with SimBoard(tmp_path) as sim:
        sim.place("c3", "white 4")  # (the dice stay where they are)
        assert not sim.run(100).get("rebooted")  # waiting for the match
        for request in (update.begin(update.package(slot, 2, "t1", KEY)), update.abort()):
            assert ask(sim, request.pop("cmd"), **request)["error"] == "busy"
        r = sim.command(do="send", line=json.dumps({"cmd": "new_match", "first": "black"}) + "\n")
        assert not r.get("rebooted")  # the match over (a new one before its first piece), its piece still there
        assert not sim.run(LANDING_SCANS).get("rebooted")
        assert sim.lift("c3").get("rebooted") or sim.run(LANDING_SCANS).get("rebooted")  # the board clear: switched
        p = json.loads(stored(sim)[image.POINTER])
        assert (p["slot"], p["good"]) == ("b", "a")  # booting it on trial


def stored_in_b(files, slot, version, board_id="t1"):
    """`files` (a board's flash) with `slot` stored, checked and waiting in slot b as doce/update.py leaves it:
    the files, the manifest, its header (length and tag), its version, and update.json ready."""
    data = update.package(slot, version, board_id, KEY)
    n = int.from_bytes(data[:4], "little")
    files = dict(files)
    files.update({"b/" + p: d for p, d in slot.items()})
    files["b/manifest"] = data[4:4 + n]
    files["b/header"] = data[:4] + data[4 + n:4 + n + 32]
    files["b/version"] = str(version).encode()
    files["update.json"] = json.dumps({"ready": True, "size": len(data), "sha256": hashlib.sha256(data).hexdigest(),
                                       "slot": "b"}).encode()
    return files


SMALL = {"doce/tiny.py": b"x = 1\n", "doce/other.py": b"y = 2\n"}  # stored, never booted here
# A file in each of the slot's folders and two in one
MANY = {"doce/f0.py": b"x = 0\n", "doce/f1.py": b"x = 1\n", "umqtt/f2.py": b"x = 2\n"}


def test_an_abort_leaves_no_transfer_behind_at_once_or_after_a_reboot(tmp_path):
    """update_abort removes what a transfer stored and its update.json, at once or after a power cut (an Update
    loaded afresh knows its slot from the pointer): nothing is resumed or switched to after."""
    data = update.package(SMALL, 1, "t1", KEY)
    with SimBoard(tmp_path) as sim:
        keyed(sim)
        send(sim, data)  # all of it stored, not committed
        assert asked(sim, "update_abort")["ok"]
        assert committed(sim)["error"] == "no_transfer"
        send(sim, data)  # again, and a power cut before the abort
        sim.cut_power()
        sim.power_on()
        assert asked(sim, "update_abort")["ok"]
        assert asked(sim, **update.begin(data))["received"] == 0  # from the start: nothing was kept
        assert asked(sim, "update_abort")["ok"]
        r = sim.command(do="send", line=json.dumps({"cmd": "new_match", "first": "black"}) + "\n")
        assert not r.get("rebooted") and not sim.run(100).get("rebooted") and sim.resets == 0
        on_flash = stored(sim)
    assert "update.json" not in on_flash
    assert not [p for p in on_flash if p.startswith("b/")]
    assert json.loads(on_flash[image.POINTER]) == {"slot": "a", "good": "a"}


def test_a_version_the_board_rolled_back_from_is_refused_after(tmp_path):
    crashing = {"doce/esp32.py": b"raise RuntimeError('a broken build')\n"}
    data = update.package(crashing, 7, "t1", KEY)
    with SimBoard(tmp_path) as sim:
        keyed(sim)
        send(sim, data)
        r = commit(sim)
        assert r.get("rebooted")
        sim.power_on()  # the board boots it on trial, crashes, and goes back by itself
        sim.wait(1)
        assert sim.resets == 3
        assert [e["stage"] for e in sim.events if e["event"] == "update"] == ["rolled_back"]
        refused(sim, data, "version 7 is not newer than version 7, which this board rolled back from")
        refused(sim, update.package(crashing, 5, "t1", KEY), "rolled back from")
        assert sim.resets == 3


BEGIN_ARGS = '        size, sha = request.get("size"), request.get("sha256")\n'
BROKEN_UPDATERS = {  # doce/update.py, broken as a release might be: each makes the version unable to take an update
    "refuses every begin": (BEGIN_ARGS,
                            BEGIN_ARGS + '        raise CommandError("refused", "this updater is broken")\n'),
    "faults in the commit's read-back": ("        budget = STEP\n", "        budget = STEP // 0\n"),
}


@pytest.mark.parametrize("broken", BROKEN_UPDATERS)
def test_a_version_whose_update_code_is_broken_is_rolled_back_not_kept(slot, tmp_path, broken):
    """r43e F6: the update code lives in the slot it updates. A version whose own updater refuses or fails is
    healthy in every other way; kept, no update could reach the board again, over the broker or USB. Before it
    is kept, its trial has its update code read back the package it came in, as a begin and a commit would: it
    is given up at once, says why, and its version is refused after; the next sound version is taken."""
    from doce_host.paths import FIRMWARE_DIR
    source = (FIRMWARE_DIR / "doce" / "update.py").read_text()
    old, new = BROKEN_UPDATERS[broken]
    assert source.count(old) == 1
    (tmp_path / "update.py").write_text(source.replace(old, new))
    files = dict(slot)
    files["doce/update.mpy"] = image.compile_mpy(tmp_path / "update.py", "doce/update.py", march="host")
    data = update.package(files, 2, "t1", KEY)
    with SimBoard(tmp_path / "board") as sim:
        keyed(sim)
        sent_whole(sim, data)
        assert commit(sim).get("rebooted")
        sim.power_on()  # on trial: scans, healthy, then its updater's check of itself fails
        sim.wait(3)
        assert sim.resets == 1  # given up at once (no match in play), not at the deadline
        [(stage, failed, reason)] = [(e["stage"], e.get("slot"), e.get("reason")) for e in sim.events
                                     if e["event"] == "update"]
        assert (stage, failed) == ("rolled_back", "b") and reason.startswith("its update code refused the package "
                                                                             "it came in"), reason
        assert ("this updater is broken" if "begin" in broken else "ZeroDivisionError") in reason
        assert ask(sim, "hello")["version"] == 0
        refused(sim, data, "version 2 is not newer than version 2, which this board rolled back from")
        sent_whole(sim, update.package(slot, 3, "t1", KEY))  # the release that mends it
        assert commit(sim).get("rebooted")
        sim.power_on()
        sim.wait(3)
        assert [e["stage"] for e in sim.events if e["event"] == "update"] == ["done"]
        assert ask(sim, "hello")["version"] == 3
        assert sim.resets == 1
        on_flash = stored(sim)
    assert json.loads(on_flash[image.POINTER]) == {"slot": "b", "good": "b", "previous": "a", "given_up": 2}


def test_a_slot_on_trial_reads_back_its_own_package_and_nothing_is_written_or_emptied(tmp_path, monkeypatch):
    """doce/update.py check (doce/trial.py, before a slot on trial is kept): the running slot's own package begun
    and committed through the same code as an update, the slot the running one. Whole, it passes, also with a
    header an older updater stored (no package SHA-256 in it); a byte changed, a file cut or the header gone is
    refused, and the running slot, the pointer and the room's warnings are left as they were."""
    import types

    from doce.link import Link
    from doce_host.paths import FIRMWARE_DIR
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(FIRMWARE_DIR))
    monkeypatch.delitem(sys.modules, "slots", raising=False)
    monkeypatch.delitem(sys.modules, "doce.update", raising=False)
    sent, told = [], []
    link = Link(None, None, None, None, None)
    app = types.SimpleNamespace(emit=told.append, update_ready=None, in_play=lambda: False, clear=lambda: True)
    link.app = app
    link.send = sent.append
    three = {"doce/a.py": b"a" * 5000, "doce/e.py": b"", "umqtt/b.py": b"b" * 9000}
    data = update.package(three, 4, "t1", KEY)
    assert handled(link, sent, {"cmd": "update_key", "board": "t1", "key": KEY})["ok"]
    assert handled(link, sent, update.begin(data))["ok"]
    for request in update.requests(data):
        assert handled(link, sent, request)["ok"]
    assert handled(link, sent, {"cmd": "update_commit"})["version"] == 4
    import slots
    on_trial = {"slot": "b", "good": "a", "tries": 0, "booted": True}
    slots.write(on_trial)  # (doce/app.py's switch, and the boot's count)
    (tmp_path / "update.json").unlink()
    monkeypatch.setattr(slots, "state", dict(on_trial))  # (this boot's choice: slot b on trial)
    from doce import update as board_update
    from doce.arguments import CommandError
    header = (tmp_path / "b/header").read_bytes()
    assert len(header) == 4 + 32 + 32 and header[36:] == hashlib.sha256(data).digest()

    def check():
        u = board_update.check(app)
        scans = 1
        while True:
            result = u.step()
            if result is not None:
                return result, scans
            scans += 1

    def files():
        return {p.relative_to(tmp_path).as_posix(): p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}

    before = files()
    result, scans = check()
    assert result == {"version": 4}
    # a part a scan: the manifest, then each file, at most STEP bytes a scan and one file ended
    assert scans == 1 + sum(max(1, -(-len(d) // board_update.STEP)) for d in three.values())
    (tmp_path / "b/header").write_bytes(header[:36])  # stored by an updater from before the check
    assert check()[0] == {"version": 4}
    (tmp_path / "b/header").write_bytes(header)
    assert files() == before
    for path, damaged, why in (("b/umqtt/b.py", b"b" * 8999 + b"c", "corrupted: umqtt/b.py"),
                               ("b/doce/a.py", b"a" * 4999, "the manifest's files come to"),  # (size: what is there)
                               ("b/header", None, "")):
        kept = (tmp_path / path).read_bytes()
        if damaged is None:
            (tmp_path / path).unlink()
            with pytest.raises(OSError):
                check()
        else:
            (tmp_path / path).write_bytes(damaged)
            with pytest.raises(CommandError) as refusal:
                check()
            assert refusal.value.args[0] == "refused" and why in refusal.value.args[1], refusal.value.args
        (tmp_path / path).write_bytes(kept)
        assert files() == before  # nothing emptied, nothing written
    assert not told and not sent
    assert json.loads((tmp_path / "slot.json").read_text()) == on_trial


def slot_b(tmp_path):
    return sorted(str(p.relative_to(tmp_path / "b")) for p in (tmp_path / "b").rglob("*") if p.is_file())


@pytest.mark.parametrize("failing", ["remove b/doce/", "remove b/version", "rename update.json"])
def test_a_flash_error_while_a_slot_is_emptied_ends_the_transfer_and_a_begin_empties_it_again(
        tmp_path, monkeypatch, failing):
    """An OSError from the file system (EIO: a bad block; ENOSPC) as a begin empties the slot, in its own scan
    (the version file, before update.json) or in a later one (a file a scan), or writes its record once the slot
    is empty (update.json): the begin answers `failed` and the
    transfer is over, so no chunk (unsigned: anyone's on the broker) goes into a slot half emptied with no
    update.json to name it; nothing names the slot (no version, no record) for a boot to switch to, and the next
    begin, this boot or the next, empties it again and stores the package whole, with nothing left of the other."""
    import errno
    import os
    link, do, told = cpython_link(tmp_path, monkeypatch)
    five, six = update.package(MANY, 5, "t1", KEY), update.package(SMALL, 6, "t1", KEY)
    assert do(update.begin(five))["ok"]
    for request in update.requests(five):
        assert do(request)["ok"]
    real, failed = {"remove": os.remove, "rename": os.rename}, []

    def faulty(name):
        def call(path, *to):
            if name == failing.split()[0] and (to[0] if to else path).startswith(failing.split()[1]) and not failed:
                failed.append(path)
                raise OSError(errno.EIO, "EIO")
            real[name](path, *to)
        return call
    monkeypatch.setattr(os, "remove", faulty("remove"))
    monkeypatch.setattr(os, "rename", faulty("rename"))
    r = do(update.begin(six))
    assert failed and (r["ok"], r["error"]) == (False, "failed") and "EIO" in r["message"], r
    r = do(next(update.requests(six)))
    assert (r["ok"], r["error"]) == (False, "no_transfer"), r
    assert link.update is None and "doce.update" not in sys.modules  # over, its code let go
    record = tmp_path / "update.json"  # gone, or (the version file's removal failed, before it) not ready
    assert not record.exists() or not json.loads(record.read_text()).get("ready")
    import slots
    assert slots.read().get("previous") != "b"
    assert do(update.begin(six))["ok"]
    for request in update.requests(six):
        assert do(request)["ok"]
    assert do({"cmd": "update_commit"})["version"] == 6
    assert slot_b(tmp_path) == ["doce/other.py", "doce/tiny.py", "header", "manifest", "version"]


def test_a_package_bigger_than_the_free_flash_is_refused_at_its_begin(tmp_path):
    with SimBoard(tmp_path) as sim:
        keyed(sim)
        sim.take_events()
        r = ask(sim, "update_begin", size=2000000, sha256="ab" * 32, version=1)
        assert r["ok"] is False and r["error"] == "refused" and "free" in r["message"], r
        [told] = warnings(sim)
        assert told == "update refused: " + r["message"]
        assert "update.json" not in stored(sim)


def test_an_empty_file_is_installed_and_a_deeply_nested_manifest_refused(tmp_path):
    with_empty = {"doce/tiny.py": b"x = 1\n", "doce/empty.py": b""}
    import hashlib
    import hmac
    deep = b'{"version":2,"board":"t1","files":' + b"[" * 3000 + b"]" * 3000 + b"}"
    nested = len(deep).to_bytes(4, "little") + deep + hmac.new(bytes.fromhex(KEY), deep, hashlib.sha256).digest()
    with SimBoard(tmp_path) as sim:
        keyed(sim)
        sim.take_events()
        assert send(sim, update.package(with_empty, 1, "t1", KEY))["ok"]
        r = committed(sim)
        assert r["ok"] and r["version"] == 1, r
        assert not warnings(sim)
        refused(sim, nested, "not one this firmware reads", named=("t1", 2))


def test_update_begin_and_abort_from_the_broker_must_be_signed(tmp_path, monkeypatch):
    """Broker credentials alone (anyone's on an open broker) neither start nor drop an update: a begin or an abort
    that came on `cmd` carries the HMAC of what it asks under the board's key, or is refused in one warning."""
    _, do, told = cpython_link(tmp_path, monkeypatch, broker=True)
    data = update.package(SMALL, 1, "t1", KEY)

    # unsigned, signed with another key, signed for version 1 but naming 2 (a replay re-dressed), for board t2
    for request in (update.begin(data), update.begin(data, OTHER_KEY), dict(update.begin(data, KEY), version=2),
                    update.begin(data, KEY, named=("t2", 1))):
        r = do(request)
        assert (r["ok"], r["error"]) == (False, "refused") and "signature" in r["message"]
        assert told.pop()["message"] == "update refused: " + r["message"] and not told
    assert not (tmp_path / "update.json").exists()
    r = do(update.begin(data, KEY))
    assert r["ok"], r
    assert (tmp_path / "update.json").exists()
    for request in (update.abort(), update.abort(KEY, b"another package")):
        assert do(request)["error"] == "refused" and len(told) == 1
        told.clear()
    assert (tmp_path / "update.json").exists()  # the stored transfer kept
    assert do(update.abort(KEY, data))["ok"]
    assert not (tmp_path / "update.json").exists()


def test_an_update_waiting_in_a_slot_given_up_is_not_switched_to_again(tmp_path):
    """A cut between the switch to a stored update and the removal of its update.json leaves that record behind;
    once the board has rolled back from the version, the record must not send it back to the same slot."""
    with SimBoard(tmp_path) as sim:
        keyed(sim)
        sim.stop()
        files = image.read(sim.flash.read_bytes())
    files = stored_in_b(files, image.slot_files(files), 5)
    files[image.POINTER] = json.dumps({"slot": "a", "good": "a", "given_up": 5}).encode()
    sim.flash.write_bytes(image.build(files))
    with SimBoard(tmp_path) as sim:
        sim.wait(1)
        assert not sim.command(do="send", line=json.dumps({"cmd": "new_match", "first": "black"}) + "\n").get(
            "rebooted")
        assert not sim.run(100).get("rebooted") and sim.resets == 0
        assert json.loads(stored(sim)[image.POINTER]) == {"slot": "a", "good": "a", "given_up": 5}


def test_a_replayed_begin_of_an_older_package_keeps_the_transfer_in_progress(tmp_path):
    """update_begin names the version, under the signature: a recorded begin of an older package (newer than the
    running version, superseded) is refused before it touches a newer package's transfer in progress, which goes
    on from where it stood; a begin must name the version its manifest holds."""
    three = {"doce/a.py": b"a" * 700, "doce/b.py": b"b" * 700, "doce/c.py": b"c" * 700}
    six = update.package(three, 6, "t1", KEY)
    with SimBoard(tmp_path) as sim:
        keyed(sim)
        at = send(sim, six, upto=len(six) - 900)["received"]
        sim.take_events()
        for older in (5, 6 - 1, 2):
            r = ask(sim, **update.begin(update.package(SMALL, older, "t1", KEY)))
            assert (r["ok"], r["error"]) == (False, "refused") and "not newer than version 6, being received" in r[
                "message"], r
            assert warnings(sim) == ["update refused: " + r["message"]]
        assert ask(sim, **update.begin(six))["received"] == at  # goes on
        assert send(sim, six)["received"] == len(six)
        sim.cut_power()  # a cut, and the replay after it: the transfer is known from its record
        sim.power_on()
        assert ask(sim, **update.begin(update.package(SMALL, 5, "t1", KEY)))["error"] == "refused"
        assert ask(sim, **update.begin(six))["received"] == len(six)
        sim.take_events()
        assert asked(sim, **dict(update.begin(six), version=9))["ok"]  # (over USB: no signature) a newer one: afresh
        for request in update.requests(six):
            r = ask(sim, request.pop("cmd"), **request)
            if not r["ok"]:
                break
        assert r["error"] == "refused" and "not the one update_begin named, 9" in r["message"], r


def test_a_signed_begin_fits_a_command_from_the_broker():
    """A command from the broker is one line of at most 200 bytes (doce/link.py MAX_LINE, doce/net.py): the
    begin of the biggest package, a version in seconds for years to come, a long request id and its sig fit."""
    from doce.link import MAX_LINE
    data = update.package({"doce/x.py": b"1"}, 9_999_999_999, "b" * 64, KEY)
    request = dict(update.begin(data, KEY), id=999_999, size=2 ** 21)
    assert len(json.dumps(request, separators=(",", ":"))) <= MAX_LINE


def test_a_transfer_erases_a_flash_sector_a_block_it_fills_not_one_a_chunk(slot, tmp_path):
    """Each 96-byte chunk appended to its file, opened and closed, cost a 4 KB sector erase (LittleFS copies
    a file's partly filled last block to a new one at each append), some 46 ms at one chunk a scan on the
    board's flash (sim/device/flash.py), mid-match too. Kept open from its first chunk to its last, a file
    costs a sector a block it fills, and the closes their directory's commits."""
    data = update.package(slot, 1, "t1", KEY)
    head = 4 + int.from_bytes(data[:4], "little") + 32
    with SimBoard(tmp_path) as sim:
        keyed(sim)
        send(sim, data, upto=head + update.CHUNK)  # the manifest checked, the slot's header written
        before = sim.command(do="flash")
        end = send(sim, data, upto=head + 40000)["received"]
        after = sim.command(do="flash")
    erases = after["erases"] - before["erases"]
    at, files = head, 0  # the files the chunks wrote into, and the blocks they filled
    blocks = 0
    for d in slot.values():
        k = max(0, min(len(d), end - at))
        if k:
            files += 1
            blocks += -(-k // 4096)
        at += len(d)
    assert erases <= blocks + files, (erases, blocks, files, (end - head) // update.CHUNK)
    assert after["longest_scan"]["erases"] <= 1  # and one scan waits for one erase at most


def test_an_update_into_the_slot_before_the_running_one_drops_it_as_the_one_to_go_back_to(slot, tmp_path):
    """A slot marked good may go back to the one before it (firmware/slots.py `previous`) while that is whole. The
    first write of a new update into it makes it no longer so: the pointer forgets it first, then it is emptied."""
    with SimBoard(tmp_path) as sim:
        keyed(sim)
    files = image.read(sim.flash.read_bytes())
    files.update({"b/" + p: d for p, d in slot.items()})
    files["b/version"] = b"1"
    files[image.POINTER] = json.dumps({"slot": "b", "good": "b", "previous": "a"}).encode()
    sim.flash.write_bytes(image.build(files))
    with SimBoard(tmp_path) as sim:
        assert asked(sim, **update.begin(update.package(SMALL, 2, "t1", KEY)))["slot"] == "a"
        on_flash = stored(sim)
    assert json.loads(on_flash[image.POINTER]) == {"slot": "b", "good": "b"}
    assert not [p for p in on_flash if p.startswith("a/doce/")]


def test_every_update_command_is_busy_in_a_match_before_the_update_code_loads(tmp_path, monkeypatch):
    """A match in play (from its first piece to its end): update_begin, _chunk, _commit and _abort are answered
    `busy`, naming the match, and doce/update.py is not even loaded: no flash write, no hash, no module's load
    holds a scan of the match (a sector erase is 45 ms typical, 400 ms at most: sim/device/flash.py)."""
    monkeypatch.delitem(sys.modules, "doce.update", raising=False)
    playing = [True]
    _, do, told = cpython_link(tmp_path, monkeypatch, key=False, broker=True, in_play=lambda: playing[0])
    data = update.package(SMALL, 1, "t1", KEY)
    requests = [update.begin(data, KEY), next(update.requests(data)), {"cmd": "update_commit"}, update.abort(KEY)]
    for request in requests:
        r = do(request)
        assert (r["ok"], r["error"]) == (False, "busy") and r["message"].startswith("in a match"), r
        assert not told
    assert "doce.update" not in sys.modules and not list(tmp_path.iterdir())
    playing[0] = False  # the match over: the same begin is taken (here refused: no key, but by doce/update.py)
    assert do(requests[0])["error"] == "refused" and "doce.update" not in sys.modules  # let go again


def test_unsigned_chunks_and_commits_from_the_broker_cost_at_most_one_file_never_the_transfer(tmp_path, monkeypatch):
    """update_chunk and update_commit carry no signature (one a 96-byte chunk would not fit a command's 200 bytes):
    with broker credentials alone, a commit before the last byte is refused and changes nothing, and a chunk of
    other bytes at the right offset costs the file it completes (removed, sent again from its start), never the
    files stored before it nor the transfer (r43d: either emptied the slot)."""
    import base64

    _, do, told = cpython_link(tmp_path, monkeypatch, broker=True)
    three = {"doce/a.py": b"a" * 300, "doce/z.py": b"z" * 50, "doce/b.py": b"b" * 200}
    data = update.package(three, 1, "t1", KEY)
    z = len(data) - 250  # where doce/z.py starts

    def chunk(at, piece):
        return do({"cmd": "update_chunk", "offset": at, "data": base64.b64encode(piece).decode()})

    assert do(update.begin(data, KEY))["received"] == 0
    at = 0
    while at < z:
        at = chunk(at, data[at:min(at + update.CHUNK, z)])["received"]
    r = do({"cmd": "update_commit"})  # anyone's, early
    assert (r["ok"], r["error"]) == (False, "incomplete") and "truncated" in r["message"], r
    assert told.pop()["message"] == "update refused: " + r["message"] and not told
    r = chunk(z, bytes(50))  # anyone's bytes where doce/z.py goes
    assert (r["ok"], r["error"]) == (False, "corrupted") and "doce/z.py" in r["message"], r
    assert told.pop()["message"] == "update refused: " + r["message"] and not told
    assert (tmp_path / "update.json").exists() and (tmp_path / "b/doce/a.py").read_bytes() == three["doce/a.py"]
    assert not (tmp_path / "b/doce/z.py").exists()
    for request in update.requests(data, z):  # the organiser's chunks go on from where they were
        assert do(request)["ok"]
    r = do({"cmd": "update_commit"})
    assert r["ok"] and r["version"] == 1 and not told, r


def test_a_begin_refused_before_it_touches_the_transfer_leaves_the_transfer_going(tmp_path, monkeypatch):
    """A begin refused with what is stored kept (not newer) leaves the transfer this Update holds as it was: the
    slot's file still open (never dropped open, to a garbage collection: two handles of one file, the last close
    wins, r43d), the chunks going on; and a begin refused with no transfer lets the update code go."""
    link, do, _ = cpython_link(tmp_path, monkeypatch)
    data = update.package({"doce/a.py": b"a" * 3000}, 6, "t1", KEY)
    assert do(update.begin(update.package(SMALL, 0, "t1", KEY)))["error"] == "refused" and link.update is None

    assert do(update.begin(data))["ok"]
    requests = update.requests(data)
    for request in itertools.islice(requests, 10):
        assert do(request)["ok"]
    u, held = link.update, link.update.out  # doce/a.py, open
    assert held is not None and not held.closed
    for older in (0, 5):
        r = do(update.begin(update.package(SMALL, older, "t1", KEY)))
        assert r["error"] == "refused" and "not newer" in r["message"], r
        assert link.update is u and u.out is held and not held.closed
    assert do(next(requests))["received"] == 11 * update.CHUNK


def test_a_reflash_keeps_the_floor_below_which_signed_packages_are_replays(tmp_path, monkeypatch):
    """doce flash (--app-only too) writes slot.json afresh: version 0 running, nothing given up. The key file
    (kept by --app-only; given again by doce config update-key after a full flash, with the room's record of the
    highest version signed for the board as `floor`) keeps the highest version the board took or was told of, so
    no recorded package at or below it installs again."""
    _, do, _ = cpython_link(tmp_path, monkeypatch, key=False)
    assert do({"cmd": "update_key", "board": "t1", "key": KEY})["ok"]
    three = update.package(SMALL, 3, "t1", KEY)
    assert do(update.begin(three))["ok"]
    for request in update.requests(three):
        assert do(request)["ok"]
    assert do({"cmd": "update_commit"})["version"] == 3
    assert do(update.begin(three))["received"] == len(three)  # the host asks again (a reply lost): still stored
    assert do({"cmd": "update_commit"})["version"] == 3
    # doce flash --app-only: the app's files and slot.json afresh; update.key is the board's and stays
    (tmp_path / "slot.json").write_text(json.dumps({"slot": "a", "good": "a"}))
    (tmp_path / "update.json").unlink()
    r = do(update.begin(three))
    assert r["error"] == "refused" and "not newer than version 3" in r["message"], r
    # a full flash: nothing left; the key given again, with the room's floor (doce config update-key)
    for path in tmp_path.iterdir():  # a full flash writes a new filesystem, its pointer doce flash's
        shutil.rmtree(path) if path.is_dir() else path.unlink()
    (tmp_path / "slot.json").write_text(json.dumps({"slot": "a", "good": "a"}))
    sys.modules["slots"].state = None  # and the board boots afresh
    assert do({"cmd": "update_key", "board": "t1", "key": KEY, "floor": 5})["ok"]
    r = do(update.begin(update.package(SMALL, 5, "t1", KEY)))
    assert r["error"] == "refused" and "not newer than version 5" in r["message"], r
    assert do(update.begin(update.package(SMALL, 6, "t1", KEY)))["ok"]
    assert do({"cmd": "update_abort"})["ok"]
    assert do({"cmd": "update_key", "board": "t1", "key": KEY})["ok"]  # given again without one: kept
    r = do(update.begin(update.package(SMALL, 4, "t1", KEY)))
    assert r["error"] == "refused" and "not newer than version 5" in r["message"], r


def test_a_begin_past_the_highest_version_a_room_shows_is_refused(tmp_path, monkeypatch):
    """A version is at most 12 digits (docs/protocol.schema.json "version"): past it, a board that took it would
    say a version no room shows, and refuse every later one as a replay."""
    from doce.update import MAX_VERSION
    _, do, _ = cpython_link(tmp_path, monkeypatch)
    for version, error in ((MAX_VERSION + 1, "bad_argument"), (MAX_VERSION, None)):
        r = do(update.begin(update.package(SMALL, version, "t1", KEY)))
        assert r.get("error") == error, r


def test_a_commit_reading_back_is_answered_when_a_begin_or_abort_ends_it(tmp_path, monkeypatch):
    """update_commit reads back a part a scan; a command that comes meanwhile never leaves it unanswered (its host
    would see a timeout, not a reason): the same package's begin answers where it stands and the read-back goes on
    to its reply; an abort, or another package's begin, ends it, answered `aborted` at once, and then replies itself
    once the slot is empty. Once switched to the new version (restarting into it, or on trial) an abort is `trial`:
    there is nothing to abort, and `ok` would say the update was dropped."""
    link, do, _ = cpython_link(tmp_path, monkeypatch)
    (tmp_path / "slot.json").write_text(json.dumps({"slot": "a", "good": "a"}))  # as doce flash writes it
    sent = link.send.__self__

    def stored(version):
        data = update.package({"doce/a.py": bytes([version]) * 20000}, version, "t1", KEY)
        assert do(update.begin(data))["ok"]
        for request in update.requests(data):
            assert do(request)["ok"]
        return data

    def reading(ident):
        line = json.dumps({"cmd": "update_commit", "id": ident}).encode()
        link.handle(bytearray(line), len(line))
        link.update.scan()
        assert not sent and link.update.asker is not None  # (some 5 scans of STEP bytes)

    six = stored(6)
    reading(1)
    assert do(update.begin(six)) == {"re": "update_begin", "ok": True, "received": len(six), "slot": "b"}
    while not sent:
        link.update.scan()
    assert sent.pop() == {"re": "update_commit", "id": 1, "ok": True, "version": 6, "deferred": False}
    for ending, why in ((update.abort(), "the update is dropped"),
                        (update.begin(update.package(SMALL, 9, "t1", KEY)), "another package replaces it")):
        stored(7)
        reading(2)
        line = json.dumps(ending).encode()
        link.handle(bytearray(line), len(line))
        assert sent.pop(0) == {"re": "update_commit", "id": 2, "ok": False, "error": "aborted",
                               "message": "%s came before its reply: %s" % (ending["cmd"], why)}
        while not sent:
            link.update.scan()
        assert sent.pop(0)["ok"] and not sent  # the abort, or the begin, once the slot is empty
        if ending["cmd"] == "update_begin":
            assert do(update.abort())["ok"]
    for first, then, answer in (  # the slot emptying for one command when the other comes
            (update.begin(update.package(SMALL, 10, "t1", KEY)), update.abort(),
             {"re": "update_begin", "ok": False, "error": "aborted",
              "message": "update_abort came before its reply: the update is dropped"}),
            (update.abort(), update.begin(update.package(SMALL, 11, "t1", KEY)),
             {"re": "update_abort", "ok": True})):  # (its transfer dropped: the begin's emptying goes on)
        stored(first["cmd"] == "update_begin" and 8 or 9)
        for request in (first, then):
            line = json.dumps(request).encode()
            link.handle(bytearray(line), len(line))
        assert sent.pop(0) == answer and not sent
        while not sent:
            link.update.scan()
        assert sent.pop(0) == {"re": then["cmd"], "ok": True, **({"received": 0, "slot": "b"} if "size" in then
                                                                  else {})}
    (tmp_path / "slot.json").write_text(json.dumps({"slot": "b", "good": "a"}))  # switched: restarting into b
    r = do(update.abort())
    assert (r["ok"], r["error"]) == (False, "trial"), r
