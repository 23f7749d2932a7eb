# qrdesk — see README.md. `make run` opens the app, `make test` runs every test.
GO        ?= go
BIN       := bin/qrdesk
GOFLAGS   ?=
export CGO_ENABLED := 1

.PHONY: deps deps-build build run test race-all test-windows windows check check-linux check-windows bench clean screenshots fuzz soak days package package-desk package-server cjk-bold-font

# The linters make check runs, pinned and go-installed into bin/tools like
# nfpm (below), not required in go.mod: they check the code and are no part
# of it. A file target each (beside check-linux), so a second make deps
# installs nothing.
STATICCHECK_VERSION := v0.8.2
GOCYCLO_VERSION     := v0.6.0
STATICCHECK         := bin/tools/staticcheck-$(STATICCHECK_VERSION)
GOCYCLO             := bin/tools/gocyclo-$(GOCYCLO_VERSION)

# System packages (idempotent) and Go modules: deps-build to build and run,
# deps for the tests too.
deps-build:
	@bash scripts/install-deps.sh build
	@$(GO) mod download

deps: $(STATICCHECK) $(GOCYCLO)
	@bash scripts/install-deps.sh test
	@$(GO) mod download

# The release and commit every binary prints ('qrdesk version',
# 'qrdesk-server --version'): set at link time, since this machine's Go may
# not stamp the commit itself (GOFLAGS=-buildvcs=false).
COMMIT         = $(shell git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)$(shell git diff --quiet HEAD 2>/dev/null || echo -dirty)
VERSION_FLAGS  = -X qrdesk/internal/buildinfo.release=$(VERSION) -X qrdesk/internal/buildinfo.commit=$(COMMIT)

build: deps-build
	$(GO) build -ldflags='$(VERSION_FLAGS)' -o $(BIN) .

# The window on the embedded SQLite database in the user's data directory.
run: build
	./$(BIN)

# cgo's C compiler is clang: gcc 12 spent about 4 minutes of one core in
# cgo's probe of go-gl/gl (Fyne's OpenGL binding) alone, clang 3 s. The probe
# reports each of its 5,706 C names undeclared on purpose, and gcc looks for
# a spelling suggestion among every name in scope for each. CC=gcc make ...
# still uses gcc. (Windows: scripts/windows-build.sh.)
ifeq ($(origin CC),default)
CC := clang
endif
export CC

# Formatting, vet and the linters, for Linux (also the test build of
# qrdesk-server) and for Windows. make test runs both (scripts/test.sh), and
# its go test runs no vet of its own (-vet=off): go vet runs every check go
# test's would. staticcheck's checks are its defaults (staticcheck.conf says
# so, and is where an exception would go, with its reason).
# MAX_CYCLOMATIC: no function of the product branches more than this
# (gocyclo counts 1 + each if, for, case, && and ||); a longer rule is split
# into named small rules. Tests are not counted: a scenario's every step
# checks its error (if err != nil { t.Fatal }), so a long story counts high
# while it reads straight down.
MAX_CYCLOMATIC := 30
check: check-linux check-windows

check-linux: $(STATICCHECK) $(GOCYCLO)
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt would change:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...
	$(GO) vet -tags qrdesk_testclock ./cmd/...
	$(STATICCHECK) ./...
	$(STATICCHECK) -tags qrdesk_testclock ./cmd/...
	@complex=$$($(GOCYCLO) -over $(MAX_CYCLOMATIC) -ignore '_test\.go$$' .); \
	if [ -n "$$complex" ]; then echo "cyclomatic complexity over $(MAX_CYCLOMATIC) (split into named rules):"; echo "$$complex"; exit 1; fi

$(STATICCHECK):
	@mkdir -p bin/tools
	CGO_ENABLED=0 GOBIN=$(CURDIR)/bin/tools $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)
	mv bin/tools/staticcheck $@

$(GOCYCLO):
	@mkdir -p bin/tools
	CGO_ENABLED=0 GOBIN=$(CURDIR)/bin/tools $(GO) install github.com/fzipp/gocyclo/cmd/gocyclo@$(GOCYCLO_VERSION)
	mv bin/tools/gocyclo $@

# -trimpath: every Windows build is trimmed (scripts/test-windows.sh says why).
check-windows:
	GOOS=windows CGO_ENABLED=0 $(GO) vet -trimpath ./app/ ./printing/ ./store/ ./internal/... ./ui/...
	GOOS=windows CGO_ENABLED=0 $(GO) vet -trimpath -tags qrdesk_nogui .

# Every check and test, in phases that run side by side where they do not
# need each other (scripts/test.sh): gofmt and vet; every package's tests
# (the window's screens, the multi-desk scenarios, the CLI's and the
# end-to-end processes, both server engines); the Windows checks under wine;
# a short fuzz of every target. The race detector is make race-all's
# (docs/reliability.md says why).
test: deps
	@bash scripts/test.sh

# Every package but the window's screens under the race detector (about half
# an hour on 2 cores). The window's screens do not: Fyne's test driver runs
# fyne.Do callbacks inline on the calling goroutine (fyne v2.7.1
# test/driver.go, DoFromGoroutine), so a screen that loads off the UI
# goroutine and hands back through fyne.Do writes its widgets on the
# loader's goroutine while the test reads them; the real driver queues those
# callbacks on its one UI goroutine.
race-all: deps
	$(GO) test -race -count=1 -timeout 60m $(filter-out qrdesk qrdesk/ui qrdesk/ui/beep,$(shell $(GO) list ./...))

# The Windows checks on this Linux machine, under wine (docs/windows.md):
# the portable packages' tests cross-compiled for Windows (no cgo) and run
# in a throwaway wine prefix, the display language, and qrdesk.exe end to
# end. scripts/test-windows.sh; WINDOWS_PKGS=... narrows the packages.
test-windows: deps check-windows
	@bash scripts/test-windows.sh

# The whole suite on other days and in other time zones: TZ:QRDESK_TEST_DATE
# pairs ("today" is the machine's date). See docs/reliability.md.
DAYS ?= UTC:2026-11-29 UTC:today Pacific/Kiritimati:2028-02-29 Etc/GMT+12:2027-12-31 Europe/Berlin:2027-03-28 Europe/Berlin:2027-10-31
days: deps
	@for d in $(DAYS); do \
		tz=$${d%%:*}; date=$${d#*:}; [ "$$date" = today ] && date=$$(TZ=$$tz date +%F); \
		echo "== TZ=$$tz QRDESK_TEST_DATE=$$date"; \
		TZ=$$tz QRDESK_TEST_DATE=$$date $(GO) test -count=1 -timeout 15m ./... || exit 1; \
	done

# Each fuzz target for FUZZTIME (make fuzz FUZZTIME=5m for a long run). make test
# (scripts/test.sh) gives a count (20000x), not a duration: with a duration Go 1.26's fuzz
# coordinator can fail a clean run with a bare "context deadline exceeded"
# as the time runs out (go.dev/issue/75804, fixed in Go 1.27); a count has no
# deadline to race. -vet=off: make check vets these packages.
FUZZTIME ?= 1m
FUZZ_TARGETS := app:FuzzNormalizeParse app:FuzzVerify app:FuzzParseOrderFile printing:FuzzParseTemplate server:FuzzRequests
fuzz:
	@for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; name=$${t##*:}; \
		echo "fuzz $$name ($(FUZZTIME))"; \
		$(GO) test -vet=off -run '^$$' -fuzz "^$$name$$" -fuzztime $(FUZZTIME) ./$$pkg/ || exit 1; \
	done

# The long fault tests behind docs/reliability.md: 20 SIGKILLs of a 200,000-code
# issue, 40 waves of killed redeem processes, a million forgeries, the
# 8-station test, five PostgreSQL failovers, the fault-injection property
# test on SOAK_RUNS random schedules per engine, the two engines side by side,
# SOAK_PARALLEL schedules at a time each (a schedule mostly waits on its
# network faults: 1,000 per engine took 45 minutes on 2 cores; a failing seed
# is printed, QRDESK_SEED=N replays it), fuzzing.
SOAK_RUNS ?= 1000
SOAK_PARALLEL ?= 6
SOAK_PROPERTY = QRDESK_SOAK=1 QRDESK_SOAK_RUNS=$(SOAK_RUNS) $(GO) test -count=1 -parallel $(SOAK_PARALLEL) -timeout 4h ./internal/faultsim/ -run
soak: deps
	QRDESK_SOAK=1 $(GO) test -count=1 -v -timeout 60m -run 'TestKill|TestForgeryMillion|TestMultiStationSync|TestFailoverWithoutLoss' ./cli/ ./app/ ./internal/multidesk/ | grep -E '^(=== RUN|--- |ok|FAIL)|_test.go'
	$(SOAK_PROPERTY) 'TestPropertySoak/SQLite' & lite=$$!; \
	$(SOAK_PROPERTY) 'TestPropertySoak/PostgreSQL'; pg=$$?; \
	wait $$lite; lite=$$?; exit $$((lite | pg))
	@$(MAKE) --no-print-directory fuzz FUZZTIME=2m

# Benchmarks behind docs/performance.md.
bench: deps
	QRDESK_PG_DURABLE=1 $(GO) test -run '^$$' -bench . -benchmem -benchtime 1x -timeout 30m ./store/ ./server/ ./printing/ ./ui/

clean:
	rm -rf bin dist

# Installable packages (docs/operator.md "Install from packages", docs/deploy.md):
# dist/qrdesk_VERSION_ARCH.deb (the desk app) and
# dist/qrdesk-server_VERSION_ARCH.deb (the server, a hardened systemd
# service), built by nfpm. nfpm is pinned and go-installed into bin/tools
# rather than required in go.mod: it is a build tool, and its ~60 modules
# (git, crypto, rpm) have no place in the app's dependency graph. None of
# this is on the path of build, run or test's own build.
# Increasing with the commit's time (UTC), so every newer build installs
# over an older one: scripts/version.sh says how (deb and MSI).
VERSION ?= $(shell bash scripts/version.sh deb)
ARCH         ?= $(shell $(GO) env GOARCH)
NFPM_VERSION := v2.45.2
NFPM         := bin/tools/nfpm-$(NFPM_VERSION)
DIST         ?= dist

# Built as everything else here is (cgo on), so that it shares their compile
# of the standard library: with CGO_ENABLED=0 it compiled net and all that
# imports it again.
$(NFPM):
	@mkdir -p bin/tools
	CGO_ENABLED=0 GOBIN=$(CURDIR)/bin/tools $(GO) install github.com/goreleaser/nfpm/v2/cmd/nfpm@$(NFPM_VERSION)
	mv bin/tools/nfpm $@

package: package-desk package-server

# The desk app: make build's cgo build, linked without debug information
# (-s -w: an 18 MB package instead of 28 MB; only the link runs again).
package-desk: deps-build $(NFPM)
	@mkdir -p bin/package $(DIST)
	$(GO) build -ldflags='-s -w $(VERSION_FLAGS)' -o bin/package/qrdesk .
	VERSION='$(VERSION)' ARCH='$(ARCH)' $(NFPM) package --config deploy/nfpm-desk.yaml --packager deb --target $(DIST)/qrdesk_$(VERSION)_$(ARCH).deb

# The server: static (pure Go), stripped, without the test clock. Not
# -trimpath, like the desk's: built as make build and the tests build, it
# links from their Go cache (trimmed, it compiled every package again: about
# 2 minutes of the package test with an empty cache).
package-server: $(NFPM)
	@mkdir -p bin/package $(DIST)
	CGO_ENABLED=0 $(GO) build -ldflags='-s -w $(VERSION_FLAGS)' -o bin/package/qrdesk-server ./cmd/qrdesk-server
	VERSION='$(VERSION)' ARCH='$(ARCH)' $(NFPM) package --config deploy/nfpm-server.yaml --packager deb --target $(DIST)/qrdesk-server_$(VERSION)_$(ARCH).deb

# Windows 10/11 (x64), built here: dist/windows/qrdesk.exe (console: the
# commands), qrdeskw.exe (the Start-menu entries' launcher: qrdesk.exe without
# a console window), qrdesk-server.exe, each with the icon and version information,
# and dist/qrdesk-VERSION-x64.msi (wixl). The window needs cgo through
# mingw-w64 (scripts/windows-build.sh): about 2 minutes cold.
# docs/operator.md "Windows desks", docs/windows.md.
# WIN_VERSION is the MSI's ProductVersion (A.B.C within Windows Installer's
# limits, increasing with the commit's time: scripts/version.sh); the
# programs print VERSION, as the .deb's do.
WIN_VERSION ?= $(shell bash scripts/version.sh msi)
windows: deps
	DIST=$(DIST) bash scripts/build-windows.sh $(WIN_VERSION) '$(VERSION)'

# Screenshots of every screen (docs/screenshots), taken by the end-to-end test,
# and of the web dashboard (web-*.png), taken by its test in headless Chromium.
screenshots: deps
	QRDESK_SCREENSHOTS=$(CURDIR)/docs/screenshots $(GO) test -count=1 -run 'TestScannerAtTheDesk|TestScreensInChinese|TestBadgeSignInAtTheDesk' ./e2e/
	QRDESK_SCREENSHOTS=$(CURDIR)/docs/screenshots $(GO) test -count=1 -run 'TestDayScreenshots|TestVerdictScreenshots|TestStaffScreenshots' ./ui/
	QRDESK_SCREENSHOTS=$(CURDIR)/docs/screenshots $(GO) test -count=1 -run 'TestDashboardInChromium|TestSitePickerInChromium' ./web/

# The bold CJK face of the verdict titles, cut down to the Chinese texts'
# characters (run after adding Chinese texts; ui/TestBoldCJKCoversTheTitles).
cjk-bold-font:
	bash scripts/cjk-bold-subset.sh
