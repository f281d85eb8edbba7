"""A player's clicks on the page, and what its picture shows: for the browser tests."""

from casebook import expand, piece_of
from hands import looks
from waiting import stretched


def square(page, cell):
    return page.locator('#board .square[data-cell="%s"]' % cell)


def place(page, cell, piece):
    """Click the square, choose the piece: then wait until the picture shows it there."""
    square(page, cell).click()
    page.locator('#picker button[data-piece="%s"]' % piece).click()
    page.wait_for_selector('#board .square[data-cell="%s"][data-piece="%s"]' % (cell, piece))


def lift(page, cell):
    square(page, cell).click()
    page.wait_for_selector('#board .square[data-cell="%s"][data-piece=""]' % cell)


def play(page, *moves):
    for move in moves:
        place(page, expand(move)["cell"], piece_of(expand(move)))


def lit(page):
    """Wait for the picture drawn from the board's own state: its lights as the board shows them.
    (A die shows first from its event, the lights as they were: web/watch.py.)"""
    page.wait_for_selector('#board[data-from="board"]')


def squares(page, attribute):
    """{cell: value} of one data attribute over the board's squares that have it."""
    return page.eval_on_selector_all(
        "#board .square[data-%s]" % attribute,
        "(els, a) => Object.fromEntries(els.map(e => [e.dataset.cell, e.getAttribute('data-' + a)]))",
        attribute)


def colour(hex_colour):
    """What a player would call a light the page shows: purple, yellow..."""
    return looks(bytes.fromhex(hex_colour[1:])) if hex_colour else "off"


THINKING = 30  # s of a core's time the board may think, in the simulator's real time (a bound, not a pace)


def start_afresh(page, button):
    """Click a button that starts a new match or round; say yes if the page asks (it asks on the page,
    never in a browser dialog, and only when a match is in play)."""
    page.click(button)
    if page.locator("#confirm").is_visible():
        page.click("#confirm-yes")


def start_against_the_board(page, board_colour, level):
    page.select_option("#board-colour", board_colour)
    page.select_option("#board-level", level)
    start_afresh(page, "#play-board")
    page.wait_for_selector("#versus:not([hidden])")


def board_move(page):
    """The board's move, once it has chosen: {cell: piece} as the picture marks it, and the
    button that puts it down is there."""
    page.wait_for_selector("#place-move:not([hidden])", timeout=stretched(THINKING) * 1000)
    return squares(page, "board-move")
