"""What `make sim` prints besides its banner: nothing, when a page closes mid-frame or the
server is stopped."""

import asyncio
import gc
import signal
import sys

from browser import chromium
from pages import Page
from waiting import completed, stretched

from doce_host.web.server import Client


class ClosingSocket:
    """A page's WebSocket as aiohttp sends a large compressed frame: the send runs in a task of
    its own, shielded; the page goes meanwhile, so that task fails writing to a closed transport."""

    closed = False

    def __init__(self):
        self.sending = asyncio.Event()

    async def send_str(self, text):
        async def compress_and_write():
            self.sending.set()
            await asyncio.sleep(0.05)
            self.closed = True
            raise ConnectionResetError("Cannot write to closing transport")
        await asyncio.shield(asyncio.get_running_loop().create_task(compress_and_write()))


def test_a_page_gone_mid_frame_leaves_no_failure_unheard():
    unheard = []

    async def run():
        asyncio.get_running_loop().set_exception_handler(lambda loop, context: unheard.append(context["message"]))
        ws = ClosingSocket()
        client = Client(ws, '{"type": "frame"}')
        await ws.sending.wait()
        client.close()  # the page has gone: the handler's finally
        await asyncio.sleep(0.2)
        gc.collect()  # an exception no one retrieved is reported when its task is collected
        await asyncio.sleep(0)
    asyncio.run(run())
    gc.collect()
    assert unheard == []


def test_a_closed_tab_and_sigterm_print_nothing(tmp_path):
    page = Page("sim", "--folder", str(tmp_path / "flash"))
    try:
        with chromium() as browser:
            for n, cell in enumerate(("a1", "c3", "e5", "b2")):
                context = browser.new_context()
                tab = context.new_page()
                tab.goto(page.url)
                tab.wait_for_selector("#board svg .square")
                tab.evaluate("(c) => view.socket.send(JSON.stringify({do: 'place', cell: c, piece: 'white 1'}))", cell)
                tab.wait_for_timeout(20 * n)
                context.close()  # mid-frame, or not
            context = browser.new_context()
            tab = context.new_page()
            tab.goto(page.url)
            tab.wait_for_selector("#board svg .square")
            page.process.send_signal(signal.SIGTERM)  # as a service manager or `kill` stops it, a page open
            rest, _ = page.process.communicate(timeout=stretched(30))
            context.close()
    finally:
        if page.process.poll() is None:
            page.process.kill()
            page.process.wait()
    said = "".join(page.output) + rest
    assert page.process.returncode in (0, 130)
    for noise in ("Traceback", "Task exception", "Warning", "Error"):
        assert noise not in said, said


BUSY_WHEN_TERMINATED = """
import asyncio, os, signal, time
from doce_host import cli
from doce_host.web.server import serve_until_stopped
signal.signal(signal.SIGTERM, cli.interrupted)  # as the doce command has it (cli.run)
sent = []

async def busy(n):
    while True:
        if n == 0 and not sent:
            sent.append(1)
            os.kill(os.getpid(), signal.SIGTERM)  # arrives while a task runs, as a frame is being drawn
        time.sleep(0.001)
        await asyncio.sleep(0)

async def main():
    await asyncio.gather(busy(0), busy(1))
serve_until_stopped(main())
print("ended")
"""


def test_sigterm_while_a_task_runs_ends_the_pages_cleanly():
    """Review of issue 41, finding 6: SIGTERM to `doce sim --remote` printed "Task was destroyed but it is
    pending!" and "coroutine ignored GeneratorExit": cli.py's handler raised KeyboardInterrupt inside
    whichever task ran (asyncio.run, 'Task exception was never retrieved' when it is a step). The pages'
    loop takes SIGTERM as asyncio.run takes Ctrl-C: it cancels its task between steps."""
    from ctrl_c import TRACES
    run = completed([sys.executable, "-c", BUSY_WHEN_TERMINATED], timeout=60)
    said = run.stdout + run.stderr
    assert run.returncode == 0 and run.stdout == "ended\n", said
    assert not [t for t in TRACES + ("Task exception",) if t in said], said
