"""`doce rules validate|compile|push|pull|diff`: rules files, and the rules a board plays by.
cli.py hands these their parser."""

import json

from .commandline import UsageError, board_args, link_errors, load_tables, open_link, rules_arg, write_file


def cmd_rules_validate(args):
    for name in args.rules:
        t = load_tables(name)
        if args.json:
            print(json.dumps({"rules": name, "ok": True, "name": t.name, "lines": t.line_count,
                              "size": len(t.blob), "checksum": "%08x" % t.checksum}))
        else:
            print("%s: ok (%s, %d lines, tables %d bytes, checksum %08x)"
                  % (name, t.name, t.line_count, len(t.blob), t.checksum))


def cmd_rules_compile(args):
    t = load_tables(args.rules)
    out = args.output or t.name + ".doct"
    write_file(out, t.blob)
    if args.json:
        print(json.dumps({"file": out, "size": len(t.blob), "checksum": "%08x" % t.checksum}))
    else:
        print("%s: %d bytes, checksum %08x" % (out, len(t.blob), t.checksum))


@link_errors
def cmd_rules_push(args):
    t = load_tables(args.rules)
    link, _ = open_link(args)
    with link:
        reply = link.push_rules(t.blob, force=args.force)
    if args.json:
        print(json.dumps(reply))
    if not reply["ok"]:
        raise UsageError("%s: the board kept its rules: %s" % (args.port, reply["message"]))
    if not args.json:
        print("%s: now playing %s (%08x), %d bytes sent" % (args.port, t.name, t.checksum, len(t.blob)))


def board_tables(args):
    """The rule tables a board plays by, checked."""
    from doce.tables import Tables
    link, _ = open_link(args)
    with link:
        blob = link.pull_rules()
    try:
        return Tables(blob)
    except ValueError as e:
        raise UsageError("%s: %s" % (args.port, e)) from None


def file_name(board_string):
    """A file name in this folder made of a name a board sent: no separator, no '..', no
    control character survives (a board naming its rules '../x' must not choose the place)."""
    import re
    return re.sub(r"[^A-Za-z0-9_-]", "_", board_string)[:64] or "rules"


@link_errors
def cmd_rules_pull(args):
    from .view import printable
    t = board_tables(args)
    blob = t.blob
    out = args.output or file_name(t.name) + ".doct"
    write_file(out, blob)
    if args.json:
        print(json.dumps({"file": out, "rules": t.name, "checksum": "%08x" % t.checksum, "size": len(blob)}))
    else:
        print("%s: %s (%08x), %d bytes" % (printable(out), printable(t.name), t.checksum, len(blob)))


@link_errors
def cmd_rules_diff(args):
    from doce.tables import PARAMS

    from .view import printable
    mine = load_tables(args.rules)
    theirs = board_tables(args)
    fields = ("name",) + tuple(p for p in PARAMS if p != "flags") + ("diagonals", "opponent_end")
    differences = {f: {"board": getattr(theirs, f), "file": getattr(mine, f)}
                   for f in fields if getattr(theirs, f) != getattr(mine, f)}
    if args.json:
        print(json.dumps({"same": theirs.blob == mine.blob, "differences": differences}))
    elif theirs.blob == mine.blob:
        print("the board plays exactly these rules (%08x)" % mine.checksum)
    else:
        for f, d in differences.items():
            print(printable("%-22s board %-14s file %s" % (f, d["board"], d["file"])))


def add_rules(commands):
    rules = commands.add_parser("rules", help="validate and compile rules files",
                                description="Validate and compile rules files.")
    actions = rules.add_subparsers(dest="action", required=True, metavar="ACTION")
    for add in (add_rules_validate, add_rules_compile, add_rules_push, add_rules_pull, add_rules_diff):
        add(actions)


def add_rules_validate(actions):
    validate = actions.add_parser("validate", help="check rules files", description="Check rules files.")
    validate.add_argument("rules", nargs="+", metavar="RULES", help="a shipped name or a .json file")
    validate.add_argument("--json", action="store_true", help="print JSON for scripts")
    validate.set_defaults(run=cmd_rules_validate)


def add_rules_compile(actions):
    compile_ = actions.add_parser("compile", help="compile rules into board tables",
                                  description="Compile a rules file into the tables the board plays from.")
    rules_arg(compile_)
    compile_.add_argument("-o", "--output", metavar="FILE", help="where to write (default NAME.doct)")
    compile_.add_argument("--json", action="store_true", help="print JSON for scripts")
    compile_.set_defaults(run=cmd_rules_compile)


def add_rules_push(actions):
    push = actions.add_parser("push", help="send rules to a board",
                              description="Compile rules and send them to a board. The board checks them and "
                                          "keeps its old rules if anything is wrong; it refuses mid-match.")
    rules_arg(push)
    push.add_argument("--force", action="store_true", help="change rules mid-match (abandons the match)")
    board_args(push)
    push.set_defaults(run=cmd_rules_push)


def add_rules_pull(actions):
    pull = actions.add_parser("pull", help="fetch the rule tables a board plays",
                              description="Fetch the rule tables a board plays by.")
    pull.add_argument("-o", "--output", metavar="FILE", help="where to write (default NAME.doct)")
    board_args(pull)
    pull.set_defaults(run=cmd_rules_pull)


def add_rules_diff(actions):
    diff = actions.add_parser("diff", help="compare a board's rules with a rules file",
                              description="Show how a board's rules differ from a rules file.")
    rules_arg(diff)
    board_args(diff)
    diff.set_defaults(run=cmd_rules_diff)
