"""A heap too small for a module: its import runs out of heap, as a board's may (a module's qstr pool or
bytecode needs a block the heap no longer has in one piece: issue 41's power-cut campaign). Loaded only
when the simulator asks for it (side_channel.py, no_room.json), so a sound board's simulator carries none
of it. The MemoryError is raised at the import statement, before the module runs; its text is the port's
own (py/gc.c via py/runtime.c m_malloc_fail)."""

import builtins

_import = builtins.__import__


def install(modules):
    """modules: {full module name: how many of its imports fail before one succeeds}."""
    left = dict(modules)

    def squeezed(name, globals=None, locals=None, fromlist=(), level=0):
        full = name
        if level:  # from .remote import ...: the package of the module importing
            package = globals["__name__"]
            for _ in range(level):
                package = package.rsplit(".", 1)[0]
            full = package + ("." + name if name else "")
        if left.get(full, 0) > 0:
            left[full] -= 1
            raise MemoryError("memory allocation failed, allocating 1280 bytes")
        return _import(name, globals, locals, fromlist, level)

    builtins.__import__ = squeezed
