"""Deadlines counted in one core's work, not wall seconds: a wait for a simulated board, a
broker or a server on this computer is a wait for work that gets only a share of a core when
the computer is busy (issue 42: at load 24 on two cores a 10 s wait was over before the work
had had 1 s of a core). `CoreClock` counts wall time weighed by the share of a core one
runnable task gets (cores / the tasks that want a CPU, /proc/loadavg's running count, at most
1). On an idle computer it is the wall clock, so a real board's timeouts read as written.
"""

import os
import time

CORES = os.cpu_count() or 1


def runnable():
    """Tasks on this machine that want a CPU now, this one included (at least 1; 1 where unknown)."""
    try:
        with open("/proc/loadavg") as f:
            return max(1, int(f.read().split()[3].split("/")[0]))
    except (OSError, ValueError, IndexError):
        return 1


class CoreClock:
    """Seconds of one core's work since it was made: wall time weighed by a runnable task's share."""

    def __init__(self):
        self.began = self.last = time.monotonic()
        self.spent = 0.0

    def wall(self):
        return time.monotonic() - self.began

    def __call__(self):
        now = time.monotonic()
        self.spent += (now - self.last) * min(1.0, CORES / runnable())
        self.last = now
        return self.spent


class Deadline:
    """`seconds` of one core's time from now (CoreClock)."""

    def __init__(self, seconds):
        self.seconds, self.clock = seconds, CoreClock()

    def passed(self):
        return self.clock() > self.seconds

    def left(self):
        """Core seconds left (at least 0): as wall seconds, a bound to wait for at most, then look again."""
        return max(0.0, self.seconds - self.clock())


def stretched(seconds):
    """`seconds` of one core's work as wall seconds, for a library that takes those (a socket's
    timeout, a process's start): stretched by the last minute's load per core, never shortened."""
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):  # no load figure on this system (Windows): the wall clock
        load = 0.0
    return seconds * max(1.0, load / CORES)
