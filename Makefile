# Airlock build. `make test` is the whole suite (what CI runs).
GO      ?= go
BIN     := bin
GOFLAGS ?=
export CGO_ENABLED ?= 0

.PHONY: all build test test-k8s test-short bench lint vsix clean testdeps

# npm packages the Go tests drive as independent clients and checkers
# (ssh2; ethers, viem, jose; vscode-jsonrpc; jsonc-parser, js-yaml, smol-toml
# for review's differential parser tests). Installed once from lockfiles.
NPM_DIRS := sshd/testdata/node internal/signer/testdata/js internal/review/testdata/js editor-ext
testdeps: $(addsuffix /node_modules/.package-lock.json,$(NPM_DIRS))
%/node_modules/.package-lock.json: %/package-lock.json
	cd $* && npm ci --no-audit --no-fund

all: build

build:
	$(GO) build $(GOFLAGS) -o $(BIN)/airlock ./cmd/airlock
	$(GO) build $(GOFLAGS) -o $(BIN)/airlock-agent ./cmd/airlock-agent

# The whole suite: unit, integration (real OpenSSH, namespaces, qemu under
# TCG, git), and the editor extension's tests. CI allows 90 minutes in all,
# so each suite has a budget (a suite over it is killed and fails) and prints
# its wall time; the README (Tests) lists each suite's share.
# Both halves run even when the first fails, so one run shows every failure.
GO_TEST_BUDGET     ?= 55m
EDITOR_TEST_BUDGET ?= 15m
test: build testdeps
	@status=0; t0=$$(date +%s); \
	timeout --foreground $(GO_TEST_BUDGET) $(GO) test -count=1 -timeout $(GO_TEST_BUDGET) ./... || status=1; \
	t1=$$(date +%s); echo "make test: go suites took $$((t1-t0)) s (budget $(GO_TEST_BUDGET))"; \
	timeout --foreground $(EDITOR_TEST_BUDGET) $(MAKE) -C editor-ext test e2e || status=1; \
	t2=$$(date +%s); echo "make test: editor suites took $$((t2-t1)) s (budget $(EDITOR_TEST_BUDGET))"; \
	exit $$status

# The kubernetes backend against a real one-node cluster on loopback
# (internal/k8stest: etcd, kube-apiserver, kube-controller-manager,
# containerd, kubelet; as root). Not part of `test`: the first run builds
# the Kubernetes binaries (see README, Tests), cached by version under
# /var/cache/airlock-k8s (AIRLOCK_K8S_CACHE).
test-k8s: build
	AIRLOCK_K8S_TEST=1 $(GO) test -count=1 -timeout 120m -v ./vm/kubernetes/... ./internal/k8stest/...

# Quick loop: skips the long integration tests (microVM boot, code-server).
test-short: build testdeps
	$(GO) test -short ./...

bench: build
	$(GO) test -run '^$$' -bench . -benchtime 1x ./...

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

vsix:
	$(MAKE) -C editor-ext vsix

clean:
	rm -rf $(BIN)
