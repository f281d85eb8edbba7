"""Wi-Fi only on a board with PSRAM (docs/building.md): a WROOM, or a WROVER whose PSRAM was not found at
boot (the SPIRAM image boots on without it: CONFIG_SPIRAM_IGNORE_NOTFOUND), has internal RAM only, where
Wi-Fi, TLS and the Python heap would all have to fit: 20-31 KB left in its largest block with Wi-Fi up
(micropython#14421), which TLS does not fit in. Such a board says so once and plays over USB. The
simulated esp32.idf_heap_info has a PSRAM region on "wrover" only (sim/device/esp32.py)."""

import json

from doce_host.sim import SimBoard

REFUSAL = "Wi-Fi needs the WROVER's PSRAM"


def send(sim, **request):
    replies = sim.command(do="send", line=json.dumps(request) + "\n").get("link", [])
    assert len(replies) == 1, replies
    return replies[0]


def refusals(sim):
    return [e["message"] for e in sim.take_events() if e["event"] == "error" and REFUSAL in e["message"]]


def set_up_wifi(sim):
    assert send(sim, cmd="wifi", ssid="club", password="s3cret-wifi")["ok"]
    assert send(sim, cmd="mqtt", broker="127.0.0.1", port=9, board_id="b1")["ok"]


def test_a_board_without_psram_refuses_wifi_in_one_line_and_plays_over_usb(tmp_path):
    with SimBoard(tmp_path, module="wroom") as sim:
        sim.take_events()
        set_up_wifi(sim)  # net.json stored: each start of the network refused
        assert refusals(sim), "no refusal as Wi-Fi was set up"
        sim.power_on()  # a boot with net.json on its flash
        said = refusals(sim)
        assert len(said) == 1, said
        assert "docs/building.md" in said[0] and "USB" in said[0], said[0]
        net = send(sim, cmd="net")
        assert "status" not in net and net["config"]["ssid"] == "club", net  # the settings kept, no network
        assert sim.command(do="radio")["joins"] == 0, "the radio started on a board without PSRAM"
        sim.place("c3", "white 4")  # the game goes on: read, refereed, lit, journaled
        assert [e["cell"] for e in sim.take_events() if e["event"] == "placed"] == ["c3"]
        assert sim.state()["board"] == {"c3": "white 4"}
        sim.wait(40)  # past offline.py's RETRY_MS: nothing armed to start it again, nothing said again
        assert refusals(sim) == []


def test_a_board_with_psram_starts_wifi(tmp_path):
    with SimBoard(tmp_path, module="wrover") as sim:
        sim.take_events()
        set_up_wifi(sim)
        assert refusals(sim) == []
        assert "status" in send(sim, cmd="net") and sim.command(do="radio")["joins"] > 0


def test_a_simulated_board_that_does_not_say_its_module_is_a_wroom(tmp_path):
    """The simulator's hardest board unless a test asks for another: the smaller heap, no PSRAM, no Wi-Fi
    (doce_host.sim DEFAULT_MODULE). A test on the network fails until it asks for a WROVER."""
    import inspect

    from doce_host.sim import heap_for
    from doce_host.sim.serial_sim import SerialSim
    assert inspect.signature(SerialSim).parameters["module"].default == "wroom"  # the real-time one's too
    with SimBoard(tmp_path) as sim:
        assert sim.heap == heap_for("wroom")
        sim.take_events()
        set_up_wifi(sim)
        assert refusals(sim)
