"""Figures for a room of boards on MQTT (issue 11): printed, never asserted.

    python bench/fleet.py [--max-boards N]

- the CPU an idle simulated board costs, on USB alone and on Wi-Fi + MQTT;
- die-to-organiser latency (a die lands on a simulated board -> the event reaches a Room),
  p50/p99, at growing numbers of boards, up to the most this machine keeps within 100 ms;
- the messages per second Mosquitto carried meanwhile, and its ceiling on this machine
  (one publisher, one subscriber, QoS 0), hence on paper the boards one Mosquitto serves.
"""

import argparse
import os
import random
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from doce_host.fleet.broker import Mosquitto, mosquitto_binary  # noqa: E402
from doce_host.fleet.room import Room, wait_until  # noqa: E402
from doce_host.fleet.simroom import SimRoom, mac_of  # noqa: E402
from doce_host.sim.serial_sim import SerialSim  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")
CELLS = ["a1", "c1", "e1", "a3", "c3", "e3", "a5", "c5", "e5"]
# A tournament's rate, per board: a placement about every 10 s of play, and with it one event
# and one retained state (net.py sends the state at most twice a second, once per change here).
MSGS_PER_BOARD_S = 2 / 10


def cpu_seconds(pid):
    fields = Path("/proc/%d/stat" % pid).read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK  # utime + stime (proc(5))


def idle_share(process, seconds=5.0):
    before = cpu_seconds(process.pid)
    time.sleep(seconds)
    return (cpu_seconds(process.pid) - before) / seconds


def idle_cost(url, folder):
    import re
    loop = (ROOT / "firmware" / "doce" / "esp32.py").read_text()  # it imports machine: read, not imported
    IDLE_AFTER_MS, IDLE_MS = (int(re.search(r"^%s = (\d+)" % name, loop, re.M).group(1))
                              for name in ("IDLE_AFTER_MS", "IDLE_MS"))
    settle = IDLE_AFTER_MS / 1000 + 1  # past the quiet second after which the board scans at its idle pace
    with SerialSim(Path(folder) / "alone") as sim:
        time.sleep(settle)
        alone = idle_share(sim.process)
    with Room(url) as room, SimRoom(1, url, folder=Path(folder) / "room") as sims:
        wait_until(lambda: room.boards.get(mac_of(1)) and room.boards[mac_of(1)].online, 30)
        time.sleep(settle)
        networked = idle_share(sims.boards[0].process)
    print("  an idle simulated board: %.1f%% of a core on USB alone, %.1f%% on Wi-Fi + MQTT (a scan every %d ms "
          "after a quiet %.0f s: doce/esp32.py)" % (alone * 100, networked * 100, IDLE_MS, IDLE_AFTER_MS / 1000))


def latencies(url, count, folder, placements=3):
    """Die-to-Room times (s) at `count` boards: each board gets `placements` dice, round robin."""
    got = {}
    arrived = threading.Condition()
    with Room(url) as room, SimRoom(count, url, folder=folder) as sims:
        ids = [mac_of(n + 1) for n in range(count)]
        if not wait_until(lambda: all(room.boards.get(i) and room.boards[i].online for i in ids), 60):
            return None, 0
        original = room._on_message

        def timed(client, userdata, msg):
            original(client, userdata, msg)
            if msg.topic.endswith("/events") and b'"placed"' in msg.payload:
                with arrived:
                    got.setdefault(msg.topic.split("/")[-2], []).append(time.monotonic())
                    arrived.notify_all()
        room.client.on_message = timed
        times = []
        start_msgs = room_messages(room)
        began = time.monotonic()
        rnd = random.Random(1)
        for k in range(placements):
            for n, sim in enumerate(sims.boards):
                ident = ids[n]
                had = len(got.get(ident, []))
                colour = "white" if k % 2 == 0 else "black"
                t0 = time.monotonic()
                sim.place(CELLS[k * 3 % len(CELLS)], "%s %d" % (colour, rnd.randint(1, 6)))
                with arrived:
                    arrived.wait_for(lambda: len(got.get(ident, [])) > had, timeout=5)
                if len(got.get(ident, [])) > had:
                    times.append(got[ident][had] - t0)
        rate = (room_messages(room) - start_msgs) / (time.monotonic() - began)
        return times, rate


def room_messages(room):
    with room.lock:
        return sum(len(b.events) for b in room.boards.values())


def ceiling(url, messages=20000):
    """Messages/s one Mosquitto carries here: one publisher, one subscriber, QoS 0, 100 bytes."""
    import paho.mqtt.client as mqtt
    from doce_host.fleet.broker import parse_url
    host, port = parse_url(url)
    done = threading.Event()
    count = [0]

    def on_message(c, u, m):
        count[0] += 1
        if count[0] >= messages:
            done.set()
    sub = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
    sub.on_message = on_message
    sub.connect(host, port)
    sub.subscribe("bench/#")
    sub.loop_start()
    pub = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
    pub.connect(host, port)
    pub.loop_start()
    time.sleep(0.5)
    began = time.monotonic()
    payload = b"x" * 100
    for _ in range(messages):
        pub.publish("bench/t", payload)
    done.wait(60)
    rate = count[0] / (time.monotonic() - began)
    pub.loop_stop()
    sub.loop_stop()
    return rate


def fleet_figures(max_boards=32):
    print("A room of boards on MQTT (issue 11)")
    if not mosquitto_binary():
        print("  (mosquitto is not installed: Debian package mosquitto)")
        return
    with tempfile.TemporaryDirectory() as tmp, Mosquitto(folder=Path(tmp) / "broker") as broker:
        idle_cost(broker.url, tmp)
        best = None
        count = 1
        while count <= max_boards:
            times, rate = latencies(broker.url, count, Path(tmp) / ("n%d" % count))
            if not times:
                print("  %2d boards: they did not all come online within 60 s" % count)
                break
            times.sort()
            p50 = statistics.median(times) * 1000
            p99 = times[min(len(times) - 1, int(len(times) * 0.99))] * 1000
            print("  %2d boards: die to organiser p50 %5.1f ms, p99 %5.1f ms (%d dice); %.0f events/s through "
                  "Mosquitto" % (count, p50, p99, len(times), rate))
            if p99 > 100:
                break
            best = count
            count *= 2
        print("  the most simulated boards kept within p99 100 ms here: %s (goal 32 on 2 cores)" % best)
        top = ceiling(broker.url)
        print("  Mosquitto's ceiling here: %.0f messages/s (QoS 0, 100 bytes, one publisher and subscriber)" % top)
        import resource
        files = resource.getrlimit(resource.RLIMIT_NOFILE)[0]  # one socket per board
        print("  on paper, at %.1f messages/s per board in play: the message rate allows %d boards; the limit is "
              "first a socket each (%d open files for this user here: ulimit -n)"
              % (MSGS_PER_BOARD_S, top / MSGS_PER_BOARD_S, files))


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--max-boards", type=int, default=32)
    fleet_figures(p.parse_args().max_boards)
