"""The tournament as the organiser follows it: who sits at which board in the round on show
(fleet/pairings.py), every match the boards play credited to its players, and the standings.

A match is credited to the players paired on its board when the page first sees it (its
new_match event, or the state of a match already going when the page started), so a later
round of pairings does not take it from them. Per player:

- points: the DOCE points their boards scored for them by the rulebook's round scoring (the
  boards' own round scores), in every match seen, the one in play too;
- rounds won, in those matches;
- matches played and won: those seen to end (match_end, or a board showing its match over),
  each once, whatever the board does after.

Ordered by matches won, then points, then rounds won; players level on all three share a place
("=4"). A board's events say what happened as it happens; its
retained state fills in what happened before the page was there.
"""

import threading

PLAYERS = ("white", "black")
# What the standings keep is bounded whatever a board sends: its latest matches (a tournament
# has a handful a board), and in each the rounds a board can play (doce/tables.py LIMITS: 99)
MAX_MATCHES = 64
MAX_ROUND = 99


class Match:
    """One match on one board: its players, its rounds' points, and its end once seen."""

    def __init__(self, board, white, black, boot=None, seq=0):
        self.board = board
        self.players = {"white": white, "black": black}
        self.rounds = {}  # round number -> {"white": points, "black": points}
        self.over = None  # {"white": total, "black": total, "winner": "white"|"black"|"draw"}
        self.since = (boot, seq)  # the board's boot and the seq of its new_match: its states come after

    def total(self, colour):
        if self.over:
            return number(self.over.get(colour))
        return sum(number(points.get(colour)) for points in self.rounds.values())

    def rounds_won(self, colour):
        other = PLAYERS[1 - PLAYERS.index(colour)]
        return sum(1 for points in self.rounds.values()
                   if number(points.get(colour)) > 0 and not number(points.get(other)))


class Tournament:
    """What the tournament page shows, from a Room (fleet/room.py) and the pairings."""

    def __init__(self, room, pairings=None, round_number=None):
        self.room = room
        self.pairings = pairings or {}
        self.round = round_number or (max(self.pairings) if self.pairings else None)
        self.lock = threading.Lock()
        self.matches = []  # every Match seen, in the order seen
        self.playing = {}  # board id -> its Match in play (or just ended)
        self.pictures = {}  # the page's drawings, (board id, kind) -> (the state drawn, svg): once a state
        self.before = room.on_event
        room.on_event = self._event

    # -- following the boards ---------------------------------------------------------------

    def _event(self, ident, event, state):
        if self.before:
            self.before(ident, event, state)
        kind = event.get("event")
        board = self.room.boards.get(ident)
        with self.lock:
            if kind == "new_match":
                self._begin(ident, board.boot if board else None, number(event.get("seq")))
                return
            match = self.playing.get(ident) or self._begin(ident, None, 0)
            played = number(event.get("round"))
            if kind == "round_end" and isinstance(event.get("points"), dict) and 0 < played <= MAX_ROUND:
                match.rounds[played] = dict(event["points"])
            elif kind == "match_end" and isinstance(event.get("match"), dict):
                match.over = dict(event["match"])

    def _begin(self, ident, boot, seq):
        players = self.players_of(ident) or (None, None)
        match = Match(ident, players[0], players[1], boot, seq)
        mine = [m for m in self.matches if m.board == ident]
        if len(mine) >= MAX_MATCHES:  # a board's flood of new matches: its oldest goes
            self.matches.remove(mine[0])
        self.matches.append(match)
        self.playing[ident] = match
        return match

    def _from_state(self, ident):
        """What the board's retained state adds to its match in play: the rounds before the
        page came, and its end. A state from before the match's new_match is not its own."""
        board = self.room.boards.get(ident)
        payload = board.state if board else None
        state = payload.get("state") if isinstance(payload, dict) else None
        if not isinstance(state, dict):
            return
        match = self.playing.get(ident)
        if match is None:
            if not state.get("scores") and state.get("mode") != "match_over" and not state.get("board"):
                return  # nothing played yet: the match begins with its new_match, or its first piece
            match = self._begin(ident, board.boot, 0)
        boot, seq = match.since
        if boot is not None and board.boot == boot and number(payload.get("seq")) < seq:
            return  # the old match's state, come after the new match's event
        scores = state.get("scores")
        if isinstance(scores, list):
            for n, points in enumerate(scores[:MAX_ROUND], 1):
                if isinstance(points, dict):
                    match.rounds.setdefault(n, dict(points))
        if state.get("mode") == "match_over" and match.over is None and isinstance(state.get("totals"), dict):
            match.over = dict(state["totals"], winner=state.get("winner"))

    # -- what the page shows ------------------------------------------------------------------

    def pairs(self):
        return self.pairings.get(self.round, [])

    def players_of(self, ident):
        """(white, black) paired on this board in the round on show, or None."""
        board = self.room.boards.get(ident)
        name = board.name if board else None
        for key, white, black in self.pairs():
            if key == ident or key == name:
                return white, black
        return None

    def snapshot(self):
        """Boards, pairings and standings as plain JSON values."""
        rows = self.room.rows()
        with self.lock:
            for row in rows:
                self._from_state(row["id"])
            boards = []
            for row in rows:
                match = self.playing.get(row["id"])
                players = (match.players["white"], match.players["black"]) if match else self.players_of(row["id"])
                s = self.state(row["id"])
                boards.append(dict(row, white_player=players[0] if players else None,
                                   black_player=players[1] if players else None,
                                   winner=s.get("winner") if s else None, state=s))
            standings = self.standings()
        names = {row["id"]: row["name"] for row in rows}
        by_name = {row["name"]: row["id"] for row in rows}
        pairings = [{"board": key, "name": names.get(key, key), "id": by_name.get(key, key if key in names else None),
                     "white": w, "black": b, "seen": key in names or key in by_name} for key, w, b in self.pairs()]
        return {"round": self.round, "boards": boards, "pairings": pairings, "standings": standings}

    def state(self, ident):
        board = self.room.boards.get(ident)
        payload = board.state if board else None
        s = payload.get("state") if isinstance(payload, dict) else None
        return s if isinstance(s, dict) else None

    def standings(self):
        table = {}

        def row(player):
            return table.setdefault(player, {"player": player, "won": 0, "rounds": 0, "points": 0, "played": 0,
                                             "playing": 0})
        for _, white, black in self.pairs():
            row(white), row(black)  # everyone paired shows, from nought
        for match in self.matches:
            for colour in PLAYERS:
                player = match.players[colour]
                if not player:
                    continue  # a board no pairing names
                r = row(player)
                r["points"] += match.total(colour)
                r["rounds"] += match.rounds_won(colour)
                if match.over:
                    r["played"] += 1
                    r["won"] += match.over.get("winner") == colour
                elif self.playing.get(match.board) is match:
                    r["playing"] += 1
        return ranked(sorted(table.values(), key=lambda r: (-r["won"], -r["points"], -r["rounds"], r["player"])))


def ranked(rows):
    """Each row's place: players level on matches won, points and rounds share it ("=4", as a
    tournament prints a tie), and the next place after them is counted past them (1, =2, =2, 4)."""
    level = lambda r: (r["won"], r["points"], r["rounds"])  # noqa: E731
    for i, r in enumerate(rows):
        r["rank"] = rows[i - 1]["rank"] if i and level(r) == level(rows[i - 1]) else i + 1
    for r in rows:
        r["place"] = ("=%d" if sum(o["rank"] == r["rank"] for o in rows) > 1 else "%d") % r["rank"]
    return rows


def number(value):
    return value if isinstance(value, int) and not isinstance(value, bool) else 0
