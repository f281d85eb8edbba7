"""The power-cut campaign for remote play (tests/fleet/remote_campaign.py; issue 41), as `make test`
runs it: a whole four-round remote match with a cut at every step on both boards, at the step's
first or second flash write, torn and whole in turn, a third of them cut again as the board
recovers; both boards finish with the same whole match, every play once, and the heap after each
recovery neither runs short nor shrinks across the match. The whole campaign (every write of every
step: some 1,700 cuts over 42 matches) is bench/remote_campaign.py, which `make campaign` runs."""

from remote_campaign import assert_heap_holds, play, subset, summary


def test_a_cut_at_every_step_of_a_remote_match_on_either_board_loses_nothing(tmp_path, mosquitto):
    cuts = subset()
    assert len(cuts) == 2 * 41 and len({(write, torn) for write, torn, _ in cuts.values()}) == 4
    match = play(tmp_path, mosquitto, cuts)
    print(summary(match))
    assert len(match.recoveries) >= len(cuts) // 2  # (a cut armed past a step's writes falls in the next)
    assert any(r[3] > 1 for r in match.recoveries)  # some cut again as they recovered
    assert_heap_holds(match.recoveries)
