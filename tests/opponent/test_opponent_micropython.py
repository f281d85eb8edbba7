"""The opponent on the MicroPython unix port: the same seeded matches, move for move, as on CPython."""

from pathlib import Path

import pytest

from doce.opponent import SLICE, Opponent
from doce_host import rules
from opponent_matches import play_match, schedule

HERE = Path(__file__).parent
BENCH = HERE.parent.parent / "bench"  # position_text.py, which mp_steps.py reads its positions with
LEVELS = 4
MATCHES = 3  # per level: 12 matches a rules file
# The most heap one step of thinking may allocate: one weighing's moves as the tuples its search keeps
# (the standard board's 25 squares x 6 faces, a 5-tuple of 64 bytes and its place in a list each, with
# the list's spare room: about 16 KB on the unix port's 64-bit objects).
STEP_HEAP = 16 * 1024


@pytest.mark.parametrize("name", rules.shipped_names())
def test_micropython_plays_the_same_matches(micropython, tmp_path, name):
    tables = rules.load_tables(name)
    (tmp_path / "rules.doct").write_bytes(tables.blob)
    # Compiling the sources at import needs more heap than the board, which loads .mpy files;
    # bench/opponent.py measures the heap the opponent needs while it thinks.
    run = micropython(HERE / "mp_matches.py", tmp_path / "rules.doct", LEVELS, MATCHES, heap="256K", path=[HERE])
    assert run.returncode == 0, run.stderr
    expected = ["%d %d %d: %d %d %d" % ((w, b, seed) + play_match(tables, w, b, seed))
                for w, b, seed in schedule(LEVELS, MATCHES)]
    assert run.stdout.splitlines() == expected


def test_each_step_of_thinking_is_a_slice(micropython, tmp_path):
    """The scan loop keeps its pace while the board thinks: versus.py steps think() once a scan, so
    no step may do more than SLICE work and one weighing of every die beyond it (pass_work()), nor
    any work it does not count. Checked on MicroPython, step by step, over the 300 positions of real
    matches in chosen_moves.txt: each step's work, in the opponent's own units, and the heap it
    allocates, in the interpreter's own count (gc off meanwhile). Before, the last step of a move
    whose moves were all decided one ply deep sorted 168 of them with a key: MicroPython's sort calls
    the key at every comparison and pivots on the last item (py/objlist.c, mp_quicksort), so the list,
    already best first, cost it 14,000 calls, 469 KB and 25 M unix-port instructions with 0 work."""
    tables = rules.load_tables("standard")
    (tmp_path / "rules.doct").write_bytes(tables.blob)
    run = micropython(HERE / "mp_steps.py", tmp_path / "rules.doct", HERE / "chosen_moves.txt", heap="4M",
                     path=[BENCH])
    assert run.returncode == 0, run.stderr
    steps = [tuple(int(x) for x in line.split()) for line in run.stdout.splitlines()]
    assert len({s[0] for s in steps}) == 300
    most_work = SLICE + Opponent(tables).pass_work()
    for position, step, work, allocated in steps:
        assert work <= most_work, "position %d, step %d: work %d" % (position, step, work)
        assert allocated <= STEP_HEAP, "position %d, step %d: %d bytes (work %d)" % (position, step, allocated, work)
