"""The protocol's shapes: docs/protocol.schema.json, the one description of every message.

A board is untrusted: whatever it sends is checked against the schema before a host acts
on it. The firmware's own numbers (PROTOCOL, MAX_LINE) come from `doce.link`.
"""

import json
from functools import lru_cache

import jsonschema

from .paths import ROOT

SCHEMA_FILE = ROOT / "docs" / "protocol.schema.json"


@lru_cache(maxsize=1)
def schema():
    whole = json.loads(SCHEMA_FILE.read_text())
    jsonschema.Draft202012Validator.check_schema(whole)  # once: about 70 ms
    return whole


@lru_cache(maxsize=None)
def validator(kind):
    """A reusable validator for one of the schema's shapes: request, from_board, state..."""
    whole = schema()
    if kind not in whole["$defs"]:
        raise KeyError("the protocol schema has no %r" % kind)
    return jsonschema.Draft202012Validator({"$ref": "#/$defs/" + kind, "$defs": whole["$defs"]})


def problem(message, kind="from_board"):
    """None if `message` has the shape `kind`, else one line saying where it does not."""
    error = jsonschema.exceptions.best_match(validator(kind).iter_errors(message))
    if error is None:
        return None
    where = "/".join(str(p) for p in error.absolute_path) or "the message"
    return "%s: %s" % (where, error.message[:200])


# Refusals of a reply, not of the command: the board carried it out (docs/protocol.md). A host must not
# send it again (a second new match, a second pairing): it asks the board where it stands instead.
CARRIED_OUT = ("no_room", "too_long")


def carried_out(reply):
    """The board did what the request asked: its reply says ok, or only that its full reply could not
    be sent."""
    return bool(reply.get("ok")) or reply.get("error") in CARRIED_OUT
