# Runs at boot on the board. Ctrl-C at the USB serial console stops it (the REPL stays).
# Fixed, with slots.py: an update replaces the app in a slot folder, never these (docs/room.md).
import slots

try:
    slots.choose()  # never raises (whatever the pointer holds, a slot); inside the try all the same
    from doce.esp32 import run

    run()
except Exception:  # on trial, a crash resets the board and the next boot counts it
    slots.crashed()
    raise
except KeyboardInterrupt:  # Ctrl-C, before run()'s own handler too: a counted boot's watchdog would reset the REPL
    slots.at_repl()
    raise
