"""A friend's board that leaves, or was paired with another code, is never silent (issue 41, 4 and 5):
a board that leaves the match while off the broker tells its friend once it is back (a power cut in
between included), and boards paired with a stale or crossed code each say so once, in words for the
player, instead of both waiting, "not connected", for ever. Two simulated boards on a real Mosquitto."""


import pytest
from fleet_helpers import link
from remote_helpers import Pair, retained

WAIT_S = 60


@pytest.fixture
def pair(tmp_path, mosquitto):
    p = Pair(tmp_path, mosquitto)
    yield p
    p.close()


def warnings_on(pair, sim, words, count=1):
    """The warnings `sim` sends that hold `words`, once there are `count` (or the wait is over)."""
    heard = []

    def enough():
        heard.extend(e["message"] for e in sim.take_events() if e["event"] == "warning" and words in e["message"])
        return len(heard) >= count
    pair.until(enough)
    return heard


@pytest.mark.parametrize("cut", [False, True], ids=["back", "cut then back"])
def test_a_board_that_leaves_while_off_the_broker_tells_its_friend_once_back(pair, mosquitto, cut):
    """Issue 41, 4: `remote end` over USB with the Wi-Fi down sent nothing, and the friend's board
    showed it connected for ever."""
    pair.pair()
    pair.play(pair.a, "c3", "white 4")
    pair.b.command(do="wifi", up=False)
    assert link(pair.b, cmd="remote", peer=None)["remote"] is None  # doce remote end, over USB
    if cut:  # and the power goes before the Wi-Fi is back: the news waits in its flash
        pair.b.cut_power()
        pair.b.power_on()
    pair.b.command(do="wifi", up=True)
    heard = warnings_on(pair, pair.a, "left this match")
    assert len(heard) == 1 and "b2" in heard[0], heard
    assert not pair.remote(pair.a)["connected"]
    pair.pump(500)
    assert not [e for e in pair.a.take_events() if e["event"] == "warning" and "left" in e["message"]]  # once
    assert link(pair.b, cmd="remote")["remote"] is None
    assert sorted(retained(mosquitto)) == []  # the news read, the friend cleared it


def test_a_stale_code_joined_after_a_second_invitation_is_said_on_both_boards(pair, mosquitto):
    """Issue 41, 5: a board invites twice and its friend joins the first code: the two sat in
    different matches, both "not connected", with no warning."""
    checksum = link(pair.a, cmd="hello")["rules_checksum"]
    for match in ("11111111", "22222222"):
        assert link(pair.a, cmd="remote", peer="b2", colour="white", match=match, rules_checksum=checksum,
                    invite=True)["ok"]
    assert link(pair.b, cmd="remote", peer="b1", colour="black", match="11111111", rules_checksum=checksum)["ok"]
    heard = {sim: warnings_on(pair, sim, "pair the two again") for sim in (pair.a, pair.b)}
    pair.pump(500)
    for sim, friend in ((pair.a, "b2"), (pair.b, "b1")):
        heard[sim] += [e["message"] for e in sim.take_events() if e["event"] == "warning"
                       and "pair the two again" in e["message"]]
        assert heard[sim] and all(friend in words for words in heard[sim]), heard[sim]
        assert len(set(heard[sim])) == len(heard[sim]), heard[sim]  # each said once
        assert not pair.remote(sim)["connected"]


def test_crossed_codes_are_said_on_both_boards(pair):
    """Each board invites the other, and each joins the other's code: both left one match for the
    other, and each is told."""
    checksum = link(pair.a, cmd="hello")["rules_checksum"]
    assert link(pair.a, cmd="remote", peer="b2", colour="white", match="33333333", rules_checksum=checksum,
                invite=True)["ok"]
    assert link(pair.b, cmd="remote", peer="b1", colour="white", match="44444444", rules_checksum=checksum,
                invite=True)["ok"]
    assert link(pair.a, cmd="remote", peer="b2", colour="black", match="44444444", rules_checksum=checksum)["ok"]
    assert link(pair.b, cmd="remote", peer="b1", colour="black", match="33333333", rules_checksum=checksum)["ok"]
    for sim, friend in ((pair.a, "b2"), (pair.b, "b1")):
        heard = warnings_on(pair, sim, "pair the two again")
        assert heard and friend in heard[0], heard
        assert not pair.remote(sim)["connected"]
