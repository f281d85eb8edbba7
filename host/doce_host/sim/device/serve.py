"""The simulated board in real time, on a serial port: run by `doce sim`.

    micropython -i serve.py FLASH_IMAGE CONTROL_SOCKET LEVELS [--no-app] [--share=BYTES]

stdin and stdout are the board's USB serial port (a pseudo-terminal the simulator
bridges to the path it prints). The board boots from the flash image and runs its
real main.py; Ctrl-C there stops the app and `-i` leaves MicroPython's REPL, as on a
board, so mpremote works. The world of dice is driven through CONTROL_SOCKET (see
side_channel.py); LEVELS is what every channel reads as it boots. Power cuts and resets end
this process: the simulator starts it again;
the link reads and writes through serial_port.py, the ESP32's buffers in real time;
after a soft reset in the raw REPL it starts it with --no-app, as a board comes back
from one straight to the raw REPL without running main.py. --share: what the harness holds,
padded (side_channel.ballast).
"""

import gc

gc.collect()
_counted = gc.mem_alloc()  # the interpreter and this script: the harness's share starts here

import sys  # noqa: E402

HERE = __file__.rsplit("/", 1)[0] if "/" in __file__ else "."
sys.path.insert(0, HERE)

import flash  # noqa: E402

chip = flash.mount(sys.argv[1])

import machine  # noqa: E402
chip.charge = machine.charge  # a program or erase holds the firmware, slept once real_time is on (flash.py)
import serial_port  # noqa: E402
import side_channel  # noqa: E402
import simtime  # noqa: E402
# The ESP32's network is a C module (ports/esp32/modnetwork.c): its import costs the board's heap
# nothing. Simulated, it is a .py compiled at import: loaded here, with the harness, as run.py does, not
# compiled inside the firmware's boot, where its parse and qstrs took the one free block the friend's
# match needed (a hostile review of issue 41, finding 1). side_channel.drivers() checks both harnesses.
import network  # noqa: E402, F401

import simbinascii  # noqa: E402
sys.modules["binascii"] = simbinascii  # for the firmware: crc32's big ints on the chip counted (simbinascii.py)
sys.modules["time"] = simtime  # for the firmware: the ESP32's ticks and waits (simtime.py)
import simgc  # noqa: E402
sys.modules["gc"] = simgc  # for the firmware: the port's gc.mem_free(), ESP-IDF's largest free block in it (simgc.py)
gc.collect()
_before_firmware = gc.mem_alloc()
import slots  # noqa: E402
slots.choose()  # the slot main.py boots (firmware/slots.py), first on the path before the firmware loads
try:
    from doce import board as boardfile  # noqa: E402
    from doce import esp32  # noqa: E402
except Exception:  # a slot on trial that cannot even load: main.py's crash
    slots.crashed()
    raise

gc.collect()
_firmware_modules = gc.mem_alloc() - _before_firmware  # the board loads these too: its share, not ours
from world import World  # noqa: E402

board_spec = boardfile.load_spec()  # board.json on the board's own flash (flash.mount)
board = boardfile.Board(board_spec)
world = machine.attach(World(board, side_channel.start_levels(sys.argv[3])), board, board_spec["power"])
side_channel.start_faults(sys.argv[3])
side_channel.start_supply(sys.argv[3])
links = []  # the firmware's link, once main.py has made it: the simulator's way to its App


def usb_link():
    links.append(serial_port.usb_link())
    return links[-1]


control = side_channel.Control(sys.argv[2], world, chip, lambda: links[-1].app if links and links[-1].app else None)
machine.on_scan = control.service
machine.real_time = True  # the ADC's and the LEDs' hardware time is slept, not just counted
machine.on_reset = lambda: control.hang({"reset": True})
chip.on_cut = lambda message: control.hang({"power_cut": message})
esp32.usb_link = usb_link  # the port with the ESP32's ring buffer and FIFO, not the bare pty


Firmwares = esp32.Scans  # (esp32.Scans is the one below from there on: named so, __exit__ would call itself)


class Scans(Firmwares):
    """esp32.Scans, the fault's traceback told the simulator besides (its `error` event has only the
    message), as run.py keeps it: a test run on this simulator fails on a fault it would pass over unseen
    (tests/conftest.py scan_faults_checked). Allocates only when a scan raises."""

    def __exit__(self, kind, e, trace):
        if isinstance(e, Exception):
            told(e)
        return Firmwares.__exit__(self, kind, e, trace)


# Its own function, as run.py's kept: in __exit__ its locals would put that frame on the heap at every scan.
def told(e):
    import io
    text = io.StringIO()
    sys.print_exception(e, text)
    try:
        control.send({"scan_fault": text.getvalue()})
    except OSError:  # the simulator has gone: the power with it (Control.service)
        pass


esp32.Scans = Scans  # esp32.run scans through it
del board, board_spec, boardfile, World
# A test's squeezed modules (SimBoard.no_room), after the harness's own imports, as run.py does: only the
# firmware's fail, and the module is in the harness's share (loaded before the ballast pads it)
side_channel.start_no_room(sys.argv[3])
gc.collect()
padding = side_channel.ballast(_counted + _firmware_modules)  # the same share as run.py's
gc.collect()
# all the harness holds, and the simulated drivers it loaded (the "heap" command, as run.py's)
control.harness = {"harness": gc.mem_alloc() - _counted - _firmware_modules, "drivers": side_channel.drivers(HERE)}
del _counted, _before_firmware, _firmware_modules, HERE

if "--no-app" not in sys.argv:
    try:
        exec(open("main.py").read(), {"__name__": "__main__"})
    except (KeyboardInterrupt, Exception):  # Ctrl-C, or the app crashed: the REPL, as on a board
        control.send({"app_stopped": True})  # where nothing scans: the simulator stops asking
        raise
