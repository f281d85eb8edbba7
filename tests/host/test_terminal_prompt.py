"""The terminal games at a real terminal (a pty, as tmux gives): each asks for the next move
with a prompt, explains the board's marks, and names the opponent's level as 0 to 3 run."""

import os
import pty
import select
import subprocess
import sys
from waiting import Deadline, ended

from doce_host.view import LEGEND

PLAY_PROMPT = "white to move (like c3 4; help, quit)> "


class Terminal:
    """A `doce` command on a pty: what it wrote so far, and a keyboard."""

    def __init__(self, *args):
        self.master, slave = pty.openpty()
        self.process = subprocess.Popen([sys.executable, "-m", "doce_host.cli", *args], stdin=slave, stdout=slave,
                                        stderr=slave, close_fds=True)
        os.close(slave)
        self.seen = ""

    def until(self, text, timeout=60):
        """Read until `text` has been written (a bound, not a pace); everything since the last call."""
        start, deadline = len(self.seen), Deadline(timeout)
        while text not in self.seen[start:]:
            assert not deadline.passed(), "no %r within %d s of a core's time; the terminal shows:\n%s" % (
                text, timeout, self.seen[-2000:])
            if select.select([self.master], [], [], min(0.5, deadline.left()))[0]:
                try:
                    self.seen += os.read(self.master, 65536).decode(errors="replace").replace("\r\n", "\n")
                except OSError:  # the program ended
                    break
        return self.seen[start:]

    def type(self, line):
        os.write(self.master, (line + "\n").encode())

    def close(self):
        if self.process.poll() is None:
            self.process.kill()
        ended(self.process, 30)
        os.close(self.master)


def test_doce_play_prompts_explains_its_marks_and_names_the_level():
    term = Terminal("play", "--vs", "1")
    try:
        opening = term.until(PLAY_PROMPT)
        assert LEGEND in opening
        assert "You play white; the board plays black at level 1 (a beginner, of 0 to 3)." in opening
        assert "level 1 of 3" not in opening
        term.type("c3 4")
        answer = term.until(PLAY_PROMPT)
        assert "The board (black) plays" in answer and "W4*" in answer  # the marks the legend explains
        term.type("help")
        assert LEGEND in term.until(PLAY_PROMPT)
        term.type("quit")
        assert ended(term.process, 30) == 0
    finally:
        term.close()


def test_the_simulated_board_in_the_terminal_prompts_and_explains_its_board(tmp_path):
    term = Terminal("sim", "--terminal", "--folder", str(tmp_path))
    prompt = 'your hands (like "c3 w4", "lift c3", "press"; help, quit)> '
    try:
        opening = term.until(prompt, timeout=120)
        assert "#W #B the blockers" in opening and "its background colour" in opening
        term.type("c3 w4")
        assert "white put a 4 on c3" in term.until(prompt)
        term.type("quit")
        assert ended(term.process, 60) == 0
    finally:
        term.close()
