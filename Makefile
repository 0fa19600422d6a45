# airtcp: `make demo` to see it work, `make test` to check it.
# Works as root without a virtualenv: the package is installed editable (pip + maturin backend),
# so Python edits take effect at once and `make develop` rebuilds the Rust extension.

PYTHON ?= python3
PIP    ?= $(PYTHON) -m pip
CARGO  ?= cargo
export PIP_DISABLE_PIP_VERSION_CHECK := 1
export PIP_ROOT_USER_ACTION := ignore

.PHONY: setup deps develop demo test test-rust test-python kernel bench pgo validate-ns3 validate-ns2 fmt fmt-check wheel clean reproduce reproduce-quick

## setup: install build/test tools and the package (editable, extension built in release mode)
setup: deps develop

deps:
	$(PIP) install -q -r requirements-dev.txt

## develop: (re)build the Rust extension and install the package editable, with its dependencies
develop:
	$(PIP) install -q --no-build-isolation -e '.[dev]'

## demo: Reno vs Westwood vs TCP-Jersey vs TCP NJ+ on TCP-Jersey's Fig. 10 topology (1% loss) -> out/demo/
demo: setup
	$(PYTHON) -m airtcp demo --out out/demo

## reproduce: every seed experiment whose parts exist (full), then REPRODUCTION.md's claims table
reproduce:
	$(PYTHON) -m airtcp reproduce --all --update-reproduction

## reproduce-quick: the same with fewer seeds, shorter runs and fewer points (results/ only)
reproduce-quick:
	$(PYTHON) -m airtcp reproduce --all --quick

## test: Rust unit/property tests, then the Python tests against a freshly built extension
test: test-rust setup test-python

test-rust:
	$(CARGO) test --release -p airtcp -p airtcp-kernel-diff -p airtcp-testbed

## kernel: the BPF congestion controls kernel/build/atcp_*.bpf.o (needs clang, bpftool, kernel BTF)
## and the host build of their C core
kernel:
	$(MAKE) -C kernel check

test-python:
	$(PYTHON) -m pytest -q tests/python

## bench: criterion micro-benchmarks, then whole-run timings beside ns-2.35 (if `ns` is installed)
bench:
	$(CARGO) bench -p airtcp --bench engine -- --quick
	$(CARGO) build --release -p airtcp --example bench_scenarios
	$(PYTHON) bench/run_bench.py

## pgo: a statically linked, profile-guided scenario runner, same results, ~15% faster; prints its
## path (needs llvm-profdata of rustc's LLVM version, e.g. Debian's llvm-22)
pgo:
	bash bench/build_pgo.sh

## validate-ns3: airtcp vs ns-3 3.44 side by side -> VALIDATION.md (not in CI: downloads the ~100 MB
## `ns3` wheel into target/ns3 and builds C++ twins with g++; QUICK=1 for 3 seeds and short runs)
validate-ns3:
	$(PYTHON) bench/validate_ns3.py $(if $(QUICK),--quick,)

## validate-ns2: airtcp vs ns-2.35 (Fig. 10 path, 7 schemes; 20-flow dumbbell, DropTail/RED/CW) ->
## VALIDATION.md's "airtcp vs ns-2.35" section; where `ns` (Debian's ns2) is installed it also rewrites
## the committed reference bench/ns2/reference.json, elsewhere it compares against that file
## (QUICK=1: fewer seeds, reference.json untouched)
validate-ns2:
	$(PYTHON) bench/validate_ns2.py $(if $(QUICK),--quick,)

fmt:
	$(CARGO) fmt --all
	-$(PYTHON) -m ruff format python tests/python 2>/dev/null || true

fmt-check:
	$(CARGO) fmt --all -- --check

## wheel: a redistributable wheel in target/wheels/
wheel:
	$(PYTHON) -m maturin build --release -o target/wheels

clean:
	rm -rf out target/wheels python/airtcp/_core*.so .pytest_cache .hypothesis
