"""Stand-ins, on CPython, for what MicroPython's viper emitter provides: the firmware's
fast loops then run as plain Python, reading the same arrays. (Named `native`, a name
MicroPython already holds: a new module name would take a place in its string pool.)"""


class micropython:  # noqa: N801 - the module's name in MicroPython
    @staticmethod
    def viper(f):
        return f

    native = viper


def ptr8(buffer):
    return buffer


ptr16 = ptr8
