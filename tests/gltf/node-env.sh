# node-env.sh - sourced by the glTF test scripts: finds node and the npm
# packages (gltf-validator, three) under $AK_NODE_PREFIX. need_node returns
# 77 (skip) outside CI when something is missing, 1 in CI ($CI set).
AK_SRCDIR=${AK_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
AK_BUILDDIR=${AK_BUILDDIR:-$AK_SRCDIR/build}
AK_CORPUS=${AK_CORPUS:-$AK_SRCDIR/../shared/corpus}
AK_NODE_PREFIX=${AK_NODE_PREFIX:-$AK_BUILDDIR/node}
export AK_SRCDIR AK_BUILDDIR AK_CORPUS AK_NODE_PREFIX

need_node() {
    missing=""
    command -v node >/dev/null 2>&1 || missing="node"
    for p in gltf-validator three; do
        [ -d "$AK_NODE_PREFIX/node_modules/$p" ] || missing="$missing npm:$p"
    done
    [ -z "$missing" ] && return 0
    if [ -n "${CI:-}" ]; then
        echo "FAIL: missing in CI: $missing (under AK_NODE_PREFIX=$AK_NODE_PREFIX)"
        return 1
    fi
    echo "SKIP: missing $missing (npm install --prefix \"$AK_NODE_PREFIX\" gltf-validator three)"
    return 77
}
