# A board's TLS handshake, scan by scan, on the unix port: argv PORT CA.der MODE, where MODE is
# "board" (doce/tls_paced.py's ciphers and Paced, as a board does it) or "ecdhe" (what mbedTLS offers
# by default, over the bare socket). Prints JSON: each scan's microseconds inside tls.
import json
import socket
import sys
import time

import tls

from doce.tls_paced import TLS_CIPHERS, Paced

port, ca_path, mode = int(sys.argv[1]), sys.argv[2], sys.argv[3]
with open(ca_path, "rb") as f:
    ca = f.read()
context = tls.SSLContext(tls.PROTOCOL_TLS_CLIENT)
context.load_verify_locations(ca)
if mode == "board":
    context.set_ciphers(TLS_CIPHERS)
raw = socket.socket()
raw.connect(socket.getaddrinfo("127.0.0.1", port)[0][-1])
raw.setblocking(False)
under = Paced(raw, ca) if mode == "board" else raw
sock = context.wrap_socket(under, server_hostname="127.0.0.1", do_handshake_on_connect=False)
scans = []
sent = False
echo = b""
while len(echo) < 4 and len(scans) < 5000:
    if mode == "board":
        under.scan()
    start = time.ticks_us()
    if not sent:
        sent = sock.write(b"ping") is not None  # goes once the handshake is over
    data = sock.read(64)
    if data:
        echo += data
    scans.append(time.ticks_diff(time.ticks_us(), start))
    time.sleep_ms(1)  # the rest of a scan: the server's turn to answer
sock.close()
print(json.dumps({"scans": scans, "done": echo == b"ping"}))
