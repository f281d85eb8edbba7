"""A secured room on Mosquitto: per-board users, an ACL, no anonymous access."""

import json
import threading
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest
from fleet_helpers import mosquitto_or_skip, room_command, secured_broker
from waiting import Deadline, completed, ended, stretched, until, wait_until

from doce_host.cli import main
from doce_host.fleet.broker import Mosquitto, free_port
from doce_host.fleet.room import Room

WAIT_S = 20


@pytest.fixture
def secured(tmp_path):
    """Mosquitto on the very config `doce fleet secure` wrote."""
    with secured_broker(tmp_path, "b1,b2") as (broker, credentials, _):
        yield broker, credentials


def client(broker, user=None, password=None, client_id="", will=None):
    c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id)
    if user:
        c.username_pw_set(user, password)
    if will:
        c.will_set(*will, qos=1, retain=True)
    result = {"drops": 0}
    ready = threading.Event()

    def on_connect(cl, u, flags, reason, props=None):
        result["reason"] = reason
        ready.set()

    def on_disconnect(cl, u, flags, reason, props=None):
        result["drops"] += 1
    c.on_connect = on_connect
    c.on_disconnect = on_disconnect
    c.connect(broker.host, broker.port)
    c.loop_start()
    until(ready.is_set, WAIT_S, what="the MQTT client's connection")
    c.result = result
    return c, result["reason"]


def test_an_unauthenticated_client_gets_nothing(secured):
    broker, _ = secured
    c, reason = client(broker)
    c.loop_stop()
    assert reason.is_failure
    c2, reason = client(broker, "b1", "not-its-password")
    c2.loop_stop()
    assert reason.is_failure


PLACED = {"event": "placed", "seq": 1, "player": "white", "cell": "c3", "value": 4}


@pytest.mark.board_may_lie  # one board publishes a forged event as another
def test_a_board_cannot_publish_as_another_nor_read_anothers_commands(secured):
    broker, credentials = secured
    with Room(broker.url, user="organiser", password=credentials["organiser"]) as room:
        b1, reason = client(broker, "b1", credentials["b1"], client_id="b1")  # a board connects as its id
        assert not reason.is_failure
        heard = []
        b1.on_message = lambda c, u, m: heard.append(m.topic)
        b1.subscribe([("doce/+/cmd", 1), ("#", 1), ("doce/b1/cmd", 1)])  # only its own is granted
        b1.publish("doce/b2/events", json.dumps(PLACED), qos=1)  # as b2: dropped
        b1.publish("doce/b2/status", json.dumps({"online": True}), qos=1)
        b1.publish("doce/b1/events", json.dumps(PLACED), qos=1)  # its own: passes
        assert wait_until(lambda: room.boards.get("b1") and room.boards["b1"].events, WAIT_S)
        room.client.publish("doce/b2/cmd", '{"cmd":"hello"}', qos=1)
        room.client.publish("doce/b1/cmd", '{"cmd":"hello"}', qos=1)
        assert wait_until(lambda: "doce/b1/cmd" in heard, WAIT_S)
        b1.publish("doce/b1/cmd", '{"cmd":"reboot"}', qos=1)  # a board cannot command, even itself
        wait_until(lambda: False, 1.0)
        b1.loop_stop()
        assert "b2" not in room.boards
        assert heard == ["doce/b1/cmd"]


def test_a_simulated_board_joins_a_secured_room_with_its_own_credentials(secured, sim):
    from fleet_helpers import link
    broker, credentials = secured
    with Room(broker.url, user="organiser", password=credentials["organiser"]) as room:
        assert link(sim, cmd="wifi", ssid="club", password="x")["ok"]
        assert link(sim, cmd="mqtt", broker=broker.host, port=broker.port, board_id="b1")["ok"]
        assert link(sim, cmd="mqtt", user="b1", mqtt_password=credentials["b1"])["ok"]
        assert wait_until(lambda: room.boards.get("b1") and room.boards["b1"].online, WAIT_S, lambda: sim.run(2))
        reply = room_command(room, sim, "b1", "hello")
        assert reply and reply["ok"]


def test_a_board_with_the_wrong_password_says_the_broker_refused_it(secured, sim):
    """It went unsaid: `doce config show` had no fault while the board was turned away."""
    from fleet_helpers import link
    broker, credentials = secured
    assert link(sim, cmd="wifi", ssid="club", password="x")["ok"]
    assert link(sim, cmd="mqtt", broker=broker.host, port=broker.port, board_id="b1", user="b1",
                mqtt_password="not-its-password")["ok"]
    assert wait_until(lambda: "refused" in (link(sim, cmd="net")["status"]["fault"] or ""), WAIT_S,
                      lambda: sim.run(2))
    fault = link(sim, cmd="net")["status"]["fault"]
    assert "not authorized" in fault or "bad user name or password" in fault, fault


def test_the_mosquitto_configs_doce_writes_send_each_message_at_once(tmp_path):
    mosquitto_or_skip()
    assert main(["fleet", "secure", str(tmp_path / "room"), "--boards", "b1"]) == 0
    assert "set_tcp_nodelay true" in (tmp_path / "room" / "mosquitto.conf").read_text().splitlines()
    with Mosquitto(folder=tmp_path / "broker"):  # the tests' and the bench's
        assert "set_tcp_nodelay true" in (tmp_path / "broker" / "mosquitto.conf").read_text().splitlines()


STATUS = {"online": True, "id": "b2", "name": "b2", "boot": "0000abcd", "seq": 0}


def test_a_boards_password_cannot_take_another_clients_id(secured, capsys, monkeypatch):
    """Board b1's password with b2's client id made Mosquitto drop the real b2 (and publish its
    last will); with an organiser tool's id, that tool. The broker ties each board's user to its
    own id; the organiser's tools, several at once, keep their own."""
    import io
    broker, credentials = secured
    organiser = dict(user="organiser", password=credentials["organiser"])
    with Room(broker.url, **organiser) as room, Room(broker.url, **organiser) as other:
        b2, reason = client(broker, "b2", credentials["b2"], client_id="b2",
                            will=("doce/b2/status", json.dumps(dict(STATUS, online=False))))
        assert not reason.is_failure
        b2.publish("doce/b2/status", json.dumps(STATUS), qos=1, retain=True)
        assert wait_until(lambda: room.boards.get("b2") and room.boards["b2"].online, WAIT_S)
        for taken in ("b2", room.client_id, other.client_id):
            thief, reason = client(broker, "b1", credentials["b1"], client_id=taken)
            thief.loop_stop()
            assert reason.is_failure, taken
        # the CLI's own tool, at the same time as the two
        monkeypatch.setattr("sys.stdin", io.StringIO(credentials["organiser"] + "\n"))
        assert main(["fleet", "status", "--broker", broker.url, "--user", "organiser", "--password-stdin",
                     "--wait", "0.5", "--json"]) == 0
        rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
        assert [(r["id"], r["online"]) for r in rows] == [("b2", True)]
        b2.publish("doce/b2/events", json.dumps(PLACED), qos=1)  # b2 still connected, its messages flow
        assert wait_until(lambda: room.boards["b2"].events and other.boards.get("b2") and other.boards["b2"].events,
                          WAIT_S)
        b2.loop_stop()
        assert b2.result["drops"] == 0 and room.boards["b2"].online
        assert room.connects == 1 and other.connects == 1  # neither tool was knocked off


def test_the_broker_lets_no_message_too_big_to_be_a_boards_through(secured, sim):
    """A board passes over a command too big to be one, but it costs it scans (a megabyte took it
    15.7 s at 256 bytes a scan): the room's Mosquitto drops what no board or organiser sends, and
    cuts off the client that sent it (max_packet_size: what one client can make the broker hold)."""
    from fleet_helpers import link
    broker, credentials = secured
    with Room(broker.url, user="organiser", password=credentials["organiser"]) as room:
        assert link(sim, cmd="wifi", ssid="club", password="x")["ok"]
        assert link(sim, cmd="mqtt", broker=broker.host, port=broker.port, board_id="b1", user="b1",
                    mqtt_password=credentials["b1"])["ok"]
        assert wait_until(lambda: room.boards.get("b1") and room.boards["b1"].online, WAIT_S, lambda: sim.run(2))
        big, reason = client(broker, "organiser", credentials["organiser"])
        try:
            assert not reason.is_failure
            big.reconnect_delay_set(3600, 3600)  # once: paho would send it again at every reconnect
            big.publish("doce/b1/cmd", b"x" * (1 << 20), qos=1)
            until(lambda: big.result["drops"], WAIT_S, what="the broker cutting off the megabyte's sender")
        finally:
            big.loop_stop()
        reply = room_command(room, sim, "b1", "hello")
        assert reply and reply["ok"]
        assert not room.replies  # the megabyte never reached the board: no line_too_long


def test_running_fleet_secure_again_keeps_every_password_and_says_what_changed(tmp_path, capsys):
    """Re-run to add a board, it replaced every password, the organiser's too, and said only
    that it kept the CA (issue 25): every board in the room was locked out until set up again."""
    mosquitto_or_skip()
    room = tmp_path / "room"
    read = lambda: json.loads((room / "credentials.json").read_text())  # noqa: E731
    assert main(["fleet", "secure", str(room), "--boards", "b1,b2"]) == 0
    first = read()
    capsys.readouterr()
    assert main(["fleet", "secure", str(room), "--boards", "b3"]) == 0
    out = capsys.readouterr().out
    now = read()
    assert {k: now[k] for k in first} == first and sorted(now) == ["b1", "b2", "b3", "organiser"]
    assert "kept the passwords of organiser, b1, b2" in out and "new: b3" in out and "restart Mosquitto" in out
    assert main(["fleet", "secure", str(room), "--boards", "b1,b3", "--json"]) == 0
    said = json.loads(capsys.readouterr().out)
    assert (said["added"], said["removed"], said["kept"]) == ([], [], ["b1", "b2", "b3", "organiser"])
    assert read() == now
    assert main(["fleet", "secure", str(room), "--remove", "b2"]) == 0  # a board lost: its password goes
    out = capsys.readouterr().out
    assert "removed: b2" in out and sorted(read()) == ["b1", "b3", "organiser"]
    users = [c["username"] for c in json.loads((room / "dynamic-security.json").read_text())["clients"]]
    assert sorted(users) == ["b1", "b3", "organiser"]
    (room / "credentials.json").write_text("{not json")  # damaged: never replaced by new passwords
    assert main(["fleet", "secure", str(room), "--boards", "b4"]) == 2
    err = capsys.readouterr().err
    assert "credentials.json" in err and err.count("\n") == 1
    assert (room / "credentials.json").read_text() == "{not json"


def test_fleet_secure_writes_its_private_files_through_no_link_and_refuses_a_board_both_added_and_removed(
        tmp_path, capsys):
    """Hostile review: a link left where a private file is first written (credentials.json.new)
    would have had the room's passwords written wherever it points; a board both named in --boards
    and --remove would have lost its password and got a new one."""
    mosquitto_or_skip()
    room = tmp_path / "room"
    room.mkdir()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.write_text("not yours\n")
    (room / "credentials.json.new").symlink_to(elsewhere)
    assert main(["fleet", "secure", str(room), "--boards", "b1,b2"]) == 0
    assert elsewhere.read_text() == "not yours\n"
    before = json.loads((room / "credentials.json").read_text())
    assert sorted(before) == ["b1", "b2", "organiser"]
    capsys.readouterr()
    assert main(["fleet", "secure", str(room), "--boards", "b2", "--remove", "b2"]) == 2
    err = capsys.readouterr().err
    assert "b2" in err and err.count("\n") == 1
    assert json.loads((room / "credentials.json").read_text()) == before


# -- the next steps fleet secure prints, run as printed (issue 42) ----------------------------------

NOBODY = 65534


def as_printed(line):
    """A printed command, as argv: `doce` is this Python's, its comment in brackets left out."""
    import shlex
    import sys
    argv = shlex.split(line.split("      (")[0])
    return [sys.executable, "-m", "doce_host.cli", *argv[1:]] if argv[0] == "doce" else argv


def typed_at_a_terminal(argv, typed, user_prefix, timeout=60):
    """Run argv with a terminal of its own (getpass asks there), type `typed` when it asks; its output, exit code."""
    import fcntl
    import os
    import pty
    import subprocess
    import termios
    main_fd, child_fd = pty.openpty()

    def own_terminal():
        os.setsid()
        fcntl.ioctl(0, termios.TIOCSCTTY, 0)
    run = subprocess.Popen(user_prefix + argv, stdin=child_fd, stdout=child_fd, stderr=child_fd,
                           preexec_fn=own_terminal, close_fds=True)
    os.close(child_fd)
    out, sent, deadline = b"", False, Deadline(timeout)
    while not deadline.passed():
        try:
            chunk = os.read(main_fd, 4096)
        except OSError:  # the other end closed: it has finished
            break
        out += chunk
        if not sent and b"password" in out.lower():
            os.write(main_fd, typed.encode() + b"\n")
            sent = True
    os.close(main_fd)
    return out.decode(errors="replace"), ended(run, timeout)


@pytest.mark.parametrize("who", ["this user", "another user"])
def test_the_next_steps_fleet_secure_prints_work_as_printed(who):
    """`mosquitto -c DIR/mosquitto.conf` started by root ran as Mosquitto's own user, which could not
    read DIR's users (0600): every password was refused, the right one too. The config now says
    `user <DIR's owner>`, and the steps printed are run here word for word: by this user (root on
    CI), and by another (nobody) who ran fleet secure in a folder of their own."""
    import os
    import shutil
    import subprocess
    import sys
    import tempfile
    mosquitto_or_skip()
    if who == "another user" and (os.geteuid() != 0 or not shutil.which("setpriv")):
        pytest.skip("running as another user needs root and setpriv")
    prefix = ["setpriv", "--reuid=%d" % NOBODY, "--regid=%d" % NOBODY, "--clear-groups"] if who == "another user" \
        else []
    top = Path(tempfile.mkdtemp(prefix="doce-secure-"))
    os.chmod(top, 0o755)
    if prefix:
        os.chown(top, NOBODY, NOBODY)
    port = free_port()
    broker = None
    try:
        made = completed(prefix + [sys.executable, "-m", "doce_host.cli", "fleet", "secure", "room", "--boards",
                                   "b1", "--mqtt-port", str(port)], cwd=top, timeout=60)
        assert made.returncode == 0, made.stderr
        steps = [line.strip() for line in made.stdout.splitlines() if line.startswith("  ")]
        assert steps[0] == "mosquitto -c room/mosquitto.conf"
        password = json.loads(subprocess.run(prefix + ["cat", "room/credentials.json"], cwd=top, capture_output=True,
                                             text=True).stdout)["organiser"]
        broker = subprocess.Popen(as_printed(steps[0]), cwd=top, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        from doce_host.fleet.broker import START_S, wait_listening
        wait_listening("127.0.0.1", port, broker, timeout=stretched(START_S))
        out, code = typed_at_a_terminal(as_printed(steps[1]), password, prefix)
        assert code == 0 and "refused" not in out, out
    finally:
        if broker:
            broker.terminate()
            ended(broker, 30)
        shutil.rmtree(top, ignore_errors=True)


def test_a_right_password_the_broker_cannot_read_is_told_from_a_wrong_one(tmp_path):
    """Mosquitto says 'not authorised' to both. Started by root from a config without the `user`
    line (as fleet secure wrote it before), it runs as its own user and cannot read DIR's users."""
    import os
    import subprocess
    mosquitto_or_skip()
    if os.geteuid() != 0:
        pytest.skip("Mosquitto switches to its own user only when root starts it")
    port = free_port()
    assert main(["fleet", "secure", str(tmp_path / "room"), "--boards", "b1", "--mqtt-port", str(port)]) == 0
    conf = tmp_path / "room" / "mosquitto.conf"
    conf.write_text("".join(line for line in conf.read_text().splitlines(True) if not line.startswith("user ")))
    password = json.loads((tmp_path / "room" / "credentials.json").read_text())["organiser"]
    broker = subprocess.Popen(["mosquitto", "-c", str(conf)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        from doce_host.fleet.broker import START_S, wait_listening
        wait_listening("127.0.0.1", port, broker, timeout=stretched(START_S))
        url = "mqtt://127.0.0.1:%d" % port

        def status(typed):
            import sys
            run = completed([sys.executable, "-m", "doce_host.cli", "fleet", "status", "--broker", url, "--user",
                             "organiser", "--password-stdin"], input=typed + "\n", timeout=60)
            assert run.returncode == 2 and run.stderr.count("\n") == 1, run.stderr
            return run.stderr
        right, wrong = status(password), status("not-" + password)
        users = str(tmp_path / "room" / "dynamic-security.json")
        assert "the password is right (it is organiser's in that file), but the broker" in right
        assert "the password is wrong too" in wrong
        for said in (right, wrong):
            assert "running as mosquitto) cannot read its users' file %s (root's, mode 600)" % users in said
            assert "'user root' line" in said
    finally:
        broker.terminate()
        ended(broker, 30)
    # the config as written: the broker reads its users, and a wrong password is only that
    with Mosquitto(port=port, folder=tmp_path / "broker", extra=conf.read_text().splitlines() + ["user root"],
                   listeners=False):
        room = Room("mqtt://127.0.0.1:%d" % port, user="organiser", password="not-" + password)
        with pytest.raises(Exception) as refused:
            room.connect()
        assert "a wrong password for organiser: it is not the one in" in str(refused.value)
