#!/usr/bin/env bash
# n8n's community-node lint (`n8n-node lint`, strict mode, default eslint config) over exactly what the
# package publishes: nodes/, credentials/, icons/ and package.json. Test tooling (test/, bench/, scripts/)
# is free to use Node's modules and devDependencies, so it is linted by nothing here.
# First the formatting of nodes/, credentials/ and the test code, benchmarks and scripts (prettier with the n8n
# starter's .prettierrc.js; fix with `npm run format`).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/node_modules/.bin/prettier" --check --log-level warn "$root/nodes/**/*.ts" "$root/credentials/**/*.ts" "$root/test/**/*.ts" "$root/bench/**/*.ts" "$root/scripts/**/*.ts"
stage="$root/.lint-stage.$$"
rm -rf "$stage" && mkdir -p "$stage"
trap 'rm -rf "$stage"' EXIT
cp -r "$root/nodes" "$root/credentials" "$root/icons" "$root/package.json" "$root/tsconfig.json" "$root/eslint.config.mjs" "$stage/"
ln -s "$root/node_modules" "$stage/node_modules"
cd "$stage"
"$root/node_modules/.bin/n8n-node" lint "$@"
