#!/usr/bin/env bash
# make test: formatting and vet, every test, the Windows checks under wine and
# a short fuzz of every target. The phases need different builds (Linux,
# Windows with and without cgo, the fuzzing instrumentation) and some of them
# mostly wait (tests that sleep, or wait on PostgreSQL, wine or a process),
# so each starts as soon as the phases it needs have passed. Each phase's
# output is printed whole when it ends, then a table of the phases and their
# times.
#
#   phase     needs              what
#   check     -                  gofmt and go vet for Linux (make check-linux):
#                                it compiles what plain needs
#   winvet    -                  go vet for Windows (make check-windows): it
#                                compiles what winpkgs needs
#   fuzz      -                  each fuzz target for FUZZTIME (a count: see the
#                                Makefile), with its own instrumented build
#   plain     check              go test: every package
#   winpkgs   winvet             the packages' tests under wine
#   winbuild  winvet             the window's cgo cross-build for Windows, into
#                                the Go cache (after winvet: it shares that
#                                compile of every package but the window's)
#   wine-e2e  winbuild winpkgs   qrdesk.exe end to end under wine
#
# The compiling comes first, the Linux tests after it: beside the compilers
# those tests (which mostly wait, and poll while they wait) took two to eight
# times their time alone, and their CPU grew with it.
# The race detector is make race-all's (docs/reliability.md says why not here).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

GO=${GO:-go}
FUZZTIME=${FUZZTIME:-20000x}
export CC=${CC:-clang} # the Makefile says why
# The compiler collects garbage less often: about a tenth less CPU for the
# largest package (modernc.org/sqlite's), under 1 GB for it.
export GOGC=${GOGC:-400}

# gofmt and vet for Linux.
check() {
  make --no-print-directory check-linux
}

# vet for Windows.
winvet() {
  make --no-print-directory check-windows
}

# The Makefile's fuzz target: one list of fuzz targets.
fuzz() {
  make --no-print-directory fuzz FUZZTIME="$FUZZTIME"
}

# The longest packages first, so that the short ones fill the cores beside
# them rather than one long package running alone at the end. No vet (check
# did it). -p 4 -parallel 4: the tests mostly wait (internal/multidesk's
# scenarios, the CLI's processes), two packages at a time left a core idle.
plain() {
  $GO test -vet=off -p 4 -parallel 4 -count=1 -timeout 30m $($GO list ./internal/multidesk/ ./cli/ ./deploy/ ./e2e/ \
    ./internal/faultsim/ ./cmd/... ./web/ ./ui/ ./...)
}

winpkgs() {
  bash scripts/test-windows.sh packages
}

winbuild() {
  bash scripts/windows-build.sh -o /dev/null .
}

# qrdesk.exe end to end under wine. Its commands, sync, the MSI, the spooler
# and the window each start wine programs that must answer in time; with the
# compilers and the fuzzing beside it a qrdesk.exe once exited 1 without a
# word (alone it passed), so it comes last.
wine_e2e() {
  bash scripts/test-windows.sh end-to-end
}

phases=(check winvet fuzz plain winpkgs winbuild wine-e2e)
declare -A needs=([plain]=check [winpkgs]=winvet [winbuild]=winvet [wine-e2e]="winbuild winpkgs")
declare -A run=([wine-e2e]=wine_e2e)
declare -A state pid began byPid
logs=$(mktemp -d "${TMPDIR:-/tmp}/qrdesk-test.XXXXXX")
trap 'rm -rf "$logs"' EXIT
failed=()
summary=()
t0=$(date +%s)

# start NAME: runs one phase in the background, its output to its log.
start() {
  local name=$1
  began[$name]=$(date +%s)
  ( "${run[$name]:-$name}"; rc=$?; date +%s >"$logs/$name.end"; exit $rc ) >"$logs/$name.log" 2>&1 &
  pid[$name]=$! byPid[$!]=$name state[$name]=running
}

# finish NAME RC: prints a phase's output and records its result.
finish() {
  local name=$1 rc=$2
  local took=$(( $(cat "$logs/$name.end" 2>/dev/null || date +%s) - ${began[$name]} )) verdict=passed
  [ "$rc" = 0 ] || { verdict="FAILED (exit $rc)"; failed+=("$name"); }
  state[$name]=${verdict%% *}
  echo "== $name: $verdict in ${took} s"
  cat "$logs/$name.log"
  summary+=("$(printf '%-9s %-18s %5d s, from %4d s to %4d s' "$name" "$verdict" "$took" \
    $(( ${began[$name]} - t0 )) $(( ${began[$name]} + took - t0 )))")
}

# Start every phase whose needs have passed (a phase whose need failed is
# not run), wait for any one to end, and again, until none runs.
while :; do
  for name in "${phases[@]}"; do
    [ -z "${state[$name]:-}" ] || continue
    ready=1
    for need in ${needs[$name]:-}; do
      case ${state[$need]:-} in
        passed) ;;
        FAILED|skipped) ready=0; state[$name]=skipped; summary+=("$(printf '%-9s not run: %s failed' "$name" "$need")") ;;
        *) ready=0 ;;
      esac
      [ "$ready" = 1 ] || break
    done
    [ "$ready" = 1 ] && start "$name"
  done
  running=()
  for name in "${phases[@]}"; do [ "${state[$name]:-}" = running ] && running+=("${pid[$name]}"); done
  [ ${#running[@]} -gt 0 ] || break
  wait -n -p ended "${running[@]}"; rc=$?
  finish "${byPid[$ended]}" "$rc"
done

echo
echo "== make test: $(( $(date +%s) - t0 )) s"
printf '%s\n' "${summary[@]}"
if [ ${#failed[@]} -gt 0 ]; then
  echo "FAILED: ${failed[*]}"
  exit 1
fi
echo "every phase passed"
