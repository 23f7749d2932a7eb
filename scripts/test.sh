#!/usr/bin/env bash
# make test: formatting and vet, every test, the Windows checks under wine and
# a short fuzz of every target. The phases need different builds (Linux,
# Windows with and without cgo, the fuzzing instrumentation) and some of them
# mostly wait (tests that sleep, or wait on PostgreSQL, wine or a process),
# so they run side by side where they do not need each other. Each phase's
# output is printed whole when it ends, then a table of the phases and their
# times.
#
#   check    gofmt and go vet for Linux (make check-linux): it compiles what
#            plain needs
#   windows  the window's cgo cross-build for Windows, go vet for Windows
#            (make check-windows), then the packages' tests under wine
#   fuzz     each fuzz target for FUZZTIME (a count: see the Makefile), with
#            its own build (every package instrumented)
#   plain    go test: every package, once check is done
#   wine-e2e qrdesk.exe end to end under wine (scripts/test-windows.sh), once
#            windows and fuzz are done
#
# The compiling comes first, the Linux tests after it: beside the compilers
# those tests (which mostly wait, and poll while they wait) took two to
# eight times their time alone, and their CPU grew with it.
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

# gofmt and vet for Linux (it compiles what the plain tests need).
check() {
  make --no-print-directory check-linux
}

# The window's cgo cross-build into the Go cache, then vet for Windows (which
# shares that build's compile of every package but the window's), then the
# packages' own tests under wine.
windows() {
  bash scripts/windows-build.sh -o /dev/null . &&
    make --no-print-directory check-windows &&
    bash scripts/test-windows.sh packages
}

# qrdesk.exe end to end under wine. Its commands, sync, the MSI, the spooler
# and the window each start wine programs that must answer in time: it waits
# for the compilers and the fuzzing, which keep both cores busy (with them
# beside it a qrdesk.exe once exited 1 without a word; alone it passed).
wine_e2e() {
  bash scripts/test-windows.sh end-to-end
}

# The longest packages first, so that the short ones fill the cores beside
# them rather than one long package running alone at the end. No vet (check
# did it); -parallel 4: internal/multidesk's scenarios run in parallel and
# mostly wait.
plain() {
  $GO test -vet=off -parallel 4 -count=1 -timeout 30m $($GO list ./internal/multidesk/ ./cli/ ./deploy/ ./e2e/ \
    ./internal/faultsim/ ./cmd/... ./web/ ./ui/ ./...)
}

# The Makefile's fuzz target: one list of fuzz targets.
fuzz() {
  make --no-print-directory fuzz FUZZTIME="$FUZZTIME"
}

t0=$(date +%s)
start check check
start windows windows
start fuzz fuzz
finish check
[ ${#failed[@]} = 0 ] && start plain plain
finish windows
finish fuzz
[ ${#failed[@]} = 0 ] && start wine-e2e wine_e2e
[ -n "${pid[plain]:-}" ] && finish plain
[ -n "${pid[wine-e2e]:-}" ] && finish wine-e2e

echo
echo "== make test: $(( $(date +%s) - t0 )) s"
printf '%s\n' "${summary[@]}"
if [ ${#failed[@]} -gt 0 ]; then
  echo "FAILED: ${failed[*]}"
  exit 1
fi
echo "every phase passed"
