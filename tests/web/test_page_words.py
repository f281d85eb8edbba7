"""What the page says, and where: a refusal beside the board in a player's words, on a laptop,
the hall's screen and a phone; the replay without the live game's controls; the form that
remembers the match in play; the button's press explained; a log without noise; and how a
round's score is made. Every move goes through the simulated sensors and the real firmware."""

import json
import sys

from casebook import expand
from clicks import board_move, lift, lit, place, play, squares, start_afresh, start_against_the_board
from waiting import completed

ALL_OWN = ("W a1 2", "B a5 1", "W c1 4", "B c5 1", "W e3 1", "B e5 1", "W b1 3", "B a3 1", "W d1 3")

# Where an element is on screen, and whether it is what a finger or an eye finds there (not
# under a sticky bar or off the screen), with the page scrolled to its top.
IN_SIGHT = """(selector) => {
  window.scrollTo(0, 0);
  const el = document.querySelector(selector);
  const box = el.getBoundingClientRect();
  const x = box.left + Math.min(20, box.width / 2), y = box.top + box.height / 2;
  const top = document.elementFromPoint(x, y);
  return {top: box.top, bottom: box.bottom, height: innerHeight, width: box.width,
          seen: Boolean(top && (el === top || el.contains(top)))};
}"""


def in_sight(page, selector):
    found = page.evaluate(IN_SIGHT, selector)
    return found["seen"] and found["width"] > 0 and 0 <= found["top"] and found["bottom"] <= found["height"]


def test_a_refusal_is_said_beside_the_board_without_scrolling(screen, shots, request):
    play(screen, ALL_OWN[0])
    place(screen, "b4", "white 1")  # black is to move
    screen.wait_for_selector("#put-right li")
    lit(screen)
    words = "b4: that is a white die; black is to move"
    assert screen.locator("#put-right li").all_text_contents() == [words]
    assert in_sight(screen, "#put-right"), screen.evaluate(IN_SIGHT, "#put-right")
    assert screen.locator(".problem-reason").text_content() == words  # the picture says the same
    screen.locator("#log", has_text="refused: " + words).wait_for()
    screen.screenshot(path=str(shots("refusal-%s.png" % request.node.callspec.id)))
    lift(screen, "b4")
    screen.wait_for_selector("#put-right:empty", state="attached")

    # No hint between rounds: said beside the Hint button, and gone once the next round is on.
    play(screen, *ALL_OWN[1:])
    screen.wait_for_selector("#board svg[data-mode='clearing']")
    # the round's end heard whole first: a frame of it still on its way is another position, and
    # the page drops an answer given for the one before (failed so under load)
    screen.locator("#log", has_text="round 1: white wins").wait_for()
    screen.click("#hint")
    screen.wait_for_selector("#hint-answer:has-text('No hint')")
    assert screen.locator("#hint-answer").text_content() == "No hint: there is no round in play"
    assert in_sight(screen, "#hint-answer")
    screen.click("#clear")
    screen.wait_for_selector("#board svg[data-mode='playing']")
    screen.wait_for_selector("#hint-answer:empty", state="attached")


def test_mistakes_are_said_as_a_player_would(page):
    play(page, "W c3 4", "B a1 2")
    place(page, "b2", "white 1")  # next to white's c3
    page.wait_for_selector("#put-right li")
    lit(page)
    assert page.locator("#put-right li").all_text_contents() == [
        "b2: next to white's last die (c3), a no-play zone for white this turn"]
    lift(page, "b2")
    page.wait_for_selector("#put-right:empty", state="attached")
    lift(page, "c3")  # a piece of the game taken away
    page.wait_for_selector("#put-right li")
    assert page.locator("#put-right li").all_text_contents() == ["c3: a white 4 belongs here: put it back"]


def test_the_replay_shows_no_live_controls_and_the_form_keeps_the_match_in_play(page, tmp_path):
    start_against_the_board(page, "white", "2")
    page.wait_for_selector("#board-move:has-text('Your move (black).')")  # black opens this match
    place(page, "c3", "black 4")
    board_move(page)
    page.reload()
    page.wait_for_selector("#versus:not([hidden])")
    assert page.input_value("#board-colour") == "white" and page.input_value("#board-level") == "2"
    assert page.locator("#place-move").is_visible() and page.locator("#hint").is_visible()

    recorded = tmp_path / "game.json"
    recorded.write_text(json.dumps({"first": "white", "moves": [expand(m) for m in ALL_OWN[:3]]}))
    page.set_input_files("#replay-file", str(recorded))
    page.wait_for_selector("#replay-controls:not([hidden])")
    page.click("#step-on")
    for hidden in ("#board-move", "#place-move", "#hint", "#versus-who"):
        assert page.locator(hidden).is_hidden(), hidden
    page.click("#live")
    page.wait_for_selector("#place-move:not([hidden])")
    assert page.locator("#hint").is_visible()


def test_a_press_on_the_boards_turn_says_why_nothing_shows(page):
    start_against_the_board(page, "black", "3")
    board_move(page)
    page.click("#press")  # before the match's first piece, a press shows who plays
    page.wait_for_selector("#message:has-text('who plays')")
    page.click("#place-move")
    page.wait_for_selector("#board-move:has-text('Your move (white).')")
    place(page, next(c for c in ("a1", "e1", "a5", "e5") if not squares(page, "piece")[c]), "white 2")
    ((cell, piece),) = board_move(page).items()
    page.click("#press")
    page.wait_for_selector("#message:has-text('No hint')")
    assert page.locator("#message").text_content() == \
        "No hint on the board's own turn: its move is shown: %s on %s." % (piece, cell)
    assert in_sight(page, "#message")


def test_the_log_is_one_line_a_happening_and_a_round_shows_how_it_was_scored(page, tmp_path):
    play(page, *ALL_OWN)
    page.wait_for_selector("#scored:not([hidden])")
    white = page.locator('.score-parts[data-player="white"]')
    assert white.locator("caption").text_content() == "white: 35"
    assert [r.locator("td").all_text_contents() for r in white.locator("tr").all()] == [
        ["won the round", "+12"], ["all four dice of the line white's", "+2"], ["blocker not used", "+5"],
        ["16 empty squares", "+16"], ["no three dice alike", "0"]]
    assert page.locator("#scored-title").text_content() == "How round 1 was scored (white won)"
    for cell in [expand(m)["cell"] for m in ALL_OWN]:  # cleared by hand, a die at a time
        lift(page, cell)
    page.wait_for_selector("#board svg[data-mode='playing']")
    page.locator("#log", has_text="round 2 begins").wait_for()
    log = page.locator("#log li").all_text_contents()
    assert [line for line in log if line.startswith("clearing the board")] == ["clearing the board: 1 piece left"]
    assert page.locator("#scored").is_hidden()  # that round's breakdown goes with its board

    start_afresh(page, "#new-match")
    page.locator("#log li.new_match").wait_for()
    log = page.locator("#log li").all_text_contents()  # newest first: the new match's line closes the old
    assert log.index(page.locator("#log li.new_match").text_content()) < log.index("round 2 begins: black opens")
    assert page.locator("#log li.new_match").evaluate("li => getComputedStyle(li).borderBottomStyle") == "double"


def test_the_replay_numbers_and_words_moves_as_the_referee_and_the_live_page_do(page, tmp_path):
    moves = [expand(m) for m in ALL_OWN[:4] + ("W b2 1",) + ALL_OWN[4:]]
    recorded = tmp_path / "game.json"
    recorded.write_text(json.dumps({"first": "white", "moves": moves}))
    referee = completed([sys.executable, "-m", "doce_host.cli", "referee", str(recorded)], timeout=60)
    assert referee.returncode == 0, referee.stderr
    refused = [json.loads(line) for line in referee.stdout.splitlines() if '"ok": false' in line]
    assert refused == [{"move": 4, "ok": False, "error": "no_play_zone"}]
    page.set_input_files("#replay-file", str(recorded))
    page.wait_for_selector("#replay-controls:not([hidden])")
    page.click("#step-on")
    assert page.locator("#step-note").text_content() == "move 0: white put a 2 on a1"
    for _ in range(4):
        page.click("#step-on")
    assert page.locator("#step-note").text_content() == \
        "move 4 refused: b2: next to white's last die (c1), a no-play zone for white this turn"
    for _ in range(5):
        page.click("#step-on")
    assert page.locator("#scored-title").text_content() == "How round 1 was scored (white won)"
    assert squares(page, "piece")["d1"] == "white 3"


PAUSED_FRAME = """(paused) => {
  const state = Object.assign({}, view.frame.state, {remote: null, mode: "playing"});
  showRemote({state, paused, sim: true});  // as a frame of a paired board whose match does not run
  const shown = (id) => !document.getElementById(id).hidden;
  const said = {remote: shown("remote"), who: $("remote-who").textContent, why: $("friend-move").textContent,
                against: shown("against"), newMatch: shown("new-match")};
  showRemote(view.frame);  // the board's own frame again: a match for two
  return [said, {remote: shown("remote"), against: shown("against"), newMatch: shown("new-match")}];
}"""


def test_a_paused_remote_match_shows_the_friend_and_why_and_offers_no_other_match(page):
    """Review of issue 41, finding 6: while a remote match was paused the page showed no friend and offered
    "Play against the board" and "New match", which the board refuses (web/watch.py puts `paused` in the
    frame; doce/offline.py PAUSED is the board's reason)."""
    from doce.offline import PAUSED
    paused, back = page.evaluate(PAUSED_FRAME, {"peer": "ben", "colour": "white", "paused": PAUSED})
    assert paused == {"remote": True, "against": False, "newMatch": False,
                      "who": "You play black against your friend's board ben, which plays white: the match is "
                             "paused on this board.",
                      "why": PAUSED[0].upper() + PAUSED[1:] + "."}
    assert back == {"remote": False, "against": True, "newMatch": True}
