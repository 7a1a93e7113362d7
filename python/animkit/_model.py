"""The document model: Document, Clip, Track, Channel, Key, Event, Bone.

Every object is a view onto the library's memory and keeps its Document
alive. Clips and tracks stay valid while their document lives (until a clip
is removed); keys, events and bones are found again by index on each use,
because adding one may move the others.

Names are bytes in the files; they are given as str decoded from UTF-8,
bytes that are not UTF-8 kept as surrogate escapes (so every name survives
unchanged), and accepted as str or bytes.
"""

import ctypes
import os

from . import _lib
from ._errors import Collector, Error, Status, check

lib = _lib.lib

try:
    if os.environ.get("ANIMKIT_NO_NUMPY"):
        raise ImportError("disabled by ANIMKIT_NO_NUMPY")
    import numpy as _np
except ImportError:
    _np = None

CHANNEL_NAMES = ("rotation", "translation", "scale", "visibility")
WIDTH = (4, 3, 3, 1)


def have_numpy():
    """True when channel data comes as NumPy arrays."""
    return _np is not None


def use_numpy(enabled):
    """Switches between NumPy arrays (when importable) and lists."""
    global _np
    if not enabled:
        _np = None
    else:
        import numpy
        _np = numpy


def name_str(b):
    return b.decode("utf-8", "surrogateescape") if b is not None else ""


def name_bytes(s):
    if isinstance(s, bytes):
        return s
    return str(s).encode("utf-8", "surrogateescape")


def channel_kind(kind):
    if isinstance(kind, int):
        if 0 <= kind < 4:
            return kind
    elif kind in CHANNEL_NAMES:
        return CHANNEL_NAMES.index(kind)
    raise ValueError("channel must be one of %s, not %r" % (", ".join(CHANNEL_NAMES), kind))


def _props_dict(props):
    out = {}
    for i in range(props.count):
        p = props.items[i]
        key = name_str(p.key)
        if p.type == 1:
            out[key] = p.i
        elif p.type == 2:
            out[key] = p.f
        elif p.type == 3:
            out[key] = name_str(ctypes.string_at(p.data, p.size))
        else:
            out[key] = ctypes.string_at(p.data, p.size) if p.size else b""
    return out


def _set_prop(doc, props_p, key, value):
    k = name_bytes(key)
    if isinstance(value, bool):
        value = int(value)
    if isinstance(value, int):
        st = lib.ak_prop_set_int(doc._p, props_p, k, value)
    elif isinstance(value, float):
        st = lib.ak_prop_set_float(doc._p, props_p, k, value)
    elif isinstance(value, str):
        st = lib.ak_prop_set_string(doc._p, props_p, k, name_bytes(value))
    elif isinstance(value, (bytes, bytearray, memoryview)):
        data = bytes(value)
        st = lib.ak_prop_set_bytes(doc._p, props_p, k, data, len(data))
    else:
        raise TypeError("a property is an int, float, str or bytes, not %s" % type(value).__name__)
    check(st, "setting property %r" % key)


class Document:
    """A document: clips of tracks of keys, events, props and a skeleton.

    Document() is a new empty one; Registry.read() returns one read from a
    file. Freed when the last reference (its own or a clip's, track's...)
    goes away.
    """

    def __init__(self, _pointer=None, warnings=()):
        p = _pointer if _pointer is not None else lib.ak_doc_new()
        if not p:
            raise MemoryError("animkit: out of memory")
        self._p = p
        self.warnings = list(warnings)  # what the reader warned about

    def __del__(self):
        p = getattr(self, "_p", None)
        if p and lib is not None:  # lib may be gone at interpreter exit
            lib.ak_doc_free(p)
            self._p = None

    @property
    def _d(self):
        return self._p.contents

    @property
    def format(self):
        return name_str(self._d.format)

    @property
    def variant(self):
        return name_str(self._d.variant)

    @property
    def outline(self):
        """True when the keys were counted, not read (read(..., outline=True)
        from a plugin that reads outlines): stats() counts them, every
        channel is empty, and the document cannot be written."""
        return bool(lib.ak_doc_outline(self._p))

    def set_format(self, format, variant=""):
        check(lib.ak_doc_set_format(self._p, name_bytes(format), name_bytes(variant)), "set_format")

    @property
    def props(self):
        """The document's props as a dict (a copy; change with set_prop)."""
        return _props_dict(self._d.props)

    def set_prop(self, key, value):
        _set_prop(self, ctypes.byref(self._d.props), key, value)

    # -- clips --------------------------------------------------------------
    @property
    def clips(self):
        d = self._d
        return [Clip(self, d.clips[i]) for i in range(d.clip_count)]

    def clip(self, name):
        """The first clip of this name, compared case-insensitively; None if none."""
        want = name_bytes(name).lower()
        d = self._d
        for i in range(d.clip_count):
            if d.clips[i].contents.name.lower() == want:
                return Clip(self, d.clips[i])
        return None

    def add_clip(self, name):
        p = lib.ak_clip_add(self._p, name_bytes(name))
        if not p:
            raise MemoryError("animkit: out of memory adding a clip")
        return Clip(self, p)

    def remove_clip(self, clip):
        """Removes a clip (a Clip or an index); Clip objects for it become invalid."""
        lib.ak_clip_remove(self._p, self._clip_position(clip))

    def _clip_position(self, clip):
        """The index of a Clip of this document, an index, or a name."""
        d = self._d
        if isinstance(clip, Clip):
            for i in range(d.clip_count):
                if ctypes.addressof(d.clips[i].contents) == ctypes.addressof(clip._c):
                    return i
            raise ValueError("the clip is not in this document")
        if isinstance(clip, (str, bytes)):
            i = self.clip_index(clip)
            if i is None:
                raise KeyError("no clip named %r" % (clip,))
            return i
        if not 0 <= clip < d.clip_count:
            raise IndexError("clip index out of range")
        return clip

    # -- editing (the CLI's replace, merge, split, rename, bones, diff) -------
    def clip_index(self, name):
        """The index of the first clip of this name (case-insensitive), or None."""
        i = lib.ak_doc_clip_index(self._p, name_bytes(name))
        return i if i >= 0 else None

    def put_clip(self, clip, name=None):
        """Puts a copy of `clip` (of any document, this one included) under
        `name` (default: its own): in place of the first clip of that name
        (which keeps its spelling and position), else appended. A clip of the
        same format and variant keeps its stored bytes, so writing emits it
        as its file held it; from another format its keys are encoded afresh
        and that format's props are dropped. Returns the new Clip; Clip
        objects for a replaced clip become invalid. On failure the document
        is unchanged."""
        if not isinstance(clip, Clip):
            raise TypeError("put_clip wants a Clip, not %s" % type(clip).__name__)
        at = ctypes.c_size_t()
        check(lib.ak_doc_put_clip(self._p, clip._p, name_bytes(name) if name is not None else None,
                                  ctypes.byref(at)), "put_clip")
        return Clip(self, self._d.clips[at.value])

    def merge(self, other):
        """Appends copies of every clip of `other` (clips of equal names are
        all kept, as packages hold them; stored bytes as put_clip). An empty
        new Document takes other's format, variant, props and skeleton.
        Returns the added clips."""
        before = self._d.clip_count
        check(lib.ak_doc_merge(self._p, other._p), "merge")
        d = self._d
        return [Clip(self, d.clips[i]) for i in range(before, d.clip_count)]

    def extract_clip(self, clip):
        """A new Document holding a copy of one clip (a Clip, index or name)
        with this document's format, variant, props and skeleton: a package
        split into files of its own format."""
        p = lib.ak_doc_extract_clip(self._p, self._clip_position(clip))
        if not p:
            raise MemoryError("animkit: out of memory extracting a clip")
        return Document(p)

    def rename_bones(self, mapping):
        """Renames tracks' bones, {old: new} or (old, new) pairs, all in one
        pass (so {"a": "b", "b": "a"} swaps). A track that stores a bone
        hash gets the CRC-32 of its new name. Returns the tracks renamed."""
        pairs = list(mapping.items()) if hasattr(mapping, "items") else list(mapping)
        src = (ctypes.c_char_p * len(pairs))(*[name_bytes(a) for a, _ in pairs])
        dst = (ctypes.c_char_p * len(pairs))(*[name_bytes(b) for _, b in pairs])
        n = lib.ak_doc_rename_bones(self._p, src, dst, len(pairs))
        if n == ctypes.c_size_t(-1).value:
            raise MemoryError("animkit: out of memory renaming bones")
        return n

    def assign_bone_ids(self, skeleton):
        """Attaches a copy of `skeleton`'s bones (as attach_skeleton) and gives
        every matched track its bone's id, where the bone has one. Returns
        the number of tracks that got an id."""
        n = ctypes.c_size_t()
        check(lib.ak_doc_assign_bone_ids(self._p, skeleton._p, ctypes.byref(n)), "assign_bone_ids")
        return n.value

    def diff(self, other, tol=1e-9):
        """What differs from `other` (any format): clips by name, tracks by
        bone, keys by position; numbers within `tol` are equal, and so are a
        quaternion and its negation. Returns a Diff, a list of DiffEntry,
        empty when equal (the CLI's `animkit diff`)."""
        from ._diff import diff  # _diff builds on this module
        return diff(self, other, tol)

    # -- skeleton -----------------------------------------------------------
    @property
    def bones(self):
        return [Bone(self, i) for i in range(self._d.skeleton.bone_count)]

    def add_bone(self, name, parent=-1, id=None, hash=None, translation=None, rotation=None, scale=None):
        """Appends a bone; `parent` is the index of an earlier bone or -1."""
        p = lib.ak_bone_add(self._p, name_bytes(name))
        if not p:
            raise MemoryError("animkit: out of memory adding a bone")
        bone = Bone(self, self._d.skeleton.bone_count - 1)
        bone.parent = parent
        bone.id = id
        bone.hash = hash
        if translation is not None:
            bone.translation = translation
        if rotation is not None:
            bone.rotation = rotation
        if scale is not None:
            bone.scale = scale
        return bone

    def find_bone(self, name=None, id=None, hash=None):
        """The first bone with this exact name, id or hash; None if none."""
        if name is not None:
            i = lib.ak_skeleton_find_name(self._p, name_bytes(name))
        elif id is not None:
            i = lib.ak_skeleton_find_id(self._p, id)
        elif hash is not None:
            i = lib.ak_skeleton_find_hash(self._p, hash)
        else:
            raise TypeError("find_bone needs name, id or hash")
        return Bone(self, i) if i >= 0 else None

    def attach_skeleton(self, other):
        """Replaces the skeleton with a copy of `other`'s and ties every track
        to a bone (id, exact name, name ignoring case and spaces, hash).
        Returns the number of tracks matched."""
        check(lib.ak_doc_attach_skeleton(self._p, other._p), "attach_skeleton")
        return sum(lib.ak_clip_skeleton_matched(c._p) for c in self.clips)

    def match_skeleton(self):
        """Ties the tracks to this document's own bones again (after edits)."""
        n = lib.ak_doc_match_skeleton(self._p)
        if n == ctypes.c_size_t(-1).value:
            raise MemoryError("animkit: out of memory matching the skeleton")
        return n

    # -- whole-document operations ------------------------------------------
    def clone(self):
        p = lib.ak_doc_clone(self._p)
        if not p:
            raise MemoryError("animkit: out of memory cloning")
        return Document(p)

    def stats(self):
        s = _lib.DocStats()
        lib.ak_doc_stats_get(self._p, ctypes.byref(s))
        return _stats_dict(s)

    def validate(self, file=None):
        """Structural checks; returns the list of findings (Message), errors
        and warnings. `errors` of the result counts the errors."""
        col = Collector()
        n = lib.ak_doc_validate(self._p, name_bytes(file) if file else None, ctypes.byref(col.report))
        return ValidationResult(col.messages, n)

    def name_bones(self, names):
        """Names hash-only tracks from a list of candidate names (CRC-32)."""
        arr = (ctypes.c_char_p * len(names))(*[name_bytes(n) for n in names])
        return lib.ak_doc_name_bones(self._p, arr, len(names))

    def to_json(self, clip=None, raw=False, ticks=False):
        """The JSON dump (schema 1, see README.md) as a str."""
        flags = (1 if raw else 0) | (2 if ticks else 0)
        c = name_bytes(clip) if clip is not None else None
        if not _lib.HAVE_MEMSTREAM:
            raise Error(Status.UNSUPPORTED, "animkit: to_json needs open_memstream in the C library")
        buf, size = ctypes.c_void_p(), ctypes.c_size_t()
        f = _lib.libc.open_memstream(ctypes.byref(buf), ctypes.byref(size))
        if not f:
            raise MemoryError("animkit: cannot open a memory stream")
        st = lib.ak_doc_write_json(self._p, c, flags, f)
        _lib.libc.fclose(f)
        text = ctypes.string_at(buf, size.value) if buf else b""
        _lib.libc.free(buf)
        check(st, "to_json")
        return text.decode("ascii")


def _stats_dict(s):
    return {"clips": s.clips, "tracks": s.tracks, "events": s.events,
            "keys": {CHANNEL_NAMES[i]: s.keys[i] for i in range(4)},
            "hashes": s.hashes, "hashes_named": s.hashes_named}


class ValidationResult(list):
    """The findings of Document.validate(); .errors counts the errors."""

    def __init__(self, messages, errors):
        super().__init__(messages)
        self.errors = errors

    @property
    def ok(self):
        return self.errors == 0


class Clip:
    """One animation: name, duration (s), frame_rate, tick_rate, tracks, events."""

    def __init__(self, doc, pointer):
        self.doc = doc
        self._p = pointer

    @property
    def _c(self):
        return self._p.contents

    def __repr__(self):
        return "<animkit.Clip %r, %d tracks>" % (self.name, self._c.track_count)

    def __eq__(self, other):
        return isinstance(other, Clip) and ctypes.addressof(self._c) == ctypes.addressof(other._c)

    def __hash__(self):
        return ctypes.addressof(self._c)

    @property
    def name(self):
        return name_str(self._c.name)

    @name.setter
    def name(self, value):
        check(lib.ak_clip_set_name(self._p, name_bytes(value)), "clip name")

    def _get(field):
        return property(lambda self: getattr(self._c, field),
                        lambda self, v: setattr(self._c, field, float(v)))

    duration = _get("duration")
    frame_rate = _get("frame_rate")
    tick_rate = _get("tick_rate")
    del _get

    @property
    def props(self):
        return _props_dict(self._c.props)

    def set_prop(self, key, value):
        _set_prop(self.doc, ctypes.byref(self._c.props), key, value)

    @property
    def tracks(self):
        c = self._c
        return [Track(self.doc, c.tracks[i]) for i in range(c.track_count)]

    def track(self, bone):
        """The first track of this exact bone name; None if none."""
        want = name_bytes(bone)
        c = self._c
        for i in range(c.track_count):
            if c.tracks[i].contents.bone == want:
                return Track(self.doc, c.tracks[i])
        return None

    def add_track(self, bone, id=None, hash=None):
        p = lib.ak_track_add(self._p, name_bytes(bone))
        if not p:
            raise MemoryError("animkit: out of memory adding a track")
        t = Track(self.doc, p)
        t.bone_id = id
        t.bone_hash = hash
        return t

    @property
    def events(self):
        return [Event(self, i) for i in range(self._c.event_count)]

    def add_event(self, time, type, info=""):
        if not lib.ak_event_add(self._p, float(time), name_bytes(type), name_bytes(info)):
            raise MemoryError("animkit: out of memory adding an event")
        return Event(self, self._c.event_count - 1)

    def retime(self, speed=None, reverse=False, trim=None, fps=None):
        """Retimes every track and event, in this order: trim=(t0, t1) keeps
        that span (seconds) and starts it at 0; reverse plays it backwards
        (time -> duration - time); speed divides times and the duration;
        fps resamples every channel at 1/fps steps (slerp for rotations).
        Changed keys are re-encoded by writers. Bad arguments raise Error
        with status USAGE; after an error the clip may be partly retimed
        (retime a clone to keep the original). Returns the clip."""
        how = _lib.Retime(struct_size=ctypes.sizeof(_lib.Retime))
        if trim is not None:
            how.trim, (how.t0, how.t1) = 1, (float(trim[0]), float(trim[1]))
        how.reverse = 1 if reverse else 0
        how.speed = float(speed) if speed is not None else 0.0
        how.fps = float(fps) if fps is not None else 0.0
        st = lib.ak_clip_retime(self._p, ctypes.byref(how))
        if st == Status.USAGE:
            raise Error(st, "clip %r: retime: bad arguments (trim=%r, speed=%r, fps=%r): a trim needs "
                        "0 <= t0 < duration and t0 < t1; speed and fps are numbers >= 0"
                        % (self.name, trim, speed, fps), "bad retime arguments")
        check(st, "clip %r: retime" % self.name)
        return self

    @property
    def skeleton_matched(self):
        """How many tracks are tied to a bone of the document's skeleton."""
        return lib.ak_clip_skeleton_matched(self._p)

    def stats(self):
        s = _lib.DocStats()
        lib.ak_clip_stats_get(self._p, ctypes.byref(s))
        return _stats_dict(s)


class Track:
    """The keys of one bone in one clip: bone name, optional id and hash,
    weight, and four channels (rotation, translation, scale, visibility)."""

    def __init__(self, doc, pointer):
        self.doc = doc
        self._p = pointer

    @property
    def _t(self):
        return self._p.contents

    def __repr__(self):
        return "<animkit.Track %r>" % self.bone

    @property
    def bone(self):
        return name_str(self._t.bone)

    @bone.setter
    def bone(self, value):
        check(lib.ak_track_set_bone(self._p, name_bytes(value)), "track bone")

    @property
    def bone_id(self):
        t = self._t
        return t.bone_id if t.has_bone_id else None

    @bone_id.setter
    def bone_id(self, value):
        t = self._t
        t.has_bone_id = value is not None
        t.bone_id = value if value is not None else 0

    @property
    def bone_hash(self):
        t = self._t
        return t.bone_hash if t.has_bone_hash else None

    @bone_hash.setter
    def bone_hash(self, value):
        t = self._t
        t.has_bone_hash = value is not None
        t.bone_hash = value if value is not None else 0

    @property
    def weight(self):
        return self._t.weight

    @weight.setter
    def weight(self, value):
        self._t.weight = float(value)

    @property
    def skeleton_bone(self):
        """The Bone this track drives (after a skeleton is attached), or None."""
        i = self._t.skeleton_bone
        return Bone(self.doc, i) if i >= 0 else None

    @property
    def props(self):
        return _props_dict(self._t.props)

    def set_prop(self, key, value):
        _set_prop(self.doc, ctypes.byref(self._t.props), key, value)

    def channel(self, kind):
        return Channel(self, channel_kind(kind))

    rotation = property(lambda self: Channel(self, 0))
    translation = property(lambda self: Channel(self, 1))
    scale = property(lambda self: Channel(self, 2))
    visibility = property(lambda self: Channel(self, 3))


class Channel:
    """The keys of one kind in a track, in time order.

    len(), iteration and [i] give Key objects; times(), ticks() and values()
    give all keys at once: NumPy arrays that are views onto the library's
    memory when NumPy is present (no Python object per key; writing into them
    edits the keys, which writers then re-encode), else lists. Views are
    valid until a key is added to this channel.
    """

    def __init__(self, track, kind):
        self.track = track
        self.kind = kind
        self.width = WIDTH[kind]

    @property
    def name(self):
        return CHANNEL_NAMES[self.kind]

    @property
    def _ch(self):
        return self.track._t.channel[self.kind]

    def __len__(self):
        return self._ch.count

    def __getitem__(self, i):
        n = len(self)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("key index out of range")
        return KeyView(self, i)

    def __iter__(self):
        for i in range(len(self)):
            yield KeyView(self, i)

    def __repr__(self):
        return "<animkit.Channel %s, %d keys>" % (self.name, len(self))

    def reserve(self, count):
        check(lib.ak_channel_reserve(self.track._p, self.kind, count), "reserve")

    def add(self, time, value=None, tick=0):
        """Appends a key (keep times ascending) and returns it."""
        k = lib.ak_key_add(self.track._p, self.kind)
        if not k:
            raise MemoryError("animkit: out of memory adding a key")
        key = KeyView(self, len(self) - 1)
        key.time = time
        key.tick = tick
        if value is not None:
            key.value = value
        return key

    def _array(self):
        """A structured NumPy view of the keys (time, tick, v[4])."""
        ch = self._ch
        dtype = _np.dtype({"names": ["time", "tick", "v"], "formats": ["<f8", "<i8", ("<f8", 4)],
                           "offsets": [0, 8, 16], "itemsize": ctypes.sizeof(_lib.Key)})
        if not ch.count:
            return _np.zeros(0, dtype=dtype)
        size = ch.count * ctypes.sizeof(_lib.Key)
        buf = (ctypes.c_char * size).from_address(ctypes.addressof(ch.keys.contents))
        arr = _np.frombuffer(buf, dtype=dtype)
        buf._owner = self.track.doc  # the memory lives as long as the document
        return arr

    def array(self):
        """The keys as a NumPy structured array view (fields time, tick, v)."""
        if _np is None:
            raise RuntimeError("animkit: NumPy is not available")
        return self._array()

    def times(self):
        if _np is not None:
            return self._array()["time"]
        ch = self._ch
        return [ch.keys[i].time for i in range(ch.count)]

    def ticks(self):
        if _np is not None:
            return self._array()["tick"]
        ch = self._ch
        return [ch.keys[i].tick for i in range(ch.count)]

    def values(self):
        """(n, width) values: x, y, z, w for rotations, x, y, z for translation
        and scale, 0/1 for visibility."""
        if _np is not None:
            return self._array()["v"][:, :self.width]
        ch, w = self._ch, self.width
        return [tuple(ch.keys[i].v[:w]) for i in range(ch.count)]

    def set_times(self, times):
        ch = self._ch
        if len(times) != ch.count:
            raise ValueError("%d times for %d keys" % (len(times), ch.count))
        if _np is not None:
            self._array()["time"][:] = _np.asarray(times, dtype=float)
            return
        for i, t in enumerate(times):
            ch.keys[i].time = float(t)

    def set_values(self, values):
        ch = self._ch
        if len(values) != ch.count:
            raise ValueError("%d values for %d keys" % (len(values), ch.count))
        if _np is not None:
            self.values()[:] = _np.asarray(values, dtype=float).reshape(ch.count, self.width)
            return
        for i, v in enumerate(values):
            KeyView(self, i).value = v

    def sample(self, time):
        """The value at `time` (slerp for rotations, lerp otherwise, the
        previous key's for visibility); None for an empty channel."""
        out = (ctypes.c_double * 4)()
        if not lib.ak_channel_sample(ctypes.byref(self._ch), self.kind, float(time), out):
            return None
        return tuple(out[:self.width])


class KeyView:
    """One key: time (s), tick (native time), value (tuple), raw (stored bytes)."""

    def __init__(self, channel, index):
        self.channel = channel
        self.index = index

    @property
    def _k(self):
        ch = self.channel._ch
        if self.index >= ch.count:
            raise IndexError("the key no longer exists")
        return ch.keys[self.index]

    def __repr__(self):
        return "<animkit.Key %s t=%g %r>" % (self.channel.name, self.time, self.value)

    @property
    def time(self):
        return self._k.time

    @time.setter
    def time(self, value):
        self._k.time = float(value)

    @property
    def tick(self):
        return self._k.tick

    @tick.setter
    def tick(self, value):
        self._k.tick = int(value)

    @property
    def value(self):
        return tuple(self._k.v[:self.channel.width])

    @value.setter
    def value(self, v):
        k, w = self._k, self.channel.width
        if w == 1 and not isinstance(v, (tuple, list)) and not hasattr(v, "__len__"):
            v = (v,)
        if len(v) != w:
            raise ValueError("a %s key has %d values, not %d" % (self.channel.name, w, len(v)))
        for i in range(w):
            k.v[i] = float(v[i])

    @property
    def raw(self):
        k = self._k
        return ctypes.string_at(k.raw, k.raw_size) if k.raw_size else b""

    @property
    def changed(self):
        """True when edited since the file stored it (writers re-encode it)."""
        ch = self.channel._ch
        return bool(lib.ak_key_changed(ctypes.pointer(ch.keys[self.index])))

    def touch(self):
        ch = self.channel._ch
        lib.ak_key_touch(ctypes.pointer(ch.keys[self.index]))


class Event:
    """A clip event: time (s), type, info."""

    def __init__(self, clip, index):
        self.clip = clip
        self.index = index

    @property
    def _e(self):
        return self.clip._c.events[self.index]

    def __repr__(self):
        return "<animkit.Event %g %r %r>" % (self.time, self.type, self.info)

    @property
    def time(self):
        return self._e.time

    @time.setter
    def time(self, value):
        self._e.time = float(value)

    type = property(lambda self: name_str(self._e.type))
    info = property(lambda self: name_str(self._e.info))

    @property
    def props(self):
        return _props_dict(self._e.props)


class Bone:
    """One bone of the skeleton: name, id, hash (None when absent), parent
    index (-1 for a root), rest translation, rotation (x, y, z, w), scale."""

    def __init__(self, doc, index):
        self.doc = doc
        self.index = index

    @property
    def _b(self):
        sk = self.doc._d.skeleton
        if self.index >= sk.bone_count:
            raise IndexError("the bone no longer exists")
        return sk.bones[self.index]

    def __repr__(self):
        return "<animkit.Bone %d %r parent %d>" % (self.index, self.name, self.parent)

    def __eq__(self, other):
        return isinstance(other, Bone) and other.doc is self.doc and other.index == self.index

    def __hash__(self):
        return hash((id(self.doc), self.index))

    @property
    def name(self):
        return name_str(self._b.name)

    @name.setter
    def name(self, value):
        sk = self.doc._d.skeleton
        self._b  # bounds check
        check(lib.ak_bone_set_name(self.doc._p, ctypes.pointer(sk.bones[self.index]), name_bytes(value)),
              "bone name")

    def _optional(field, flag):
        def get(self):
            b = self._b
            return getattr(b, field) if getattr(b, flag) else None

        def put(self, value):
            b = self._b
            setattr(b, flag, value is not None)
            setattr(b, field, value if value is not None else 0)
        return property(get, put)

    id = _optional("id", "has_id")
    hash = _optional("hash", "has_hash")
    del _optional

    @property
    def parent(self):
        return self._b.parent

    @parent.setter
    def parent(self, value):
        self._b.parent = int(value)

    @property
    def parent_bone(self):
        p = self.parent
        return Bone(self.doc, p) if 0 <= p < self.doc._d.skeleton.bone_count else None

    def _vector(field, n):
        def get(self):
            return tuple(getattr(self._b, field)[:n])

        def put(self, value):
            if len(value) != n:
                raise ValueError("%s has %d values, not %d" % (field, n, len(value)))
            arr = getattr(self._b, field)
            for i in range(n):
                arr[i] = float(value[i])
        return property(get, put)

    translation = _vector("translation", 3)
    rotation = _vector("rotation", 4)
    scale = _vector("scale", 3)
    del _vector

    @property
    def props(self):
        return _props_dict(self._b.props)

    def set_prop(self, key, value):
        sk = self.doc._d.skeleton
        self._b
        _set_prop(self.doc, ctypes.pointer(sk.bones[self.index].props), key, value)


def crc32(data):
    """CRC-32 as zlib computes it (bone hashes)."""
    b = name_bytes(data)
    return lib.ak_crc32(b, len(b))


def slerp(a, b, u):
    """Spherical interpolation of unit quaternions (x, y, z, w), shorter arc."""
    qa, qb, out = (ctypes.c_double * 4)(*a), (ctypes.c_double * 4)(*b), (ctypes.c_double * 4)()
    lib.ak_quat_slerp(qa, qb, float(u), out)
    return tuple(out)

