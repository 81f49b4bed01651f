#!/usr/bin/env bash
# `npm test`: installs what is missing (npm packages; Node 24 + n8n into ~/.cache/n8n-nodes-aml), builds,
# then runs the unit, sandbox and e2e (real n8n) suites. Prints each suite's counts and, last, alone:
#   tests: N passed, N failed
set -uo pipefail
cd "$(dirname "$0")/.."

if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "== installing npm packages"
  npm ci --no-audit --no-fund || { echo "npm ci failed"; echo "tests: 0 passed, 1 failed"; exit 1; }
fi
echo "== installing n8n (cached)"
bash scripts/install-n8n.sh >/dev/null || { echo "n8n install failed"; echo "tests: 0 passed, 1 failed"; exit 1; }
echo "== build"
npm run -s build || { echo "build failed"; echo "tests: 0 passed, 1 failed"; exit 1; }

out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
passed=0
failed=0
status=0
for suite in unit sandbox e2e; do
  echo "== suite: $suite"
  extra=()
  [ "$suite" = e2e ] && extra=(--runInBand)
  AML_E2E_SKIP_BUILD=1 npx jest --selectProjects "$suite" --passWithNoTests --ci --json --outputFile="$out/$suite.json" "${extra[@]}" </dev/null
  rc=$?
  if [ -s "$out/$suite.json" ]; then
    read -r p f <<<"$(node -e 'const r=require(process.argv[1]);const crashed=r.testResults.filter(t=>t.status==="failed"&&t.assertionResults.length===0).length;console.log(r.numPassedTests, r.numFailedTests+crashed)' "$out/$suite.json")"
  else
    p=0; f=1
  fi
  [ "$rc" -ne 0 ] && [ "$f" -eq 0 ] && f=1
  echo "suite $suite: $p passed, $f failed"
  passed=$((passed + p))
  failed=$((failed + f))
  [ "$f" -ne 0 ] && status=1
done
echo "tests: $passed passed, $failed failed"
exit $status
