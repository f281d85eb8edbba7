"""`doce sim` (what `make sim` runs): typing moves dice in the simulated world."""

import io

from doce_host.sim.terminal import play


def test_typed_dice_go_through_the_firmware(sim):
    out = io.StringIO()
    play(sim, io.StringIO("c3 w4\nd4 b2\nb2 w3\nlift b2\nc3 b1\nzz 9\nnonsense\nquit\n"), out)
    text = out.getvalue()
    assert "white put a 4 on c3" in text and "black put a 2 on d4" in text
    assert "not allowed (no play zone): b2" in text
    assert "the board matches the game again" in text
    assert "there is a die on c3 already: lift it first" in text
    assert 'type a square and a die, like "c3 w4"' in text and "unknown command" in text
    assert text.rstrip().splitlines()[-1] == "unknown command; type help"
    assert "Round 1  white 0 : 0 black  white to move" in text
    assert "W4y" in text  # white's die, lit yellow
