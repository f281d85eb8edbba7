"""A heap too small for a module, or for one call: it runs out of heap, as a board's may (a module's qstr
pool or bytecode, or any allocation, needs a block the heap no longer has in one piece: issue 41's
power-cut campaign). Loaded only when the simulator asks for it (side_channel.py, no_room.json), so a
sound board's simulator carries none of it. The MemoryError's text is the port's own (py/gc.c via
py/runtime.c m_malloc_fail).

- "doce.remote": the module's import statement raises, before the module runs.
- "doce.remote:Remote.attach" (module:function or module:Class.method): the call raises as it starts,
  once the module is loaded; its first n calls, or those a list names ([2]: the second only).
An import failing covers only a part that never loaded. A start that fails half-way (a Net made, then
its match not attached; a running network restarted by a command) is a call that fails after others
succeeded, which only the second form reaches (a hostile review of issue 41, finding 3)."""

import builtins
import sys

_import = builtins.__import__
NO_ROOM = "memory allocation failed, allocating 1280 bytes"


def install(modules):
    """modules: {full module name or module:function: how many of its imports (calls) fail before one
    succeeds, or (a function's) the list of its calls that fail, counted from 1}."""
    left = dict(modules)
    calls = [name for name in left if ":" in name]

    def squeezed(name, globals=None, locals=None, fromlist=(), level=0):
        full = name
        if level:  # from .remote import ...: the package of the module importing
            package = globals["__name__"]
            for _ in range(level):
                package = package.rsplit(".", 1)[0]
            full = package + ("." + name if name else "")
        if left.get(full, 0) > 0:
            left[full] -= 1
            raise MemoryError(NO_ROOM)
        module = _import(name, globals, locals, fromlist, level)
        for call in calls[:]:  # (a module still running its own imports has not its functions yet)
            if call.split(":")[0] in sys.modules and squeeze(sys.modules[call.split(":")[0]], call, left):
                calls.remove(call)
        return module

    builtins.__import__ = squeezed


def squeeze(module, call, left):
    """The function named after the colon, made to raise MemoryError its first left[call] times; False if
    the module has no such function (yet)."""
    path = call.split(":")[1].split(".")
    owner = module
    for name in path[:-1]:
        owner = getattr(owner, name, None)
    real = getattr(owner, path[-1], None)
    if real is None:
        return False

    which = left[call]
    calls = [0]

    def squeezed(*args, **kwargs):
        calls[0] += 1
        if calls[0] in which if isinstance(which, list) else calls[0] <= which:
            raise MemoryError(NO_ROOM)
        return real(*args, **kwargs)

    setattr(owner, path[-1], squeezed)
    return True
