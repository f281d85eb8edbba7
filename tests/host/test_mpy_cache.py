"""What mpy-cross made, kept in DOCE_MPY_CACHE for other processes (doce_host/image.py compile_mpy): the same
bytes as mpy-cross's own, mpy-cross not run again for the same input, and run again for any other."""

import subprocess

import pytest

from doce_host import image

SOURCE = "def f(x):\n    return x + 1\n"


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv(image.CACHE_ENV, str(tmp_path / "cache"))
    monkeypatch.setattr(image, "_compiled", {})  # as a new process: nothing in memory
    source = tmp_path / "f.py"
    source.write_text(SOURCE)
    return tmp_path / "cache", source


def runs_of_mpy_cross(monkeypatch):
    runs = []
    real = subprocess.run

    def run(argv, *args, **kwargs):
        if "--version" not in argv:
            runs.append(argv)
        return real(argv, *args, **kwargs)
    monkeypatch.setattr(image.subprocess, "run", run)
    return runs


def test_another_process_takes_the_same_bytes_without_running_mpy_cross(cache, monkeypatch):
    folder, source = cache
    made = image.compile_mpy(source, "doce/f.py", march="host")
    assert [p.suffix for p in folder.iterdir()] == [".mpy"]  # one file, whole (no .part left)
    monkeypatch.setattr(image, "_compiled", {})
    runs = runs_of_mpy_cross(monkeypatch)
    assert image.compile_mpy(source, "doce/f.py", march="host") == made and not runs
    monkeypatch.delenv(image.CACHE_ENV)
    monkeypatch.setattr(image, "_compiled", {})
    assert image.compile_mpy(source, "doce/f.py", march="host") == made and len(runs) == 1  # mpy-cross's own


@pytest.mark.parametrize("change", ["source", "name", "march", "mpy-cross"])
def test_any_other_input_is_compiled_afresh(cache, monkeypatch, change):
    folder, source = cache
    image.compile_mpy(source, "doce/f.py", march="host")
    monkeypatch.setattr(image, "_compiled", {})
    runs = runs_of_mpy_cross(monkeypatch)
    name, march = "doce/f.py", "host"
    if change == "source":
        source.write_text(SOURCE.replace("1", "2"))
    elif change == "name":
        name = "doce/g.py"
    elif change == "march":
        march = "xtensawin"
    else:
        monkeypatch.setattr(image, "_tool_version", lambda path: "MicroPython v9.9.9; mpy-cross emitting mpy v9.9")
    image.compile_mpy(source, name, march=march)
    assert len(runs) == 1 and len(list(folder.iterdir())) == 2
