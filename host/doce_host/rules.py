"""Rules files: find, validate and compile them into the tables the board plays from.

A rules file (rules/*.json) names every parameter of a variant; its shape is
rules/rules.schema.json, and `check_sense` adds what a schema cannot say.
Nothing half-loaded is ever returned: `load` either gives valid rules or raises
RulesError naming the field and the reason.
"""

import importlib.resources
import json
import re
from pathlib import Path

import jsonschema

from doce import tables
from doce.link import MAX_RULES  # the most tables a board takes

from .files import FileError, read_text

MAX_FILE = 1 << 20  # a rules file is about 1 KB: anything over a megabyte is not one
NAME = re.compile(r"[a-z0-9][a-z0-9-]{0,31}")  # the schema's pattern, whole (its $ lets a newline end it)


class RulesError(ValueError):
    """A rules file that cannot be used; the message names the field and why."""


def _shipped(name):
    return importlib.resources.files("doce_rules").joinpath(name)


SCHEMA = json.loads(_shipped("rules.schema.json").read_text())


def shipped_names():
    return sorted(p.name[:-5] for p in importlib.resources.files("doce_rules").iterdir()
                  if p.name.endswith(".json") and p.name != "rules.schema.json")


def load(name_or_path):
    """Rules by shipped name ('standard') or from a file path, validated."""
    text_source = str(name_or_path)
    if "/" not in text_source and not text_source.endswith(".json") and not (
            text_source not in shipped_names() and is_file(text_source)):
        if text_source not in shipped_names():
            raise RulesError("%s: no such rules; shipped rules are %s"
                             % (text_source, ", ".join(shipped_names())))
        source = _shipped(text_source + ".json")
    else:
        source = None
    try:
        text = source.read_text("utf-8") if source else read_text(text_source, MAX_FILE, "a rules file")
    except FileError as e:
        raise RulesError(str(e)) from None
    try:
        rules = parse_json(text)
    except ValueError as e:
        raise RulesError("%s: %s" % (text_source, e)) from None
    try:
        validate(rules)
    except RulesError as e:
        raise RulesError("%s: %s" % (text_source, e)) from None
    except RecursionError:
        raise RulesError("%s: nested too deep to be rules" % text_source) from None
    return rules


def parse_json(text):
    """A JSON text, or ValueError in one line: a syntax error's place, a key written twice
    in one object (which would silently win or lose), or nesting deeper than the parser's
    recursion limit (a file of 100,000 '[' is no rules and no game)."""
    try:
        return json.loads(text, object_pairs_hook=_one_of_each)
    except json.JSONDecodeError as e:
        raise ValueError("not valid JSON (line %d, column %d: %s)" % (e.lineno, e.colno, e.msg)) from None
    except RecursionError:
        raise ValueError("not valid JSON (nested too deep)") from None


def _one_of_each(pairs):
    found = {}
    for key, value in pairs:
        if key in found:
            raise ValueError("not valid JSON: the key %s appears twice in one object" % json.dumps(key))
        found[key] = value
    return found


# JSON Schema counts 5.0 as an integer; the tables (and range(), and struct) do not: an
# integer here is a JSON number written without a fraction or exponent.
Validator = jsonschema.validators.extend(
    jsonschema.Draft202012Validator,
    type_checker=jsonschema.Draft202012Validator.TYPE_CHECKER.redefine(
        "integer", lambda checker, value: isinstance(value, int) and not isinstance(value, bool)))


def validate(rules):
    """Raise RulesError for the first problem found in a parsed rules object."""
    error = jsonschema.exceptions.best_match(Validator(SCHEMA).iter_errors(rules))
    if error is not None:
        where = ".".join(str(p) for p in error.absolute_path) or "rules"
        raise RulesError("%s: %s" % (where, _plain(error)))
    check_sense(rules)
    field = tables.bad_field([params(rules)[p] for p in tables.PARAMS])  # what the board will check
    if field:
        raise RulesError("%s: out of the range a board plays (doce/tables.py LIMITS)" % field)
    size = len(compile_tables(rules))
    if size > MAX_RULES:
        raise RulesError("these rules make %d bytes of tables; a board holds at most %d (a smaller grid, "
                         "line or no-play radius)" % (size, MAX_RULES))


def is_file(path):
    """A regular file there (not a device that reads forever); False for a name no system takes."""
    try:
        return Path(path).is_file()
    except (OSError, ValueError):  # a name too long, a NUL in it
        return False


def _plain(error):
    if error.validator == "additionalProperties":
        allowed = sorted(error.schema["properties"])
        return "%s (allowed keys: %s)" % (error.message, ", ".join(allowed))
    return error.message


def check_sense(r):
    """The rules between fields that make a variant playable at all."""
    if not NAME.fullmatch(r["name"]):
        raise RulesError("name: 1 to 32 of a-z, 0-9 and -, starting with a letter or digit")
    grid, length, faces = r["grid"], r["line_length"], r["faces"]
    if length > grid:
        raise RulesError("line_length: a line of %d does not fit on a %dx%d grid"
                         % (length, grid, grid))
    low, high = length, length * faces
    if not low <= r["target"] <= high:
        raise RulesError("target: no line of %d dice with faces 1-%d sums to %d (possible: %d to %d)"
                         % (length, faces, r["target"], low, high))
    if r["opponent_end"] and length < 3:
        raise RulesError("opponent_end: needs line_length of at least 3, or every "
                         "line of one die each would win for both players")
    pieces = 2 * (r["dice_per_player"] + r["blockers_per_player"])
    if pieces > grid * grid:
        raise RulesError("dice_per_player: %d dice and blockers do not fit on %d squares"
                         % (pieces, grid * grid))
    if len(lines(grid, length, r["diagonals"])) >= tables.END:
        raise RulesError("line_length: this grid has too many lines for the board's tables "
                         "(at most %d)" % (tables.END - 1))


DIRECTIONS = ((0, 1), (1, 0), (1, 1), (1, -1))  # along a row, a column, two diagonals


def lines(grid, length, diagonals):
    """Every line as a tuple of squares: rows, then columns, then diagonals."""
    found = []
    for dr, dc in DIRECTIONS if diagonals else DIRECTIONS[:2]:
        for row in range(grid):
            for col in range(grid):
                end_row, end_col = row + dr * (length - 1), col + dc * (length - 1)
                if 0 <= end_row < grid and 0 <= end_col < grid:
                    found.append(tuple((row + dr * i) * grid + col + dc * i for i in range(length)))
    return found


def zone(grid, square, radius):
    """The squares within `radius` kings' steps of `square`, itself excluded."""
    row, col = divmod(square, grid)
    return [r * grid + c
            for r in range(max(0, row - radius), min(grid, row + radius + 1))
            for c in range(max(0, col - radius), min(grid, col + radius + 1))
            if (r, c) != (row, col)]


def params(rules):
    """The tables' header fields (tables.PARAMS) of validated rules."""
    found = dict(rules["scoring"], **{k: rules[k] for k in tables.PARAMS if k in rules})
    found["flags"] = ((tables.DIAGONALS if rules["diagonals"] else 0)
                      | (tables.OPPONENT_END if rules["opponent_end"] else 0))
    return found


def compile_tables(rules):
    """The compiled tables (bytes) for validated rules."""
    grid = rules["grid"]
    all_lines = lines(grid, rules["line_length"], rules["diagonals"])
    squares = range(grid * grid)
    through = [[i for i, line in enumerate(all_lines) if sq in line] for sq in squares]
    zones = [zone(grid, sq, rules["no_play_radius"]) for sq in squares]
    return tables.pack(params(rules), rules["name"], all_lines, through, zones)


def load_tables(name_or_path):
    return tables.Tables(compile_tables(load(name_or_path)))

