"""No garbage collection in a die's path to its light while a host talks to the board
(issue 24): a collection sweeps the whole heap, a few ms at 240 MHz (make bench), and the
board's traffic at rest fills the heap with garbage. doce/app.py collects at rest once the
free heap falls to HEADROOM and keeps automatic collection off while a die lands."""

import json

from doce.app import HEADROOM

# Requests a host sends while the die lands: the board takes one a scan, so they spread over
# the landing's scans, and their replies (a state is the longest) are garbage once sent.
TRAFFIC = "".join(json.dumps({"cmd": cmd, "id": i}) + "\n"
                  for i, cmd in enumerate(("state", "hello", "state", "state")))
# Free heap the traffic at rest leaves when nothing collects it: far less than a landing and
# its traffic allocate (make bench prints both), so without a collection at rest one falls in
# the landing.
LEAVE = 1024
# A collection frees the garbage the litter left (KBs); a scan without one frees at most a
# realloc's old block, a few hundred bytes (the free heap only shrinks otherwise).
COLLECTED = 2048


def test_no_collection_falls_between_a_die_landing_and_its_light_while_the_host_talks(sim):
    changes = sim.hands.place("c3", "white 4")
    landing = sim.command(do="landing", set=changes, leave=LEAVE, traffic=TRAFFIC)
    scans = landing["scans"]
    assert scans[-1][2], "the board never came to rest: %r" % scans
    lit = next(i for i, (_, to_light, _) in enumerate(scans) if to_light is not None)
    before_light = [freed for freed, _, _ in scans[:lit]] + [scans[lit][1]]
    assert max(before_light) < COLLECTED, (
        "a collection between the die's first read and its light (scan %d): %r" % (lit, scans))
    # The figures see a collection: the board makes one as it comes to rest (doce/app.py)
    assert any(freed >= COLLECTED for freed, _, _ in scans[lit:]), scans
    # What the board allocated up to the light (the harness's reading of its replies left out) fits in
    # the free heap gc.threshold keeps at rest, with room: else a collection falls in a landing on a board
    assert 0 < landing["allocated"] <= HEADROOM // 2, (landing["allocated"], HEADROOM)
