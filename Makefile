# airtcp: `make demo` to see it work, `make test` to check it.
# Everything Python lives in the virtual environment .venv/, made once from $(PYTHON) (so it works on
# a stock Debian whose system Python refuses `pip install`, PEP 668). The package is installed there
# editable (pip + maturin backend): Python edits take effect at once, `make develop` rebuilds the
# Rust extension. `. .venv/bin/activate` puts `airtcp` and the venv's `python` on PATH.

PYTHON ?= python3
VENV   ?= .venv
# the venv's python, with the venv's bin/ first on PATH (the maturin build backend runs `maturin`)
VPY    := PATH="$(abspath $(VENV))/bin:$$PATH" VIRTUAL_ENV="$(abspath $(VENV))" $(VENV)/bin/python
PIP    := $(VPY) -m pip
CARGO  ?= cargo
export PIP_DISABLE_PIP_VERSION_CHECK := 1
export PIP_ROOT_USER_ACTION := ignore

# Debian packages for kernel/ and the real-kernel tests (BPF congestion controls, testbed).
KERNEL_PKGS := clang llvm libbpf-dev bpftool iperf3 libelf-dev zlib1g-dev pkg-config
# Debian packages some tests use: tshark reads `airtcp run --pcap` captures (tests/python/test_pcap.py)
TEST_PKGS := tshark
# root runs apt-get itself, anyone else through sudo when there is one
SUDO := $(shell [ "$$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1 && echo sudo)

.PHONY: setup deps develop demo test test-rust test-python test-floors lint lint-rust lint-python rust-tools kernel kernel-deps \
        test-deps bench bench-ab pgo validate-ns3 validate-ns2 fmt fmt-check wheel clean distclean reproduce reproduce-quick \
        campaign fuzz fuzz-cmin

## setup: the virtual environment .venv/ with the build/test tools, and the package (editable,
## extension built in release mode)
setup: deps develop

## deps: the build/test tools of requirements-dev.txt in .venv/ (again when that file changes)
deps: $(VENV)/.deps

# The venv itself: made when missing, kept when it works (a `.venv` the user made is theirs: never
# deleted), made again only when it is a virtual environment that no longer runs (its Python was
# removed or upgraded). Debian ships venv's ensurepip in python3-venv: installed here when root
# with apt-get (as for the kernel tools), else a one-line error naming it.
$(VENV)/.made:
	@if [ -x $(VENV)/bin/python ] && $(VENV)/bin/python -c 'import sys; sys.exit(sys.prefix == sys.base_prefix)' 2>/dev/null \
	    && $(VENV)/bin/python -m pip --version >/dev/null 2>&1; then \
	  echo "== keeping the working virtual environment $(VENV)/ ($$($(VENV)/bin/python --version))"; \
	elif [ -e $(VENV) ] && [ ! -f $(VENV)/pyvenv.cfg ]; then \
	  echo "error: $(VENV) exists but is not a virtual environment; move it away or use VENV=another-folder" >&2; exit 1; \
	else \
	  $(PYTHON) -c 'import venv, ensurepip' 2>/dev/null || { \
	    if [ "$$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then \
	      echo "== installing python3-venv (apt-get): $(PYTHON) has no venv/ensurepip module"; \
	      apt-get update -qq || true; \
	      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null; \
	    fi; \
	    $(PYTHON) -c 'import venv, ensurepip' 2>/dev/null || { \
	      echo "error: $(PYTHON) cannot make a virtual environment (no venv/ensurepip module): install python3-venv (Debian/Ubuntu: sudo apt-get install python3-venv) or run with PYTHON=/path/to/python3" >&2; \
	      exit 1; }; }; \
	  if [ -e $(VENV) ]; then \
	    echo "== $(VENV)/ no longer runs (its Python is gone or broken): making it again with $(PYTHON)"; \
	    $(PYTHON) -m venv --clear $(VENV); \
	  else \
	    echo "== making the virtual environment $(VENV)/ with $$($(PYTHON) --version)"; \
	    $(PYTHON) -m venv $(VENV); \
	  fi; \
	fi
	@touch $@

$(VENV)/.deps: $(VENV)/.made requirements-dev.txt
	@echo "== installing the build and test tools of requirements-dev.txt into $(VENV)/"
	$(PIP) install --progress-bar off -r requirements-dev.txt
	@touch $@

## develop: (re)build the Rust extension and install the package editable, with its dependencies
## (pip -v shows cargo's progress: the first release build takes a few minutes, see README)
develop: $(VENV)/.deps
	@echo "== building the Rust engine and extension (release profile) and installing airtcp into $(VENV)/ (editable)"
	$(PIP) install -v --progress-bar off --no-build-isolation -e '.[dev]'
	@touch $(VENV)/.installed
	@echo "== airtcp installed: . $(VENV)/bin/activate puts airtcp on PATH"

# the package installed at least once (targets that only use it; `make develop` rebuilds)
$(VENV)/.installed: | $(VENV)/.deps
	$(MAKE) --no-print-directory develop

## demo: Reno vs Westwood vs TCP-Jersey vs TCP NJ+ on TCP-Jersey's Fig. 10 topology (1% loss) -> out/demo/
demo: setup
	@echo "== airtcp demo (six 100 s runs)"
	$(VPY) -m airtcp demo --out out/demo

## reproduce: every seed experiment whose parts exist (full), then REPRODUCTION.md's claims table
reproduce: $(VENV)/.installed
	$(VPY) -m airtcp reproduce --all --update-reproduction

## reproduce-quick: the same with fewer seeds, shorter runs and fewer points (results/ only, ending
## with results/index.html)
reproduce-quick: $(VENV)/.installed
	$(VPY) -m airtcp reproduce --all --quick

## test: the lints (fast, first), Rust unit/property tests, then the Python tests against a freshly
## built extension (the real-kernel tests skip unless root with clang, bpftool and kernel BTF: see
## kernel-deps)
test: lint test-rust setup test-python

# The Python sources ruff formats and checks (`make fmt` rewrites them; pyproject.toml's [tool.ruff]).
PY_SRC := python tests/python bench fuzz

## lint: formatting, lints, docs and types, each failing on any finding: cargo fmt --check, clippy
## (-D warnings, every target), cargo doc (warnings as errors), ruff format --check, ruff check, mypy
## on python/airtcp (pyproject.toml's [tool.mypy]); `make fmt` fixes the formatting. (The
## python/airtcp/_core.pyi stub is checked against the built extension by stubtest, in test-python.)
lint: lint-rust lint-python

lint-rust: rust-tools
	@echo "== Rust lints: rustfmt, clippy (every target), rustdoc"
	$(CARGO) fmt --all --check
	$(CARGO) clippy --workspace --all-targets -- -D warnings
	RUSTDOCFLAGS="-D warnings" $(CARGO) doc --workspace --no-deps

# clippy and rustfmt are rustup components: added when missing (a toolchain without rustup must
# bring its own)
rust-tools:
	@$(CARGO) clippy --version >/dev/null 2>&1 && $(CARGO) fmt --version >/dev/null 2>&1 || { \
	  echo "adding the rustup components clippy and rustfmt (make lint needs them)"; \
	  rustup component add clippy rustfmt || true; }
	@$(CARGO) clippy --version >/dev/null 2>&1 && $(CARGO) fmt --version >/dev/null 2>&1 || { \
	  echo "error: make lint needs cargo clippy and cargo fmt: rustup component add clippy rustfmt (or your distribution's rust-clippy and rustfmt packages)" >&2; \
	  exit 1; }

# ruff and mypy come from requirements-dev.txt; mypy also needs the package's dependencies installed
lint-python: $(VENV)/.installed
	@echo "== Python lints: ruff format, ruff check, mypy"
	$(VPY) -m ruff format --check $(PY_SRC)
	$(VPY) -m ruff check $(PY_SRC)
	$(VPY) -m mypy

# The test profile (Cargo.toml): optimized, with overflow checks and debug assertions on, so an
# arithmetic overflow in the engine fails a test instead of wrapping silently as in release.
# airtcp-fuzz: every committed fuzz input replayed, plus a short seeded slice of new ones (stable).
# The unit and integration tests, then the doc tests: the examples are not built again here
# (clippy --all-targets in lint-rust already compiles them), which saves linking four more
# optimized binaries.
RUST_TEST_PKGS := -p airtcp -p airtcp-kernel-diff -p airtcp-testbed -p airtcp-fuzz -p airtcp-testkit
test-rust:
	@echo "== Rust tests (test profile: optimized, with overflow checks and debug assertions)"
	$(CARGO) test $(RUST_TEST_PKGS) --lib --bins --tests
	$(CARGO) test $(RUST_TEST_PKGS) --doc

# One pytest-xdist worker per physical core (PYTEST_WORKERS=0 runs them in this process): most of
# their time is commands and runs in child processes, so two workers on two cores take 3 min 45 s
# where one process took 8 min 14 s (same idle machine, kernel tests included).
PYTEST_WORKERS ?= auto
test-python: $(VENV)/.installed
	@echo "== Python tests ($(PYTEST_WORKERS) workers)"
	$(VPY) -m pytest -q -n $(PYTEST_WORKERS) tests/python

## test-floors: the Python tests against the lowest dependency versions pyproject.toml allows
## (requirements-floors.txt, installed once into .venv-floors/ with $(PYTHON)) and the extension
## that `make setup` built; FLOORS_TESTS picks the tests (default: all of tests/python; CI runs
## FLOORS_QUICK, the tests of the API, CLI, sweep and plots)
FLOORS_VENV  ?= .venv-floors
FLOORS_QUICK := tests/python/test_api.py tests/python/test_api_inputs.py tests/python/test_cli.py \
                tests/python/test_sweep.py tests/python/test_presets.py tests/python/test_help.py
FLOORS_TESTS ?= tests/python
test-floors: $(FLOORS_VENV)/.deps $(VENV)/.installed
	@echo "== Python tests with the lowest allowed dependency versions ($(FLOORS_VENV)/)"
	@$(FLOORS_VENV)/bin/python -m pip list --format=freeze 2>/dev/null | grep -iE '^(polars|typer|rich|matplotlib|scipy|tomli-w|tomli_w|pandas|pyarrow|numpy|click)=' | tr '\n' ' '; echo
	PYTHONPATH="$(abspath python)" MPLBACKEND=Agg $(FLOORS_VENV)/bin/python -m pytest -q -p no:cacheprovider $(FLOORS_TESTS)

$(FLOORS_VENV)/.deps: requirements-floors.txt
	@echo "== installing the lowest allowed dependency versions into $(FLOORS_VENV)/ (once; about 150 MB of wheels)"
	$(PYTHON) -m venv --clear $(FLOORS_VENV)
	$(FLOORS_VENV)/bin/python -m pip install --progress-bar off -r requirements-floors.txt 'pytest>=7' 'hypothesis>=6'
	@touch $@

## kernel: the BPF congestion controls kernel/build/atcp_*.bpf.o (needs clang, bpftool, kernel BTF)
## and the host build of their C core
kernel:
	$(MAKE) -C kernel check

## kernel-deps: the Debian packages of `make kernel` and the real-kernel tests (root or sudo, apt-get)
kernel-deps:
	@if dpkg -s $(KERNEL_PKGS) >/dev/null 2>&1; then echo "kernel-deps: all installed"; \
	elif ! command -v apt-get >/dev/null 2>&1; then echo "kernel-deps: no apt-get; install $(KERNEL_PKGS)" >&2; exit 1; \
	else $(SUDO) apt-get update -qq || true; \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $(KERNEL_PKGS) >/dev/null; fi

## test-deps: the Debian packages some tests use (tshark for the pcap tests; root or sudo, apt-get)
# wireshark-common asks whether non-root users may capture: answered "no" beforehand (the tests
# only read files), so the install never stops at the question.
test-deps:
	@if dpkg -s $(TEST_PKGS) >/dev/null 2>&1; then echo "test-deps: all installed"; \
	elif ! command -v apt-get >/dev/null 2>&1; then echo "test-deps: no apt-get; install $(TEST_PKGS)" >&2; exit 1; \
	else $(SUDO) apt-get update -qq || true; \
	  echo "wireshark-common wireshark-common/install-setuid boolean false" | $(SUDO) debconf-set-selections 2>/dev/null || true; \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $(TEST_PKGS) >/dev/null; fi

## bench: criterion micro-benchmarks, then whole-run timings beside ns-2.35 (if `ns` is installed)
bench: $(VENV)/.installed
	$(CARGO) bench -p airtcp --bench engine -- --quick
	$(CARGO) build --release -p airtcp --example bench_scenarios
	$(VPY) bench/run_bench.py

## bench-ab: steady-state CPU time per simulated 100 s (1000-s run minus 1-s run, whole process),
## this checkout A/B against BASE (default 0172df5, built once in a worktree under target/ab), on
## Fig. 10 at 0% and 1% loss and the 20-flow dumbbell; NS2=1 adds ns-2.35 on Fig. 10; PGO=1 builds
## both runners profile-guided (as `make pgo`); ONE_SAMPLE=1 runs both with one sample instead of
## the 100-ms series (the output ns-2.35's script records: the equal-output comparison);
## REGIMES=1 splits the rounds by the host's speed regime (use many rounds); AB_ONLY="fig10-1 ..."
## times only those scenarios (fig10-0, fig10-1, dumbbell)
BASE ?= 0172df5
AB_ROUNDS ?= 11
bench-ab:
	python3 bench/steady_ab.py --base $(BASE) --rounds $(AB_ROUNDS) $(if $(NS2),--ns2,) $(if $(PGO),--pgo,) $(if $(ONE_SAMPLE),--one-sample,) \
		$(if $(REGIMES),--regimes,) $(foreach s,$(AB_ONLY),--only $(s))

## fuzz: each cargo-fuzz target of fuzz/ (scenario, receiver, sender) for FUZZ_SECONDS (default 60)
## on nightly, one at a time, then the hypothesis fuzz of the Python API and CLI with
## AIRTCP_FUZZ_EXAMPLES (default 5000) mutated scenarios; installs cargo-fuzz when missing.
## Findings: fuzz/artifacts/<target>/; new inputs: fuzz/corpus-tmp/ (`make fuzz-cmin` merges them).
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?= scenario receiver sender
AIRTCP_FUZZ_EXAMPLES ?= 5000
fuzz: $(VENV)/.installed
	@rustup toolchain list 2>/dev/null | grep -q '^nightly' || { echo "error: make fuzz needs the nightly toolchain (libFuzzer): rustup toolchain install nightly" >&2; exit 1; }
	@command -v cargo-fuzz >/dev/null 2>&1 || $(CARGO) install cargo-fuzz
	@for t in $(FUZZ_TARGETS); do echo "== fuzz $$t: $(FUZZ_SECONDS) s"; fuzz/run.sh $$t $(FUZZ_SECONDS) || exit 1; done
	AIRTCP_FUZZ_EXAMPLES=$(AIRTCP_FUZZ_EXAMPLES) $(VPY) -m pytest -q tests/python/test_fuzz.py

## fuzz-cmin: merge fuzz/corpus-tmp/ into the committed corpus fuzz/corpus/, minimised
fuzz-cmin:
	@for t in $(FUZZ_TARGETS); do fuzz/cmin.sh $$t || exit 1; done

## pgo: a statically linked, profile-guided scenario runner, same results, 1-7% faster; prints its
## path (needs llvm-profdata of rustc's LLVM version, e.g. Debian's llvm-22)
pgo:
	bash bench/build_pgo.sh

## validate-ns3: airtcp vs ns-3 3.44 side by side -> VALIDATION.md (not in CI: downloads the ~100 MB
## `ns3` wheel into target/ns3 and builds C++ twins with g++; QUICK=1 for 3 seeds and short runs)
validate-ns3: $(VENV)/.installed
	$(VPY) bench/validate_ns3.py $(if $(QUICK),--quick,)

## validate-ns2: airtcp vs ns-2.35 (Fig. 10 path, 7 schemes, windows 1000 and 20; 20-flow dumbbell, DropTail/RED/CW) ->
## VALIDATION.md's "airtcp vs ns-2.35" section; where `ns` (Debian's ns2) is installed it also rewrites
## the committed reference bench/ns2/reference.json, elsewhere it compares against that file
## (QUICK=1: fewer seeds, reference.json untouched)
validate-ns2: $(VENV)/.installed
	$(VPY) bench/validate_ns2.py $(if $(QUICK),--quick,)

## fmt: rewrite the formatting `make lint` checks (cargo fmt, ruff format) and apply ruff's safe fixes
fmt: $(VENV)/.deps
	$(CARGO) fmt --all
	$(VPY) -m ruff format $(PY_SRC)
	$(VPY) -m ruff check --fix $(PY_SRC)

## fmt-check: only the formatting part of `make lint`
fmt-check: $(VENV)/.deps
	$(CARGO) fmt --all -- --check
	$(VPY) -m ruff format --check $(PY_SRC)

## wheel: a redistributable wheel in target/wheels/, with experiments/ and examples/ as package data
## (airtcp/data/; `airtcp reproduce --list` and `airtcp demo` work from the wheel alone)
wheel: $(VENV)/.deps
	$(VPY) -m maturin build --release -o target/wheels

clean:
	rm -rf out target/wheels python/airtcp/_core*.so .pytest_cache .hypothesis

## distclean: clean, and remove the virtual environment .venv/
distclean: clean
	rm -rf $(VENV) $(FLOORS_VENV)

## campaign: the invariant campaign (issue 25 part 8): CAMPAIGN_RUNS random small scenarios from
## CAMPAIGN_SEED, each run and checked (byte stream, per-link packet conservation, no negative or NaN
## figure, cut-through equivalence; see crates/airtcp-testkit), in the test profile so that
## overflows and debug assertions count; prints the figure and the coverage (BENCHMARKS.md)
CAMPAIGN_RUNS ?= 100000
CAMPAIGN_SEED ?= 1
CAMPAIGN_JOBS ?= 1
campaign:
	$(CARGO) run --profile test -p airtcp-testkit --bin campaign -- --runs $(CAMPAIGN_RUNS) --seed $(CAMPAIGN_SEED) --jobs $(CAMPAIGN_JOBS)
