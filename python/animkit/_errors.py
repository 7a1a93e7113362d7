"""Status codes, messages and the exception the module raises."""

import collections
import ctypes
import enum

from . import _lib


class Status(enum.IntEnum):
    """ak_status: each maps onto one sysexits.h exit code (Error.exit_code)."""
    OK = 0
    USAGE = 1
    DATA = 2
    UNSUPPORTED = 3
    NOFORMAT = 4
    AMBIGUOUS = 5
    LIMIT = 6
    NOINPUT = 7
    NOMEM = 8
    CANTCREATE = 9
    IO = 10
    CONFIG = 11
    NOWRITE = 12


class Severity(enum.IntEnum):
    NOTE = 0
    WARNING = 1
    ERROR = 2


def _text(b):
    """Names are bytes in the files; shown as Latin-1 (every byte one character)."""
    return b.decode("latin-1") if b is not None else None


Message = collections.namedtuple("Message", "severity status file plugin offset text line")
Message.__doc__ = """One diagnostic: severity and status, the file and plugin it is about (or
None), the byte offset (or None), the bare text, and the whole line as the CLI prints it."""


class Error(Exception):
    """A failed call, carrying the library's report of the first error.

    status       Status (also .status_name, and .exit_code: the sysexits.h code)
    offset       byte offset in the file, or None
    plugin       plugin that raised it, or None for the core
    text         the bare message; str(error) is the whole line
    messages     every message the call raised, warnings included
    """

    def __init__(self, status, message, text="", plugin=None, offset=None, messages=()):
        super().__init__(message)
        self.status = Status(status) if status in Status._value2member_map_ else status
        self.message = message
        self.text = text
        self.plugin = plugin or None
        self.offset = offset
        self.messages = list(messages)

    @property
    def status_name(self):
        return _lib.lib.ak_status_name(int(self.status)).decode()

    @property
    def exit_code(self):
        return _lib.lib.ak_status_exit(int(self.status))


class Collector:
    """An ak_report that keeps every message; raise_for() turns an error
    status into an Error."""

    def __init__(self, callback=None):
        self.messages = []
        self.callback = callback
        self.report = _lib.Report()
        self._fn = _lib.MESSAGE_FN(self._on_message)  # kept alive as long as the report
        self.report.on_message = self._fn

    def _on_message(self, user, msg_p):
        m = msg_p.contents
        line = ctypes.create_string_buffer(1200)
        _lib.lib.ak_message_format(msg_p, line, len(line))
        msg = Message(Severity(m.severity), m.status, _text(m.file), _text(m.plugin),
                      m.offset if m.offset >= 0 else None, _text(m.text), _text(line.value))
        self.messages.append(msg)
        if self.callback:
            self.callback(msg)

    @property
    def warnings(self):
        return [m for m in self.messages if m.severity == Severity.WARNING]

    def raise_for(self, status):
        if status == Status.OK:
            return
        r = self.report
        raise Error(status, _text(r.message) or _lib.lib.ak_status_name(status).decode(), _text(r.text),
                    _text(r.plugin), r.offset if r.offset >= 0 else None, self.messages)


_lib.lib.ak_message_format.restype = None
_lib.lib.ak_message_format.argtypes = [ctypes.POINTER(_lib.Message), ctypes.c_char_p, ctypes.c_size_t]


def check(status, what):
    """For calls that only fail when out of memory (or over a limit)."""
    if status != Status.OK:
        raise Error(status, "%s: %s" % (what, _lib.lib.ak_status_name(status).decode()))
