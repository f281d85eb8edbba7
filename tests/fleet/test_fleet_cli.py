"""doce config (a board's network settings over USB), doce fleet status, and a room of
simulated boards in real time (doce sim --boards)."""

import io
import json

import pytest
from fleet_helpers import mosquitto_or_skip

from waiting import wait_until
from doce_host.cli import main
from doce_host.fleet.broker import free_port
from doce_host.fleet.room import Room
from doce_host.fleet.simroom import SimRoom, mac_of
from doce_host.sim.serial_sim import SerialSim

WAIT_S = 30


@pytest.fixture
def serial_sim(tmp_path):
    with SerialSim(tmp_path / "board", mac="0200000000aa", module="wrover") as sim:
        yield sim


def test_config_sets_a_board_on_the_broker_and_fleet_status_lists_it(serial_sim, mosquitto, capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO("club-secret\n"))
    assert main(["config", "wifi", "--port", serial_sim.path, "--ssid", "club", "--password-stdin", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["config"]["ssid"] == "club" and shown["config"]["password_set"]
    assert main(["config", "mqtt", "--port", serial_sim.path, "--broker", mosquitto.url, "--name", "Table 4"]) == 0
    out = capsys.readouterr().out
    assert "club-secret" not in out and "Table 4" in out
    with Room(mosquitto.url) as room:  # the board comes online (its id from its MAC)
        assert wait_until(lambda: room.boards.get("0200000000aa") and room.boards["0200000000aa"].online, WAIT_S)
    assert main(["fleet", "status", "--broker", mosquitto.url, "--wait", "0.5", "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(r["id"], r["name"], r["online"], r["rules"]) for r in rows] == [
        ("0200000000aa", "Table 4", True, "standard")]
    assert main(["fleet", "status", "--broker", mosquitto.url, "--wait", "0.5"]) == 0
    table = capsys.readouterr().out
    assert "Table 4" in table and "yes" in table


def test_config_refuses_a_bad_broker_in_one_line(serial_sim, capsys):
    assert main(["config", "mqtt", "--port", serial_sim.path, "--broker", "http://x:1"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("doce: ") and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("url, says", [
    ("mqtt://[::1", "a broker is mqtt[s]://HOST:PORT"),  # was a ValueError traceback
    ("mqtt://" + "h" * 300, "is not a host name or address"),  # was a UnicodeError from the name lookup
    ("mqtt://a..b:1883", "is not a host name or address"),
    ("mqtt://127.0.0.1:0", "port is a number from 1 to 65535"),
    ("mqtt://127.0.0.1:70000", "port is a number from 1 to 65535"),
    ("mqtt://organiser:secret@127.0.0.1", "give the broker's user with --user"),  # was silently dropped
    ("mqtt://127.0.0.1/topic", "a broker is mqtt[s]://HOST:PORT"),
    ("mqtt://u:secret@[::1", "a broker is mqtt[s]://HOST:PORT"),
])
def test_a_bad_broker_address_is_one_line(capsys, url, says):
    assert main(["fleet", "status", "--broker", url, "--wait", "0"]) == 2
    err = capsys.readouterr().err
    assert says in err and err.startswith("doce: ") and len(err.strip().splitlines()) == 1
    assert "secret" not in err  # a password given in the address is not echoed


@pytest.mark.parametrize("argv, says", [
    (["fleet", "secure", "DIR", "--boards", "b1", "--prefix", "doce\nx"], "a prefix is 1 to 4 topic levels"),
    (["fleet", "secure", "DIR", "--boards", "b1", "--prefix", "doce/+"], "a prefix is 1 to 4 topic levels"),
    (["fleet", "secure", "DIR", "--boards", "b1", "--prefix", "doce/#"], "a prefix is 1 to 4 topic levels"),
    (["fleet", "status", "--prefix", "a//b"], "a prefix is 1 to 4 topic levels"),
    (["config", "mqtt", "--port", "/dev/null", "--broker", "mqtt://127.0.0.1", "--prefix", ""], "a prefix is"),
    (["config", "mqtt", "--port", "/dev/null", "--broker", "mqtt://127.0.0.1", "--board-id", "t/1"], "a board id is"),
])
def test_a_prefix_or_board_id_no_topic_can_hold_is_refused(tmp_path, capsys, argv, says):
    argv = [str(tmp_path) if a == "DIR" else a for a in argv]
    with pytest.raises(SystemExit) as ended:
        main(argv)
    assert ended.value.code == 2 and says in capsys.readouterr().err
    assert not list(tmp_path.iterdir())  # fleet secure wrote nothing


def test_fleet_status_without_a_broker_runs_the_embedded_one_and_says_it_is_for_this_computer(capsys):
    port = free_port()
    assert main(["fleet", "status", "--embedded-port", str(port), "--wait", "0.2"]) == 0
    out, err = capsys.readouterr()
    assert "no boards on 127.0.0.1:%d" % port in out
    # it takes anyone under any client id (issue 25): said in one line, beside the JSON or table on stdout
    assert err.count("\n") == 1 and "for this computer only" in err and "any client id" in err


def test_fleet_status_names_a_broker_it_cannot_reach(capsys):
    assert main(["fleet", "status", "--broker", "mqtt://127.0.0.1:%d" % free_port(), "--wait", "0"]) == 2
    assert "cannot reach the broker" in capsys.readouterr().err


@pytest.mark.parametrize("kind", ["mosquitto", "embedded"])
def test_a_room_of_simulated_boards_each_with_its_own_id(kind, request, tmp_path):
    if kind == "mosquitto":
        mosquitto_or_skip()
    broker = request.getfixturevalue(kind)
    with Room(broker.url) as room, SimRoom(3, broker.url, folder=tmp_path) as sims:
        ids = [mac_of(n) for n in (1, 2, 3)]
        assert wait_until(lambda: all(room.boards.get(i) and room.boards[i].online for i in ids), WAIT_S)
        assert sorted(room.boards) == ids
        sims.boards[1].place("c3", "white 4")
        b = room.boards[ids[1]]
        assert wait_until(lambda: any(e["event"] == "placed" for _, e in b.events), WAIT_S)
        # the others sent only their match so far (new_match, round_start, from their journals)
        assert not any(e["event"] == "placed" for i in (ids[0], ids[2]) for _, e in room.boards[i].events)
        sims.boards[2].wifi(False)  # one board loses the Wi-Fi: the broker says it is gone; play goes on
        assert wait_until(lambda: not room.boards[ids[2]].online, WAIT_S)
        sims.boards[2].place("d4", "white 2")
        sims.boards[2].wifi(True)
        assert wait_until(lambda: any(e["event"] == "placed" for _, e in room.boards[ids[2]].events), WAIT_S)
        assert room.boards[ids[2]].online


def test_config_gives_a_board_the_address_of_a_broker_named(capsys):
    """A board does no DNS: `doce config mqtt` looks the name up once and sends the address."""
    from doce_host.fleet.commands import board_settings
    requests, mqtt = board_settings("mqtt://localhost:1883")
    assert mqtt["broker"] == "127.0.0.1" and requests[-1] is mqtt
    assert "localhost is 127.0.0.1" in capsys.readouterr().err
    assert board_settings("mqtt://10.0.0.7:1883")[1]["broker"] == "10.0.0.7"
    with pytest.raises(Exception, match="IPv4"):
        board_settings("mqtt://[::1]:1883")


@pytest.mark.parametrize("argv", [
    ["fleet", "web", "--http", "70000"],  # was an OverflowError from the socket
    ["fleet", "web", "--http", "-1"],
    ["fleet", "status", "--embedded-port", "70000"],  # was amqtt's traceback, then the line
    ["fleet", "status", "--embedded-port", "0"],
    ["fleet", "broker", "--embedded-port", "x"],
    ["sim", "--http", "70000"],
])
def test_a_port_no_socket_can_have_is_refused_before_anything_starts(capsys, argv):
    with pytest.raises(SystemExit) as ended:
        main(argv)
    err = capsys.readouterr().err
    assert ended.value.code == 2 and "a port is a number from" in err and "Traceback" not in err, err


@pytest.mark.parametrize("folder", ["/dev/null", "/proc/x"])  # FileExistsError, FileNotFoundError
def test_a_record_folder_that_cannot_be_one_is_one_line(capsys, folder):
    assert main(["fleet", "record", folder, "--broker", "mqtt://127.0.0.1:1", "--wait", "0.1"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("doce: ") and err.count("\n") == 1 and folder in err, err


def test_fleet_status_uses_the_embedded_broker_doce_sim_already_runs(capsys):
    """fleet status while doce sim --boards ran the embedded broker printed amqtt's traceback
    (address already in use)."""
    port = free_port()
    from doce_host.fleet.broker import EmbeddedBroker
    with EmbeddedBroker(port):
        assert main(["fleet", "status", "--embedded-port", str(port), "--wait", "0.2"]) == 0
        out, err = capsys.readouterr()
        assert "no boards on 127.0.0.1:%d" % port in out
        assert err.count("\n") == 1 and "already listening on 127.0.0.1:%d" % port in err, err
        assert main(["fleet", "broker", "--embedded-port", str(port)]) == 2  # a second broker there: one line
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "already" in err and "Traceback" not in err, err


@pytest.mark.parametrize("argv, says", [
    (["fleet", "secure", "DIR", "--boards", "b1", "--mqtt-port", "70000"], "a port is a number"),
    (["fleet", "secure", "DIR", "--boards", "b1", "--mqtt-port", "0"], "a port is a number"),
    (["fleet", "secure", "DIR", "--boards", "b1", "--listen", "not an address"], "an IP address or a host name"),
    (["fleet", "secure", "DIR", "--boards", "b1", "--listen", "127.0.0.1:1883"], "an IP address or a host name"),
    (["fleet", "secure", "DIR", "--boards", ""], "give board ids separated by commas"),  # a room of no boards
    (["fleet", "secure", "DIR", "--boards", "b1,,b2"], "give board ids separated by commas"),
    (["fleet", "secure", "DIR", "--boards", "#"], "a board id is"),
    (["fleet", "secure", "DIR", "--boards", "b1", "--tls", "--host", "h", "--tls-port", "1883"], "differ"),
    (["fleet", "rules", "push", "standard", "--boards", ""], "give board ids"),  # went to every board
    (["fleet", "rules", "push", "standard", "--boards", "#"], "a board id is"),  # reported as offline
    (["fleet", "rules", "push", "standard", "--boards", "a/b"], "a board id is"),
    (["fleet", "rules", "push", "standard", "--wait", "-1"], "a number of seconds"),
    (["fleet", "status", "--wait", "nan"], "a number of seconds"),  # time.sleep(nan): a ValueError
    (["fleet", "record", "DIR", "--wait", "inf"], "a number of seconds"),
])
def test_nonsense_arguments_are_refused_before_anything_is_done(tmp_path, capsys, argv, says):
    argv = [str(tmp_path / "out") if a == "DIR" else a for a in argv]
    try:
        code = main(argv)
    except SystemExit as ended:  # refused by the argument's own check
        code = ended.code
    err = capsys.readouterr().err
    assert code == 2 and says in err and "Traceback" not in err, err
    assert not list(tmp_path.iterdir())  # nothing written, no folder made
