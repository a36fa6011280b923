#!/usr/bin/env bash
# The README's test command. It installs what the browser tests need when it can — Debian's
# chromium (apt-get, as root) and playwright-core (npm ci in web/e2e; no browser is downloaded)
# — and then runs every Go test with the race detector. Without them the browser tests skip
# with a message (set LOWDIM_BROWSER_TESTS=require to make them fail instead). Arguments are
# passed to go test.
set -euo pipefail
cd "$(dirname "$0")"
if [ ! -x /usr/bin/chromium ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "test.sh: installing Debian's chromium for the browser tests"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null \
      || echo "test.sh: could not install chromium: the browser tests will skip"
  else
    echo "test.sh: no /usr/bin/chromium (apt-get install chromium): the browser tests will skip"
  fi
fi
if command -v npm >/dev/null; then
  npm ci --prefix web/e2e --no-audit --no-fund --loglevel=error \
    || echo "test.sh: npm ci in web/e2e failed: the browser tests will skip"
else
  echo "test.sh: no npm: the browser tests will skip"
fi
go test -race "$@" ./...
