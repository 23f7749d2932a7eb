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
#    database, the MSI, the spooler, and the real window (cgo build, about
#    6 minutes with an empty Go cache) under Xvfb typed by xdotool.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

GO=${GO:-go}
PKGS=${WINDOWS_PKGS:-./app/ ./printing/ ./store/ ./internal/locale/ ./internal/testclock/ ./ui/ ./ui/beep/}

QRDESK_WINEPREFIX=$(mktemp -d "${TMPDIR:-/tmp}/qrdesk-wine.XXXXXX")
export QRDESK_WINEPREFIX
cleanup() {
  WINEPREFIX=$QRDESK_WINEPREFIX /usr/lib/wine/wineserver -k 2>/dev/null || true
  rm -rf "$QRDESK_WINEPREFIX"
}
trap cleanup EXIT

exec_wine=$PWD/scripts/wine-exec.sh
start=$(date +%s)
echo "== Windows tests under wine: $PKGS"
GOOS=windows GOARCH=amd64 CGO_ENABLED=0 $GO test -count=1 -timeout 10m -exec "$exec_wine" $PKGS

echo "== a Chinese Windows display language, no LANG"
LC_ALL=zh_CN.UTF-8 QRDESK_TEST_UI_LANGUAGE=zh-CN GOOS=windows GOARCH=amd64 CGO_ENABLED=0 \
  $GO test -count=1 -exec "$exec_wine" -run '^TestPreferredFollowsWindowsUILanguage$' ./internal/locale/

echo "== qrdesk.exe end to end under wine"
QRDESK_TEST_WINDOWS=1 $GO test -count=1 -timeout 20m ./internal/winetest/
echo "== Windows checks passed in $(( $(date +%s) - start )) s"
