"""The firmware as a board runs it: bytecode (.mpy), native code for this machine."""

import subprocess
from pathlib import Path

from conftest import micropython_path

ROOT = Path(__file__).resolve().parent.parent


def precompile(out):
    """Bytecode as a board would run it (.mpy), so the heap holds no compiler state."""
    cross = Path(micropython_path()).with_name("mpy-cross")
    (out / "doce").mkdir(parents=True)
    sources = [(p, out / "doce" / (p.stem + ".mpy")) for p in (ROOT / "firmware" / "doce").glob("*.py")]
    sources.append((ROOT / "bench" / "matches.py", out / "matches.mpy"))
    from doce_host.fleet.vendor import umqtt_simple  # the boards' MQTT client, as the image carries it
    (out / "umqtt").mkdir()
    (out / "umqtt" / "simple.py").write_bytes(umqtt_simple())
    sources.append((out / "umqtt" / "simple.py", out / "umqtt" / "simple.mpy"))
    for src, dst in sources:
        # native code (the viper scan loops) for this machine, as the board's is for its own
        subprocess.run([str(cross), "-march=host", "-o", str(dst), str(src)], check=True)
    return out
