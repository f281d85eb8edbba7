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
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

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
        # The slave first: the thread's read of the master then fails (EIO) and it ends, before
        # the master's fd number is closed and can be handed to the next test's device (a thread
        # left reading that number answered the next test with this one's lies, seen under load).
        os.close(self.slave)
        self.thread.join(5)
        os.close(self.master)
