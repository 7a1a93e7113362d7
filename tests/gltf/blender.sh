#!/bin/sh
# blender.sh - Blender 3.4 headless, both ways (gltf.md section 3):
#  1. ped_cretaceous.ifp (294 clips) on ped_80.dff's skeleton -> .glb; Blender
#     imports it and shows every bone's local transform at every frame of three clips
#     as animkit samples it (blender.py);
#  2. in Blender one bone of WALK_civi is turned 40 degrees at frame 10 and
#     the action exported with Blender's exporter; animkit converts that
#     .glb to .ifp (edited path); the edit is in the .ifp and every other
#     bone still matches the original clip at every frame.
# Needs Debian's blender and python3-numpy (.ci/run installs both). Outside
# CI the test is skipped when they or the corpus are missing.
set -u
. "${AK_SRCDIR:-$(dirname "$0")/../..}/tests/gltf/node-env.sh"
missing=""
if ! command -v blender >/dev/null 2>&1; then
    missing="blender"
elif ! blender -b --factory-startup --python-exit-code 1 --python-expr 'import numpy' >/dev/null 2>&1; then
    missing="python3-numpy (for Blender's python)"
fi
if [ -n "$missing" ]; then
    if [ -n "${CI:-}" ]; then echo "FAIL: missing in CI: $missing"; exit 1; fi
    echo "SKIP: missing $missing (apt-get install blender python3-numpy)"; exit 77
fi
ifp="$AK_CORPUS/ifp/ped_cretaceous.ifp" dff="$AK_CORPUS/dff/ped_80.dff"
if [ ! -f "$ifp" ] || [ ! -f "$dff" ]; then echo "SKIP: no corpus at $AK_CORPUS"; exit 77; fi

fixture="$AK_BUILDDIR/tests/gltf/gltf-fixture"
cli="$AK_BUILDDIR/cli/animkit"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
# clip, frames at 30 fps (duration x 30 + 1)
"$fixture" skeleton "$ifp" "$dff" ped.glb || exit 1     # all 294 clips
{ printf '{"WALK_civi":'; "$fixture" pose "$ifp" WALK_civi 30 33 "$dff"
  printf ',"WALK_fat":'; "$fixture" pose "$ifp" WALK_fat 30 41 "$dff"
  printf ',"ATM":'; "$fixture" pose "$ifp" ATM 30 366 "$dff"; printf '}'; } >expected.json || exit 1
blender -b --factory-startup --python-exit-code 1 --python "$AK_SRCDIR/tests/gltf/blender.py" -- \
    ped.glb expected.json blender.glb edit.json WALK_civi " R UpperArm" 10 >blender.log 2>&1
rc=$?
grep -E '^(blender|FAIL)' blender.log
[ $rc -eq 0 ] || { tail -20 blender.log; exit 1; }
"$cli" convert blender.glb back.ifp 2>&1 || exit 1
"$fixture" pose "$ifp" WALK_civi 30 33 "$dff" >before.json &&
    "$fixture" pose back.ifp '#0' 30 33 "$dff" >after.json || exit 1
python3 - <<'PY'
import json, sys
before, after, edit = (json.load(open(f)) for f in ("before.json", "after.json", "edit.json"))

def qdiff(a, b):  # largest component difference, up to sign
    return min(max(abs(x - y) for x, y in zip(a, b)), max(abs(x + y) for x, y in zip(a, b)))

worst_q = worst_t = 0.0
checked = 0
for bone, rows in before.items():
    for row, back in zip(rows, after[bone]):
        if bone == edit["bone"]:
            continue
        worst_q = max(worst_q, qdiff(row[1:5], back[1:5]))
        worst_t = max(worst_t, max(abs(x - y) for x, y in zip(row[5:8], back[5:8])))
        checked += 1
got = after[edit["bone"]][edit["frame"]][1:5]
was = before[edit["bone"]][edit["frame"]][1:5]
print(f"blender -> ifp: {checked} untouched bone poses, worst rotation {worst_q:.2e}, translation {worst_t:.2e}; "
      f"edited bone off the edit by {qdiff(got, edit['rotation']):.2e}, off the original by {qdiff(got, was):.2e}")
ok = checked > 0 and worst_q < 2e-3 and worst_t < 2e-3 and qdiff(got, edit["rotation"]) < 2e-3 and qdiff(got, was) > 0.1
sys.exit(0 if ok else 1)
PY
