#!/bin/sh
# bench/batch.sh - files per second of one `animkit convert` call over many
# small files, with -j 1 and -j 2 (issue 14). Makes N copies of
# samples/wave.ifp in a temporary folder, converts them to JSON, best of R
# rounds each.
#   usage: bench/batch.sh [ANIMKIT] [N] [R]
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
animkit=${1:-$here/build/cli/animkit}
n=${2:-1200}
rounds=${3:-3}
tmp=$(mktemp -d /tmp/animkit-batch-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/in"
i=0
while [ "$i" -lt "$n" ]; do
    cp "$here/samples/wave.ifp" "$tmp/in/wave$i.ifp"
    i=$((i + 1))
done
bytes=$(du -sb "$tmp/in" | cut -f1)
for j in 1 2; do
    best=
    r=0
    while [ "$r" -lt "$rounds" ]; do
        rm -rf "$tmp/out"
        start=$(date +%s.%N)
        "$animkit" convert -j "$j" "$tmp/in" -o "$tmp/out" --to json 2>"$tmp/err"
        end=$(date +%s.%N)
        best=$(awk -v a="$start" -v b="$end" -v best="$best" \
            'BEGIN { s = b - a; if (best == "" || s < best) best = s; printf "%.6f", best }')
        r=$((r + 1))
    done
    printf 'convert -j %d: %d files (%d bytes) in %.3f s = %.0f files/s (best of %d; %s)\n' \
        "$j" "$n" "$bytes" "$best" "$(awk -v n="$n" -v s="$best" 'BEGIN { print n / s }')" "$rounds" "$(tail -1 "$tmp/err")"
    best=
    r=0
    while [ "$r" -lt "$rounds" ]; do
        start=$(date +%s.%N)
        "$animkit" info -j "$j" "$tmp/in" >/dev/null
        end=$(date +%s.%N)
        best=$(awk -v a="$start" -v b="$end" -v best="$best" \
            'BEGIN { s = b - a; if (best == "" || s < best) best = s; printf "%.6f", best }')
        r=$((r + 1))
    done
    printf 'info    -j %d: %d files in %.3f s = %.0f files/s (best of %d)\n' \
        "$j" "$n" "$best" "$(awk -v n="$n" -v s="$best" 'BEGIN { print n / s }')" "$rounds"
done
