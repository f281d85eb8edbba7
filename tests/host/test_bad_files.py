"""Issue 14, item 9: every bad rules or game file, and every place compile cannot write,
is one line on stderr and exit status 2, never a traceback."""

import json
import os

import pytest
from waiting import stretched

from doce_host import cli
from doce_host.paths import ROOT

STANDARD = json.loads((ROOT / "rules" / "standard.json").read_text())


def paths_board_text():
    return (ROOT / "hardware" / "board.json").read_text()


def refused(capsys, *argv):
    """Run doce in this process: it must exit 2 with one line on stderr (a traceback fails the test)."""
    assert cli.main(list(argv)) == 2
    err = capsys.readouterr().err
    assert err.startswith("doce: ") and err.count("\n") == 1, err
    return err


def rules_file(tmp_path, file="rules.json", **changes):
    path = tmp_path / file
    path.write_text(json.dumps(dict(STANDARD, **changes)))
    return path


DEEP = "[" * 100000 + "]" * 100000


@pytest.mark.parametrize("command", [["rules", "validate"], ["rules", "compile"], ["play", "--rules"]])
@pytest.mark.parametrize("content, said", [
    (b"\xff\xfe{}", "not UTF-8"),
    (DEEP.encode(), "nested too deep"),
    (json.dumps(dict(STANDARD, grid=5.0)).encode(), "grid: 5.0 is not of type 'integer'"),
    (json.dumps(dict(STANDARD, scoring=dict(STANDARD["scoring"], win=2.0))).encode(), "not of type 'integer'"),
    ((json.dumps(STANDARD)[:-1] + ', "grid": 6}').encode(), 'the key "grid" appears twice'),  # which one wins?
])
def test_a_bad_rules_file_is_one_line(tmp_path, capsys, monkeypatch, command, content, said):
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "bad.json"
    path.write_bytes(content)
    assert said in refused(capsys, *command, str(path))


@pytest.mark.parametrize("content, said", [
    (b"\xff\xfe{}", "not UTF-8"),
    (('{"moves": %s}' % DEEP).encode(), "nested too deep"),
    (b'{"rules": "standard", "moves": [], "moves": []}', 'the key "moves" appears twice'),
])
def test_a_bad_game_file_is_one_line(tmp_path, capsys, content, said):
    path = tmp_path / "game.json"
    path.write_bytes(content)
    assert said in refused(capsys, "referee", str(path))


def test_the_referee_with_a_bad_rules_file_is_one_line(tmp_path, capsys):
    game = tmp_path / "game.json"
    game.write_text(json.dumps({"moves": []}))
    bad = tmp_path / "bad.json"
    bad.write_bytes(b"\xff\xfe{}")
    assert "not UTF-8" in refused(capsys, "referee", str(game), "--rules", str(bad))
    assert "not of type 'integer'" in refused(capsys, "referee", str(game), "--rules",
                                              str(rules_file(tmp_path, rounds=3.0)))


@pytest.mark.parametrize("where, said", [
    ("missing/folder/out.doct", "cannot write"),
    (".", "cannot write"),
    ("/dev/full", "cannot write"),
])
def test_compile_into_a_place_it_cannot_write_is_one_line(tmp_path, capsys, monkeypatch, where, said):
    monkeypatch.chdir(tmp_path)
    assert said in refused(capsys, "rules", "compile", "standard", "-o", where)


def test_a_rules_file_of_any_name_is_read_as_a_file(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rules_file(tmp_path, "rules.txt", name="from-a-txt")
    assert cli.main(["rules", "validate", "rules.txt"]) == 0
    assert "from-a-txt" in capsys.readouterr().out
    assert "no such rules" in refused(capsys, "rules", "validate", "nothing-here")


@pytest.mark.parametrize("command", [["rules", "validate"], ["rules", "compile"], ["play", "--rules"]])
@pytest.mark.parametrize("changes, said", [
    ({"grid": 15, "line_length": 15, "no_play_radius": 7, "target": 30}, "a board holds at most 4096"),
    ({"grid": 9, "line_length": 5, "no_play_radius": 7}, "a board holds at most 4096"),
    ({"name": "abc\n"}, "name: 1 to 32"),
])
def test_rules_a_board_cannot_take_are_refused_before_any_board_sees_them(tmp_path, capsys, monkeypatch, command,
                                                                          changes, said):
    monkeypatch.chdir(tmp_path)
    assert said in refused(capsys, *command, str(rules_file(tmp_path, **changes)))


@pytest.mark.parametrize("path, said", [("/dev/zero", "not a regular file"), ("x" * 300, "no such rules"),
                                        ("x" * 300 + ".json", "no such file")])
def test_a_rules_path_that_is_no_file_is_one_line(capsys, path, said):
    assert said in refused(capsys, "rules", "validate", path)


def test_a_rules_file_over_a_megabyte_is_not_read_whole(tmp_path, capsys):
    path = tmp_path / "huge.json"
    path.write_bytes(b" " * (2 << 20))
    assert "too big" in refused(capsys, "rules", "validate", str(path))


@pytest.mark.parametrize("argv", [["flash", "--port", "/dev/null"], ["sim", "--http", "0"], ["play", "--vs", "1"],
                                  ["dice", "check", "--port", "/dev/null"]])
@pytest.mark.parametrize("change, said", [
    (lambda s: s["sensing"].update(fringe_percent=0.5), "sensing.fringe_percent"),
    (lambda s: s["sensing"].pop("present_above"), "missing or malformed field 'present_above'"),
    (None, "Expecting"),
    # issue 41, 6: a KeyError traceback, a RecursionError, a traceback from doce sim, a board that
    # would not boot (doce flash installed it)
    (lambda s: s.pop("board"), "missing or malformed field 'board'"),
    (lambda s: s["sensing"].pop("idle_scan_period_ms"), "missing or malformed field 'idle_scan_period_ms'"),
    ("[" * 100000 + "]" * 100000, "nested deeper than any board file is"),
    (lambda s: s["physics"].update(square_mm="x"), 'physics.square_mm: a number, not "x"'),
    (lambda s: s["physics"]["magnet"].update(remanence_mT=[1420, None]), "physics.magnet.remanence_mT: a list"),
    (lambda s: s["mechanics"].update(wall_mm=True), "mechanics.wall_mm: a number, not true"),
    (lambda s: s["physics"].update(about=3), "physics.about: words"),
    (lambda s: s["pins"].update(leds=34), "pins.leds: GPIO 34 is an input"),
    # review of issue 41, 7: each passed the check, then doce sim or doce check board gave a traceback
    (lambda s: s.pop("physics"), "physics: missing"),
    (lambda s: s.pop("mechanics"), "mechanics: missing"),
    (lambda s: s["physics"].update(adc={}), "physics.adc.vref_mV: missing"),
    (lambda s: s["physics"].update(die_mm=0), "physics.die_mm: a list of two numbers [nominal, tolerance]"),
    (lambda s: s["physics"]["magnet"].update(remanence_mT=[1480, 1420]),
     "physics.magnet.remanence_mT: a list of two numbers [low, high]"),
    (lambda s: s["physics"].update(square_mm=0), "physics.square_mm: above 0"),
    (lambda s: s["physics"].update(square_mm=-5), "physics.square_mm: above 0"),
    (lambda s: s["power"].update(led_ma_per_channel="20"), 'power.led_ma_per_channel: a number, not "20"'),
    (lambda s: s["power"].pop("led_budget_wifi_ma"), "power.led_budget_wifi_ma: missing"),
    (lambda s: s["leds"].pop("turn_files"), "leds.turn_files"),
    (lambda s: s["leds"].update(turn_files=["b", "c", "z"]), "leds.turn_files"),
    # the firmware's Board keeps LED indices in a bytearray
    (lambda s: (s["leds"].update(count=300), s["leds"]["squares"].update(a1=299)), "leds.count: 1 to 256"),
    ("\ufeff" + json.dumps(json.loads(paths_board_text())), "byte order mark"),
    ("fifo", "not a regular file (a FIFO), so not a board file"),
    ("/dev/zero", "not a regular file (a character device), so not a board file"),
])
def test_a_bad_board_file_is_one_line_before_any_board_command(tmp_path, capsys, monkeypatch, argv, change, said):
    """A board file the board would refuse at boot is refused by the host first: before doce
    flash installs it, doce sim boots on it, doce play draws it."""
    from doce_host import paths
    spec = json.loads(paths.BOARD_FILE.read_text())
    broken = tmp_path / "board.json"
    if change == "fifo":
        os.mkfifo(broken)  # no one writes to it: open() would wait for ever
    elif change == "/dev/zero":
        broken.symlink_to("/dev/zero")  # never ends
    elif isinstance(change, str):
        broken.write_text(change)
    elif change:
        change(spec)
        broken.write_text(json.dumps(spec))
    else:
        text = json.dumps(spec)
        broken.write_text(text[:text.rindex(",") + 1])  # cut after a comma: 'Expecting property name'
    monkeypatch.setattr(paths, "BOARD_FILE", broken)
    err = refused(capsys, *argv)
    assert err.count(str(broken)) == 1 and said in err, err


@pytest.mark.parametrize("words", [
    ["rules", "validate", "standard", "--json"],  # a command's own output
    ["rules", "validate", "standard"],
])
def test_an_output_that_cannot_be_written_is_one_line_not_a_traceback(words):
    """`doce ... > /dev/full` (a full disk, a closed terminal): one line on stderr and exit 1."""
    import subprocess
    import sys
    with open("/dev/full", "w") as full:
        run = subprocess.run([sys.executable, "-m", "doce_host.cli", *words], stdout=full, stderr=subprocess.PIPE,
                             text=True, timeout=stretched(60))
    assert run.returncode == 1 and run.stderr.splitlines() == [
        "doce: the output could not be written (No space left on device)"], run.stderr


def every_number(spec, section):
    """(path, setter) for every number under spec[section], in lists too."""
    found = []

    def walk(value, path, put):
        if type(value) is dict:
            for key, item in value.items():
                walk(item, path + [key], lambda v, d=value, k=key: d.__setitem__(k, v))
        elif type(value) is list:
            for i, item in enumerate(value):
                walk(item, path + [i], lambda v, d=value, k=i: d.__setitem__(k, v))
        elif type(value) in (int, float):
            found.append((path, put))
    walk(spec[section], [section], None)
    return found


def test_an_object_or_a_fraction_anywhere_a_number_belongs_is_one_line():
    """Review of issue 41, finding 5: an object where a physics/mechanics/power number belongs, or a
    fraction for a sensor's channel, passed the check and raised a TypeError (a traceback from every
    doce command). Every number of the shipped file is tried."""
    from doce_host import board_file
    original = json.loads(paths_board_text())
    tried = 0
    for section in ("physics", "mechanics", "power", "squares", "sensing", "leds", "pins"):
        for index, _ in enumerate(every_number(original, section)):
            for wrong in ({"a": 1}, 0.5, [], None, "1"):
                spec = json.loads(paths_board_text())
                path, put = every_number(spec, section)[index]
                put(wrong)
                if wrong == 0.5 and (section in ("physics", "mechanics", "power") or path[:2] in (
                        ["leds", "offset_mm"], ["leds", "package_mm"])):
                    continue  # a fraction is a dimension's right
                tried += 1
                with pytest.raises(ValueError, match="^board file: "):
                    board_file.load_text(json.dumps(spec))
                    print("passed:", path, wrong)
    assert tried > 1000


@pytest.mark.parametrize("change, said", [
    (lambda s: s["squares"]["a1"].__setitem__(0, 0.5), "squares: every channel"),
    (lambda s: s["squares"].update(a1="abcde"), "squares"),
    (lambda s: s["physics"].update(square_mm={"a": 1}), "physics.square_mm: a number"),
    (lambda s: s["power"].update(led_budget_ma={"a": 1}), "power.led_budget_ma: a number"),
    (lambda s: s.pop("linux_pins"), "linux_pins: missing"),
    (lambda s: s.update(linux_pins=3), "linux_pins: an object"),
    (lambda s: s["linux_pins"].update(leds=18), "linux_pins.leds: a pin's name"),
    (lambda s: s["linux_pins"].update(leds="D18\n"), "linux_pins.leds: a pin's name"),
    (lambda s: s["linux_pins"].update(mux_select=["D5"]), "linux_pins.mux_select: a list of 4"),
    (lambda s: s["linux_pins"].pop("button"), "linux_pins.button: missing"),
    (lambda s: s["leds"].update(offset_mm="x"), "leds.offset_mm: a list of two numbers"),
    (lambda s: s["leds"].update(offset_mm=[1, {}]), "leds.offset_mm: a list of two numbers"),
    (lambda s: s["leds"].pop("offset_mm"), "leds.offset_mm: a list of two numbers"),
    (lambda s: s["leds"].update(package_mm=[2.4, 2.4]), "leds.package_mm: a list of three numbers"),
    (lambda s: s["leds"].update(package_mm=[2.4, -2.4, 1]), "leds.package_mm: a list of three numbers"),
    (lambda s: s["pins"].pop("led_power"), "pins.led_power: missing"),
    ('{"grid": 5, "grid": 6}', 'the key "grid" appears twice'),
    (lambda s: None, None),  # the shipped file, as it is
])
def test_every_field_of_the_board_file_is_checked_in_one_line(tmp_path, capsys, monkeypatch, change, said):
    """Review of issue 41, finding 5: linux_pins, leds.offset_mm and leds.package_mm passed unchecked
    (any type), pins.led_power could go missing, and a key given twice was read as its last."""
    from doce_host import paths
    spec = json.loads(paths_board_text())
    broken = tmp_path / "board.json"
    if isinstance(change, str):
        broken.write_text(paths_board_text().replace('{', change[:-1] + ",", 1))
    else:
        change(spec)
        broken.write_text(json.dumps(spec))
    monkeypatch.setattr(paths, "BOARD_FILE", broken)
    if said is None:
        from doce_host import board_file
        assert board_file.load(broken)["board"]
        return
    err = refused(capsys, "play", "--vs", "1")
    assert err.count(str(broken)) == 1 and said in err, err


@pytest.mark.parametrize("wrong", [5.5, 5.0, 0, -3])
@pytest.mark.parametrize("field", ["mechanics.magnet_check.judge_from", "mechanics.magnet_check.steady_reads",
                                   "mechanics.magnet_check.empty_reads", "physics.rail.group_sensors"])
def test_a_fraction_or_none_for_a_count_is_one_line(field, wrong):
    """The board file's counts (board_file COUNT): doce dice magnets counts magnets and reads with
    mechanics.magnet_check's, the rail's model sensors with group_sensors. Each a whole number above 0."""
    from doce_host import board_file
    spec = json.loads(paths_board_text())
    *path, key = field.split(".")
    within = spec
    for part in path:
        within = within[part]
    assert type(within[key]) is int  # the shipped file's, which load_text takes (the last case above)
    within[key] = wrong
    with pytest.raises(ValueError, match="^board file: %s: a whole number above 0, not " % field):
        board_file.load_text(json.dumps(spec))
