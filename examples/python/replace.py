#!/usr/bin/env python3
"""replace.py - put a clip of one file into a package, optionally retimed,
and show what changed.

    python3 replace.py PACKAGE DONOR OUT [--clip NAME] [--as NAME] [--speed FACTOR] [--force]

Takes clip NAME of DONOR (default its first), plays it FACTOR times as fast,
and puts it into PACKAGE under its own name or --as: in place of the clip of
that name, else appended. Writes OUT (the clips not replaced keep their
stored bytes) and prints the differences between PACKAGE and OUT, one line
each. Exit codes are the CLI's (sysexits.h).
"""

import argparse
import sys

import animkit


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("package")
    ap.add_argument("donor")
    ap.add_argument("output")
    ap.add_argument("--clip", help="the donor's clip (default: its first)")
    ap.add_argument("--as", dest="name", help="the name in the package (default: the clip's own)")
    ap.add_argument("--speed", type=float, default=1.0, help="play FACTOR times as fast (default 1)")
    ap.add_argument("--force", action="store_true", help="replace an existing output file")
    args = ap.parse_args()

    reg = animkit.Registry()
    try:
        package = reg.read(args.package)
        donor = reg.read(args.donor)
        clip = donor.clip(args.clip) if args.clip else (donor.clips[0] if donor.clips else None)
        if clip is None:
            print("replace.py: %s: no clip %s" % (args.donor, args.clip or "at all"), file=sys.stderr)
            return 65  # EX_DATAERR
        if args.speed != 1.0:
            clip.retime(speed=args.speed)  # raises animkit.Error (exit 64) for a bad factor
        edited = package.clone()
        edited.put_clip(clip, args.name)
        for w in reg.write(edited, args.output, overwrite=args.force):
            print("warning:", w.text, file=sys.stderr)
        # Read back: the differences of what was written, after what OUT's
        # format could not hold (the warnings above) was dropped.
        for difference in package.diff(reg.read(args.output)):
            print(difference)
    except animkit.Error as e:
        print("replace.py:", e, file=sys.stderr)
        return e.exit_code
    return 0


if __name__ == "__main__":
    sys.exit(main())
