"""What `make sim` prints besides its banner: nothing, when a page closes mid-frame or the
server is stopped."""

import asyncio
import gc
import signal

from browser import chromium
from pages import Page
from waiting import stretched

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
