"""Tests of the Python module against libanimkit and the plugins.

Run by python/run-tests.sh (make check), which points ANIMKIT_LIBRARY at the
library and ANIMKIT_CONFIG at the plugins under test. Values are checked
against the library's own JSON dump parsed with the json module (a second
path through the C structs, so a ctypes layout error cannot hide), against
numbers computed here, and through round trips.
"""

import json
import math
import os
import subprocess
import sys
import tempfile
import unittest
import zlib

import animkit

SRCDIR = os.environ.get("AK_SRCDIR", os.path.join(os.path.dirname(__file__), "..", ".."))
SAMPLES = [os.path.join(SRCDIR, "samples", "wave." + ext) for ext in ("ifp", "ani", "anm")]
WAVE_IFP = SAMPLES[0]


def as_list(x):
    return [list(v) if hasattr(v, "__len__") else v for v in (x.tolist() if hasattr(x, "tolist") else x)]


def same_number(a, b):
    return (math.isnan(a) and math.isnan(b)) or a == b


class Base(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.reg = animkit.Registry()

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.tmp.cleanup()

    def path(self, name):
        return os.path.join(self.tmp.name, name)


class ModelMatchesDump(Base):
    """Everything the module shows equals what the C dump prints."""

    def check_doc(self, doc):
        dump = json.loads(doc.to_json(), parse_constant=float)
        self.assertEqual(doc.format, dump["format"])
        self.assertEqual(doc.variant, dump["variant"])
        self.assertEqual(len(doc.clips), len(dump["clips"]))
        for clip, jc in zip(doc.clips, dump["clips"]):
            self.assertEqual(clip.name, jc["name"])
            self.assertEqual(clip.duration, jc["duration"])
            self.assertEqual(clip.frame_rate, jc.get("frame_rate", 0))
            self.assertEqual(clip.tick_rate, jc.get("tick_rate", 0))
            self.assertEqual(len(clip.tracks), len(jc["tracks"]))
            for track, jt in zip(clip.tracks, jc["tracks"]):
                self.assertEqual(track.bone, jt["bone"])
                self.assertEqual(track.bone_id, jt.get("id"))
                self.assertEqual(track.bone_hash, jt.get("hash"))
                self.assertEqual(track.weight, jt["weight"])
                for name in animkit.CHANNEL_NAMES:
                    ch = track.channel(name)
                    keys = jt.get(name, [])
                    self.assertEqual(len(ch), len(keys))
                    times = as_list(ch.times())
                    values = as_list(ch.values())
                    for i, k in enumerate(keys):
                        self.assertTrue(same_number(times[i], k[0]))
                        want = k[1:]
                        if name == "visibility":
                            self.assertEqual([values[i][0] != 0], [bool(want[0])])
                        else:
                            self.assertEqual(values[i], want)
                        self.assertEqual(list(ch[i].value), values[i])
            self.assertEqual([(e.time, e.type, e.info) for e in clip.events],
                             [(e["time"], e["type"], e["info"]) for e in jc["events"]])
        bones = dump.get("skeleton", [])
        self.assertEqual(len(doc.bones), len(bones))
        for bone, jb in zip(doc.bones, bones):
            self.assertEqual((bone.name, bone.id, bone.hash, bone.parent),
                             (jb["name"], jb.get("id"), jb.get("hash"), jb["parent"]))
            self.assertEqual(list(bone.translation), jb["translation"])
            self.assertEqual(list(bone.rotation), jb["rotation"])
            self.assertEqual(list(bone.scale), jb["scale"])
        return dump

    def test_samples(self):
        for path in SAMPLES:
            with self.subTest(path=path):
                doc = self.reg.read(path)
                dump = self.check_doc(doc)
                self.assertGreater(sum(len(t["rotation"]) for t in dump["clips"][0]["tracks"]), 30)

    def test_samples_as_lists(self):
        was = animkit.have_numpy()
        animkit.use_numpy(False)
        try:
            self.test_samples()
            ch = self.reg.read(WAVE_IFP).clips[0].tracks[1].rotation
            self.assertIsInstance(ch.values(), list)
            self.assertIsInstance(ch.values()[0], tuple)
        finally:
            if was:
                animkit.use_numpy(True)

    def test_freed_documents_memory_is_kept_then_trimmed(self):
        corpus = os.environ.get("AK_CORPUS", os.path.join(SRCDIR, "..", "shared", "corpus"))
        ped = os.path.join(corpus, "ifp", "ped_cretaceous.ifp")
        if not os.path.exists(ped):
            self.skipTest("no corpus: " + ped)
        self.reg.trim()
        doc = self.reg.read(ped)
        self.assertEqual(len(doc.clips), 294)
        del doc  # its blocks go to the registry's pool
        self.assertGreater(self.reg.trim(), 7 * 1024 * 1024)  # at least the 104k keys
        self.assertEqual(self.reg.trim(), 0)

    def test_stats(self):
        doc = self.reg.read(WAVE_IFP)
        s = doc.stats()
        keys = sum(len(t.channel(n)) for t in doc.clips[0].tracks for n in animkit.CHANNEL_NAMES)
        self.assertEqual(sum(s["keys"].values()), keys)
        self.assertEqual(s["tracks"], len(doc.clips[0].tracks))
        self.assertEqual(doc.clips[0].stats()["keys"], s["keys"])

    def test_outline(self):
        full = self.reg.read(WAVE_IFP)
        ol = self.reg.read(WAVE_IFP, outline=True)
        self.assertFalse(full.outline)
        self.assertTrue(ol.outline)
        self.assertEqual(ol.stats(), full.stats())
        self.assertGreater(sum(ol.stats()["keys"].values()), 0)
        self.assertEqual([c.duration for c in ol.clips], [c.duration for c in full.clips])
        for t in ol.clips[0].tracks:
            for n in animkit.CHANNEL_NAMES:
                self.assertEqual(len(t.channel(n)), 0)
        with self.assertRaises(animkit.Error):
            self.reg.encode(ol, format="ifp")
        # A plugin that does not read outlines reads in full.
        ani = self.reg.read(SAMPLES[1], outline=True)
        self.assertFalse(ani.outline)
        self.assertEqual(ani.stats(), self.reg.read(SAMPLES[1]).stats())


class ReadWrite(Base):
    def test_formats_and_probe(self):
        names = [f.name for f in self.reg.formats()]
        for n in ("ifp", "ani", "anm", "json"):
            self.assertIn(n, names)
        ifp = [f for f in self.reg.formats() if f.name == "ifp"][0]
        self.assertTrue(ifp.can_read and ifp.can_write)
        with open(WAVE_IFP, "rb") as f:
            data = f.read()
        self.assertEqual(self.reg.probe(data), ("ifp", 100))

    def test_bytes_and_untouched_write_are_identical(self):
        with open(WAVE_IFP, "rb") as f:
            data = f.read()
        doc = self.reg.read_bytes(data, filename="wave.ifp")
        out, warnings = self.reg.encode(doc, format="ifp")
        self.assertEqual(out, data)
        self.assertEqual(warnings, [])
        self.reg.write(doc, self.path("copy.ifp"))
        with open(self.path("copy.ifp"), "rb") as f:
            self.assertEqual(f.read(), data)

    def test_edit_one_key(self):
        doc = self.reg.read(WAVE_IFP)
        ch = doc.clips[0].tracks[1].rotation
        before = [k.raw for k in ch]
        key = ch[5]
        self.assertFalse(key.changed)
        angle = 0.3
        key.value = (0, 0, math.sin(angle / 2), math.cos(angle / 2))
        self.assertTrue(key.changed)
        self.reg.write(doc, self.path("edited.ifp"))
        back = self.reg.read(self.path("edited.ifp")).clips[0].tracks[1].rotation
        for i, k in enumerate(back):
            if i == 5:
                # ANP3 stores quaternion components as int16 / 4096.
                self.assertEqual(k.value[2], round(math.sin(angle / 2) * 4096) / 4096)
                self.assertNotEqual(k.raw, before[5])
            else:
                self.assertEqual(k.raw, before[i])

    @unittest.skipUnless(animkit.have_numpy(), "NumPy not importable")
    def test_numpy_views_edit_in_place(self):
        import numpy as np
        doc = self.reg.read(WAVE_IFP)
        ch = doc.clips[0].tracks[0].translation
        self.assertIsInstance(ch.values(), np.ndarray)
        self.assertEqual(ch.values().shape, (len(ch), 3))
        self.assertEqual(ch.array().dtype.itemsize, 72)  # sizeof(ak_key) on LP64
        v = ch.values()
        v[:, 2] += 0.5  # every key, through the view, without a Python object per key
        self.assertTrue(all(k.changed for k in ch))
        self.assertEqual([k.value[2] for k in ch], (v[:, 2]).tolist())
        ch.set_times(ch.times() * 2)
        self.assertEqual(ch[1].time, 2 * (1 / 30))

    def test_build_write_read_back(self):
        doc = animkit.Document()
        clip = doc.add_clip("made")
        clip.duration = 1.0
        t = clip.add_track("Pelvis", id=1)
        n = 11
        t.rotation.reserve(n)
        for i in range(n):
            a = i / (n - 1) * math.pi / 2
            t.rotation.add(i / (n - 1), (0.0, math.sin(a / 2), 0.0, math.cos(a / 2)))
            t.translation.add(i / (n - 1), (0.0, 0.0, i * 0.1))
        clip.add_event(0.5, "sound", "step.wav")
        warnings = self.reg.write(doc, self.path("made.ani"))
        self.assertIn("1 bone ids will be dropped: ani cannot store them", [w.text for w in warnings])
        back = self.reg.read(self.path("made.ani"))
        bt = back.clips[0].tracks[0]
        self.assertEqual(bt.bone, "Pelvis")
        self.assertEqual(len(bt.rotation), n)
        for i, k in enumerate(bt.rotation):
            a = i / (n - 1) * math.pi / 2
            self.assertAlmostEqual(k.value[1], math.sin(a / 2), places=6)  # ani 4000: 32-bit floats
            self.assertAlmostEqual(k.time, i / (n - 1), places=3)  # whole milliseconds
        self.assertEqual([(e.time, e.type, e.info) for e in back.clips[0].events], [(0.5, "sound", "step.wav")])
        # Sampling halfway between keys 0 and 1 is the slerp of them.
        mid = bt.rotation.sample(0.05)
        a = math.pi / 2 / (n - 1) / 2
        self.assertAlmostEqual(mid[1], math.sin(a / 2), places=6)
        q = animkit.slerp((0, 0, 0, 1), (0, 1, 0, 0), 0.5)
        self.assertAlmostEqual(q[1], math.sqrt(0.5))

    def test_convert_and_clips(self):
        warnings = self.reg.convert(WAVE_IFP, self.path("w.ani"))
        self.assertTrue(any("bone ids will be dropped" in w.text for w in warnings))
        self.assertEqual(len(self.reg.read(self.path("w.ani")).clips[0].tracks), 3)
        with self.assertRaises(animkit.Error) as cm:
            self.reg.convert(WAVE_IFP, self.path("x.ani"), clips=["nope"])
        self.assertEqual(cm.exception.status, animkit.Status.DATA)

    def test_props_and_names(self):
        doc = animkit.Document()
        clip = doc.add_clip(b"caf\xe9")  # a Latin-1 byte, not UTF-8
        self.assertEqual(clip.name.encode("utf-8", "surrogateescape"), b"caf\xe9")
        t = clip.add_track("Kn\u00f6chel")
        clip.set_prop("i", 7)
        clip.set_prop("f", 0.5)
        clip.set_prop("s", "x")
        clip.set_prop("b", b"\x00\x01")
        self.assertEqual(clip.props, {"i": 7, "f": 0.5, "s": "x", "b": b"\x00\x01"})
        data, _ = self.reg.encode(doc, format="json")
        back = self.reg.read_bytes(data, format="json")
        self.assertEqual(back.clips[0].name, clip.name)
        self.assertEqual(back.clips[0].tracks[0].bone, t.bone)
        self.assertEqual(back.clips[0].props, clip.props)
        self.assertEqual(animkit.crc32(b"123456789"), 0xCBF43926)  # the CRC-32 check value


class Example(Base):
    def test_convert_example(self):
        script = os.path.join(SRCDIR, "examples", "python", "convert.py")
        out = self.path("fast.json")
        r = subprocess.run([sys.executable, script, WAVE_IFP, out, "--speed", "2"], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        src, fast = self.reg.read(WAVE_IFP), self.reg.read(out)
        self.assertEqual(fast.clips[0].duration, src.clips[0].duration / 2)
        for a, b in zip(src.clips[0].tracks, fast.clips[0].tracks):
            self.assertEqual([t / 2 for t in a.rotation.times()], list(b.rotation.times()))
        r = subprocess.run([sys.executable, script, WAVE_IFP, out], capture_output=True, text=True)
        self.assertEqual(r.returncode, 73)  # exists: the CLI's exit code
        self.assertIn("already exists", r.stderr)

    def test_replace_example(self):
        pkg = self.reg.read(WAVE_IFP)
        pkg.merge(pkg)[0].name = "second"
        self.reg.write(pkg, self.path("pkg.ifp"))
        script = os.path.join(SRCDIR, "examples", "python", "replace.py")
        out = self.path("out.ifp")
        r = subprocess.run([sys.executable, script, self.path("pkg.ifp"), SAMPLES[1], out, "--as", "Second",
                            "--speed", "2"], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        back = self.reg.read(out)
        self.assertEqual([c.name for c in back.clips], ["wave", "second"])
        donor = self.reg.read(SAMPLES[1]).clips[0]
        self.assertAlmostEqual(back.clips[1].duration, donor.duration / 2, places=2)
        self.assertEqual(back.clips[1].tracks[1].rotation[4].time, 4 / 60)  # 30 fps keys at double speed
        for ta, tb in zip(pkg.clips[0].tracks, back.clips[0].tracks):
            self.assertEqual([k.raw for k in ta.rotation], [k.raw for k in tb.rotation])
        self.assertEqual(r.stdout.splitlines(), [str(e) for e in self.reg.read(self.path("pkg.ifp")).diff(
            self.reg.read(out))])
        self.assertIn("clip 'second': durations differ by 0.5 s", r.stdout)
        r = subprocess.run([sys.executable, script, self.path("pkg.ifp"), SAMPLES[1], out, "--speed", "-1"],
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 64, r.stderr)
        self.assertIn("retime", r.stderr)


class Errors(Base):
    def test_bad_data_carries_the_report(self):
        with open(WAVE_IFP, "rb") as f:
            data = f.read()
        with self.assertRaises(animkit.Error) as cm:
            self.reg.read_bytes(data[:40], filename="cut.ifp")
        e = cm.exception
        self.assertEqual(e.status, animkit.Status.DATA)
        self.assertEqual(e.exit_code, 65)
        self.assertEqual(e.plugin, "ifp")
        self.assertIsInstance(e.offset, int)
        self.assertTrue(0 <= e.offset <= 40)
        self.assertTrue(str(e).startswith("cut.ifp: ifp: error: "), str(e))
        self.assertIn(e.text, str(e))

    def test_other_statuses(self):
        with self.assertRaises(animkit.Error) as cm:
            self.reg.read(self.path("absent.ifp"))
        self.assertEqual(cm.exception.status, animkit.Status.NOINPUT)
        self.assertEqual(cm.exception.exit_code, 66)
        with self.assertRaises(animkit.Error) as cm:
            self.reg.read_bytes(b"junkjunk")
        self.assertEqual(cm.exception.status, animkit.Status.NOFORMAT)
        with self.assertRaises(animkit.Error) as cm:
            self.reg.read(WAVE_IFP, format="nosuch")
        self.assertEqual(cm.exception.status, animkit.Status.USAGE)
        doc = self.reg.read(WAVE_IFP)
        with open(self.path("exists.ifp"), "wb") as f:
            f.write(b"precious")
        with self.assertRaises(animkit.Error) as cm:
            self.reg.write(doc, self.path("exists.ifp"))
        self.assertEqual(cm.exception.status, animkit.Status.CANTCREATE)
        with open(self.path("exists.ifp"), "rb") as f:
            self.assertEqual(f.read(), b"precious")
        self.reg.write(doc, self.path("exists.ifp"), overwrite=True)
        with self.assertRaises(animkit.Error):
            animkit.Registry(config=self.path("absent.ini"))
        with self.assertRaises(ValueError):
            self.reg.read(WAVE_IFP, params=["novalue"])


class Skeletons(Base):
    def model(self):
        m = animkit.Document()
        m.add_bone("ROOT ", translation=(0, 0, 1))
        m.add_bone("arm", parent=0, id=22, rotation=(0, 0, math.sqrt(0.5), math.sqrt(0.5)))
        m.add_bone("Spare", parent=1, scale=(2, 2, 2))
        return m

    def test_attach_and_match(self):
        doc = self.reg.read(WAVE_IFP)
        names = {(b.name.strip().lower(), b.id) for b in self.model().bones}
        # The rules again: id, else the name without case and spaces.
        want = sum(1 for t in doc.clips[0].tracks
                   if any((t.bone_id is not None and t.bone_id == i) or t.bone.strip().lower() == n
                          for n, i in names))
        self.assertEqual(want, 2)
        self.assertEqual(doc.attach_skeleton(self.model()), want)
        self.assertEqual(doc.clips[0].skeleton_matched, want)
        self.assertEqual(doc.clips[0].track("R UpperArm").skeleton_bone.name, "arm")
        self.assertIsNone(doc.clips[0].track("R ForeArm").skeleton_bone)
        self.assertEqual(doc.find_bone(id=22).index, 1)
        self.assertEqual(doc.find_bone(name="Spare").parent_bone.name, "arm")
        ModelMatchesDump.check_doc(self, doc)

    def test_skeleton_through_json_and_convert(self):
        m = self.model()
        m.bones[1].set_prop("flags", 3)
        data, _ = self.reg.encode(m, format="json")
        back = self.reg.read_bytes(data)
        self.assertEqual([(b.name, b.id, b.parent, b.translation, b.rotation, b.scale, b.props) for b in back.bones],
                         [(b.name, b.id, b.parent, b.translation, b.rotation, b.scale, b.props) for b in m.bones])
        with open(self.path("model.json"), "wb") as f:
            f.write(data)
        self.reg.convert(WAVE_IFP, self.path("w.json"), skeleton=self.path("model.json"))
        w = self.reg.read(self.path("w.json"))
        self.assertEqual(len(w.bones), 3)
        self.assertEqual(w.clips[0].skeleton_matched, 2)  # matched again as it is read
        warnings = self.reg.convert(self.path("w.json"), self.path("w2.ifp"))
        self.assertIn("the skeleton (3 bones) is not carried: ifp cannot store one", [x.text for x in warnings])

    def test_validate(self):
        m = self.model()
        m.add_bone("Tip")
        self.assertTrue(m.validate().ok)
        m.bones[1].parent = 3  # forward
        m.bones[2].id = 22     # duplicate
        result = m.validate("model")
        self.assertEqual(result.errors, 2)
        texts = [r.text for r in result]
        self.assertIn("skeleton: bone 'arm' (index 1): parent 'Tip' (index 3) comes after it; "
                      "parents must come before their children", texts)
        self.assertIn("skeleton: bone 'Spare' (index 2): id 22 is also the id of bone 'arm' (index 1)", texts)
        m.bones[3].parent = 1  # and now a cycle arm -> Tip -> arm
        result = m.validate("model")
        self.assertEqual(result.errors, 3)
        self.assertIn("skeleton: bone 'arm' (index 1): is its own ancestor: a parent cycle of 2 bones",
                      [r.text for r in result])
        self.assertEqual(result[0].file, "model")

    def test_clone_and_remove(self):
        doc = self.reg.read(WAVE_IFP)
        doc.attach_skeleton(self.model())
        copy = doc.clone()
        del doc
        self.assertEqual(len(copy.bones), 3)
        copy.add_clip("second")
        copy.remove_clip(copy.clips[0])
        self.assertEqual([c.name for c in copy.clips], ["second"])


class Editing(Base):
    """The library's edit operations, checked by arithmetic, bytes and round trips."""

    def two_clips(self):
        """wave.ifp with its clip twice, the second named "second"."""
        doc = self.reg.read(WAVE_IFP)
        added = doc.merge(doc)
        self.assertEqual(len(added), 1)
        added[0].name = "second"
        return doc

    def test_merge_and_extract(self):
        doc = self.reg.read(WAVE_IFP)
        doc.merge(self.reg.read(WAVE_IFP))
        self.assertEqual([c.name for c in doc.clips], ["wave", "wave"])  # equal names are all kept
        a, b = doc.clips
        for ta, tb in zip(a.tracks, b.tracks):
            for name in animkit.CHANNEL_NAMES:
                self.assertEqual([k.raw for k in ta.channel(name)], [k.raw for k in tb.channel(name)])
        ModelMatchesDump.check_doc(self, doc)
        fresh = animkit.Document()
        fresh.merge(self.reg.read(WAVE_IFP))  # a new document takes the format
        self.assertEqual((fresh.format, fresh.variant), ("ifp", "ANP3"))
        # Splitting the first clip out of a package gives the original file back.
        two = self.two_clips()
        one = two.extract_clip(0)
        self.assertEqual([c.name for c in one.clips], ["wave"])
        with open(WAVE_IFP, "rb") as f:
            self.assertEqual(self.reg.encode(one, format="ifp")[0], f.read())
        self.assertEqual([c.name for c in two.extract_clip("SECOND").clips], ["second"])
        self.assertEqual(two.clip_index("Second"), 1)
        self.assertIsNone(two.clip_index("third"))
        with self.assertRaises(KeyError):
            two.extract_clip("third")
        with self.assertRaises(IndexError):
            two.extract_clip(2)

    def test_put_clip_keeps_the_other_clips_bytes(self):
        two = self.two_clips()
        self.reg.write(two, self.path("a.ifp"))
        src = self.reg.read(WAVE_IFP).clips[0]
        times = [list(t.rotation.times()) for t in src.tracks]
        src.retime(speed=0.5)
        put = two.put_clip(src, "WAVE")  # replaces "wave", case-insensitively, keeping its spelling
        self.assertEqual([c.name for c in two.clips], ["wave", "second"])
        self.assertEqual(put, two.clips[0])
        self.reg.write(two, self.path("b.ifp"))
        with open(self.path("a.ifp"), "rb") as f:
            a = f.read()
        with open(self.path("b.ifp"), "rb") as f:
            b = f.read()
        self.assertNotEqual(a, b)
        # ANP3 (fact sheet 2.1, 2.2): a 36-byte header, then each animation
        # starting with its 24-byte name. Same key counts, so the second
        # animation starts at the same offset and its bytes are unchanged.
        start = a.index(b"second\0", 36)
        self.assertEqual(b.index(b"second\0", 36), start)
        self.assertEqual(a[:4] + a[8:36], b[:4] + b[8:36])
        self.assertEqual(a[start:], b[start:])
        back = self.reg.read(self.path("b.ifp"))
        for t, before in zip(back.clips[0].tracks, times):
            self.assertEqual(list(t.rotation.times()), [2 * x for x in before])
        self.assertEqual(back.clips[0].duration, 2.0)
        # From another format: the keys are encoded afresh.
        ani = self.reg.read(SAMPLES[1]).clips[0]
        put = two.put_clip(ani, "from_ani")
        self.assertEqual(two.clip_index("from_ani"), 2)
        self.assertTrue(all(k.raw == b"" and k.changed for k in put.tracks[0].rotation))
        ModelMatchesDump.check_doc(self, two)

    def test_retime(self):
        doc = self.reg.read(WAVE_IFP)
        clip = doc.clips[0]
        rot = clip.tracks[1].rotation
        times, values = as_list(rot.times()), as_list(rot.values())
        self.assertEqual(clip.duration, 1.0)
        slow = doc.clone().clips[0]
        self.assertIs(slow.retime(speed=0.5), slow)
        self.assertEqual(slow.duration, 2.0)
        self.assertEqual(as_list(slow.tracks[1].rotation.times()), [2 * t for t in times])
        self.assertEqual(as_list(slow.tracks[1].rotation.values()), values)
        back = doc.clone().clips[0].retime(reverse=True).tracks[1].rotation
        self.assertEqual(as_list(back.times()), [clip.duration - t for t in reversed(times)])
        self.assertEqual(as_list(back.values()), list(reversed(values)))
        # Resampling at 15 fps: 16 keys at i/15 s over the 1 s clip, each the
        # old curve's value there.
        fps = doc.clone().clips[0].retime(fps=15).tracks[1].rotation
        self.assertEqual(len(fps), 16)
        for i, k in enumerate(fps):
            self.assertAlmostEqual(k.time, i / 15, places=12)
            for got, want in zip(k.value, rot.sample(i / 15)):
                self.assertAlmostEqual(got, want, places=9)
        cut = doc.clone().clips[0].retime(trim=(0.2, 0.5))
        self.assertAlmostEqual(cut.duration, 0.3, places=12)
        first = cut.tracks[1].rotation[0]
        self.assertAlmostEqual(first.time, 0.0, places=12)
        for got, want in zip(first.value, rot.sample(0.2)):
            self.assertAlmostEqual(got, want, places=9)
        self.assertTrue(all(-1e-9 <= t <= 0.3 + 1e-9 for t in as_list(cut.tracks[1].rotation.times())))
        ModelMatchesDump.check_doc(self, doc)
        for bad in ({"speed": -1}, {"trim": (0.5, 0.2)}, {"trim": (2, 3)}, {"fps": float("nan")}):
            with self.subTest(bad=bad), self.assertRaises(animkit.Error) as cm:
                clip.retime(**bad)
            self.assertEqual(cm.exception.status, animkit.Status.USAGE)
            self.assertEqual(cm.exception.exit_code, 64)
        self.assertEqual(as_list(rot.times()), times)  # refused before anything changed

    def test_diff_names_what_changed(self):
        a = self.reg.read(WAVE_IFP)
        b = a.clone()
        self.assertTrue(a.diff(b).equal)
        self.assertEqual(len(a.diff(b)), 0)
        track = b.clips[0].tracks[1]
        key = track.rotation[5]
        v = list(key.value)
        v[0] += 0.25
        key.value = v
        d = a.diff(b)
        self.assertEqual(len(d), 1, [str(e) for e in d])
        e = d[0]
        self.assertEqual((e.kind, e.clip, e.bone, e.channel, e.key, e.component),
                         (animkit.DiffKind.KEYS, "wave", track.bone, "rotation", 5, 0))
        self.assertAlmostEqual(e.max_diff, 0.25, places=12)
        self.assertEqual(str(e), "clip 'wave' bone %r rotation: key 5 x differs by 0.25" % track.bone)
        self.assertTrue(a.diff(b, tol=0.3).equal)
        # More kinds: a key, a track, a clip and a duration.
        b.clips[0].tracks[0].translation.add(2.0, (0, 0, 0))
        b.clips[0].add_track("Tail")
        b.add_clip("extra")
        b.clips[0].duration = 1.5
        got = {(e.kind, e.clip, e.bone, e.channel) for e in a.diff(b)}
        bone0 = a.clips[0].tracks[0].bone
        self.assertEqual(got, {(animkit.DiffKind.KEYS, "wave", track.bone, "rotation"),
                               (animkit.DiffKind.KEY_COUNT, "wave", bone0, "translation"),
                               (animkit.DiffKind.TRACK_ADDED, "wave", "Tail", None),
                               (animkit.DiffKind.CLIP_ADDED, "extra", None, None),
                               (animkit.DiffKind.DURATION, "wave", None, None)})
        for e in a.diff(b):
            if e.kind == animkit.DiffKind.KEY_COUNT:
                n = len(a.clips[0].tracks[0].translation)
                self.assertEqual((e.count_a, e.count_b), (n, n + 1))
            if e.kind == animkit.DiffKind.DURATION:
                self.assertEqual(e.max_diff, 0.5)
        removed = {(e.kind, e.clip) for e in b.diff(a) if e.bone is None}
        self.assertIn((animkit.DiffKind.CLIP_REMOVED, "extra"), removed)
        # Across formats: the ani sample holds the same wave.
        ani = self.reg.read(SAMPLES[1])
        self.assertEqual([e for e in a.diff(ani, tol=1e-3) if e.kind == animkit.DiffKind.KEYS], [])
        with self.assertRaises(ValueError):
            a.diff(b, tol=-1)

    def test_rename_bones_and_assign_ids(self):
        doc = self.reg.read(WAVE_IFP)
        names = [t.bone for t in doc.clips[0].tracks]
        x, y = names[1], names[2]
        self.assertEqual(doc.rename_bones({x: y, y: x}), 2)  # one pass: a swap
        self.assertEqual([t.bone for t in doc.clips[0].tracks], [names[0], y, x])
        self.assertEqual(doc.rename_bones([("absent", "z")]), 0)
        made = animkit.Document()
        t = made.add_clip("c").add_track("calf", hash=zlib.crc32(b"calf"))
        self.assertEqual(made.rename_bones({"calf": "Calf_L"}), 1)
        self.assertEqual((t.bone, t.bone_hash), ("Calf_L", zlib.crc32(b"Calf_L")))
        # Ids from a skeleton, matched by name (ignoring case and spaces).
        doc = self.reg.read(WAVE_IFP)
        for tr in doc.clips[0].tracks:
            tr.bone_id = None
        skel = animkit.Document()
        skel.add_bone(names[0].upper(), id=7)
        skel.add_bone(" " + names[1] + " ", parent=0, id=9)
        skel.add_bone(names[2], parent=1)  # no id: the track keeps none
        self.assertEqual(doc.assign_bone_ids(skel), 2)
        self.assertEqual([(tr.bone, tr.bone_id) for tr in doc.clips[0].tracks],
                         [(names[0], 7), (names[1], 9), (names[2], None)])
        self.assertEqual(len(doc.bones), 3)
        self.assertEqual(doc.clips[0].skeleton_matched, 3)
        ModelMatchesDump.check_doc(self, doc)


if __name__ == "__main__":
    unittest.main()
