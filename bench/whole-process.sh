#!/bin/bash
# whole-process.sh - what a user waits for: runs `animkit info FILE`,
# `animkit dump --json FILE` and `animkit info` over many files, each
# RUNS times (default 20), and prints the median wall time of each, the
# JSON rate, the files per second and the peak memory (max RSS) of `info`
# on the largest corpus file.
#
#   bench/whole-process.sh [BUILD_DIR [CORPUS_DIR]]   (RUNS=N, MANY=N to change counts)
#
# Run from the source tree after `make -C build`. The "many files" case
# copies the samples and the corpus files up to 200 KB into a temporary folder until
# there are MANY (default 1066) of them, passed in one call (BATCH=N passes
# them N at a time instead).
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
corpus=${2:-$here/../shared/corpus}
runs=${RUNS:-20}
many=${MANY:-1066}
batch=${BATCH:-$many}

# The real binary, not libtool's wrapper script (which would be timed too).
"$build/cli/animkit" --version >/dev/null 2>&1 || true
exe=$build/cli/.libs/animkit
[ -x "$exe" ] || exe=$build/cli/animkit
export LD_LIBRARY_PATH="$build/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

# A command is timed as a host, make or xargs starts it: by
# bench/spawn-median (posix_spawn, then wait), built with the project.
# Timed from this script instead, each run would include bash's fork of
# itself, which copies the shell's memory (on the project's test machine
# 2-3 ms of the 4 that /bin/true takes that way); those figures are
# printed too, beside /bin/true timed both ways. Bash's times come from
# its own clock ($EPOCHREALTIME, microseconds): a `date` process per
# reading would put its fork and exec inside the measured time.
spawn=$build/bench/spawn-median
[ -x "$spawn" ] || spawn=

# median of the numbers on stdin
median() { sort -n | awk '{ a[NR] = $1 } END { if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

# time_runs CMD... : prints the median wall time in ms over $runs runs
time_runs() {
    i=0
    : >"$tmp/times"
    while [ "$i" -lt "$runs" ]; do
        t0=${EPOCHREALTIME/[.,]/}
        "$@" >/dev/null
        t1=${EPOCHREALTIME/[.,]/}
        echo $((t1 - t0)) >>"$tmp/times"
        i=$((i + 1))
    done
    median <"$tmp/times" | awk '{ printf "%.2f", $1 / 1000 }'
}

# wall_ms CMD... : the median wall time in ms, spawned (bash-timed without
# bench/spawn-median)
wall_ms() {
    if [ -n "$spawn" ]; then
        "$spawn" "$runs" "$@"
    else
        time_runs "$@"
    fi
}
how=${spawn:+spawned by bench/spawn-median}
how=${how:-timed from bash: bench/spawn-median is not built}

largest=$(ls -S "$corpus"/ifp/*.ifp "$corpus"/ani/*.ani "$corpus"/anm/*.anm 2>/dev/null | head -n 1 || true)
ped=$corpus/ifp/ped_cretaceous.ifp
[ -f "$ped" ] || ped=$here/samples/wave.ifp
[ -n "$largest" ] || largest=$ped

echo "animkit whole-process figures, median of $runs runs ($exe), $how"
if [ -n "$spawn" ]; then
    echo "process start: /bin/true $(wall_ms /bin/true) ms spawned, $(time_runs /bin/true) ms timed from bash"
fi
ms=$(wall_ms "$exe" info "$ped")
echo "info $(basename "$ped"): $ms ms wall (goal <= 10 ms)${spawn:+; timed from bash: $(time_runs "$exe" info "$ped") ms}"

"$exe" dump --json "$ped" >"$tmp/dump.json"
jbytes=$(wc -c <"$tmp/dump.json")
ms=$(wall_ms "$exe" dump --json "$ped")
echo "dump --json $(basename "$ped"): $ms ms wall, $jbytes bytes of JSON = $(awk -v b="$jbytes" -v m="$ms" 'BEGIN { printf "%.1f", b / m / 1000 }') MB/s (goal >= 250 MB/s)"

# The many-files case: copies of every readable sample and corpus file.
mkdir "$tmp/many"
n=0
while [ "$n" -lt "$many" ]; do
    for f in "$here"/samples/wave.* "$corpus"/ifp/*.ifp "$corpus"/ani/*.ani "$corpus"/anm/*.anm "$corpus"/mab/*.mab; do
        [ -f "$f" ] || continue
        case $f in *.sh) continue ;; esac
        [ "$(wc -c <"$f")" -le 200000 ] || continue # small files, as a game folder holds
        [ "$n" -lt "$many" ] || break
        ext=${f##*.}
        cp "$f" "$tmp/many/f$n.$ext"
        n=$((n + 1))
    done
done
info_many() {
    # one call when the CLI takes them all, else batches of $batch
    if [ "$batch" -ge "$many" ]; then
        "$exe" info "$tmp"/many/*
    else
        ls "$tmp"/many/* | xargs -n "$batch" "$exe" info
    fi
}
mbytes=$(cat "$tmp"/many/* | wc -c)
if [ "$batch" -ge "$many" ]; then
    ms=$(wall_ms "$exe" info "$tmp"/many/*)
else
    ms=$(time_runs info_many)
fi
calls=$(( (many + batch - 1) / batch ))
echo "info on $many files ($mbytes bytes, $calls call(s)): $ms ms wall = $(awk -v n="$many" -v m="$ms" 'BEGIN { printf "%.0f", n / m * 1000 }') files/s (goal >= 5000 files/s)"

if [ -x /usr/bin/time ]; then
    rss=$(/usr/bin/time -f %M "$exe" info "$largest" 2>&1 >/dev/null | tail -n 1)
    echo "peak memory of info $(basename "$largest") ($(wc -c <"$largest") bytes): $rss KB max RSS"
fi
