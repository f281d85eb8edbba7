"""Helpers for the fleet tests (a module of its own: every test folder has a conftest)."""

import json
import os
import time

import pytest

from waiting import HARD_CAP_S

from doce_host.fleet.broker import mosquitto_binary

# How long a condition on a lockstep simulated board may take, in the work it needs: its scans (a
# millisecond of its simulated time each). 30 s of it covers a reconnect (doce/mqtt.py RETRY_MS,
# 2 s) many times over; wall time only caps it (HARD_CAP_S), so overloaded cores slow a test but
# do not fail it.
WAIT_SCANS = 30000



def mosquitto_or_skip():
    if not mosquitto_binary():
        if os.environ.get("CI"):  # .ci/run installs it: there, its absence is a failure
            pytest.fail("mosquitto is not installed, and CI must have it (.ci/run)")
        pytest.skip("mosquitto is not installed (Debian package mosquitto; .ci/run installs it)")


def link(sim, **request):
    """A request over the simulated USB port: its one reply."""
    replies = sim.command(do="send", line=json.dumps(request) + "\n").get("link", [])
    assert len(replies) == 1, replies
    return replies[0]


def join(sim, broker, board_id="b1", **mqtt):
    """Set the board's Wi-Fi and broker over USB, as `doce config` does."""
    assert link(sim, cmd="wifi", ssid="club", password="s3cret-wifi")["ok"]
    reply = link(sim, cmd="mqtt", broker=broker.host, port=broker.port, board_id=board_id, **mqtt)
    assert reply["ok"], reply
    return reply


def until_scanned(condition, sim, scans=WAIT_SCANS, step=2):
    """Let the board scan `step` at a time until condition() holds, for at most `scans` scans of
    its time (HARD_CAP_S of wall time at most). condition()'s last value."""
    done, began = 0, time.monotonic()
    while True:
        got = condition()
        if got or done >= scans or time.monotonic() - began > HARD_CAP_S:
            return got
        sim.run(step)
        done += step
