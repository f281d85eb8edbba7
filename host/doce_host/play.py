"""Play a match at the terminal: two players at one keyboard, or one against the board's
opponent (firmware/doce/opponent.py), on the real rules engine."""

import re

from doce.game import BLACK, DRAW, PLAYER_NAMES, Game, WHITE
from doce.opponent import NO_BLOCKER, STRONGEST, Opponent
from doce.referee import play_move, round_event, match_event
from doce.squares import number, square_name

from . import view
from .recorded import board_state
from .round_score import how_scored, in_words

HELP = """Type a square and a face, like "c3 4", or "c3 b" for your blocker (then your die: "c3 b, then d4 2").
"board" shows the board, "hint" the move the strongest opponent would play, "quit" ends.
a1 is white's left corner.
""" + view.LEGEND


def draw_board(game):
    """The board as `doce status` draws it."""
    return view.draw(board_state(game), game.tables.grid)


def status(game):
    p = game.to_move
    return view.summary(board_state(game)) + "   dice left %d, blocker %s" % (
        game.dice_left[p], "yes" if game.blockers_left[p] else "used")


def typed_moves(text):
    """The moves on one line: "c3 4"; or a blocker and then a die, as a hint says them ("a2 b, then
    d4 3", "Hint: ..." too). None if it is more than that."""
    text = re.sub(r"^hint:\s*", "", text.strip(), flags=re.IGNORECASE)
    parts = [p.strip() for p in re.split(r",?\s*\bthen\b|,", text) if p.strip()]
    if len(parts) > 2 or (len(parts) == 2 and parts[0].split()[-1].lower() not in ("b", "blocker")):
        return None
    return parts


def parse(game, text):
    """A recorded-format move from "c3 4" or "c3 b"."""
    parts = text.split()
    move = {"player": PLAYER_NAMES[game.to_move]}
    if len(parts) != 2:
        return None
    move["cell"] = parts[0].lower()
    if parts[1].lower() in ("b", "blocker"):
        move["blocker"] = True
    elif number(parts[1]) is not None:  # ASCII digits only: not "４" or "²"
        move["value"] = number(parts[1])
    else:
        return None
    return move


def play(tables, stdin, out, first=WHITE, vs=None, colour=BLACK, seed=1, prompt=None):
    """A match read from `stdin`; with `vs` (a level), the board's opponent plays `colour`.
    `prompt`: ask for each move with a prompt (default: when `stdin` is a terminal)."""
    if prompt is None:
        prompt = getattr(stdin, "isatty", lambda: False)()
    lines = iter(stdin)
    game = Game(tables, first)
    board = Opponent(tables, vs, seed) if vs is not None else None

    def say(*lines):
        print(*lines, sep="\n", file=out, flush=True)

    def played(finished):
        """Report the round's end if the move ended it; True once the match is over."""
        if len(game.rounds) == finished:
            return False
        say(draw_board(game), describe_round(round_event(game, game.rounds[-1])))
        scored = how_scored(game.tables, board_state(game))
        if scored:
            say(*["  " + line for line in in_words(scored)])
        if game.match_over:
            m = match_event(game)["match"]
            say("Match over: white %d, black %d. %s" % (
                m["white"], m["black"],
                "A draw!" if m["winner"] == PLAYER_NAMES[DRAW] else m["winner"].capitalize() + " wins!"))
            return True
        game.start_round()
        say("", "Round %d: %s opens." % (game.round, PLAYER_NAMES[game.to_move]))
        return False

    def board_turns():
        """The opponent's moves while it is its turn; True once the match is over."""
        while board and game.to_move == colour and not game.round_over:
            finished = len(game.rounds)
            blk, sq, face = board.choose(game)
            if blk != NO_BLOCKER:
                play_move(game, {"player": PLAYER_NAMES[colour], "cell": square_name(tables.grid, blk),
                                 "blocker": True})
            play_move(game, {"player": PLAYER_NAMES[colour], "cell": square_name(tables.grid, sq), "value": face})
            say("The board (%s) plays %s." % (PLAYER_NAMES[colour], describe_move(tables, (blk, sq, face))))
            if played(finished):
                return True
        return False

    def typed():
        """The lines typed, each asked for with the prompt: who is to move, and what to type."""
        while True:
            if prompt:
                out.write("%s to move (like c3 4; help, quit)> " % PLAYER_NAMES[game.to_move])
                out.flush()
            line = next(lines, None)
            if line is None:
                return
            yield line

    say("DOCE, %s rules. %s" % (tables.name, HELP))
    if board:
        say("You play %s; the board plays %s at %s." % (PLAYER_NAMES[1 - colour], PLAYER_NAMES[colour],
                                                        view.level_words(vs)))
    if board_turns():
        return game
    say("", draw_board(game), status(game))
    for text in typed():
        text = text.strip()
        if text in ("quit", "q", "exit"):
            break
        if text in ("board", ""):
            say(draw_board(game), status(game))
            continue
        if text == "help":
            say(HELP)
            continue
        if text == "hint":
            move = Opponent(tables, STRONGEST, seed).choose(game)
            say("Hint: " + describe_move(tables, move) if move else "No move left this round.")
            continue
        moves = typed_moves(text)
        if not moves:
            say("Refused: one move a line: a die (c3 4), or your blocker and then your die (c3 b, then d4 2)")
            continue
        for n, part in enumerate(moves):
            move = parse(game, part)
            finished = len(game.rounds)
            why = play_move(game, move) if move else "bad_move"
            if why:
                say("Refused: %s%s" % (view.move_refused(why, tables.faces),
                                       " (%s stands: your die next)" % moves[0] if n else ""))
                break
            if played(finished) or board_turns():
                return game
        else:
            say(draw_board(game), status(game))
    return game


def describe_move(tables, move):
    """'c3 4', or 'b2 b, then c3 4' with the blocker first: as a player types it."""
    blk, sq, face = move
    die = "%s %d" % (square_name(tables.grid, sq), face)
    return die if blk == NO_BLOCKER else "%s b, then %s" % (square_name(tables.grid, blk), die)


def describe_round(event):
    how = {"line": "a winning line", "double_line": "a line each",
           "no_legal_square": "no legal square left", "out_of_dice": "all dice played"}
    who = "Draw" if event["result"] == "draw" else event["result"].capitalize() + " wins"
    lines = "; ".join(" ".join(line) for line in event["lines"])
    return "%s round %d by %s%s. Points: white %d, black %d." % (
        who, event["round"], how[event["reason"]], " (" + lines + ")" if lines else "",
        event["points"]["white"], event["points"]["black"])


# -- against a board (doce play-board, doce hint) --------------------------------------------

def play_board(link, level, colour, first=None):
    """Start a match against the board's opponent on the board behind `link`; what to tell the player."""
    args = {"opponent": {"colour": colour, "level": level}}
    if first:
        args["first"] = first
    link.ask("new_match", **args)
    return ("The board plays %s at level %d. The match starts once the board is clear; on its turn"
            " it flashes its square as many times as the face (docs/lights.md): put that die down for it."
            % (colour, level))


def board_hint(link):
    """The board's hint for the player to move, as a player types a move."""
    hint = link.ask("hint", timeout=max(link.timeout, 30.0))["hint"]  # thought between scans
    die = "%s %d" % (hint["cell"], hint["value"])
    return "Hint: " + ("%s b, then %s" % (hint["blocker"], die) if "blocker" in hint else die)
