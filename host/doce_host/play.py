"""Play a match at the terminal: two players, one keyboard, the real rules engine."""

from doce.game import DRAW, PLAYER_NAMES, Game, WHITE
from doce.referee import play_move, round_event, match_event
from doce.squares import number

from . import view
from .recorded import board_state

HELP = """Type a square and a face, like "c3 4", or "c3 b" for your blocker.
"board" shows the board, "quit" ends. a1 is white's left corner."""

REASONS = {
    "not_your_turn": "it is not your turn",
    "off_board": "that is not a square on this board",
    "occupied": "that square is taken",
    "no_blocker": "no blocker: it is used, or you already played it this turn",
    "bad_value": "a die shows 1 to %d",
    "no_play_zone": "that square is in your no-play zone (next to your last die)",
    "bad_move": "type a square and a face, like \"c3 4\"",
}


def draw_board(game):
    """The board as `doce status` draws it."""
    return view.draw(board_state(game), game.tables.grid)


def status(game):
    p = game.to_move
    return view.summary(board_state(game)) + "   dice left %d, blocker %s" % (
        game.dice_left[p], "yes" if game.blockers_left[p] else "used")


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


def play(tables, stdin, out, first=WHITE):
    game = Game(tables, first)

    def say(*lines):
        print(*lines, sep="\n", file=out, flush=True)

    say("DOCE, %s rules. %s" % (tables.name, HELP), "", draw_board(game), status(game))
    for text in stdin:
        text = text.strip()
        if text in ("quit", "q", "exit"):
            break
        if text in ("board", ""):
            say(draw_board(game), status(game))
            continue
        if text == "help":
            say(HELP)
            continue
        move = parse(game, text)
        finished = len(game.rounds)
        why = play_move(game, move) if move else "bad_move"
        if why:
            reason = REASONS.get(why, why.replace("_", " "))
            say("Refused: " + (reason % tables.faces if "%d" in reason else reason))
            continue
        if len(game.rounds) > finished:
            say(draw_board(game), describe_round(round_event(game, game.rounds[-1])))
            if game.match_over:
                m = match_event(game)["match"]
                say("Match over: white %d, black %d. %s" % (
                    m["white"], m["black"],
                    "A draw!" if m["winner"] == PLAYER_NAMES[DRAW] else m["winner"].capitalize() + " wins!"))
                return game
            game.start_round()
            say("", "Round %d: %s opens." % (game.round, PLAYER_NAMES[game.to_move]))
        say(draw_board(game), status(game))
    return game


def describe_round(event):
    how = {"line": "a winning line", "double_line": "a line each",
           "no_legal_square": "no legal square left", "out_of_dice": "all dice played"}
    who = "Draw" if event["result"] == "draw" else event["result"].capitalize() + " wins"
    lines = "; ".join(" ".join(line) for line in event["lines"])
    return "%s round %d by %s%s. Points: white %d, black %d." % (
        who, event["round"], how[event["reason"]], " (" + lines + ")" if lines else "",
        event["points"]["white"], event["points"]["black"])
