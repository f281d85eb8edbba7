"""The page explains itself (issue 42): what to do now is in view above the board on a laptop and
a phone, with a next step at every turn of the match; the rules and what the lights mean are a
click away; a key says what every square of the picture means, by more than its colour; and
nothing is asked in a browser dialog."""

import re
from pathlib import Path

import pytest
from clicks import play

STATIC = Path(__file__).resolve().parents[2] / "host" / "doce_host" / "web" / "static"
SCREENS = {"laptop": {"width": 1366, "height": 768}, "phone": {"width": 390, "height": 844}}
# What tells each key entry apart besides its hue (a colour-blind player reads these).
NOT_BY_COLOUR = ("dim", "bright", "marked", "hatched", "dashed", "ring", "frame", "bar", "disc", "dark")


@pytest.mark.parametrize("screen", sorted(SCREENS))
def test_what_to_do_now_is_in_view_without_scrolling(devices, sim_page, screen, shots):
    tab = devices(viewport=SCREENS[screen], **(
        {"is_mobile": True, "has_touch": True, "device_scale_factor": 3} if screen == "phone" else {})).new_page()
    try:
        tab.goto(sim_page.url)
        tab.wait_for_selector("#board svg .square")
        tab.locator("#how", has_text="White to move").wait_for()
        box = tab.locator("#how").bounding_box()
        assert box["y"] >= 0 and box["y"] + box["height"] <= SCREENS[screen]["height"]
        assert "click an empty square" in tab.locator("#how").text_content()
        tab.screenshot(path=str(shots("how-%s.png" % screen)))
    finally:
        tab.close()


def test_the_rules_and_the_lights_are_a_click_away(page):
    links = {a.text_content(): a.get_attribute("href") for a in page.locator("header nav a").all()}
    assert links["The rules"] == "/docs/rules.md" and links["What the lights mean"] == "/docs/lights.md"
    for href, heading in (("/docs/rules.md", "rules"), ("/docs/lights.md", "What the lights mean")):
        reply = page.request.get(page.url.rstrip("/") + href)
        assert reply.ok and heading in reply.text() and "<table>" in reply.text()
    lights = page.request.get(page.url.rstrip("/") + "/docs/lights.md").text()
    for image in re.findall(r'<img src="([^"]+)"', lights):  # its pictures come with it
        assert page.request.get(page.url.rstrip("/") + "/docs/" + image).ok
    for wrong in ("/docs/nothing.md", "/docs/..%2Fpyproject.toml", "/docs/images/..%2F..%2FREADME.md"):
        assert page.request.get(page.url.rstrip("/") + wrong).status == 404


def test_the_key_says_what_every_square_means_by_more_than_its_colour(page):
    entries = page.locator("#key-box .key li")
    words = entries.all_text_contents()
    assert len(words) >= 10
    for said in ("white's die", "black's last die", "no-play zone", "to put right", "the board's move", "a hint",
                 "a winning line", "a blocker", "an empty square"):
        assert any(w.startswith(said) or said in w for w in words), said
    for w in words:
        assert any(cue in w for cue in NOT_BY_COLOUR), w
    # each swatch is the picture's own drawing of that square
    assert page.locator("#key-box .key li:nth-child(5) rect[fill='url(#key-zone)']").count() == 1
    assert page.locator("#key-box .key li:nth-child(2) path.last").count() == 1


def test_a_match_over_says_what_comes_next_and_no_browser_dialog_asks_anything(page):
    dialogs = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    shown = page.evaluate("""() => instruction({sim: {pieces: []}, state: {mode: "match_over", to_move: "white",
                                                                        board: {}, scores: []}})""")
    assert shown.startswith("Match over. Next: New match")
    real = page.evaluate("""() => instruction({sim: null, state: {mode: "match_over", to_move: "white",
                                                                   board: {}, scores: []}})""")
    assert "press the board's button" in real
    play(page, "W c3 4")
    page.click("#new-match")  # a match in play: asked on the page
    assert page.locator("#confirm").is_visible() and "The match in play ends" in page.locator("#confirm").text_content()
    page.click("#confirm-yes")
    page.wait_for_selector("#board svg[data-to-move='black']")  # the other player opens the new match
    assert dialogs == []
    for script in STATIC.glob("*.js"):
        assert not re.search(r"\b(confirm|alert|prompt)\(", script.read_text()), script.name


def test_the_log_numbers_its_lines_from_100_up_whole(page):
    """Its list scrolls, so a number wider than its padding was cut: "100." showed as "00."."""
    page.evaluate("""() => { const log = document.querySelector("#log");
                             for (let i = 0; i < 120; i++) log.append(Object.assign(document.createElement("li"),
                                                                                     {textContent: "a line"})); }""")
    number, padding = page.evaluate("""() => {
        const log = document.querySelector("#log"), li = log.firstElementChild;
        const probe = Object.assign(document.createElement("span"), {textContent: "120. "});
        probe.style.font = getComputedStyle(li).font;
        document.body.append(probe);
        const width = probe.getBoundingClientRect().width;
        probe.remove();
        return [width, parseFloat(getComputedStyle(log).paddingLeft)];
    }""")
    assert number < padding
