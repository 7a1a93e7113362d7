#!/bin/sh
# installcheck.sh - run by `make installcheck` (and so by distcheck) after
# `make install`: builds the example plugin and host out of tree against
# the installed animkit with nothing but pkg-config, adds the plugin with
# one config section, and uses it through the installed, unchanged CLI.
#   installcheck.sh PREFIX LIBDIR BINDIR SYSCONFDIR SRCDIR
set -eu
prefix=$1 libdir=$2 bindir=$3 sysconfdir=$4 srcdir=$5
# The plugin is built in the build folder, not /tmp: plugins and configs
# below a folder others can write to are refused (README, Security).
tmp=$(mktemp -d "$PWD/installcheck.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export PKG_CONFIG_PATH="$libdir/pkgconfig"
export LD_LIBRARY_PATH="$libdir"

fail() { echo "installcheck: $*"; exit 1; }

cp -R "$srcdir/examples/plugin" "$srcdir/examples/host" "$tmp/"
chmod -R u+w "$tmp"
make -s -C "$tmp/plugin" || fail "the example plugin does not build against the installed headers"
make -s -C "$tmp/host" || fail "the example host does not build against the installed library"
[ "$(pkg-config --variable=plugindir animkit)" = "$libdir/animkit/plugins" ] || fail "pkg-config plugindir is wrong"

# The installed config plus one section for the new plugin.
cp "$sysconfdir/animkit/animkit.ini" "$tmp/animkit.ini"
printf '\n[plugin akm]\npath = %s/plugin/akm.so\n[plugin txa]\npath = %s/plugin/txa.so\n' "$tmp" "$tmp" >>"$tmp/animkit.ini"
animkit="$bindir/animkit --config $tmp/animkit.ini"
# A build folder that fails the trust rule itself (below /tmp,
# group-writable) gets the development escape hatch, said aloud.
if ! $animkit formats >/dev/null 2>&1; then
    echo "installcheck: NOTE: $tmp fails the plugin trust rule; setting ANIMKIT_UNSAFE_PLUGINS=1"
    ANIMKIT_UNSAFE_PLUGINS=1
    export ANIMKIT_UNSAFE_PLUGINS
fi

$animkit formats >"$tmp/formats.txt" || fail "animkit formats failed"
cat "$tmp/formats.txt"
grep -q '^akm ' "$tmp/formats.txt" || fail "the new plugin is not listed"
grep -q '^ifp ' "$tmp/formats.txt" || fail "the installed plugins are not listed"
grep -q '^refused' "$tmp/formats.txt" && fail "a plugin was refused"

# Convert a shipped sample into the new format and back, and read it from
# memory with the example host.
$animkit convert "$srcdir/samples/wave.ifp" "$tmp/wave.akm" 2>"$tmp/warnings.txt" || fail "convert into akm failed"
cat "$tmp/warnings.txt"
grep -q 'translation keys will be dropped' "$tmp/warnings.txt" || fail "the loss of translations was not reported"
$animkit info "$tmp/wave.akm" | grep -q 'akm AKM1, 1 clip, 3 tracks' || fail "the akm file does not read back"
$animkit convert "$tmp/wave.akm" "$tmp/back.ifp" 2>/dev/null || fail "convert from akm failed"
ANIMKIT_CONFIG="$tmp/animkit.ini" "$tmp/host/host" "$tmp/wave.akm" | tee "$tmp/host.txt"
grep -q 'format akm AKM1, 1 clips, 3 tracks' "$tmp/host.txt" || fail "the host did not read the file"

# README's walkthrough plugin: declared parameters, text in and out, errors
# with line and column.
$animkit formats -v txa | grep -q -- '-p digits=INTEGER (write, default 0)' || fail "txa's parameter is not listed"
$animkit convert "$srcdir/samples/wave.ifp" "$tmp/wave.txa" 2>/dev/null || fail "convert into txa failed"
$animkit --strict info "$tmp/wave.txa" | grep -q 'txa, 1 clip, 3 tracks' || fail "the txa file does not read back"
$animkit convert "$tmp/wave.txa" "$tmp/again.txa" && cmp -s "$tmp/wave.txa" "$tmp/again.txa" || fail "txa does not round-trip"
$animkit convert "$tmp/wave.txa" "$tmp/x.txa" -p digit=3 2>"$tmp/typo.txt" && fail "a mistyped parameter was accepted"
grep -q "did you mean 'digits'" "$tmp/typo.txt" || fail "no suggestion for a mistyped parameter"
printf 'TXA 1\n0 0 0 0 1 hips\n0.5 0 0 0,7 0.7 hips\n' >"$tmp/bad.txa"
$animkit info "$tmp/bad.txa" 2>"$tmp/bad.txt" && fail "a bad txa file was accepted"
grep -q 'bad.txa:3:9: txa: error' "$tmp/bad.txt" || fail "the error does not show line and column"

# A C++ plugin, built by hand with hidden visibility: AK_PLUGIN_ENTRY must
# export its entry with C linkage for the unchanged CLI to load it.
passed=13
CXX=${CXX:-c++}
if command -v "$CXX" >/dev/null 2>&1; then
    # Word splitting of pkg-config's output is wanted here.
    # shellcheck disable=SC2046
    "$CXX" -std=c++17 -Wall -Wextra -Werror -fvisibility=hidden -fPIC -shared -o "$tmp/plugin/akx.so" \
        "$srcdir/examples/plugin/akm_cxx.cpp" $(pkg-config --cflags --libs animkit) ||
        fail "the C++ example plugin does not build against the installed headers"
    printf '[plugin akx]\npath = %s/plugin/akx.so\n' "$tmp" >>"$tmp/animkit.ini"
    $animkit formats >"$tmp/formats.txt" 2>&1 || fail "animkit formats failed with the C++ plugin"
    grep -q '^akx ' "$tmp/formats.txt" || fail "the C++ plugin is not listed"
    grep -q '^refused' "$tmp/formats.txt" && fail "a plugin was refused: $(cat "$tmp/formats.txt")"
    $animkit convert "$srcdir/samples/wave.ifp" "$tmp/wave.akx" 2>/dev/null || fail "convert into akx failed"
    $animkit info "$tmp/wave.akx" | grep -q 'akx, 1 clip, 3 tracks' || fail "the akx file does not read back"
    # akx holds what akm holds, so both files carry the same keys.
    $animkit dump "$tmp/wave.akx" | sed 1,3d >"$tmp/akx.txt" && $animkit dump "$tmp/wave.akm" | sed 1,3d >"$tmp/akm.txt" ||
        fail "dump failed"
    cmp -s "$tmp/akx.txt" "$tmp/akm.txt" || fail "akx and akm files of one sample differ"
    passed=$((passed + 3))
else
    echo "SKIP: no C++ compiler ($CXX): the C++ plugin was not built"
fi
echo "installcheck: $passed passed, 0 failed"
