"""Issue 25, item 6: every file the doce command reads that someone named goes through one
rule (doce_host/files.py): a FIFO, a device that never ends, a directory or a file far too big is
one line and exit status 2, read no further than a limit. Each runs as the command itself, in a
process of its own with its memory capped: /dev/zero filled memory until the process was killed,
and a FIFO no one writes to hung it."""

import os
import resource
import subprocess
import sys

import pytest
from waiting import completed

MEMORY = 1 << 30  # the address space each run may have: far more than doce needs, far less than the machine
WAIT_S = 60

# Each command, with FILE where the special file goes. None of them reaches a board or a broker.
COMMANDS = {
    "referee": ["referee", "FILE"],
    "referee --rules": ["referee", "GAME", "--rules", "FILE"],
    "rules validate": ["rules", "validate", "FILE"],
    "play --rules": ["play", "--rules", "FILE"],
    "flash --firmware": ["flash", "--port", "/dev/null", "--firmware", "FILE", "--dry-run"],
    "fleet web --pairings": ["fleet", "web", "--pairings", "FILE", "--http", "0"],
    "fleet status --ca": ["fleet", "status", "--broker", "mqtts://127.0.0.1:1", "--ca", "FILE", "--wait", "0"],
    "config mqtt --ca": ["config", "mqtt", "--port", "/dev/null", "--broker", "mqtts://10.0.0.2", "--ca", "FILE"],
    "sim --boards --ca": ["sim", "--boards", "1", "--broker", "mqtts://127.0.0.1:1", "--ca", "FILE"],
}


def limited():
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


def doce(argv, stdin=subprocess.DEVNULL):
    """The doce command, its memory capped: (exit status, stderr)."""
    run = completed([sys.executable, "-m", "doce_host.cli", *argv], stdin=stdin, timeout=WAIT_S, preexec_fn=limited)
    return run.returncode, run.stderr


@pytest.fixture(params=["fifo", "/dev/zero", "directory", "huge"])
def special(request, tmp_path):
    kind = request.param
    if kind == "fifo":
        path = tmp_path / "fifo"
        os.mkfifo(path)
    elif kind == "directory":
        path = tmp_path / "folder"
        path.mkdir()
    elif kind == "huge":  # over every limit (16 MB for a firmware image), sparse: no disk spent
        path = tmp_path / "huge"
        with open(path, "wb") as f:
            f.truncate((64 << 20) + 1)
    else:
        path = kind
    return kind, str(path)


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_file_the_cli_reads_is_refused_in_one_line_if_it_is_no_file_to_read(tmp_path, special, command):
    kind, path = special
    game = tmp_path / "game.json"
    game.write_text('{"moves": []}')
    argv = [path if a == "FILE" else str(game) if a == "GAME" else a for a in COMMANDS[command]]
    code, err = doce(argv)
    assert code == 2, (command, kind, err)
    assert err.startswith("doce: ") and err.count("\n") == 1 and "Traceback" not in err, (command, kind, err)
    said = {"fifo": "a FIFO", "/dev/zero": "a character device", "directory": "a directory", "huge": "too big"}[kind]
    assert said in err, (command, kind, err)


def test_a_password_on_stdin_that_never_ends_is_one_line(tmp_path):
    with open("/dev/zero", "rb") as zero:
        code, err = doce(["fleet", "status", "--broker", "mqtt://127.0.0.1:1", "--user", "organiser",
                          "--password-stdin", "--wait", "0"], stdin=zero)
    assert code == 2 and "over 1024 characters" in err and err.count("\n") == 1, err


def test_a_rooms_own_files_are_read_by_the_same_rule(tmp_path):
    """fleet secure reads the room's credentials.json and CA again: a FIFO there is one line."""
    room = tmp_path / "room"
    room.mkdir()
    os.mkfifo(room / "credentials.json")
    code, err = doce(["fleet", "secure", str(room), "--boards", "b1"])
    assert code == 2 and "a FIFO" in err and err.count("\n") == 1, err
    os.unlink(room / "credentials.json")
    os.mkfifo(room / "ca.crt")
    os.mkfifo(room / "ca.key")
    code, err = doce(["fleet", "secure", str(room), "--boards", "b1", "--tls", "--host", "10.0.0.2"])
    assert code == 2 and "a FIFO" in err and err.count("\n") == 1, err
