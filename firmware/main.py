# Runs at boot on the board. Ctrl-C at the USB serial console stops it (the REPL stays).
from doce.esp32 import run

run()
