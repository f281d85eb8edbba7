"""A `doce sim` or `doce web` process serving the page, for the browser tests and the bench; and the
simulator's page served from the test's own process (SimPage), as `doce sim` serves it."""

import asyncio
import re
import subprocess
import sys
import threading

from waiting import BOOT_CPU_S, stop, until


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


class SimPage:
    """`doce sim --folder FOLDER`'s board and page (page_commands.cmd_sim: the reference WROVER's
    SerialSim, web/server.py's Server on it), served from this process: a fresh board and server
    each, without a Python of their own to start (some 0.8 s of a core's work, its imports and
    its compiling). The server's loop runs in a thread of its own: Playwright's sync API holds
    this one's."""

    def __init__(self, folder):
        from doce_host.rules import load_tables
        from doce_host.sim.serial_sim import SerialSim
        from doce_host.web.server import Server, listen, url_of
        load_tables("standard")
        sock = listen("127.0.0.1", 0, fallback=False)
        self.url = url_of(sock)
        self.sim = SerialSim(folder, module="wrover")
        self.server = Server(self.sim.path, self.sim)
        self.loop = asyncio.new_event_loop()
        self.task = None
        self.up = threading.Event()
        self.thread = threading.Thread(target=self._serve, args=(sock,), daemon=True)
        self.thread.start()
        until(self.up.is_set, timeout=BOOT_CPU_S, what="the page's server up")

    def _serve(self, sock):
        async def run():
            self.task = asyncio.current_task()
            await self.server.run(sock, self.up.set)
        try:
            self.loop.run_until_complete(run())
        except asyncio.CancelledError:
            pass  # closed: Server.run has let its pages go
        finally:
            self.loop.close()

    def close(self):
        try:
            if self.task:
                self.loop.call_soon_threadsafe(self.task.cancel)
            self.thread.join(timeout=30)
            assert not self.thread.is_alive(), "the page's server did not stop"
        finally:
            self.server.watch.stop()
            self.sim.close()
