#!/usr/bin/env bash
# make test-windows: the Windows checks, on Linux, under wine (docs/windows.md).
#
# 1. The portable packages' tests, cross-compiled without cgo
#    (GOOS=windows) and run by scripts/wine-exec.sh in one throwaway
#    WINEPREFIX whose Windows user is "Zoë Lämmer". A test that cannot run
#    there skips with its reason (go test -v ... | grep SKIP lists them).
# 2. The display language: internal/locale under a Chinese Windows display
#    language, LANG unset inside the test.
# 3. qrdesk.exe end to end (internal/winetest), driven from Linux: the
#    commands, sync with a Linux qrdesk-server, two processes on one
#    database, the MSI, the spooler, and the real window (cgo build by
#    scripts/windows-build.sh, about 2 minutes with an empty Go cache) under
#    Xvfb typed by xdotool.
#
# Usage: test-windows.sh [packages|end-to-end]   (default: both, in order;
# make test runs the two at different moments: scripts/test.sh)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
steps=${1:-all}

GO=${GO:-go}
PKGS=${WINDOWS_PKGS:-./app/ ./printing/ ./store/ ./internal/deskdir/ ./internal/locale/ ./internal/testclock/ ./ui/ ./ui/beep/}

QRDESK_WINEPREFIX=$(mktemp -d "${TMPDIR:-/tmp}/qrdesk-wine.XXXXXX")
export QRDESK_WINEPREFIX
cleanup() {
  WINEPREFIX=$QRDESK_WINEPREFIX /usr/lib/wine/wineserver -k 2>/dev/null || true
  rm -rf "$QRDESK_WINEPREFIX"
}
trap cleanup EXIT

exec_wine=$PWD/scripts/wine-exec.sh
start=$(date +%s)
if [ "$steps" != end-to-end ]; then
  # -trimpath: every Windows build here is trimmed, as make windows builds the
  # release, so the tests, vet and the window's cgo build share one compile of
  # each package in the Go cache (with an empty cache that is minutes).
  # -vet=off: make check-windows vets them (make test-windows runs it first).
  echo "== Windows tests under wine: $PKGS"
  QRDESK_WINE_WAIT_SESSION=1 GOOS=windows GOARCH=amd64 CGO_ENABLED=0 \
    $GO test -trimpath -vet=off -count=1 -timeout 10m -exec "$exec_wine" $PKGS

  echo "== a Chinese Windows display language, no LANG"
  QRDESK_WINE_WAIT_SESSION=1 LC_ALL=zh_CN.UTF-8 QRDESK_TEST_UI_LANGUAGE=zh-CN GOOS=windows GOARCH=amd64 CGO_ENABLED=0 \
    $GO test -trimpath -vet=off -count=1 -exec "$exec_wine" -run '^TestPreferredFollowsWindowsUILanguage$' ./internal/locale/
fi

if [ "$steps" != packages ]; then
  echo "== qrdesk.exe end to end under wine"
  QRDESK_TEST_WINDOWS=1 $GO test -vet=off -count=1 -timeout 20m ./internal/winetest/
fi
echo "== Windows checks passed in $(( $(date +%s) - start )) s"
