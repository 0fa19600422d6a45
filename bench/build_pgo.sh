#!/bin/bash
# Builds a statically linked, profile-guided (PGO) scenario runner and prints its path:
#   $CARGO_TARGET_DIR/pgo/x86_64-unknown-linux-gnu/release/examples/run_toml
# Same code and results as the plain runner (PGO only reorders and inlines by measured branch
# frequencies); 1–7% faster here since issue 42's hand layout (11–19% on 0172df5, BENCHMARKS.md).
# Needs llvm-profdata of rustc's own LLVM major version (Debian: `apt-get install llvm-NN`, NN from
# `rustc -vV`). Used by `make pgo`, `make bench-ab PGO=1` and bench/run_bench.py.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
t=${CARGO_TARGET_DIR:-$root/target}
gnu=x86_64-unknown-linux-gnu
major=$(rustc -vV | sed -n 's/^LLVM version: \([0-9]*\).*/\1/p')
prof=$(command -v "llvm-profdata-$major" || true)
[ -n "$prof" ] || { [ -x "/usr/lib/llvm-$major/bin/llvm-profdata" ] && prof=/usr/lib/llvm-$major/bin/llvm-profdata; } || true
if [ -z "$prof" ]; then
  echo "build_pgo: needs llvm-profdata from LLVM $major, rustc's (Debian: apt-get install llvm-$major)" >&2
  exit 2
fi
raw=$t/pgo-profiles
rm -rf "$raw"
mkdir -p "$raw"
RUSTFLAGS="-Cprofile-generate=$raw -C target-feature=+crt-static" CARGO_TARGET_DIR=$t/pgo-gen \
  cargo build --release -q -p airtcp --example run_toml --target $gnu
# Training runs: every example scenario, with a seed that no benchmark uses.
cd "$root/examples"
for f in *.toml; do
  "$t/pgo-gen/$gnu/release/examples/run_toml" "$f" 7 >/dev/null 2>&1
done
"$prof" merge -o "$raw/merged.profdata" "$raw"/*.profraw
RUSTFLAGS="-Cprofile-use=$raw/merged.profdata -C target-feature=+crt-static" CARGO_TARGET_DIR=$t/pgo \
  cargo build --release -q -p airtcp --example run_toml --target $gnu
echo "$t/pgo/$gnu/release/examples/run_toml"
