"""`doce sim --terminal`: typing moves dice in the simulated world."""

import io

from doce_host.sim.serial_sim import SerialSim
from doce_host.sim.terminal import play


def test_typed_dice_go_through_the_firmware(tmp_path):
    out = io.StringIO()
    with SerialSim(tmp_path) as sim:
        play(sim, io.StringIO("c3 w4\nd4 b2\nb2 w3\nlift b2\nc3 b1\nzz 9\nthree nonsense words\nquit\n"), out)
    text = out.getvalue()
    assert "Its USB serial port is /dev/pts/" in text
    assert "white put a 4 on c3" in text and "black put a 2 on d4" in text
    assert "refused: b2: next to white's last die (c3), a no-play zone for white this turn" in text
    assert "the board matches the game again" in text
    assert "there is a die on c3 already: lift it first" in text
    assert 'type a square and a die, like "c3 w4"' in text and "unknown command" in text
    assert "white 0 : 0 black   white to move" in text
    assert "W4y" in text  # white's die, lit yellow


def test_the_buttons_press_chooses_who_plays(tmp_path):
    out = io.StringIO()
    with SerialSim(tmp_path) as sim:
        play(sim, io.StringIO("press\npress\nquit\n"), out)
    assert "who plays: the board plays black at level 0" in out.getvalue()
