"""The registry of codecs: probing, reading, writing, converting."""

import collections
import ctypes
import os

from . import _lib
from ._errors import Collector, Error, Status, _text
from ._model import Document, name_bytes

lib = _lib.lib

Format = collections.namedtuple("Format", "name version abi extensions can_read can_write description license "
                                          "path priority caps")
Refused = collections.namedtuple("Refused", "name path reason")

NO_PLUGINS = 1
NO_SEARCH = 2
READ_OUTLINE = 2  # ak_options.flags


def _params(params):
    """A NULL-terminated char *[] from a dict or a list of "key=value"."""
    if params is None:
        return None
    if isinstance(params, dict):
        params = ["%s=%s" % (k, v) for k, v in params.items()]
    items = [name_bytes(p) for p in params]
    for p in items:
        if b"=" not in p:
            raise ValueError("a parameter is key=value, not %r" % p)
    return (ctypes.c_char_p * (len(items) + 1))(*items, None)


def _options(format=None, filename=None, params=None, max_alloc=0):
    arr = _params(params)
    o = _lib.Options(ctypes.sizeof(_lib.Options), name_bytes(format) if format else None,
                     os.fsencode(filename) if filename else None, arr, max_alloc)
    o._keep = arr  # the array must live as long as the options
    return o


class Registry:
    """The codecs: the plugins a config names (see animkit(1)), found as the
    CLI finds them unless `config` names a file.

    Registry()                            the usual search ($ANIMKIT_CONFIG, ...)
    Registry(config="animkit.ini")        only that config file
    Registry(plugin_path="a:b")           these folders where the config sets none
    Registry(no_plugins=True)             empty (for tests)
    on_message(Message) sees warnings while plugins load; they are also kept
    in .warnings.
    """

    def __init__(self, config=None, plugin_path=None, no_plugins=False, on_message=None):
        self._p = None
        col = Collector(on_message)
        flags = (NO_PLUGINS if no_plugins else 0) | (NO_SEARCH if config else 0)
        cfg = _lib.RegistryConfig(ctypes.sizeof(_lib.RegistryConfig), flags,
                                  os.fsencode(config) if config else None, None, col._fn, None,
                                  os.fsencode(plugin_path) if plugin_path else None)
        p = ctypes.c_void_p()
        st = lib.ak_registry_open(ctypes.byref(cfg), ctypes.byref(p), ctypes.byref(col.report))
        col.raise_for(st)
        self._p = p
        self._log = col  # the registry keeps its callback for later warnings
        self.warnings = col.warnings

    def __del__(self):
        if getattr(self, "_p", None) and lib is not None:
            lib.ak_registry_free(self._p)
            self._p = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        """Frees the registry now; documents read through it stay valid."""
        self.__del__()

    def trim(self):
        """Frees the memory the registry keeps from freed documents for later
        reads (ABI 1.3); returns how many bytes that was."""
        return lib.ak_registry_trim(self._p)

    @property
    def config_path(self):
        p = lib.ak_registry_config_path(self._p)
        return os.fsdecode(p) if p else None

    def formats(self):
        out = []
        for i in range(lib.ak_registry_count(self._p)):
            info = lib.ak_registry_plugin(self._p, i).contents
            c = info.codec.contents
            out.append(Format(_text(c.name), _text(c.version), "%d.%d" % (c.abi_major, c.abi_minor),
                              _text(c.extensions), bool(c.read), bool(c.write), _text(c.description),
                              _text(c.license), _text(info.path), info.priority, c.caps))
        return out

    def refused(self):
        out = []
        for i in range(lib.ak_registry_refused_count(self._p)):
            r = lib.ak_registry_refused(self._p, i).contents
            out.append(Refused(_text(r.name), _text(r.path), _text(r.reason)))
        return out

    def probe(self, data, filename=None):
        """(format name, score) of the codec that wins for these bytes."""
        col = Collector()
        pr = _lib.ProbeResult()
        data = bytes(data)
        st = lib.ak_probe(self._p, data, len(data), os.fsencode(filename) if filename else None,
                          ctypes.byref(pr), ctypes.byref(col.report))
        col.raise_for(st)
        return _text(pr.codec.contents.name), pr.score

    def read(self, path, format=None, params=None, max_alloc=0, on_message=None, outline=False):
        """Reads a file into a Document; its .warnings hold the reader's.
        outline=True asks for the document without its keys (see
        Document.outline): a listing's counts, durations and names, faster."""
        col = Collector(on_message)
        o = _options(format, path, params, max_alloc)
        o.flags = READ_OUTLINE if outline else 0
        p = ctypes.POINTER(_lib.Doc)()
        st = lib.ak_read_file(self._p, os.fsencode(path), ctypes.byref(o), ctypes.byref(p), ctypes.byref(col.report))
        col.raise_for(st)
        return Document(p, col.warnings)

    def read_bytes(self, data, filename=None, format=None, params=None, max_alloc=0, on_message=None,
                   outline=False):
        """Reads bytes (a file name, when given, helps probing and messages)."""
        col = Collector(on_message)
        o = _options(format, filename, params, max_alloc)
        o.flags = READ_OUTLINE if outline else 0
        p = ctypes.POINTER(_lib.Doc)()
        data = bytes(data)
        st = lib.ak_read(self._p, data, len(data), ctypes.byref(o), ctypes.byref(p), ctypes.byref(col.report))
        col.raise_for(st)
        return Document(p, col.warnings)

    def encode(self, doc, format=None, filename=None, params=None, on_message=None):
        """The bytes of `doc` in a format (named, or by the file name's
        extension). Returns (bytes, warnings): the warnings list everything
        the format could not hold."""
        col = Collector(on_message)
        o = _options(format, filename, params)
        buf, size = ctypes.POINTER(ctypes.c_ubyte)(), ctypes.c_size_t()
        st = lib.ak_write(self._p, doc._p, ctypes.byref(o), ctypes.byref(buf), ctypes.byref(size),
                          ctypes.byref(col.report))
        try:
            col.raise_for(st)
            return ctypes.string_at(buf, size.value), col.warnings
        finally:
            lib.ak_buffer_free(self._p, buf)

    def write(self, doc, path, format=None, params=None, overwrite=False, on_message=None):
        """Writes atomically (a temporary file renamed into place); an existing
        file is replaced only with overwrite=True. Returns the warnings."""
        col = Collector(on_message)
        o = _options(format, path, params)
        st = lib.ak_write_file(self._p, doc._p, os.fsencode(path), ctypes.byref(o), 1 if overwrite else 0,
                               ctypes.byref(col.report))
        col.raise_for(st)
        return col.warnings

    def convert(self, src, dst, to=None, format=None, clips=None, skeleton=None, params=None, overwrite=False,
                on_message=None):
        """What `animkit convert` does: read `src` (with `format`, else
        probed), keep only the named `clips`, attach the skeleton of the file
        `skeleton`, write `dst` (as `to`, else by its extension). Returns the
        warnings of the read and the write."""
        doc = self.read(src, format=format, params=params, on_message=on_message)
        if clips:
            keep = []
            for name in clips:
                c = doc.clip(name)
                if c is None:
                    raise Error(Status.DATA, "%s: no clip named '%s'" % (src, name), "no clip named '%s'" % name)
                keep.append(c)
            for i in reversed(range(len(doc.clips))):
                if doc.clips[i] not in keep:
                    doc.remove_clip(i)
        if skeleton is not None:
            model = skeleton if isinstance(skeleton, Document) else self.read(skeleton)
            doc.attach_skeleton(model)
        return doc.warnings + self.write(doc, dst, format=to, params=params, overwrite=overwrite,
                                         on_message=on_message)
