#!/bin/sh
# installcheck.sh - run by `make installcheck`: the Python module's tests
# against the installed module, library and plugins (the installed config),
# with nothing from the build tree.
#   installcheck.sh PYTHON PYTHONDIR LIBDIR SYSCONFDIR SRCDIR
set -eu
python=$1 pythondir=$2 libdir=$3 sysconfdir=$4 srcdir=$5
if [ "$python" = ":" ] || [ -z "$python" ]; then
    echo "installcheck: no python3 at configure: the Python module was not installed"
    exit 0
fi
[ -f "$pythondir/animkit/__init__.py" ] || { echo "installcheck: animkit module not in $pythondir"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -R "$srcdir/python/tests" "$tmp/tests"
cd "$tmp"
# No ANIMKIT_LIBRARY: the module must find the installed library itself.
# No bytecode either: `make uninstall` (distcheck) must leave nothing behind.
unset ANIMKIT_LIBRARY
PYTHONDONTWRITEBYTECODE=1
export PYTHONDONTWRITEBYTECODE
PYTHONPATH="$pythondir" ANIMKIT_CONFIG="$sysconfdir/animkit/animkit.ini" AK_SRCDIR="$srcdir" \
    "$python" -c 'import animkit, sys; print("installcheck: animkit from", animkit.__file__, "library", animkit.library_version())'
PYTHONPATH="$pythondir" ANIMKIT_CONFIG="$sysconfdir/animkit/animkit.ini" AK_SRCDIR="$srcdir" \
    "$python" -m unittest discover -s "$tmp/tests"
echo "installcheck: Python module tests passed against the installed copy"
