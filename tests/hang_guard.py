"""No test may hang the run (a pytest plugin: pyproject.toml's addopts load it).

A test is stopped once it has taken HANG_CORE_S seconds of one core's time (waiting.CoreClock: wall
time weighed by the share of a core a runnable task gets): a limit sized from the work the slowest
test queues, not a guess at how busy the machine will be. pytest-timeout's 300 s of wall time stopped
a test that takes 69 s alone when the machine ran at load 13-22 (issue 42). Past the limit the guard
prints every thread's stack and makes the test fail where it stands (SIGALRM, as pytest-timeout's
signal method does); a test that does not come back from that within GRACE_CORE_S more is ended with
its worker, its stacks printed (pytest-timeout's thread method).
"""

import faulthandler
import os
import signal
import sys
import threading

import pytest

from waiting import CoreClock

# Seconds of one core's work a test may take: the slowest, tests/physics/test_campaign.py's searched
# worst poses, takes about 20 s of a core alone (70 s of wall time at load 10); fifteen times that.
HANG_CORE_S = float(os.environ.get("DOCE_HANG_CORE_S", 300))
GRACE_CORE_S = 30




def _alarm(signum, frame):
    pytest.fail("hung: still running after %g s of a core's time (stacks above)" % HANG_CORE_S)


def pytest_configure(config):
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGALRM, _alarm)


class Guard:
    def __init__(self, name):
        self.name, self.done = name, threading.Event()
        self.main = threading.main_thread().ident
        self.thread = threading.Thread(target=self._watch, name="hang guard", daemon=True)
        self.thread.start()

    def _watch(self):
        clock = CoreClock()
        while not self.done.wait(0.5):
            if clock() > HANG_CORE_S:
                break
        else:
            return
        sys.__stderr__.write("\n%s: past %g s of a core's time (%.0f s wall): every thread's stack\n"
                         % (self.name, HANG_CORE_S, clock.wall()))
        faulthandler.dump_traceback(file=sys.__stderr__, all_threads=True)
        signal.pthread_kill(self.main, signal.SIGALRM)
        clock = CoreClock()
        while not self.done.wait(0.5):
            if clock() > GRACE_CORE_S:
                sys.__stderr__.write("%s: did not stop when told: ending its worker\n" % self.name)
                faulthandler.dump_traceback(file=sys.__stderr__, all_threads=True)
                sys.__stderr__.flush()
                os._exit(1)

    def stop(self):
        self.done.set()
        self.thread.join(5)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    guard = Guard(item.nodeid)
    try:
        yield
    finally:
        guard.stop()
