# Runs under MicroPython: micropython mp_pipe_heap.py (umqtt on MICROPYPATH)
# Prints whether the MQTT pipe's buffers (doce/mqtt.py Pipe) stayed where the session made them
# through a connection's first burst, written among that burst's garbage, and its packets read.
import uctypes

from doce.mqtt import MAX_IN, Pipe

pipe = Pipe()
made = uctypes.addressof(pipe.out), uctypes.addressof(pipe.inbox)
garbage = []
# CONNECT, two SUBSCRIBEs, the status, the retained state, the friend's message, two events: 1.8 KB,
# the largest first burst the power-cut campaign's boards wrote (1.1-1.8 KB)
for size in (110, 50, 50, 140, 690, 480, 150, 150):
    garbage.append(bytearray(96))  # what making each packet leaves behind
    pipe.write(bytes(size))
pipe.out[:] = b""  # sent (Session.send)
for size in (256, 256, 256, 256, 256):  # a largest packet coming in, a scan's read at a time
    garbage.append(bytearray(96))
    pipe.inbox.extend(bytes(size))
pipe.read(MAX_IN)
print(uctypes.addressof(pipe.out) == made[0], uctypes.addressof(pipe.inbox) == made[1])
