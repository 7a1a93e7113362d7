#!/bin/sh
# three.sh - three.js (GLTFLoader, under Node) reads what animkit writes:
# every bone's rotation and translation sampled at several times per clip
# matches ak_channel_sample (float32 tolerance, rotations up to sign), for
# the samples and a few corpus files; and a hand-made Z-up ped stands
# upright in three.js (head above feet, +Y up) at every sampled time, and
# so does a corpus walk on a corpus .dff skeleton.
set -u
. "${AK_SRCDIR:-$(dirname "$0")/../..}/tests/gltf/node-env.sh"
need_node || exit $?

fixture="$AK_BUILDDIR/tests/gltf/gltf-fixture"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
status=0
files="$AK_SRCDIR/samples/wave.ifp $AK_SRCDIR/samples/wave.ani $AK_SRCDIR/samples/wave.anm"
for f in ifp/walking_cuffed.ifp ifp/ped_cretaceous.ifp ani/lights_camera_action_100fps_w_music.ani \
    anm/frm2_horse_44bones_168frames_eat.anm mab/wdl_trained-idle_mplyr_000f_norm_nowep.mab; do
    if [ -f "$AK_CORPUS/$f" ]; then files="$files $AK_CORPUS/$f"; else echo "SKIP: $f (no corpus)"; fi
done
for f in $files; do
    b=$(basename "$f")
    if ! "$fixture" sample "$f" "$tmp/$b.glb" >"$tmp/$b.json" 2>"$tmp/err"; then
        echo "FAIL: gltf-fixture sample $f"; cat "$tmp/err"; status=1; continue
    fi
    node "$AK_SRCDIR/tests/gltf/three.mjs" compare "$tmp/$b.glb" "$tmp/$b.json" || status=1
done
"$fixture" standing "$tmp/ped.glb" && node "$AK_SRCDIR/tests/gltf/three.mjs" upright "$tmp/ped.glb" Head "L Foot" "R Foot" ||
    status=1
# A real ped: ped_cretaceous.ifp walks on ped_80.dff's skeleton (GTA bone
# names start with a space).
if [ -f "$AK_CORPUS/ifp/ped_cretaceous.ifp" ] && [ -f "$AK_CORPUS/dff/ped_80.dff" ]; then
    "$fixture" skeleton "$AK_CORPUS/ifp/ped_cretaceous.ifp" "$AK_CORPUS/dff/ped_80.dff" "$tmp/ped80.glb" \
        WALK_civi WALK_fat WALK_old RUN_civi sprint_civi &&
        node "$AK_SRCDIR/tests/gltf/three.mjs" upright "$tmp/ped80.glb" " Head" " L Foot" " R Foot" || status=1
else
    echo "SKIP: ped_cretaceous.ifp on ped_80.dff (no corpus)"
fi
exit $status
