"""Helpers for the fleet tests (a module of its own: every test folder has a conftest)."""

import json
import os

import pytest

from doce_host.fleet.broker import mosquitto_binary



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
