"""Two clubs' settings as untrusted input (review of issue 41, findings 8, 9 and 16): clubs.json is a
file someone may have edited, so every field of it is checked before any goes into mosquitto.conf;
--bridge's host is a host name or an address; --club and --bridge-user are refused where they
cannot be right. Each mistake is one line and exit 2, and mosquitto.conf is left as it was."""

import io

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


@pytest.mark.parametrize("host", ["a.example b.evil.example", "-x", "a_b!", "far.example\nlistener 1"])
def test_a_bridge_host_that_is_no_host_name_is_refused(tmp_path, capsys, monkeypatch, host):
    err = refused(capsys, monkeypatch, tmp_path / "room2", "--club", "far=cc33", "--bridge",
                  "mqtt://%s:1883" % host, "--bridge-user", "near", "--password-stdin")
    assert "host name" in err or "mqtt" in err, err
    assert not (tmp_path / "room2" / "mosquitto.conf").exists()
