"""Play against the board on the simulator's page: start the match, read the board's move in
words and in light, put it down with one click, and ask for a hint. Every move goes through
the page, the server, the simulated sensors and the real firmware."""

import re

from clicks import board_move, colour, lift, place, squares, start_afresh, start_against_the_board
from waiting import until

def an_empty_square(page, but=()):
    zone = squares(page, "zone")
    return next(c for c, piece in squares(page, "piece").items() if not piece and c not in zone and c not in but)


def test_a_match_against_the_board_on_the_page(page, shots):
    assert page.locator("#versus").is_hidden()  # a match for two: no board's move to show
    start_against_the_board(page, "black", "3")
    assert page.locator("#versus-who").text_content() == \
        "You play white; the board plays black, level 3 (the strongest)."
    assert "a new match: black opens" in page.locator("#log").inner_text()  # the board opens
    ((cell, piece),) = board_move(page).items()
    value = piece.split()[1]
    assert page.locator("#board-move").text_content() == "The board plays %s on %s." % (piece, cell)
    assert page.locator(".headline").text_content() == "Round 1 of 4: black (the board) to move"
    # The lights flash its square in black's colour, as on the board.
    until(lambda: colour(squares(page, "light")[cell]) == "blue", what="the board's square lit blue")

    # A wrong face on its square is not its move: put right as any wrong piece is.
    place(page, cell, "black %d" % (int(value) % 6 + 1))
    page.wait_for_selector('#board .square[data-cell="%s"][data-problem="not_the_move"]' % cell)
    assert page.locator("#place-move").is_hidden()  # nothing goes down while the board needs fixing
    lift(page, cell)

    # The hint for black: the strongest level's move, the board's own at level 3.
    board_move(page)
    page.click("#hint")
    page.wait_for_selector("#hint-answer:has-text('Hint for')")
    assert page.locator("#hint-answer").text_content() == "Hint for black: %s on %s." % (value, cell)
    assert page.eval_on_selector_all("#board .square.hinted", "els => els.map(e => e.dataset.cell)") == [cell]
    page.screenshot(path=str(shots("versus-board-move.png")))

    page.click("#place-move")  # one click puts the board's move down for it
    page.wait_for_selector('#board .square[data-cell="%s"][data-piece="%s"]' % (cell, piece))
    page.wait_for_selector("#board-move:has-text('Your move (white).')")
    assert page.locator("#hint-answer").text_content() == ""  # that hint was for the position before
    assert page.locator("#board .square.hinted").count() == 0
    assert squares(page, "board-move") == {}
    page.locator("#log", has_text="black put a %s on %s" % (value, cell)).wait_for()

    place(page, an_empty_square(page), "white 2")
    for _ in range(2):  # its blocker first, if it plays one, then its die
        ((cell, piece),) = board_move(page).items()
        page.click("#place-move")
        page.wait_for_selector('#board .square[data-cell="%s"][data-piece="%s"]' % (cell, piece))
        if not piece.endswith("blocker"):
            break
    page.wait_for_selector("#board-move:has-text('Your move (white).')")

    # Another level and colour; then back to a match for two.
    start_against_the_board(page, "white", "0")
    page.wait_for_selector("#versus-who:has-text('level 0')")
    assert page.locator("#versus-who").text_content() == \
        "You play black; the board plays white, level 0 (a child learning)."
    start_afresh(page, "#new-match")
    page.wait_for_selector("#versus", state="hidden")
    assert page.locator("#place-move").is_hidden()


def test_a_board_move_with_its_blocker_is_worded_and_placed_blocker_first(page):
    start_against_the_board(page, "black", "3")
    board_move(page)
    # What a board shows when its blocker goes first (the move's own lights are the firmware's).
    shown = page.evaluate("""() => {
        const frame = JSON.parse(JSON.stringify(view.frame));
        frame.state.versus.move = {cell: "c4", value: 5, blocker: "b2"};
        showFrame(frame);
        return [$("board-move").textContent, $("place-move").textContent]; }""")
    assert shown == ["The board plays its blocker on b2, then black 5 on c4.", "Place its blocker"]


def test_a_board_without_the_versus_field_shows_no_board_move(page):
    start_against_the_board(page, "black", "3")
    board_move(page)
    # An older board's state has no versus: the page shows what it can, and no board's move.
    # (In one evaluate, so no frame from the board comes in between.)
    hidden = page.evaluate("""() => {
        const frame = JSON.parse(JSON.stringify(view.frame));
        delete frame.state.versus;
        showFrame(frame);
        return [$("versus").hidden, $("place-move").hidden]; }""")
    assert hidden == [True, True]


def test_a_hint_in_a_match_for_two(page):
    place(page, "c3", "white 4")
    page.click("#hint")
    page.wait_for_selector("#hint-answer:has-text('Hint for')")
    answer = page.locator("#hint-answer").text_content()
    found = re.fullmatch(r"Hint for black: (?:the blocker on ([a-e][1-5]), then )?([1-6]) on ([a-e][1-5])\.", answer)
    assert found, answer
    assert found.group(3) not in ("c3", found.group(1))
    hinted = page.eval_on_selector_all("#board .square.hinted", "els => els.map(e => e.dataset.cell)")
    assert sorted(hinted) == sorted(c for c in (found.group(1), found.group(3)) if c)
    assert page.locator("#versus").is_hidden()


def test_the_pages_button_is_the_boards_button(page):
    """During a match a press of the board's button asks a hint, shown in light in the colour of
    the player to move (docs/opponent.md): the page's button is that button."""
    place(page, "c3", "white 4")
    page.wait_for_selector(".headline:has-text('black to move')")
    assert "blue" not in {colour(c) for c in squares(page, "light").values()}  # nothing of black's yet
    page.click("#press")
    until(lambda: "blue" in {colour(c) for c in squares(page, "light").values()}, timeout=30,
          what="the hint for black shown in light")
