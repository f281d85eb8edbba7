"""Which copy of the app the board runs: slot folder a or b, named by the pointer file.

Fixed, like main.py: `doce flash` installs both, an update never replaces them (the slot's code
may be broken; this must not be). The app (doce/*.mpy, umqtt/) lives in a slot; the board's own
files (journal, calibration, net.json, the board file and the rules) stay at the top, shared.

The pointer, slot.json, is written whole and then renamed over the old one (as doce/journal.py
writes a new match), so a power cut leaves the old pointer or the new, never neither. The old one is
kept as slot.json.bak (renamed aside first): a pointer missing or damaged (removed by hand, a bad
block), or holding what no write here makes, is read from there, not taken for slot a, good, which may
hold an update half written. With neither to trust, the board rebuilds one (rebuilt) and says so once:
  slot   the slot to boot
  good   the slot that last came up healthy; slot != good: `slot` is on trial
  booted  a boot on trial, or of a good slot with a `previous` not yet up, has started (written before the
          slot's code runs; cleared once healthy, or up: UP_SCANS scans)
  tries  such boots that ended in a reset the board made: a crash (main.py) or a hang (the watchdog)
  boots  such boots that ended before the slot was healthy (or up), whatever the cause (MAX_BOOTS)
  failed, reason   the slot given up and why, until the app has reported it (an `update` event)
  given_up  the version of the last slot given up, kept: an update to it or below is refused
  previous  once a slot on trial is marked good, the one it replaced, whole until an update empties it
            (doce/update.py calls emptying() before its first write there)
  unsure  the slot to go back to is rebuilt's guess: not kept as `previous`
  unproven  marked good in a Wi-Fi outage: back to `previous` (its version not refused) if not on the broker
            within UNPROVEN_MS of play (doce/esp32.py Scans), cleared once it is (proven)
  lost   why the pointer was rebuilt, until the app has reported it (a `warning` event)
A slot on trial goes back to `good` by itself: after MAX_TRIES boots on trial that ended in a crash
or a hang, or TRIAL_MS after a boot that has not come up healthy by then (machine.Timer: its
callback is scheduled, ports/esp32/machine_timer.c), but not while a match is in play or a piece is on the
board (`busy`), MAX_WAIT_MS at most.
Some faults show only in play, after the trial: a slot marked good whose scans' faults hold the board
still a quarter of any 10 s (doce/esp32.py Scans, MOST_FAULTS) goes back to `previous` while it is there,
match or not (the game can hardly go on). So does
one that fails as it starts (resuming a match, say: before its scan loop and watchdog), counted as on trial; a
counted boot starts the chip's watchdog before the slot's code (guard), so a hang there resets as a crash does.
A power cut, or the EN button, is not the slot's fault and is not counted in `tries`: machine.reset_cause()
says PWRON_RESET for those, HARD_RESET for machine.reset() and a panic, WDT_RESET for the watchdogs
(MicroPython v1.28.0 ports/esp32/modmachine.c, mp_machine_reset_cause, lines 233-260). Nor is a soft reset
(SOFT_RESET: Ctrl-D at the REPL, mpremote; modmachine.c's machine_deinit, line 303, sets is_soft_reset as
main.c soft-resets). But reset_cause says PWRON_RESET for a brown-out too (modmachine.c 238-240:
ESP_RST_BROWNOUT with ESP_RST_POWERON), and nothing else the port offers tells them apart (the esp32 module
has no reset reason; RTC.memory is RTC_NOINIT, machine_rtc.c 64-76, whose survival of a brown-out is
ESP-IDF's and the chip's, not shown here), and a main.py that ends in SystemExit soft-resets (shared/
runtime/pyexec.c 166-184 makes it PYEXEC_FORCED_EXIT; main.c 162-164) and runs again. So every boot on
trial that ends before the slot is healthy, whatever its cause, is counted in `boots`, written before the
slot's code (and its Wi-Fi) starts and cleared once it is healthy: MAX_BOOTS of them give the slot up. A
reset the app asks for (a `reboot`: doce/trial.py clears `booted`) is not counted at all.
"""

import json
import os
import sys

POINTER = "slot.json"
BACKUP = POINTER + ".bak"  # the pointer before the last write
SLOTS = ("a", "b")
MAX_TRIES = 3
# Boots on trial ended, by any cause, before the slot was healthy: a brown-out reads as a power-on (above),
# and a version that browns the board out as it starts (the Wi-Fi's surge) would else loop for ever. A trial
# is over in seconds (doce/trial.py); the room does not cut a board's power this often in one. Once marked
# good, a boot is counted only until the app is up (UP_SCANS), a second or so: six cuts in a row, each inside it.
MAX_BOOTS = 6
# Scans before a good slot's boot counts as up (up): as many as a slot on trial needs to be healthy
# (doce/trial.py), so a version that fails a few scans in, before its watchdog is fed for long, is counted too.
UP_SCANS = 100
TRIAL_MS = 120000  # booted, scanning and on the broker well within this (doce/trial.py)
# A slot marked good in a Wi-Fi outage (doce/trial.py ROOM_MS) is so only provisionally (`unproven`): its own
# Wi-Fi code may be what is down. Not on the broker after this much play in a boot, it goes back to the slot
# before without refusing its version. A café or club access point restarts in minutes; half an hour of play
# with the board offline is one the organiser sees in the hall first.
UNPROVEN_MS = 1800000  # 30 min
RECHECK_MS = 10000  # a deadline met in a match in play, or with a piece on the board: looked at again this much later
# The most the deadline waits past TRIAL_MS for a match to end and the board to clear (busy): a match's four rounds
# put down at most 100 dice (25 squares a round, docs/rules.md), some 50 min at a die every 30 s. A board held past
# this is one left with a match abandoned or its dice on it: the slot is given up all the same (its reset under a
# match resumes it from the journal in the slot before, as a power cut's does), not kept on trial for ever.
MAX_WAIT_MS = 3600000  # 60 min
VERSION = "version"  # in a slot: its update's version (doce/update.py); none for doce flash's
FIRST = {"slot": "a", "good": "a"}  # what doce flash installs
COUNTS = ("booted", "boots", "tries")  # a boot's count (counted)
UPDATE = "update.json"  # doce/update.py STATE: names the slot an update is written into, or waits in
LOST = ("slot.json and its backup could not be read: booted %s; the version last given up, if any, is not known "
        "(an update to it would be taken again)")

state = None  # the pointer as this boot chose, once chosen
busy = None  # () -> True while a match is in play or a piece is on the board (the app sets it on trial: doce/trial.py)
why = None  # why the slot on trial is not healthy yet, where the app knows (doce/trial.py): the deadline says it
_timer = None
_waited = 0  # ms the deadline has waited past TRIAL_MS for the app's busy (MAX_WAIT_MS)
healthy = False  # the slot on trial came up healthy: marked good once no one is at the board (doce/trial.py)


def read():
    """The pointer; one missing, damaged or unsound is the one before it. Without that either: what this boot
    chose, or at the boot itself a rebuilt one."""
    for path in (POINTER, BACKUP):
        try:
            with open(path) as f:
                p = json.load(f)
            if sound(p):
                return p
        except Exception:  # noqa: BLE001  (OSError, ValueError, or any other: never the REPL for a pointer)
            pass
    if state is not None:
        return dict(state)
    return rebuilt()


def sound(p):
    """The pointer holds only what a write here makes (a field it does not know is let be)."""
    if not isinstance(p, dict) or p.get("slot") not in SLOTS or p.get("good") not in SLOTS:
        return False
    if ("failed" in p) != ("reason" in p) or p.get("previous", "") == p["slot"]:
        return False
    for key in p:
        value = p[key]
        if key in ("tries", "boots", "given_up"):
            ok = type(value) is int and value >= 0
        elif key in ("booted", "unsure", "unproven"):
            ok = value is True
        elif key in ("failed", "previous"):
            ok = value in SLOTS
        elif key in ("reason", "lost"):
            ok = isinstance(value, str)
        else:
            ok = True
        if not ok:
            return False
    return True


def rebuilt():
    """A pointer from what the flash holds, neither slot.json nor its backup to be trusted. A slot update.json
    names is the one an update was written into (or waits in), never the one running: the other boots, good.
    Else the newer version boots on trial, the older (doce flash's has none: 0) to go back to: the newer may be
    the good slot, one on trial, or one given up, tried again (a crash loop or the deadline gives it up, and
    records its version as given up once more). Equal versions (both 0: only doce flash's app): slot a."""
    try:
        with open(UPDATE) as f:
            named = json.load(f).get("slot")
    except Exception:  # noqa: BLE001
        named = None
    if named in SLOTS:
        good = other(named)
        how = "slot %s, good (update.json names slot %s, where an update was going)" % (good, named)
        return {"slot": good, "good": good, "lost": LOST % how}
    versions = {slot: version_of(slot) for slot in SLOTS}
    if versions["a"] == versions["b"]:
        return {"slot": "a", "good": "a", "lost": LOST % "slot a, good (neither slot holds a newer version)"}
    newer = "a" if versions["a"] > versions["b"] else "b"
    older = other(newer)
    how = "slot %s (version %d) on trial, slot %s (version %d) to go back to" % (
        newer, versions[newer], older, versions[older])
    return {"slot": newer, "good": older, "tries": 0, "unsure": True, "lost": LOST % how}


def other(slot):
    return "b" if slot == "a" else "a"


def write(p):
    new = POINTER + ".new"
    with open(new, "w") as f:
        f.write(json.dumps(p))
    try:  # a cut between the renames leaves no slot.json: read() then takes this one, the old
        os.rename(POINTER, BACKUP)
    except OSError:  # none yet (or lost): the new one all the same
        pass
    os.rename(new, POINTER)


def on_trial():
    return state is not None and state["slot"] != state["good"]


def folder(slot):
    """The slot's folder as a path from the file system's top, whatever the current folder."""
    here = os.getcwd().rstrip("/")
    return here + "/" + slot


def version_of(slot):
    try:
        with open(slot + "/" + VERSION) as f:
            return int(f.read())
    except (OSError, ValueError):
        return 0


def kept(p, q):
    """q, with what p says of the last version given up (it outlives every later pointer)."""
    if "given_up" in p:
        q["given_up"] = p["given_up"]
    return q


def back(p, reason, to=None, refuse=True):
    """The pointer that boots `to` (the good slot) as good, the slot running given up for `reason` (and its
    version refused from then on, unless not `refuse`)."""
    to = to or p["good"]
    q = {"slot": to, "good": to, "failed": p["slot"], "reason": reason}
    if refuse:
        q["given_up"] = version_of(p["slot"])
    else:
        kept(p, q)
    if "lost" in p:  # (not yet said)
        q["lost"] = p["lost"]
    return q


def not_a_crash():
    """The last boot ended in a power cut or a soft reset (above), not one the slot's code caused."""
    import machine
    return machine.reset_cause() in (machine.PWRON_RESET, machine.SOFT_RESET)


def choose():
    """Pick this boot's slot and put it first on sys.path. Once a boot (the simulator's harness
    chooses before main.py runs). Never raises: whatever the flash holds, the board boots a slot."""
    global state
    if state is not None:
        return state
    p = dict(FIRST)
    try:
        p = read()
        p = counted(p)
        if p.get("booted"):
            guard()
        if p["slot"] != p["good"]:
            watch()
    except Exception:  # noqa: BLE001  (the pointer not written, the flash full or failing; no timer)
        p = {"slot": p["good"], "good": p["good"]}  # a boot on trial it cannot count or end is not made
    state = p
    sys.path.insert(0, folder(p["slot"]))
    return p


def counted(p):
    """p, a boot on trial, or of a good slot with one before it (`previous`), counted, and written before the
    slot's code runs: a crash or a hang in it is counted at the next boot. A good slot's count is cleared once
    it is up and scanning (up): a version marked good may still fail as it starts (resuming a match, say),
    before its scan loop and its watchdog, and with the slot before still whole it goes back there."""
    trial = p["slot"] != p["good"]
    if trial or p.get("previous") in SLOTS:
        p = dict(p)
        if p.get("booted"):  # the last boot ended before the slot was healthy (up, once marked good)
            p["boots"] = p.get("boots", 0) + 1
            if not not_a_crash():  # in a crash or a hang
                p["tries"] = p.get("tries", 0) + 1
        to = None if trial else p["previous"]
        once = "" if trial else " once marked good"
        if p.get("tries", 0) >= MAX_TRIES:
            p = back(p, "did not come up healthy in %d boots%s" % (MAX_TRIES, once), to)
        elif p.get("boots", 0) >= MAX_BOOTS:
            p = back(p, "reset, by any cause, in %d boots in a row before it came up healthy%s (a brown-out reads "
                        "as a power cut)" % (MAX_BOOTS, once), to)
        else:
            p["booted"] = True
        write(p)
    elif "lost" in p:  # rebuilt: written now, said once the app runs
        write(p)
    return p


def up():
    """The app is up and scanning (doce/esp32.py Scans, UP_SCANS scans): a good slot's boot, counted (counted),
    ended well. The pointer's one write for it, where a boot was counted: so a board with a slot before its own
    writes the pointer twice a boot (counted, then here), one without it not at all."""
    global state
    if state is None or not state.get("booted") or on_trial():  # on trial: mark_good clears it
        return
    p = read()
    if p["slot"] == p["good"]:
        for key in COUNTS:
            p.pop(key, None)
        write(p)
    state = dict(state)
    for key in COUNTS:
        state.pop(key, None)


def guard():
    """A boot counted (counted): the chip's watchdog from now, before the slot's code runs, so a hang in it (no
    scans, no crash: a loop, a driver that never returns) resets the board (WDT_RESET, a try) before doce/esp32.py
    run() makes its own. The trial's deadline (watch) is a scheduled callback, run between bytecodes only, and on
    trial only. machine.WDT is the task watchdog with trigger_panic; run() sets its own timeout with a second call
    (esp_task_wdt_reconfigure), and nothing stops it (MicroPython v1.28.0 ports/esp32/machine_wdt.c). TRIAL_MS: as
    long as a slot on trial has to come up healthy, far past a sound start's seconds."""
    import machine
    machine.WDT(timeout=TRIAL_MS)


def at_repl(ms=24 * 3600 * 1000):
    """Ctrl-C stopped the app (main.py; doce/esp32.py run): the REPL has the board. A counted boot's watchdog (guard)
    would reset it in TRIAL_MS under whoever is there (mpremote, doce flash --app-only), and the trial's deadline
    (watch) give the slot up and reset it (its callback runs at the REPL too: MicroPython v1.28.0 ports/esp32/
    mphalport.c mp_hal_stdin_rx_chr waits for a key in MICROPY_EVENT_POLL_HOOK, which runs scheduled callbacks,
    mpconfigport.h 310-312): the watchdog, which nothing stops, is given `ms` (a day), the deadline stopped (the
    boot stays counted: the next one counts it as the power cut or soft reset that ends it)."""
    import machine
    machine.WDT(timeout=ms)
    if _timer is not None:
        _timer.deinit()


def watch():
    global _timer
    import machine
    _timer = machine.Timer(0)
    _timer.init(mode=machine.Timer.ONE_SHOT, period=TRIAL_MS, callback=_expired)


def _expired(timer):
    global _waited
    try:  # the app's own code: a raise here would be printed and swallowed (a scheduled callback), the deadline lost
        wait = busy is not None and busy()
    except Exception:  # noqa: BLE001  (a slot that cannot say whether a match is in play is not healthy)
        wait = False
    if healthy:  # its mark waits for a clear board (doce/trial.py): nothing to give up
        return
    if on_trial() and wait and _waited < MAX_WAIT_MS:  # a trial stops no game: after the match, the board clear
        _waited += RECHECK_MS
        timer.init(mode=timer.ONE_SHOT, period=RECHECK_MS, callback=_expired)
    elif on_trial():
        give_up("%s within %d s of its boot%s" % (why or "not healthy", TRIAL_MS // 1000, " (and a match or a piece "
                "on the board kept it %d min more)" % (MAX_WAIT_MS // 60000) if wait else ""))


def give_up(reason, refuse=True):
    """The slot running is not healthy: back, now, to the good one if it is on trial, else to the one it
    replaced if that is still whole (`previous`). False where there is none to go back to."""
    if on_trial():
        write(back(state, reason, refuse=refuse))
    elif state is not None and state.get("previous") in SLOTS:
        write(back(state, reason + " once marked good", state["previous"], refuse))
    else:
        return False
    import machine
    machine.reset()


def mark_good(unproven=False):
    """The slot on trial came up healthy: it is the good one now, and the one it replaced is kept to go
    back to (give_up) until an update empties it. `unproven`: healthy in a Wi-Fi outage only (UNPROVEN_MS)."""
    global state
    if _timer is not None:
        _timer.deinit()
    p = kept(state, {"slot": state["slot"], "good": state["slot"]})
    if not state.get("unsure"):
        p["previous"] = state["good"]
        if unproven:
            p["unproven"] = True
    write(p)
    state = p


def proven():
    """The slot marked good in an outage reached the broker: kept for good (one write)."""
    global state
    p = read()
    p.pop("unproven", None)
    write(p)
    state = dict(state)
    state.pop("unproven", None)


def backup_names(slot):
    """The backup boots `slot`, or goes back to it."""
    try:
        with open(BACKUP) as f:
            b = json.load(f)
        return slot in (b.get("slot"), b.get("good"), b.get("previous"))
    except Exception:  # noqa: BLE001  (none, or not to be read: read() passes it over too)
        return False


def emptying(slot):
    """`slot` is about to be emptied for an update (doce/update.py): never gone back to from now on. The
    pointer first, so a power cut after it leaves the slot whole but not named, never named and half gone. Its
    backup too (written twice: the first write's pointer becomes the backup), as slot.json lost mid-transfer is
    read from there; an update resumed after a reboot finds slot.json without it, the backup maybe not."""
    global state
    p = read()
    if p.get("previous") == slot or backup_names(slot):
        p.pop("previous", None)
        p.pop("unproven", None)  # nothing to go back to
        if p["slot"] == p["good"]:  # nothing to go back to: a good slot's boot is no longer counted (counted)
            for key in COUNTS:
                p.pop(key, None)
        write(p)
        write(p)
        if state is not None:
            state = dict(state)
            state.pop("previous", None)
            state.pop("unproven", None)
            if state["slot"] == state["good"]:
                for key in COUNTS:
                    state.pop(key, None)


def crashed():
    """The app stopped with an exception: where the boot is counted (on trial, or a good slot with one before it
    not yet up), reset: the next boot counts it. Else the REPL."""
    if on_trial() or (state is not None and state.get("booted")):
        import machine
        machine.reset()


def reported():
    """What this boot's pointer has to say, once (said, then cleared): ((slot given up, why) or None, why
    the pointer was rebuilt or None)."""
    global state
    if state is None or not ("reason" in state or "lost" in state):
        return None, None
    told = (state["failed"], state["reason"]) if "reason" in state else None
    lost = state.get("lost")
    p = dict(state)
    for key in ("failed", "reason", "lost"):
        p.pop(key, None)
    write(p)
    state = p
    return told, lost


def switch(slot):
    """Boot `slot` on trial from the next boot (an update stored and checked in it)."""
    p = read()
    write(kept(p, {"slot": slot, "good": p["good"], "tries": 0}))


def given_up():
    """The version of the last slot given up on this board (0: none)."""
    g = read().get("given_up", 0)
    return g if isinstance(g, int) else 0
