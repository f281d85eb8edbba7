"""Which copy of the app the board runs: slot folder a or b, named by the pointer file.

Fixed, like main.py: `doce flash` installs both, an update never replaces them (the slot's code
may be broken; this must not be). The app (doce/*.mpy, umqtt/) lives in a slot; the board's own
files (journal, calibration, net.json, the board file and the rules) stay at the top, shared.

The pointer, slot.json, is written whole and then renamed over the old one (as doce/journal.py
writes a new match), so a power cut leaves the old pointer or the new, never neither:
  slot   the slot to boot
  good   the slot that last came up healthy; slot != good: `slot` is on trial
  tries  boots on trial so far
  failed, reason   the slot given up and why, until the app has reported it (an `update` event)
A slot on trial goes back to `good` by itself: after MAX_TRIES boots that never came up healthy
(a crash, or a hang the watchdog resets: each boot counts), or TRIAL_MS after a boot that has not
come up healthy by then (machine.Timer: its callback is scheduled, ports/esp32/machine_timer.c).
"""

import json
import os
import sys

POINTER = "slot.json"
SLOTS = ("a", "b")
MAX_TRIES = 3
TRIAL_MS = 120000  # booted, scanning and on the broker well within this (doce/trial.py)
FIRST = {"slot": "a", "good": "a"}  # what doce flash installs

state = None  # the pointer as this boot chose, once chosen
_timer = None


def read():
    """The pointer; a missing or damaged one is slot a, good."""
    try:
        with open(POINTER) as f:
            p = json.load(f)
        if isinstance(p, dict) and p.get("slot") in SLOTS and p.get("good") in SLOTS:
            return p
    except (OSError, ValueError):
        pass
    return dict(FIRST)


def write(p):
    new = POINTER + ".new"
    with open(new, "w") as f:
        f.write(json.dumps(p))
    os.rename(new, POINTER)


def on_trial():
    return state is not None and state["slot"] != state["good"]


def folder(slot):
    """The slot's folder as a path from the file system's top, whatever the current folder."""
    here = os.getcwd().rstrip("/")
    return here + "/" + slot


def back(p, reason):
    return {"slot": p["good"], "good": p["good"], "failed": p["slot"], "reason": reason}


def choose():
    """Pick this boot's slot and put it first on sys.path. Once a boot (the simulator's harness
    chooses before main.py runs)."""
    global state
    if state is not None:
        return state
    p = read()
    if p["slot"] != p["good"]:
        tries = p.get("tries", 0) + 1
        if tries > MAX_TRIES:
            p = back(p, "did not come up healthy in %d boots" % MAX_TRIES)
        else:
            p["tries"] = tries
        write(p)  # before the slot's code runs: a crash or a hang in it is counted
    state = p
    sys.path.insert(0, folder(p["slot"]))
    if on_trial():
        watch()
    return p


def watch():
    global _timer
    import machine
    _timer = machine.Timer(0)
    _timer.init(mode=machine.Timer.ONE_SHOT, period=TRIAL_MS, callback=_expired)


def _expired(timer):
    if on_trial():
        write(back(state, "not healthy within %d s of its boot" % (TRIAL_MS // 1000)))
        import machine
        machine.reset()


def mark_good():
    """The slot on trial came up healthy: it is the good one now."""
    global state
    if _timer is not None:
        _timer.deinit()
    p = {"slot": state["slot"], "good": state["slot"]}
    write(p)
    state = p


def crashed():
    """The app stopped with an exception: on trial, reset (the next boot counts it); else the REPL."""
    if on_trial():
        import machine
        machine.reset()


def reported():
    """The slot given up at this boot and why, once: (slot, reason) or None."""
    global state
    if state is None or "reason" not in state:
        return None
    told = (state["failed"], state["reason"])
    state = {"slot": state["slot"], "good": state["good"]}
    write(state)
    return told


def switch(slot):
    """Boot `slot` on trial from the next boot (an update stored and checked in it)."""
    write({"slot": slot, "good": read()["good"], "tries": 0})
