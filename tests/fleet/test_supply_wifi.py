"""Wi-Fi only on a supply that carries it (doce/net.py, doce/supply.py): the board reads its USB-C
input's CC lines when Wi-Fi is asked for, and starts the radio only on a USB-C source offering 1.5 A
or more (hardware/power.py SUPPLIES). On the devkit's micro-USB alone (a computer's port: the CC lines
at 0 V) or a charger showing only Default USB power, it says why in one warning, with the fix, and plays on."""

import pytest
from fleet_helpers import join, link, until_scanned

from doce.supply import FIX
from doce_host.fleet.room import Room
from doce_host.sim import SimBoard


def warnings(sim):
    return [e["message"] for e in sim.take_events() if e["event"] == "warning"]


@pytest.mark.parametrize("kind", ["none", "usb"])
def test_on_a_computers_port_remote_play_is_refused_with_the_fix(kind, tmp_path, mosquitto):
    with SimBoard(tmp_path, supply=kind, module="wrover") as sim:
        sim.take_events()
        reply = join(sim, mosquitto)
        assert "status" not in reply  # no radio started
        assert reply["supply"] == kind and FIX in reply["refused"]
        said = [w for w in warnings(sim) if "Wi-Fi" in w]
        assert len(said) == 1 and FIX in said[0], said  # one clear event, naming the fix
        assert link(sim, cmd="net")["refused"] == reply["refused"]
        sim.run(50)
        sim.place("c3", "white 4")  # and play goes on
        assert link(sim, cmd="state")["state"]["board"] == {"c3": "white 4"}


@pytest.mark.parametrize("kind", ["1.5A", "3A"])
def test_on_a_usb_c_charger_of_1_5_a_or_more_the_board_joins_the_room(kind, tmp_path, mosquitto):
    with SimBoard(tmp_path, supply=kind, module="wrover") as sim, Room(mosquitto.url) as room:
        reply = join(sim, mosquitto)
        assert reply["supply"] == kind and "refused" not in reply and "status" in reply
        assert until_scanned(lambda: room.boards.get("b1") and room.boards["b1"].online, sim)


def test_moved_to_a_charger_the_next_ask_starts_the_radio(tmp_path, mosquitto):
    """The supply is read again whenever Wi-Fi is asked for: paired from a computer (refused), then
    the board's USB-C input on a charger, and the next `wifi` command starts it."""
    with SimBoard(tmp_path, supply="none", module="wrover") as sim:
        assert "refused" in join(sim, mosquitto)
        sim.supply("3A")
        reply = link(sim, cmd="wifi", ssid="club", password="s3cret-wifi")
        assert reply["supply"] == "3A" and "status" in reply and "refused" not in reply


def test_pairing_on_a_computers_port_alone_names_the_fix(tmp_path, mosquitto):
    """Pairing needs the broker: on the devkit's micro-USB alone the refusal says why, not that Wi-Fi
    is not set up (it is)."""
    with SimBoard(tmp_path, supply="none", module="wrover") as sim:
        join(sim, mosquitto)
        checksum = link(sim, cmd="hello")["rules_checksum"]
        reply = link(sim, cmd="remote", peer="b2", match="7f3a01c2", colour="white", rules_checksum=checksum)
        assert reply["error"] == "no_network" and FIX in reply["message"], reply
