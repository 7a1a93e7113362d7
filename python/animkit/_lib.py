"""The C side: finding libanimkit, its structs and function prototypes.

The structures mirror core/animkit/animkit.h and plugin.h field for field
(ctypes lays them out with the platform's C rules); only fields the module
uses are read, but every field is declared so that offsets stay right.
"""

import ctypes
import ctypes.util
import os

c_double_p = ctypes.POINTER(ctypes.c_double)


class Message(ctypes.Structure):
    _fields_ = [
        ("severity", ctypes.c_int32),
        ("status", ctypes.c_int32),
        ("file", ctypes.c_char_p),
        ("plugin", ctypes.c_char_p),
        ("offset", ctypes.c_int64),
        ("text", ctypes.c_char_p),
        ("line", ctypes.c_uint32),    # API 1.2: text inputs, 0 = none
        ("column", ctypes.c_uint32),
    ]


MESSAGE_FN = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.POINTER(Message))


class Report(ctypes.Structure):
    _fields_ = [
        ("on_message", MESSAGE_FN),
        ("user", ctypes.c_void_p),
        ("status", ctypes.c_int32),
        ("offset", ctypes.c_int64),
        ("plugin", ctypes.c_char * 32),
        ("text", ctypes.c_char * 512),
        ("message", ctypes.c_char * 1024),
        ("warnings", ctypes.c_uint),
    ]


class Prop(ctypes.Structure):
    _fields_ = [
        ("key", ctypes.c_char_p),
        ("type", ctypes.c_int32),
        ("i", ctypes.c_int64),
        ("f", ctypes.c_double),
        ("data", ctypes.POINTER(ctypes.c_ubyte)),
        ("size", ctypes.c_size_t),
    ]


class Props(ctypes.Structure):
    _fields_ = [
        ("count", ctypes.c_size_t),
        ("items", ctypes.POINTER(Prop)),
        ("capacity_", ctypes.c_size_t),
    ]


class Key(ctypes.Structure):
    _fields_ = [
        ("time", ctypes.c_double),
        ("tick", ctypes.c_int64),
        ("v", ctypes.c_double * 4),
        ("raw", ctypes.POINTER(ctypes.c_ubyte)),
        ("raw_size", ctypes.c_uint32),
        ("flags_", ctypes.c_uint32),
        ("fingerprint_", ctypes.c_uint64),
    ]


class Channel(ctypes.Structure):
    _fields_ = [
        ("count", ctypes.c_size_t),
        ("keys", ctypes.POINTER(Key)),
        ("capacity_", ctypes.c_size_t),
    ]


CHANNELS = 4


class Clip(ctypes.Structure):
    pass


class Doc(ctypes.Structure):
    pass


class Track(ctypes.Structure):
    _fields_ = [
        ("bone", ctypes.c_char_p),
        ("bone_id", ctypes.c_int32),
        ("has_bone_id", ctypes.c_int),
        ("bone_hash", ctypes.c_uint32),
        ("has_bone_hash", ctypes.c_int),
        ("weight", ctypes.c_double),
        ("channel", Channel * CHANNELS),
        ("props", Props),
        ("clip", ctypes.POINTER(Clip)),
        ("skeleton_bone", ctypes.c_int32),
        ("outline_keys", ctypes.c_size_t * CHANNELS),  # API 1.4
    ]


class Event(ctypes.Structure):
    _fields_ = [
        ("time", ctypes.c_double),
        ("type", ctypes.c_char_p),
        ("info", ctypes.c_char_p),
        ("props", Props),
    ]


Clip._fields_ = [
    ("name", ctypes.c_char_p),
    ("duration", ctypes.c_double),
    ("frame_rate", ctypes.c_double),
    ("tick_rate", ctypes.c_double),
    ("track_count", ctypes.c_size_t),
    ("tracks", ctypes.POINTER(ctypes.POINTER(Track))),
    ("event_count", ctypes.c_size_t),
    ("events", ctypes.POINTER(Event)),
    ("props", Props),
    ("doc", ctypes.POINTER(Doc)),
    ("track_capacity_", ctypes.c_size_t),
    ("event_capacity_", ctypes.c_size_t),
]


class Bone(ctypes.Structure):
    _fields_ = [
        ("name", ctypes.c_char_p),
        ("id", ctypes.c_int32),
        ("has_id", ctypes.c_int),
        ("hash", ctypes.c_uint32),
        ("has_hash", ctypes.c_int),
        ("parent", ctypes.c_int32),
        ("translation", ctypes.c_double * 3),
        ("rotation", ctypes.c_double * 4),
        ("scale", ctypes.c_double * 3),
        ("props", Props),
    ]


class Skeleton(ctypes.Structure):
    _fields_ = [
        ("bone_count", ctypes.c_size_t),
        ("bones", ctypes.POINTER(Bone)),
        ("bone_capacity_", ctypes.c_size_t),
    ]


Doc._fields_ = [
    ("format", ctypes.c_char_p),
    ("variant", ctypes.c_char_p),
    ("clip_count", ctypes.c_size_t),
    ("clips", ctypes.POINTER(ctypes.POINTER(Clip))),
    ("props", Props),
    ("private_", ctypes.c_void_p),
    ("skeleton", Skeleton),
]


class DocStats(ctypes.Structure):
    _fields_ = [
        ("clips", ctypes.c_size_t),
        ("tracks", ctypes.c_size_t),
        ("events", ctypes.c_size_t),
        ("keys", ctypes.c_size_t * CHANNELS),
        ("hashes", ctypes.c_size_t),
        ("hashes_named", ctypes.c_size_t),
    ]


class Options(ctypes.Structure):
    _fields_ = [
        ("struct_size", ctypes.c_uint32),
        ("format", ctypes.c_char_p),
        ("filename", ctypes.c_char_p),
        ("params", ctypes.POINTER(ctypes.c_char_p)),
        ("max_alloc", ctypes.c_size_t),
        ("flags", ctypes.c_uint32),   # API 1.2: AK_READ_STRICT; 1.4: AK_READ_OUTLINE
    ]


class RegistryConfig(ctypes.Structure):
    _fields_ = [
        ("struct_size", ctypes.c_uint32),
        ("flags", ctypes.c_uint32),
        ("config_file", ctypes.c_char_p),
        ("allocator", ctypes.c_void_p),
        ("on_message", MESSAGE_FN),
        ("user", ctypes.c_void_p),
        ("default_plugin_path", ctypes.c_char_p),
    ]


class Codec(ctypes.Structure):
    _fields_ = [
        ("abi_major", ctypes.c_uint32),
        ("abi_minor", ctypes.c_uint32),
        ("struct_size", ctypes.c_uint32),
        ("caps", ctypes.c_uint32),
        ("name", ctypes.c_char_p),
        ("version", ctypes.c_char_p),
        ("description", ctypes.c_char_p),
        ("license", ctypes.c_char_p),
        ("extensions", ctypes.c_char_p),
        ("probe", ctypes.c_void_p),
        ("read", ctypes.c_void_p),
        ("write", ctypes.c_void_p),
        ("params", ctypes.c_void_p),  # ABI 1.2: const ak_param *
    ]


class PluginInfo(ctypes.Structure):
    _fields_ = [
        ("codec", ctypes.POINTER(Codec)),
        ("path", ctypes.c_char_p),
        ("priority", ctypes.c_int),
    ]


class RefusedPlugin(ctypes.Structure):
    _fields_ = [
        ("name", ctypes.c_char_p),
        ("path", ctypes.c_char_p),
        ("reason", ctypes.c_char_p),
    ]


class ProbeResult(ctypes.Structure):
    _fields_ = [
        ("codec", ctypes.POINTER(Codec)),
        ("score", ctypes.c_int),
        ("runner_up", ctypes.POINTER(Codec)),
    ]


class Retime(ctypes.Structure):
    _fields_ = [
        ("struct_size", ctypes.c_uint32),
        ("trim", ctypes.c_int),
        ("t0", ctypes.c_double),
        ("t1", ctypes.c_double),
        ("reverse", ctypes.c_int),
        ("speed", ctypes.c_double),
        ("fps", ctypes.c_double),
    ]


class DiffEntry(ctypes.Structure):
    _fields_ = [
        ("kind", ctypes.c_int32),     # ak_diff_kind
        ("clip", ctypes.c_char_p),
        ("bone", ctypes.c_char_p),
        ("channel", ctypes.c_int32),  # ak_channel_kind
        ("count_a", ctypes.c_size_t),
        ("count_b", ctypes.c_size_t),
        ("key", ctypes.c_size_t),
        ("component", ctypes.c_int),
        ("max_diff", ctypes.c_double),
    ]


class Diff(ctypes.Structure):
    _fields_ = [
        ("count", ctypes.c_size_t),
        ("entries", ctypes.POINTER(DiffEntry)),
    ]


def _candidates():
    """Where libanimkit may be, most specific first."""
    env = os.environ.get("ANIMKIT_LIBRARY")
    if env:
        yield env
    try:
        from . import _paths  # written by `make install`
        yield os.path.join(_paths.LIBDIR, "libanimkit.so.0")
    except ImportError:
        pass
    found = ctypes.util.find_library("animkit")
    if found:
        yield found
    yield "libanimkit.so.0"


def _load():
    errors = []
    for path in _candidates():
        try:
            return ctypes.CDLL(path)
        except OSError as e:
            errors.append("%s: %s" % (path, e))
    raise ImportError("animkit: cannot load libanimkit (set ANIMKIT_LIBRARY to its path): " + "; ".join(errors))


lib = _load()

_P = ctypes.POINTER
_doc_p = _P(Doc)
_clip_p = _P(Clip)
_track_p = _P(Track)
_report_p = _P(Report)
_props_p = _P(Props)
_opts_p = _P(Options)
_reg_p = ctypes.c_void_p

_PROTOTYPES = {
    "ak_version": (ctypes.c_char_p, []),
    "ak_status_name": (ctypes.c_char_p, [ctypes.c_int32]),
    "ak_status_exit": (ctypes.c_int, [ctypes.c_int32]),
    "ak_channel_name": (ctypes.c_char_p, [ctypes.c_int32]),
    "ak_doc_new": (_doc_p, []),
    "ak_doc_free": (None, [_doc_p]),
    "ak_doc_clone": (_doc_p, [_doc_p]),
    "ak_doc_set_format": (ctypes.c_int32, [_doc_p, ctypes.c_char_p, ctypes.c_char_p]),
    "ak_clip_add": (_clip_p, [_doc_p, ctypes.c_char_p]),
    "ak_clip_remove": (None, [_doc_p, ctypes.c_size_t]),
    "ak_clip_set_name": (ctypes.c_int32, [_clip_p, ctypes.c_char_p]),
    "ak_track_add": (_track_p, [_clip_p, ctypes.c_char_p]),
    "ak_track_set_bone": (ctypes.c_int32, [_track_p, ctypes.c_char_p]),
    "ak_channel_reserve": (ctypes.c_int32, [_track_p, ctypes.c_int32, ctypes.c_size_t]),
    "ak_key_add": (_P(Key), [_track_p, ctypes.c_int32]),
    "ak_key_changed": (ctypes.c_int, [_P(Key)]),
    "ak_key_touch": (None, [_P(Key)]),
    "ak_event_add": (_P(Event), [_clip_p, ctypes.c_double, ctypes.c_char_p, ctypes.c_char_p]),
    "ak_bone_add": (_P(Bone), [_doc_p, ctypes.c_char_p]),
    "ak_bone_set_name": (ctypes.c_int32, [_doc_p, _P(Bone), ctypes.c_char_p]),
    "ak_skeleton_find_name": (ctypes.c_int32, [_doc_p, ctypes.c_char_p]),
    "ak_skeleton_find_id": (ctypes.c_int32, [_doc_p, ctypes.c_int32]),
    "ak_skeleton_find_hash": (ctypes.c_int32, [_doc_p, ctypes.c_uint32]),
    "ak_doc_match_skeleton": (ctypes.c_size_t, [_doc_p]),
    "ak_doc_attach_skeleton": (ctypes.c_int32, [_doc_p, _doc_p]),
    "ak_clip_skeleton_matched": (ctypes.c_size_t, [_clip_p]),
    "ak_prop_set_bytes": (ctypes.c_int32, [_doc_p, _props_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t]),
    "ak_prop_set_int": (ctypes.c_int32, [_doc_p, _props_p, ctypes.c_char_p, ctypes.c_int64]),
    "ak_prop_set_float": (ctypes.c_int32, [_doc_p, _props_p, ctypes.c_char_p, ctypes.c_double]),
    "ak_prop_set_string": (ctypes.c_int32, [_doc_p, _props_p, ctypes.c_char_p, ctypes.c_char_p]),
    "ak_channel_sample": (ctypes.c_int, [_P(Channel), ctypes.c_int32, ctypes.c_double, c_double_p]),
    "ak_quat_slerp": (None, [c_double_p, c_double_p, ctypes.c_double, c_double_p]),
    "ak_doc_stats_get": (None, [_doc_p, _P(DocStats)]),
    "ak_doc_outline": (ctypes.c_int, [_doc_p]),
    "ak_clip_stats_get": (None, [_clip_p, _P(DocStats)]),
    "ak_doc_validate": (ctypes.c_uint, [_doc_p, ctypes.c_char_p, _report_p]),
    "ak_doc_write_json": (ctypes.c_int32, [_doc_p, ctypes.c_char_p, ctypes.c_uint, ctypes.c_void_p]),
    "ak_doc_name_bones": (ctypes.c_size_t, [_doc_p, _P(ctypes.c_char_p), ctypes.c_size_t]),
    "ak_crc32": (ctypes.c_uint32, [ctypes.c_char_p, ctypes.c_size_t]),
    "ak_registry_open": (ctypes.c_int32, [_P(RegistryConfig), _P(_reg_p), _report_p]),
    "ak_registry_free": (None, [_reg_p]),
    "ak_registry_count": (ctypes.c_size_t, [_reg_p]),
    "ak_registry_trim": (ctypes.c_size_t, [_reg_p]),
    "ak_registry_plugin": (_P(PluginInfo), [_reg_p, ctypes.c_size_t]),
    "ak_registry_refused_count": (ctypes.c_size_t, [_reg_p]),
    "ak_registry_refused": (_P(RefusedPlugin), [_reg_p, ctypes.c_size_t]),
    "ak_registry_config_path": (ctypes.c_char_p, [_reg_p]),
    "ak_probe": (ctypes.c_int32, [_reg_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p, _P(ProbeResult),
                                  _report_p]),
    "ak_read": (ctypes.c_int32, [_reg_p, ctypes.c_char_p, ctypes.c_size_t, _opts_p, _P(_doc_p), _report_p]),
    "ak_read_file": (ctypes.c_int32, [_reg_p, ctypes.c_char_p, _opts_p, _P(_doc_p), _report_p]),
    "ak_write": (ctypes.c_int32, [_reg_p, _doc_p, _opts_p, _P(_P(ctypes.c_ubyte)), _P(ctypes.c_size_t),
                                  _report_p]),
    "ak_buffer_free": (None, [_reg_p, _P(ctypes.c_ubyte)]),
    "ak_write_file": (ctypes.c_int32, [_reg_p, _doc_p, ctypes.c_char_p, _opts_p, ctypes.c_uint, _report_p]),
    # Editing (API 1.2)
    "ak_doc_clip_index": (ctypes.c_long, [_doc_p, ctypes.c_char_p]),
    "ak_doc_put_clip": (ctypes.c_int32, [_doc_p, _clip_p, ctypes.c_char_p, _P(ctypes.c_size_t)]),
    "ak_doc_merge": (ctypes.c_int32, [_doc_p, _doc_p]),
    "ak_doc_extract_clip": (_doc_p, [_doc_p, ctypes.c_size_t]),
    "ak_doc_rename_bones": (ctypes.c_size_t, [_doc_p, _P(ctypes.c_char_p), _P(ctypes.c_char_p), ctypes.c_size_t]),
    "ak_doc_assign_bone_ids": (ctypes.c_int32, [_doc_p, _doc_p, _P(ctypes.c_size_t)]),
    "ak_clip_retime": (ctypes.c_int32, [_clip_p, _P(Retime)]),
    "ak_doc_diff": (ctypes.c_int32, [_doc_p, _doc_p, ctypes.c_double, _P(_P(Diff))]),
    "ak_diff_free": (None, [_P(Diff)]),
}

for _name, (_res, _args) in _PROTOTYPES.items():
    _f = getattr(lib, _name)
    _f.restype = _res
    _f.argtypes = _args

# The C library's memory streams, for the JSON dump (glibc, musl, BSDs).
libc = ctypes.CDLL(None)
try:
    libc.open_memstream.restype = ctypes.c_void_p
    libc.open_memstream.argtypes = [_P(ctypes.c_void_p), _P(ctypes.c_size_t)]
    libc.fclose.argtypes = [ctypes.c_void_p]
    libc.free.argtypes = [ctypes.c_void_p]
    HAVE_MEMSTREAM = True
except AttributeError:
    HAVE_MEMSTREAM = False
