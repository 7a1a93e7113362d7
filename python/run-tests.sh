#!/bin/sh
# run-tests.sh - the Python module's unit tests against the build tree (make
# check): the library from .libs, the plugins from the build's plugin folders
# through a config written here. With NumPy importable the tests run twice,
# with NumPy and without it (ANIMKIT_NO_NUMPY), so both paths stay tested.
#   environment: PYTHON, AK_BUILDDIR, AK_SRCDIR (set by make check)
set -eu
if [ -n "${AK_PY_SKIP:-}" ]; then
    echo "SKIP: Python module tests: $AK_PY_SKIP"
    exit 77
fi
if [ -z "${PYTHON:-}" ] || [ "$PYTHON" = ":" ]; then
    echo "SKIP: configure found no python3; the Python module is neither tested nor installed"
    exit 77
fi
# The config goes under the build tree, not /tmp: a config naming plugins
# below a folder others can write to is refused (README, Security).
mkdir -p "$AK_BUILDDIR/tests/tmp"
tmp=$(mktemp -d "$AK_BUILDDIR/tests/tmp/python.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
{
    echo "[animkit]"
    echo "autoload = no"
    for so in "$AK_BUILDDIR"/plugins/*/.libs/*.so; do
        name=$(basename "$so" .so)
        printf '[plugin %s]\npath = %s\n' "$name" "$so"
    done
} >"$tmp/animkit.ini"
# A build tree that fails the trust rule itself (below /tmp, group-writable)
# gets the development escape hatch, said aloud.
if ! "$AK_BUILDDIR/cli/animkit" --config "$tmp/animkit.ini" formats >/dev/null 2>&1; then
    echo "NOTE: the build tree fails the plugin trust rule; setting ANIMKIT_UNSAFE_PLUGINS=1"
    ANIMKIT_UNSAFE_PLUGINS=1
    export ANIMKIT_UNSAFE_PLUGINS
fi
ANIMKIT_LIBRARY="$AK_BUILDDIR/.libs/libanimkit.so"
ANIMKIT_CONFIG="$tmp/animkit.ini"
PYTHONPATH="$AK_SRCDIR/python${PYTHONPATH:+:$PYTHONPATH}"
PYTHONDONTWRITEBYTECODE=1
export ANIMKIT_LIBRARY ANIMKIT_CONFIG PYTHONPATH PYTHONDONTWRITEBYTECODE AK_SRCDIR
"$PYTHON" -m unittest discover -s "$AK_SRCDIR/python/tests" -v
if "$PYTHON" -c 'import numpy' 2>/dev/null; then
    echo "again without NumPy:"
    ANIMKIT_NO_NUMPY=1 "$PYTHON" -m unittest discover -s "$AK_SRCDIR/python/tests"
else
    echo "NumPy not importable by $PYTHON: the list path was tested, the array path was not"
fi
