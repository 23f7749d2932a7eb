#!/usr/bin/env bash
# make test: formatting and vet, every test, the Windows checks under wine and
# a short fuzz of every target. The phases need different builds (Linux,
# Windows with and without cgo, the fuzzing instrumentation) and some of them
# mostly wait (tests that sleep, or wait on PostgreSQL, wine or a process),
# so they run side by side where they do not need each other. Each phase's
# output is printed whole when it ends, then a table of the phases and their
# times.
#
#   check    gofmt, go vet for Linux (it compiles what plain needs)
#   winbuild the window's cgo cross-build for Windows, into the Go cache
#   plain    go test: every package (after check)
#   windows  go vet for Windows, then the packages' tests under wine, once
#            winbuild is done
#   wine-e2e qrdesk.exe end to end under wine (scripts/test-windows.sh), once
#            plain and windows are done
#   fuzz     each fuzz target for FUZZTIME (a count: see the Makefile)
#
# The race detector is make race-all's (docs/reliability.md says why not here).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

GO=${GO:-go}
FUZZTIME=${FUZZTIME:-20000x}
export CC=${CC:-clang} # the Makefile says why

logs=$(mktemp -d "${TMPDIR:-/tmp}/qrdesk-test.XXXXXX")
trap 'rm -rf "$logs"' EXIT
declare -A pid began
failed=()
summary=()

# start NAME CMD...: runs one phase in the background, its output to its log.
start() {
  local name=$1; shift
  began[$name]=$(date +%s)
  ( "$@"; rc=$?; date +%s >"$logs/$name.end"; exit $rc ) >"$logs/$name.log" 2>&1 &
  pid[$name]=$!
}

# finish NAME: waits for a phase, prints its output and records the result.
finish() {
  local name=$1 rc
  wait "${pid[$name]}"; rc=$?
  local took=$(( $(cat "$logs/$name.end" 2>/dev/null || date +%s) - ${began[$name]} )) verdict=passed
  [ "$rc" = 0 ] || { verdict="FAILED (exit $rc)"; failed+=("$name"); }
  echo "== $name: $verdict in ${took} s"
  cat "$logs/$name.log"
  summary+=("$(printf '%-9s %-18s %5d s, from %4d s to %4d s' "$name" "$verdict" "$took" \
    $(( ${began[$name]} - t0 )) $(( ${began[$name]} + took - t0 )))")
}

# gofmt, and vet for Linux (it compiles what the plain tests need).
check() {
  local unformatted
  unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
  if [ -n "$unformatted" ]; then echo "gofmt would change:"; echo "$unformatted"; return 1; fi
  $GO vet ./... && $GO vet -tags qrdesk_testclock ./cmd/...
}

# vet for Windows, then the packages' own tests under wine (scripts/test-windows.sh
# says why -trimpath).
windows() {
  GOOS=windows CGO_ENABLED=0 $GO vet -trimpath ./app/ ./printing/ ./store/ ./internal/... ./ui/... &&
    GOOS=windows CGO_ENABLED=0 $GO vet -trimpath -tags qrdesk_nogui . &&
    bash scripts/test-windows.sh packages
}

# qrdesk.exe end to end under wine, once plain is done: its commands, sync,
# the MSI, the spooler and the window each start wine programs that must
# answer in time, and with plain's processes beside them on 2 cores one of
# them now and then did not (a qrdesk.exe that exited 1 without a word).
wine_e2e() {
  bash scripts/test-windows.sh end-to-end
}

# The longest packages first, so that the short ones fill the cores beside
# them rather than one long package running alone at the end.
plain() {
  $GO test -count=1 -timeout 30m $($GO list ./internal/multidesk/ ./cli/ ./deploy/ ./e2e/ \
    ./internal/faultsim/ ./cmd/... ./web/ ./ui/ ./...)
}

# The window's cgo cross-build, into the Go cache, so that the Windows
# checks find it built.
windows_gui_build() {
  bash scripts/windows-build.sh -o /dev/null .
}

# The Makefile's fuzz target: one list of fuzz targets.
fuzz() {
  make --no-print-directory fuzz FUZZTIME="$FUZZTIME"
}

t0=$(date +%s)
start check check
start winbuild windows_gui_build
finish check
if [ ${#failed[@]} = 0 ]; then
  start plain plain
  finish winbuild
  start windows windows
  start fuzz fuzz
  finish plain
  finish windows
  start wine-e2e wine_e2e
  finish fuzz
  finish wine-e2e
else
  finish winbuild
fi

echo
echo "== make test: $(( $(date +%s) - t0 )) s"
printf '%s\n' "${summary[@]}"
if [ ${#failed[@]} -gt 0 ]; then
  echo "FAILED: ${failed[*]}"
  exit 1
fi
echo "every phase passed"
