"""Modules loaded for a while and let go once their work is done (an update, a trial: doce/update.py,
doce/esp32.py), so that the heap a board plays with is not spent on them between."""

import sys


def forget(name):
    """Out of sys.modules, and out of its package's names (an import of doce.x puts x in doce's): once
    nothing else holds it, the next collection frees it."""
    sys.modules.pop(name, None)
    package, _, leaf = name.rpartition(".")
    if package in sys.modules:
        sys.modules[package].__dict__.pop(leaf, None)
