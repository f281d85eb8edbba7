"""`doce snapshot --url` against a page that has not heard its board yet: the page answers 503
until then (web/server.py picture_now), and the snapshot waits for the picture within --timeout."""

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


from waiting import stretched

from doce_host.cli import main

SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"></svg>'


def page(not_yet):
    """A page that answers 503 to its first `not_yet` requests for the picture, then the picture."""
    asked = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 - http.server's name
            asked.append(self.path)
            if len(asked) <= not_yet:
                self.send_error(503, "no picture yet")
                return
            body = SVG.encode()
            self.send_response(200)
            self.send_header("Content-Type", "image/svg+xml")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, asked


def test_a_snapshot_waits_for_a_page_that_has_not_heard_its_board_yet(tmp_path):
    server, asked = page(not_yet=3)
    try:
        out = tmp_path / "board.svg"
        assert main(["snapshot", "--url", "http://127.0.0.1:%d/" % server.server_port, "--svg", str(out),
                     "--timeout", "30"]) == 0
        assert out.read_text() == SVG and len(asked) == 4
    finally:
        server.shutdown()


def test_a_page_that_never_has_a_picture_is_one_line_after_the_timeout(tmp_path, capsys):
    server, asked = page(not_yet=10 ** 6)
    try:  # long enough for the page to answer "not yet" at least twice, however busy the machine (0.5 s was not)
        assert main(["snapshot", "--url", "http://127.0.0.1:%d/" % server.server_port, "--svg",
                     str(tmp_path / "board.svg"), "--timeout", "%.1f" % stretched(2)]) == 2
        assert capsys.readouterr().err.strip().endswith("no picture from the page (no picture yet)")
        assert len(asked) > 1
    finally:
        server.shutdown()
