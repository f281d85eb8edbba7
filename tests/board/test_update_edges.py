"""Edges of an app update a hostile review found (r43g; its replays in the issue's notes): a begin too big for the
flash refused before it empties the slot to go back to, a package with no umqtt/ passing its own check on trial, a
commit's read-back that waits for a clear board; and r43h's: a board whose pointer (slot.json and its backup)
is lost rebuilds it from the slots' version files (firmware/slots.py), so a slot whose update was refused or
aborted must never be picked then: its version file goes in the command's own scan, before update.json."""

import json

import pytest
from littlefs import LittleFS

from doce_host import image, update

BOARD = "r43g"
# The app's files by name, each a line: as many files as the app (a begin's emptying and a commit's read-back take
# a scan a file, doce/update.py) in some 2 KB, not its 185 KB, where the edge is not the new version coming up.
# A slot of it never boots (no code in it): the tests that use it also see that no boot of it was tried.
NAMES = sorted(image.slot_files(image.app_files(chip="host")))


def light_package(version, key):
    return update.package({p: b"# " + p.encode() + b"\n" for p in NAMES}, version, BOARD, key)


def ask(sim, scans=5, **request):
    """One request over the simulated USB link: its reply."""
    out = sim.command(do="send", line=json.dumps(request) + "\n", scans=scans)
    replies = [x for x in out.get("link", []) if "re" in x]
    return replies[-1] if replies else {}


def sent(sim, data):
    """The package's begin and every chunk, not committed."""
    assert ask(sim, **update.begin(data)).get("ok")
    reqs = list(update.requests(data, 0))
    for i in range(0, len(reqs), 40):
        out = sim.command(do="send", line="\n".join(json.dumps(q) for q in reqs[i:i + 40]), paced=True, scans=1)
        assert all(x.get("ok") for x in out.get("link", []) if "re" in x)


def edited(sim, change):
    """The board off, `change(fs)` done to its flash's file system, the board on again."""
    sim.cut_power()
    fs = LittleFS(block_size=image.BLOCK_SIZE, block_count=image.BLOCK_COUNT, mount=False)
    fs.context.buffer = bytearray(sim.flash.read_bytes())
    fs.mount()
    change(fs)
    fs.unmount()
    sim.flash.write_bytes(bytes(fs.context.buffer))
    sim.power_on()


def write(fs, path, data):
    with fs.open(path, "wb") as f:
        f.write(data)


def commit_reply(sim, most):
    for _ in range(most):
        got = [x for x in sim.run(1).get("link", []) if x.get("re") == "update_commit"]
        if got or sim.resets:
            return got[0] if got else None
    return None


def update_event(sim, most=40):
    for _ in range(most):
        sim.run(25)
        found = [e for e in sim.take_events() if e.get("event") == "update"]
        if found:
            return found[-1]
    return None


def slot_files(sim, slot):
    return [p for p in image.read(sim.flash.read_bytes()) if p.startswith(slot + "/doce/")]


def pointer(sim):
    return json.loads(image.read(sim.flash.read_bytes())["slot.json"])


@pytest.fixture
def keyed(sim):
    key = update.new_key()
    assert ask(sim, cmd="update_key", board=BOARD, key=key).get("ok")
    return sim, key


def test_a_begin_refused_for_flash_space_keeps_the_slot_to_go_back_to(keyed):
    """A begin too big for the flash, counting the inactive slot's files as free, is refused before a file of that
    slot goes: it is the way back from a version whose fault shows only in play (firmware/slots.py previous)."""
    sim, key = keyed
    sent(sim, update.app_package(11, BOARD, key, chip="host"))
    ask(sim, scans=1, cmd="update_commit")
    assert update_event(sim)["stage"] == "done"
    assert pointer(sim).get("previous") == "a" and slot_files(sim, "a")
    r = ask(sim, cmd="update_begin", size=2000000, sha256="0" * 64, version=12)
    assert r.get("error") == "refused"  # far bigger than the free flash
    assert pointer(sim).get("previous") == "a" and slot_files(sim, "a")


def test_a_package_without_umqtt_passes_its_own_check(keyed):
    """A slot's folder is made by its first file (doce/update.py _made): the trial's check of a package with no
    umqtt/ file skips the folder that is not there, not given up for an ENOENT."""
    sim, key = keyed
    files = {p: d for p, d in image.slot_files(image.app_files(chip="host")).items() if not p.startswith("umqtt/")}
    sent(sim, update.package(files, 13, BOARD, key))  # a board with no network set up never imports umqtt
    ask(sim, scans=1, cmd="update_commit")
    event = update_event(sim)
    assert event["stage"] == "done", event


def test_a_commit_read_back_waits_for_a_clear_board(keyed):
    """A piece on the board with no match in play (a player setting up): the commit's read-back, its writes and the
    switch wait for the board to be clear, as every update command does (busy); then the commit is answered."""
    sim, key = keyed
    data = light_package(11, key)
    sent(sim, data)
    sim.command(do="send", line=json.dumps({"cmd": "update_commit", "id": 2}) + "\n", scans=1)
    sim.run(3)
    sim.place("c3", "black 4")  # not the opener's: refused, no match begun; not clear (a match's first piece lets the
    # update code go, its commit answered busy: test_update.py)
    assert ask(sim, **update.begin(data))["error"] == "busy"
    assert commit_reply(sim, 300) is None and pointer(sim)["slot"] == "a"
    sim.lift("c3")
    assert commit_reply(sim, 300)["ok"]


def test_a_refused_transfers_slot_is_never_booted_by_a_rebuilt_pointer(keyed):
    """A package refused at its commit (a file gone bad on the flash), then the pointer lost: the rebuilt one
    never tries the refused slot (it would give version 11 up for good, and the host's next send be refused)."""
    sim, key = keyed
    data = light_package(11, key)
    sent(sim, data)
    victim = sorted(p for p in image.read(sim.flash.read_bytes()) if p.startswith("b/doce/"))[0]

    def flip(fs):
        with fs.open(victim, "rb") as f:
            raw = bytearray(f.read())
        raw[len(raw) // 2] ^= 0xFF
        write(fs, victim, bytes(raw))

    edited(sim, flip)  # a file gone bad on the flash after it was received whole
    assert ask(sim, **update.begin(data))["received"] == len(data)
    sim.command(do="send", line=json.dumps({"cmd": "update_commit", "id": 2}) + "\n", scans=1)
    refused = None
    for _ in range(300):
        refused = refused or [x for x in sim.run(1).get("link", []) if x.get("re") == "update_commit"]
        if refused:
            break
    assert refused and refused[0]["error"] == "refused" and "corrupted" in refused[0]["message"]
    # slot.json and its backup then lost: the pointer is rebuilt from what the flash holds (firmware/slots.py)
    edited(sim, lambda fs: [write(fs, p, b"{") for p in ("slot.json", "slot.json.bak")])
    sim.run(300)
    assert sim.resets == 0 and "given_up" not in pointer(sim)  # slot b not tried (it would fail each boot)
    again = ask(sim, **update.begin(data))  # the host sends it again: taken (its reply once the slot is empty)
    assert again.get("error") != "refused", again  # not 'version 11 ... which this board rolled back from'


def test_an_aborted_package_is_never_booted_by_a_rebuilt_pointer(keyed):
    """A cut at the abort's second flash write, then the pointer lost: the board boots the app it ran."""
    sim, key = keyed
    sent(sim, light_package(11, key))
    sim.cut_power_at_flash_write(after=2)  # the first removes update.json, the second the slot's version
    sim.command(do="send", line=json.dumps({"cmd": "update_abort", "id": 3}) + "\n", scans=1)
    for _ in range(20):
        if sim.power_was_cut:
            break
        sim.run(1)
    assert sim.power_was_cut
    edited(sim, lambda fs: [write(fs, p, b"{") for p in ("slot.json", "slot.json.bak")])
    sim.run(100)
    assert ask(sim, cmd="hello").get("version") == 0
    assert sim.resets == 0 and "given_up" not in pointer(sim)  # slot b never tried (it fails each boot: rolled back)


def test_an_older_begin_is_refused_while_a_newer_ones_slot_empties(keyed):
    """r43h F2: update.json goes as a begin's emptying starts, so an older begin (a replay, signed) meanwhile was
    taken in the newer one's place: refused as the replay it is; the newer begin goes on and is answered."""
    sim, key = keyed
    d11, d12 = (light_package(v, key) for v in (11, 12))
    sent(sim, d11)  # stored whole, not committed: a begin of another package empties it, a file a scan
    out = sim.command(do="send", line=json.dumps(dict(update.begin(d12), id=1)) + "\n", scans=3)
    assert not [x for x in out.get("link", []) if x.get("re") == "update_begin"]  # still emptying
    older = ask(sim, scans=1, **dict(update.begin(d11), id=2))
    assert older.get("error") == "refused" and "not newer than version 12" in older.get("message", ""), older
    for _ in range(200):
        begun = [x for x in sim.run(1).get("link", []) if x.get("re") == "update_begin"]
        if begun:
            break
    assert begun and begun[0].get("ok") and begun[0]["received"] == 0, begun
