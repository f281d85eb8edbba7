"""`doce fleet record DIR`: every board's games as recorded-game files (docs/referee.md), written
as the moves come in, and each refereed when a round ends, beside what the board itself said.

A file starts when a board starts a match (its new_match event) or, for a board met mid-way, at
its first move of a match that had none yet; a board met in the middle of a game is recorded
from its next match. A match against the board has "versus" (docs/referee.md; none for two
players): from a versus event before its first move (the board's button), else from the board's
state at its first move. Files are DIR/<board id>-<n>.json, rewritten (write, then rename) after every move.
"""

import json
import os
from pathlib import Path

from doce.referee import referee

from ..recorded import GameFileError, check_versus, match_of


def opponent_of(versus):
    """Who the board plays, from a state's or a versus event's `versus`, in the recorded format:
    None for two players, and for anything a board should not have sent."""
    if not isinstance(versus, dict):
        return None
    versus = {k: versus.get(k) for k in ("colour", "level")}  # a state's also has its move
    try:
        check_versus(versus)
    except GameFileError:
        return None
    return versus


class Game:
    def __init__(self, path, rules, first):
        self.path = path
        self.recorded = {"rules": rules, "first": first, "moves": []}
        self.versus_known = False  # a versus event, or the state at its first move, has said who plays

    def play_against(self, versus):
        """Who the board plays (opponent_of); none for two players, as doce referee reads it."""
        self.versus_known = True
        if versus is None:
            self.recorded.pop("versus", None)
        else:
            self.recorded["versus"] = versus

    def save(self):
        tmp = self.path.with_suffix(".new")
        tmp.write_text(json.dumps(self.recorded, indent=1) + "\n")
        os.replace(tmp, self.path)


class Recorder:
    def __init__(self, folder, say=print):
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.games = {}  # board id -> Game being recorded
        self.counts = {}
        self.say = say
        self.disagreements = 0

    def start(self, ident, rules, first):
        if ident not in self.counts:  # an earlier evening's games in this folder stay: number on from them
            self.counts[ident] = max((int(p.stem.rsplit("-", 1)[1]) for p in self.folder.glob(ident + "-*.json")
                                      if p.stem.rsplit("-", 1)[1].isdigit() and p.stem.rsplit("-", 1)[0] == ident),
                                     default=0)
        n = self.counts[ident] + 1
        self.counts[ident] = n
        game = Game(self.folder / ("%s-%d.json" % (ident, n)), rules, first)
        game.save()
        self.games[ident] = game
        return game

    def event(self, ident, event, state):
        """An event from board `ident` (in order, once), and its latest retained state (or None)."""
        kind = event.get("event")
        s = (state or {}).get("state") or {}
        if kind == "versus":  # who plays, chosen with the board's button before the first piece
            game = self.games.get(ident)
            if game is not None and not game.recorded["moves"]:
                game.play_against(opponent_of(event.get("versus")))
                game.save()
        elif kind == "new_match":
            self.start(ident, s.get("rules") or "standard", event.get("first", "white"))
        elif kind == "placed":
            game = self.games.get(ident)
            if game is None:
                others = [c for c in (s.get("board") or {}) if c != event.get("cell")]
                if s.get("round", 1) != 1 or others:
                    return  # met mid-game: recorded from its next match
                game = self.start(ident, s.get("rules") or "standard", s.get("first") or "white")
            if not game.recorded["moves"] and not game.versus_known:  # its state by now says who plays
                game.play_against(opponent_of(s.get("versus")))
            move = {"player": event.get("player"), "cell": event.get("cell")}
            if event.get("blocker"):
                move["blocker"] = True
            else:
                move["value"] = event.get("value")
            game.recorded["moves"].append(move)
            game.save()
        elif kind == "round_end" and ident in self.games:
            self.check(ident, event)

    def check(self, ident, event):
        """Referee the file so far; say whether it agrees with the board about the round."""
        game = self.games[ident]
        try:
            match, moves = match_of(game.recorded)
            verdicts = [v for v in referee(match, moves) if "round" in v]
        except GameFileError as e:
            self.say("%s round %s: cannot referee %s (%s)" % (ident, event.get("round"), game.path.name, e))
            return
        mine = next((v for v in verdicts if v.get("round") == event.get("round")), None)
        agree = mine is not None and mine.get("points") == event.get("points")
        self.disagreements += not agree
        self.say("%s round %s: board %s, referee %s%s" % (
            ident, event.get("round"), json.dumps(event.get("points")), json.dumps(mine and mine.get("points")),
            "" if agree else "  DISAGREE (%s)" % game.path.name))
