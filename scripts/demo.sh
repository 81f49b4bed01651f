#!/usr/bin/env bash
# `npm run demo`: installs what is missing (npm packages; Node 24 + n8n, cached), builds, then starts the AML
# sandbox and a real n8n with this package and the example workflows (scripts/demo.ts). Ctrl-C or SIGTERM stops everything.
# `npm run demo -- --queue`: the same in n8n's queue mode (PostgreSQL and Redis from Debian's packages, apt-get
# installed when missing; main, 2 workers, 2 webhook processes; nothing kept after Ctrl-C).
# Settings: AML_DEMO_DIR (n8n user folder, default .n8n-demo/), AML_DEMO_PORT (default 5678), AML_DEMO_SANDBOX_PORT.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -d node_modules ] || [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "== npm install"
  npm install --no-audit --no-fund
fi
echo "== n8n (cached in ${AML_N8N_CACHE:-$HOME/.cache/n8n-nodes-aml})"
bash scripts/install-n8n.sh >/dev/null
echo "== build"
npm run -s build
if [[ " $* " == *" --queue "* ]]; then
  echo "== postgresql, redis-server (Debian packages)"
  bash scripts/install-queue.sh >/dev/null
fi
# node itself (tsx as its loader, no tsx wrapper process) in this shell's place, so that a SIGTERM sent to `npm run demo`
# (which npm passes to its child, the `exec`ed shell of package.json's script) reaches the demo, which stops n8n and
# the sandbox as on Ctrl-C.
exec node --import tsx scripts/demo.ts "$@"
