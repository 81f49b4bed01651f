#!/usr/bin/env bash
# Installs what n8n's queue mode needs for the queue suite and `npm run demo -- --queue`: Debian's PostgreSQL
# server and Redis (apt-get, when missing). Prints AML_PG_BIN=<folder of initdb/postgres> and AML_REDIS=<path>.
set -euo pipefail
sudo_=""
[ "$(id -u)" -ne 0 ] && sudo_="sudo"
pg_bin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1; }
missing=()
{ [ -n "$(pg_bin)" ] && [ -x "$(pg_bin)/initdb" ]; } || missing+=(postgresql)
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
if [ "${#missing[@]}" -gt 0 ]; then
  echo "installing ${missing[*]} (apt-get)" >&2
  $sudo_ apt-get update >&2
  DEBIAN_FRONTEND=noninteractive $sudo_ apt-get install -y --no-install-recommends "${missing[@]}" >&2
  # the packages start system services on their default ports: the tests start their own, stop those
  for s in redis-server postgresql; do $sudo_ service "$s" stop >/dev/null 2>&1 || true; done
fi
echo "AML_PG_BIN=$(pg_bin)"
echo "AML_REDIS=$(command -v redis-server)"
