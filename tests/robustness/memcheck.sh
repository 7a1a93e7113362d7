#!/bin/sh
# memcheck.sh - every sample and corpus file dumped to JSON, and rewritten
# in its own format where the format writes, by the CLI under valgrind's
# memcheck: no read of memory that was never written (readers fill keys and
# scratch without clearing them first: ak_keys_append_uninit,
# ak_job_alloc_uninit), no invalid access, and rewrites byte-identical.
#   environment: AK_BUILDDIR, AK_SRCDIR, AK_CORPUS (set by make check)
set -eu
if [ -n "${AK_MEMCHECK_SKIP:-}" ]; then
    echo "SKIP: memcheck: $AK_MEMCHECK_SKIP"
    exit 77
fi
if ! command -v valgrind >/dev/null 2>&1; then
    if [ -n "${CI:-}" ]; then
        echo "FAIL: valgrind is not installed (./bootstrap --tests installs it)"
        exit 1
    fi
    echo "SKIP: valgrind is not installed (./bootstrap --tests installs it)"
    exit 77
fi
exe="$AK_BUILDDIR/cli/.libs/animkit" # the program itself, not libtool's wrapper script
[ -x "$exe" ] || exe="$AK_BUILDDIR/cli/animkit"
LD_LIBRARY_PATH="$AK_BUILDDIR/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export LD_LIBRARY_PATH
mkdir -p "$AK_BUILDDIR/tests/tmp"
tmp=$(mktemp -d "$AK_BUILDDIR/tests/tmp/memcheck.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

files="$AK_SRCDIR/samples/wave.ifp $AK_SRCDIR/samples/wave.ani $AK_SRCDIR/samples/wave.anm"
if [ -n "${AK_CORPUS:-}" ] && [ -d "$AK_CORPUS" ]; then
    files="$files $(ls "$AK_CORPUS"/ifp/*.ifp "$AK_CORPUS"/ani/*.ani "$AK_CORPUS"/anm/*.anm \
        "$AK_CORPUS"/mab/*.mab "$AK_CORPUS"/dff/*.dff 2>/dev/null | tr '\n' ' ')"
else
    echo "NOTE: no corpus (AK_CORPUS); the samples only"
fi

vg() { valgrind -q --error-exitcode=99 --leak-check=no "$exe" "$@"; }
failed=0 checked=0 rewritten=0
for f in $files; do
    name=$(basename "$f")
    rc=0
    vg dump --json --raw "$f" >"$tmp/out.json" 2>"$tmp/log" || rc=$?
    if [ $rc -ne 0 ]; then
        echo "FAIL: dump $name exited $rc"
        sed -n 1,30p "$tmp/log"
        failed=1
        continue
    fi
    checked=$((checked + 1))
    ext=${f##*.}
    case $ext in ifp | ani | anm) ;; *) continue ;; esac
    rm -f "$tmp/out.$ext"
    rc=0
    vg convert "$f" "$tmp/out.$ext" >/dev/null 2>"$tmp/log" || rc=$?
    if [ $rc -ne 0 ] || ! cmp -s "$f" "$tmp/out.$ext"; then
        echo "FAIL: rewriting $name (exit $rc) did not give the same bytes without a memcheck report"
        sed -n 1,30p "$tmp/log"
        failed=1
        continue
    fi
    rewritten=$((rewritten + 1))
done
echo "memcheck: $checked files dumped, $rewritten rewritten byte-identically, no memcheck report"
[ $checked -gt 0 ] || exit 1
exit $failed
