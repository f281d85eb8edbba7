"""A board's TLS handshake, scan by scan (issue 11): printed, never asserted.

    python bench/tls.py [--runs N]

The board's own code (doce/tls_paced.py: TLS_CIPHERS and Paced) runs in the MicroPython unix port
(bench/tls_handshake.py) against a TLS 1.2 server with the room's certificates (CPython's ssl,
OpenSSL, as Mosquitto's), whose own preference is ECDHE wherever the client allows it. Each scan's
time inside the tls module is measured; the worst scan is the one the scan loop stops for.
"""

import datetime
import ipaddress
import json
import os
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
from conftest import micropython_path  # noqa: E402

# The handshake of MicroPython on an ESP32, ECDHE with a P-256 key: 1.18-1.28 s, measured by a user
# (micropython/micropython-esp32 issue 131); mbedTLS has no ECC accelerator to use on the ESP32.
ESP32_ECDHE_S = 1.2
# One multiplication on the ESP32's RSA accelerator at 240 MHz, in us: 36 for 1024-bit operands, 458
# for 4096-bit (espressif/esp-idf pull request 19026, measured on an ESP32-D0WD-V3). 2048 bits lies
# between, about their geometric mean (the cost grows as the square of the size).
ESP32_MUL_2048_US = (36 * 458) ** 0.5
RSA_PUBLIC_MULS = 17  # e = 65537 = 2^16 + 1: 16 squarings and one multiplication


def elliptic_room(folder):
    """A P-256 CA and broker certificate: what `doce fleet secure --tls` made before RSA."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID
    now = datetime.datetime.now(datetime.timezone.utc)
    ca_key, key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "room CA")])

    def cert(subject, public, ca):
        b = (x509.CertificateBuilder().subject_name(subject).issuer_name(ca_name).public_key(public)
             .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(days=1))
             .not_valid_after(now + datetime.timedelta(days=9))
             .add_extension(x509.BasicConstraints(ca=ca, path_length=0 if ca else None), critical=True))
        if not ca:
            b = b.add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                                critical=False)
        return b.sign(ca_key, hashes.SHA256())
    pem = serialization.Encoding.PEM
    folder.mkdir()
    (folder / "ca.crt").write_bytes(cert(ca_name, ca_key.public_key(), True).public_bytes(pem))
    (folder / "server.crt").write_bytes(cert(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")]),
                                              key.public_key(), False).public_bytes(pem))
    (folder / "server.key").write_bytes(key.private_bytes(pem, serialization.PrivateFormat.PKCS8,
                                                          serialization.NoEncryption()))


def rsa_room(folder):
    from doce_host.fleet.security import write_tls
    folder.mkdir()
    write_tls(folder, ["127.0.0.1"])


def echo_server(room, runs):
    """A TLS 1.2 server that echoes, for `runs` connections. Returns its port and the suites agreed."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.maximum_version = ssl.TLSVersion.TLSv1_2  # Mosquitto's listener (fleet secure: tls_version tlsv1.2)
    context.set_ciphers("ALL")
    context.load_cert_chain(room / "server.crt", room / "server.key")
    server = socket.create_server(("127.0.0.1", 0))
    agreed = []

    def serve():
        with server:
            for _ in range(runs):
                conn, _ = server.accept()
                try:
                    with context.wrap_socket(conn, server_side=True) as s:
                        agreed.append(s.cipher()[0])
                        s.sendall(s.recv(4))
                except (OSError, ssl.SSLError) as e:
                    agreed.append("failed: %s" % e)
    threading.Thread(target=serve, daemon=True).start()
    return server.getsockname()[1], agreed


def handshakes(room, mode, runs):
    from cryptography import x509
    from cryptography.hazmat.primitives import serialization
    der = room / "ca.der"
    der.write_bytes(x509.load_pem_x509_certificate((room / "ca.crt").read_bytes()).public_bytes(
        serialization.Encoding.DER))
    port, agreed = echo_server(room, runs)
    env = dict(os.environ, MICROPYPATH=str(ROOT / "firmware"))
    worst, totals = [], []
    for _ in range(runs):
        out = subprocess.run([micropython_path(), "-X", "heapsize=256K", str(ROOT / "bench" / "tls_handshake.py"),
                              str(port), str(der), mode], capture_output=True, text=True, env=env, timeout=120)
        if out.returncode:
            raise SystemExit(out.stdout + out.stderr)
        result = json.loads(out.stdout)
        if not result["done"]:
            raise SystemExit("the handshake did not finish: %s" % result)
        worst.append(max(result["scans"]))
        totals.append(sum(result["scans"]))
    return sorted(worst)[len(worst) // 2], sorted(totals)[len(totals) // 2], sorted(set(agreed))


def tls_figures(runs=5):
    print("A board's TLS handshake, scan by scan (MicroPython unix port, doce/tls_paced.py; median of %d)" % runs)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        elliptic_room(tmp / "p256")
        rsa_room(tmp / "rsa")
        rows = [("before: P-256 room, mbedTLS's default suites, the bare socket", tmp / "p256", "ecdhe"),
                ("RSA room, default suites (ECDHE-RSA), the bare socket", tmp / "rsa", "ecdhe"),
                ("now: RSA room, the board's suites (TLS_CIPHERS) and Paced", tmp / "rsa", "board")]
        figures = []
        for label, room, mode in rows:
            worst, total, agreed = handshakes(room, mode, runs)
            figures.append((worst, total))
            print("  %s:" % label)
            print("    worst scan %6.2f ms, all scans %6.2f ms here; suite %s" % (worst / 1000, total / 1000,
                                                                                ", ".join(agreed)))
    before_total, now_worst = figures[0][1], figures[2][0]
    print("  on an ESP32: the whole ECDHE handshake took about %.1f s (micropython-esp32 issue 131), one call;" %
          ESP32_ECDHE_S)
    print("    scaled by this machine's ratio, the board's worst scan now is about %.0f ms (%.1f%% of it); an"
          % (ESP32_ECDHE_S * 1000 * now_worst / before_total, 100 * now_worst / before_total))
    print("    upper bound, since the ESP32 accelerates the RSA multiplications (ESP-IDF CONFIG_MBEDTLS_HARDWARE_MPI)"
          " and not ECC;")
    print("    counted from the accelerator's own times, one RSA-2048 public operation, the most a scan does now, is"
          " %d x %.0f us = %.1f ms" % (RSA_PUBLIC_MULS, ESP32_MUL_2048_US, RSA_PUBLIC_MULS * ESP32_MUL_2048_US / 1000))


if __name__ == "__main__":
    tls_figures(int(sys.argv[sys.argv.index("--runs") + 1]) if "--runs" in sys.argv else 5)
