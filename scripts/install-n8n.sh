#!/usr/bin/env bash
# Installs n8n (default: test/n8nVersions.json's) and the Node it runs on from the npm registry into a cache folder outside the repo,
# once; later calls only check and print the paths. Any supported n8n line: 2.x runs on Node 24, the 1.x line on
# Node 22; native modules are built for that Node (sqlite3 always, isolated-vm only where that n8n depends on it);
# n8n 1.x and early 2.x pull `xlsx` from a CDN that is unreachable here, so the install overrides it with the
# registry's xlsx. A marker file is written only after a complete, verified install,
# so an interrupted install is redone. An existing complete install without a marker is adopted (checked, not
# reinstalled).
#
#   AML_N8N_VERSION   n8n version (default: the default of test/n8nVersions.json)
#   AML_NODE_VERSION  Node version n8n runs on (default: 24.21.0 for n8n 2.x, 22.23.3 for n8n 1.x)
#   AML_N8N_CACHE     cache folder (default ~/.cache/n8n-nodes-aml)
#
# Output (stdout, KEY=VALUE): AML_NODE24 (the Node binary n8n runs on, whatever its version; the name is kept for
# callers), AML_NODE_VERSION, AML_N8N_BIN, AML_N8N_VERSION, AML_N8N_DIR. Progress goes to stderr.
set -euo pipefail

VERSION="${AML_N8N_VERSION:-$(node -p "require('$(cd "$(dirname "$0")/.." && pwd)/test/n8nVersions.json').default")}"
case "$VERSION" in
  1.*) DEFAULT_NODE=22.23.3 ;;
  *) DEFAULT_NODE=24.21.0 ;;
esac
NODE_VERSION="${AML_NODE_VERSION:-$DEFAULT_NODE}"
CACHE="${AML_N8N_CACHE:-$HOME/.cache/n8n-nodes-aml}"
NODE_MAJOR="${NODE_VERSION%%.*}"
NODE_DIR="$CACHE/node$NODE_MAJOR"
N8N_DIR="$CACHE/n8n-$VERSION"
case "$(uname -m)" in
  x86_64 | amd64) ARCH=x64 ;;
  aarch64 | arm64) ARCH=arm64 ;;
  *) echo "unsupported CPU $(uname -m)" >&2; exit 1 ;;
esac
NODE_PKG="node-linux-$ARCH"
NODE_HOME="$NODE_DIR/node_modules/$NODE_PKG"
NODE_BIN="$NODE_HOME/bin/node"
N8N_BIN="$N8N_DIR/node_modules/n8n/bin/n8n"
NODE_MARK="node $NODE_PKG@$NODE_VERSION"
N8N_MARK="n8n@$VERSION on node $NODE_VERSION"

marked() { [ -f "$1/.installed" ] && [ "$(cat "$1/.installed")" = "$2" ]; }
print_paths() {
  echo "AML_NODE24=$NODE_BIN"
  echo "AML_NODE_VERSION=$NODE_VERSION"
  echo "AML_N8N_BIN=$N8N_BIN"
  echo "AML_N8N_VERSION=$VERSION"
  echo "AML_N8N_DIR=$N8N_DIR"
}
# Installed and verified before (markers are written last): no lock, so a caller does not wait while another version
# installs (scripts/test.sh installs the other versions in the background while suites run).
if marked "$NODE_DIR" "$NODE_MARK" && marked "$N8N_DIR" "$N8N_MARK"; then
  print_paths
  exit 0
fi

mkdir -p "$CACHE"
# One installer at a time (jest's global set-up and the demo may start together).
if command -v flock >/dev/null 2>&1; then
  exec 9>"$CACHE/.install.lock"
  flock 9
fi

# npm settings of the caller (ignore-scripts, nodedir for the system Node) must not leak into these installs.
npm_q() { npm --no-audit --no-fund --no-update-notifier --loglevel=error "$@"; }

node_ok() {
  [ -x "$NODE_BIN" ] && [ "$("$NODE_BIN" --version 2>/dev/null)" = "v$NODE_VERSION" ] && [ -f "$NODE_HOME/include/node/node.h" ]
}

if ! marked "$NODE_DIR" "$NODE_MARK"; then
  if node_ok; then
    echo "adopting the existing Node $NODE_VERSION in $NODE_DIR" >&2
  else
    echo "installing Node $NODE_VERSION ($NODE_PKG) into $NODE_DIR" >&2
    rm -rf "$NODE_DIR" && mkdir -p "$NODE_DIR"
    printf '{"name":"aml-node%s","private":true}\n' "$NODE_MAJOR" >"$NODE_DIR/package.json"
    (cd "$NODE_DIR" && npm_q install --ignore-scripts --save-exact "$NODE_PKG@$NODE_VERSION" >&2)
    node_ok || { echo "Node $NODE_VERSION install in $NODE_DIR failed" >&2; exit 1; }
  fi
  echo "$NODE_MARK" >"$NODE_DIR/.installed"
fi

# The native modules this n8n needs: isolated-vm only where n8n depends on it (its 2.x expression engine).
native_modules() {
  local mods=sqlite3
  [ -d "$N8N_DIR/node_modules/isolated-vm" ] && mods="$mods isolated-vm"
  echo "$mods"
}

# n8n is complete when its version is right and the native modules it needs load under its Node.
n8n_ok() {
  [ -f "$N8N_DIR/node_modules/n8n/package.json" ] || return 1
  [ "$("$NODE_BIN" -p "require('$N8N_DIR/node_modules/n8n/package.json').version" 2>/dev/null)" = "$VERSION" ] || return 1
  local mod
  for mod in $(native_modules); do
    (cd "$N8N_DIR" && "$NODE_BIN" -e "require('$mod')" >/dev/null 2>&1) || return 1
  done
}

# n8n 1.x and the early 2.x list xlsx as a CDN tarball; the registry's xlsx (same API) installs offline. Harmless
# where n8n no longer depends on it.
overrides_json() {
  printf ',\n  "overrides": {\n    "xlsx": "%s"\n  }' "0.18.5"
}

clean_package_json() {
  printf '{\n  "name": "aml-n8n-runtime",\n  "private": true,\n  "dependencies": {\n    "n8n": "%s"\n  }%s\n}\n' "$VERSION" "$(overrides_json)" >"$N8N_DIR/package.json"
  # an earlier install listed Node itself as a dependency; n8n does not need it there
  rm -rf "$N8N_DIR/node_modules/node" "$N8N_DIR/node_modules/.bin/node"
}

if ! marked "$N8N_DIR" "$N8N_MARK"; then
  if n8n_ok; then
    echo "adopting the existing n8n $VERSION in $N8N_DIR" >&2
  else
    echo "installing n8n $VERSION on Node $NODE_VERSION into $N8N_DIR (2-6 minutes and 2.9 GB the first time)" >&2
    rm -rf "$N8N_DIR" && mkdir -p "$N8N_DIR"
    (
      cd "$N8N_DIR"
      clean_package_json
      export PATH="$NODE_HOME/bin:$PATH" npm_config_nodedir="$NODE_HOME"
      # A plain install fails offline: a Kafka client's native build downloads sources. Skip every install
      # script, then build the native modules n8n needs against its Node's headers.
      npm_q install --omit=dev --ignore-scripts >&2
      # shellcheck disable=SC2046
      npm_q rebuild --ignore-scripts=false $(native_modules) >&2
    )
    n8n_ok || { echo "n8n $VERSION install in $N8N_DIR is incomplete ($(native_modules) do not load)" >&2; exit 1; }
  fi
  clean_package_json
  echo "$N8N_MARK" >"$N8N_DIR/.installed"
fi
# the previous script's markers
rm -f "$NODE_DIR/.ok" "$N8N_DIR/.ok"

print_paths
