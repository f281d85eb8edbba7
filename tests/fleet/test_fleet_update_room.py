"""`doce fleet update` to a room of 8 simulated boards on Mosquitto, every case of issue 43 at once in one
update: a clean one, a forged one, a corrupted chunk, a power cut mid-write, a version that crashes at boot (rolled
back), a board offline through the update (caught up when it comes back), and a board not updated. One room and one
run for all: the boards are stepped side by side, so 8 boards cost about what the longest transfer costs. Then what
the organiser sees: the room's rows (doce fleet status, the hall) give each board's version and how its update
ended, and a second organiser that joins afterwards reads each board's version from its retained status.

The boards that must come up healthy on the new version take the whole app (a slot boots only from its own
files); the others take the smallest package that shows their case: one file."""

import contextlib

from fleet_helpers import join, link, until_scanned

from doce_host import image, update
from doce_host.fleet import update as fleet_update
from doce_host.fleet.room import Room
from doce_host.sim import SimBoard
from waiting import HARD_CAP_S, Deadline

FILES = image.slot_files(image.app_files(chip="host"))  # what doce sim's boards run, as doce flash builds it
NO_APP = {"doce/tiny.py": b"x = 1\n"}  # a version with no app in it: it crashes at every boot on trial
OTHER_KEY = "cd" * 32
IDS = ["b%d" % i for i in range(1, 9)]
REPLY_S = 10  # seconds of a core's time for one reply (a scan of the board's away, a few ms): b5's lost one costs it
WAIT_S = 900  # the longest transfer (the whole app, some 1,800 chunks) with 8 boards stepped between its commands
TRIAL_SCANS = 200000  # a trial is at most slots.TRIAL_MS (120 s) of scans; 3 crashed boots are a few scans each


def corrupted(data):
    """The package with one byte of its first file's first chunk changed on the way: the manifest still signed."""
    n = int.from_bytes(data[:4], "little")
    at = 4 + n + 32 + 3
    return data[:at] + bytes([data[at] ^ 0xFF]) + data[at + 1:]


@contextlib.contextmanager
def room_of_eight(tmp_path, broker):
    (tmp_path / "room").mkdir()
    keys = update.write_keys(tmp_path / "room", IDS)
    with contextlib.ExitStack() as stack:
        sims = {}
        for ident in IDS:
            sim = stack.enter_context(SimBoard(tmp_path / ident, module="wrover"))
            assert link(sim, cmd="update_key", board=ident, key=keys[ident])["ok"]
            join(sim, broker, board_id=ident)
            sims[ident] = sim
        room = stack.enter_context(Room("mqtt://%s:%d" % (broker.host, broker.port)))
        for ident, sim in sims.items():
            assert until_scanned(lambda: ident in room.boards and room.boards[ident].online, sim, step=20)
        yield room, sims, keys


def update_events(sim):
    return [(e["stage"], e.get("reason") or e.get("version")) for e in sim.events if e["event"] == "update"]


def test_eight_boards_every_case_in_one_update(tmp_path, mosquitto):
    with room_of_eight(tmp_path, mosquitto) as (room, sims, keys):
        data = {i: update.package(FILES, 2, i, keys[i]) for i in ("b1", "b2", "b5", "b7")}
        data["b3"] = update.package(NO_APP, 2, "b3", OTHER_KEY)  # forged: signed, not with its key
        data["b4"] = corrupted(update.package(NO_APP, 2, "b4", keys["b4"]))
        data["b6"] = update.package(NO_APP, 2, "b6", keys["b6"])
        # b8 is sent nothing: it shows version 0 and no update
        sims["b7"].cut_power()  # off before the update starts: tried until it is back
        seen = {"cut": None, "b7_on": False}
        transfers = {}

        def pump():
            b5 = transfers.get("b5")
            if seen["cut"] is None and b5 is not None and b5.received >= 20000:
                seen["cut"] = b5.received
                sims["b5"].cut_power_at_flash_write(after=3)  # in the writes of the chunks that come next
            if sims["b5"].power_was_cut:
                sims["b5"].power_on()  # on again at once: its transfer begins again from what it stored
            if not seen["b7_on"] and transfers.get("b1") is not None and transfers["b1"].outcome:
                seen["b7_on"] = True
                sims["b7"].power_on()  # back once the others are over
            for sim in sims.values():
                if not sim.power_was_cut:
                    sim.run(2)

        original = fleet_update.Transfer

        class Kept(original):  # the transfers, for the pump to see how far b5's has got
            def __init__(self, room, ident, *args, **kwargs):
                super().__init__(room, ident, *args, **kwargs)
                transfers[ident] = self
        fleet_update.Transfer = Kept
        try:
            results = fleet_update.update(room, data, WAIT_S, REPLY_S, keys, pump=pump)
        finally:
            fleet_update.Transfer = original

        assert {i: results[i][0] for i in data} == {"b1": "done", "b2": "done", "b3": "refused", "b4": "refused",
                                                    "b5": "done", "b6": "done", "b7": "done"}, results
        assert "signed with another key" in results["b3"][1]
        assert results["b4"][1] == "corrupted: doce/tiny.py does not match its SHA-256", results["b4"]
        assert seen["cut"] and len(transfers["b5"].begins) >= 2, transfers["b5"].begins  # begun again after the cut
        assert sims["b7"].resets == 0 and seen["b7_on"]

        # each board's trial: the app's boards healthy on version 2, b6 back on the old one after 3 crashed boots
        deadline = Deadline(HARD_CAP_S)
        for ident in ("b1", "b2", "b5", "b6", "b7"):
            assert until_scanned(lambda: update_events(sims[ident]), sims[ident], TRIAL_SCANS, step=50), ident
        for ident in ("b1", "b2", "b5", "b7"):
            assert update_events(sims[ident]) == [("done", 2)], (ident, update_events(sims[ident]))
        assert update_events(sims["b6"]) == [("rolled_back", "did not come up healthy in 3 boots")]
        assert sims["b6"].resets == 3
        for ident in ("b3", "b4"):  # one warning each, naming the reason
            said = [e["message"] for e in sims[ident].events if e["event"] == "warning"]
            assert said == ["update refused: " + results[ident][1]], said

        # what the organiser sees: each board's version and where its update stands, once the room has heard it
        want = {"b1": (2, "done"), "b2": (2, "done"), "b3": (0, "refused: " + results["b3"][1]),
                "b4": (0, "refused: " + results["b4"][1]), "b5": (2, "done"),
                "b6": (0, "rolled back: did not come up healthy in 3 boots"), "b7": (2, "done"), "b8": (0, None)}

        def shown():
            return {r["id"]: (r["version"], r["update"]) for r in room.rows()}
        while shown() != want and not deadline.passed():
            for sim in sims.values():
                sim.run(10)
        assert shown() == want

        # an organiser who joins now (doce fleet status) has each board's version from its retained status,
        # and no board still says it is on trial
        with Room("mqtt://%s:%d" % (mosquitto.host, mosquitto.port)) as later:
            while len(later.rows()) < len(IDS) and not deadline.passed():
                sims["b1"].run(10)
            assert {r["id"]: (r["version"], r["update"]) for r in later.rows()} == {
                i: (want[i][0], None) for i in IDS}
