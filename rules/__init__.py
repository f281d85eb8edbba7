"""The rules files that ship with the board (read with importlib.resources)."""
