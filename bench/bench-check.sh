#!/bin/sh
# bench-check.sh - the benchmark runs and its figures are real: every file
# it is given gets a line, each decoded to keys, each same-format write,
# each rebuilt copy (the build-alone figure) and each way back from .glb
# byte-identical to the file, a write floor and a call-alone write for
# each file that has a writer, a call-alone read for each, and the document
# memory it reports no less than the key structs alone. One quick round
# each (the figures themselves are not judged here; see README,
# "Performance").
#   environment: AK_BUILDDIR, AK_SRCDIR, AK_CORPUS (set by make check)
set -eu
bench="$AK_BUILDDIR/bench/animkit-bench"
command -v python3 >/dev/null 2>&1 || {
    [ -n "${CI:-}" ] && { echo "FAIL: python3 is not installed (./bootstrap --tests installs it)"; exit 1; }
    echo "SKIP: python3 is not installed (./bootstrap --tests installs it)"; exit 77; }
files="$AK_SRCDIR/samples/wave.ifp $AK_SRCDIR/samples/wave.ani $AK_SRCDIR/samples/wave.anm"
if [ -n "${AK_CORPUS:-}" ] && [ -d "$AK_CORPUS" ]; then
    # One file of each corpus format: enough to see each reader and writer.
    for d in ifp ani anm mab; do
        f=$(ls "$AK_CORPUS/$d"/* 2>/dev/null | grep -v README | head -1 || true)
        [ -n "$f" ] && files="$files $f"
    done
else
    echo "NOTE: no corpus (AK_CORPUS); the samples only"
fi
mkdir -p "$AK_BUILDDIR/tests/tmp"
out=$(mktemp "$AK_BUILDDIR/tests/tmp/bench.XXXXXX")
trap 'rm -f "$out"' EXIT
# -t 0: one operation per round; then two rounds of 1 ms for the round loop.
# The whole-process timer (bench/whole-process.sh): a median of real
# runs, and a failing or missing command is an error, not a figure.
spawn="$AK_BUILDDIR/bench/spawn-median"
ms=$("$spawn" 3 /bin/true)
case $ms in [0-9]*.[0-9][0-9]) ;; *) echo "FAIL: spawn-median printed '$ms' for /bin/true"; exit 1 ;; esac
if "$spawn" 3 /bin/false >/dev/null 2>&1 || "$spawn" 1 /nonexistent/command >/dev/null 2>&1; then
    echo "FAIL: spawn-median timed a failing command"; exit 1
fi
# ... and the time it measures is the command's: a 50 ms sleep takes 50 ms or more.
ms=$("$spawn" 3 sleep 0.05)
awk -v m="$ms" 'BEGIN { exit !(m >= 50 && m < 5000) }' || { echo "FAIL: sleep 0.05 took $ms ms"; exit 1; }
"$bench" -n 1 -t 0 --json $files >"$out"
"$bench" -n 2 -t 1 --json --no-gltf $files >>"$out"
python3 - "$out" $files <<'PY'
import json, os, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
files = sys.argv[2:]
runs = [i for i, l in enumerate(lines) if "memcpy_gb_s" in l]
assert len(runs) == 2, "two runs, each opening with its memcpy line: %r" % runs
bad = []
for run, start in enumerate(runs):
    head = lines[start]
    assert head["memcpy_gb_s"] > 0 and head["clock_ns"] >= 0 and head["rounds"] == (1, 2)[run], head
    # The processor named as /proc/cpuinfo names it, and no more CPUs than the machine has.
    cpuinfo = open("/proc/cpuinfo").read() if os.path.exists("/proc/cpuinfo") else ""
    model = [l.split(":", 1)[1].strip() for l in cpuinfo.splitlines() if l.startswith("model name")]
    assert head["cpu"] == (model[0] if model else "unknown"), (head["cpu"], model[:1])
    assert 1 <= head["cpus"] <= os.cpu_count(), head["cpus"]
    rows = [l for l in lines[start + 1:] if "file" in l][:len(files)]
    if [r["file"] for r in rows] != files:
        bad.append("run %d: rows for %r, expected %r" % (run, [r["file"] for r in rows], files))
    for r in rows:
        name = r["file"]
        if not (r["keys"] > 0 and r["read_mb_s"] > 0 and r["json_bytes"] > 0):
            bad.append("%s: keys %s, read %s MB/s, json %s bytes" % (name, r["keys"], r["read_mb_s"], r["json_bytes"]))
        if r["identical"] is False or (r["write_mb_s"] is not None and r["identical"] is not True):
            bad.append("%s: the same-format write is not byte-identical" % name)
        # The build-alone figure is of the same document: its copy writes the file.
        if not r["build_mb_s"] > 0 or r["build_identical"] is not (None if r["write_mb_s"] is None else True):
            bad.append("%s: build alone %s MB/s, its copy written back identical: %s"
                       % (name, r["build_mb_s"], r["build_identical"]))
        # The write floor is measured for every file that has a writer, and only those.
        if (r["floor_write_mb_s"] is None) != (r["write_mb_s"] is None) or \
                (r["floor_write_mb_s"] is not None and not r["floor_write_mb_s"] > 0):
            bad.append("%s: write %s MB/s, floor write %s MB/s" % (name, r["write_mb_s"], r["floor_write_mb_s"]))
        # So are the calls alone: a read for every file, a write where there is a writer.
        if not r["call_read_mb_s"] > 0 or (r["call_write_mb_s"] is None) != (r["write_mb_s"] is None) or \
                (r["call_write_mb_s"] is not None and not r["call_write_mb_s"] > 0):
            bad.append("%s: call alone read %s, write %s MB/s (write %s)"
                       % (name, r["call_read_mb_s"], r["call_write_mb_s"], r["write_mb_s"]))
        if r.get("glb_back_identical") is False:
            bad.append("%s: file -> .glb -> file is not byte-identical" % name)
    mem = [l for l in lines[start + 1:] if "memory_file" in l][:1]
    if not mem or mem[0]["bytes_per_key"] < mem[0]["key_struct_bytes"]:
        bad.append("run %d: memory line %r" % (run, mem))
for b in bad:
    print("FAIL:", b)
print("%d files, %d rows checked" % (len(files), sum(1 for l in lines if "file" in l)))
sys.exit(1 if bad else 0)
PY
