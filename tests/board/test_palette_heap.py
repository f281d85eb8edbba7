"""The lights' palette is made in one piece of the heap: its tuples side by side, not among the
garbage of working them out (issue 41's power-cut campaign: the Wi-Fi's lower brightness cap,
set at boot, laid the 45 tuples some 700 bytes apart across 33 KB of a paired board's free heap,
and a board cut late in a remote match came back with no 14 KB in one piece)."""

from pathlib import Path

from doce_host.paths import BOARD_FILE

HERE = Path(__file__).parent
# A tuple of three small ints: 4 words of 8 bytes on the unix port (a 64-bit build), two GC blocks
# of 32 bytes (py/objtuple.h, py/mpconfig.h MICROPY_BYTES_PER_GC_BLOCK); the palette's rows are
# lists of 9 between them (a list object and its 9 items: 4 blocks more each).
TUPLE_BYTES = 64
ROW_BYTES = 4 * 32


def test_a_brightness_change_lays_the_palette_side_by_side(micropython):
    run = micropython(HERE / "mp_palette_heap.py", BOARD_FILE, TUPLE_BYTES, heap="256K")
    assert run.returncode == 0, run.stderr
    span, entries, adjacent = map(int, run.stdout.split())
    own = entries * TUPLE_BYTES + 5 * ROW_BYTES  # five colours of 9 levels
    # Side by side, but for the holes boot's garbage left below them, which they fill first (first fit:
    # that fragments nothing new). How many holes there are, and so the span, moves with any allocation
    # at boot, even the length of the board file's path (the span was 5.9-7.9 KB for one firmware):
    # so most lie right after another, and all within a few times their own bytes. Made among the
    # garbage of working them out, none lay side by side (each some 700 bytes on), across 61 KB.
    assert adjacent * 2 >= entries - 1, (adjacent, entries)
    assert span <= 4 * own, (span, own)
