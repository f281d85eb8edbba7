import pytest
from fleet_helpers import mosquitto_or_skip

from doce_host.fleet.broker import EmbeddedBroker, Mosquitto


@pytest.fixture
def mosquitto(tmp_path):
    mosquitto_or_skip()
    with Mosquitto(folder=tmp_path / "broker") as broker:
        yield broker


@pytest.fixture
def embedded():
    with EmbeddedBroker() as broker:
        yield broker


@pytest.fixture(params=["mosquitto", "embedded"])
def broker(request):
    return request.getfixturevalue(request.param)


@pytest.fixture
def sim(tmp_path):
    """A simulated board on the reference WROVER's heap: a board on Wi-Fi needs its PSRAM (hardware/bom.csv U1)."""
    from doce_host.sim import SimBoard
    board = SimBoard(tmp_path, module="wrover")
    yield board
    board.close()
