#!/usr/bin/env bash
# `npm test`: installs what is missing (npm packages; Node 24 + n8n into ~/.cache/n8n-nodes-aml, in the background
# while the suites that need no n8n run), builds, then runs n8n's community-node lint (scripts/lint.sh, counted as one
# test), the type-check of the test code (tsc -p tsconfig.test.json, one test), the jest project unit, the release
# check (scripts/release-check.ts: pack, npm publish --dry-run of the tarball, n8n's community package scan,
# actionlint; one test) and the jest projects sandbox, contract (the seam with n8n on each supported n8n: the default
# one in its place, the others just before compat), e2e (real n8n; Debian's Chromium for the browser check, apt-get
# installed when missing), faults (real n8n against the sandbox's fault injection, shortened sizes; `npm run
# test:faults` runs the full ones) and compat (the compatibility subset on each other supported n8n line, one counted
# suite per version, each installed and cached like the default n8n) and queue (n8n's queue mode: PostgreSQL and
# Redis from Debian's packages, apt-get installed when missing, one main, two workers, two webhook processes;
# half sizes here, AML_QUEUE_SCALE=0.5; `npm run test:queue` runs the full ones, AML_QUEUE_SCALE=1). Prints each
# suite's counts and, as the last line, alone:
#   tests: N passed, N failed
# Exit status is non-zero when a test failed, a suite crashed or a step before the suites failed.
# Works without a terminal (CI=true, no stdin). Everything listens on 127.0.0.1 only.
#
#   AML_TEST_SUITES="unit sandbox"   run only these suites
#   The tested n8n versions are listed in test/n8nVersions.json; these override it for one run:
#   AML_N8N_VERSION=1.123.81         run the e2e and faults suites on that n8n instead of the default
#   AML_CONTRACT_VERSIONS="2.0.3 2.41.1"   the n8n versions the contract suite (test/contract: the seam with n8n,
#                                    nodes/shared/n8n/, against n8n's own implementation) runs on
#   AML_COMPAT_VERSIONS="2.0.3"      the n8n versions the compat suite runs on (default: the oldest supported 1.x and 2.x)
#   AML_FAULTS_FULL=1                faults suite at full size (10,000-item soak, 1,000-delivery burst)
#   AML_KEEP_N8N=1                   keep the e2e n8n user folder (database, n8n.log)
#   AML_TEST_OVERLAP=0               run the queue suite after compat instead of beside it
set -uo pipefail
cd "$(dirname "$0")/.."
export CI="${CI:-true}"
# the queue suite at half its sizes within `npm test` (every assertion holds at any size; see test/queue/queue.test.ts)
export AML_QUEUE_SCALE="${AML_QUEUE_SCALE:-0.5}"

# The suites that need no n8n first: the installs (below) run meanwhile. The contract suite runs on the default n8n in
# its place and on the other versions just before compat (their installs overlap e2e and faults).
suites="${AML_TEST_SUITES:-lint typecheck unit release sandbox contract e2e faults compat queue}"
tested() { node -p "[].concat(require('./test/n8nVersions.json')['$1']).join(' ')"; }
default_version="${AML_N8N_VERSION:-$(tested default)}"
compat_versions="${AML_COMPAT_VERSIONS:-$(tested compat)}"
contract_versions="${AML_CONTRACT_VERSIONS:-$(tested contract)}"
has() { [[ " $suites " == *" $1 "* ]]; }
contract_later="" # contract versions other than the default, run before compat (or last)
passed=0
failed=0
status=0
summary=()
out="$(mktemp -d)"
background=() # process groups of the background installs, stopped at exit
cleanup() {
  local pid
  for pid in "${background[@]}"; do kill -- "-$pid" 2>/dev/null || kill "$pid" 2>/dev/null; done
  rm -rf "$out"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
finish() {
  echo
  for line in "${summary[@]}"; do echo "$line"; done
  echo "tests: $passed passed, $failed failed"
  exit "$status"
}
step_failed() { # a step before the suites failed: count it as one failed test and stop
  echo "!! $1" >&2
  failed=$((failed + 1))
  status=1
  summary+=("step failed: $1")
  finish
}

# Installs run in the background, each chain in its own process group (stopped at exit), while the steps and suites
# that need none of them run; a suite waits for what it needs (await_install). Output of install NAME goes to
# $out/install-NAME.log, its exit status to $out/install-NAME.rc.
#   n8n (scripts/install-n8n.sh, one install at a time): the default version first (e2e, faults, queue, the first
#   contract run), then the other contract and compat versions at lower CPU priority (they overlap e2e and faults).
#   Debian packages (apt-get, one at a time): Chromium for the browser check (test/e2e/browser.test.ts; a failed
#   install does not stop the run: that test tries once more and fails with the reason), PostgreSQL and Redis for the
#   queue suite (a failed install fails that suite, with the reason).
n8n_versions=""
{ has e2e || has faults || has queue; } && n8n_versions="$default_version"
has contract && n8n_versions="$n8n_versions $contract_versions"
has compat && n8n_versions="$n8n_versions $compat_versions"
# the default version first when it is needed at all (e2e, faults, queue and the first contract run wait for it)
n8n_versions="$(printf '%s\n' $n8n_versions | awk -v d="$default_version" '$0 == d { first = d; next } !seen[$0]++ { rest = rest $0 " " } END { if (first != "") printf "%s ", first; printf "%s", rest }')"
apt_installs=""
has e2e && apt_installs="browser"
has queue && apt_installs="$apt_installs queue"
scheduled=" "
# install_one OUT NAME: scripts/install-n8n.sh for NAME n8n-VERSION, else scripts/install-NAME.sh; output to
# OUT/install-NAME.log, exit status to OUT/install-NAME.rc
install_one() {
  if [[ "$2" == n8n-* ]]; then
    AML_N8N_VERSION="${2#n8n-}" bash scripts/install-n8n.sh
  else
    bash "scripts/install-$2.sh"
  fi </dev/null >"$1/install-$2.log" 2>&1
  echo $? >"$1/install-$2.rc"
}
export -f install_one
# in_background NICENESS NAME…: install_one of each NAME in turn, in its own process group, all after the first at
# that CPU niceness
in_background() {
  local launcher=() niceness="$1"
  shift
  command -v setsid >/dev/null 2>&1 && launcher=(setsid)
  "${launcher[@]}" bash -c '
    out=$1 niceness=$2
    shift 2
    install_one "$out" "$1"
    shift
    renice -n "$niceness" -p $$ >/dev/null 2>&1
    for name; do install_one "$out" "$name"; done' _ "$out" "$niceness" "$@" </dev/null &
  background+=($!)
  scheduled+="$* "
}
if [ -n "${n8n_versions// /}" ]; then
  echo "== installing in the background: n8n $n8n_versions(cached in ${AML_N8N_CACHE:-$HOME/.cache/n8n-nodes-aml})"
  # shellcheck disable=SC2046
  in_background 10 $(printf 'n8n-%s ' $n8n_versions)
fi
if [ -n "$apt_installs" ]; then
  echo "== installing in the background when missing (Debian packages): $(has e2e && echo 'chromium ')$(has queue && echo 'postgresql redis-server')"
  # shellcheck disable=SC2086
  in_background 0 $apt_installs
fi
# await_install NAME: waits for that install (started in the background, or now when it was not) and prints its
# outcome; its exit status
await_install() {
  local name="$1" started rc
  started=$(date +%s)
  if [[ "$scheduled" != *" $name "* ]]; then
    install_one "$out" "$name"
    scheduled+="$name "
  fi
  while [ ! -s "$out/install-$name.rc" ]; do sleep 1; done
  rc="$(cat "$out/install-$name.rc")"
  if [ ! -f "$out/install-$name.shown" ]; then
    touch "$out/install-$name.shown"
    echo "== install $name: exit $rc, waited $(($(date +%s) - started))s"
    [ "$rc" = 0 ] || sed 's/^/   /' "$out/install-$name.log" >&2
  fi
  return "$rc"
}

# npm packages: on a fresh clone, or when package-lock.json changed since the last install
if [ ! -d node_modules ] || [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "== npm install"
  npm install --no-audit --no-fund </dev/null || step_failed "npm install"
fi

echo "== build"
npm run -s build </dev/null || step_failed "npm run build"

jest="node_modules/.bin/jest"

record() { # record LINE PASSED FAILED: print the suite's line and add it to the totals
  echo "$1"
  summary+=("$1")
  passed=$((passed + $2))
  failed=$((failed + $3))
  [ "$3" -ne 0 ] && status=1
  return 0
}

# one_check NAME COMMAND…: a command counted as one test, passed or failed
one_check() {
  local name="$1" started p=1 f=0
  shift
  started=$(date +%s)
  "$@" </dev/null || { p=0; f=1; }
  record "suite $name: $p passed, $f failed in $(($(date +%s) - started))s" "$p" "$f"
}

# run_jest NAME PROJECT [jest args…]: one counted suite from a jest project (failed tests, plus test files that failed
# without a failed test: crash, compile error, hook failure)
run_jest() {
  local name="$1" project="$2" started rc secs p=0 f=0 crashed=0 note="" counts
  shift 2
  started=$(date +%s)
  rm -f "$out/$name.json"
  AML_E2E_SKIP_BUILD=1 "$jest" --selectProjects "$project" --ci --passWithNoTests --json --outputFile="$out/$name.json" "$@" </dev/null 2>&1 |
    tee "$out/$name.log"
  rc=${PIPESTATUS[0]}
  secs=$(($(date +%s) - started))
  if [ -s "$out/$name.json" ]; then
    counts="$(node -e '
      const r = require(process.argv[1]);
      const crashed = r.testResults.filter((t) => t.status === "failed" && !t.assertionResults.some((a) => a.status === "failed")).length;
      console.log(r.numPassedTests, r.numFailedTests + crashed, crashed);
    ' "$out/$name.json" 2>/dev/null)"
    if [[ "$counts" =~ ^[0-9]+\ [0-9]+\ [0-9]+$ ]]; then
      read -r p f crashed <<<"$counts"
    else
      p=0; f=1; crashed=1
    fi
    [ "${crashed:-0}" -gt 0 ] && note=" ($crashed test file(s) crashed)"
  elif counts="$(sed -n 's/^Tests: *//p' "$out/$name.log" | tail -1)" && [ -n "$counts" ]; then
    # no JSON (jest cannot write a result that holds a circular error, e.g. an HTTP client's): its summary line
    p="$(grep -o '[0-9]* passed' <<<"$counts" | grep -o '[0-9]*')"
    f="$(grep -o '[0-9]* failed' <<<"$counts" | grep -o '[0-9]*')"
    p="${p:-0}" f="${f:-0}"
    note=" (jest wrote no JSON results: counts from its summary)"
  else
    f=1
    note=" (jest produced no results: crashed, exit $rc)"
  fi
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
    f=1
    note=" (jest exit $rc without a failed test: global set-up or teardown failed?)"
  fi
  record "suite $name: $p passed, $f failed$note in ${secs}s" "$p" "$f"
}

# per_version SUITE VERSION…: the jest project SUITE once per n8n version (installed and cached when missing), each
# counted as its own suite "SUITE@VERSION"
per_version() {
  local suite="$1" version
  shift
  for version in "$@"; do
    if await_install "n8n-$version"; then
      AML_N8N_VERSION="$version" run_jest "$suite@$version" "$suite" --runInBand
    else
      record "suite $suite@$version: 0 passed, 1 failed (n8n $version install failed)" 0 1
    fi
  done
}

# The queue suite beside compat (AML_TEST_OVERLAP=0: one after another). Most of the queue suite's time is waiting (the
# token endpoint's limit paces its token-economy test, its last copies are held back 60 s) and compat's n8n runs on
# another install, ports and folders: the two overlap. The queue suite's output is printed when it ends; its counts
# join the totals as its own suite.
overlap_queue=""
[ "${AML_TEST_OVERLAP:-1}" != 0 ] && has compat && has queue && overlap_queue=1
queue_started=""
# start_queue: the queue suite in the background, its lines in $out/queue.out, its record in $out/queue.record
start_queue() {
  queue_started=1
  echo "== suite: queue (in the background, beside compat; its output follows when it ends)"
  set -m # its own process group, stopped at exit like the installs
  (
    passed=0 failed=0 status=0 summary=()
    await_install queue || echo "!! postgresql/redis-server install failed: the queue suite will fail" >&2
    if await_install "n8n-$default_version"; then
      run_jest queue queue --runInBand
    else
      record "suite queue: 0 passed, 1 failed (n8n install failed)" 0 1
    fi
    printf '%s\n%s %s\n' "${summary[0]}" "$passed" "$failed" >"$out/queue.record"
  ) >"$out/queue.out" 2>&1 </dev/null &
  queue_pid=$!
  set +m
  background+=("$queue_pid")
}
# join_queue: waits for the background queue suite, prints its output and adds its record to the totals
join_queue() {
  wait "$queue_pid"
  echo
  echo "== suite: queue (ran in the background)"
  cat "$out/queue.out"
  if [ -s "$out/queue.record" ]; then
    local line counts
    line="$(sed -n 1p "$out/queue.record")"
    counts="$(sed -n 2p "$out/queue.record")"
    summary+=("$line")
    passed=$((passed + ${counts% *}))
    failed=$((failed + ${counts#* }))
    [ "${counts#* }" -ne 0 ] && status=1
  else
    record "suite queue: 0 passed, 1 failed (the background run left no record)" 0 1
  fi
  queue_started=""
}

for suite in $suites; do
  if [ "$suite" = queue ] && [ -n "$queue_started" ]; then
    join_queue
    continue
  fi
  echo
  echo "== suite: $suite"
  if [ "$suite" = lint ]; then
    # n8n's community-node lint over what the package publishes: one test, passed or failed.
    one_check lint bash scripts/lint.sh
    continue
  fi
  if [ "$suite" = typecheck ]; then
    # the test code, harness, sandbox and benchmarks type-checked (jest only transpiles them): one test
    one_check typecheck node_modules/.bin/tsc -p tsconfig.test.json --noEmit
    continue
  fi
  if [ "$suite" = release ]; then
    # the release path without publishing (scripts/release-check.ts): pack, npm publish --dry-run of the tarball,
    # n8n's community package scan over the tarball and the sources, the scanner is the newest, actionlint: one test
    one_check release node_modules/.bin/tsx scripts/release-check.ts
    continue
  fi
  if [ "$suite" = contract ]; then
    # the seam with n8n (nodes/shared/n8n/) against each supported n8n's own implementation, one counted suite per
    # version: here on the default n8n, on the others before compat (or last), when their installs are done
    per_version contract $(printf '%s\n' $contract_versions | grep -Fx -- "$default_version")
    contract_later="$(printf '%s\n' $contract_versions | grep -Fxv -- "$default_version" | tr '\n' ' ')"
    continue
  fi
  if [ "$suite" = compat ]; then
    # (only when the queue suite comes after compat in the list: it has not run yet)
    [ -n "$overlap_queue" ] && [[ " ${suites#*compat} " == *" queue "* ]] && start_queue
    per_version contract $contract_later
    contract_later=""
    # the compatibility subset once per supported n8n line (its own n8n and sandbox), one counted suite per version
    per_version compat $compat_versions
    continue
  fi
  if [ "$suite" = e2e ]; then
    await_install browser || echo "!! chromium install failed: test/e2e/browser.test.ts will fail" >&2
  fi
  if [ "$suite" = queue ]; then
    await_install queue || echo "!! postgresql/redis-server install failed: the queue suite will fail" >&2
  fi
  if { [ "$suite" = e2e ] || [ "$suite" = faults ] || [ "$suite" = queue ]; } && ! await_install "n8n-$default_version"; then
    record "suite $suite: 0 passed, 1 failed (n8n install failed)" 0 1
    continue
  fi
  extra=()
  # one n8n and one sandbox serve the e2e (and the faults) suite; files run one after another (token counts, sandbox state)
  { [ "$suite" = e2e ] || [ "$suite" = faults ] || [ "$suite" = queue ]; } && extra=(--runInBand)
  run_jest "$suite" "$suite" "${extra[@]}"
done
per_version contract $contract_later
[ -n "$queue_started" ] && join_queue
finish
