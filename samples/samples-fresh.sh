#!/bin/sh
# The shipped samples are exactly what make-samples writes today.
set -e
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"${AK_BUILDDIR}/samples/make-samples" "$tmp" >/dev/null
for f in wave.ifp wave.ani wave.anm; do
    cmp "$tmp/$f" "${AK_SRCDIR}/samples/$f" || { echo "samples/$f is stale: run make samples"; exit 1; }
done
echo "samples: 3 passed, 0 failed"
