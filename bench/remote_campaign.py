"""Issue 41: the whole power-cut campaign for remote play (`make campaign`; `python bench/remote_campaign.py
[--workers N] [--matches K | --only 10,23]`).

The tests' four-round match played on two simulated boards paired through Mosquitto, the power cut at
every flash write of every step of it on either board, torn and whole, a third of the cuts cut again
at the board's first write as it recovers (tests/fleet/remote_campaign.py says how). A census match
without cuts counts each step's writes; the points are spread over as few matches as may be (each
board cut at most once a step); `--workers` matches run at once, each worker with its own Mosquitto.
Every match must end with both boards holding the same whole match, every play once, scored as the
referee scores it, and after every recovery the board's heap must hold (the largest block free at
least 4 KB, and neither its best nor the free heap after a collection shrinking across the match:
tests/fleet/remote_campaign.py assert_heap_holds). Prints the figures, and exits 1 if any match failed.
`make test` plays one match of it (tests/fleet/test_remote_campaign.py); this, the whole campaign, is run
by hand (`make campaign`), not by CI.
"""

import argparse
import multiprocessing
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
for extra in ("tests", "tests/rules", "tests/board", "tests/fleet"):
    sys.path.insert(0, str(ROOT / extra))


def worker(job):
    """Play these matches (index, cuts) on a Mosquitto of this worker's own: [(index, result)]."""
    from remote_campaign import assert_heap_holds, play

    from doce_host.fleet.broker import Mosquitto
    matches = job
    results = []
    with tempfile.TemporaryDirectory(prefix="doce-campaign-") as folder, \
            Mosquitto(folder=Path(folder) / "broker") as broker:
        for index, cuts in matches:
            began = time.monotonic()
            try:
                match = play(Path(folder) / ("m%d" % index), broker, cuts)
                assert_heap_holds(match.recoveries)
                results.append((index, {"ok": True, "seconds": time.monotonic() - began, "cuts": len(cuts),
                                        "recoveries": match.recoveries}))
            except Exception as e:  # noqa: BLE001  (one line in the report; the other matches go on)
                results.append((index, {"ok": False, "seconds": time.monotonic() - began, "cuts": len(cuts),
                                        "error": "%s: %s (%s)" % (type(e).__name__, str(e)[:2000], where(e))}))
            print("match %d: %s in %.0f s" % (index, "ok" if results[-1][1]["ok"] else "FAILED",
                                               results[-1][1]["seconds"]), flush=True)
    return results


def where(e):
    """The last frames the exception came through, file:line each (an AssertionError's message alone did
    not say which wait of a match it came from)."""
    import traceback
    frames = traceback.extract_tb(e.__traceback__)[-4:]
    return " < ".join("%s:%d" % (Path(f.filename).name, f.lineno) for f in reversed(frames))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2, help="matches at once (default 2)")
    parser.add_argument("--matches", type=int, help="only the first K matches of the campaign")
    parser.add_argument("--only", help="only these matches, by number: 10,23 (as a whole campaign numbers them)")
    args = parser.parse_args(argv)
    from remote_campaign import RECORD, census, fall, points, schedules

    from doce_host.fleet.broker import Mosquitto
    began = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="doce-census-") as folder, \
            Mosquitto(folder=Path(folder) / "broker") as broker:
        writes = census(Path(folder) / "census", broker)
    plan = schedules(writes)
    chosen = [int(i) for i in args.only.split(",")] if args.only else range(len(plan))[:args.matches]
    every = points(writes)
    print("Remote power-cut campaign: the tests' four-round match (%d steps), %d flash writes on b1 and %d on b2 "
          "in a match without cuts; %d cut points (each write torn and whole) over %d matches; %d of them played, %d "
          "workers" % (len(writes), sum(w["b1"] for w in writes), sum(w["b2"] for w in writes), len(every), len(plan),
                       len(chosen), args.workers), flush=True)
    jobs = [[] for _ in range(max(1, args.workers))]
    for n, index in enumerate(chosen):
        jobs[n % len(jobs)].append((index, plan[index]))
    with multiprocessing.Pool(len(jobs)) as pool:
        results = dict(r for done in pool.map(worker, jobs) for r in done)
    failed = {i: r for i, r in results.items() if not r["ok"]}
    done = [rec for r in results.values() if r["ok"] for rec in r["recoveries"] if rec[2] and rec[2]["low"] is not None]
    cuts = sum(r["cuts"] for r in results.values())
    print("%d matches, %d cuts armed, %d recoveries (%d cut again as they recovered), %.0f s (%s, load average "
          "%.1f)" % (len(results), cuts, len(done), sum(rec[3] > 1 for rec in done), time.monotonic() - began,
                     os.uname().machine, os.getloadavg()[0]))
    if done:
        lows, largest = [rec[2]["low"] for rec in done], [rec[2]["largest"] for rec in done]
        print("after each recovery, on the simulator's ESP32-sized heap (64-bit unix port, bytes): least free heap "
              "%d to %d (median %d), largest block free %d to %d (median %d)"
              % (min(lows), max(lows), sorted(lows)[len(lows) // 2], min(largest), max(largest),
                 sorted(largest)[len(largest) // 2]))
        by_round = {}
        for step, _, heap, _ in done:
            by_round.setdefault(round_of(step), []).append(heap)
        falls = {i: fall(r["recoveries"]) for i, r in results.items() if r["ok"]}
        falls = {i: f for i, f in falls.items() if f is not None}
        if falls:
            worst = max(falls, key=falls.get)
            print("  the free heap after a collection fell %d to %d bytes from the first third of a match's recoveries "
                  "to the last (median %d, match %d the most; %d matches with 3 x THIRD recoveries; RECORD allows %d)"
                  % (min(falls.values()), falls[worst], statistics.median(falls.values()), worst, len(falls), RECORD))
        for number in sorted(by_round):
            heaps = by_round[number]
            print("  round %d: %d recoveries, least free heap at worst %d, largest block at worst %d"
                  % (number, len(heaps), min(h["low"] for h in heaps), min(h["largest"] for h in heaps)))
    for index, r in sorted(failed.items()):
        print("match %d FAILED: %s" % (index, r["error"]))
    return 1 if failed else 0


def round_of(step):
    from remote_campaign import steps
    kind, index, _ = steps()[min(step, len(steps()) - 1)]
    return index if kind == "clear" else 1 + sum(index >= n for n in (9, 18, 28))


if __name__ == "__main__":
    sys.exit(main())
