"""hardware/router.py on small boards it can route in a moment: the copper it returns keeps
KiCad's clearances (measured here from the segments and vias themselves, not from the
router's grid), connects what it must, and says so when it cannot."""

import itertools
import math

import pytest
from test_pcb import load

router = load("router")
RULES = router.Rules()


def pad(ref, net, x, y, w=1.0, h=0.6):
    return router.Pad(ref, "1", net, [router.F], (x - w / 2, y - h / 2, x + w / 2, y + h / 2))


def route(pads, planes=None, holes=(), size=(20.0, 12.0), rules=RULES, **kw):
    r = router.Router((0.0, 0.0) + size, pads, list(holes), rules, planes or {}, log=lambda *a: None, **kw)
    tasks = r.run(iterations=30)
    segs, vias = r.copper()
    return r, tasks, segs, vias


def seg_distance(a, b):
    """Between two axis-parallel segments ((x0, y0), (x1, y1))."""
    (ax0, ay0), (ax1, ay1) = a
    (bx0, by0), (bx1, by1) = b
    dx = max(0.0, min(bx0, bx1) - max(ax0, ax1), min(ax0, ax1) - max(bx0, bx1))
    dy = max(0.0, min(by0, by1) - max(ay0, ay1), min(ay0, ay1) - max(by0, by1))
    return math.hypot(dx, dy)


def box_distance(a, box):
    (ax0, ay0), (ax1, ay1) = a
    x0, y0, x1, y1 = box
    dx = max(0.0, x0 - max(ax0, ax1), min(ax0, ax1) - x1)
    return math.hypot(dx, max(0.0, y0 - max(ay0, ay1), min(ay0, ay1) - y1))


def check_clearances(pads, segs, vias, rules=RULES):
    c = rules.clearance
    for (n1, l1, a1, b1, w1), (n2, l2, a2, b2, w2) in itertools.combinations(segs, 2):
        if n1 != n2 and l1 == l2:
            assert seg_distance((a1, b1), (a2, b2)) - (w1 + w2) / 2 >= c - 1e-9, (n1, a1, b1, n2, a2, b2)
    for net, (x, y) in vias:
        for n, layer, a, b, w in segs:
            if n != net:
                assert seg_distance((a, b), ((x, y), (x, y))) - w / 2 - RULES.via / 2 >= c - 1e-9, (net, x, y, n)
        for p in pads:
            assert box_distance(((x, y), (x, y)), p.box) >= RULES.via / 2 + (c if p.net != net else 0) - 1e-9
    for (_, p), (_, q) in itertools.combinations(vias, 2):
        assert math.dist(p, q) >= RULES.via_spacing - 1e-9
    for n, layer, a, b, w in segs:
        for p in pads:
            if p.net != n and layer in p.layers:
                assert box_distance((a, b), p.box) - w / 2 >= c - 1e-9, (n, a, b, p)


def touches(seg_ends, p):
    return any(p.holds(x, y) for x, y in seg_ends)


def test_two_nets_that_cross_are_routed_apart_with_clearance():
    pads = [pad("A", "ONE", 3, 6), pad("B", "ONE", 17, 6), pad("C", "TWO", 10, 1), pad("D", "TWO", 10, 11)]
    r, tasks, segs, vias = route(pads)
    assert not any(t.failed for t in tasks)
    assert not r.unrouted()
    check_clearances(pads, segs, vias)
    for p in pads:
        ends = [e for n, _, a, b, _ in segs if n == p.net for e in (a, b)]
        assert touches(ends, p), p
    assert {layer for _, layer, *_ in segs} == {router.F, router.B}  # no way round: one dives under the other
    assert vias


def test_a_ground_pad_reaches_its_plane_through_a_via_inside_it():
    pads = [pad("A", "GND", 5, 6), pad("B", "SIG", 6.5, 6), pad("C", "SIG", 15, 6)]
    plane = [(0.0, 0.0), (20.0, 0.0), (20.0, 12.0), (0.0, 12.0)]
    r, tasks, segs, vias = route(pads, planes={"GND": [plane]})
    ground = [v for n, v in vias if n == "GND"]
    assert len(ground) == 1
    x, y = ground[0]
    assert 1.0 <= x <= 19.0 and 1.0 <= y <= 11.0
    check_clearances(pads, segs, vias)


def test_a_pad_walled_in_by_other_nets_is_reported_not_routed():
    inner = pad("A", "SIG", 10, 6, 0.6, 0.6)
    wall = [pad("W%d" % i, "OTHER", 10 + dx, 6 + dy, 0.8, 0.8)
            for i, (dx, dy) in enumerate(((-0.9, -0.9), (0, -0.9), (0.9, -0.9), (-0.9, 0), (0.9, 0),
                                          (-0.9, 0.9), (0, 0.9), (0.9, 0.9)))]
    pads = [inner, pad("B", "SIG", 2, 2)] + wall
    r, tasks, segs, vias = route(pads)
    assert [t.failed for t in tasks if t.net == r.net_id["SIG"]] == [True]


def test_no_track_runs_over_a_mounting_hole():
    pads = [pad("A", "ONE", 2, 6), pad("B", "ONE", 18, 6)]
    r, tasks, segs, vias = route(pads, holes=[(10.0, 6.0, 3.2)])
    assert segs and not any(t.failed for t in tasks)
    for _, _, a, b, w in segs:
        assert seg_distance((a, b), ((10.0, 6.0), (10.0, 6.0))) - w / 2 >= 1.6 + RULES.hole - 1e-9


def test_the_clearance_check_catches_tracks_too_close():
    pads = [pad("A", "ONE", 3, 6)]
    close = [("ONE", router.F, (2.0, 2.0), (8.0, 2.0), 0.2), ("TWO", router.F, (2.0, 2.3), (8.0, 2.3), 0.2)]
    with pytest.raises(AssertionError):  # 0.2 mm tracks 0.3 mm apart: 0.1 mm between them
        check_clearances(pads, close, [])


def test_wide_supply_tracks_keep_their_clearance_from_signal_tracks_packed_around_them():
    """A sensor group's supply is routed 0.9 mm wide (pcb.py): it claims the grid points around it,
    and signal tracks squeezed past it on both sides still keep 0.15 mm from its copper."""
    rules = router.Rules(supply_track=0.9)
    pads = [pad("A", "RAIL", 2, 6, 1.2, 1.2), pad("B", "RAIL", 18, 6, 1.2, 1.2)]
    pads += [pad("P1", "ALONG1", 3, 5), pad("P2", "ALONG1", 17, 5),  # either side of the rail's way
             pad("P3", "ALONG2", 3, 7), pad("P4", "ALONG2", 17, 7)]
    pads += [pad("X%d%d" % (i, y), "CROSS%d" % i, x, y) for i, x in enumerate((8, 12)) for y in (2, 10)]
    r, tasks, segs, vias = route(pads, rules=rules, supply_nets={"RAIL"})
    assert not r.unrouted()
    assert {w for n, _, _, _, w in segs if n == "RAIL"} == {0.9}
    assert {w for n, _, _, _, w in segs if n != "RAIL"} == {0.2}
    check_clearances(pads, segs, vias, rules)


def test_no_copper_reaches_into_a_keepout():
    """The antenna's keep-out (pcb.py): a net whose straight way runs through it goes round, with its
    track's half width outside the box, and no via inside it."""
    box = (7.0, 2.0, 13.0, 10.0)
    pads = [pad("A", "ONE", 2, 6), pad("B", "ONE", 18, 6)]
    r, tasks, segs, vias = route(pads, keepouts=[box])
    assert segs and not r.unrouted()
    for _, _, a, b, w in segs:
        assert box_distance((a, b), box) >= w / 2 - 1e-9, (a, b)
    for _, (x, y) in vias:
        assert box_distance(((x, y), (x, y)), box) >= RULES.via / 2
