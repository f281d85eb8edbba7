"""`doce sim --terminal`: typing moves dice in the simulated world."""

import io
import time

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


def test_what_the_board_says_is_waited_for_however_late_it_comes(tmp_path):
    """On a loaded computer the board's words reach the simulator well after its lights change
    (here: every chunk of its serial output 0.4 s late): each move is still shown with what the
    board said about it, not before it has said it."""
    out = io.StringIO()
    with SerialSim(tmp_path) as sim:
        sim.state()  # booted before its line slows down
        to_host = sim._to_host

        def late(data):
            time.sleep(0.4)
            to_host(data)

        sim._to_host = late
        play(sim, io.StringIO("c3 w4\nd4 b2\nb2 w3\nlift b2\nquit\n"), out)
    text = out.getvalue()
    said = ["white put a 4 on c3", "black put a 2 on d4", "refused: b2", "the board matches the game again"]
    assert all(words in text for words in said), text  # the last, said after the lift, was lost
    assert [text.index(words) for words in said] == sorted(text.index(words) for words in said)
