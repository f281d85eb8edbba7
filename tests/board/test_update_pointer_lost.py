"""A board whose pointer (slot.json and its backup) is lost rebuilds it from the slots' version files
(firmware/slots.py): a slot whose update was refused or aborted must never be picked then. Its version file goes
in the command's own scan, before update.json, not with the slot's other files a scan at a time (issue 43)."""

import json

import pytest
from littlefs import LittleFS

from doce_host import image, update

BOARD = "r43h"


def ask(sim, scans=5, **request):
    """One request over the simulated USB link: its reply."""
    out = sim.command(do="send", line=json.dumps(request) + "\n", scans=scans)
    replies = [x for x in out.get("link", []) if "re" in x]
    return replies[-1] if replies else {}


def sent(sim, data):
    """The package's begin and every chunk, not committed."""
    assert ask(sim, **update.begin(data)).get("ok")
    reqs = list(update.requests(data, 0))
    for i in range(0, len(reqs), 40):
        out = sim.command(do="send", line="\n".join(json.dumps(q) for q in reqs[i:i + 40]), paced=True, scans=1)
        assert all(x.get("ok") for x in out.get("link", []) if "re" in x)


def edited(sim, change):
    """The board off, `change(fs)` done to its flash's file system, the board on again."""
    sim.cut_power()
    fs = LittleFS(block_size=image.BLOCK_SIZE, block_count=image.BLOCK_COUNT, mount=False)
    fs.context.buffer = bytearray(sim.flash.read_bytes())
    fs.mount()
    change(fs)
    fs.unmount()
    sim.flash.write_bytes(bytes(fs.context.buffer))
    sim.power_on()


def write(fs, path, data):
    with fs.open(path, "wb") as f:
        f.write(data)


@pytest.fixture
def keyed(sim):
    key = update.new_key()
    assert ask(sim, cmd="update_key", board=BOARD, key=key).get("ok")
    return sim, key


def test_a_refused_transfers_slot_is_never_booted_by_a_rebuilt_pointer(keyed):
    """A package refused at its commit (a file gone bad on the flash), then the pointer lost: the rebuilt one
    never tries the refused slot (it would give version 11 up for good, and the host's next send be refused)."""
    sim, key = keyed
    data = update.app_package(11, BOARD, key, chip="host")
    sent(sim, data)
    victim = sorted(p for p in image.read(sim.flash.read_bytes()) if p.startswith("b/doce/"))[0]

    def flip(fs):
        with fs.open(victim, "rb") as f:
            raw = bytearray(f.read())
        raw[len(raw) // 2] ^= 0xFF
        write(fs, victim, bytes(raw))

    edited(sim, flip)  # a file gone bad on the flash after it was received whole
    assert ask(sim, **update.begin(data))["received"] == len(data)
    sim.command(do="send", line=json.dumps({"cmd": "update_commit", "id": 2}) + "\n", scans=1)
    refused = None
    for _ in range(300):
        refused = refused or [x for x in sim.run(1).get("link", []) if x.get("re") == "update_commit"]
        if refused:
            break
    assert refused and refused[0]["error"] == "refused" and "corrupted" in refused[0]["message"]
    # slot.json and its backup then lost: the pointer is rebuilt from what the flash holds (firmware/slots.py)
    edited(sim, lambda fs: [write(fs, p, b"{") for p in ("slot.json", "slot.json.bak")])
    sim.run(300)
    assert "given_up" not in json.loads(image.read(sim.flash.read_bytes())["slot.json"])
    again = ask(sim, **update.begin(data))  # the host sends it again: taken (its reply once the slot is empty)
    assert again.get("error") != "refused", again  # not 'version 11 ... which this board rolled back from'


def test_an_aborted_package_is_never_booted_by_a_rebuilt_pointer(keyed):
    """A cut at the abort's second flash write, then the pointer lost: the board boots the app it ran."""
    sim, key = keyed
    sent(sim, update.app_package(11, BOARD, key, chip="host"))
    sim.cut_power_at_flash_write(after=2)  # the first removes update.json, the second the slot's version
    sim.command(do="send", line=json.dumps({"cmd": "update_abort", "id": 3}) + "\n", scans=1)
    for _ in range(20):
        if sim.power_was_cut:
            break
        sim.run(1)
    assert sim.power_was_cut
    edited(sim, lambda fs: [write(fs, p, b"{") for p in ("slot.json", "slot.json.bak")])
    sim.run(100)
    assert ask(sim, cmd="hello").get("version") == 0
