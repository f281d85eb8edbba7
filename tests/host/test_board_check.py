"""doce check board: the bring-up check names each faulty part by its designator.

The faults are soldered into the simulated PCB (sim/device/machine.py, Faults), one at a time and
in pairs, on a board running the real firmware on the serial simulator; the check runs on it
(firmware/doce/bringup.py) and the host names the parts from the circuit (hardware/doce.net). Each
expected designator is looked up in the netlist here, and the netlist's own Position field is held
to board.json's channel, so a test does not just repeat the check's own look-up."""

import json

import pytest
from check_maker import SimMaker
from waiting import booted

from doce_host import circuit as circuit_module
from doce_host import check_command, image
from doce_host.board_check import led_places, quiescent_band
from doce_host.link import BoardLink
from doce_host.paths import BOARD_FILE
from doce_host.sim.serial_sim import SerialSim

SPEC = json.loads(BOARD_FILE.read_text())
CIRCUIT = circuit_module.load()
TIMEOUT = 120  # a step on a simulator sharing two cores with seven others: seconds, sized generously


def ch(square, where="C"):
    return SPEC["squares"][square]["CNESW".index(where)]


def test_the_netlist_names_each_sensor_where_board_json_puts_its_channel():
    for square, channels in SPEC["squares"].items():
        for where, channel in zip("CNESW", channels):
            ref = CIRCUIT.sensor(channel)
            assert CIRCUIT.parts[ref]["fields"]["Position"] == "%s %s" % (square, where)
    assert CIRCUIT.sensor(ch("d1", "N")) == "H110"  # as the BOM and the PCB print it (rev. B: rings from e5)


def test_the_quiescent_band_is_the_datasheets_spread_through_the_adc():
    low, high = quiescent_band(SPEC["physics"])
    # 1.591 V x 3.235/3.3 on a 1200 mV chip, 1.709 V x 3.365/3.3 on a 1000 mV one, +-12 LSB
    assert 25000 < low < 26500 and 34500 < high < 36000


@pytest.fixture(scope="module")
def board(tmp_path_factory):
    with SerialSim(tmp_path_factory.mktemp("check"), seed=4) as sim:
        booted(sim)
        with BoardLink(sim.path, timeout=TIMEOUT) as link:
            link.hello()
            yield sim, link


def check(board, *faults, die=True, leds=False, button=False, maker=None):
    sim, link = board
    sim.fault("clear")
    for fault in faults:
        sim.fault(**fault)
    maker = (maker or SimMaker)(sim, SPEC)
    try:
        return check_command.run(link, SPEC, CIRCUIT, maker, die=die, leds=leds, button=button, timeout=TIMEOUT)
    finally:
        sim.fault("clear")


def named(result):
    return sorted((f.kind, f.part) for f in result["faults"])


def sensor(channel):
    return CIRCUIT.sensor(channel)


# Each fault: (its injection, what the check must say: [(kind, part)])
def dead(channel):
    return {"kind": "dead_sensor", "channel": channel}, [("dead", sensor(channel))]


def no_supply(group):
    return {"kind": "no_supply", "group": group}, [("no_supply", CIRCUIT.group_switch(group)[0])]


def stuck(line, level):
    return {"kind": "address_stuck", "line": line, "level": level}, [("select_stuck", "MUX_S%d" % line)]


def swapped(j, k):
    return {"kind": "address_swap", "lines": [j, k]}, [("select_swapped", "MUX_S%d/MUX_S%d" % (j, k))]


def open_channel(channel):
    return {"kind": "open_channel", "channel": channel}, [("open", sensor(channel))]


def short(channel, to):
    kind = {"3v3": "high", "gnd": "dead"}[to]
    return {"kind": "short_channel", "channel": channel, "to": to}, [(kind, sensor(channel))]


def mux_off(group):
    return {"kind": "mux_off", "group": group}, [("mux_off", CIRCUIT.mux(group))]


SINGLE = ([dead(ch("c4", "E")), no_supply(3), open_channel(ch("d1", "N")), short(ch("e5", "S"), "3v3"),
           short(ch("a3"), "gnd"), mux_off(5)]
          + [stuck(line, level) for line in range(4) for level in (0, 1)]
          + [swapped(j, k) for j in range(4) for k in range(j + 1, 4)])


def test_a_sound_board_has_no_fault(board):
    result = check(board, leds=True, button=True)
    assert result["faults"] == [] and result["notes"] == []
    storage = result["storage"]
    # the board's own flash: the simulator's is the vfs partition doce flash writes (2 MiB of
    # LittleFS), never the disk of the computer the simulator runs on
    assert storage["storage_error"] is None and storage["size_kb"] == image.BLOCK_COUNT * image.BLOCK_SIZE // 1024
    assert 0 < storage["free_kb"] < storage["size_kb"]
    assert result["network"] == dict(result["network"], set_up=False)


@pytest.mark.parametrize("seed", [1, 7, 11])
def test_sound_boards_built_otherwise_within_tolerance_have_no_fault(tmp_path, seed):
    """Each seed is another board: its sensors' quiescent voltages and its ESP32's ADC drawn anywhere
    within their datasheets' spread (doce_host.physics.readout)."""
    with SerialSim(tmp_path, seed=seed) as sim:
        booted(sim)
        with BoardLink(sim.path, timeout=TIMEOUT) as link:
            link.hello()
            result = check_command.run(link, SPEC, CIRCUIT, SimMaker(sim, SPEC), leds=False, button=False,
                                       timeout=TIMEOUT)
    assert result["faults"] == [] and result["notes"] == []


@pytest.mark.parametrize("fault, said", SINGLE, ids=lambda x: json.dumps(x) if isinstance(x, dict) else None)
def test_each_fault_alone_is_named(board, fault, said):
    assert named(check(board, fault)) == sorted(said)


# Pairs: two faults of different kinds, placed where neither hides the other (a dead sensor on an
# input a stuck select line still reaches, in a group whose multiplexer works...).
PAIRS = [
    (dead(ch("c4", "E")), no_supply(0)),
    (dead(ch("b1")), open_channel(ch("d3", "W"))),
    (dead(ch("a5", "N")), stuck(0, 1)),  # channel 105: input 9, odd, reached with S0 high
    (dead(ch("e1", "S")), stuck(3, 0)),  # channel 43: input 11 -> group 2, reached with S3 low? 11 has S3 set
    (no_supply(2), stuck(1, 0)),
    (no_supply(6), swapped(0, 2)),
    (mux_off(1), dead(ch("b5", "E"))),
    (mux_off(4), stuck(2, 1)),
    (open_channel(ch("c2", "S")), swapped(1, 3)),
    (short(ch("e4", "W"), "3v3"), mux_off(7)),
    (short(ch("b4", "N"), "3v3"), swapped(0, 1)),
    (open_channel(ch("a2", "E")), no_supply(5)),
    (stuck(0, 0), short(ch("c5", "N"), "3v3")),
]


def reached(fault, other):
    """Whether `fault`'s part is still seen with `other` in: a dead sensor on an input a stuck
    select line no longer reaches is hidden, as it would be on copper."""
    cmd = fault[0]
    if "channel" not in cmd or other[0]["kind"] != "address_stuck":
        return True
    line, level = other[0]["line"], other[0]["level"]
    return (cmd["channel"] % 16 >> line & 1) == level


@pytest.mark.parametrize("first, second", PAIRS, ids=lambda x: json.dumps(x[0]))
def test_faults_in_pairs_are_each_named(board, first, second):
    expected = [s for f, o in ((first, second), (second, first)) if reached(f, o) for s in f[1]]
    assert named(check(board, first[0], second[0])) == sorted(expected)


def test_two_inputs_bridged_are_named_when_the_die_is_over_one(board):
    result = check(board, {"kind": "short_channel", "channel": ch("b2"), "to": ch("c2")})
    mux, _ = CIRCUIT.mux_input(ch("b2"))
    assert named(result) == [("bridged", mux)]
    assert sensor(ch("c2")) in result["faults"][0].parts


def test_an_adc_noisier_than_the_board_file_says_is_measured_not_mistaken(board):
    """The board reports each input's spread, and the check takes the noise it shows: nearly three
    times board.json's (700 counts peak, not 250), a sound board has no fault and a stuck line is named."""
    sim, link = board
    sim.noise(700)
    try:
        assert check(board)["faults"] == []
        assert named(check(board, stuck(1, 0)[0])) == stuck(1, 0)[1]
    finally:
        sim.noise(SPEC["physics"]["adc"]["noise_counts"])


def test_without_the_die_two_swaps_read_as_a_sound_board_and_the_check_says_so(board):
    result = check(board, swapped(0, 1)[0], die=False)
    assert result["faults"] == []
    assert any("S0 and S1" in note for note in result["notes"])


def elsewhere(square):
    class Astray(SimMaker):
        """Puts the die on `square` when asked for b2 (or on no square at all)."""

        def put_die(self, asked):
            self.asked.append("put " + asked)
            if square:
                self.sim.place(square, "white 3")

        def take_die(self, asked):
            if square:
                self.sim.lift(square)
    return Astray


@pytest.mark.parametrize("square", ["a2", "a3", "c2", "b3"])
def test_a_die_on_another_square_is_said_not_taken_for_faults_of_the_pcb(board, square):
    result = check(board, maker=elsewhere(square))
    assert result["faults"] == []
    assert any("the die is on %s, not b2: put it on b2" % square in note for note in result["notes"])


def test_no_die_on_b2_is_said_and_the_swaps_it_tells_are_left_open(board):
    result = check(board, swapped(0, 1)[0], maker=elsewhere(None))
    assert result["faults"] == []
    assert any("nothing moved on b2" in note for note in result["notes"])
    assert any("S0 and S1" in note for note in result["notes"])


@pytest.mark.parametrize("fault", [dead(ch("b2")), open_channel(ch("b2"))], ids=["dead", "open"])
def test_a_faulty_centre_on_b2_and_crossed_lines_are_both_named(board, fault):
    """b2's centre is what the die moves to tell S0/S1 crossed: with it dead or open, the input that
    reads it is its fault, not a neighbour's (a2's centre, which S0/S1 crossed put at its address)."""
    result = check(board, fault[0], swapped(0, 1)[0])
    assert named(result) == sorted(fault[1] + swapped(0, 1)[1])


def test_b2s_centre_in_a_dark_group_leaves_the_swaps_untold_and_says_so(board):
    fault = no_supply(ch("b2") // 16)
    result = check(board, fault[0], swapped(0, 1)[0])
    assert named(result) == fault[1]
    assert any("S0 and S1" in note and "could not be told" in note for note in result["notes"]), result


def test_a_second_select_line_fault_behind_the_first_is_said_possible(board):
    """The check tells one select-line fault at a time: two, and the second may hide behind the
    first, so the check says to run it again once the first is mended."""
    result = check(board, stuck(0, 1)[0], stuck(1, 0)[0])
    assert ("select_stuck", "MUX_S0") in named(result)
    assert any("one select-line fault at a time" in note for note in result["notes"]), result


def test_a_broken_led_chain_is_named_at_the_first_dark_led(board):
    result = check(board, {"kind": "led_break", "led": 12}, die=False, leds=True)
    assert named(result) == [("led_break", CIRCUIT.led(12))]
    assert CIRCUIT.led(11) in result["faults"][0].parts  # the LED whose DOUT feeds it


def test_a_swapped_led_pair_is_named(board):
    result = check(board, {"kind": "led_swap", "leds": [7, 8]}, die=False, leds=True)
    assert named(result) == [("led_swap", CIRCUIT.led(7))]
    places = led_places(SPEC)
    assert set(result["faults"][0].parts) == {CIRCUIT.led(7), CIRCUIT.led(8)}
    assert places[8] in result["faults"][0].says


def test_a_broken_chain_and_a_swapped_pair_before_it(board):
    result = check(board, {"kind": "led_break", "led": 20}, {"kind": "led_swap", "leds": [3, 4]}, die=False, leds=True)
    assert named(result) == sorted([("led_break", CIRCUIT.led(20)), ("led_swap", CIRCUIT.led(3))])


@pytest.mark.parametrize("stuck_at, kind", [("pressed", "button_stuck"), ("open", "button_open")])
def test_a_stuck_button_is_named(board, stuck_at, kind, monkeypatch):
    monkeypatch.setattr(check_command, "BUTTON_WAIT_S", 3.0)
    result = check(board, {"kind": "button", "stuck": stuck_at}, die=False, button=True)
    assert named(result) == [(kind, CIRCUIT.button())]


def test_a_stuck_button_with_a_dead_sensor(board):
    result = check(board, {"kind": "button", "stuck": "pressed"}, dead(ch("e2", "N"))[0], die=False, button=True)
    assert named(result) == sorted([("button_stuck", CIRCUIT.button()), ("dead", sensor(ch("e2", "N")))])


def test_the_game_waits_and_comes_back_after_the_check(board):
    sim, link = board
    sim.place("a1", "white 4")
    link.wait_for("placed", timeout=TIMEOUT)
    sim.lift("a1")  # SimMaker takes the dice off anyway: the check needs an empty board
    result = check(board, dead(ch("c3"))[0], die=False)
    assert named(result) == [("dead", sensor(ch("c3")))]
    assert link.state()["mode"] in ("playing", "correcting")


def test_the_command_prints_a_line_per_fault_and_draws_them(board, tmp_path):
    sim, link = board
    svg = tmp_path / "faults.svg"
    link.request("dice_check", on=False)  # a stuck button's presses may have started it, as on a board
    sim.fault("clear")
    sim.fault("dead_sensor", channel=ch("c4", "E"))
    sim.fault("no_supply", group=6)
    link.close()  # the command opens the port itself
    try:
        code = check_command_main(["check", "board", "--port", sim.path, "--no-die", "--no-leds", "--no-button",
                                   "--json", "--svg", str(svg), "--timeout", str(TIMEOUT)])
    finally:
        sim.fault("clear")
        link.__init__(sim.path, timeout=TIMEOUT)
    code, out = code
    assert code == 1
    report = json.loads(out)
    assert sorted(f["part"] for f in report["faults"]) == sorted([sensor(ch("c4", "E")),
                                                                  CIRCUIT.group_switch(6)[0]])
    picture = svg.read_text()
    assert 'class="fault" data-ref="%s"' % sensor(ch("c4", "E")) in picture
    assert 'data-ref="%s" data-fault' % CIRCUIT.group_switch(6)[0] in picture


def check_command_main(argv):
    import contextlib
    import io

    from doce_host.cli import main
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(argv)
    return code, out.getvalue()


def test_the_terminal_maker_reads_the_makers_answers():
    answers = iter(["", "b2", "none", "n"])
    maker = check_command.TerminalMaker(out=open("/dev/null", "w"), ask=lambda: next(answers))
    assert maker.where_lit("LED1", "a1") == "a1"
    assert maker.where_lit("LED2", "b1") == "b2"
    assert maker.where_lit("LED3", "c1") is None
    assert maker.any_lit() is False


def test_the_check_and_the_meter_are_loaded_only_when_asked_for(tmp_path):
    """firmware/doce/bringup.py and meter.py are not in the game's RAM, nor on its scan loop, until a
    host asks for them."""
    from doce_host.sim import SimBoard
    with SimBoard(tmp_path) as sim:
        loaded = sim.command(do="modules")["loaded"]
        assert "doce.app" in loaded and "doce.bringup" not in loaded and "doce.meter" not in loaded
        sim.command(do="send", line='{"cmd": "board_check", "step": "start"}\n')
        sim.command(do="send", line='{"cmd": "board_check", "step": "end"}\n')
        assert "doce.bringup" in sim.command(do="modules")["loaded"]


def test_closing_the_terminal_mid_check_gives_the_board_back_to_its_game(tmp_path):
    """SIGHUP (the terminal closed) ends doce check board as Ctrl-C does: the board gets its end."""
    import os
    import signal
    import subprocess

    from ctrl_c import STOP_S, Doce
    with SerialSim(tmp_path, seed=4) as sim:
        booted(sim)
        doce = Doce("check", "board", "--port", sim.path, "--timeout", str(TIMEOUT), "--no-die",
                    stdin=subprocess.PIPE)
        try:
            doce.until(lambda line: "Press the board's button" in line or "lights alone" in line, timeout=TIMEOUT)
            os.killpg(doce.process.pid, signal.SIGHUP)
            assert doce.process.wait(STOP_S) == 130
        finally:
            if doce.process.poll() is None:
                os.killpg(doce.process.pid, signal.SIGKILL)
        with BoardLink(sim.path, timeout=TIMEOUT) as link:
            link.hello()
            assert link.request("board_check", step="led", index=0)["error"] == "no_check"  # out of the check
