"""A `doce sim` or `doce web` process serving the page, for the browser tests and the bench."""

import re
import subprocess
import sys

from waiting import stop


class Page:
    """A `doce sim` or `doce web` process and the address of its page."""

    def __init__(self, *args):
        self.process = subprocess.Popen([sys.executable, "-u", "-m", "doce_host.cli", *args, "--http", "0"],
                                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                        start_new_session=True)
        self.output = []
        for line in self.process.stdout:
            self.output.append(line)
            found = re.search(r"(http://\S+/)", line)
            if found:
                self.url = found.group(1)
                return
        raise RuntimeError("no page address from doce:\n" + "".join(self.output))

    def close(self):
        stop(self.process)
