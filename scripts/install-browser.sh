#!/usr/bin/env bash
# Installs Debian's Chromium for the screenshot helper (test/harness/browser.ts) when it is missing.
# Prints AML_CHROMIUM=<path>.
set -euo pipefail
bin="${AML_CHROMIUM:-/usr/bin/chromium}"
if [ ! -x "$bin" ]; then
  echo "installing chromium (apt-get)" >&2
  sudo_=""
  [ "$(id -u)" -ne 0 ] && sudo_="sudo"
  $sudo_ apt-get update >&2
  DEBIAN_FRONTEND=noninteractive $sudo_ apt-get install -y --no-install-recommends chromium >&2
fi
"$bin" --version >&2
echo "AML_CHROMIUM=$bin"
