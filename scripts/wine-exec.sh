#!/usr/bin/env bash
# Runs a Windows program under wine, for `GOOS=windows go test -exec`:
#
#   GOOS=windows CGO_ENABLED=0 go test -exec "$PWD/scripts/wine-exec.sh" ./app/
#
# The prefix is throwaway. With QRDESK_WINEPREFIX set to a folder, that
# prefix is used (made on first use) and left for the caller to remove, so a
# run of several packages makes it once (scripts/test-windows.sh does this);
# without, a new one is made in a temporary folder and removed afterwards.
#
# The Windows user is "Zoë Lämmer" (QRDESK_WINE_USER overrides): a name with
# a space and non-ASCII letters, so every path the program makes under
# C:\users\<name> has both.
#
# Wine 8.0 (Debian 12) lacks ProcessPrng, which Go 1.26's Windows runtime
# needs; the test-only shim internal/winetest/shim/processprng.c is built
# with mingw and installed as the prefix's system32\bcryptprimitives.dll.
# It is never part of what is shipped.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# QRDESK_WINE names the wine64 to run (internal/winetest's
# TestWineMakesNoMenusInTheHome gives a stand-in that records its
# environment).
wine=${QRDESK_WINE:-/usr/lib/wine/wine64}
[ -x "$wine" ] || wine=$(command -v wine64 || true)
if [ -z "$wine" ] || ! command -v x86_64-w64-mingw32-gcc >/dev/null; then
  echo "wine-exec.sh: wine64 and gcc-mingw-w64-x86-64 are needed: run 'make deps'" >&2
  exit 2
fi
export WINEDEBUG=${WINEDEBUG:--all}
# Wine's menu builder turns the Start-menu entries a program makes (the
# MSI's shortcuts) into menu entries in the Linux user's home
# (~/.local/share/applications/wine, ~/.config/menus): a test leaves the
# developer's home alone. The .lnk files in the prefix are still made.
export WINEDLLOVERRIDES="winemenubuilder.exe=d${WINEDLLOVERRIDES:+;$WINEDLLOVERRIDES}"
export USER=${QRDESK_WINE_USER:-Zoë Lämmer}

owned=""
if [ -n "${QRDESK_WINEPREFIX:-}" ]; then
  export WINEPREFIX=$QRDESK_WINEPREFIX
else
  WINEPREFIX=$(mktemp -d "${TMPDIR:-/tmp}/qrdesk-wine.XXXXXX")
  export WINEPREFIX
  owned=1
fi
cleanup() {
  if [ -n "$owned" ]; then
    "$(dirname "$wine")/wineserver" -k 2>/dev/null || true
    rm -rf "$WINEPREFIX"
  fi
}
trap cleanup EXIT

# Made once per prefix, under a lock: go test runs packages in parallel.
dll=$WINEPREFIX/drive_c/windows/system32/bcryptprimitives.dll
if [ ! -f "$dll" ]; then
  mkdir -p "$WINEPREFIX"
  exec 9>"$WINEPREFIX/.qrdesk-lock"
  flock 9
  if [ ! -f "$dll" ]; then
    "$wine" wineboot -i >/dev/null 2>&1
    # Wine links Documents, Desktop… to the Unix home; make them the
    # prefix's own folders, as on Windows, so nothing lands in $HOME.
    find "$WINEPREFIX/drive_c/users" -mindepth 2 -maxdepth 2 -type l -delete
    for d in Desktop Documents Downloads Music Pictures Videos; do
      mkdir -p "$WINEPREFIX/drive_c/users/$USER/$d"
    done
    x86_64-w64-mingw32-gcc -shared -O2 -o "$WINEPREFIX/shim.dll" \
      "$here/internal/winetest/shim/processprng.c" -ladvapi32
    mv "$WINEPREFIX/shim.dll" "$dll"
  fi
  flock -u 9
  exec 9>&-
fi

# Not exec: the trap removes an owned prefix when the program ends.
set +e
"$wine" "$@"
rc=$?
# Under go test -exec (scripts/test-windows.sh sets QRDESK_WINE_WAIT_SESSION),
# wait for the prefix's wine session to end: a wineserver or services.exe
# the program started outlives it holding go test's output pipe, and go test
# then fails a package whose tests passed ("Test I/O incomplete 1m0s after
# exiting").
if [ -n "${QRDESK_WINE_WAIT_SESSION:-}" ]; then
  timeout 300 "$(dirname "$wine")/wineserver" -w </dev/null >/dev/null 2>&1
fi
exit $rc
