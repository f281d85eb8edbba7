"""Stand-ins, on CPython, for what MicroPython's viper emitter provides: the firmware's
fast loops then run as plain Python, reading the same arrays. (Named `native`, a name
MicroPython already holds: a new module name would take a place in its string pool.)"""


class micropython:  # noqa: N801 - the module's name in MicroPython
    @staticmethod
    def viper(f):
        return f

    native = viper


def const(value):
    return value


class _Address:
    """A buffer and a byte offset into it: viper's uint(ptr8(buffer)) + offset."""

    def __init__(self, buffer, offset=0):
        self.buffer = buffer
        self.offset = offset

    def __add__(self, offset):
        return _Address(self.buffer, self.offset + offset)


def uint(pointer):
    return _Address(pointer)


def ptr8(buffer):
    """The buffer, or from an address: the buffer from there on, item by item (a viper pointer
    counts bytes, so the offset is divided by the buffer's item size)."""
    if isinstance(buffer, _Address):
        view = memoryview(buffer.buffer)
        return view[buffer.offset // view.itemsize:]
    return buffer


ptr16 = ptr32 = ptr8
