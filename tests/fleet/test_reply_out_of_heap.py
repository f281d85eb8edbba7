"""A command carried out whose reply does not fit the heap (a split heap has no block the reply's text
needs): the MemoryError came out of the link's handling into the scan (an `error` event), and the host got
no reply at all, so it said the board did not answer, and a person or a program asked again: a second new
match, a second pairing. Now the board answers once, in a short reply of some 200 bytes:
`no_room`, "carried out", and the command's effect stands. SimBoard.no_room makes the reply run out of
heap (the port's own MemoryError), as tests/fleet/test_boot_out_of_heap.py does for a module."""

from fleet_helpers import join, link

from doce_host.protocol import carried_out


def replies_to(sim, **request):
    """Every reply the request got (the protocol: exactly one)."""
    return sim.command(do="send", line="%s\n" % __import__("json").dumps(request)).get("link", [])


def errors(sim):
    return [e for e in sim.take_events() if e["event"] == "error"]


def test_a_new_match_whose_reply_does_not_fit_is_answered_once_and_stands(sim):
    sim.place("c3", "white 4")
    sim.no_room({"doce.link:Link.reply": [1]})  # its first reply: the new match's
    sim.power_on()
    assert sim.state()["board"] == {"c3": "white 4"}
    sim.lift("c3")
    sim.take_events()
    replies = replies_to(sim, cmd="new_match", first="black", id=7)
    assert len(replies) == 1, replies
    reply = replies[0]
    assert reply["re"] == "new_match" and reply["id"] == 7 and not reply["ok"], reply
    assert reply["error"] == "no_room" and reply["message"].startswith("carried out"), reply
    assert carried_out(reply)
    assert errors(sim) == []  # no fault out of the scan
    assert sim.state()["to_move"] == "black"  # the new match, black opening, stands
    assert link(sim, cmd="hello", id=8)["ok"]  # and the link answers on as before


def test_a_pairing_whose_reply_does_not_fit_is_answered_once_and_stands(sim, mosquitto):
    join(sim, mosquitto)
    sim.no_room({"doce.link:Link.reply": [2]})  # hello's, then the pairing's
    sim.power_on()
    checksum = link(sim, cmd="hello")["rules_checksum"]
    replies = replies_to(sim, cmd="remote", peer="b2", colour="white", first="white", match="7f3a01c2",
                         rules_checksum=checksum, id="p")
    assert len(replies) == 1 and replies[0]["error"] == "no_room" and replies[0]["id"] == "p", replies
    assert errors(sim) == []
    for _ in range(2):  # paired, now and after a power cycle, as the reply said
        assert link(sim, cmd="remote")["remote"]["match"] == "7f3a01c2"
        sim.no_room({})
        sim.power_on()


class Answers:
    """A board's side of `remote` requests, as doce_host.fleet.remote sends them: each answered as given."""

    def __init__(self, *replies):
        self.replies = list(replies)
        self.asked = []
        self.port = "/dev/fake"

    def request(self, **r):
        self.asked.append(r)
        return self.replies.pop(0)

    def command(self, board, cmd, timeout=None, pump=None, **r):
        return self.request(cmd=cmd, board=board, **r)


NO_ROOM = {"re": "remote", "ok": False, "error": "no_room", "message": "carried out, but ..."}


def test_the_host_takes_a_pairing_answered_no_room_as_made():
    """doce remote invite/join: a pairing answered no_room is made (the code is given); the organiser's
    pair_on_broker went on to end it on the board told first, and said the pairing failed."""
    from doce_host.fleet.remote import ask, pair_on_broker
    assert ask(Answers(NO_ROOM), {"cmd": "remote", "peer": "b2"}) == NO_ROOM
    hello = {"re": "hello", "ok": True, "rules": "standard", "rules_checksum": "51e68463"}
    room = Answers(hello, hello, {"re": "remote", "ok": True, "remote": {}}, NO_ROOM)
    pair_on_broker(room, "b1", "b2")
    assert [r.get("peer") for r in room.asked if r["cmd"] == "remote"] == ["b2", "b1"]  # no end sent


def test_a_command_by_mqtt_whose_reply_does_not_fit_is_answered_once_and_stands(sim, mosquitto):
    """The same for a command that came through the broker (its reply goes there, doce/net.py reply)."""
    from fleet_helpers import until_scanned

    from doce_host.fleet.room import Room
    join(sim, mosquitto)
    sim.no_room({"doce.link:Link.reply": [1]})  # no reply over USB before it: the command's is the first
    sim.power_on()
    with Room(mosquitto.url) as room:
        assert until_scanned(lambda: room.boards.get("b1") and room.boards["b1"].online, sim)  # (no link asked)
        sim.run(200)  # subscribed to its commands too
        reply = room.command("b1", "new_match", timeout=30, pump=lambda: sim.run(5), first="black")
    assert reply is not None and reply["error"] == "no_room" and carried_out(reply), reply
    assert errors(sim) == []
    assert sim.state()["to_move"] == "black"
