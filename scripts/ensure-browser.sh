#!/usr/bin/env bash
# Makes sure Debian's Chromium is at /usr/bin/chromium for the console's browser test
# (test/browser): nothing to do when it is there; otherwise, as root with apt-get, installs the
# `chromium` package; otherwise fails saying what to install. A browser build downloaded by a test
# tool is not used: the test drives the system's Chromium through playwright-core.
set -euo pipefail

CHROMIUM=/usr/bin/chromium

if [ -x "$CHROMIUM" ]; then
  exit 0
fi

if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "ensure-browser: installing Debian's chromium package for the browser test..." >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  apt-get install -y -qq --no-install-recommends chromium >&2
  if [ -x "$CHROMIUM" ]; then
    exit 0
  fi
fi

echo "ensure-browser: $CHROMIUM is missing: install Chromium there (Debian/Ubuntu: sudo apt-get install chromium) to run the browser test." >&2
exit 1
