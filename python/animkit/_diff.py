"""What Document.diff() returns: the library's ak_diff as Python objects."""

import ctypes
import enum

from . import _lib
from ._errors import check
from ._model import CHANNEL_NAMES, name_str

lib = _lib.lib


class DiffKind(enum.IntEnum):
    """ak_diff_kind: what one difference is about."""
    CLIP_ADDED = 0     # only in b
    CLIP_REMOVED = 1   # only in a
    DURATION = 2       # clip durations differ by more than tol
    TRACK_ADDED = 3
    TRACK_REMOVED = 4
    KEY_COUNT = 5      # a channel has count_a keys in a, count_b in b
    KEYS = 6           # same count, a time or value differs by more than tol
    EVENTS = 7         # the clips' events differ


class DiffEntry:
    """One difference.

    kind        DiffKind
    clip        clip name (from a, or b for an added clip)
    bone        the track's bone name; for an unnamed one its hash ("#0x1a2b3c4d"), else its
                id ("#12"), else its place ("(track 3)"); None for clip entries
    channel     "rotation", ... for KEY_COUNT and KEYS, else None
    count_a/b   keys (KEY_COUNT) or events (EVENTS) in a and b
    key         KEYS: index of the key with the largest difference
    component   KEYS: that key's component, 0-3 a value, -1 the time
    max_diff    that largest absolute difference (of durations for DURATION)
    """

    __slots__ = ("kind", "clip", "bone", "channel", "count_a", "count_b", "key", "component", "max_diff")

    def __init__(self, e):
        self.kind = DiffKind(e.kind) if e.kind in DiffKind._value2member_map_ else e.kind
        self.clip = name_str(e.clip)
        self.bone = name_str(e.bone) if e.bone is not None else None
        keyed = self.kind in (DiffKind.KEY_COUNT, DiffKind.KEYS)
        self.channel = CHANNEL_NAMES[e.channel] if keyed and 0 <= e.channel < 4 else None
        self.count_a, self.count_b = e.count_a, e.count_b
        self.key = e.key if self.kind == DiffKind.KEYS else None
        self.component = e.component if self.kind == DiffKind.KEYS else None
        self.max_diff = e.max_diff

    def __repr__(self):
        return "<animkit.DiffEntry %s>" % self

    def __str__(self):
        where = "clip %r" % self.clip + (" bone %r" % self.bone if self.bone is not None else "")
        k = self.kind
        if k == DiffKind.CLIP_ADDED:
            return where + ": only in B"
        if k == DiffKind.CLIP_REMOVED:
            return where + ": only in A"
        if k == DiffKind.DURATION:
            return where + ": durations differ by %.9g s" % self.max_diff
        if k == DiffKind.TRACK_ADDED:
            return where + ": track only in B"
        if k == DiffKind.TRACK_REMOVED:
            return where + ": track only in A"
        if k == DiffKind.KEY_COUNT:
            return where + " %s: %d keys in A, %d in B" % (self.channel, self.count_a, self.count_b)
        if k == DiffKind.KEYS:
            part = ("time" if self.component < 0 else "value" if self.channel == "visibility"
                    else "xyzw"[self.component & 3])
            return where + " %s: key %d %s differs by %.9g" % (self.channel, self.key, part, self.max_diff)
        if k == DiffKind.EVENTS:
            return where + ": events differ (%d in A, %d in B)" % (self.count_a, self.count_b)
        return where + ": differs"


class Diff(list):
    """The differences (DiffEntry), in the library's order; empty (false)
    when the documents are equal within the tolerance."""

    def __init__(self, entries, tol):
        super().__init__(entries)
        self.tol = tol

    @property
    def equal(self):
        return not self


def diff(a, b, tol):
    """ak_doc_diff: the entries are copied before the C result is freed (its
    strings point into the documents)."""
    tol = float(tol)
    if not tol >= 0:
        raise ValueError("the tolerance must be a number >= 0, not %r" % tol)
    out = ctypes.POINTER(_lib.Diff)()
    check(lib.ak_doc_diff(a._p, b._p, tol, ctypes.byref(out)), "diff")
    try:
        d = out.contents
        return Diff([DiffEntry(d.entries[i]) for i in range(d.count)], tol)
    finally:
        lib.ak_diff_free(out)
