"""docs/examples/: the recorded games shipped for doce referee and the page's replay referee
cleanly (exit 0, a whole match each) and replay step by step."""

import io
import json
from contextlib import redirect_stdout
from pathlib import Path

import pytest

from doce_host.cli import main
from doce_host.web.server import replay_steps

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"


def refereed(path):
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["referee", str(path)]) == 0
    return [json.loads(line) for line in out.getvalue().splitlines()]


def test_the_examples_are_the_three_the_docs_name():
    assert sorted(p.name for p in EXAMPLES.glob("*.json")) == [
        "against-the-board.json", "refused-moves.json", "whole-match.json"]


@pytest.mark.parametrize("name", ["against-the-board.json", "refused-moves.json", "whole-match.json"])
def test_each_example_is_a_whole_match_the_referee_and_the_replay_take(name):
    path = EXAMPLES / name
    events = refereed(path)
    assert [e for e in events if "round" in e][-1]["round"] == 4 and "match" in events[-1]
    steps = replay_steps(json.loads(path.read_text()))
    assert len(steps) == 1 + len(json.loads(path.read_text())["moves"])
    assert steps[-1]["note"].endswith(describe_match(events[-1]["match"]))
    assert all(step["svg"].startswith("<svg") for step in steps)


def describe_match(match):
    return "match over: white %d, black %d: %s wins" % (match["white"], match["black"], match["winner"])


def test_the_refused_moves_are_refused_and_change_nothing():
    refused = [e for e in refereed(EXAMPLES / "refused-moves.json") if e.get("ok") is False]
    assert sorted({e["error"] for e in refused}) == ["bad_value", "no_play_zone", "not_your_turn", "occupied"]
    same = [e for e in refereed(EXAMPLES / "whole-match.json") if "move" not in e]
    assert [e for e in refereed(EXAMPLES / "refused-moves.json") if "move" not in e] == same


def test_the_match_against_the_board_says_who_the_board_was():
    game = json.loads((EXAMPLES / "against-the-board.json").read_text())
    assert game["versus"] == {"colour": "black", "level": 2}
