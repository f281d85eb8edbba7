"""Bounded waits for the tests: poll for a condition, never sleep a fixed time and hope.

A deadline is seconds of one core's work, not of the wall clock (issue 42): on a busy machine the
work a test waits for (a simulated board, a server, a browser) gets a share of a core, so the wall
time it takes stretches with the load. `CoreClock` counts the wall time that passes, each moment
weighed by the share of a core one runnable task gets then: cores / the tasks that want a CPU
(/proc/loadavg's running count), at most 1. On an idle machine it is the wall clock; with twenty
tasks on two cores, ten seconds of it pass for one. until() and Lines count their deadlines on it,
the hang guard (tests/conftest.py) its limit, and a library that takes wall seconds (Playwright,
subprocess) is given `stretched(seconds)`: stretched by the load of the last minute.
"""

import os
import queue
import signal
import subprocess
import threading
import time

from doce_host.core_time import CORES, CoreClock, Deadline, runnable, stretched  # noqa: F401  (one place)

HARD_CAP_S = 240  # of one core's work, under the hang guard's: a wait that would outlast the test fails with its reason
BOOT_CPU_S = 30  # a simulated board's boot and its app's start take a few seconds of one core; ten times that


def completed(argv, timeout=60, input=None, stdin=None, **kwargs):
    """subprocess.run(argv, capture_output=True, text=True) whose deadline is `timeout` seconds of
    a core's time (CoreClock): past it the process is killed and subprocess.TimeoutExpired raised."""
    clock, out = CoreClock(), {}
    with subprocess.Popen(argv, stdin=subprocess.PIPE if input is not None else stdin, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, **kwargs) as process:
        talk = threading.Thread(target=lambda: out.update(zip(("stdout", "stderr"), process.communicate(input))),
                                daemon=True)
        talk.start()
        while talk.is_alive():
            talk.join(0.1)
            if talk.is_alive() and clock() > timeout:
                process.kill()
                talk.join()
                raise subprocess.TimeoutExpired(argv, timeout, out.get("stdout"), out.get("stderr"))
        return subprocess.CompletedProcess(argv, process.returncode, out["stdout"], out["stderr"])


def ended(process, timeout=30):
    """process.wait() within `timeout` seconds of a core's time (CoreClock); its exit code, or
    subprocess.TimeoutExpired (the process left running, for the caller to deal with)."""
    clock = CoreClock()
    while True:
        try:
            return process.wait(0.1)
        except subprocess.TimeoutExpired:
            if clock() > timeout:
                raise


def until(condition, timeout=10, every=0.02, what="the condition"):
    """Poll `condition()` until it returns something true; return that, or fail once `timeout`
    seconds of one core's work (CoreClock) have passed."""
    clock = CoreClock()
    while True:
        got = condition()
        if got:
            return got
        if clock() > timeout:
            raise AssertionError("%s did not happen within %g s of a core's time (%.0f s wall)"
                                 % (what, timeout, clock.wall()))
        time.sleep(every)


def wait_until(condition, timeout, pump=None):
    """Look at `condition()` until it is true or `timeout` seconds of one core's work (CoreClock)
    have passed, calling `pump()` between looks (a simulated board's scans). Its last value: the
    test asserts on it, with what it shows."""
    clock = CoreClock()
    while True:
        value = condition()
        if value or clock() >= timeout:
            return value
        pump() if pump else time.sleep(0.02)


def cpu_seconds(pid):
    """CPU seconds process `pid` and every process under it have used (utime + stime, proc(5));
    0 for one that is gone. A simulated board is its MicroPython process and the launcher above it."""
    total, pids = 0.0, [pid]
    while pids:
        p = pids.pop()
        try:
            fields = open("/proc/%d/stat" % p).read().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
            for task in os.listdir("/proc/%d/task" % p):
                pids.extend(int(c) for c in open("/proc/%d/task/%s/children" % (p, task)).read().split())
        except (OSError, IndexError, ValueError):
            pass
    return total


def until_worked(condition, pid, cpu=10, every=0.05, what="the condition"):
    """Poll `condition()` until it returns something true, and return that. The deadline is the
    work it takes, not a guess at how busy the machine is: fail once the process that must do it
    (`pid()`: its pid now, or None while it is off; a board's changes at each power-on) has used
    `cpu` seconds of CPU since the wait began, or after HARD_CAP_S of a core's time (CoreClock)."""
    used, last, began, clock = 0.0, {}, time.monotonic(), CoreClock()
    while True:
        got = condition()
        if got:
            return got
        now = pid()
        if now is not None:
            spent = cpu_seconds(now)
            used += spent - last.get(now, spent)
            last[now] = spent
        if used > cpu or clock() > HARD_CAP_S:
            raise AssertionError("%s did not happen within %g s of the board's CPU (%.0f s wall)"
                                 % (what, cpu, time.monotonic() - began))
        time.sleep(every)


def booted(sim):
    """Until a simulated board (SerialSim) has booted with its board clear: its first round_start,
    as the simulator overhears it on the line, within BOOT_CPU_S of the board's CPU. Never wait for
    it on a link opened after SerialSim(): opening a port drops what came before (pyserial resets
    the input buffer on open), so a boot faster than the test lost it, whatever the deadline."""
    return until_worked(lambda: any(e.get("event") == "round_start" for e in sim.heard),
                        lambda: sim.process and sim.process.pid, BOOT_CPU_S, what="the board's first round_start")


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
        """The next line, within `timeout` seconds of a core's time (CoreClock)."""
        clock = CoreClock()
        while True:
            try:
                line = self.lines.get(timeout=0.1)
                break
            except queue.Empty:
                if clock() > timeout:
                    raise AssertionError("no line within %g s of a core's time" % timeout) from None
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


def stop(process, timeout=30, what="doce", strict=True):
    """Ctrl-C a `doce` process started with start_new_session=True, and wait for it; past
    `timeout` s of a core's time, kill its whole session: its simulated boards too, which would otherwise run on
    with nobody to stop them and slow every test after. `strict`: then fail."""
    process.send_signal(signal.SIGINT)
    try:
        return ended(process, timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        if strict:
            raise AssertionError("%s did not stop within %g s of a core's time after Ctrl-C"
                                 % (what, timeout)) from None
