"""Power cuts at every flash write of an update, as tests/board/test_power.py cuts the journal's: in a chunk's
append (mid-file, and the one that completes a file and reads it back), in update_commit's record, in the
switch to the new slot (the pointer's write and rename), and in the trial's own pointer writes. After each cut
the board boots the old version or the new, never neither, and the update then completes."""

import json

import pytest

from doce_host import image, update
from doce_host.sim import SimBoard
from test_slots import pointer_of
from test_update import KEY, SMALL, commit, keyed, send, sent_whole

LAST = 3  # chunks not sent before the snapshot: two within the last file, then the one that ends it
# Scans after a boot for the board to be up: a slot on trial is healthy after firmware/slots.py UP_SCANS (100,
# doce/trial.py HEALTHY_SCANS) and a stored update switched to at the first scan free of a match; three times that
UP = 3 * 100


@pytest.fixture(scope="module")
def package():
    return update.package(image.slot_files(image.app_files(chip="host")), 1, "t1", KEY)


@pytest.fixture(scope="module")
def snapshot(package, tmp_path_factory):
    """A board's flash with the package sent but its last LAST chunks (the long way, once): all stored but the
    last file, which was still open (doce/update.py stores a file at its close), so sent again whole."""
    with SimBoard(tmp_path_factory.mktemp("reference")) as sim:
        keyed(sim)
        upto = (len(package) - 1) // update.CHUNK * update.CHUNK - (LAST - 1) * update.CHUNK
        assert sent_whole(sim, package, upto=upto)["received"] == upto
        sim.stop()
        return sim.flash.read_bytes()


def board(tmp_path, flash):
    tmp_path.mkdir(parents=True)
    (tmp_path / "flash.img").write_bytes(flash)
    return SimBoard(tmp_path)


def booted(sim):
    """The board came up (a boot event, a state) on a slot whose files are all there."""
    assert [e for e in sim.events if e["event"] == "boot"], sim.events
    assert sim.state()["mode"]
    assert sim.resets == 0 and not sim.scan_faults


def finished(sim, package):
    """From wherever the cut left it: resumed, committed, switched, and healthy on the new slot."""
    sim.run(UP)  # an update stored and checked switches at the first scan free of a match (it restarts)
    if pointer_of(sim, on_again=True) == {"slot": "a", "good": "a"}:
        assert sending(sim, package)["received"] == len(package)
        r = commit(sim)
        assert r["link"][0]["ok"] and r.get("rebooted"), r
    sim.run(UP)  # up: healthy, marked good, the boot's count (made while the slot before is whole) cleared
    assert pointer_of(sim) == {"slot": "b", "good": "b", "previous": "a"}  # (not booted again: nothing follows)


def later(sim, request, limit=1000):
    """`request` sent, and the scans until its one reply (an update_begin or update_abort empties the slot a file
    a scan first, doce/update.py _empty), or until the power goes: the reply, None if the power went."""
    reply = sim.command(do="send", line=json.dumps(request) + "\n")
    for _ in range(limit):
        if sim.power_was_cut:
            return None
        if reply.get("link"):
            [r] = reply["link"]
            return r
        reply = sim.run(1)
    raise AssertionError("no reply to %s in %d scans" % (request["cmd"], limit))


def sending(sim, package):
    """The rest of the package from where the board stands, till the power goes (if it does): the last reply."""
    r = later(sim, update.begin(package))
    if r is None:
        return None
    assert r["ok"], r
    for request in update.requests(package, r["received"]):
        reply = sim.command(do="send", line=json.dumps(request) + "\n")
        if sim.power_was_cut:
            return None
        [r] = reply["link"]
        assert r["ok"], r
    return r


def cut_each_write(tmp_path, flash, package, act):
    """`act(sim)` with the power cut at its 1st, 2nd, ... flash write, until it needs no more: each time the
    board boots again, old or new, and the update completes. Returns the writes cut."""
    cuts = 0
    for write in range(1, 200):
        with board(tmp_path / str(write), flash) as sim:
            sim.cut_power_at_flash_write(after=write, torn=True)
            act(sim)
            if not sim.power_was_cut:
                return cuts
            cuts += 1
            sim.power_on()
            booted(sim)
            finished(sim, package)
    raise AssertionError("more than 200 writes")


def test_a_cut_in_any_chunk_write_resumes(tmp_path, snapshot, package):
    def rest(sim):
        sending(sim, package)
    assert cut_each_write(tmp_path, snapshot, package, rest) >= LAST  # the last file's blocks, its close


def test_a_cut_in_the_commit_or_the_switch_boots_old_or_new(tmp_path, snapshot, package):
    with board(tmp_path / "whole", snapshot) as sim:
        send(sim, package)
        sim.stop()
        whole = sim.flash.read_bytes()

    def committing(sim):
        assert sending(sim, package)["received"] == len(package)  # a begin: all of it there, nothing written
        commit(sim)  # and its read-back, a part a scan, to its writes
    assert cut_each_write(tmp_path / "cuts", whole, package, committing) >= 2  # the record, the pointer


def test_a_cut_in_the_trials_pointer_writes_boots_old_or_new(tmp_path, snapshot, package):
    with board(tmp_path / "switched", snapshot) as sim:
        send(sim, package)
        assert commit(sim).get("rebooted")
        sim.stop()
        switched = sim.flash.read_bytes()  # on trial from the next boot

    def trial(sim):
        sim.wait(1)  # healthy: marked good
    assert cut_each_write(tmp_path / "cuts", switched, package, trial) >= 1


# Stored, never booted here: a file in each of the slot's folders and two in one, so a cut falls after each
# folder's first file and between two of one folder's (an emptying's writes are a few of its own and one a file)
MANY = {"doce/f0.py": b"x = 0\n", "doce/f1.py": b"x = 1\n", "umqtt/f2.py": b"x = 2\n"}


@pytest.fixture(scope="module")
def whole(tmp_path_factory):
    """A board keyed and version 5 (MANY) stored whole in slot b, not yet committed."""
    folder = tmp_path_factory.mktemp("whole")
    with SimBoard(folder) as sim:
        keyed(sim)
        send(sim, update.package(MANY, 5, "t1", KEY))
        sim.stop()
        return sim.flash.read_bytes()


@pytest.mark.parametrize("emptying", ["update_abort", "update_begin of another package"])
def test_a_cut_while_a_stored_transfer_is_emptied_leaves_one_that_completes(tmp_path, whole, emptying):
    """The record of the transfer (update.json) goes before the slot's first file, and the slot's version and
    header before its other files, a file a scan (doce/update.py _empty): after a cut at any write of the
    emptying, in any of its scans, the board boots the good version, and the package sent again is stored whole
    and checked (a begin resumes only into files that are all there; a slot half emptied has no header, so it
    is emptied again). A match in play answers these busy (doce/link.py): an update stored and waiting for its
    end is switched to, never emptied, so only a transfer is."""
    five = update.package(MANY, 5, "t1", KEY)
    other = update.begin(update.package(SMALL, 6, "t1", KEY))
    request = {"cmd": "update_abort"} if emptying == "update_abort" else other
    cuts = 0
    for write in range(1, 200):
        with board(tmp_path / str(write), whole) as sim:
            sim.cut_power_at_flash_write(after=write, torn=True)
            if later(sim, request) is not None:
                break
            cuts += 1
            sim.power_on()
            booted(sim)
            assert pointer_of(sim, on_again=True) == {"slot": "a", "good": "a"}, write
            if emptying != "update_abort":  # version 6's begin may have been taken: dropped first
                assert later(sim, {"cmd": "update_abort"})["ok"]
            assert sending(sim, five)["received"] == len(five)
            r = commit(sim)
            assert r["link"][0]["ok"] and r["link"][0]["version"] == 5, (write, r)
    # the record, then the slot's version, header, manifest and each of its files, a scan each
    assert cuts >= 1 + 3 + len(MANY)
