#!/usr/bin/env python3
"""convert.py - convert an animation file with the animkit Python module,
optionally attaching a model's skeleton and re-timing every key.

    python3 convert.py IN OUT [--skeleton MODEL] [--speed FACTOR] [--force]

Prints what the target format could not hold, and per clip how many tracks
matched a bone of the skeleton. Exit codes are the CLI's (sysexits.h).
"""

import argparse
import sys

import animkit


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("input")
    ap.add_argument("output")
    ap.add_argument("--skeleton", help="a file whose skeleton is attached (a JSON dump, a model)")
    ap.add_argument("--speed", type=float, default=1.0, help="play FACTOR times as fast (default 1)")
    ap.add_argument("--force", action="store_true", help="replace an existing output file")
    args = ap.parse_args()
    if not args.speed > 0:
        ap.error("--speed wants a positive number")

    reg = animkit.Registry()
    try:
        doc = reg.read(args.input)
        if args.skeleton:
            doc.attach_skeleton(reg.read(args.skeleton))
        for clip in doc.clips:
            if args.speed != 1.0:
                retime(clip, 1.0 / args.speed)
            line = "%s: %d tracks, %.3g s" % (clip.name, len(clip.tracks), clip.duration)
            if doc.bones:
                line += ", %d of %d tracks matched a bone" % (clip.skeleton_matched, len(clip.tracks))
            print(line)
        for w in reg.write(doc, args.output, overwrite=args.force):
            print("warning:", w.text, file=sys.stderr)
    except animkit.Error as e:
        print("convert.py:", e, file=sys.stderr)
        return e.exit_code
    return 0


def retime(clip, factor):
    """Scales every key and event time, and the duration, by `factor`."""
    for track in clip.tracks:
        for name in animkit.CHANNEL_NAMES:
            ch = track.channel(name)
            if len(ch):
                # A NumPy array (no per-key objects) when NumPy is present, else a list.
                times = ch.times()
                ch.set_times([t * factor for t in times] if isinstance(times, list) else times * factor)
    for event in clip.events:
        event.time *= factor
    clip.duration *= factor


if __name__ == "__main__":
    sys.exit(main())
