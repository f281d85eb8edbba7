"""The page on a phone, where a lone player opens it: 390 CSS px wide, three device pixels to
one, touch. The board fills the width, no text is under 14 px, and every control is at least
44 x 44 px to touch: measured in the page as the browser laid it out, in each state that shows
something new (a match against the board, a problem, the picker, a replay with scores)."""

import json

from casebook import expand
from clicks import board_move, place, start_against_the_board

SMALLEST_TEXT = 14  # CSS px
SMALLEST_CONTROL = 44  # CSS px a side: a fingertip (WCAG 2.5.5)

# Everything on screen too small, in the browser's own measures. An SVG text's font size is
# in the picture's units: its size on screen is that, scaled as the picture is.
MEASURE = """([smallestText, smallestControl]) => {
  const shown = (el) => {
    const box = el.getBoundingClientRect();
    if (!box.width || !box.height) return false;
    for (let e = el; e; e = e.parentElement) {
      const style = getComputedStyle(e);
      if (style.display === "none" || style.visibility === "hidden" || style.opacity === "0") return false;
    }
    return true;
  };
  const name = (el) => el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") +
                       (el.dataset && el.dataset.cell ? "[" + el.dataset.cell + "]" : "");
  const small = [];
  const texts = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = texts.nextNode(); node; node = texts.nextNode()) {
    const el = node.parentElement;
    if (!node.textContent.trim() || el.closest("title, script, style") || !shown(el)) continue;
    let px = parseFloat(getComputedStyle(el).fontSize);
    if (el instanceof SVGElement) {
      const m = el.getScreenCTM();
      px *= Math.hypot(m.a, m.b);
    }
    if (px < smallestText - 0.01) small.push(["text", node.textContent.trim().slice(0, 40), Math.round(px * 10) / 10]);
  }
  const controls = "button, input, select, textarea, a[href], [role=button], #board .square";
  for (const el of document.querySelectorAll(controls)) {
    if (!shown(el)) continue;
    const box = el.getBoundingClientRect();
    if (box.width < smallestControl - 0.5 || box.height < smallestControl - 0.5) {
      small.push(["control", name(el), Math.round(box.width), Math.round(box.height)]);
    }
    const px = parseFloat(getComputedStyle(el).fontSize);  // what a select or input shows
    if (el.matches("button, input, select") && px < smallestText - 0.01) small.push(["control text", name(el), px]);
  }
  const board = document.querySelector("#board svg .frame").getBoundingClientRect();
  return {small, width: innerWidth, scrolls: document.documentElement.scrollWidth,
          board: [board.left, board.right]};
}"""


def too_small(tab):
    """What on screen is too small to read or touch, or sticks out; [] when all is well."""
    found = tab.evaluate(MEASURE, [SMALLEST_TEXT, SMALLEST_CONTROL])
    wrong = found["small"]
    left, right = found["board"]
    if right - left < 0.9 * found["width"] or left < 0 or right > found["width"]:
        wrong.append(["board", "%d to %d px of %d" % (left, right, found["width"])])
    if found["scrolls"] > found["width"]:
        wrong.append(["page", "%d px wide on a %d px screen" % (found["scrolls"], found["width"])])
    return wrong


def test_the_measure_finds_the_wide_picture_too_small_on_a_phone(phone):
    assert too_small(phone) == []
    # The desktop's picture, squeezed into the phone's width, is what the test is for.
    phone.evaluate("""async () => { const wide = await (await fetch("/board.svg")).text();
                                    document.querySelector("#board").innerHTML = wide; }""")
    wrong = too_small(phone)
    assert {"Scores", "round", "match", "white: 11 dice, 1 blocker left"} <= {w[1] for w in wrong if w[0] == "text"}
    assert max(w[2] for w in wrong if w[0] == "text") < 10  # about 7 px
    assert [w for w in wrong if w[0] == "board"]  # about half the screen's width


def test_the_page_fits_a_phone(phone, tmp_path, shots):
    assert phone.locator("#board svg").get_attribute("data-layout") == "tall"
    assert too_small(phone) == []

    start_against_the_board(phone, "black", "3")
    ((cell, piece),) = board_move(phone).items()
    assert too_small(phone) == []
    # The board's move and its button are on screen with the board, before any scrolling.
    phone.evaluate("window.scrollTo(0, 0)")
    assert phone.locator("#place-move").bounding_box()["y"] + SMALLEST_CONTROL <= 844
    phone.screenshot(path=str(shots("phone-board-move.png")))
    phone.locator("#place-move").tap()
    phone.wait_for_selector('#board .square[data-cell="%s"][data-piece="%s"]' % (cell, piece))

    # A touch on an empty square opens the picker along the bottom of the screen.
    empty = next(c for c in ("a1", "e1", "a5", "e5") if c != cell)
    phone.locator('#board .square[data-cell="%s"]' % empty).tap()
    phone.wait_for_selector("#picker:not([hidden])")
    assert too_small(phone) == []
    phone.screenshot(path=str(shots("phone-picker.png")))
    phone.click("#picker-cancel")

    # A problem, worded under the board.
    place(phone, empty, "black 1")  # not black's turn
    phone.wait_for_selector(".problem-reason")
    assert too_small(phone) == []

    # A replay: its controls, and scores round by round.
    moves = [expand(m) for m in ("W a1 2", "B a5 1", "W c1 4", "B c5 1", "W e3 1", "B e5 1", "W b1 3", "B a3 1",
                                 "W d1 3")]
    recorded = tmp_path / "game.json"
    recorded.write_text(json.dumps({"first": "white", "moves": moves}))
    phone.set_input_files("#replay-file", str(recorded))
    phone.wait_for_selector("#replay-controls:not([hidden])")
    phone.click("#step-on")
    for _ in range(8):
        phone.keyboard.press("ArrowRight")
    phone.wait_for_selector("#board svg .round-score")
    assert phone.locator("#board svg").get_attribute("data-layout") == "tall"
    assert too_small(phone) == []

    # Turned sideways, wider than a phone: the wide picture comes back, the replay step kept.
    phone.set_viewport_size({"width": 900, "height": 390})
    phone.wait_for_selector("#board svg[data-layout='wide'] .round-score")
    assert phone.locator("#step").input_value() == "9"
    phone.click("#live")
    phone.wait_for_selector("#board svg[data-layout='wide'] .square[data-problem]")
