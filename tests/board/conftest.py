import pytest

from doce_host.sim import SimBoard


@pytest.fixture
def sim(tmp_path):
    board = SimBoard(tmp_path)
    yield board
    board.close()
