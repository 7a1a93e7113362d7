"""animkit: read, write and convert skeletal-animation files of games.

A ctypes binding of libanimkit (Python 3, standard library only; NumPy is
used for channel data when it can be imported):

    import animkit
    reg = animkit.Registry()                    # the plugins, found as the CLI finds them
    doc = reg.read("ped.ifp")
    for clip in doc.clips:
        for track in clip.tracks:
            times, quats = track.rotation.times(), track.rotation.values()
    doc.clip("walk_civi").tracks[0].rotation[0].value = (0, 0, 0, 1)
    reg.write(doc, "ped2.ifp")                  # only the edited key is re-encoded
    reg.convert("walk.ifp", "walk.json", skeleton="model.json")
    doc.put_clip(reg.read("run.ifp").clips[0], "run_civi")   # edits: merge, retime, diff...

Failures raise animkit.Error with the library's report: .status, .offset,
.plugin, .text, str() the whole line. See README.md ("Python").
"""

from ._diff import Diff, DiffEntry, DiffKind
from ._errors import Error, Message, Severity, Status
from ._model import (CHANNEL_NAMES, Bone, Channel, Clip, Document, Event, KeyView as Key, Track,
                     ValidationResult, crc32, have_numpy, slerp, use_numpy)
from ._registry import Format, Refused, Registry
from . import _lib

__all__ = ["Bone", "CHANNEL_NAMES", "Channel", "Clip", "Diff", "DiffEntry", "DiffKind", "Document", "Error", "Event",
           "Format", "Key", "Message", "Refused", "Registry", "Severity", "Status", "Track", "ValidationResult", "crc32",
           "have_numpy", "library_version", "slerp", "use_numpy"]

__version__ = "0.1.0"


def library_version():
    """The version of the libanimkit that was loaded."""
    return _lib.lib.ak_version().decode()
