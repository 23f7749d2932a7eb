# qrdesk — see README.md. `make run` opens the app, `make test` runs every test.
GO        ?= go
BIN       := bin/qrdesk
GOFLAGS   ?=
export CGO_ENABLED := 1

.PHONY: deps deps-build build run test check bench clean screenshots fuzz soak

# System packages (idempotent) and Go modules: deps-build to build and run,
# deps for the tests too.
deps-build:
	@bash scripts/install-deps.sh build
	@$(GO) mod download

deps:
	@bash scripts/install-deps.sh test
	@$(GO) mod download

build: deps-build
	$(GO) build -o $(BIN) .

# The window on the embedded SQLite database in the user's data directory.
run: build
	./$(BIN)

# Formatting, vet, then every test (unit, integration, processes, GUI under Xvfb).
check:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt would change:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...

test: deps check
	$(GO) test -count=1 -timeout 15m ./...
	@$(MAKE) --no-print-directory fuzz FUZZTIME=3s

# Each fuzz target for FUZZTIME (make fuzz FUZZTIME=5m for a long run).
FUZZTIME ?= 1m
FUZZ_TARGETS := app:FuzzNormalizeParse app:FuzzVerify printing:FuzzParseTemplate server:FuzzRequests
fuzz:
	@for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; name=$${t##*:}; \
		echo "fuzz $$name ($(FUZZTIME))"; \
		$(GO) test -run '^$$' -fuzz "^$$name$$" -fuzztime $(FUZZTIME) ./$$pkg/ || exit 1; \
	done

# The long fault tests behind docs/reliability.md: 20 SIGKILLs of a 200,000-code
# issue, 40 waves of killed redeem processes, a million forgeries, fuzzing.
soak: deps
	QRDESK_SOAK=1 $(GO) test -count=1 -v -timeout 60m -run 'TestKill|TestForgeryMillion|TestMultiStationSync' ./cli/ ./app/ | grep -E '^(=== RUN|--- |ok|FAIL)|_test.go'
	@$(MAKE) --no-print-directory fuzz FUZZTIME=2m

# Benchmarks behind docs/performance.md.
bench: deps
	QRDESK_PG_DURABLE=1 $(GO) test -run '^$$' -bench . -benchmem -benchtime 1x -timeout 30m ./store/ ./server/ ./printing/ ./ui/

clean:
	rm -rf bin

# Screenshots of every screen (docs/screenshots), taken by the end-to-end test.
screenshots: deps
	QRDESK_SCREENSHOTS=$(CURDIR)/docs/screenshots $(GO) test -count=1 -run TestScannerAtTheDesk ./e2e/
