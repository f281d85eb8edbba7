"""The organiser's side of an app update: a key per board from doce fleet secure, given to the board over USB
by doce config update-key, and doce update sending the app doce flash installs."""

import json
import os
import sys

import pytest
from waiting import booted, completed, stretched, until

from doce_host import image, update
from doce_host.fleet.security import SecurityError
from doce_host.sim.serial_sim import SerialSim


def doce(*args, timeout=60):
    run = completed([sys.executable, "-m", "doce_host.cli", *args], timeout=timeout)
    assert "Traceback" not in run.stderr, run.stderr
    return run


def test_each_board_gets_a_key_of_its_own_kept_across_runs_and_private(tmp_path):
    keys = update.write_keys(tmp_path, ["b1", "b2"])
    assert set(keys) == {"b1", "b2"} and keys["b1"] != keys["b2"]
    assert all(update.HEX_KEY.match(k) for k in keys.values())
    again = update.write_keys(tmp_path, ["b3"], remove=["b2"])
    assert again["b1"] == keys["b1"] and set(again) == {"b1", "b3"}
    assert os.stat(tmp_path / update.KEYS).st_mode & 0o777 == 0o600
    (tmp_path / update.KEYS).write_text(json.dumps({"../x": "00"}))
    with pytest.raises(SecurityError):
        update.write_keys(tmp_path, ["b1"])


def test_the_package_carries_the_files_doce_flash_writes_byte_for_byte():
    files = image.app_files()
    got, manifest = update.unpack(update.app_package(3, "b1", "ab" * 32))
    assert got == image.slot_files(files) and {"a/" + p for p in got} == {p for p in files if p.startswith("a/")}
    assert manifest["version"] == 3 and manifest["board"] == "b1"


def test_doce_update_over_usb_boots_the_new_app_on_trial(tmp_path):
    room = tmp_path / "room"
    assert doce("fleet", "secure", str(room), "--boards", "t1").returncode == 0
    with SerialSim(tmp_path / "board") as sim:
        booted(sim)
        run = doce("config", "update-key", "--room", str(room), "--board-id", "t1", "--port", sim.path)
        assert run.returncode == 0, run.stderr
        # some 1,750 chunks, each a line of 180 bytes at 115200 baud and its reply: a minute and a half of line
        run = doce("update", "--room", str(room), "--board-id", "t1", "--port", sim.path, "--chip", "host",
                   "--version", "5", "--json", timeout=stretched(600))
        assert run.returncode == 0, run.stderr
        assert json.loads(run.stdout) == {"version": 5, "deferred": False}
        # it reboots on trial and, healthy (booted, scanning; no broker set up), says so
        done = until(lambda: [e for e in sim.heard if e.get("event") == "update"], timeout=stretched(60),
                     what="the new version's update event")
        assert [(e["stage"], e["slot"]) for e in done] == [("done", "b")]
        again = doce("update", "--room", str(room), "--board-id", "t1", "--port", sim.path, "--chip", "host",
                     "--version", "5", timeout=stretched(120))
        assert again.returncode != 0 and "a replay" in again.stderr  # refused at once: the same version
    assert update.load_signed(room) == {"t1": 5}  # what a reflashed board's key comes with (doce config update-key)


def test_the_key_goes_to_a_board_with_the_highest_version_ever_signed_for_it(tmp_path, monkeypatch):
    """doce flash writes slot.json afresh (version 0): the key given again brings the floor back, so no package
    signed before the reflash installs again (firmware/doce/update.py KEY)."""
    import types

    from doce_host.fleet import commands
    update.write_keys(tmp_path, ["t1"])
    asked = []
    monkeypatch.setattr(commands, "ask_board", lambda args, requests: asked.extend(requests) or {"board": "t1"})
    args = types.SimpleNamespace(room=str(tmp_path), board_id="t1", port="x", json=True)
    commands.cmd_config_update_key(args)
    assert "floor" not in asked[-1]  # none signed yet
    update.record_signed(tmp_path, {"t1": 7})
    update.record_signed(tmp_path, {"t1": 5, "t2": 3})
    assert update.load_signed(tmp_path) == {"t1": 7, "t2": 3}
    commands.cmd_config_update_key(args)
    assert asked[-1]["floor"] == 7 and asked[-1]["key"] == update.load_keys(tmp_path)["t1"]
    (tmp_path / update.SIGNED).write_text(json.dumps({"t1": "7"}))
    with pytest.raises(SecurityError):
        update.load_signed(tmp_path)


def test_a_version_is_the_time_unless_given_and_never_far_ahead_of_it_unforced():
    """--version 0 is 0 (the board refuses it as a replay), not the time now; a version more than a day ahead
    (a version in milliseconds, a typo) would lock every later default version out: refused without --force."""
    now = 1_800_000_000
    assert update.version_for(None, now=now) == now
    assert update.version_for(0, now=now) == 0
    assert update.version_for(now + update.AHEAD_S, now=now) == now + update.AHEAD_S
    with pytest.raises(ValueError, match="ahead of the time now"):
        update.version_for(now * 10, now=now)
    assert update.version_for(now * 10, force=True, now=now) == now * 10
    with pytest.raises(ValueError, match="from 0 to 999999999999"):  # what a board takes and a room shows
        update.version_for(now * 1000, force=True, now=now)
    from doce.update import MAX_VERSION
    assert update.max_version() == MAX_VERSION  # the board's bound is the schema's
    with pytest.raises(ValueError):
        update.version_for(-1, now=now)
    # above the room's record (update-signed.json) of the boards it is for: a clock behind it sends no replay
    assert update.version_for(None, now=now, recorded=now - 40) == now
    assert update.version_for(None, now=now, recorded=now + 3600) == now + 3601
    assert update.version_for(now, now=now, recorded=now + 3600) == now  # as given: the board says if it refuses
    # a record far ahead (milliseconds by mistake, an earlier --force) or at the top: said, naming the record
    with pytest.raises(ValueError, match="update-signed.json.*ahead of the time now"):
        update.version_for(None, now=now, recorded=now * 100)
    assert update.version_for(None, force=True, now=now, recorded=now * 100) == now * 100 + 1
    with pytest.raises(ValueError, match="update-signed.json.*the highest a board takes"):
        update.version_for(None, force=True, now=now, recorded=MAX_VERSION)
    run = doce("update", "--package", "x", "--rules", "quick", "--port", "nowhere")
    assert run.returncode != 0 and "unrecognized arguments: --rules" in run.stderr  # it sent no rules: gone


def test_a_package_a_board_would_refuse_for_its_size_is_refused_as_it_is_built(tmp_path, monkeypatch, capsys):
    """A board refuses a package of more than MAX_FILES files, a manifest over MAX_MANIFEST bytes or more than
    MAX_PACKAGE bytes (firmware/doce/update.py): the builder refuses it first, by the firmware's own numbers, and
    `doce fleet update` says so before it records a version or sends a byte."""
    from doce.update import MAX_FILES, MAX_MANIFEST, MAX_PACKAGE

    from doce_host.cli import main
    key = update.new_key()
    most = {"doce/m%d.py" % i: b"" for i in range(MAX_FILES)}
    update.package(most, 1, "t1", key)  # at the limit: taken
    with pytest.raises(update.TooBig, match="%d files and a board takes at most %d" % (MAX_FILES + 1, MAX_FILES)):
        update.package(dict(most, **{"doce/one_more.py": b""}), 1, "t1", key)
    named = {"doce/%s%02d.mpy" % ("n" * 30, i): b"" for i in range(MAX_FILES)}  # names of 32 characters
    assert len(update.manifest(named, 1, "t1")) > MAX_MANIFEST
    with pytest.raises(update.TooBig, match="bytes of manifest and a board takes at most %d" % MAX_MANIFEST):
        update.package(named, 1, "t1", key)
    with pytest.raises(update.TooBig, match="bytes and a board takes at most %d" % MAX_PACKAGE):
        update.package({"doce/big.py": bytes(MAX_PACKAGE)}, 1, "t1", key)
    room = tmp_path / "room"
    assert main(["fleet", "secure", str(room), "--boards", "t1"]) == 0
    capsys.readouterr()
    monkeypatch.setattr(image, "app_files", lambda chip: {image.SLOT + p: d for p, d in named.items()})
    assert main(["fleet", "update", str(room), "--chip", "host", "--broker", "mqtt://127.0.0.1:9"]) == 2
    assert "bytes of manifest and a board takes at most %d" % MAX_MANIFEST in capsys.readouterr().err
    assert update.load_signed(room) == {}
