"""A host that sends a burst of requests without waiting for the replies (against the protocol's
"one request, then wait": a buggy host, a noisy cable): every request gets its reply or a `busy`
refusal, with its id, no byte of the burst is lost, the board's memory is its preallocated
output buffer (doce/link.py TX_BUFFER), and the game is as it was."""

import json

import pytest

from casebook import expand
from doce.link import TX_BACKLOG, Link
from hands import ask, events, play, send_raw


def lines(requests):
    return "".join(json.dumps(r, separators=(",", ":")) + "\n" for r in requests)


def port(sim):
    return sim.command(do="port")


def answers(sim, replies, ids, limit=400):
    """Each id's replies, scanning on (hints answer later) until every id has one."""
    got = {}
    for r in replies:
        got.setdefault(r.get("id"), []).append(r)
    for _ in range(limit):
        if all(i in got for i in ids):
            break
        for r in sim.run(50).get("link", []):
            got.setdefault(r.get("id"), []).append(r)
    return got


def check_each_answered_once(got, requests):
    for r in requests:
        replies = got.get(r["id"], [])
        assert len(replies) == 1, (r, replies)
        reply = replies[0]
        assert reply["re"] == r["cmd"], reply
        assert reply["ok"] or reply["error"] == "busy", reply  # its reply, or a refusal that changes nothing
    assert set(got) == {r["id"] for r in requests}, sorted(map(str, got))  # nothing else (no bad_json)


def game(state):
    """The state but its lights: the problem on b2 blinks, so they change with time."""
    return {k: v for k, v in state.items() if k != "leds"}


def mid_round(sim):
    play(sim, [expand(m) for m in ("W c3 4", "B a1 b", "B e5 2", "W a5 3")])
    sim.place("b2", "white 1")  # a problem too: the state grows (about 1 KB)
    events(sim)
    return game(ask(sim, "state")["state"])


@pytest.mark.parametrize("n", [16, 32, 64])
def test_a_burst_of_state_requests_at_rest_gets_a_reply_or_busy_each_and_loses_no_byte(sim, n):
    before = mid_round(sim)
    port(sim)
    requests = [{"cmd": "state", "id": i} for i in range(n)]
    replies = sim.command(do="send", line=lines(requests)).get("link", [])
    got = answers(sim, replies, range(n))
    check_each_answered_once(got, requests)
    assert port(sim)["dropped"] == 0  # the board kept reading: no byte of the burst lost in the ring
    assert got[0][0]["ok"] and game(got[0][0]["state"]) == before  # the first is answered in full
    assert events(sim) == []  # no error event: nothing ran out
    assert game(ask(sim, "state")["state"]) == before


def test_a_burst_of_hint_and_state_requests_mixed(sim):
    before = mid_round(sim)
    port(sim)
    requests = [{"cmd": "hint" if i % 3 == 0 else "state", "id": i} for i in range(40)]
    got = answers(sim, sim.command(do="send", line=lines(requests)).get("link", []), range(40), limit=2000)
    check_each_answered_once(got, requests)
    assert port(sim)["dropped"] == 0
    assert any(got[i][0]["ok"] for i in range(0, 40, 3))  # a hint is thought and answered
    assert [e for e in events(sim) if e["event"] in ("error", "warning")] == []
    assert game(ask(sim, "state")["state"]) == before


def test_a_burst_while_a_die_lands_waits_for_its_light_then_each_is_answered(sim):
    """The requests wait in the ring while the die lands (doce/app.py LANDING_MS): a ring's worth
    (the bytes past it are lost on a real board too, whatever the firmware does), then answered."""
    before = game(ask(sim, "state")["state"])
    events(sim)
    requests = [{"cmd": "state", "id": i} for i in range(10)]  # 230 bytes: fits the 260-byte ring
    port(sim)
    landing = sim.command(do="landing", set=sim.hands.place("c3", "white 4"), traffic=lines(requests))
    got = answers(sim, landing.get("link", []), range(10))
    check_each_answered_once(got, requests)
    assert port(sim)["dropped"] == 0
    assert [e["event"] for e in events(sim)] == ["placed"]
    assert game(ask(sim, "state")["state"])["board"] == dict(before["board"], c3="white 4")


def test_a_flood_past_what_the_board_can_answer_loses_bytes_never_the_game(sim):
    """8 KB of requests at once: more refusals than the output buffer holds. The board stops
    reading until replies have gone out, the ring drops what it cannot hold; every line that
    arrives is answered, nothing runs out, and a host that then waits is answered again."""
    before = mid_round(sim)
    port(sim)
    flood = '{"cmd":"hello"}\n' * 512
    counts = sim.command(do="send", line=flood, summary=True)["link_summary"]
    assert port(sim)["dropped"] > 0
    assert set(counts) <= {"ok hello", "busy", "bad_json", "bad_request"}, counts
    sim.run(2000)
    sim.command(do="send", line="\n")  # a host ends any partial line, as after any loss
    assert [e for e in events(sim) if e["event"] in ("error", "warning")] == []
    assert game(ask(sim, "state")["state"]) == before


@pytest.mark.parametrize("garbage", [
    b"x\n", b"{\n", b"\xff\xfe\n", b'{"cmd":1}\n', b'{"cmd":"nope"}\n', b"[" * 199 + b"\n",
    b"y" * 300 + b"\n",  # longer than a line: line_too_long
], ids=["word", "brace", "not-utf8", "no-cmd", "unknown", "deep", "too-long"])
def test_a_burst_of_garbage_gets_an_error_each_and_changes_nothing(sim, garbage):
    before = mid_round(sim)
    port(sim)
    burst = garbage * (16 if len(garbage) > 100 else 64)  # as many lines as the largest request burst
    replies = send_raw(sim, burst)
    replies += sim.run(2000).get("link", [])
    assert port(sim)["dropped"] == 0
    assert len(replies) == burst.count(b"\n") and all(not r["ok"] and r["error"] for r in replies), replies[:3]
    assert game(ask(sim, "state")["state"]) == before



class Wire:
    def __init__(self):
        self.data = bytearray()

    def write(self, data):
        self.data += data

    def replies(self):
        lines = [json.loads(x) for x in bytes(self.data).splitlines() if x]
        del self.data[:]
        return [x for x in lines if "re" in x]


def test_a_host_that_waits_for_each_reply_is_never_refused():
    """More than TX_BACKLOG of events waits to go out (a journal sent again): a request is still
    carried out, and only one that comes before its reply is out is a burst's, refused."""
    wire = Wire()
    link = Link(None, None, wire, None, None)
    link.send({"event": "journal", "pad": "x" * (2 * TX_BACKLOG)})

    def request(ident):
        for b in b'{"cmd":"nope","id":%d}\n' % ident:
            link._byte(b)

    request(1)
    request(2)  # before 1's reply is out
    link.flush_all()
    assert [(r["id"], r["error"]) for r in wire.replies()] == [(1, "unknown_command"), (2, "busy")]
    link.send({"event": "journal", "pad": "x" * (2 * TX_BACKLOG)})
    request(3)  # its host waited for 2's reply: carried out behind the events
    link.flush_all()
    assert [(r["id"], r["error"]) for r in wire.replies()] == [(3, "unknown_command")]
