"""Every file the `doce` command reads that someone named: one rule for all of them.

A name given on the command line may be anything: a FIFO no one writes to (open() would wait for
a writer for ever), a device that never ends (/dev/zero), a directory, or a file far larger than
any the command reads. Each is refused here in one line, before more than `limit` bytes are read.
"""

import errno
import os
import stat
import sys

KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
         (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


class FileError(ValueError):
    """A file that cannot be read as asked: one line naming it and why."""


def size_text(limit):
    return "%d MB" % (limit >> 20) if limit >= 1 << 20 else "%d KB" % (limit >> 10) if limit >= 1024 else \
        "%d bytes" % limit


def read_limited(path, limit, what="the file"):
    """The bytes of the regular file at `path`, at most `limit` of them, else FileError. `what`
    says what it should have been ("a recorded game"). "-" is stdin, read to the same limit."""
    if str(path) == "-":
        data = sys.stdin.buffer.read(limit + 1)
    else:
        try:
            # O_NONBLOCK: opening a FIFO no one writes to returns at once, to be refused below
            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
        except OSError as e:
            why = {errno.ENOENT: "no such file", errno.ENAMETOOLONG: "no such file: the name is too long"}.get(
                e.errno, e.strerror or str(e))
            raise FileError("%s: cannot read (%s)" % (path, why)) from None
        except (ValueError, TypeError):  # a NUL in the name
            raise FileError("%r: no file can have that name" % str(path)) from None
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            os.close(fd)
            kind = next((name for test, name in KINDS if test(mode)), "of a kind unknown here")
            raise FileError("%s: not a regular file (%s), so not %s" % (path, kind, what))
        with os.fdopen(fd, "rb") as f:
            os.set_blocking(fd, True)
            try:
                data = f.read(limit + 1)
            except OSError as e:  # a file on a disk that fails, a directory on some systems
                raise FileError("%s: cannot read (%s)" % (path, e.strerror or e)) from None
    if len(data) > limit:
        raise FileError("%s: over %s, too big to be %s" % (path, size_text(limit), what))
    return data


def read_text(path, limit, what="the file", encoding="utf-8"):
    """read_limited, as text."""
    try:
        return read_limited(path, limit, what).decode(encoding)
    except UnicodeDecodeError:
        raise FileError("%s: not UTF-8 text, not %s" % (path, what)) from None


def read_line(stream, limit, what="a line"):
    """One line of a text stream (a password on stdin), without its end, read to `limit` characters."""
    line = stream.readline(limit + 1)
    if len(line) > limit and not line.endswith("\n"):
        raise FileError("%s is over %d characters" % (what, limit))
    return line.rstrip("\r\n")


def check_writable(path, what="the output"):
    """Refuse, before any work is done, a file named for writing that cannot take it: a directory, a
    FIFO (open() would wait for a reader for ever), a device (/dev/full), a missing folder or one
    not writable. A regular file may be replaced. FileError in one line, naming it."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        folder = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(folder):
            raise FileError("%s: cannot write %s (no folder %s)" % (path, what, folder)) from None
        if not os.access(folder, os.W_OK):
            raise FileError("%s: cannot write %s (the folder is not writable)" % (path, what)) from None
        return
    except OSError as e:
        raise FileError("%s: cannot write %s (%s)" % (path, what, e.strerror or e)) from None
    except (ValueError, TypeError):
        raise FileError("%r: no file can have that name" % str(path)) from None
    if not stat.S_ISREG(mode):
        kind = next((name for test, name in KINDS if test(mode)), "of a kind unknown here")
        raise FileError("%s: not a regular file (%s), so cannot take %s" % (path, kind, what))
    if not os.access(path, os.W_OK):
        raise FileError("%s: cannot write %s (not writable)" % (path, what))
