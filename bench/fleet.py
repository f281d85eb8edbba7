"""Figures for a room of boards on MQTT (issue 11): printed, never asserted.

    python bench/fleet.py [--max-boards N] [--counts 1,8,32] [--placements K] [--die-every S]

As in a room, each part runs in a process of its own: the boards (the real firmware in the
MicroPython unix port, simulated by doce sim's SerialSim), Mosquitto, the tournament page
(`doce fleet web`, the real command), a viewer's page reader and an organiser's Room
(bench/fleet_watch.py). This process only works out the dice's fields and puts them down.

- the CPU an idle simulated board costs, on USB alone and on Wi-Fi + MQTT, and its scans/s;
- at growing numbers of boards (1, 2, 4, 8, 16, 24, 32, 40...): whether they run in real time,
  die to organiser and die to page p50/p99, messages per second through Mosquitto (its $SYS
  counters; publishes in as the Room hears them), and where the machine's CPU went;
- at the most boards run in real time, those figures again, and on paper the boards one
  Mosquitto serves at a tournament's pace, with the assumptions and where they come from.

Real time: every board scans at least REAL_TIME of the rate of a board alone (the first room),
idle and while a die lands on each board every DIE_EVERY_S (the boards' turns spread evenly):
a board short of CPU falls behind its scans; and every die goes down within ON_TIME of its turn
of its time: a room whose hands fall behind its dice is not played in real time either.

A die's time starts when its readings go to the board (SerialSim.moved_at: the fields are worked
out by then, as a real die's are by physics) and ends when the Room hands its event over, or when
the page reader's answer showing it is all in (as the page's script has it).
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from doce_host.fleet.broker import Mosquitto, mosquitto_binary, parse_url  # noqa: E402
from doce_host.fleet.room import Room  # noqa: E402
from doce_host.fleet.simroom import SimRoom, mac_of  # noqa: E402
from doce_host.paths import load_board, tool  # noqa: E402
from doce_host.sim.serial_sim import SerialSim  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")
CORES = os.cpu_count()
WATCH = str(ROOT / "bench" / "fleet_watch.py")

CELLS = ["a1", "c1", "e1", "a3", "c3", "e3", "a5", "c5", "e5"]
DIE_EVERY_S = 2.0  # a die on each board this often while the room is timed: 5x TOURNAMENT_DIE_S's pace
TOURNAMENT_DIE_S = 10  # on paper: a die every 10 s on each board in play (assumed)
PACE_S = 3.0  # the idle window over which each board's scans are counted
REAL_TIME = 0.95  # a board keeps real time if it scans at least this share of a lone board's rate
ON_TIME = 0.1  # and the dice keep theirs if each goes down within this share of a turn of its time
GOAL_BOARDS, GOAL_MS = 32, 100.0
# Mosquitto's $SYS counters (mosquitto(8), "Broker Status"), published every second here
SYS = {"$SYS/broker/publish/messages/received": "in", "$SYS/broker/publish/messages/sent": "out",
       "$SYS/broker/messages/received": "packets in", "$SYS/broker/messages/sent": "packets out"}


def wait_until(condition, timeout):
    """condition()'s value once true, or its last after `timeout` wall seconds: a benchmark's
    deadline is the wall clock it measures (the tests count a core's time: tests/waiting.py)."""
    deadline = time.monotonic() + timeout
    while not (value := condition()) and time.monotonic() < deadline:
        time.sleep(0.02)
    return value

def cpu_seconds(pid):
    try:
        fields = Path("/proc/%d/stat" % pid).read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / TICK  # utime + stime (proc(5))


def machine_busy():
    """CPU seconds the whole machine has been busy (every core, every user): /proc/stat."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    return (sum(fields[:8]) - fields[3] - fields[4]) / TICK  # all but idle and iowait


def idle_share(process, seconds=5.0):
    before = cpu_seconds(process.pid)
    time.sleep(seconds)
    return (cpu_seconds(process.pid) - before) / seconds


def idle_cost(url, folder):
    loop = (ROOT / "firmware" / "doce" / "esp32.py").read_text()  # it imports machine: read, not imported
    IDLE_AFTER_MS = int(re.search(r"^IDLE_AFTER_MS = (\d+)", loop, re.M).group(1))
    IDLE_MS = load_board().idle_scan_period_ms
    settle = IDLE_AFTER_MS / 1000 + 1  # past the quiet second after which the board scans at its idle pace
    with SerialSim(Path(folder) / "alone", module="wrover") as sim:  # on Wi-Fi: PSRAM
        time.sleep(settle)
        alone = idle_share(sim.process)
    with Room(url) as room, SimRoom(1, url, folder=Path(folder) / "room") as sims:
        wait_until(lambda: room.boards.get(mac_of(1)) and room.boards[mac_of(1)].online, 30)
        time.sleep(settle)
        board = sims.boards[0]
        scans, began = board.debug_state()["scans"], time.monotonic()
        networked = idle_share(board.process)
        pace = (board.debug_state()["scans"] - scans) / (time.monotonic() - began)
    print("  an idle simulated board: %.1f%% of a core on USB alone, %.1f%% on Wi-Fi + MQTT, %.0f scans/s (%d ms "
          "asleep between scans after a quiet %.0f s: board.json, doce/esp32.py)"
          % (alone * 100, networked * 100, pace, IDLE_MS, IDLE_AFTER_MS / 1000))
    return pace


class Watcher:
    """A process printing JSON lines (fleet_watch.py, doce fleet web --json); keeps them."""

    def __init__(self, args):
        self.lines = []
        self.seen = threading.Condition()
        self.process = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL, text=True)
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.process.stdout:
            try:
                fields = json.loads(line)
            except ValueError:
                continue
            with self.seen:
                self.lines.append(fields)
                self.seen.notify_all()

    def wait(self, test, timeout):
        """The first line that passes test(line), waiting at most `timeout` s; or None."""
        deadline = time.monotonic() + timeout
        looked = 0
        with self.seen:
            while True:
                for line in self.lines[looked:]:
                    if test(line):
                        return line
                looked = len(self.lines)
                left = deadline - time.monotonic()
                if left <= 0 or not self.seen.wait(left):
                    return next((x for x in self.lines[looked:] if test(x)), None)

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()


class BrokerCounters:
    """Mosquitto's $SYS message counters (sys_interval 1). It sends only the values that changed,
    once a second; "messages sent" changes every time, counting what it sends us."""

    def __init__(self, url):
        import paho.mqtt.client as mqtt
        self.latest = {}
        self.heard = 0  # $SYS messages sent to us: not the room's
        self.round = threading.Condition()
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
        self.client.on_message = self._message
        self.client.on_connect = lambda c, *a: c.subscribe([(topic, 0) for topic in SYS])
        self.client.connect(*parse_url(url))
        self.client.loop_start()

    def _message(self, client, userdata, msg):
        with self.round:
            self.heard += 1
            try:
                self.latest[SYS[msg.topic]] = int(msg.payload)
            except (KeyError, ValueError):
                return
            if SYS[msg.topic] == "packets out":
                self.round.notify_all()

    def snapshot(self):
        """The counters as of now (once Mosquitto's next second has been sent), less what was sent to us."""
        with self.round:
            self.round.wait(3)
        time.sleep(0.05)  # the rest of that second's values
        with self.round:
            values = dict(self.latest)
            values["out"] = values.get("out", 0) - self.heard
            values["packets out"] = values.get("packets out", 0) - self.heard
            return values

    @staticmethod
    def rates(before, after, seconds):
        return {name: (after[name] - before.get(name, 0)) / seconds for name in after}

    def close(self):
        self.client.loop_stop()
        self.client.disconnect()


def percentile(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(len(values) * q))] if values else float("inf")


def room_run(url, count, folder, counters, broker_pid, placements, die_every):
    """One room of `count` boards: its pace, latencies, broker rates and CPU. A dict."""
    python = sys.executable
    organiser = Watcher([python, WATCH, "room", url])
    web = reader = None
    try:
        if not organiser.wait(lambda x: x == ["ready"], 20):
            return {"error": "the organiser's Room did not connect"}
        with SimRoom(count, url, folder=folder) as sims:
            ids = [mac_of(n + 1) for n in range(count)]
            web = Watcher([tool("doce"), "fleet", "web", "--broker", url, "--http", "0", "--json"])
            page = web.wait(lambda x: isinstance(x, dict) and "url" in x, 30)
            if not page:
                return {"error": "doce fleet web did not start"}
            reader = Watcher([python, WATCH, "page", page["url"]])
            online = lambda: {x[1] for x in organiser.lines if x[0] == "online"}  # noqa: E731
            if not wait_until(lambda: online() >= set(ids), 60):
                return {"error": "they did not all come online within 60 s"}
            time.sleep(2.0)  # past the quiet second: every board at its idle pace
            scans = [s.debug_state()["scans"] for s in sims.boards]
            began = time.monotonic()
            time.sleep(PACE_S)
            pace = [(s.debug_state()["scans"] - n) / (time.monotonic() - began) for s, n in zip(sims.boards, scans)]
            pids = {"boards": [s.process.pid for s in sims.boards], "page (doce fleet web)": [web.process.pid],
                    "organiser's Room": [organiser.process.pid], "page reader": [reader.process.pid],
                    "this bench (fields, serial bridges)": [os.getpid()]}
            pids["Mosquitto"] = [broker_pid]
            cpu0 = {k: sum(cpu_seconds(p) for p in v) for k, v in pids.items()}
            msgs0 = counters.snapshot()
            busy0, t0 = machine_busy(), time.monotonic()
            # every board a die each `die_every` s, the boards' turns spread evenly over it; each board's
            # scans are counted at its first die and a turn after its last: its pace while dice land
            schedule = sorted((t0 + 0.2 + k * die_every + n * die_every / count, k, n)
                              for k in range(placements + 1) for n in range(count))
            placed = []  # (board id, cell, piece, when its readings went)
            late = []
            counted = {}  # board -> [(when, scans)]
            for when, k, n in schedule:
                time.sleep(max(0.0, when - time.monotonic()))
                sim = sims.boards[n]
                if k in (0, placements):
                    counted.setdefault(n, []).append((time.monotonic(), sim.debug_state()["scans"]))
                if k == placements:
                    continue
                colour = "white" if k % 2 == 0 else "black"
                cell, piece = CELLS[k * 3 % len(CELLS)], "%s %d" % (colour, 1 + (n + k) % 6)
                sim.place(cell, piece)
                placed.append((ids[n], cell, piece, sim.moved_at))
                late.append(sim.moved_at - when)
            playing = [(b[1] - a[1]) / (b[0] - a[0]) for a, b in counted.values()]
            organiser.wait(lambda x: x[0] == "placed" and x[2:] == list(placed[-1][:2]), 5)
            # the rates while dice go down, before the last answers are waited for
            busy1, t1 = machine_busy(), time.monotonic()
            cpu1 = {k: sum(cpu_seconds(p) for p in v) for k, v in pids.items()}
            shown = lambda p: next((x[1] for x in reader.lines  # noqa: E731
                                    if x[0] == "shown" and x[2:] == list(p[:3]) and x[1] >= p[3]), None)
            wait_until(lambda: all(shown(p) for p in placed), 5)
            msgs1 = counters.snapshot()  # every message the dice made has passed by now
            # Mosquitto's count of publishes received leaves out QoS 0 ones: the Room, which hears every
            # board's message, counts them instead
            msgs1["in"] = msgs0["in"] = 0
            msgs1["in"] = sum(1 for x in organiser.lines if x[0] == "message" and x[1] >= t0)
            arrived = {(x[2], x[3]): x[1] for x in organiser.lines if x[0] == "placed"}
            to_room = [arrived[p[:2]] - p[3] for p in placed if p[:2] in arrived]
            to_page = [shown(p) - p[3] for p in placed if shown(p)]
            answers = [x for x in reader.lines if x[0] == "answer" and t0 <= x[1] <= t1]
            return {"count": count, "pace": pace, "playing": playing, "to_room": to_room, "to_page": to_page,
                    "missed_room": len(placed) - len(to_room), "missed_page": len(placed) - len(to_page),
                    "dice": len(placed), "seconds": t1 - t0, "late": max(late), "die_every": die_every,
                    "broker": BrokerCounters.rates(msgs0, msgs1, t1 - t0),
                    "cpu": {k: (cpu1[k] - cpu0[k]) / (t1 - t0) for k in pids},
                    "busy": (busy1 - busy0) / (t1 - t0),
                    "answers": (len(answers) / (t1 - t0), statistics.mean(a[2] for a in answers) if answers else 0)}
    finally:
        for w in (reader, web, organiser):
            if w:
                w.stop()


def report(r, lone):
    """Prints a room's figures; whether it ran in real time: every board scanned at least REAL_TIME
    of the rate of a board alone (lone: its r), idle and while its dice landed, and every die went
    down within ON_TIME of a turn of its time."""
    ms = lambda v: v * 1000  # noqa: E731
    idle, playing = statistics.mean(lone["pace"]), statistics.mean(lone["playing"])
    real = (min(r["pace"]) >= REAL_TIME * idle and min(r["playing"]) >= REAL_TIME * playing
            and r["late"] <= ON_TIME * r["die_every"])
    print("  %2d boards: %s real time: scans/s per board idle %.0f-%.0f, with a die every %.1f s %.0f-%.0f (a board "
          "alone: %.0f, %.0f); %.1f dice/s in all, each down %.0f ms after its time at the latest (%.0f allowed)"
          % (r["count"], "in" if real else "NOT in", min(r["pace"]), max(r["pace"]), r["die_every"], min(r["playing"]),
             max(r["playing"]), idle, playing, r["count"] / r["die_every"], r["late"] * 1000,
             ON_TIME * r["die_every"] * 1000))
    print("             die to organiser p50 %5.1f ms, p99 %5.1f ms; die to page p50 %5.1f ms, p99 %5.1f ms (%d dice%s)"
          % (ms(statistics.median(r["to_room"])) if r["to_room"] else float("inf"), ms(percentile(r["to_room"], 0.99)),
             ms(statistics.median(r["to_page"])) if r["to_page"] else float("inf"), ms(percentile(r["to_page"], 0.99)),
             r["dice"], "; %d never at the organiser, %d never on the page within 5 s"
             % (r["missed_room"], r["missed_page"]) if r["missed_room"] or r["missed_page"] else ""))
    b = r["broker"]
    print("             Mosquitto: %.0f messages/s in, %.0f out (%.0f MQTT packets/s in, %.0f out); page: %.1f "
          "answers/s of %.0f KB" % (b.get("in", 0), b.get("out", 0), b.get("packets in", 0), b.get("packets out", 0),
                                    r["answers"][0], r["answers"][1] / 1024))
    cpu = r["cpu"]
    ours = sum(cpu.values())
    print("             CPU (cores, of %d): %s; other users %.2f"
          % (CORES, ", ".join("%s %.2f" % (k, v) for k, v in cpu.items()), max(0.0, r["busy"] - ours)))
    return real


def broker_load(url, pid, dice=3000, boards=16, subscribers=2):
    """Mosquitto's CPU per die here, each die a room's: an event (QoS 1, ~130 bytes) and a retained
    state (QoS 0, ~750 bytes) from one of `boards` clients, each to `subscribers` Rooms (QoS 1
    subscriptions, as doce fleet's). Sent as fast as paho here can: (dice/s, Mosquitto CPU s a die,
    Mosquitto's share of a core meanwhile)."""
    import paho.mqtt.client as mqtt
    host, port = parse_url(url)
    got = [0]
    done = threading.Event()
    want = dice * 2 * subscribers

    def on_message(client, userdata, msg):
        got[0] += 1
        if got[0] >= want:
            done.set()
    clients = []
    for n in range(subscribers):
        c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
        c.on_message = on_message
        c.connect(host, port)
        c.subscribe("load/+/+", qos=1)
        c.loop_start()
        clients.append(c)
    pubs = []
    for n in range(boards):
        c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
        c.max_queued_messages_set(0)
        c.connect(host, port)
        c.loop_start()
        pubs.append(c)
    time.sleep(1.0)
    event, state = b'{"event": "placed"}'.ljust(130), b'{"state": {}}'.ljust(750)
    cpu, began = cpu_seconds(pid), time.monotonic()
    for k in range(dice):
        c = pubs[k % boards]
        c.publish("load/b%d/events" % (k % boards), event, qos=1)
        c.publish("load/b%d/state" % (k % boards), state, qos=0, retain=True)
        while k - got[0] / (2 * subscribers) > 100 and time.monotonic() - began < 60:  # within Mosquitto's queues
            time.sleep(0.001)
    done.wait(60)
    took = time.monotonic() - began
    used = cpu_seconds(pid) - cpu
    for c in clients + pubs:
        c.disconnect()
        c.loop_stop()
    counted = got[0] / (2 * subscribers)
    return counted / took, used / max(counted, 1), used / took


def rss_kb(pid):
    for line in Path("/proc/%d/status" % pid).read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def mqtt_packet(kind, body):
    size, length = len(body), bytearray()
    while True:
        length.append(size & 0x7F | (0x80 if size > 127 else 0))
        size >>= 7
        if not size:
            return bytes([kind]) + bytes(length) + body


def mqtt_text(text):
    data = text.encode()
    return len(data).to_bytes(2, "big") + data


def memory_per_board(url, pid, count=400):
    """Mosquitto's memory (KB) per board-like client: connected, subscribed to its cmd, with a
    retained state of ~750 bytes and a retained status, as a board leaves them."""
    import socket
    host, port = parse_url(url)
    before = rss_kb(pid)
    socks = []
    try:
        for n in range(count):
            s = socket.create_connection((host, port), timeout=10)
            ident = "mem%04d" % n
            s.sendall(mqtt_packet(0x10, mqtt_text("MQTT") + bytes([4, 2, 0, 60]) + mqtt_text(ident)))
            s.recv(4)  # CONNACK
            s.sendall(mqtt_packet(0x82, (1).to_bytes(2, "big") + mqtt_text("mem/%s/cmd" % ident) + b"\x01"))
            s.recv(5)  # SUBACK
            s.sendall(mqtt_packet(0x31, mqtt_text("mem/%s/state" % ident) + b"s" * 750))
            s.sendall(mqtt_packet(0x31, mqtt_text("mem/%s/status" % ident) + b"o" * 80))
            socks.append(s)
        time.sleep(1.0)
        return (rss_kb(pid) - before) / count, count
    finally:
        for s in socks:
            s.close()


def on_paper(best, load, memory):
    """Boards one Mosquitto serves at a tournament's pace: the arithmetic, each input with its source."""
    import resource
    r = best["broker"]
    per_die_in = r.get("in", 0) * best["seconds"] / best["dice"]  # publishes from the boards, per die here
    per_die_out = r.get("out", 0) * best["seconds"] / best["dice"]
    rate, cpu_per_die, share = load
    kb, clients = memory
    files = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    threads = len(list(Path("/proc/%d/task" % best["broker_pid"]).iterdir()))
    print("  on paper, boards one Mosquitto serves at a tournament's pace:")
    print("    - a die every %d s on each board in play (assumed; a round is at most 24 placements, 11 dice and a "
          "blocker each: docs/rules.md) and %.1f messages in, %.1f out per die (measured above: the event and the "
          "retained state, to each of %d subscribers)" % (TOURNAMENT_DIE_S, per_die_in, per_die_out,
                                                            round(per_die_out / per_die_in) if per_die_in else 0))
    boards_cpu = TOURNAMENT_DIE_S / cpu_per_die if cpu_per_die else float("inf")
    print("    - CPU: %.0f us of Mosquitto's a die with 2 subscribers (measured here: %.0f dice/s from 16 clients, "
          "Mosquitto at %.0f%% of a core; it runs %d thread: /proc/PID/task): one core serves %.0f boards"
          % (cpu_per_die * 1e6, rate, share * 100, threads, boards_cpu))
    print("    - memory: %.1f KB a board (measured here, %d clients each with its cmd subscription, retained state "
          "and status): %.0f boards a GB" % (kb, clients, 1024 * 1024 / kb if kb > 0 else float("inf")))
    print("    - sockets: one a board; %d open files for this user here (ulimit -n), Mosquitto's max_connections "
          "unlimited by default (mosquitto.conf(5))" % files)
    print("    - Wi-Fi, met first: an access point associates 32-50 clients on small models (Linksys WCG200 32, "
          "Ruckus ZoneFlex 2925 50: searchnetworking.techtarget.com, 'How many wireless devices can connect to an "
          "802.11g access point?') up to about 200 a radio as enterprise data sheets list (abstechnology.com, 'The 2 "
          "most common misconceptions with access points', 2019); a board's traffic is a few hundred bytes a die, "
          "so associations, not airtime, decide")
    print("    => one Mosquitto on one core serves every board a tournament has (%d by CPU, %d by a GB of memory, "
          "%d by sockets here); the room needs an access point per 30-200 boards"
          % (boards_cpu, 1024 * 1024 / kb if kb > 0 else 0, files))


def fleet_figures(max_boards=64, counts=None, placements=5, die_every=DIE_EVERY_S):
    print("A room of boards on MQTT (issue 11); machine: %d cores, load average %s (shared with other users)"
          % (CORES, " ".join(Path("/proc/loadavg").read_text().split()[:3])))
    if not mosquitto_binary():
        print("  (mosquitto is not installed: Debian package mosquitto)")
        return
    with tempfile.TemporaryDirectory() as tmp, \
            Mosquitto(folder=Path(tmp) / "broker", extra=["sys_interval 1"]) as broker:
        idle_cost(broker.url, tmp)
        counters = BrokerCounters(broker.url)
        counts = counts or [n for n in (1, 2, 4, 8, 16, 24, 32, 40, 48, 56, 64) if n <= max_boards]
        counts = counts if counts[0] == 1 else [1] + counts  # a board alone: the pace the others are held to
        best = lone = at_goal = None
        for count in counts:
            r = room_run(broker.url, count, Path(tmp) / ("n%d" % count), counters, broker.process.pid, placements,
                         die_every)
            if "error" in r:
                print("  %2d boards: %s" % (count, r["error"]))
                break
            lone = lone or r
            if not report(r, lone):
                break
            best = r
            at_goal = r if count == GOAL_BOARDS else at_goal
        counters.close()
        if best is None:
            print("  no room ran in real time here")
            return
        page99 = percentile(best["to_page"], 0.99) * 1000
        print("  the most simulated boards run in real time here: %s%d (goal %d on 2 cores: %s); at that count die to"
              " page p50 %.1f ms, p99 %.1f ms (goal p99 <= %d ms: %s); die to organiser p50 %.1f ms, p99 %.1f ms;"
              " %.0f messages/s through Mosquitto (in + out)"
              % ("at least " if best["count"] == counts[-1] else "", best["count"], GOAL_BOARDS,
                 "met" if best["count"] >= GOAL_BOARDS else "NOT met",
                 statistics.median(best["to_page"]) * 1000, page99, GOAL_MS, "met" if page99 <= GOAL_MS else "NOT met",
                 statistics.median(best["to_room"]) * 1000, percentile(best["to_room"], 0.99) * 1000,
                 best["broker"].get("in", 0) + best["broker"].get("out", 0)))
        if at_goal and at_goal is not best:  # the goal's count too: the most is where the machine runs out
            page99 = percentile(at_goal["to_page"], 0.99) * 1000
            print("  at the goal's %d boards: die to page p50 %.1f ms, p99 %.1f ms (goal p99 <= %d ms: %s); die to"
                  " organiser p50 %.1f ms, p99 %.1f ms" % (GOAL_BOARDS, statistics.median(at_goal["to_page"]) * 1000,
                                                          page99, GOAL_MS, "met" if page99 <= GOAL_MS else "NOT met",
                                                          statistics.median(at_goal["to_room"]) * 1000,
                                                          percentile(at_goal["to_room"], 0.99) * 1000))
        best["broker_pid"] = broker.process.pid
        on_paper(best, broker_load(broker.url, broker.process.pid), memory_per_board(broker.url, broker.process.pid))


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--max-boards", type=int, default=64)
    p.add_argument("--counts", help="board counts to run, e.g. 1,16,32 (default: 1 2 4 8 16 24 32 40 48 56 64)")
    p.add_argument("--placements", type=int, default=5, help="dice per board (default 5)")
    p.add_argument("--die-every", type=float, default=DIE_EVERY_S, metavar="S",
                   help="seconds between two dice on one board (default %g)" % DIE_EVERY_S)
    a = p.parse_args()
    fleet_figures(a.max_boards, [int(n) for n in a.counts.split(",")] if a.counts else None, a.placements,
                  a.die_every)
