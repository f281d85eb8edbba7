"""The opponent on the MicroPython unix port: the same seeded matches, move for move, as on CPython."""

from pathlib import Path

import pytest

from doce_host import rules
from opponent_matches import play_match, schedule

HERE = Path(__file__).parent
LEVELS = 4
MATCHES = 3  # per level: 12 matches a rules file


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
