#!/bin/sh
# validate.sh - every writable corpus file and sample -> .glb and .gltf, the
# Khronos validator on each (0 errors, 0 warnings, only the expected Info
# codes), then each back to its own format, byte-identical. The .mab file
# (read-only format) -> .glb, validated. The hand-made document of
# handmade.h (invalid times, odd names, extremes) -> .glb and .gltf, validated.
#
# Needs node and the npm packages gltf-validator and three installed under
# $AK_NODE_PREFIX (.ci/run does `npm install --prefix`). Outside CI the test
# is skipped when they are missing; in CI ($CI set) that is a failure.
set -u
. "${AK_SRCDIR:-$(dirname "$0")/../..}/tests/gltf/node-env.sh"
need_node || exit $?

cli="$AK_BUILDDIR/cli/animkit"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
status=0
files="$AK_SRCDIR/samples/wave.ifp $AK_SRCDIR/samples/wave.ani $AK_SRCDIR/samples/wave.anm"
if [ -d "$AK_CORPUS" ]; then
    files="$files $(ls "$AK_CORPUS"/ifp/*.ifp "$AK_CORPUS"/ani/*.ani "$AK_CORPUS"/anm/*.anm 2>/dev/null)"
else
    echo "SKIP: corpus files (no corpus at $AK_CORPUS); samples only"
fi
outs=""
for f in $files; do
    b=$(basename "$f")
    ext=${b##*.}
    for c in glb gltf; do
        if ! "$cli" convert "$f" "$tmp/$b.$c" 2>"$tmp/err"; then
            echo "FAIL: convert $f -> .$c"; cat "$tmp/err"; status=1; continue
        fi
        outs="$outs $tmp/$b.$c"
        if ! "$cli" convert "$tmp/$b.$c" "$tmp/back.$b.$c.$ext" 2>"$tmp/err"; then
            echo "FAIL: convert $b.$c -> .$ext"; cat "$tmp/err"; status=1; continue
        fi
        if cmp -s "$f" "$tmp/back.$b.$c.$ext"; then
            echo "ok: $b -> .$c -> .$ext byte-identical"
        else
            echo "FAIL: $b -> .$c -> .$ext differs"; cmp "$f" "$tmp/back.$b.$c.$ext" | head -1; status=1
        fi
        rm -f "$tmp/back.$b.$c.$ext"
    done
done
for f in $(ls "$AK_CORPUS"/mab/*.mab 2>/dev/null); do
    b=$(basename "$f")
    "$cli" convert "$f" "$tmp/$b.glb" 2>"$tmp/err" && outs="$outs $tmp/$b.glb" ||
        { echo "FAIL: convert $f -> .glb"; cat "$tmp/err"; status=1; }
done
# With a model's skeleton (convert --skeleton): valid, and back byte-identical.
ped="$AK_CORPUS/ifp/ped_cretaceous.ifp" dff="$AK_CORPUS/dff/ped_80.dff"
if [ -f "$ped" ] && [ -f "$dff" ]; then
    if "$cli" convert "$ped" "$tmp/ped-skeleton.glb" --skeleton "$dff" 2>"$tmp/err" &&
        "$cli" convert "$tmp/ped-skeleton.glb" "$tmp/ped-back.ifp" 2>"$tmp/err" && cmp -s "$ped" "$tmp/ped-back.ifp"; then
        echo "ok: ped_cretaceous.ifp --skeleton ped_80.dff -> .glb -> .ifp byte-identical"
        outs="$outs $tmp/ped-skeleton.glb"
    else
        echo "FAIL: ped_cretaceous.ifp --skeleton ped_80.dff round trip"; cat "$tmp/err"; status=1
    fi
fi
for c in glb gltf; do
    "$AK_BUILDDIR/tests/gltf/gltf-fixture" handmade "$tmp/handmade.$c" && outs="$outs $tmp/handmade.$c" ||
        { echo "FAIL: gltf-fixture handmade"; status=1; }
done
node "$AK_SRCDIR/tests/gltf/validate.mjs" $outs || status=1
exit $status
