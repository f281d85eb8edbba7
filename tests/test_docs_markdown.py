"""The README and docs as Markdown renders them: an indented code block (a command to type)
ends with a blank line, else the prose after it is a line of the code. The README once had
"The browser tests need Chromium (sudo apt-get install ...)" on its `. .venv/bin/activate` line."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LIST_ITEM = re.compile(r"\s*([-*+]|\d+[.)])\s")


def glued(text):
    """(line number, line) of each prose line straight after an indented code block. A list's
    indented lines are the list's, not code; fenced blocks are left alone."""
    found, fenced, code, blank_before, in_list = [], False, False, True, False
    for n, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
        if fenced:
            continue
        if not line.strip():
            blank_before = True
            continue
        indented = line.startswith(("    ", "\t"))
        if LIST_ITEM.match(line) and not indented:
            in_list = True
        elif not indented and blank_before:
            in_list = False
        if indented and blank_before and not in_list:
            code = True
        elif code and not indented:
            if not blank_before:
                found.append((n, line))
            code = False
        blank_before = False
    return found


def test_the_check_finds_prose_glued_to_a_command():
    assert glued("Put it on your PATH:\n\n    . .venv/bin/activate\nThe browser tests need Chromium.\n") == [
        (4, "The browser tests need Chromium.")]
    assert glued("Put it on your PATH:\n\n    . .venv/bin/activate\n\nThe browser tests.\n") == []
    assert glued("- an item\n\n    its second paragraph\nmore of it\n") == []


def test_every_code_block_in_the_readme_and_docs_ends_with_a_blank_line():
    wrong = {str(path.relative_to(ROOT)): glued(path.read_text())
             for path in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]}
    assert {path: lines for path, lines in wrong.items() if lines} == {}
    assert "doce --help The browser" not in (ROOT / "README.md").read_text()
