"""A board that loses its Wi-Fi, and its power, mid-round: the game's events wait in its journal
(doce/outbox.py) and reach the organiser once each, in order, when the Wi-Fi is back."""

from fleet_helpers import join, link, until_scanned

from waiting import wait_until
from doce_host.fleet.room import Room

WAIT_S = 30  # for the broker alone, the board off
MOVES = [("c3", "white 4"), ("a1", "black 2"), ("e5", "white 1"), ("b4", "black 6")]


def game_events(board):
    """What the organiser kept of the game: (event, cell or round), in the order kept."""
    return [(e["event"], e.get("cell", e.get("round"))) for _, e in board.events
            if e["event"] in ("new_match", "round_start", "placed", "round_end", "round_restarted")]


def acknowledged(sim):
    """Until the broker's PUBACKs have reached the board (over a real socket, in their own
    time) and it has noted them in its journal: nothing waits in its outbox."""
    assert until_scanned(lambda: link(sim, cmd="net")["status"]["waiting"] == 0, sim)


def offline_then_reboot(sim, broker, room, power_cut):
    join(sim, broker)
    assert until_scanned(lambda: room.boards.get("b1") and room.boards["b1"].online, sim)
    b = room.boards["b1"]
    sim.place(*MOVES[0])
    assert until_scanned(lambda: ("placed", "c3") in game_events(b), sim)
    acknowledged(sim)
    sim.command(do="wifi", up=False)
    assert until_scanned(lambda: not b.online, sim)  # the broker's last will
    sim.place(*MOVES[1])
    sim.place(*MOVES[2])
    power_cut()
    sim.command(do="wifi", up=False)  # still off the air after the reboot
    sim.settle()
    sim.place(*MOVES[3])
    assert link(sim, cmd="net")["status"]["waiting"] >= 3  # the two before the reboot, and this one
    sim.command(do="wifi", up=True)
    assert until_scanned(lambda: ("placed", "b4") in game_events(b), sim)
    sim.run(300)  # anything coming twice would be here by now
    return b


def test_events_of_an_outage_and_a_power_cut_reach_the_organiser_once_each_in_order(sim, broker):
    with Room(broker.url) as room:
        b = offline_then_reboot(sim, broker, room, lambda: (sim.cut_power(), sim.power_on(settle=False)))
        assert [e for e in game_events(b) if e[0] == "placed"] == [("placed", cell) for cell, _ in MOVES]
        assert game_events(b).count(("round_start", 1)) == 1
        again = [e.get("cell") for boot, e in b.events if e.get("again") and boot == b.boot]
        assert again == ["a1", "e5"]  # made again from the journal after the reboot
        assert b.repeats == 0  # and nothing the board sent twice
        assert link(sim, cmd="net")["status"]["waiting"] == 0


def test_a_power_cut_while_the_acknowledgement_is_written_costs_nothing(sim, mosquitto):
    """The cut tears the A record that follows a1's PUBACK: after the reboot a1 goes again, and
    the organiser knows it by its tag and record, and keeps it once."""
    with Room(mosquitto.url) as room:
        join(sim, mosquitto)
        assert until_scanned(lambda: room.boards.get("b1") and room.boards["b1"].online, sim)
        b = room.boards["b1"]
        sim.place(*MOVES[0])
        assert until_scanned(lambda: ("placed", "c3") in game_events(b), sim)
        acknowledged(sim)
        sim.command(do="wifi", up=False)
        assert until_scanned(lambda: not b.online, sim)
        sim.place(*MOVES[1])  # its record written; its event waits for the broker
        sim.cut_power_at_flash_write(after=1, torn=True)  # the next write: the A record, once the broker has a1
        sim.command(do="wifi", up=True)
        assert until_scanned(lambda: sim.power_was_cut, sim)
        assert wait_until(lambda: ("placed", "a1") in game_events(b), WAIT_S)  # the broker passes it on
        sim.power_on()
        assert until_scanned(lambda: any(e.get("again") for boot, e in b.events if boot == b.boot)
                          or b.repeats, sim)
        sim.run(300)
        assert [e for e in game_events(b) if e[0] == "placed"] == [("placed", "c3"), ("placed", "a1")]
        assert b.repeats == 1  # a1, sent again and dropped


def test_the_journal_keeps_the_acknowledgements_beside_the_game_and_a_torn_one_costs_only_itself(tmp_path):
    import os

    from doce.game import BLACK, WHITE
    from doce.journal import Journal
    from doce_host.rules import load_tables
    tables = load_tables("standard")
    os.chdir(tmp_path)
    j = Journal()
    j.next_tag = b"\x01\x02\x03\x04"
    j.new_match(WHITE, tables.checksum)
    j.round_started(1)
    j.die(WHITE, 12, 4)
    j.ack(3)
    j.die(BLACK, 0, 2)
    assert (j.moves, j.acked, j.tag) == (4, 3, b"\x01\x02\x03\x04")
    again = Journal()
    game, waiting, note = again.replay(tables)
    assert note is None and not waiting and game.board[12] == 0x14 and game.board[0] == 0x22
    assert (again.moves, again.acked, again.tag) == (4, 3, b"\x01\x02\x03\x04")
    j.ack(4)
    with open("journal", "r+b") as f:  # the power went while the last A record was written
        f.truncate(os.path.getsize("journal") - 2)
    again = Journal()
    game, waiting, note = again.replay(tables)
    assert "dropped 5 damaged byte(s)" in note and game.board[0] == 0x22
    assert (again.moves, again.acked) == (4, 3)  # record 4's events go again: a host keeps them once


def test_events_made_after_a_reboot_while_the_broker_is_away_do_not_hold_back_the_journals(sim, broker):
    """At boot the records the broker lacks are made again from the journal a few at a time, before
    anything newer (doce/outbox.py catch_up). Four newer events waiting held that back for good: the
    board sent nothing more on that power-on, the broker back or not (a hostile review, issue 41)."""
    moves = [("a1", "white 1"), ("b2", "black 1"), ("c3", "white 2"), ("d4", "black 2"), ("e5", "white 3"),
             ("a5", "black 3")]
    with Room(broker.url) as room:
        join(sim, broker)
        assert until_scanned(lambda: room.boards.get("b1") and room.boards["b1"].online, sim)
        b = room.boards["b1"]
        acknowledged(sim)
        sim.run(10)  # and the journal told so (an A record): the match's start is not sent again
        sim.command(do="wifi", up=False)
        assert until_scanned(lambda: not b.online, sim)
        sim.place(*moves[0])  # a record the broker never had
        sim.cut_power()
        sim.power_on(settle=False)
        sim.command(do="wifi", up=False)
        sim.settle()
        for move in moves[1:]:  # more newer events than the journal's are let ahead of
            sim.place(*move)
        sim.command(do="wifi", up=True)
        assert until_scanned(lambda: ("placed", "a5") in game_events(b), sim), link(sim, cmd="net")["status"]
        sim.run(300)  # anything coming twice would be here by now
        assert [e for e in game_events(b) if e[0] == "placed"] == [("placed", cell) for cell, _ in moves]
        assert b.repeats == 0 and link(sim, cmd="net")["status"]["waiting"] == 0, [
            (boot, e.get("seq"), e.get("event"), e.get("record"), e.get("again")) for boot, e in b.events]
