"""Fake things on a serial port, for the host tests: a pseudo-terminal with a thread
answering each line the host sends."""

import os
import threading
import tty


class FakeDevice:
    """Something on a serial port that is not (quite) a DOCE board."""

    def __init__(self, answer):
        self.master, slave = os.openpty()
        tty.setraw(slave)
        self.path = os.ttyname(slave)
        self.slave = slave
        self.answer = answer
        threading.Thread(target=self.serve, daemon=True).start()

    def serve(self):
        pending = b""
        while True:
            try:
                pending += os.read(self.master, 1024)
            except OSError:
                return
            while b"\n" in pending:
                line, pending = pending.split(b"\n", 1)
                reply = self.answer(line) if line.strip() else None  # a board ignores blank lines
                if reply:
                    os.write(self.master, reply)

    def close(self):
        os.close(self.master)
        os.close(self.slave)
