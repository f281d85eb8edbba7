"""Power cuts at every flash write of every journaled action, then a resume."""

import pytest

from casebook import piece_of
from doce_host.sim import SimBoard
from test_match import ALL_OWN, swapped


def new_match(sim):
    sim.command(do="new_match", first="black")
    sim.settle()


def placing(move):
    return lambda sim: sim.place(move["cell"], piece_of(move))


def lifting(cell):
    return lambda sim: sim.lift(cell)


ROUND = swapped(*ALL_OWN)  # black opens the new match and wins round 1
ACTIONS = ([new_match] + [placing(m) for m in ROUND]
           + [lifting(m["cell"]) for m in ROUND] + [placing({"player": "white", "cell": "c3", "value": 5})])


def snapshot(sim):
    s = sim.state()
    return {k: s[k] for k in ("board", "mode", "round", "to_move", "scores", "problems")}


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """The state after each action, and its flash operations, with the power on throughout."""
    with SimBoard(tmp_path_factory.mktemp("reference")) as sim:
        states, writes = [], []
        for act in ACTIONS:
            before = sim.debug_state()["flash_operations"]
            act(sim)
            states.append(snapshot(sim))
            writes.append(sim.debug_state()["flash_operations"] - before)
    return states, writes


def resumed(sim):
    sim.power_on()
    sim.run(sim.debounce + sim.quiet)  # settle, and the quiet wait
    return snapshot(sim)


@pytest.mark.parametrize("k", range(len(ACTIONS)))
def test_a_power_cut_during_any_write_loses_at_most_that_action(k, reference, tmp_path):
    reference, writes = reference
    cuts = 0
    for write in range(1, 50):
        folder = tmp_path / str(write)
        with SimBoard(folder) as sim:
            for act in ACTIONS[:k]:
                act(sim)
            sim.cut_power_at_flash_write(after=write, torn=True)
            ACTIONS[k](sim)
            if not sim.power_was_cut:
                break  # this action needed fewer writes: every one has been cut
            cuts += 1
            state = resumed(sim)
            before = reference[k - 1] if k else None
            if ACTIONS[k] is new_match:  # a command, not a die: it may be lost whole
                assert state in (reference[k], resumed_default(sim, before))
            else:  # the piece is on the table: it counts exactly once
                assert state == reference[k], "cut at write %d of action %d" % (write, k)
            if k + 1 < len(ACTIONS) and state == reference[k]:
                ACTIONS[k + 1](sim)
                assert resumed(sim) == reference[k + 1]  # the journal still reads right
    assert cuts == writes[k]  # every flash operation of the action was cut once


def resumed_default(sim, before):
    return before or {"board": {}, "mode": "playing", "round": 1, "to_move": "white",
                      "scores": [], "problems": {}}


def test_journaled_actions_write_to_flash_and_others_do_not(reference):
    """So the test above really cuts every journaled action somewhere."""
    _, writes = reference
    assert writes[0] > 0 and all(w > 0 for w in writes[1:10])  # new match, 9 plays
    assert writes[-2] > 0 and writes[-1] > 0  # the lift that clears the board starts round 2; a play
    assert all(w == 0 for w in writes[10:-2])  # lifting dice off a finished round writes nothing
