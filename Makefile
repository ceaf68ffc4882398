# mcp-gateway: build, run a demo, test.
# `make run` and `make test` install what they need (Go modules, and the
# pinned npm servers and clients in test/).

GO      ?= go
BIN     := bin/mcp-gateway
VERSION ?= $(shell git describe --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -s -w -X main.version=$(VERSION)

.PHONY: build run test test-unit test-integration fuzz bench npm clean chaos soak

build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/mcp-gateway

# The npm servers and clients the demo and the integration tests use,
# pinned in test/package.json.
npm: test/node_modules/.package-lock.json
test/node_modules/.package-lock.json: test/package.json test/package-lock.json
	cd test && npm ci --no-audit --no-fund
	touch $@

run: build npm
	test/demo.sh

test: build npm
	$(GO) vet ./...
	$(GO) test -count=1 -timeout 20m ./...
	$(MAKE) fuzz FUZZTIME=40000x FUZZTIME_NET=4000x

# Each fuzz target for a bounded number of inputs. A count, not a duration:
# go1.26's fuzz coordinator can fail a target with "context deadline
# exceeded" when a duration ends while a worker is mid-input
# (go.dev/issue/75804, fixed in go1.27). `make fuzz FUZZTIME=5m` explores
# longer by hand.
FUZZTIME ?= 200000x
# Targets whose every input goes over loopback sockets (about 200 inputs/s
# on the 2-core machine, against thousands): FUZZTIME_NET for them.
FUZZ_NET = FuzzHTTPAnswer
FUZZTIME_NET ?= $(FUZZTIME)
# Every package with a fuzz target, found rather than listed: a move
# between packages must not drop one.
FUZZPKGS = $(sort $(patsubst %/,./%/,$(dir $(shell git ls-files '*_test.go' | xargs grep -l '^func Fuzz'))))

fuzz:
	@for pkg in $(FUZZPKGS); do \
		for target in $$($(GO) test -list '^Fuzz' $$pkg | grep ^Fuzz); do \
			n=$(FUZZTIME); case " $(FUZZ_NET) " in *" $$target "*) n=$(FUZZTIME_NET);; esac; \
			$(GO) test -run '^$$' -fuzz "^$$target$$" -fuzztime $$n $$pkg || exit 1; done; done

clean:
	rm -rf bin .run

# The benchmark of issue 8 (bench/): every figure directly over stdio, through
# the gateway, and through a minimal net/http proxy (the floor), 3 repetitions;
# prints the table and writes bench/results/latest.json. About 2 minutes.
# `make test` runs it at a small size (go test ./bench/).
# BASELINE=/path/to/an/older/mcp-gateway measures that binary beside the
# tree's build in the same run, with a verdict per figure (bench/README.md).
BASELINE ?=
bench: npm
	$(GO) run ./bench/cmd/bench -out bench/results/latest.json $(if $(BASELINE),-gateway '$(BASELINE)')

# The chaos run of issue 36 (test/chaos, docs/chaos.md): 16 clients of both
# eras make 10,000 calls over stdio and HTTP servers while servers are
# killed, frozen, restarted and reloaded, connections dropped, sessions
# deleted and bad bodies sent; it prints the seed, the counts, the
# latencies and the daemon's resources before and after, and fails on a
# hung call, an error that names no server, an orphan, resources not back
# within 5 s or a server's lines missing from the log. A few minutes.
# SEED=N runs a seed again; `make test` runs a bounded version (about a
# minute, go test ./test/chaos/).
SEED ?=
CHAOS_CALLS ?= 10000
chaos: npm
	$(GO) run ./test/chaos/cmd/chaos -calls $(CHAOS_CALLS) $(if $(SEED),-seed $(SEED))

# 30 minutes of steady load (40 calls/s, no faults), sampling the daemon's
# goroutines, fds and RssAnon every 10 s; prints each one's least-squares
# slope per hour. Outside CI.
SOAK ?= 30m
soak: npm
	$(GO) run ./test/chaos/cmd/chaos -soak -calls 0 -duration $(SOAK) $(if $(SEED),-seed $(SEED))
