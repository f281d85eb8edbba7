"""doce_host.round_score: how a round's score is made, checked against the referee's points for
every round the rule cases end, in every shipped rules file they use."""

import copy
from pathlib import Path

import pytest
from casebook import expand, load
from doce.game import BLACK, WHITE, Game
from doce.state import game_state
from doce.referee import referee
from doce.tables import Tables
from doce_host import rules
from doce_host.round_score import how_scored, in_words
from doce_host.rules import load_tables

CASES = load(Path(__file__).resolve().parents[1] / "rules" / "cases.json")


def case_tables(case):
    """The case's rules, with its variant (tests/rules/test_cases.py)."""
    r = rules.load(case.get("rules", "standard"))
    r.update(case.get("variant", {}))
    return Tables(rules.compile_tables(r))


def ended_rounds(case):
    """The game at each round's end, as the board's state reports it (doce/link.py)."""
    game = Game(case_tables(case), BLACK if case.get("first") == "black" else WHITE)
    return [game_state(game) for event in referee(game, [expand(m) for m in case["moves"]]) if "round" in event]


@pytest.mark.parametrize("case", [c for c in CASES if c.get("rounds")], ids=lambda c: c["name"])
def test_every_round_end_is_broken_down_into_parts_that_make_its_points(case):
    tables = case_tables(case)
    ends = ended_rounds(case)
    assert len(ends) == len(case["rounds"])
    for state, want in zip(ends, case["rounds"]):
        scored = how_scored(tables, state)
        assert scored is not None, want
        assert {p: scored["players"][p]["total"] for p in ("white", "black")} == want["points"]
        for mine in scored["players"].values():
            assert sum(points for _, points in mine["parts"]) == mine["total"]


def parts_of(case_name, player):
    case = next(c for c in CASES if c["name"] == case_name)
    state = ended_rounds(case)[0]
    return dict(map(tuple, how_scored(case_tables(case), state)["players"][player]["parts"]))


def test_the_parts_say_what_the_rulebook_counts():
    assert parts_of("line-all-own", "white") == {
        "won the round": 12, "all four dice of the line white's": 2, "blocker not used": 5, "16 empty squares": 16,
        "no three dice alike": 0}
    used = parts_of("score-blocker-used", "white")
    assert used["blocker used (a kept one scores 5)"] == 0
    assert parts_of("score-same-face-whole-board", "white")["three 3s"] == -2
    assert parts_of("line-for-both-players", "black") == {"a draw": 2, "blocker not used": 5}
    best = parts_of("score-best-line", "white")
    assert [k for k in best if k.startswith("the best of ")]  # each line's points, the best counted


def test_a_breakdown_that_does_not_add_up_is_not_shown():
    case = next(c for c in CASES if c["name"] == "line-all-own")
    state = copy.deepcopy(ended_rounds(case)[0])
    tables = load_tables("standard")
    assert in_words(how_scored(tables, state))[0].startswith("white 35: won the round +12, ")
    state["round_end"]["points"]["white"] = 36  # a board that adds differently: no made-up parts
    assert how_scored(tables, state) is None
    assert how_scored(tables, dict(state, round_end=None)) is None
    assert how_scored(tables, dict(state, board={"a1": "purple 9"})) is None
