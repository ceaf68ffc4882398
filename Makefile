# mcp-gateway: build, run a demo, test.
# `make run` and `make test` install what they need (Go modules, and the
# pinned npm servers and clients in test/).

GO      ?= go
BIN     := bin/mcp-gateway
VERSION ?= $(shell git describe --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -s -w -X main.version=$(VERSION)

.PHONY: build run test test-unit test-integration fuzz bench npm clean

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
	$(MAKE) fuzz FUZZTIME=40000x

# Each fuzz target for a bounded number of inputs. A count, not a duration:
# go1.26's fuzz coordinator can fail a target with "context deadline
# exceeded" when a duration ends while a worker is mid-input
# (go.dev/issue/75804, fixed in go1.27). `make fuzz FUZZTIME=5m` explores
# longer by hand.
FUZZTIME ?= 200000x
fuzz:
	@for pkg in ./adapters/ ./catalog/ ./aggregator/ ./aggregator/wire/ ./jsonrpc/ ./supervisor/; do \
		for target in $$($(GO) test -list '^Fuzz' $$pkg | grep ^Fuzz); do \
			$(GO) test -run '^$$' -fuzz "^$$target$$" -fuzztime $(FUZZTIME) $$pkg || exit 1; done; done

clean:
	rm -rf bin .run

# The benchmark of issue 8 (bench/): every figure directly over stdio, through
# the gateway, and through a minimal net/http proxy (the floor), 3 repetitions;
# prints the table and writes bench/results/latest.json. About 2 minutes.
# `make test` runs it at a small size (go test ./bench/).
bench: npm
	$(GO) run ./bench/cmd/bench -out bench/results/latest.json
