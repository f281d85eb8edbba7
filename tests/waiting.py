"""Bounded waits for the tests: poll for a condition, never sleep a fixed time and hope."""

import queue
import threading
import time


def until(condition, timeout=10, every=0.02, what="the condition"):
    """Poll `condition()` until it returns something true; return that, or fail after `timeout` s."""
    deadline = time.monotonic() + timeout
    while True:
        got = condition()
        if got:
            return got
        if time.monotonic() > deadline:
            raise AssertionError("%s did not happen within %g s" % (what, timeout))
        time.sleep(every)


class Lines:
    """A process's output, a line at a time, each read with a deadline (readline() alone can block forever)."""

    def __init__(self, stream):
        self.lines = queue.Queue()
        threading.Thread(target=self._pump, args=(stream,), daemon=True).start()

    def _pump(self, stream):
        for line in stream:
            self.lines.put(line)
        self.lines.put(None)

    def next(self, timeout=10):
        try:
            line = self.lines.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError("no line within %g s" % timeout) from None
        if line is None:
            raise AssertionError("the process closed its output")
        return line


def has_open(pid, path):
    """Whether process `pid` holds `path` open (so it is listening on that port)."""
    import os
    target = os.path.realpath(path)
    try:
        fds = os.listdir("/proc/%d/fd" % pid)
    except OSError:
        return False
    for fd in fds:
        try:
            if os.readlink("/proc/%d/fd/%s" % (pid, fd)) == target:
                return True
        except OSError:
            pass
    return False
