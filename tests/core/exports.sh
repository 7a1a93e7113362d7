#!/bin/sh
# exports.sh - libanimkit.so exports exactly the functions that its public
# headers declare AK_API: nothing a host could link to outside the
# documented ABI, and nothing documented missing. The list of declarations
# comes from the installed headers' text, the list of exports from the
# dynamic symbol table of the library that make built.
#   environment: AK_BUILDDIR, AK_SRCDIR (set by make check)
set -eu
lib="$AK_BUILDDIR/.libs/libanimkit.so"
[ -f "$lib" ] || { echo "FAIL: $lib was not built"; exit 1; }
command -v nm >/dev/null 2>&1 || { echo "FAIL: nm (binutils) is not installed"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Every AK_API declaration names its function on its first line.
sed -n 's/^AK_API[^(]*[ *]\(ak_[a-z0-9_]*\)(.*/\1/p' \
    "$AK_SRCDIR/core/animkit/animkit.h" "$AK_SRCDIR/core/animkit/plugin.h" | sort -u >"$tmp/declared"
nm -D --defined-only "$lib" | awk 'NF == 3 { print $3 }' | sed 's/@.*//' | sort -u >"$tmp/exported"
declared=$(wc -l <"$tmp/declared")
[ "$declared" -ge 100 ] || { echo "FAIL: only $declared AK_API declarations found in the headers"; exit 1; }
status=0
extra=$(comm -13 "$tmp/declared" "$tmp/exported")
missing=$(comm -23 "$tmp/declared" "$tmp/exported")
if [ -n "$extra" ]; then
    echo "FAIL: exported but declared in no public header:"; echo "$extra" | sed 's/^/  /'; status=1
fi
if [ -n "$missing" ]; then
    echo "FAIL: declared AK_API but not exported:"; echo "$missing" | sed 's/^/  /'; status=1
fi
[ $status -eq 0 ] && echo "PASS: libanimkit.so exports the $declared functions its headers declare, and no other"
exit $status
