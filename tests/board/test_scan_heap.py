"""The scan loop allocates nothing on the MicroPython unix port, counted by mem_total (every
byte the heap ever handed out): a bytecode frame of more than 11 slots or a range() object
is freed at once and invisible to gc.mem_alloc and heap_lock, but not to it (review 48)."""

from pathlib import Path

from doce_host.paths import BOARD_FILE

HERE = Path(__file__).parent


def test_a_board_of_dice_settling_unreadable_and_readable_allocates_nothing(micropython):
    run = micropython(HERE / "mp_scan_alloc.py", BOARD_FILE, heap="256K")
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "0"
