"""A slow, obvious model of the rules, written from docs/rules.md without the engine's
tables or encodings, so property tests can check the engine against it."""

import re

CELL = re.compile(r"[a-z][1-9][0-9]?")
OTHER = {"white": "black", "black": "white"}


class Oracle:
    def __init__(self, rules, first="white"):
        self.r = rules
        self.first = first
        self.round = 0
        self.results = []
        self.new_round()

    def new_round(self):
        self.round += 1
        self.board = {}  # (col, row) -> ("white"|"black", face) or ("blocker", 0)
        self.to_move = self.first if self.round % 2 else OTHER[self.first]
        self.dice = {p: self.r["dice_per_player"] for p in OTHER}
        self.blockers = {p: self.r["blockers_per_player"] for p in OTHER}
        self.last = {p: None for p in OTHER}
        self.blocker_this_turn = False

    @property
    def match_over(self):
        return len(self.results) == self.r["rounds"]

    def square(self, cell):
        if not isinstance(cell, str) or not CELL.fullmatch(cell):
            return None
        col, row = ord(cell[0]) - ord("a"), int(cell[1:]) - 1
        return (col, row) if col < self.r["grid"] and row < self.r["grid"] else None

    def in_zone(self, player, sq):
        last = self.last[player]
        radius = self.r["no_play_radius"]
        return last is not None and sq != last and max(abs(sq[0] - last[0]), abs(sq[1] - last[1])) <= radius

    def legal(self, player):
        g = self.r["grid"]
        return [(c, r) for c in range(g) for r in range(g)
                if (c, r) not in self.board and not self.in_zone(player, (c, r))]

    def verdict(self, move):
        if self.match_over:
            return "match_over"
        if not isinstance(move, dict) or move.get("player") not in OTHER:
            return "bad_move"
        sq = self.square(move.get("cell"))
        if sq is None:
            return "off_board"
        if move["player"] != self.to_move:
            return "not_your_turn"
        if sq in self.board:
            return "occupied"
        if move.get("blocker") is True:
            return "no_blocker" if self.blocker_this_turn or self.blockers[move["player"]] == 0 else None
        v = move.get("value")
        if type(v) is not int or not 1 <= v <= self.r["faces"]:
            return "bad_value"
        if self.in_zone(move["player"], sq):
            return "no_play_zone"
        return None

    def all_lines(self):
        g, n = self.r["grid"], self.r["line_length"]
        steps = [(1, 0), (0, 1)] + ([(1, 1), (-1, 1)] if self.r["diagonals"] else [])
        for dc, dr in steps:
            for c in range(g):
                for r in range(g):
                    line = [(c + dc * i, r + dr * i) for i in range(n)]
                    if all(0 <= x < g and 0 <= y < g for x, y in line):
                        yield line

    def line_winner(self, line):
        pieces = [self.board.get(sq) for sq in line]
        if any(p is None or p[0] == "blocker" for p in pieces):
            return None
        if sum(f for _, f in pieces) != self.r["target"]:
            return None
        owners = [o for o, _ in pieces]
        for p in OTHER:
            if owners.count(p) == len(line):
                return p
            if self.r["opponent_end"] and owners.count(p) == len(line) - 1 and OTHER[p] in (owners[0], owners[-1]):
                return p
        return None

    def win_points(self, player, line):
        s = self.r["scoring"]
        mine = [f for o, f in self.board.values() if o == player]
        all_own = all(self.board[sq][0] == player for sq in line)
        empty = self.r["grid"] ** 2 - len(self.board)
        return (s["win"] + (s["all_own_line"] if all_own else 0)
                + (s["unused_blocker"] if self.blockers[player] == self.r["blockers_per_player"] else 0)
                + s["empty_square"] * empty
                - s["same_face_penalty"] * sum(mine.count(f) // s["same_face_group"] for f in set(mine)))

    def draw_points(self, player):
        s = self.r["scoring"]
        return s["draw"] + (s["unused_blocker"] if self.blockers[player] == self.r["blockers_per_player"] else 0)

    def play(self, move):
        """Apply a legal move; return the round's (result, reason, lines, points) if it ended."""
        p, sq = move["player"], self.square(move["cell"])
        if move.get("blocker") is True:
            self.board[sq] = ("blocker", 0)
            self.blockers[p] -= 1
            self.blocker_this_turn = True
            if not self.legal(p):
                return self.end("draw", "no_legal_square", [])
            return None
        self.board[sq] = (p, move["value"])
        self.dice[p] -= 1
        self.last[p] = sq
        self.blocker_this_turn = False
        won = [(w, line) for line in self.all_lines() if sq in line for w in [self.line_winner(line)] if w]
        winners = {w for w, _ in won}
        if len(winners) == 2:
            return self.end("draw", "double_line", won)
        if winners:
            return self.end(winners.pop(), "line", won)
        if self.dice["white"] == self.dice["black"] == 0:
            return self.end("draw", "out_of_dice", [])
        self.to_move = OTHER[p]
        if not self.legal(self.to_move):
            return self.end("draw", "no_legal_square", [])
        return None

    def end(self, result, reason, won):
        if result == "draw":
            points = {p: self.draw_points(p) for p in ("white", "black")}
        else:
            points = {result: max(self.win_points(result, line) for _, line in won), OTHER[result]: 0}
        names = sorted(sorted(chr(ord("a") + c) + str(r + 1) for c, r in line) for _, line in won)
        self.results.append((result, reason, names, points))
        return self.results[-1]
