"""Two clubs' settings as untrusted input (review of issue 41, findings 8, 9 and 16): clubs.json is a
file someone may have edited, so every field of it is checked before any goes into mosquitto.conf;
--bridge's host is a host name or an address; --club and --bridge-user are refused where they
cannot be right. Each mistake is one line and exit 2, and mosquitto.conf is left as it was."""

import io
import json

import pytest

from doce_host.cli import main

URL = "mqtt://far.example:1883"


def secure(capsys, monkeypatch, folder, *args, stdin="pw"):
    monkeypatch.setattr("sys.stdin", io.StringIO(stdin + "\n"))
    code = main(["fleet", "secure", str(folder), *args])
    return code, capsys.readouterr().err


def refused(capsys, monkeypatch, folder, *args):
    code, err = secure(capsys, monkeypatch, folder, *args)
    assert code == 2 and err.startswith("doce: ") and err.count("\n") == 1, err
    return err


@pytest.fixture
def room(tmp_path, capsys, monkeypatch):
    """A room of two boards that bridges to club far's broker as 'near'."""
    folder = tmp_path / "room1"
    assert secure(capsys, monkeypatch, folder, "--boards", "aa11,bb22")[0] == 0
    assert secure(capsys, monkeypatch, folder, "--club", "far=cc33", "--bridge", URL, "--bridge-user", "near",
                  "--password-stdin")[0] == 0
    return folder


def edit_clubs(folder, change):
    path = folder / "clubs.json"
    found = json.loads(path.read_text())
    change(found)
    path.write_text(json.dumps(found))


@pytest.mark.parametrize("change, said", [
    (lambda c: c["bridge"].update(host="far.example\nallow_anonymous true\nlistener 1884 0.0.0.0"), "bridge"),
    (lambda c: c["bridge"].update(host="a.example b.evil.example"), "bridge"),
    (lambda c: c["bridge"].update(password="pw\ninclude_dir /tmp"), "bridge.password"),
    (lambda c: c["bridge"].update(password="pw word"), "bridge.password"),
    (lambda c: c["bridge"].update(password=7), "bridge.password"),
    (lambda c: c["bridge"].update(port="1883"), "bridge.port"),
    (lambda c: c["bridge"].update(port=70000), "bridge.port"),
    (lambda c: c["bridge"].update(port=True), "bridge.port"),
    (lambda c: c["bridge"].update(tls="yes"), "bridge.tls"),
    (lambda c: c["bridge"].update(ca="/tmp/ca.pem\ninclude_dir /tmp"), "bridge"),
    (lambda c: c["bridge"].update(user="near\nlistener 1"), "bridge.user"),
    (lambda c: c["bridge"].pop("host"), "bridge.host"),
    (lambda c: c["bridge"].update(url="mqtt://other.example:1883"), "bridge"),
    (lambda c: c["clubs"].update({"far\nallow_anonymous true": ["cc33"]}), "clubs"),
    (lambda c: c["clubs"].update(far=["cc33 dd44"]), "clubs"),
    (lambda c: c.update(bridge=[]), "bridge"),
])
def test_an_edited_clubs_file_is_refused_before_anything_is_written(room, capsys, monkeypatch, change, said):
    edit_clubs(room, change)
    conf = (room / "mosquitto.conf").read_text()
    err = refused(capsys, monkeypatch, room, "--boards", "dd44")
    assert "clubs.json" in err and said in err, err
    assert (room / "mosquitto.conf").read_text() == conf


@pytest.mark.parametrize("host", ["a.example b.evil.example", "-x", "a_b!", "far.example\nlistener 1"])
def test_a_bridge_host_that_is_no_host_name_is_refused(tmp_path, capsys, monkeypatch, host):
    err = refused(capsys, monkeypatch, tmp_path / "room2", "--club", "far=cc33", "--bridge",
                  "mqtt://%s:1883" % host, "--bridge-user", "near", "--password-stdin")
    assert "host name" in err or "mqtt" in err, err
    assert not (tmp_path / "room2" / "mosquitto.conf").exists()


def test_a_club_given_twice_is_refused(tmp_path, capsys, monkeypatch):
    err = refused(capsys, monkeypatch, tmp_path / "room3", "--boards", "aa11", "--club", "far=cc33",
                  "--club", "far=dd44")
    assert "--club far" in err and "twice" in err, err


def test_the_bridge_user_is_not_a_club_it_reaches(tmp_path, capsys, monkeypatch):
    """--bridge-user is this club's name on the other broker; a --club is another club: on a broker
    the clubs share, the two bridges would be one user and one client id, each putting the other off."""
    err = refused(capsys, monkeypatch, tmp_path / "room4", "--club", "far=cc33", "--bridge", URL,
                  "--bridge-user", "far", "--password-stdin")
    assert "--bridge-user far" in err, err


def test_the_conf_names_the_other_broker(room):
    conf = (room / "mosquitto.conf").read_text()
    comment = next(line for line in conf.splitlines() if line.startswith("# the bridge"))
    assert "far.example:1883" in comment and "near's broker" not in comment, comment
    assert "address far.example:1883" in conf
