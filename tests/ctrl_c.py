"""Ctrl-C at a busy moment, for the tests of every long-running `doce` command (issue 42): the
command runs in a session of its own, as at a terminal, some work is kept going at it, and SIGINT
goes to its whole process group (as a terminal sends it: its simulated boards and brokers too).
It must end, exit 0 or 130, and print no traceback."""

import os
import signal
import subprocess
import sys
import threading

from waiting import Deadline, Lines, ended

# What Python prints when something went wrong on the way out: none may show.
TRACES = ("Traceback", "Exception ignored", "Task exception was never retrieved", "Error in atexit",
          "Fatal Python error", "Task was destroyed but it is pending", "coroutine ignored GeneratorExit")
STOP_S = 60  # of a core's time, to stop: it joins its threads and closes its boards and broker


class Doce:
    """A `doce` command, its output read line by line as it comes (and kept)."""

    def __init__(self, *args, stdin=subprocess.DEVNULL):
        self.process = subprocess.Popen([sys.executable, "-u", "-m", "doce_host.cli", *args], stdin=stdin,
                                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                        start_new_session=True)
        self.lines = Lines(self.process.stdout)
        self.said = []

    def until(self, check, timeout=120):
        """The first line of its output for which check(line) is true (every line is kept)."""
        deadline = Deadline(timeout)
        while True:
            try:
                line = self.lines.next(timeout=max(0.1, deadline.left()))
            except AssertionError as e:  # it ended or went quiet: say what it said, to tell why
                raise AssertionError("%s; exit code %s; it said:\n%s"
                                     % (e, self.process.poll(), "".join(self.said))) from None
            self.said.append(line)
            if check(line):
                return line

    def ctrl_c(self, sig=signal.SIGINT):
        """Ctrl-C: SIGINT to its process group (or `sig`: SIGTERM goes to the command alone, as `kill PID`
        sends it); what it said in all, and its exit code."""
        if sig == signal.SIGINT:
            os.killpg(self.process.pid, sig)
        else:
            self.process.send_signal(sig)
        try:
            code = ended(self.process, STOP_S)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
            raise AssertionError("still running %d s of a core's time after Ctrl-C:\n%s"
                                 % (STOP_S, "".join(self.said)))
        while True:
            try:
                self.said.append(self.lines.next(timeout=10))
            except AssertionError:  # its output is closed: all is read
                break
        return "".join(self.said), code


def ended_cleanly(doce, sig=signal.SIGINT):
    said, code = doce.ctrl_c(sig)
    assert code in (0, 130), (code, said)
    assert not [t for t in TRACES if t in said], said
    return said


class Busy:
    """Work kept going in a thread (`step()` again and again) until stopped; counts the steps done."""

    def __init__(self, step):
        self.step, self.done, self.stopping = step, 0, threading.Event()
        self.error = None
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        while not self.stopping.is_set():
            try:
                self.step()
                self.done += 1
            except Exception as e:  # the command going away under it is expected, at the end
                self.error = e
                if self.stopping.wait(0.05):
                    return

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stopping.set()
        self.thread.join(30)
