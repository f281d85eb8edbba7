"""Stand-ins, on CPython, for what MicroPython's viper emitter provides: the firmware's
fast loops then run as plain Python, reading the same arrays; and for doce/app.py's gc.collect()
(below). (Named `native`, a name MicroPython already holds: a new module name would take a place in its string pool.)"""

import gc as _gc


class micropython:  # noqa: N801 - the module's name in MicroPython
    @staticmethod
    def viper(f):
        return f

    native = viper


class gc:  # noqa: N801 - the module's name in MicroPython
    """doce/app.py's collections, at boot's phases and as the board comes to rest, on CPython: its
    youngest objects only. On MicroPython they sweep the board's own heap, so what lasts lies packed
    (a few ms). A full one of CPython's walks every object of the process: under pytest, 60-90 ms
    a call, 7 of the 12 CPU-s of a test that settles a board on fakes 113 times; and reference
    counting has freed what nothing holds already."""

    @staticmethod
    def collect():
        _gc.collect(0)


def const(value):
    return value


class _Address:
    """viper's uint(ptr8(buffer)): plus a byte offset, the buffer from there on, item by item (a viper
    pointer counts bytes, so the offset is divided by the buffer's item size). The opponent's loops make
    some 40 pointers a call, millions a search: the slice is made here, once, and ptr8 hands it on."""

    def __init__(self, buffer):
        self.view = memoryview(buffer)
        self.size = self.view.itemsize

    def __add__(self, offset):
        return self.view[offset // self.size:]


def uint(pointer):
    return _Address(pointer)


def ptr8(buffer):
    """The buffer, as viper's pointer reads it (an address plus an offset is already one)."""
    return buffer


ptr16 = ptr32 = ptr8
