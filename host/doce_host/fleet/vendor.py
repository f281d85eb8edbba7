"""The board's MQTT client, from its registry package: umqtt.simple (micropython-lib, MIT).

micropython-umqtt.simple 1.3.4 on PyPI is a source archive of one module, umqtt/simple.py,
with no setup.py, so pip cannot install or even `pip download` it. This fetches the archive
from the package index pip uses, checks it against the hash pinned here, and keeps it in a
cache; doce_host/image.py puts the module in the board's image beside the app. (A frozen
ESP32 build gets it from micropython-lib instead: firmware/manifest.py.)
"""

import hashlib
import io
import json
import os
import tarfile
import urllib.request
from pathlib import Path

PACKAGE = "micropython-umqtt.simple"
VERSION = "1.3.4"
ARCHIVE = "%s-%s.tar.gz" % (PACKAGE, VERSION)
SHA256 = "b6a2520239e3992c63a7de9370ee9b3d9d27819a90359c521f1c0f7ccab8d12f"
MEMBER = "%s-%s/umqtt/simple.py" % (PACKAGE, VERSION)
TIMEOUT_S = 30


class VendorError(RuntimeError):
    pass


def cache_dir():
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "doce"


def index_url():
    """The index pip itself uses (PIP_INDEX_URL, else pip's default)."""
    url = os.environ.get("PIP_INDEX_URL")
    if not url:
        from pip._internal.models.index import PyPI
        url = PyPI.simple_url
    return url.rstrip("/")


def fetch_archive():
    """The package's archive, checked against SHA256 (the network only when not cached)."""
    cached = cache_dir() / ARCHIVE
    if cached.exists() and hashlib.sha256(cached.read_bytes()).hexdigest() == SHA256:
        return cached.read_bytes()
    name = PACKAGE.replace(".", "-").lower()  # PEP 503 normalised name
    try:
        request = urllib.request.Request("%s/%s/" % (index_url(), name),
                                         headers={"Accept": "application/vnd.pypi.simple.v1+json"})
        with urllib.request.urlopen(request, timeout=TIMEOUT_S) as r:
            files = json.load(r)["files"]
        url = next(f["url"] for f in files if f["filename"] == ARCHIVE)
        with urllib.request.urlopen(url, timeout=TIMEOUT_S) as r:
            data = r.read()
    except (OSError, ValueError, KeyError, StopIteration) as e:
        raise VendorError("cannot fetch %s %s from the package index (%s); the board's MQTT client "
                          "comes from it" % (PACKAGE, VERSION, e)) from None
    if hashlib.sha256(data).hexdigest() != SHA256:
        raise VendorError("%s from the package index is not the one pinned here (sha256 differs)" % ARCHIVE)
    cached.parent.mkdir(parents=True, exist_ok=True)
    cached.write_bytes(data)
    return data


def umqtt_simple():
    """The source of umqtt/simple.py."""
    with tarfile.open(fileobj=io.BytesIO(fetch_archive())) as tar:
        return tar.extractfile(MEMBER).read()
