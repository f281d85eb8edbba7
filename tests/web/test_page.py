"""Play the simulated board by clicking in a browser, and check what the page shows.

Every placement goes through the page, the server, the simulated sensors and the real
firmware; the page then shows what the firmware decided. Expected zones and scores
come from the rulebook's geometry and the referee, not from the page.
"""

import json

from casebook import expand
from clicks import colour, lift, lit, place, play, squares
from waiting import stretched

ALL_OWN = ("W a1 2", "B a5 1", "W c1 4", "B c5 1", "W e3 1", "B e5 1", "W b1 3", "B a3 1", "W d1 3")


def test_a_round_played_by_clicks_lights_the_winning_line_and_scores_it(page):
    play(page, *ALL_OWN[:2])
    lit(page)
    # White to move, after a1: white's zone is a1's empty neighbours, lit purple by the firmware.
    assert set(squares(page, "zone")) == {"a2", "b1", "b2"}
    lights = squares(page, "light")
    assert {colour(lights[c]) for c in ("a2", "b1", "b2")} == {"purple"}
    assert colour(lights["a1"]) == "yellow" and colour(lights["c3"]) == "off"
    assert squares(page, "last") == {"a1": "white", "a5": "black"}
    play(page, *ALL_OWN[2:])
    page.wait_for_selector(".winning-line", state="attached")  # the round's end: the event after the die's
    line = page.locator(".winning-line")
    assert line.count() == 1
    assert line.get_attribute("data-cells") == "a1 b1 c1 d1" and line.get_attribute("data-player") == "white"
    assert page.locator(".round-score[data-round='1'] text").all_text_contents() == ["1", "35", "0"]
    assert page.locator(".match-total text").all_text_contents() == ["match", "35", "0"]
    # the event follows the state on the line (paced at the baud rate): wait for it to come
    page.locator("#log", has_text="round 1: white wins by line (a1 b1 c1 d1); points white 35, black 0").wait_for(
        timeout=stretched(10) * 1000)
    assert page.locator(".headline").text_content().startswith("Round 1: white wins")
    # Clearing the board starts round 2, which black opens.
    page.click("#clear")
    page.wait_for_selector("#board svg[data-mode='playing'][data-to-move='black']")
    assert squares(page, "piece") == {c: "" for c in squares(page, "piece")}


def test_a_die_in_the_no_play_zone_shows_the_error_until_it_is_lifted(page, shots):
    play(page, "W c3 4", "B a1 2")
    place(page, "b2", "white 1")  # next to white's c3
    page.wait_for_selector('#board .square[data-cell="b2"][data-problem="no_play_zone"]')
    assert squares(page, "problem") == {"b2": "no_play_zone"}
    assert page.locator(".problem-reason").all_text_contents() == [
        "b2: next to white's last die (c3), a no-play zone for white this turn"]
    assert "put the board right" in page.locator(".headline").text_content()
    page.locator("#log", has_text="refused: b2: next to white's last die (c3)").wait_for()
    page.screenshot(path=str(shots("no-play-zone-error.png")))
    lift(page, "b2")
    page.wait_for_selector("#board svg[data-mode='playing']")
    assert squares(page, "problem") == {} and page.locator(".problem-reason").count() == 0
    assert "b2" in squares(page, "zone")  # back to an empty square of white's zone


def test_a_reloaded_page_shows_the_same_game_at_once(page):
    play(page, "W c3 4", "B a1 2", "W e5 b", "W e1 6")
    lit(page)
    before = {a: squares(page, a) for a in ("piece", "zone", "last", "light")}
    log = page.locator("#log").inner_text()
    page.reload()
    page.wait_for_selector("#board svg .square")
    assert {a: squares(page, a) for a in ("piece", "zone", "last", "light")} == before
    assert before["piece"]["e5"] == "white blocker" and before["last"] == {"e1": "white", "a1": "black"}
    assert page.locator("#log").inner_text() == log


def test_cutting_the_power_shows_the_board_resume_the_game(page, shots):
    play(page, "W c3 4", "B a1 2")
    before = squares(page, "piece")
    page.click("#cut-power")
    page.wait_for_selector("#banner:has-text('Power off')")
    page.screenshot(path=str(shots("power-off.png")))
    page.wait_for_selector("#banner", state="hidden", timeout=stretched(20) * 1000)
    page.wait_for_function("() => document.querySelector('#log').innerText.includes('the power is back')")
    page.wait_for_function("() => document.querySelector('#log').innerText.includes('the board started')")
    assert "the power is cut; the dice stay where they are" in page.locator("#log").inner_text()
    assert squares(page, "piece") == before
    play(page, "W e1 6")  # the game goes on where it was: white to move, a1 black's last
    assert squares(page, "last") == {"e1": "white", "a1": "black"}


def test_new_round_and_new_match_from_the_page(page):
    page.on("dialog", lambda dialog: dialog.dismiss())  # a browser dialog would stop the test here
    play(page, "W c3 4", "B a1 2")
    page.click("#new-round")  # a round in play: the page asks first, on the page
    assert page.locator("#confirm-question").text_content() == "Abandon this round and play it again?"
    page.click("#confirm-no")
    assert page.locator("#confirm").is_hidden() and squares(page, "piece")["c3"] == "white 4"
    page.click("#new-round")
    page.click("#confirm-yes")
    page.wait_for_selector("#board svg[data-mode='clearing']")
    assert page.locator(".headline").text_content() == "Clear the board to start round 1"
    page.click("#clear")
    page.wait_for_selector("#board svg[data-mode='playing'][data-to-move='white']")
    page.click("#new-match")
    page.wait_for_selector("#board svg[data-to-move='black']")  # the other player opens the new match
    log = page.locator("#log").inner_text()
    assert "round 1 abandoned: it starts again once the board is clear" in log
    assert "a new match: black opens, once the board is clear" in log


def test_a_click_that_cannot_be_carried_out_says_why(page):
    page.evaluate("() => window.doceTimings.length")  # the page's script is running
    page.evaluate("""() => { const ws = new WebSocket('ws://' + location.host + '/ws');
        window.answers = [];
        ws.onmessage = (e) => { const m = JSON.parse(e.data); if (m.type !== 'frame') window.answers.push(m); };
        ws.onopen = () => { ws.send('not json'); ws.send('[1]');
            ws.send(JSON.stringify({do: 'place', cell: 'z9', piece: 'white 1'}));
            ws.send(JSON.stringify({do: 'place', cell: 'c3', piece: 'white 9'}));
            ws.send(JSON.stringify({do: 'lift', cell: 'c3'}));
            ws.send(JSON.stringify({do: 'fly'}));
            ws.send(JSON.stringify({do: 'new_match', opponent: {colour: 'red', level: 3}}));
            ws.send(JSON.stringify({do: 'new_match', opponent: {colour: 'black', level: true}})); }; }""")
    page.wait_for_function("() => window.answers.length === 8")
    answers = page.evaluate("window.answers")
    assert [a["type"] for a in answers] == ["refused"] * 8
    assert [a["message"] for a in answers] == [
        "not JSON", 'a request is {"do": ...}', '"z9" is not a square of this board',
        'a piece is "white 1" to "white 6", "white blocker", or the same for black',
        "there is nothing on c3 to lift", 'unknown request "fly"'] + [
        'the opponent is {"colour": "white" or "black", "level": 0 to 3}'] * 2
    assert squares(page, "piece") == {c: "" for c in squares(page, "piece")}  # nothing changed


def test_a_recorded_game_replays_move_by_move(page, tmp_path, shots):
    moves = [expand(m) for m in ALL_OWN[:4] + ("W b2 1",) + ALL_OWN[4:]]  # W b2 1: refused, in white's zone
    recorded = tmp_path / "game.json"
    recorded.write_text(json.dumps({"first": "white", "moves": moves}))
    page.set_input_files("#replay-file", str(recorded))
    page.wait_for_selector("#replay-controls:not([hidden])")
    assert page.locator("#banner").text_content() == "Replay: step 0 of 10"
    assert squares(page, "piece") == {c: "" for c in squares(page, "piece")}
    page.click("#step-on")
    assert page.locator("#step-note").text_content() == "move 0: white put a 2 on a1"
    assert squares(page, "piece")["a1"] == "white 2"
    for _ in range(4):
        page.click("#step-on")
    assert page.locator("#step-note").text_content().startswith("move 4 refused: b2: next to white's last die")
    assert squares(page, "problem") == {"b2": "no_play_zone"}
    for _ in range(5):
        page.keyboard.press("ArrowRight")
    assert page.locator(".winning-line").get_attribute("data-cells") == "a1 b1 c1 d1"
    assert page.locator(".match-total text").all_text_contents() == ["match", "35", "0"]
    page.screenshot(path=str(shots("replay-winning-line.png")))
    page.keyboard.press("ArrowLeft")
    assert page.locator(".winning-line").count() == 0
    page.click("#live")
    page.wait_for_selector("#banner", state="hidden")
    assert squares(page, "piece") == {c: "" for c in squares(page, "piece")}  # the live board: still empty


def test_a_broken_recorded_game_gets_a_clear_error(page, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"moves": [')
    page.set_input_files("#replay-file", str(bad))
    page.wait_for_function("() => document.querySelector('#message').textContent.length > 0")
    assert page.locator("#message").text_content().startswith("bad.json: not a recorded game:")
    bad.write_text('{"moves": [], "rules": "/etc/passwd"}')
    page.set_input_files("#replay-file", str(bad))
    page.wait_for_function("() => document.querySelector('#message').textContent.includes('shipped')")
    assert page.locator("#replay-controls").is_hidden()
