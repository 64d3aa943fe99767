#!/usr/bin/env bash
# The keyring tests against a real Secret Service (README "Keyring"): Debian's GNOME Keyring
# on a private D-Bus session bus, started by the tests themselves (test/helpers/secret-service.ts:
# dbus-run-session, a temporary HOME, a login keyring unlocked with a password). Installs the
# packages when they are missing and we are root with apt-get; then runs the keyring test files,
# failing (not skipping) if the Secret Service is still not there. `npm test` runs the same files
# and skips them, saying so, on a machine without the packages.
set -euo pipefail
cd "$(dirname "$0")/.."
need=""
command -v dbus-run-session >/dev/null && command -v dbus-send >/dev/null || need="$need dbus"
command -v gnome-keyring-daemon >/dev/null || need="$need gnome-keyring"
command -v secret-tool >/dev/null || need="$need libsecret-tools"
if [ -n "$need" ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "keyring: installing$need"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $need >/dev/null
  else
    echo "keyring: missing$need and not root with apt-get: cannot run the keyring tests" >&2
    exit 1
  fi
fi
# the tests must run here, not skip
export LIC_REQUIRE_KEYRING_TESTS=1
npx vitest run test/config/keyring.test.ts
