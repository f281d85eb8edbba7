"""A/B app slots (firmware/slots.py): the app in slot a as doce flash installs it, a slot on trial marked
good once healthy, and given up by the board itself after a crash loop or without health in time."""

import hashlib
import json
import sys

import pytest

from doce_host import image, update
from doce_host.paths import FIRMWARE_DIR
from doce_host.sim import SimBoard

SLOTS = (FIRMWARE_DIR / "slots.py").read_text()


def constant(name, source=SLOTS):
    """A number firmware/slots.py (or `source`) sets, read from its source (the firmware is not importable here)."""
    for line in source.splitlines():
        if line.startswith(name + " = "):
            return int(line.split("=")[1].split("#")[0])
    raise KeyError(name)


MAX_TRIES = constant("MAX_TRIES")
MAX_BOOTS = constant("MAX_BOOTS")
TRIAL_MS = constant("TRIAL_MS")
RECHECK_MS = constant("RECHECK_MS")
ESP32 = (FIRMWARE_DIR / "doce" / "esp32.py").read_text()
FAULTED_MS = constant("FAULTED_MS", ESP32)
# A window's worth of scans that all fail (each pauses FAULT_PAUSE_MS): more than doce/esp32.py's MOST_FAULTS
WINDOW_OF_FAULTS = FAULTED_MS // constant("FAULT_PAUSE_MS", ESP32)
GIVEN_UP_FOR_FAULTS = "of its scans failed within %d s, the board held still a quarter of the time" % (
    FAULTED_MS // 1000)


def scanned(sim, scans):
    """`scans` scans, a few at a time (the simulator keeps each fault's traceback until its reply), till a reset."""
    resets = sim.resets
    for _ in range(0, scans, 25):
        sim.run(scans=25)
        if sim.resets != resets:
            return
NEVER_HEALTHY = ("class Trial:\n    def __init__(self, app):\n        import slots\n"
                 "        slots.busy = app.in_play\n\n    def check(self, now):\n        return False\n")


@pytest.fixture(scope="module")
def files():
    return image.app_files(chip="host")


KEY = "11" * 32


def in_slot_b(slot):
    """Flash files for slot b holding `slot` ({path in the slot: bytes}; "version", 1 if not given) as an update
    leaves it once committed (doce/update.py): the package's manifest and header (its length, the manifest's tag,
    the package's SHA-256) beside its files, and the board's key. A slot on trial reads back its own package
    before it is kept (doce/trial.py): one copied in by hand would be given up."""
    slot = dict(slot)
    version = int(slot.pop("version", b"1"))
    data = update.package(slot, version, "t1", KEY)
    n = int.from_bytes(data[:4], "little")
    files = {"b/" + p: d for p, d in slot.items()}
    files.update({"b/manifest": data[4:4 + n], "b/version": str(version).encode(),
                  "b/header": data[:4] + data[4 + n:4 + n + 32] + hashlib.sha256(data).digest(),
                  "update.key": json.dumps({"board": "t1", "key": KEY, "floor": version}).encode()})
    return files


def board_with(folder, files, slot_b=None, pointer=None):
    """A board's flash: `files`, slot b holding `slot_b` as an update leaves it (in_slot_b), the pointer given."""
    files = dict(files)
    if slot_b:
        files.update(in_slot_b(slot_b))
    if pointer is not None:
        files[image.POINTER] = json.dumps(pointer).encode()
    folder.mkdir()
    (folder / "flash.img").write_bytes(image.build(files))
    return SimBoard(folder)


def pointer_of(sim, on_again=False):
    """The board's pointer (slot.json) as its flash holds it, the board stopped to read it (and on again)."""
    sim.stop()
    p = json.loads(image.read(sim.flash.read_bytes())[image.POINTER])
    if on_again:
        sim.start()
    return p


def updates(sim):
    return [e for e in sim.events if e["event"] == "update"]


def test_the_image_puts_the_app_in_slot_a_and_the_fixed_boot_at_the_top(files):
    names = set(files)
    assert {"main.py", "slots.py", image.POINTER, "board.json", "rules.doct"} <= names
    assert not any(n.startswith("doce/") for n in names)  # the app only in its slot
    sources = {p.stem for p in (FIRMWARE_DIR / "doce").glob("*.py")}
    assert {n[len("a/doce/"):-4] for n in names if n.startswith("a/doce/")} == sources
    assert json.loads(files[image.POINTER]) == {"slot": "a", "good": "a"}
    assert set(image.slot_files(files)) == {n[2:] for n in names if n.startswith("a/")}


def test_a_fresh_board_boots_slot_a_and_is_not_on_trial(files, tmp_path):
    with board_with(tmp_path / "b", files) as sim:
        sim.wait(1)
        assert sim.events[0]["event"] == "boot" and not updates(sim)
        assert sim.resets == 0
        assert pointer_of(sim) == {"slot": "a", "good": "a"}


def test_a_slot_on_trial_that_comes_up_healthy_is_marked_good(files, tmp_path):
    with board_with(tmp_path / "b", files, image.slot_files(files), {"slot": "b", "good": "a", "tries": 0}) as sim:
        sim.wait(1)
        assert [(e["stage"], e["slot"]) for e in updates(sim)] == [("done", "b")]
        assert pointer_of(sim) == {"slot": "b", "good": "b", "previous": "a"}
        sim.start()  # and it stays on b, with nothing more to say
        sim.wait(1)
        assert len(updates(sim)) == 1  # (sim.events runs on across boots)
        assert pointer_of(sim) == {"slot": "b", "good": "b", "previous": "a"}


def broken(files, module, source):
    """Slot b: the app with doce/`module` replaced by `source` (as .py: the board compiles it)."""
    slot = image.slot_files(files)
    del slot["doce/%s.mpy" % module]
    slot["doce/%s.py" % module] = source.encode()
    return slot


def wrapped(files, source, version=None):
    """Slot b: the app with doce/esp32.py `source`, which imports the real one, kept as doce/esp32_real.mpy."""
    slot = image.slot_files(files)
    slot["doce/esp32_real.mpy"] = slot.pop("doce/esp32.mpy")
    slot["doce/esp32.py"] = source.encode()
    if version is not None:
        slot["version"] = version
    return slot


def test_a_slot_that_crashes_at_every_boot_is_given_up_after_max_tries(files, tmp_path):
    slot = broken(files, "esp32", "raise RuntimeError('a broken build')\n")
    with board_with(tmp_path / "b", files, slot, {"slot": "b", "good": "a", "tries": 0}) as sim:
        assert sim.resets == MAX_TRIES  # each boot on trial counted, then back to a
        sim.wait(1)
        [told] = updates(sim)
        assert told["stage"] == "rolled_back" and told["slot"] == "b"
        assert "%d boots" % MAX_TRIES in told["reason"]
        assert sim.events[0]["event"] == "boot"
        assert pointer_of(sim) == {"slot": "a", "good": "a", "given_up": 1}  # reported once: said, then cleared


def test_a_slot_never_healthy_is_given_up_at_its_deadline(files, tmp_path):
    slot = broken(files, "trial", NEVER_HEALTHY)
    with board_with(tmp_path / "b", files, slot, {"slot": "b", "good": "a", "tries": 0}) as sim:
        sim.wait(1)
        assert not updates(sim) and sim.resets == 0  # booted, scanning, on trial
        sim.run(scans=1, skip_ms=TRIAL_MS)  # its deadline passes: the board resets itself
        assert sim.resets == 1
        sim.settle()
        [told] = updates(sim)
        assert told["stage"] == "rolled_back" and "within %d s" % (TRIAL_MS // 1000) in told["reason"]
        assert pointer_of(sim) == {"slot": "a", "good": "a", "given_up": 1}


def test_power_cuts_early_in_a_trial_are_not_counted_as_failed_boots(files, tmp_path):
    """A cut (or the EN button) is not a crash: a good version cut off before it is healthy, more times than
    MAX_TRIES, still comes up and is marked good (reset_cause is PWRON_RESET for those)."""
    with board_with(tmp_path / "b", files, image.slot_files(files), {"slot": "b", "good": "a", "tries": 0}) as sim:
        for _ in range(MAX_TRIES + 1):
            assert not updates(sim)  # booted, not yet healthy
            sim.cut_power()
            sim.power_on(settle=False)
        assert sim.resets == 0
        sim.wait(1)
        assert [(e["stage"], e["slot"]) for e in updates(sim)] == [("done", "b")]
        assert pointer_of(sim) == {"slot": "b", "good": "b", "previous": "a"}


def test_a_trial_deadline_never_resets_a_board_in_a_match(files, tmp_path):
    """A slot not healthy at its deadline waits for the match in play to end before it is given up."""
    slot = broken(files, "trial", NEVER_HEALTHY)
    with board_with(tmp_path / "b", files, slot, {"slot": "b", "good": "a", "tries": 0}) as sim:
        sim.place("c3", "white 4")  # a match in play
        sim.run(scans=1, skip_ms=TRIAL_MS)
        sim.run(scans=1, skip_ms=3 * RECHECK_MS)
        assert sim.resets == 0 and not updates(sim)  # the game goes on
        sim.command(do="send", line=json.dumps({"cmd": "new_match", "first": "black"}) + "\n")  # before a piece
        sim.run(scans=1, skip_ms=RECHECK_MS)
        assert sim.resets == 1
        sim.settle()
        [told] = updates(sim)
        assert told["stage"] == "rolled_back" and "within %d s" % (TRIAL_MS // 1000) in told["reason"]


# The real doce/trial.py, never healthy: its deadline waits as the app's own does (slots.busy)
REAL_NEVER_HEALTHY = (FIRMWARE_DIR / "doce" / "trial.py").read_text().replace(
    "    def check(self, now):\n", "    def check(self, now):\n        return False\n", 1)
MAX_WAIT_MS = constant("MAX_WAIT_MS")


def test_a_trial_deadline_waits_for_a_clear_board(files, tmp_path):
    """No match in play, but a piece on the board (black's, white to open: refused): a player at it. Giving the slot
    up writes the pointer and resets the board, under the player's hands: like every flash step of an update it
    waits for the board to be clear."""
    slot = broken(files, "trial", REAL_NEVER_HEALTHY)
    with board_with(tmp_path / "b", files, slot, {"slot": "b", "good": "a", "tries": 0}) as sim:
        sim.place("c3", "black 4")
        sim.run(scans=1, skip_ms=TRIAL_MS)
        sim.run(scans=1, skip_ms=3 * RECHECK_MS)
        assert sim.resets == 0 and not updates(sim)
        sim.lift("c3")
        sim.settle()
        sim.run(scans=1, skip_ms=RECHECK_MS)
        assert sim.resets == 1
        sim.settle()
        [told] = updates(sim)
        assert told["stage"] == "rolled_back" and "within %d s" % (TRIAL_MS // 1000) in told["reason"], told


def test_a_match_that_never_ends_keeps_a_trial_no_longer_than_max_wait(files, tmp_path):
    """A match abandoned with its dice on the board is in play for ever: the deadline waits for it MAX_WAIT_MS at
    most, then gives the slot up all the same (the reset resumes the match from its journal, as a power cut's)."""
    slot = broken(files, "trial", REAL_NEVER_HEALTHY)
    with board_with(tmp_path / "b", files, slot, {"slot": "b", "good": "a", "tries": 0}) as sim:
        sim.place("c3", "white 4")  # a match in play
        sim.run(scans=1, skip_ms=TRIAL_MS)
        waited = 0
        while sim.resets == 0 and waited <= MAX_WAIT_MS + RECHECK_MS:
            sim.run(scans=1, skip_ms=RECHECK_MS)
            waited += RECHECK_MS
        assert sim.resets == 1 and MAX_WAIT_MS <= waited <= MAX_WAIT_MS + RECHECK_MS, waited
        sim.settle()
        [told] = updates(sim)
        assert told["stage"] == "rolled_back" and "%d min" % (MAX_WAIT_MS // 60000) in told["reason"], told
        assert sim.state()["board"], "the match resumed from its journal"


def live_pointer(sim):
    """The pointer as the board's flash holds it now, the board running on (the simulated chip writes through:
    host/doce_host/sim/device/flash.py)."""
    return json.loads(image.read(sim.flash.read_bytes())[image.POINTER])


def test_a_healthy_slot_on_trial_is_marked_good_once_the_board_is_clear(files, tmp_path):
    """Marking the slot good writes the pointer, a sector erase now and then (doce/trial.py check): like every
    flash step of an update it waits for a clear board, not a die's landing. A piece on the board (black's, white
    to open: refused, no match in play); its deadline meanwhile does not give a healthy slot up."""
    with board_with(tmp_path / "b", files, image.slot_files(files), {"slot": "b", "good": "a", "tries": 0}) as sim:
        assert not updates(sim)  # (booted, not yet healthy)
        sim.place("c3", "black 4")
        sim.wait(1)
        assert not updates(sim) and live_pointer(sim)["good"] == "a"
        sim.run(scans=1, skip_ms=TRIAL_MS)
        sim.run(scans=1, skip_ms=RECHECK_MS)
        assert sim.resets == 0 and not updates(sim)
        sim.lift("c3")
        sim.settle()
        assert [(e["stage"], e["slot"]) for e in updates(sim)] == [("done", "b")]
        assert sim.resets == 0 and live_pointer(sim) == {"slot": "b", "good": "b", "previous": "a"}


def test_a_slot_healthy_only_after_its_deadline_is_not_given_up_while_its_mark_waits(files, tmp_path):
    """A match in play from the boot: the slot's read-back of its package waits for its end (doce/trial.py), and
    its deadline too. The match over and its pieces left on the board past the deadline's MAX_WAIT_MS, the slot,
    healthy now, is not given up (slots.healthy): it is marked good once the board is clear."""
    with board_with(tmp_path / "b", files, image.slot_files(files), {"slot": "b", "good": "a", "tries": 0}) as sim:
        sim.place("c3", "white 4")  # a match in play
        sim.run(scans=1, skip_ms=TRIAL_MS)
        waited = 0  # (a step a recheck: the deadline counts its rechecks, slots._expired)
        while waited <= MAX_WAIT_MS + 2 * RECHECK_MS:
            sim.run(scans=1, skip_ms=RECHECK_MS)
            waited += RECHECK_MS
            if waited == MAX_WAIT_MS // 2:  # the match over, c3 still there: the read-back goes on, healthy soon
                sim.command(do="send", line=json.dumps({"cmd": "new_match", "first": "black"}) + "\n")
                sim.wait(1)
        assert sim.resets == 0 and not updates(sim)
        sim.lift("c3")
        sim.settle()
        assert sim.resets == 0 and [(e["stage"], e["slot"]) for e in updates(sim)] == [("done", "b")]


# machine.SOFT_RESET as the simulator gives it (host/doce_host/sim/device/machine.py, after MicroPython v1.28.0)
SOFT_RESET = 5


def test_a_reboot_the_app_asks_for_or_a_soft_reset_is_not_a_crashed_boot(files, tmp_path):
    """A `reboot` command (USB or the broker) and a soft reset (Ctrl-D, mpremote) on trial are not the slot's
    crash: more of them than MAX_TRIES leave a good version on trial, and it is marked good, not given up."""
    with board_with(tmp_path / "b", files, image.slot_files(files), {"slot": "b", "good": "a", "tries": 0}) as sim:
        for _ in range(MAX_TRIES + 1):
            assert not updates(sim)  # booted, not yet healthy
            assert sim.command(do="send", line=json.dumps({"cmd": "reboot"}) + "\n").get("rebooted")
        for _ in range(MAX_TRIES + 1):
            sim.cut_power()
            sim.flash.with_name(sim.flash.name + ".reset").write_text(str(SOFT_RESET))  # the cause the boot reads
            sim.power_on(settle=False)
            assert not updates(sim)
        assert sim.resets == 0
        sim.wait(1)
        assert [(e["stage"], e["slot"]) for e in updates(sim)] == [("done", "b")]
        assert pointer_of(sim) == {"slot": "b", "good": "b", "previous": "a"}


# Slot b's app with every scan failing once a match is in play (after the step, so the game itself goes on)
FAILS_IN_PLAY = ("from doce import app as _app\n\n_step = _app.App.step\n\n\n"
                 "def step(self, now):\n    _step(self, now)\n    if self.in_play():\n"
                 "        raise RuntimeError('a broken build')\n\n\n"
                 "_app.App.step = step\nfrom doce.esp32_real import *  # noqa\n")


@pytest.mark.scan_fault
def test_a_slot_whose_scans_fail_in_a_match_is_given_up_without_waiting_for_its_end(files, tmp_path):
    """A match a slot on trial cannot play (an `error` at every scan) never ends: the deadline's wait for it must
    not keep the slot forever. doce/esp32.py's rule (faults holding the board still a quarter of FAULTED_MS)
    gives it up at once."""
    slot = wrapped(files, FAILS_IN_PLAY)
    with board_with(tmp_path / "b", files, slot, {"slot": "b", "good": "a", "tries": 0}) as sim:
        sim.place("c3", "white 4")  # a match in play: each scan fails from here
        assert sim.scan_faults and sim.resets == 0
        scanned(sim, WINDOW_OF_FAULTS)
        assert sim.resets == 1
        sim.settle()
        [told] = updates(sim)
        assert told["stage"] == "rolled_back" and GIVEN_UP_FOR_FAULTS in told["reason"], told
        assert pointer_of(sim) == {"slot": "a", "good": "a", "given_up": 1}


def test_a_deadline_whose_match_check_raises_still_gives_the_slot_up(files, tmp_path):
    """The deadline runs as a scheduled callback: a raise in the slot's own in_play there would be printed and
    swallowed on the chip, and the deadline lost for good. It counts as not healthy."""
    slot = broken(files, "trial", NEVER_HEALTHY.replace("slots.busy = app.in_play", "slots.busy = lambda: 1 // 0"))
    with board_with(tmp_path / "b", files, slot, {"slot": "b", "good": "a", "tries": 0}) as sim:
        sim.run(scans=1, skip_ms=TRIAL_MS)
        assert sim.resets == 1
        sim.settle()
        [told] = updates(sim)
        assert told["stage"] == "rolled_back" and "within %d s" % (TRIAL_MS // 1000) in told["reason"]


@pytest.mark.parametrize("pointer", ["missing", "damaged"])
def test_a_lost_pointer_is_read_from_the_one_before_not_taken_for_slot_a(files, tmp_path, pointer):
    """With slot b good and slot a half written by an update, a slot.json gone (or damaged) must not boot slot a
    as good: the pointer before it (slot.json.bak, kept at each write) says b."""
    slot = image.slot_files(files)
    half = {"a/" + p: d for p, d in list(slot.items())[:5] if "esp32" not in p}  # a transfer cut early
    board = {p: d for p, d in files.items() if not p.startswith("a/")}
    board.update(half)
    board.update({"b/" + p: d for p, d in slot.items()})
    board["b/version"] = b"5"
    board[image.POINTER + ".bak"] = json.dumps({"slot": "b", "good": "b"}).encode()
    if pointer == "missing":
        del board[image.POINTER]
    else:
        board[image.POINTER] = b'{"slot": "b", "go'  # torn
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "flash.img").write_bytes(image.build(board))
    with SimBoard(tmp_path / "b") as sim:
        sim.wait(1)
        assert sim.events[0]["event"] == "boot" and sim.resets == 0 and not updates(sim)
        assert sim.command(do="send", line=json.dumps({"cmd": "hello"}) + "\n")["link"][0]["version"] == 5


@pytest.mark.scan_fault
def test_a_slot_marked_good_whose_scans_fail_once_a_match_is_in_play_goes_back_to_the_one_before(files, tmp_path):
    """A fault met only once a piece is placed comes after the trial (a board without a network is healthy in
    100 scans). The slot before is still there, whole, until an update empties it: faults holding the board
    still a quarter of FAULTED_MS boot it again, match or not, and the match goes on there from the journal the
    two share."""
    slot = wrapped(files, FAILS_IN_PLAY, b"7")
    with board_with(tmp_path / "b", files, slot, {"slot": "b", "good": "a", "tries": 0}) as sim:
        sim.wait(1)
        assert [(e["stage"], e["slot"]) for e in updates(sim)] == [("done", "b")]  # healthy, before any piece
        sim.place("c3", "white 4")  # the match begins: every scan fails from here
        assert sim.scan_faults and sim.resets == 0
        scanned(sim, WINDOW_OF_FAULTS)
        assert sim.resets == 1
        sim.settle()
        told = updates(sim)[-1]
        assert told["stage"] == "rolled_back" and told["slot"] == "b", told
        assert GIVEN_UP_FOR_FAULTS in told["reason"], told
        assert sim.command(do="send", line=json.dumps({"cmd": "hello"}) + "\n")["link"][0]["version"] == 0
        assert sim.state()["board"] == {"c3": "white 4"}  # the match resumed on slot a
        assert pointer_of(sim) == {"slot": "a", "good": "a", "given_up": 7}


@pytest.mark.scan_fault
def test_a_slot_with_no_slot_before_it_plays_on_through_its_faults(files, tmp_path):
    """doce flash's slot a has nothing to go back to: its faults are said, and the board does not reset."""
    slot = wrapped(files, FAILS_IN_PLAY)
    with board_with(tmp_path / "b", files, slot, {"slot": "b", "good": "b"}) as sim:
        sim.place("c3", "white 4")
        scanned(sim, 2 * WINDOW_OF_FAULTS)
        assert sim.scan_faults and sim.resets == 0
        assert pointer_of(sim) == {"slot": "b", "good": "b"}



# Pointers that cannot be trusted: unreadable, or read but holding what no write of firmware/slots.py makes
NONSENSE = {"garbage": b"\xff\x00garbage", "torn": b'{"slot": "b", "go',
            "tries a string": json.dumps({"slot": "b", "good": "a", "booted": True, "tries": "2"}).encode(),
            "no such slot": json.dumps({"slot": "c", "good": "a"}).encode(),
            "given_up a string": json.dumps({"slot": "b", "good": "b", "given_up": "7"}).encode(),
            "a list": b"[1, 2]"}


def lost_pointers(files, board, damage):
    """`board` (a flash's files) with slot.json damaged as `damage` says and its backup torn."""
    board = dict(board)
    board[image.POINTER] = NONSENSE[damage]
    board[image.POINTER + ".bak"] = b'{"slot": "a", "good'
    return board


def warned(sim):
    return [e["message"] for e in sim.events if e["event"] == "warning" and "slot.json" in e["message"]]


@pytest.mark.parametrize("damage", sorted(NONSENSE))
def test_both_pointers_lost_with_an_update_half_written_boot_the_slot_it_is_not_written_into(files, tmp_path,
                                                                                              damage):
    """update.json names the slot an update is written into (or waits in): the other one is the one that ran.
    It boots, good, whatever the pointers hold, and the board says once that they were lost (and with them
    the version last given up)."""
    slot = image.slot_files(files)
    board = {p: d for p, d in files.items() if not p.startswith("a/")}
    board.update({"a/" + p: d for p, d in list(slot.items())[:5] if "esp32" not in p})  # a transfer cut early
    board["a/version"] = b"6"
    board["update.json"] = json.dumps({"size": 200000, "sha256": "0" * 64, "slot": "a"}).encode()
    board.update({"b/" + p: d for p, d in slot.items()})
    board["b/version"] = b"5"
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "flash.img").write_bytes(image.build(lost_pointers(files, board, damage)))
    with SimBoard(tmp_path / "b") as sim:
        sim.wait(1)
        assert sim.resets == 0 and not updates(sim)
        assert sim.command(do="send", line=json.dumps({"cmd": "hello"}) + "\n")["link"][0]["version"] == 5
        [said] = warned(sim)
        assert "slot b" in said and "given up" in said, said
        assert pointer_of(sim) == {"slot": "b", "good": "b"}  # said once, then cleared
        sim.start()
        sim.wait(1)
        assert len(warned(sim)) == 1


@pytest.mark.parametrize("newer", ["healthy", "crashing"])
def test_both_pointers_lost_boot_the_newer_slot_on_trial_with_the_older_to_go_back_to(files, tmp_path, newer):
    """No update.json: the newer version may be the good one, or one given up. It boots on trial, the older
    kept to go back to: a version given up is given up again (its version recorded once more)."""
    slot = image.slot_files(files) if newer == "healthy" else broken(files, "esp32", "raise RuntimeError('x')\n")
    slot["version"] = b"5"
    board = {p: d for p, d in files.items()}
    board.update(in_slot_b(slot))
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "flash.img").write_bytes(image.build(lost_pointers(files, board, "garbage")))
    with SimBoard(tmp_path / "b") as sim:
        sim.wait(1)
        if newer == "healthy":
            assert sim.resets == 0 and [(e["stage"], e["slot"]) for e in updates(sim)] == [("done", "b")]
            assert pointer_of(sim) == {"slot": "b", "good": "b"}  # the older a guess: not one to go back to
        else:
            assert sim.resets == MAX_TRIES and [(e["stage"], e["slot"]) for e in updates(sim)] == [
                ("rolled_back", "b")]
            assert pointer_of(sim) == {"slot": "a", "good": "a", "given_up": 5}
        [said] = warned(sim)
        assert "slot b" in said and "on trial" in said, said


def test_a_trial_boot_the_pointer_cannot_record_boots_the_good_slot(tmp_path, monkeypatch):
    """firmware/slots.py under CPython: the pointer not written (the flash full or failing) must not stop the
    boot (main.py would drop to the REPL), nor boot the slot on trial, whose crashes could then not be counted."""
    import sys
    slots = slots_module(tmp_path, monkeypatch)
    (tmp_path / "slot.json").write_text(json.dumps({"slot": "b", "good": "a", "tries": 0}))

    def full(p):
        raise OSError(28, "no space left on the device")
    monkeypatch.setattr(slots, "write", full)
    assert slots.choose() == {"slot": "a", "good": "a"} and not slots.on_trial()
    assert sys.path[0].endswith("/a")


# What a brown-out at boot looks like to the next boot: MicroPython v1.28.0's mp_machine_reset_cause
# (ports/esp32/modmachine.c) says PWRON_RESET for ESP_RST_BROWNOUT as for ESP_RST_POWERON. The simulated
# machine.reset takes the cause it leaves for the next boot (host/doce_host/sim/device/machine.py).
BROWNS_OUT = "import machine\nmachine.reset(machine.PWRON_RESET)  # the Wi-Fi's start surge: a brown-out\n"


def test_a_slot_that_browns_the_board_out_at_every_boot_is_given_up_after_max_boots(files, tmp_path):
    """A brown-out reads as a power-on, which is not counted as a crash: a version that browns out as it starts
    would boot in a loop for ever. Every boot on trial that ends before the slot is healthy counts, whatever its
    cause, up to MAX_BOOTS (more than MAX_TRIES: a few power cuts are no fault of the version)."""
    slot = broken(files, "esp32", BROWNS_OUT)
    with board_with(tmp_path / "b", files, slot, {"slot": "b", "good": "a", "tries": 0}) as sim:
        assert sim.resets == MAX_BOOTS > MAX_TRIES
        sim.wait(1)
        [told] = updates(sim)
        assert told["stage"] == "rolled_back" and "%d boots" % MAX_BOOTS in told["reason"], told
        assert pointer_of(sim) == {"slot": "a", "good": "a", "given_up": 1}


# Slot b's app raising as it starts once the journal holds a piece (a bug in resuming a match): it comes up, is
# marked good before any piece, and fails at every boot from then on, before its scan loop (and its watchdog)
RESUME_FAILS = ("from doce import app as _app\n\n_init = _app.App.__init__\n\n\n"
                "def init(self, *a, **k):\n    _init(self, *a, **k)\n    if self.in_play():\n"
                "        raise ValueError('a broken resume')\n\n\n"
                "_app.App.__init__ = init\nfrom doce.esp32_real import *  # noqa\n")


def test_a_slot_marked_good_that_crashes_as_it_starts_goes_back_to_the_one_before(files, tmp_path):
    """A crash after the trial, before the app is up and scanning (no scan loop, no watchdog, no 10 s rule): with
    the slot before still whole, each such boot is counted as on trial, and MAX_TRIES of them boot it again."""
    slot = wrapped(files, RESUME_FAILS, b"7")
    with board_with(tmp_path / "b", files, slot, {"slot": "b", "good": "a", "tries": 0}) as sim:
        sim.wait(1)
        assert [(e["stage"], e["slot"]) for e in updates(sim)] == [("done", "b")]
        sim.place("c3", "white 4")  # the match begins and the journal holds it
        sim.cut_power()
        sim.power_on()  # resumes: raises at every boot
        assert sim.resets == MAX_TRIES
        sim.settle()
        told = updates(sim)[-1]
        assert told["stage"] == "rolled_back" and told["slot"] == "b", told
        assert "%d boots" % MAX_TRIES in told["reason"] and "marked good" in told["reason"], told
        assert sim.state()["board"] == {"c3": "white 4"}  # the match resumed on slot a
        assert pointer_of(sim) == {"slot": "a", "good": "a", "given_up": 7}


def test_a_healthy_slot_with_one_before_it_is_counted_only_until_it_is_up(files, tmp_path):
    """Once up and scanning, the boot's count is cleared: power cuts in play, any number, never give a good slot
    up, and the pointer is as the trial left it."""
    with board_with(tmp_path / "b", files, image.slot_files(files), {"slot": "b", "good": "b", "previous": "a"}) as sim:
        for _ in range(MAX_BOOTS + 1):
            sim.wait(1)
            sim.cut_power()
            sim.power_on()
        sim.wait(1)
        assert sim.resets == 0 and not updates(sim)
        assert pointer_of(sim) == {"slot": "b", "good": "b", "previous": "a"}


def slots_module(tmp_path, monkeypatch):
    """firmware/slots.py under CPython, its flash the folder tmp_path."""
    import importlib.util
    import sys
    spec = importlib.util.spec_from_file_location("slots_under_test", FIRMWARE_DIR / "slots.py")
    slots = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(slots)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))
    return slots


@pytest.mark.parametrize("pointer, guarded", [
    ({"slot": "b", "good": "b", "previous": "a"}, True),  # marked good, the slot before still whole: counted
    ({"slot": "b", "good": "a", "tries": 0}, True),  # on trial
    ({"slot": "b", "good": "b"}, False),  # nothing to go back to: never reset for it (the REPL stays)
])
def test_a_boot_that_hangs_before_the_app_is_up_is_reset_and_goes_back_to_the_slot_before(
        tmp_path, monkeypatch, pointer, guarded):
    """A version marked good that hangs as it starts (no scans, no crash: a loop in C or Python before doce/esp32.py
    run() makes its watchdog): the trial's deadline runs only on trial, and only between bytecodes. A counted boot
    starts the chip's watchdog before the slot's code runs (run() gives it its own timeout), so the hang resets the
    board (WDT_RESET, a try) and MAX_TRIES of them boot the slot before, as a crash loop does."""
    import types
    slots = slots_module(tmp_path, monkeypatch)
    machine = types.SimpleNamespace(PWRON_RESET=1, HARD_RESET=2, WDT_RESET=3, SOFT_RESET=5, cause=1, watchdog=[])
    machine.reset_cause = lambda: machine.cause
    machine.WDT = lambda id=0, timeout=0: machine.watchdog.append(timeout)
    machine.Timer = type("Timer", (), {"ONE_SHOT": 0, "__init__": lambda self, n: None, "init": lambda self, **k: None})
    monkeypatch.setitem(sys.modules, "machine", machine)
    (tmp_path / "slot.json").write_text(json.dumps(pointer))
    for boot in range(slots.MAX_TRIES + 1):
        slots.state = None
        machine.watchdog.clear()
        p = slots.choose()
        if not guarded:
            assert machine.watchdog == [] and p == pointer
            return
        if boot == slots.MAX_TRIES:
            break
        assert p["slot"] == "b" and machine.watchdog == [slots.TRIAL_MS], (boot, p, machine.watchdog)
        machine.cause = machine.WDT_RESET  # it hung: the watchdog reset it
    assert p == {"slot": "a", "good": "a", "failed": "b", "reason": p["reason"], "given_up": 0}, p
    assert machine.watchdog == []  # the slot before boots as doce flash's does: nothing counted, none started


@pytest.mark.parametrize("backup", [None, {"slot": "b", "good": "b", "previous": "a"}, {"slot": "b", "good": "a"}])
def test_a_slot_being_emptied_is_named_by_neither_pointer(tmp_path, monkeypatch, backup):
    """An update empties the slot before (emptying): slot.json lost after that (removed by hand, a bad block) is
    read from its backup, which must not name the slot half emptied as one to go back to. The backup given: an
    update resumed after a reboot, slot.json already without it."""
    slots = slots_module(tmp_path, monkeypatch)
    pointer = {"slot": "b", "good": "b"} if backup else {"slot": "b", "good": "b", "previous": "a"}
    (tmp_path / "slot.json").write_text(json.dumps(pointer))
    if backup:
        (tmp_path / "slot.json.bak").write_text(json.dumps(backup))
    slots.emptying("a")
    assert "previous" not in slots.read()
    (tmp_path / "slot.json").unlink()  # lost mid-transfer
    assert slots.read() == {"slot": "b", "good": "b"}


# Slot b's app failing in play at some scans only: `every` = (n, m) fails scans n..m-1 of each m
FAILS_SOME = ("from doce import app as _app\n\n_step = _app.App.step\nn = [0]\n\n\n"
              "def step(self, now):\n    _step(self, now)\n    if self.in_play():\n        n[0] += 1\n"
              "        if n[0] %% %d >= %d:\n            raise RuntimeError('a broken build')\n\n\n"
              "_app.App.step = step\nfrom doce.esp32_real import *  # noqa\n")



def failing_slot(files, every, fails):
    return wrapped(files, FAILS_SOME % (every, every - fails), b"7")


def into_play(sim):
    sim.wait(1)
    assert [(e["stage"], e["slot"]) for e in updates(sim)] == [("done", "b")]  # healthy, before any piece
    sim.place("c3", "white 4")


@pytest.mark.scan_fault
@pytest.mark.parametrize("every, fails", [(10, 9), (3, 1), (1000, 30)])
def test_a_slot_marked_good_whose_faults_hold_the_board_still_goes_back_to_the_one_before(files, tmp_path, every,
                                                                                        fails):
    """r43e F1: 9 scans in 10 failing (a die lit after seconds) is not a board to play on, though some scans pass.
    r43f S1/S2: nor is 1 in 3 (a fault pauses 100 ms, a good scan 1-2: the board stood still 97 % of the time,
    kept while faults were counted against good scans), nor bursts of 30 faults (3 s standing) among 970
    good scans."""
    with board_with(tmp_path / "b", files, failing_slot(files, every, fails), {"slot": "b", "good": "a"}) as sim:
        into_play(sim)
        scanned(sim, 2 * every * WINDOW_OF_FAULTS // fails)
        assert sim.resets == 1
        sim.settle()
        told = updates(sim)[-1]
        assert told["stage"] == "rolled_back" and GIVEN_UP_FOR_FAULTS in told["reason"], told
        assert pointer_of(sim) == {"slot": "a", "good": "a", "given_up": 7}


@pytest.mark.scan_fault
def test_a_slot_marked_good_whose_scans_fail_now_and_then_plays_on(files, tmp_path):
    """A rare fault (one in 400 scans: some 2 a second at the simulator's pace, a fifth of the time standing
    still) is said in `error` events, never a rollback (each fault pauses, the clock with it)."""
    with board_with(tmp_path / "b", files, failing_slot(files, 400, 1), {"slot": "b", "good": "a"}) as sim:
        into_play(sim)
        scanned(sim, 40 * 400)
        assert sim.scan_faults and sim.resets == 0 and updates(sim)[-1]["stage"] == "done"
        assert pointer_of(sim)["slot"] == "b"


class Timer:
    """machine.Timer as slots.watch uses it: whether it is still armed."""
    ONE_SHOT = 0

    def __init__(self, n=0):
        self.armed = False

    def init(self, **kw):
        self.armed = True

    def deinit(self):
        self.armed = False


def repl_machine(monkeypatch):
    """A machine module that records each machine.WDT's timeout (nothing stops the ESP32's: the last one holds)."""
    import types
    machine = types.SimpleNamespace(PWRON_RESET=1, HARD_RESET=2, WDT_RESET=3, SOFT_RESET=5, watchdog=[], Timer=Timer,
                                    reset=lambda: None, Pin=lambda *a, **k: (lambda: 1))
    machine.reset_cause = lambda: 1
    machine.WDT = lambda id=0, timeout=0: machine.watchdog.append(timeout) or types.SimpleNamespace(feed=lambda: 0)
    machine.Pin.IN = machine.Pin.PULL_UP = 0
    monkeypatch.setitem(sys.modules, "machine", machine)
    return machine


ON_TRIAL = {"slot": "b", "good": "a", "tries": 0}
DAY_MS = 24 * 3600 * 1000  # the REPL's watchdog is given a day (doce/esp32.py REPL_WATCHDOG_MS), at least


def test_ctrl_c_as_the_app_starts_on_a_counted_boot_gives_the_repl_its_day(tmp_path, monkeypatch):
    """Ctrl-C at the USB console while a counted boot's app starts (doce/esp32.py start(): the board file, the rules,
    the journal): the REPL has the board, and whoever is at it (mpremote, doce flash --app-only) must not be reset in
    TRIAL_MS by the watchdog slots.guard started, nor by the trial's deadline giving the slot up. The simulator cannot
    show it: its port takes a byte in (Ctrl-C among them) only when the firmware reads, and nothing reads in start(),
    where the chip's UART interrupt raises KeyboardInterrupt at once (mp_sched_keyboard_interrupt)."""
    import types
    machine = repl_machine(monkeypatch)
    slots = slots_module(tmp_path, monkeypatch)
    monkeypatch.setitem(sys.modules, "slots", slots)
    (tmp_path / "slot.json").write_text(json.dumps(ON_TRIAL))
    slots.choose()
    assert machine.watchdog == [TRIAL_MS] and slots._timer.armed  # the guard's, and the deadline
    monkeypatch.setitem(sys.modules, "neopixel", types.SimpleNamespace())
    monkeypatch.setitem(sys.modules, "esp", types.SimpleNamespace(osdebug=lambda *a: None, LOG_NONE=0))
    monkeypatch.delitem(sys.modules, "doce.esp32", raising=False)
    import doce.esp32 as esp32

    def interrupted(new_link=None):
        raise KeyboardInterrupt
    monkeypatch.setattr(esp32, "build", interrupted)
    try:
        with pytest.raises(KeyboardInterrupt):
            esp32.run()
    finally:
        sys.modules.pop("doce.esp32", None)
    assert machine.watchdog[-1] >= DAY_MS and not slots._timer.armed


def test_ctrl_c_before_the_app_runs_on_a_counted_boot_gives_the_repl_its_day(tmp_path, monkeypatch):
    """The same Ctrl-C a moment earlier, as main.py loads the app (before doce/esp32.py run() and its handler)."""
    import types
    machine = repl_machine(monkeypatch)
    slots = slots_module(tmp_path, monkeypatch)
    monkeypatch.setitem(sys.modules, "slots", slots)
    (tmp_path / "slot.json").write_text(json.dumps(ON_TRIAL))
    loading = types.ModuleType("doce.esp32")

    def interrupted(name):
        raise KeyboardInterrupt
    loading.__getattr__ = interrupted  # from doce.esp32 import run: Ctrl-C as it loads
    monkeypatch.setitem(sys.modules, "doce.esp32", loading)
    with pytest.raises(KeyboardInterrupt):
        exec((FIRMWARE_DIR / "main.py").read_text(), {"__name__": "__main__"})
    assert machine.watchdog[0] == TRIAL_MS and machine.watchdog[-1] >= DAY_MS and not slots._timer.armed
